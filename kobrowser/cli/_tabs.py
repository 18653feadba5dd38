"""Daemon side of ``ko-browser tab list``, ``tab new``, ``tab switch`` and ``tab close``.

Tabs are named by their 1-based index in ``browser.tabs`` (the order
``tab list`` prints); the current tab is marked ``*``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

import kobrowser
from kobrowser.actions import normalize_url
from kobrowser.cli._commands import (
    Context,
    Result,
    _call,
    _method,
    _page,
    _page_text,
    _tab,
    handler,
)
from kobrowser.cli._errors import CommandError

if TYPE_CHECKING:
    from kobrowser import Tab

__all__: list[str] = []


def _tab_by_index(ctx: Context, index: int | None) -> Tab:
    if index is None:
        return _tab(ctx)
    tabs = ctx.browser.tabs
    if not 1 <= index <= len(tabs):
        raise CommandError(
            f"no tab {index}: there are {len(tabs)}" if tabs else f"no tab {index}: none is open",
            "run `ko-browser tab list`" if tabs else "run `ko-browser tab new`",
        )
    return tabs[index - 1]


async def _tab_list(ctx: Context) -> list[dict[str, Any]]:
    tabs = ctx.browser.tabs
    current = ctx.browser.current_tab if tabs else None
    listed = []
    for index, tab in enumerate(tabs, 1):
        entry: dict[str, Any] = {"index": index, "current": tab is current, "id": tab.target_id}
        try:
            with anyio.fail_after(5):
                entry.update(await _page(tab))
        except (kobrowser.KoBrowserError, TimeoutError):
            entry.update(url="", title="")
        listed.append(entry)
    return listed


def _tabs_text(tabs: list[dict[str, Any]]) -> str:
    if not tabs:
        return "no tabs"
    return "\n".join(
        f"{'*' if t['current'] else ' '} {t['index']}: {t['url']}"
        + (f'  "{t["title"]}"' if t["title"] else "")
        for t in tabs
    )


@handler("tab.list")
async def _tab_list_cmd(ctx: Context, args: dict[str, Any]) -> Result:
    tabs = await _tab_list(ctx)
    return {"tabs": tabs}, _tabs_text(tabs)


@handler("tab.new")
async def _tab_new(ctx: Context, args: dict[str, Any]) -> Result:
    url = normalize_url(args["url"]) if args.get("url") else "about:blank"
    tab = await _call(ctx, ctx.browser.new_tab, url)
    index = ctx.browser.tabs.index(tab) + 1
    page = await _page(tab)
    return {"index": index, **page}, f"tab {index}: {_page_text(page)}"


@handler("tab.switch")
async def _tab_switch(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab_by_index(ctx, args["index"])
    await _call(ctx, _method(ctx.browser, "switch_to", "tab switch"), tab)
    page = await _page(tab)
    return {"index": args["index"], **page}, f"tab {args['index']}: {_page_text(page)}"


@handler("tab.close")
async def _tab_close(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab_by_index(ctx, args["index"])
    index = ctx.browser.tabs.index(tab) + 1
    await tab.close()
    left = len(ctx.browser.tabs)
    return {"closed": index, "tabs": left}, f"closed tab {index} ({left} left)"
