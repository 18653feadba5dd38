"""Storage state: save and load cookies and localStorage, also to and from Playwright."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Browser, BrowserContext, InvalidArgumentError

pytestmark = [pytest.mark.anyio]

_FRAMED = """<p>top</p><script>localStorage.top = 'T'; document.cookie = 'top=1; path=/'</script>
<iframe src="{inner}"></iframe>"""
_INNER = "<p>inner</p><script>localStorage.inner = 'I'</script>"


def _origin(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.split('/', 1)[0]}"


def _storage(state: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {
        entry["origin"]: {item["name"]: item["value"] for item in entry["localStorage"]}
        for entry in state["origins"]
    }


async def _fill(ctx: BrowserContext, server: PageServer) -> None:
    """Cookies and localStorage on two origins (one an out-of-process frame), and a
    third origin visited earlier whose storage is no longer shown by any frame."""
    server.set_page("/s/gone.html", "<script>localStorage.gone = 'G'</script>")
    server.set_page("/s/inner.html", _INNER)
    top = server.set_page("/s/top.html", _FRAMED.format(inner=server.cross_url("/s/inner.html")))
    tab = await ctx.new_tab(server.cross_url("/s/gone.html"))
    await tab.open(top)  # waits for the frame's load too
    await tab._frames.settled()
    await ctx.add_cookies([{"name": "added", "value": "2", "url": server.cross_url("/")}])


async def test_save_and_load_round_trip(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    path = tmp_path / "state.json"
    async with await browser.new_context() as ctx:
        await _fill(ctx, server)
        # An origin seen earlier, not shown now: read without touching the network.
        other = await ctx.new_tab(server.set_page("/s/other.html", "<p>o</p>"))
        await other.evaluate("localStorage.other = 'O'")
        await other.open("about:blank")
        # Chrome may still ask for a favicon of a page shown earlier; pages are what count.
        pages = lambda: [r for r in server.requests if r.path != "/favicon.ico"]  # noqa: E731
        requests_before = len(pages())
        tabs_before = list(browser.tabs)
        state = await ctx.storage_state(path)
        assert len(pages()) == requests_before
        assert browser.tabs == tabs_before and browser.tab is other
    assert json.loads(path.read_text()) == state
    top, cross = _origin(server.url("/")), _origin(server.cross_url("/"))
    assert _storage(state) == {
        top: {"top": "T", "other": "O"},
        cross: {"gone": "G"},  # not the frame's "inner": partitioned by the top site
    }
    assert sorted((c["name"], c["domain"]) for c in state["cookies"]) == [
        ("added", "localhost"),
        ("top", "127.0.0.1"),
    ]

    async with await browser.new_context(storage_state=path) as loaded:
        assert loaded.tabs == []  # the scratch tab is gone
        tab = await loaded.new_tab(server.set_page("/s/check.html", "<p>check</p>"))
        assert await tab.evaluate("document.cookie") == "top=1"
        assert await tab.evaluate("localStorage.top + localStorage.other") == "TO"
        await tab.open(server.cross_url("/s/check.html"))
        assert await tab.evaluate("localStorage.gone") == "G"
        assert await tab.evaluate("document.cookie") == "added=2"
        # Saved again without visiting: the loaded origins are kept.
        again = await loaded.storage_state()
        assert _storage(again) == _storage(state)


async def test_set_storage_state_on_the_default_context(
    browser: Browser, server: PageServer
) -> None:
    url = server.set_page("/s/default.html", "<p>d</p>")
    state = {
        "cookies": [{"name": "d", "value": "1", "domain": "127.0.0.1", "path": "/"}],
        "origins": [{"origin": _origin(url), "localStorage": [{"name": "k", "value": "v"}]}],
    }
    await browser.default_context.set_storage_state(state)
    tab = await browser.new_tab(url)
    try:
        assert await tab.evaluate("document.cookie") == "d=1"
        assert await tab.evaluate("localStorage.k") == "v"
    finally:
        await tab.evaluate("localStorage.clear()")
        await tab.close()
        await browser.default_context.clear_cookies()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"cookies": {}}', "'cookies' must be a list"),
        ('{"cookies": [{"name": "x", "value": "1"}]}', "needs a 'url', or a 'domain'"),
        ('{"origins": [{"origin": "ftp://x"}]}', "not an http(s) origin"),
        ('{"origins": [{"origin": "http://x", "localStorage": [{"name": 1}]}]}', "string name"),
        (None, "cannot read"),
    ],
)
async def test_a_bad_state_file_creates_nothing(
    browser: Browser, tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    contexts = list(browser.contexts)
    with pytest.raises(InvalidArgumentError, match="storage_state: ") as caught:
        await browser.new_context(storage_state=path)
    assert message in str(caught.value)
    assert caught.value.argument == "storage_state"
    assert browser.contexts == contexts
    with pytest.raises(InvalidArgumentError):
        await browser.default_context.set_storage_state(path)
    assert await browser.cookies() == []


# -- with Playwright ---------------------------------------------------------------


@pytest.fixture
async def playwright_browser(anyio_backend: str) -> AsyncIterator[Any]:
    if anyio_backend != "asyncio":
        pytest.skip("Playwright runs on asyncio")
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            yield launched
        finally:
            await launched.close()


async def test_kobrowser_state_loads_in_playwright(
    browser: Browser, server: PageServer, playwright_browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "ko.json"
    async with await browser.new_context() as ctx:
        await _fill(ctx, server)
        await ctx.storage_state(path)
    context = await playwright_browser.new_context(storage_state=path)
    try:
        page = await context.new_page()
        await page.goto(server.set_page("/s/pw.html", "<p>pw</p>"))
        assert await page.evaluate("document.cookie") == "top=1"
        assert await page.evaluate("localStorage.top") == "T"
        await page.goto(server.cross_url("/s/pw.html"))
        assert await page.evaluate("localStorage.gone") == "G"
        assert await page.evaluate("document.cookie") == "added=2"
        theirs = await context.storage_state()
    finally:
        await context.close()
    ours = json.loads(path.read_text())
    assert _storage(theirs) == _storage(ours)
    assert sorted(theirs["cookies"], key=str) == sorted(ours["cookies"], key=str)


async def test_playwright_state_loads_in_kobrowser(
    browser: Browser, server: PageServer, playwright_browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "pw.json"
    url = server.set_page("/s/from-pw.html", "<p>pw</p>")
    context = await playwright_browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url)
        await page.evaluate("localStorage.pw = 'P'; document.cookie = 'pw=1; path=/'")
        await context.add_cookies(
            [{"name": "lax", "value": "2", "url": server.cross_url("/"), "sameSite": "Strict"}]
        )
        await context.storage_state(path=path)
    finally:
        await context.close()
    async with await browser.new_context(storage_state=str(path)) as ctx:
        tab = await ctx.new_tab(url)
        assert await tab.evaluate("document.cookie") == "pw=1"
        assert await tab.evaluate("localStorage.pw") == "P"
        cookies = {c["name"]: c for c in await ctx.cookies()}
        assert cookies["lax"]["sameSite"] == "Strict"
        assert _storage(await ctx.storage_state()) == _storage(json.loads(path.read_text()))
