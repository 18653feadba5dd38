"""Cookies in Playwright's layout: add, read, filter, clear, isolation, bad input."""

from __future__ import annotations

import time
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Browser, InvalidArgumentError, KoBrowserError
from kobrowser._browser._cookies import cookie_param, filter_cookies

# Not about the backend: `scripts/test.sh --fast` runs these on trio only (CI: both).
pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]

_LAYOUT = {"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}


async def test_added_cookies_reach_the_page_and_read_back(
    browser: Browser, server: PageServer
) -> None:
    url = server.set_page("/c/page.html", "<p>c</p>")
    host = server.url("/").split("//")[1].split(":")[0]
    expires = int(time.time()) + 3600
    async with await browser.new_context() as ctx:
        await ctx.add_cookies(
            [
                {"name": "by_url", "value": "1", "url": url},
                {
                    "name": "by_domain",
                    "value": "2",
                    "domain": host,
                    "path": "/",
                    "expires": expires,
                },
                {"name": "other_path", "value": "3", "domain": host, "path": "/elsewhere"},
                {"name": "http_only", "value": "4", "url": url, "httpOnly": True},
            ]
        )
        tab = await ctx.new_tab(url)
        seen = sorted(str(await tab.evaluate("document.cookie")).split("; "))
        assert seen == ["by_domain=2", "by_url=1"]  # not the other path, not httpOnly
        cookies = {c["name"]: c for c in await ctx.cookies()}
        assert set(cookies) == {"by_url", "by_domain", "other_path", "http_only"}
        assert all(set(c) == _LAYOUT for c in cookies.values())
        assert cookies["by_url"]["path"] == "/c" and cookies["by_url"]["expires"] == -1
        assert cookies["by_domain"]["expires"] == pytest.approx(expires, abs=1)
        assert cookies["http_only"]["httpOnly"] is True
        # Filtered by the URLs a request would go to.
        names = {c["name"] for c in await ctx.cookies(url)}
        assert names == {"by_url", "by_domain", "http_only"}
        names = {c["name"] for c in await ctx.cookies([server.url("/elsewhere/x")])}
        assert names == {"by_domain", "other_path"}
        assert await ctx.cookies(server.cross_url("/c/page.html")) == []


async def test_cookies_are_isolated_between_contexts(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/c/iso.html", "<p>iso</p>")
    async with await browser.new_context() as one, await browser.new_context() as two:
        await one.add_cookies([{"name": "who", "value": "one", "url": url}])
        assert await two.cookies() == []
        assert [c["name"] for c in await browser.default_context.cookies(url)] == []
        tab = await two.new_tab(url)
        assert await tab.evaluate("document.cookie") == ""
        # The default context is the one of browser.new_tab.
        await browser.default_context.add_cookies([{"name": "who", "value": "dflt", "url": url}])
        try:
            default_tab = await browser.new_tab(url)
            try:
                assert await default_tab.evaluate("document.cookie") == "who=dflt"
                assert default_tab in browser.default_context.tabs
                assert tab not in browser.default_context.tabs
            finally:
                await default_tab.close()
            assert [c["value"] for c in await browser.cookies(url)] == ["dflt"]
            assert [c["value"] for c in await one.cookies()] == ["one"]
        finally:
            await browser.default_context.clear_cookies()
        assert await browser.cookies() == []


async def test_clear_cookies_all_or_by_filter(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/c/clear.html", "<p>clear</p>")
    async with await browser.new_context() as ctx:
        await ctx.add_cookies(
            [
                {"name": "a", "value": "1", "url": url},
                {"name": "b", "value": "2", "url": url},
                {"name": "a", "value": "3", "url": server.cross_url("/c/clear.html")},
            ]
        )
        await ctx.clear_cookies(name="a", domain="localhost")
        assert sorted((c["name"], c["domain"]) for c in await ctx.cookies()) == [
            ("a", "127.0.0.1"),
            ("b", "127.0.0.1"),
        ]
        await ctx.clear_cookies(name="nothing-matches")
        assert len(await ctx.cookies()) == 2
        await ctx.clear_cookies()
        assert await ctx.cookies() == []


@pytest.mark.parametrize(
    ("cookie", "message"),
    [
        ({"name": "x", "value": "1"}, "needs a 'url', or a 'domain'"),
        ({"name": "x", "value": "1", "domain": "example.com"}, "needs a 'path'"),
        ({"name": "x", "value": 1, "url": "http://a.test/"}, "'value' must be a string"),
        ({"name": "x", "value": "1", "url": "about:blank"}, "http(s) URL"),
        ({"name": "x", "value": "1", "url": "http://a.test/", "path": "/"}, "not both"),
        ({"name": "x", "value": "1", "url": "http://a.test/", "sameSite": "lax"}, "'sameSite'"),
        ({"name": "x", "value": "1", "url": "http://a.test/", "sameSite": "None"}, "secure"),
        ({"name": "x", "value": "1", "url": "http://a.test/", "expires": -5}, "'expires'"),
        ({"name": "x", "value": "1", "url": "http://a.test/", "colour": "red"}, "unknown field"),
        ({"name": "", "value": "1", "url": "http://a.test/"}, "must not be empty"),
        ({"name": "x", "value": "\udc80", "url": "http://a.test/"}, "lone surrogate"),
        ({"name": "x", "value": "1", "url": "http://[bad"}, "http(s) URL"),
    ],
)
async def test_a_bad_cookie_adds_none(
    browser: Browser, server: PageServer, cookie: dict[str, Any], message: str
) -> None:
    good = {"name": "good", "value": "1", "url": server.url("/")}
    async with await browser.new_context() as ctx:
        with pytest.raises(InvalidArgumentError, match="cookie 1: ") as caught:
            await ctx.add_cookies([good, cookie])
        assert message in str(caught.value)
        assert caught.value.argument == "cookies"
        assert await ctx.cookies() == []


async def test_a_cookie_chrome_refuses_adds_none(browser: Browser, server: PageServer) -> None:
    url = server.url("/c/refused.html")
    async with await browser.new_context() as ctx:
        await ctx.add_cookies([{"name": "kept", "value": "old", "url": url}])
        # Well-formed, but Chrome refuses a __Secure- cookie that is not secure.
        refused = {"name": "__Secure-x", "value": "1", "url": url}
        with pytest.raises(InvalidArgumentError, match="Chrome refused"):
            await ctx.add_cookies([{"name": "kept", "value": "new", "url": url}, refused])
        assert [(c["name"], c["value"]) for c in await ctx.cookies()] == [("kept", "old")]
        # Some Chrome drops without an error (SameSite=None without Secure, which
        # add_cookies checks first): the others are undone.
        new = {"name": "kept", "value": "new", "domain": "127.0.0.1", "path": "/"}
        dropped = {**new, "name": "dropped", "sameSite": "None"}
        with pytest.raises(InvalidArgumentError, match="'dropped'"):
            await ctx._set_cookie_params([new, dropped])
        assert [(c["name"], c["value"]) for c in await ctx.cookies()] == [("kept", "old")]
        with pytest.raises(InvalidArgumentError, match="cookies must be a list"):
            await ctx.add_cookies({"name": "x", "value": "1", "url": url})  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="not an http"):
            await ctx.cookies(["ftp://example.com/"])


async def test_closed_and_default_contexts(browser: Browser) -> None:
    ctx = await browser.new_context()
    await ctx.close()
    with pytest.raises(KoBrowserError, match="closed"):
        await ctx.cookies()
    with pytest.raises(KoBrowserError, match="closed"):
        await ctx.add_cookies([])
    with pytest.raises(KoBrowserError, match="default context cannot be closed"):
        await browser.default_context.close()
    assert browser.default_context.id is None
    assert browser.default_context not in browser.contexts


# -- pure -----------------------------------------------------------------------


def _cookie(domain: str, path: str = "/", secure: bool = False) -> dict[str, Any]:
    return {"name": "n", "value": "v", "domain": domain, "path": path, "secure": secure}


@pytest.mark.parametrize(
    ("cookie", "url", "sent"),
    [
        (_cookie("example.com"), "http://example.com/", True),
        (_cookie(".example.com"), "http://www.example.com/a", True),
        (_cookie("example.com"), "http://notexample.com/", False),
        (_cookie("www.example.com"), "http://example.com/", False),
        (_cookie("example.com", "/a"), "http://example.com/a/b", True),
        (_cookie("example.com", "/a"), "http://example.com/b", False),
        (_cookie("example.com", secure=True), "http://example.com/", False),
        (_cookie("example.com", secure=True), "https://example.com/", True),
        (_cookie("localhost", secure=True), "http://localhost:8000/", True),
    ],
)
def test_filter_cookies(cookie: dict[str, Any], url: str, sent: bool) -> None:
    assert filter_cookies([cookie], [url]) == ([cookie] if sent else [])
    assert filter_cookies([cookie], []) == [cookie]


@pytest.mark.parametrize(
    ("url", "path", "secure"),
    [
        ("https://a.test", "/", True),
        ("http://a.test/", "/", False),
        ("http://a.test/x", "/", False),
        ("http://a.test/x/", "/x", False),
        ("http://a.test/x/y?q=1", "/x", False),
    ],
)
def test_a_url_gives_domain_path_and_secure(url: str, path: str, secure: bool) -> None:
    param = cookie_param({"name": "n", "value": "v", "url": url})
    assert param == {"name": "n", "value": "v", "domain": "a.test", "path": path, "secure": secure}
