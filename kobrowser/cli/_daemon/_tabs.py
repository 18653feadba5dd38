"""Daemon side of ``ko-browser tab list``, ``tab new``, ``tab switch`` and ``tab close``.

Tabs are named by their 1-based index in ``browser.tabs`` (the order
``tab list`` prints); the current tab is marked ``*``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

import kobrowser
from kobrowser.actions import normalize_url
from kobrowser.cli._daemon._context import Args, Command, Context, Result, page_info, page_text
from kobrowser.cli._daemon._errors import CommandError

if TYPE_CHECKING:
    from kobrowser import Tab

__all__ = ["COMMANDS"]


def _tab_by_index(ctx: Context, index: int | None) -> Tab:
    if index is None:
        return ctx.tab()
    tabs = ctx.browser.tabs
    if not 1 <= index <= len(tabs):
        raise CommandError(
            f"no tab {index}: there are {len(tabs)}" if tabs else f"no tab {index}: none is open",
            "run `ko-browser tab list`" if tabs else "run `ko-browser tab new`",
        )
    return tabs[index - 1]


async def tab_list(ctx: Context, args: Args) -> Result:
    tabs = ctx.browser.tabs
    current = ctx.browser.current_tab if tabs else None
    listed = []
    for index, tab in enumerate(tabs, 1):
        entry: dict[str, Any] = {"index": index, "current": tab is current, "id": tab.target_id}
        try:
            with anyio.fail_after(5):
                entry.update(await page_info(tab))
        except (kobrowser.KoBrowserError, TimeoutError):
            entry.update(url="", title="")
        listed.append(entry)
    return {"tabs": listed}, _tabs_text(listed)


def _tabs_text(tabs: list[dict[str, Any]]) -> str:
    if not tabs:
        return "no tabs"
    return "\n".join(
        f"{'*' if t['current'] else ' '} {t['index']}: {t['url']}"
        + (f'  "{t["title"]}"' if t["title"] else "")
        for t in tabs
    )


async def tab_new(ctx: Context, args: Args) -> Result:
    given = args.optional_text("url")
    url = normalize_url(given) if given else "about:blank"
    tab = await ctx.browser.new_tab(url, timeout=ctx.timeout)
    index = ctx.browser.tabs.index(tab) + 1
    page = await page_info(tab)
    return {"index": index, **page}, f"tab {index}: {page_text(page)}"


async def tab_switch(ctx: Context, args: Args) -> Result:
    index = args.whole("index")
    tab = _tab_by_index(ctx, index)
    await ctx.browser.switch_to(tab)
    page = await page_info(tab)
    return {"index": index, **page}, f"tab {index}: {page_text(page)}"


async def tab_close(ctx: Context, args: Args) -> Result:
    tab = _tab_by_index(ctx, args.optional_whole("index"))
    index = ctx.browser.tabs.index(tab) + 1
    await tab.close()
    left = len(ctx.browser.tabs)
    return {"closed": index, "tabs": left}, f"closed tab {index} ({left} left)"


COMMANDS: dict[str, Command] = {
    "tab.list": Command(tab_list),
    "tab.new": Command(tab_new, serialized=True),
    "tab.switch": Command(tab_switch, serialized=True),
    "tab.close": Command(tab_close, serialized=True),
}
