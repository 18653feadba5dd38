"""Routes and blocks against real Chromium: the page, cross-origin iframes and popups."""

from __future__ import annotations

import logging
import re

import anyio
import pytest
from _server import PageServer
from aiohttp import web

from kobrowser import Browser, InvalidArgumentError, Request, Route

from ._pages import PNG, OpenTab

pytestmark = pytest.mark.anyio

_IMAGE_PAGE = """<title>images</title>
<img id=i src="/{name}.png">
<script>
window.imageState = () => new Promise(resolve => {{
  const img = document.getElementById('i');
  const report = () => resolve(img.naturalWidth > 0 ? 'loaded' : 'failed');
  if (img.complete) report(); else {{ img.onload = report; img.onerror = report; }}
}});
</script>"""


def _image_page(server: PageServer, name: str) -> str:
    server.set_page(f"/{name}.png", PNG, content_type="image/png")
    return server.set_page(f"/{name}.html", _IMAGE_PAGE.format(name=name))


async def _fetch(tab: object, path: str, init: str = "{}") -> object:
    return await tab.evaluate(  # type: ignore[attr-defined]
        f"fetch({path!r}, {init}).then(r => r.text().then(t => r.status + ' ' + t),"
        " e => 'error ' + e.message)"
    )


async def test_block_images(open_tab: OpenTab, server: PageServer) -> None:
    url = _image_page(server, "blocked")
    async with open_tab("about:blank") as tab:
        await tab.network.block(types=["image"])
        await tab.open(url)
        assert await tab.evaluate("imageState()") == "failed"
        assert server.request_count("/blocked.png") == 0
        record = next(r for r in tab.network.requests if r.url.endswith("/blocked.png"))
        assert record.resource_type == "image"
        assert record.failure is not None and "BLOCKED_BY_CLIENT" in record.failure
        assert await tab.network.unblock() == 1
        await tab.reload()
        assert await tab.evaluate("imageState()") == "loaded"
        assert server.request_count("/blocked.png") == 1


async def test_fulfill_continue_and_abort(open_tab: OpenTab, server: PageServer) -> None:
    seen: list[Request] = []

    async def echo(request: web.Request) -> web.Response:
        return web.Response(text=f"{request.method} {request.headers.get('X-Test')}")

    server.set_route("/echo", echo)
    url = server.set_page("/api.html", "<title>api</title>")
    async with open_tab(url) as tab:

        async def mock(route: Route) -> None:
            seen.append(route.request)
            await route.fulfill(201, '{"mocked": true}', content_type="application/json")

        await tab.network.route("**/api/data", mock)
        assert await _fetch(tab, "/api/data") == '201 {"mocked": true}'
        assert server.request_count("/api/data") == 0
        # Chrome pauses fetch() as an XHR.
        assert seen[0].method == "GET" and seen[0].resource_type == "xhr"

        async def add_header(route: Route) -> None:
            await route.continue_(headers={**route.request.headers, "X-Test": "yes"})

        await tab.network.route(re.compile(r"/echo$"), add_header)
        assert await _fetch(tab, "/echo", "{method: 'POST', body: 'x'}") == "200 POST yes"

        await tab.network.route(
            lambda r: r.url.endswith("/refused"), lambda route: route.abort("connectionrefused")
        )
        assert str(await _fetch(tab, "/refused")).startswith("error ")
        record = next(r for r in tab.network.requests if r.url.endswith("/refused"))
        assert record.failure == "net::ERR_CONNECTION_REFUSED"

        assert await tab.network.unroute("**/api/data") == 1
        assert str(await _fetch(tab, "/api/data")).startswith("404 ")
        assert server.request_count("/api/data") == 1


async def test_only_matching_requests_are_paused(open_tab: OpenTab, server: PageServer) -> None:
    url = _image_page(server, "unpaused")
    calls: list[str] = []
    async with open_tab("about:blank") as tab:
        await tab.network.route("**/never/*.png", lambda route: calls.append(route.request.url))
        assert tab._net.patterns() == [{"urlPattern": "*/never/*.png", "requestStage": "Request"}]
        paused: list[str] = []
        tab.cdp.add_listener("Fetch.requestPaused", lambda raw: paused.append(bytes(raw).decode()))
        await tab.open(url)
        assert await tab.evaluate("imageState()") == "loaded"
        assert paused == [] and calls == []
        # A route whose regex Chrome's pattern cannot narrow pauses more; the
        # extra requests go on untouched.
        await tab.network.route(
            re.compile(r"(?i)NOTHING"), lambda route: calls.append(route.request.url)
        )
        await tab.reload()
        assert await tab.evaluate("imageState()") == "loaded"
        assert len(paused) >= 2 and calls == []
        assert await tab.network.unroute_all() == 2
        assert tab._net.patterns() == []


async def test_newest_route_wins_and_tab_before_context(
    browser: Browser, server: PageServer
) -> None:
    url = server.set_page("/order.html", "<title>order</title>")
    async with await browser.new_context() as ctx:
        tab = await ctx.new_tab(url)
        await ctx.route("**/data", lambda route: route.fulfill(body="context"))
        assert await _fetch(tab, "/data") == "200 context"
        await tab.network.route("**/data", lambda route: route.fulfill(body="old"))
        await tab.network.route("**/data", lambda route: route.fulfill(body="new"))
        assert await _fetch(tab, "/data") == "200 new"
        await tab.network.unroute_all()
        assert await _fetch(tab, "/data") == "200 context"
        await ctx.unroute("**/data")
        assert (await _fetch(tab, "/data")).startswith("404")  # type: ignore[union-attr]


async def test_handler_that_raises_or_hangs_fails_only_its_request(
    browser: Browser, open_tab: OpenTab, server: PageServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = server.set_page("/bad-handlers.html", "<title>bad</title>")
    server.set_page("/ok", "fine", content_type="text/plain")

    def broken(route: Route) -> None:
        raise RuntimeError("handler bug")

    async def hangs(route: Route) -> None:
        await anyio.sleep_forever()

    async with open_tab(url) as tab:
        await tab.network.route("**/raises", broken)
        await tab.network.route("**/hangs", hangs)
        with caplog.at_level(logging.ERROR, logger="kobrowser.network"):
            assert str(await _fetch(tab, "/raises")).startswith("error ")
            old = browser.timeout
            browser.timeout = 1.0
            try:
                with anyio.fail_after(20):
                    assert str(await _fetch(tab, "/hangs")).startswith("error ")
            finally:
                browser.timeout = old
        assert "handler bug" in caplog.text
        assert "did not settle it within 1 s" in caplog.text
        assert await _fetch(tab, "/ok") == "200 fine"
        assert await tab.title() == "bad"


async def test_settling_twice_and_bad_arguments(open_tab: OpenTab, server: PageServer) -> None:
    url = server.set_page("/twice.html", "<title>twice</title>")
    errors: list[BaseException] = []

    async def twice(route: Route) -> None:
        for bad in (
            lambda: route.fulfill(status=99),
            lambda: route.fulfill(headers={"X": 1}),  # type: ignore[dict-item]
            lambda: route.abort("nope"),
            lambda: route.continue_(method="G T"),
        ):
            try:
                await bad()
            except InvalidArgumentError as exc:
                errors.append(exc)
        await route.fulfill(body="first")
        try:
            await route.abort()
        except Exception as exc:
            errors.append(exc)

    async with open_tab(url) as tab:
        await tab.network.route("**/twice", twice)
        assert await _fetch(tab, "/twice") == "200 first"
    assert [type(e).__name__ for e in errors] == [
        "InvalidArgumentError",
        "InvalidArgumentError",
        "InvalidArgumentError",
        "InvalidArgumentError",
        "KoBrowserError",
    ]
    assert "settled already (fulfilled)" in str(errors[-1])


async def test_bad_patterns_change_nothing(open_tab: OpenTab) -> None:
    async with open_tab("about:blank") as tab:
        with pytest.raises(InvalidArgumentError, match="unclosed"):
            await tab.network.route("**/{a,b", lambda route: None)
        with pytest.raises(InvalidArgumentError, match="callable"):
            await tab.network.route("**/x", "not a handler")  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="unknown resource type 'pictures'"):
            await tab.network.block(["**/ok.js"], types=["image", "pictures"])
        with pytest.raises(InvalidArgumentError, match="give URL patterns"):
            await tab.network.block()
        assert len(tab._net.routes) == 0 and tab._net.patterns() == []


_FRAME_PAGE = """<title>outer</title>
<script>
window.messages = [];
window.addEventListener('message', e => window.messages.push(e.data));
</script>
<iframe src="{src}"></iframe>"""

_INNER_PAGE = """<title>inner</title>
<img id=i src="/{name}.png" onload="report('img loaded')" onerror="report('img failed')">
<script>
function report(what) {{ parent.postMessage(what, '*'); }}
fetch('/inner-api').then(r => r.text()).then(t => report('api ' + t), e => report('api error'));
</script>"""


async def _messages(tab: object, count: int) -> list[str]:
    with anyio.fail_after(30):
        while True:
            messages = await tab.evaluate("window.messages")  # type: ignore[attr-defined]
            if len(messages) >= count:
                return sorted(messages)
            await anyio.sleep(0.05)


async def test_routes_and_blocks_in_a_cross_origin_iframe(
    open_tab: OpenTab, server: PageServer
) -> None:
    server.set_page("/oopif.png", PNG, content_type="image/png")
    server.set_page("/inner-api", "real", content_type="text/plain")
    inner = server.set_page("/inner.html", _INNER_PAGE.format(name="oopif"))
    inner = server.cross_url("/inner.html")
    url = server.set_page("/outer.html", _FRAME_PAGE.format(src=inner))
    async with open_tab("about:blank") as tab:
        await tab.network.block(types="image")
        await tab.network.route("**/inner-api", lambda route: route.fulfill(body="mocked"))
        await tab.open(url)
        assert await _messages(tab, 2) == ["api mocked", "img failed"]
        assert tab._frames.frames(), "the iframe is out of process"
        assert server.request_count("/oopif.png") == 0
        assert server.request_count("/inner-api") == 0
        records = {r.url: r for r in tab.network.requests}
        assert records[server.cross_url("/oopif.png")].failure is not None
        assert records[server.cross_url("/inner-api")].status == 200
        assert records[inner].resource_type == "document"
        # Routes change in the running frame too.
        await tab.network.unroute_all()
        await tab.evaluate("window.messages = []")
        await tab.reload()
        assert await _messages(tab, 2) == ["api real", "img loaded"]


async def test_popup_inherits_routes_from_its_start(browser: Browser, server: PageServer) -> None:
    url = _image_page(server, "popup-img")
    opener_url = server.set_page("/opener.html", "<title>opener</title>")
    async with await browser.new_context() as ctx:
        tab = await ctx.new_tab(opener_url)
        await tab.network.block(types=["image"])
        await ctx.route(
            "**/made-up.html",
            lambda route: route.fulfill(body="<title>made up</title>", content_type="text/html"),
        )
        await tab.cdp.send(
            "Runtime.evaluate",
            {"expression": f"window.open({url!r}), 1", "userGesture": True},
        )
        popup = await browser.wait_for_tab()
        await popup.wait_for_load()
        assert await popup.evaluate("imageState()") == "failed"
        assert server.request_count("/popup-img.png") == 0
        await tab.cdp.send(
            "Runtime.evaluate",
            {"expression": "window.open('/made-up.html'), 1", "userGesture": True},
        )
        second = await browser.wait_for_tab()
        await second.wait_for_load()
        assert await second.title() == "made up"
        assert server.request_count("/made-up.html") == 0
