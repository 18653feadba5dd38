"""new_context(block_resources=...): the blocked types never reach the server."""

from __future__ import annotations

import pytest
from _server import PageServer

from kobrowser import Browser, InvalidArgumentError

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]

PAGE = """<!doctype html>
<title>Heavy</title>
<style>
  @font-face { font-family: Deco; src: url('/heavy/deco.woff2') format('woff2'); }
  body { font-family: Deco, sans-serif; }
</style>
<link rel="stylesheet" href="/heavy/style.css">
<h1>Heavy page</h1>
<img src="/heavy/photo.png" alt="a photo">
<video src="/heavy/clip.webm" autoplay muted></video>
<script src="/heavy/app.js"></script>
"""


def serve_heavy_page(server: PageServer) -> str:
    server.set_page("/heavy/style.css", "h1 { color: red }", content_type="text/css")
    server.set_page("/heavy/deco.woff2", b"wOF2" + bytes(64), content_type="font/woff2")
    server.set_page("/heavy/photo.png", b"\x89PNG\r\n\x1a\n", content_type="image/png")
    server.set_page("/heavy/clip.webm", b"\x1aE\xdf\xa3", content_type="video/webm")
    server.set_page(
        "/heavy/app.js", "document.title += ' (scripted)'", content_type="text/javascript"
    )
    return server.set_page("/heavy/page.html", PAGE)


def fetched(server: PageServer) -> set[str]:
    return {r.path for r in server.requests if r.path.startswith("/heavy/")}


async def test_blocked_types_never_reach_the_server(browser: Browser, server: PageServer) -> None:
    url = serve_heavy_page(server)
    async with await browser.new_context(block_resources=("image", "font", "media")) as ctx:
        tab = await ctx.new_tab(url)
        assert await tab.title() == "Heavy (scripted)"  # the page and its script loaded
        snapshot = await tab.snapshot()
        assert "Heavy page" in snapshot.text
        assert await tab.evaluate("getComputedStyle(document.querySelector('h1')).color") == (
            "rgb(255, 0, 0)"
        )
        await tab.evaluate("document.fonts.ready.then(() => true)")
        assert fetched(server) == {"/heavy/page.html", "/heavy/style.css", "/heavy/app.js"}
        blocked = [r for r in tab.network.requests if r.failure]
        assert {r.url.rsplit("/", 1)[1] for r in blocked} >= {"photo.png", "deco.woff2"}
        assert all("ERR_BLOCKED_BY_CLIENT" in (r.failure or "") for r in blocked)

        # It is a context block like any other: unblock lifts it.
        assert await ctx.unblock() == 1
        server.reset()
        url = serve_heavy_page(server)
        await tab.open(url)
        await tab.evaluate("document.fonts.ready.then(() => true)")
        assert {"/heavy/photo.png", "/heavy/deco.woff2"} <= fetched(server)


async def test_a_context_without_blocks_loads_everything(
    browser: Browser, server: PageServer
) -> None:
    url = serve_heavy_page(server)
    async with await browser.new_context(block_resources="") as ctx:
        tab = await ctx.new_tab(url)
        await tab.evaluate("document.fonts.ready.then(() => true)")
        assert {"/heavy/photo.png", "/heavy/deco.woff2", "/heavy/style.css"} <= fetched(server)


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (["image", "pictures"], "unknown resource type 'pictures'"),
        ("image,Gif", "unknown resource type 'gif'"),
        (5, "resource type names"),
        ([b"image"], "resource type names"),
    ],
)
async def test_unknown_types_are_refused_before_the_context_is_made(
    browser: Browser, types: object, message: str
) -> None:
    before = len(browser.contexts)
    with pytest.raises(InvalidArgumentError, match=message) as info:
        await browser.new_context(block_resources=types)  # type: ignore[arg-type]
    assert info.value.argument == "block_resources"
    assert str(info.value).startswith("block_resources:")
    assert len(browser.contexts) == before
