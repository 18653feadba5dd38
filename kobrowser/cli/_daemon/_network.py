"""Daemon side of ``ko-browser network``: route, unroute, block, unblock, requests, har.

Routes and blocks apply to the current tab's context (the session's tabs,
and tabs and popups opened later); the request log is the current tab's; the
HAR is of every tab of the default context (recorded from the daemon's start).
Every call of the network family is in this module.
"""

from __future__ import annotations

import re

import anyio
import msgspec

import kobrowser
from kobrowser.cli._daemon._context import Args, Command, Context, Result

__all__ = ["COMMANDS"]


def _context(ctx: Context) -> kobrowser.BrowserContext:
    context = ctx.tab().context
    return context if isinstance(context, kobrowser.BrowserContext) else ctx.browser.default_context


def _pattern(pattern: str, regex: bool) -> str | re.Pattern[str]:
    """A URL glob, or with ``--regex`` the compiled expression."""
    if not regex:
        return pattern
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise kobrowser.InvalidArgumentError(
            f"invalid regex {pattern!r}: {exc}", argument="pattern"
        ) from None


async def route(ctx: Context, args: Args) -> Result:
    context = _context(ctx)
    given = args.text("pattern")
    pattern = _pattern(given, args.flag("regex"))
    reason = args.optional_text("abort")
    if reason is not None:
        if reason.lower() not in kobrowser.Route.ABORT_REASONS:  # checked before routing
            known = ", ".join(kobrowser.Route.ABORT_REASONS)
            raise kobrowser.InvalidArgumentError(
                f"unknown abort reason {reason!r}; known: {known}", argument="reason"
            )

        async def abort(request: kobrowser.Route) -> None:
            await request.abort(reason)

        await context.route(pattern, abort)
        return {"pattern": given, "abort": reason}, f"{given}: abort ({reason})"
    body_file = args.optional_text("body")
    body = await anyio.Path(body_file).read_bytes() if body_file else b""
    status = args.optional_whole("status") or 200
    headers = {}
    for header in args.optional_texts("header") or []:
        name, _, value = header.partition(":")
        headers[name.strip()] = value.strip()
    content_type = args.optional_text("content_type")

    async def fulfill(request: kobrowser.Route) -> None:
        await request.fulfill(status, body, headers, content_type)

    await context.route(pattern, fulfill)
    return (
        {"pattern": given, "status": status, "bytes": len(body)},
        f"{given}: answer {status} ({len(body)} bytes)",
    )


async def unroute(ctx: Context, args: Args) -> Result:
    context = _context(ctx)
    given = args.optional_text("pattern")
    if given is None:
        removed = await context.unroute_all()
    else:
        removed = await context.unroute(_pattern(given, args.flag("regex")))
    return {"removed": removed}, f"removed {removed} route(s)"


async def block(ctx: Context, args: Args) -> Result:
    patterns = args.texts("patterns")
    types = args.optional_text("types")
    await _context(ctx).block(patterns or None, types=types)
    what = [*patterns, *([f"types {types}"] if types else [])]
    return {"patterns": patterns, "types": types}, f"blocking {', '.join(what)}"


async def unblock(ctx: Context, args: Args) -> Result:
    removed = await _context(ctx).unblock()
    return {"removed": removed}, f"removed {removed} block(s)"


def _request_line(record: kobrowser.RequestRecord) -> str:
    if record.failure is not None:
        state = f"FAILED {record.failure}"
    elif record.status is not None:
        state = str(record.status) + (" (cache)" if record.from_cache else "")
    else:
        state = "pending"
    return f"{state}  {record.method} {record.resource_type}  {record.url}"


async def requests(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    records = tab.network.requests
    contains = args.optional_text("filter")
    if contains:
        records = [r for r in records if contains in r.url]
    limit = args.optional_whole("limit")
    if limit:
        records = records[-limit:]
    if args.flag("clear"):
        tab.network.clear_requests()
    listed = [msgspec.to_builtins(r) for r in records]
    text = "\n".join(_request_line(r) for r in records) if records else "no requests"
    return {"requests": listed}, text


async def har(ctx: Context, args: Args) -> Result:
    """Every request of the session so far (the daemon records from its start)."""
    path = args.text("path")
    document = await ctx.browser.default_context.save_har(path, timeout=ctx.timeout)
    count = len(document["log"]["entries"])
    return {"path": path, "entries": count}, f"wrote {count} requests to {path}"


COMMANDS: dict[str, Command] = {
    "network.route": Command(route),
    "network.unroute": Command(unroute),
    "network.block": Command(block),
    "network.unblock": Command(unblock),
    "network.requests": Command(requests),
    "network.har": Command(har),
}
