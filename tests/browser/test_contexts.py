"""Isolated browser contexts: own cookies and storage; closing closes their tabs."""

from __future__ import annotations

import pytest
from _server import PageServer

from kobrowser import Browser, KoBrowserError

# Not about the backend: `scripts/test.sh --fast` runs these on trio only (CI: both).
pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]


async def test_cookies_and_storage_are_isolated(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/cookie.html", "<p>cookies</p>")
    async with await browser.new_context() as one, await browser.new_context() as two:
        tab1 = await one.new_tab(url)
        await tab1.evaluate("document.cookie = 'who=one; path=/'; localStorage.who = 'one'")
        tab2 = await two.new_tab(url)
        assert await tab2.evaluate("document.cookie") == ""
        assert await tab2.evaluate("localStorage.who ?? null") is None
        await tab2.evaluate("document.cookie = 'who=two; path=/'")

        # Each context sees only its own; a second tab of a context shares it.
        assert await tab1.evaluate("document.cookie") == "who=one"
        again = await one.new_tab(url)
        assert await again.evaluate("document.cookie") == "who=one"
        assert await again.evaluate("localStorage.who") == "one"
        assert [c["value"] for c in await one.cookies()] == ["one"]
        assert [c["value"] for c in await two.cookies()] == ["two"]
        # The default context has neither.
        default = await browser.new_tab(url)
        try:
            assert await default.evaluate("document.cookie") == ""
        finally:
            await default.close()
        assert tab1.context is one and tab2.context is two and default.context is None
        assert set(one.tabs) == {tab1, again} and two.tabs == [tab2]


async def test_closing_a_context_closes_its_tabs_only(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/ctx.html", "<title>Ctx</title>")
    outside = await browser.new_tab(url)
    ctx = await browser.new_context()
    try:
        tabs = [await ctx.new_tab(url) for _ in range(3)]
        assert all(tab in browser.tabs for tab in tabs)
        assert ctx in browser.contexts
        await ctx.close()
        assert all(tab.closed and tab not in browser.tabs for tab in tabs)
        assert ctx.closed and ctx not in browser.contexts
        with pytest.raises(KoBrowserError):
            await ctx.new_tab(url)
        await ctx.close()  # idempotent
        assert await outside.title() == "Ctx"
    finally:
        await outside.close()


async def test_popups_stay_in_their_context(browser: Browser, server: PageServer) -> None:
    server.set_page("/ctx-popup.html", "<title>Popup</title>")
    async with await browser.new_context() as ctx:
        opener = await ctx.new_tab(server.set_page("/ctx-opener.html", "<p>x</p>"))
        await opener.evaluate("document.cookie = 'in=ctx; path=/'")
        await opener.cdp.send(
            "Runtime.evaluate",
            {"expression": "window.open('/ctx-popup.html'), 1", "userGesture": True},
        )
        popup = await browser.wait_for_tab()
        await popup.wait_for_load()
        assert popup.context is ctx and popup in ctx.tabs
        assert await popup.evaluate("document.cookie") == "in=ctx"
    assert popup.closed
