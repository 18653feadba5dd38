"""Daemon side of the page commands: open, back, forward, reload, get title/url, wait, eval."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kobrowser.actions import normalize_url
from kobrowser.cli._daemon._context import (
    Args,
    Command,
    Context,
    Result,
    json_value,
    page_info,
    page_text,
)
from kobrowser.cli._daemon._errors import CommandError

if TYPE_CHECKING:
    from kobrowser import Tab

__all__ = ["COMMANDS"]


async def open_url(ctx: Context, args: Args) -> Result:
    """Navigate the current tab (a new one when none is open)."""
    url = normalize_url(args.text("url"))
    wait_until = args.load_state("wait_until") if args.optional_text("wait_until") else "load"
    if ctx.browser.tabs:
        tab = ctx.browser.current_tab
    else:
        tab = await ctx.browser.new_tab("about:blank", timeout=ctx.timeout)
    await tab.open(url, wait_until=wait_until, timeout=ctx.timeout)
    page = await page_info(tab)
    return page, page_text(page)


async def back(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    await tab.back(timeout=ctx.timeout)
    return await _at(tab)


async def forward(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    await tab.forward(timeout=ctx.timeout)
    return await _at(tab)


async def reload(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    await tab.reload(timeout=ctx.timeout)
    return await _at(tab)


async def _at(tab: Tab) -> Result:
    page = await page_info(tab)
    return page, page_text(page)


async def get_title(ctx: Context, args: Args) -> Result:
    title = await ctx.tab().title()
    return {"title": title}, title


async def get_url(ctx: Context, args: Args) -> Result:
    url = ctx.tab().url
    return {"url": url}, url


async def wait(ctx: Context, args: Args) -> Result:
    """One of: a pause (ms), a load state, text, a selector's state, a URL, a JS condition."""
    tab = ctx.tab()
    ms = args.optional_whole("ms")
    if ms is not None:
        await tab.wait(ms)
        return {"waited_ms": ms}, f"waited {ms} ms"
    load = args.optional_text("load")
    if load is not None:
        await tab.wait_for_load(args.load_state("load"), timeout=ctx.timeout)
        return {"load": load}, f"page reached {load}"
    text = args.optional_text("text")
    if text is not None:
        await tab.wait_for_text(text, timeout=ctx.timeout)
        return {"text": text}, f"text {text!r} found"
    selector = args.optional_text("selector")
    if selector is not None:
        state = args.optional_text("state") or "visible"
        await tab.wait_for_selector(selector, state=state, timeout=ctx.timeout)
        return {"selector": selector, "state": state}, f"selector {selector!r} is {state}"
    url = args.optional_text("url")
    if url is not None:
        await tab.wait_for_url(url, timeout=ctx.timeout)
        return {"url": tab.url}, tab.url
    fn = args.text("fn")  # the request check let exactly one through
    await tab.wait_for_function(fn, timeout=ctx.timeout)
    return {"fn": fn}, "condition is true"


async def evaluate(ctx: Context, args: Args) -> Result:
    found = await ctx.tab().evaluate(args.text("script"), timeout=ctx.timeout)
    try:
        value = json_value(found)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except RecursionError:
        raise CommandError(
            "the script's value is nested too deeply to print",
            "return a part of it, or JSON.stringify it in the script",
        ) from None
    return {"value": value}, text


COMMANDS: dict[str, Command] = {
    "open": Command(open_url, serialized=True),
    "back": Command(back, serialized=True),
    "forward": Command(forward, serialized=True),
    "reload": Command(reload, serialized=True),
    "get.title": Command(get_title),
    "get.url": Command(get_url),
    "wait": Command(wait),
    "eval": Command(evaluate, serialized=True),
}
