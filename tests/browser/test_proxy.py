"""Proxies: a launched browser's and a context's, logged in or not, bypassed or not.

Every request goes to a real HTTP proxy started by the test (tests/_proxy.py),
which serves any host name from the page server on 127.0.0.1. Chrome never
sends loopback addresses through a proxy, so the pages are asked for by
made-up names (``site.test``); ``--host-resolver-rules`` maps ``*.test`` to
127.0.0.1 for what goes direct, so every byte stays on loopback.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
from _proxy import ProxiedRequest, TestProxy
from _server import PageServer
from aiohttp import web

import kobrowser
from kobrowser import Browser, NavigationError, Proxy, Route

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio"), pytest.mark.browser]

#: Made-up names resolve to 127.0.0.1 when Chrome goes direct (never through DNS).
MAP_TEST_HOSTS = "--host-resolver-rules=MAP *.test 127.0.0.1"
#: A bad password must fail well within this (a login loop would hang).
NO_HANG_S = 30


@pytest.fixture(scope="module")
async def browser(anyio_backend: str) -> AsyncIterator[Browser]:
    async with kobrowser.launch(timeout=60, args=[MAP_TEST_HOSTS]) as b:
        yield b


@pytest.fixture
def open_proxy(server: PageServer) -> Iterator[TestProxy]:
    with TestProxy(server.port) as proxy:
        yield proxy


@pytest.fixture
def login_proxy(server: PageServer) -> Iterator[TestProxy]:
    with TestProxy(server.port, username="scraper", password="s3cret:pw") as proxy:
        yield proxy


def seen(proxy: TestProxy, host: str = "site.test") -> list[ProxiedRequest]:
    """What the proxy got for ``host`` (Chrome's own requests and favicons left out)."""
    return [r for r in proxy.requests if r.host == host and r.path != "/favicon.ico"]


async def test_a_context_goes_through_its_proxy(
    browser: Browser, server: PageServer, open_proxy: TestProxy
) -> None:
    server.set_page("/via.html", "<title>Via</title><p>through the proxy</p>")
    async with await browser.new_context(proxy=open_proxy.url) as ctx:
        assert ctx.proxy == Proxy(server=open_proxy.url)
        tab = await ctx.new_tab("http://site.test/via.html")
        assert await tab.title() == "Via"
    assert seen(open_proxy) == [ProxiedRequest("site.test", "/via.html", True)]


async def test_a_context_logs_in_to_its_proxy(
    browser: Browser, server: PageServer, login_proxy: TestProxy
) -> None:
    server.set_page("/login.html", "<title>In</title><img src='/pixel.png'>")
    server.set_page("/pixel.png", b"\x89PNG", content_type="image/png")
    # The password holds a ':' (percent-encoded in a URL; plain as a field).
    proxy = {"server": login_proxy.url, "username": "scraper", "password": "s3cret:pw"}
    async with await browser.new_context(proxy=proxy) as ctx:
        tab = await ctx.new_tab("http://site.test/login.html")
        assert await tab.title() == "In"
        await tab.open("http://site.test/login.html")  # the login is remembered
    requests = seen(login_proxy)
    # Challenged once (407), answered; the image and the second load were sent logged in.
    assert requests[0] == ProxiedRequest("site.test", "/login.html", False)
    assert all(r.authorized for r in requests[1:])
    assert [r.path for r in requests[1:]].count("/login.html") == 2
    assert ("/pixel.png", True) in [(r.path, r.authorized) for r in requests]


async def test_a_refused_password_is_a_clear_navigation_error(
    browser: Browser, server: PageServer, login_proxy: TestProxy
) -> None:
    server.set_page("/refused.html", "<title>Never</title>")
    url = login_proxy.url.replace("http://", "http://scraper:wrong@")
    async with await browser.new_context(proxy=url) as ctx:
        with anyio.fail_after(NO_HANG_S):
            with pytest.raises(NavigationError) as info:
                await ctx.new_tab("http://site.test/refused.html")
    message = str(info.value)
    assert "proxy refused the credentials" in message and "407" in message
    assert "wrong" not in message
    # Answered once, then given up: no loop of logins.
    assert seen(login_proxy) == [ProxiedRequest("site.test", "/refused.html", False)] * 2


async def test_one_context_through_a_proxy_another_direct(
    browser: Browser, server: PageServer, open_proxy: TestProxy
) -> None:
    server.set_page("/which.html", "<title>Which</title>")
    url = f"http://site.test:{server.port}/which.html"
    async with (
        await browser.new_context(proxy=open_proxy.url) as proxied,
        await browser.new_context() as direct,
    ):
        assert direct.proxy is None
        one = await proxied.new_tab(url)
        two = await direct.new_tab(url)
        assert await one.title() == await two.title() == "Which"
    assert server.request_count("/which.html") == 2
    assert seen(open_proxy) == [ProxiedRequest("site.test", "/which.html", True)]


async def test_the_bypass_list_goes_direct(
    browser: Browser, server: PageServer, open_proxy: TestProxy
) -> None:
    server.set_page("/bypass.html", "<title>Bypass</title>")
    proxy = Proxy(server=open_proxy.url, bypass=("direct.test",))
    async with await browser.new_context(proxy=proxy) as ctx:
        tab = await ctx.new_tab(f"http://direct.test:{server.port}/bypass.html")
        assert await tab.title() == "Bypass"
        await tab.open("http://site.test/bypass.html")
        assert await tab.title() == "Bypass"
    assert seen(open_proxy, "direct.test") == []
    assert seen(open_proxy) == [ProxiedRequest("site.test", "/bypass.html", True)]
    assert server.request_count("/bypass.html") == 2


async def test_loopback_goes_through_the_proxy_only_when_asked(
    browser: Browser, server: PageServer, open_proxy: TestProxy
) -> None:
    url = server.set_page("/loop.html", "<title>Loop</title>")
    async with await browser.new_context(proxy=open_proxy.url) as plain:
        await plain.new_tab(url)
    assert seen(open_proxy, "127.0.0.1") == []
    proxy = {"server": open_proxy.url, "bypass": ["<-loopback>"]}
    async with await browser.new_context(proxy=proxy) as ctx:
        tab = await ctx.new_tab(url)
        assert await tab.title() == "Loop"
    assert seen(open_proxy, "127.0.0.1") == [ProxiedRequest("127.0.0.1", "/loop.html", True)]


async def test_a_server_login_is_left_to_the_page(
    browser: Browser, server: PageServer, login_proxy: TestProxy
) -> None:
    async def protected(request: web.Request) -> web.Response:
        return web.Response(
            status=401,
            text="members only",
            headers={"WWW-Authenticate": 'Basic realm="site"'},
        )

    server.set_route("/members.html", protected)
    proxy = Proxy(server=login_proxy.url, username="scraper", password="s3cret:pw")
    async with await browser.new_context(proxy=proxy) as ctx:
        tab = await ctx.new_tab()
        with anyio.fail_after(NO_HANG_S):
            response = await tab.open("http://site.test/members.html")
        assert response is not None and response.status == 401


async def test_routes_work_beside_the_proxy_login(
    browser: Browser, server: PageServer, login_proxy: TestProxy
) -> None:
    server.set_page("/routed.html", "<title>Page</title><img src='/blocked.png'>")
    server.set_page("/blocked.png", b"\x89PNG", content_type="image/png")

    async def fake(route: Route) -> None:
        await route.fulfill(body="<title>Fake</title>", content_type="text/html")

    proxy = Proxy(server=login_proxy.url, username="scraper", password="s3cret:pw")
    async with await browser.new_context(proxy=proxy, block_resources=["image"]) as ctx:
        tab = await ctx.new_tab()
        await tab.network.route("**/fake.html", fake)
        await tab.open("http://site.test/fake.html")
        assert await tab.title() == "Fake"
        await tab.open("http://site.test/routed.html")
        assert await tab.title() == "Page"
    paths = [r.path for r in seen(login_proxy)]
    assert "/fake.html" not in paths and "/blocked.png" not in paths
    assert "/routed.html" in paths


async def test_launch_with_a_proxy_login_and_bypass(
    server: PageServer, login_proxy: TestProxy
) -> None:
    server.set_page("/launched.html", "<title>Launched</title>")
    proxy = {
        "server": login_proxy.url,
        "username": "scraper",
        "password": "s3cret:pw",
        "bypass": "direct.test",
    }
    async with kobrowser.launch(timeout=60, proxy=proxy, args=[MAP_TEST_HOSTS]) as browser:
        assert browser.default_context.proxy == Proxy(
            server=login_proxy.url,
            username="scraper",
            password="s3cret:pw",
            bypass=("direct.test",),
        )
        tab = await browser.new_tab("http://site.test/launched.html")
        assert await tab.title() == "Launched"
        await tab.open(f"http://direct.test:{server.port}/launched.html")
        assert await tab.title() == "Launched"
        # A context without a proxy of its own uses the browser's, login included.
        async with await browser.new_context() as ctx:
            other = await ctx.new_tab("http://site.test/launched.html")
            assert await other.title() == "Launched"
    requests = seen(login_proxy)
    assert [r.path for r in requests if r.authorized] == ["/launched.html"] * 2
    assert seen(login_proxy, "direct.test") == []


async def test_launch_with_a_refused_password(server: PageServer, login_proxy: TestProxy) -> None:
    server.set_page("/nope.html", "<title>Nope</title>")
    url = login_proxy.url.replace("http://", "http://scraper:bad@")
    async with kobrowser.launch(timeout=60, proxy=url) as browser:
        tab = await browser.new_tab()
        with anyio.fail_after(NO_HANG_S), pytest.raises(NavigationError, match="407"):
            await tab.open("http://site.test/nope.html")
        # The tab is still usable.
        data = await tab.open("data:text/html,<title>After</title>")
        assert data is not None and await tab.title() == "After"


async def test_a_refused_password_on_an_https_tunnel(
    browser: Browser, login_proxy: TestProxy
) -> None:
    url = login_proxy.url.replace("http://", "http://scraper:wrong@")
    async with await browser.new_context(proxy=url) as ctx:
        tab = await ctx.new_tab()
        with anyio.fail_after(NO_HANG_S), pytest.raises(NavigationError) as info:
            await tab.open("https://site.test/tunnel.html")
    assert "proxy refused the credentials" in str(info.value)
    assert seen(login_proxy) and not any(r.authorized for r in seen(login_proxy))
