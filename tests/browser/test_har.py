"""HAR recording: a context's tabs and their frames (a cross-origin iframe, on
its own session) write a HAR 1.2 file in which every request the page made
is exactly once, with headers, status, sizes, timings and bodies; the
structure checker itself, and bad input."""

from __future__ import annotations

import base64
import collections
import copy
import json
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest
from _har_spec import har_problems
from _server import PageServer
from aiohttp import web

from kobrowser import Browser, CaptureError, InvalidArgumentError

pytestmark = pytest.mark.anyio

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _site(server: PageServer) -> str:
    """A page with two images, a script, two fetches, a redirect and a cross-origin iframe."""
    server.set_page("/har/a.png", PNG, content_type="image/png")
    server.set_page("/har/b.png", PNG, content_type="image/png")
    server.set_page("/har/inner.png", PNG, content_type="image/png")
    server.set_page("/har/app.js", "window.appLoaded = true;", content_type="text/javascript")
    server.set_page("/har/data.json", '{"items": [1, 2]}', content_type="application/json")
    server.set_page(
        "/har/inner.html",
        "<!doctype html><p>inner</p><img src='/har/inner.png'>",
        headers={"Set-Cookie": "inner=1; Path=/; HttpOnly"},
    )

    async def echo(request: web.Request) -> web.Response:
        body = await request.text()
        return web.json_response({"got": body}, headers={"Cache-Control": "no-store"})

    async def moved(request: web.Request) -> web.Response:
        raise web.HTTPFound("/har/data.json?via=redirect", headers={"Cache-Control": "no-store"})

    server.set_route("/har/echo", echo)
    server.set_route("/har/moved", moved)
    inner = server.cross_url("/har/inner.html")
    return server.set_page(
        "/har/top.html",
        "<!doctype html><title>loading</title><img src='/har/a.png'><img src='/har/b.png'>"
        "<script src='/har/app.js'></script>"
        f"<iframe src='{inner}'></iframe><script>"
        "Promise.all(["
        " fetch('/har/data.json?page=1&q=a%20b').then(r => r.json()),"
        " fetch('/har/echo', {method: 'POST', body: 'hello=world',"
        "   headers: {'Content-Type': 'application/x-www-form-urlencoded'}}).then(r => r.json()),"
        " fetch('/har/moved').then(r => r.json()),"
        "]).then(() => { document.title = 'done'; });</script>",
        headers={"Set-Cookie": "top=1; Path=/"},
    )


async def _load(tab: object, url: str) -> None:
    await tab.open(url)  # type: ignore[attr-defined]
    await tab.wait_for_function("document.title === 'done'")  # type: ignore[attr-defined]
    # The iframe's image: its own session's request.
    await tab.wait_for_function(  # type: ignore[attr-defined]
        "document.querySelector('iframe').contentWindow !== null"
    )
    for _ in range(600):  # the iframe's image finished (in the frame's session)
        if any(r.url.endswith("inner.png") and r.finished for r in tab.network.requests):  # type: ignore[attr-defined]
            return
        await tab.wait(50)  # type: ignore[attr-defined]
    raise AssertionError("the iframe's image never finished")


def _key(url: str) -> str:
    return urlsplit(url).path


async def test_every_request_once_in_a_valid_har(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    out = tmp_path / "out.har"
    url = _site(server)
    async with await browser.new_context(record_har=out, record_har_content="embed") as ctx:
        tab = await ctx.new_tab()
        await _load(tab, url)
        assert not out.exists()  # written when the context closes
    document = json.loads(out.read_text())
    assert har_problems(document) == []
    entries = document["log"]["entries"]
    # Exactly the requests the server saw, each once (paths are unique per request
    # here), but for Chrome's own favicon fetch, which is not the page's traffic.
    served = collections.Counter(r.path for r in server.requests if r.path != "/favicon.ico")
    recorded = collections.Counter(_key(e["request"]["url"]) for e in entries)
    assert recorded == served
    for path in (
        "/har/top.html", "/har/a.png", "/har/b.png", "/har/app.js", "/har/inner.html",
        "/har/inner.png", "/har/echo", "/har/moved",
    ):  # fmt: skip
        assert recorded[path] == 1, path
    assert recorded["/har/data.json"] == 2  # fetched, and the redirect's target
    by_path = {_key(e["request"]["url"]): e for e in entries}
    top = by_path["/har/top.html"]
    assert top["response"]["status"] == 200
    assert top["request"]["httpVersion"].startswith("HTTP/")
    assert top["response"]["content"]["mimeType"] == "text/html"
    assert "Promise.all" in top["response"]["content"]["text"]
    assert top["response"]["content"]["size"] == len(top["response"]["content"]["text"])
    assert top["response"]["bodySize"] > 0
    assert top["response"]["headersSize"] > 0
    assert {"name": "top", "value": "1"} in [
        {k: c[k] for k in ("name", "value")} for c in top["response"]["cookies"]
    ]
    assert top["timings"]["wait"] >= 0 and top["time"] > 0
    assert top["serverIPAddress"] == "127.0.0.1"
    # The cross-origin frame's document and image are there, from the other origin.
    inner = by_path["/har/inner.html"]
    assert urlsplit(inner["request"]["url"]).hostname == "localhost"
    assert inner["response"]["content"]["text"].startswith("<!doctype html><p>inner")
    assert {"name": "inner", "value": "1", "path": "/", "httpOnly": True} in inner["response"][
        "cookies"
    ]
    image = by_path["/har/inner.png"]
    assert urlsplit(image["request"]["url"]).hostname == "localhost"
    assert image["response"]["content"]["encoding"] == "base64"
    assert base64.b64decode(image["response"]["content"]["text"]) == PNG
    assert image["_resourceType"] == "image"
    # The POST and its body; the query string.
    echo = by_path["/har/echo"]
    assert echo["request"]["method"] == "POST"
    assert echo["request"]["postData"] == {
        "mimeType": "application/x-www-form-urlencoded",
        "text": "hello=world",
    }
    assert echo["request"]["bodySize"] == len("hello=world")
    assert json.loads(echo["response"]["content"]["text"]) == {"got": "hello=world"}
    data = next(e for e in entries if e["request"]["url"].endswith("page=1&q=a%20b"))
    assert data["request"]["queryString"] == [
        {"name": "page", "value": "1"},
        {"name": "q", "value": "a b"},
    ]
    assert data["_resourceType"] == "fetch"
    # The redirect: a hop of its own that names the next.
    moved = by_path["/har/moved"]
    assert moved["response"]["status"] == 302
    assert moved["response"]["redirectURL"].endswith("/har/data.json?via=redirect")
    # One page (the top document); every entry belongs to it.
    (page,) = document["log"]["pages"]
    assert page["title"] == url
    assert page["pageTimings"]["onLoad"] >= page["pageTimings"]["onContentLoad"] >= 0
    assert {e.get("pageref") for e in entries} == {page["id"]}
    assert document["log"]["creator"]["name"] == "kobrowser"


async def test_save_har_on_the_way_and_start_har_later(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    url = _site(server)
    async with await browser.new_context() as ctx:
        tab = await ctx.new_tab()
        with pytest.raises(CaptureError, match="records no HAR"):
            await ctx.save_har(tmp_path / "none.har")
        ctx.start_har()  # from now on, in the tabs open now
        ctx.start_har()  # idempotent
        with pytest.raises(InvalidArgumentError) as caught:
            ctx.start_har(content="embed")  # not how it records
        assert caught.value.argument == "content"
        await _load(tab, url)
        first = await ctx.save_har(tmp_path / "first.har")
        assert json.loads((tmp_path / "first.har").read_text()) == first
        assert har_problems(first) == []
        paths = [_key(e["request"]["url"]) for e in first["log"]["entries"]]
        assert paths.count("/har/top.html") == 1
        assert all("text" not in e["response"]["content"] for e in first["log"]["entries"])
        second_tab = await ctx.new_tab()  # a new tab records too
        await second_tab.open(server.url("/har/a.png"))
        second = await ctx.save_har(tmp_path / "second.har")
        assert len(second["log"]["entries"]) == len(first["log"]["entries"]) + 1
        assert len(second["log"]["pages"]) == 2


async def test_bad_input(browser: Browser, tmp_path: Path) -> None:
    before = len(browser.contexts)
    with pytest.raises(InvalidArgumentError) as caught:
        await browser.new_context(record_har=tmp_path / "missing" / "out.har")
    assert caught.value.argument == "record_har"
    assert "directory that exists" in str(caught.value)
    with pytest.raises(InvalidArgumentError) as caught:
        await browser.new_context(record_har=tmp_path)  # a directory
    assert caught.value.argument == "record_har"
    with pytest.raises(InvalidArgumentError) as caught:
        await browser.new_context(record_har=True, record_har_content="bodies")  # type: ignore[arg-type]
    assert caught.value.argument == "record_har_content"
    with pytest.raises(InvalidArgumentError):
        await browser.new_context(record_har=42)  # type: ignore[arg-type]
    async with await browser.new_context(record_har=True) as ctx:
        with pytest.raises(InvalidArgumentError) as caught:
            await ctx.save_har(tmp_path / "no" / "such" / "dir.har")
        assert caught.value.argument == "path"
    assert len(browser.contexts) == before  # nothing was left half-made


def test_the_checker_finds_what_breaks_har() -> None:
    good = {
        "log": {
            "version": "1.2",
            "creator": {"name": "x", "version": "1"},
            "pages": [
                {
                    "startedDateTime": "2024-01-01T00:00:00.000Z",
                    "id": "p",
                    "title": "t",
                    "pageTimings": {"onLoad": 5},
                }
            ],
            "entries": [
                {
                    "pageref": "p",
                    "startedDateTime": "2024-01-01T00:00:00.000Z",
                    "time": 6,
                    "request": {
                        "method": "GET",
                        "url": "http://a/",
                        "httpVersion": "HTTP/1.1",
                        "cookies": [],
                        "headers": [{"name": "a", "value": "b"}],
                        "queryString": [],
                        "headersSize": -1,
                        "bodySize": 0,
                    },
                    "response": {
                        "status": 200,
                        "statusText": "OK",
                        "httpVersion": "HTTP/1.1",
                        "cookies": [],
                        "headers": [],
                        "content": {"size": 0, "mimeType": "text/html"},
                        "redirectURL": "",
                        "headersSize": -1,
                        "bodySize": 0,
                    },
                    "cache": {},
                    "timings": {"dns": -1, "send": 1, "wait": 2, "receive": 3},
                }
            ],
        }
    }
    assert har_problems(good) == []

    def broken(change: str) -> list[str]:
        document = copy.deepcopy(good)
        entry = document["log"]["entries"][0]
        if change == "no status":
            del entry["response"]["status"]
        elif change == "text size":
            entry["response"]["content"]["size"] = "10"
        elif change == "header value":
            entry["request"]["headers"][0]["value"] = 1
        elif change == "negative wait":
            entry["timings"]["wait"] = -1
        elif change == "time":
            entry["time"] = 99
        elif change == "pageref":
            entry["pageref"] = "nope"
        elif change == "version":
            document["log"]["version"] = "1.1"
        elif change == "date":
            entry["startedDateTime"] = "yesterday"
        return har_problems(document)

    for change in (
        "no status", "text size", "header value", "negative wait", "time", "pageref",
        "version", "date",
    ):  # fmt: skip
        assert broken(change), change


async def test_closing_the_browser_writes_the_har_and_finishes_the_videos(
    server: PageServer, tmp_path: Path
) -> None:
    import kobrowser

    av = pytest.importorskip("av")
    url = server.set_page("/har/alone.html", "<!doctype html><title>alone</title><p>alone")
    out, videos = tmp_path / "closed.har", tmp_path / "videos"
    async with kobrowser.launch(timeout=60) as browser:
        ctx = await browser.new_context(record_har=out, record_video=videos)
        tab = await ctx.new_tab(url)
        with anyio.fail_after(60):
            while ctx._recording.videos[0].frames == 0:  # noqa: ASYNC110 (no event for it)
                await anyio.sleep(0.02)
        assert tab.url == url
    document = json.loads(out.read_text())  # the context was never closed by hand
    assert har_problems(document) == []
    assert [e["request"]["url"] for e in document["log"]["entries"]].count(url) == 1
    (video,) = videos.iterdir()
    with av.open(str(video)) as container:
        assert sum(1 for _ in container.decode(container.streams.video[0])) >= 1
