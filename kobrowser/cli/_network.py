"""Daemon side of `network`, `console` and `errors`.

Routes and blocks apply to the current tab's context (the session's tabs,
and tabs and popups opened later); the request log, console and errors are
the current tab's.
"""

from __future__ import annotations

import re
from typing import Any

import anyio

import kobrowser
from kobrowser.cli._commands import Context, Result, _jsonable, _tab, handler

__all__: list[str] = []


def _context(ctx: Context) -> kobrowser.BrowserContext:
    return _tab(ctx).context or ctx.browser.default_context


def _pattern(args: dict[str, Any]) -> Any:
    pattern = args["pattern"]
    if pattern is not None and args.get("regex"):
        try:
            return re.compile(pattern)
        except re.error as exc:
            raise kobrowser.InvalidArgumentError(
                f"invalid regex {pattern!r}: {exc}", argument="pattern"
            ) from None
    return pattern


@handler("network.route")
async def _route(ctx: Context, args: dict[str, Any]) -> Result:
    context = _context(ctx)
    pattern = _pattern(args)
    if args["abort"] is not None:
        reason = args["abort"]
        if reason.lower() not in kobrowser.Route.ABORT_REASONS:  # checked before routing
            known = ", ".join(kobrowser.Route.ABORT_REASONS)
            raise kobrowser.InvalidArgumentError(
                f"unknown abort reason {reason!r}; known: {known}", argument="reason"
            )

        async def abort(route: kobrowser.Route) -> None:
            await route.abort(reason)

        await context.route(pattern, abort)
        return {"pattern": args["pattern"], "abort": reason}, f"{args['pattern']}: abort ({reason})"
    body = await anyio.Path(args["body"]).read_bytes() if args["body"] else b""
    status = args["status"] or 200
    headers = {}
    for header in args["header"] or []:
        name, _, value = header.partition(":")
        headers[name.strip()] = value.strip()
    content_type = args["content_type"]

    async def fulfill(route: kobrowser.Route) -> None:
        await route.fulfill(status, body, headers, content_type)

    await context.route(pattern, fulfill)
    return (
        {"pattern": args["pattern"], "status": status, "bytes": len(body)},
        f"{args['pattern']}: answer {status} ({len(body)} bytes)",
    )


@handler("network.unroute")
async def _unroute(ctx: Context, args: dict[str, Any]) -> Result:
    context = _context(ctx)
    if args["pattern"] is None:
        removed = await context.unroute_all()
    else:
        removed = await context.unroute(_pattern(args))
    return {"removed": removed}, f"removed {removed} route(s)"


@handler("network.block")
async def _block(ctx: Context, args: dict[str, Any]) -> Result:
    context = _context(ctx)
    types = args["types"]
    await context.block(args["patterns"] or None, types=types)
    what = [*args["patterns"], *([f"types {types}"] if types else [])]
    return {"patterns": args["patterns"], "types": types}, f"blocking {', '.join(what)}"


@handler("network.unblock")
async def _unblock(ctx: Context, args: dict[str, Any]) -> Result:
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


@handler("network.requests")
async def _requests(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    records = tab.requests
    if args["filter"]:
        records = [r for r in records if args["filter"] in r.url]
    if args["limit"]:
        records = records[-args["limit"] :]
    if args["clear"]:
        tab.clear_requests()
    listed = [_jsonable(r) for r in records]
    text = "\n".join(_request_line(r) for r in records) if records else "no requests"
    return {"requests": listed}, text


@handler("console")
async def _console(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    messages = tab.console_messages()
    if args["level"]:
        messages = [m for m in messages if m.level == args["level"]]
    if args["clear"]:
        tab.clear_console()

    def line(m: kobrowser.ConsoleMessage) -> str:
        where = f"  ({m.url}:{m.line + 1})" if m.url else ""
        return f"[{m.level}] {m.text}{where}"

    text = "\n".join(line(m) for m in messages) if messages else "no console messages"
    listed = [_jsonable(m) for m in messages]
    return {"messages": listed}, text


@handler("errors")
async def _errors(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    errors = tab.page_errors()
    if args["clear"]:
        tab.clear_console()

    def line(e: kobrowser.PageError) -> str:
        where = f"  ({e.url}:{e.line + 1})" if e.url else ""
        name = f"{e.name}: " if e.name else ""
        return f"{name}{e.message}{where}"

    text = "\n".join(line(e) for e in errors) if errors else "no errors"
    return {"errors": [_jsonable(e) for e in errors]}, text
