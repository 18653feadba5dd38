"""The test HTTP server (tests/_server.py) and the conftest fixtures around it."""

from __future__ import annotations

import asyncio
import threading
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import anyio
import anyio.to_thread
import pytest
from _examples import FAST
from _server import PageServer
from aiohttp import web


def fetch(url: str, timeout: float = 5.0) -> tuple[int, Message, bytes]:
    """GET with urllib; error statuses are returned, not raised."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.headers, err.read()


def test_urls(server: PageServer) -> None:
    assert server.url("/a.html") == f"http://127.0.0.1:{server.port}/a.html"
    assert server.url("a.html") == server.url("/a.html")
    assert server.cross_url("/b.html") == f"http://localhost:{server.cross_port}/b.html"
    assert server.port != server.cross_port
    main, cross = urlsplit(server.url("/")), urlsplit(server.cross_url("/"))
    assert main.hostname == "127.0.0.1"
    assert cross.hostname == "localhost"  # a different host, so a different site
    assert (main.hostname, main.port) != (cross.hostname, cross.port)


def test_set_page_served_on_both_origins(server: PageServer) -> None:
    url = server.set_page("/hello.html", "<title>Hi</title><p>héllo ✓</p>")
    assert url == server.url("/hello.html")
    for u in (server.url("/hello.html"), server.cross_url("/hello.html")):
        status, headers, body = fetch(u)
        assert status == 200
        assert body.decode() == "<title>Hi</title><p>héllo ✓</p>"
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Cache-Control"] == "no-store"


def test_status_headers_and_content_type(server: PageServer) -> None:
    server.set_page("/gone", "bye", status=410, headers={"X-Test": "1"})
    server.set_page("/data.json", b'{"a": 1}', content_type="application/json")
    server.set_page("/raw", b"\x00\x01", headers={"content-type": "application/x-thing"})
    status, headers, body = fetch(server.url("/gone"))
    assert (status, headers["X-Test"], body) == (410, "1", b"bye")
    status, headers, body = fetch(server.url("/data.json"))
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert body == b'{"a": 1}'
    status, headers, body = fetch(server.url("/raw"))
    assert headers["Content-Type"] == "application/x-thing"
    assert body == b"\x00\x01"


def test_unknown_path_is_404(server: PageServer) -> None:
    status, _, body = fetch(server.url("/nope"))
    assert status == 404
    assert b"/nope" in body


def test_set_route_custom_handler(server: PageServer) -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(text=f"{request.method} {request.host} q={request.query.get('q')}")

    server.set_route("/echo", handler)
    _, _, body = fetch(server.url("/echo?q=1"))
    assert body.decode() == f"GET 127.0.0.1:{server.port} q=1"
    _, _, body = fetch(server.cross_url("/echo"))
    assert body.decode() == f"GET localhost:{server.cross_port} q=None"


def test_later_route_replaces_page(server: PageServer) -> None:
    server.set_page("/x", "page")
    assert fetch(server.url("/x"))[2] == b"page"

    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(text="route")

    server.set_route("/x", handler)
    assert fetch(server.url("/x"))[2] == b"route"
    server.set_page("/x", "page again")
    assert fetch(server.url("/x"))[2] == b"page again"


def test_static_files_from_pages_dir(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "sub").mkdir()
    (pages / "sub" / "index.html").write_text("<p>index</p>")
    (pages / "app.js").write_text("let x = 1;")
    (pages.parent / "secret.txt").write_text("secret")
    with PageServer(pages_dir=pages) as own:
        status, headers, body = fetch(own.url("/app.js"))
        assert status == 200 and body == b"let x = 1;"
        assert headers["Content-Type"].startswith(("text/javascript", "application/javascript"))
        assert fetch(own.url("/sub/"))[2] == b"<p>index</p>"
        assert fetch(own.url("/sub"))[2] == b"<p>index</p>"
        assert fetch(own.url("/../secret.txt"))[0] == 404
        assert fetch(own.url("/%2e%2e/secret.txt"))[0] == 404
        own.set_page("/app.js", "override")  # routes win over files
        assert fetch(own.url("/app.js"))[2] == b"override"


def test_hold_and_release(server: PageServer) -> None:
    server.set_page("/slow", "finally")
    gate = server.hold("/slow")
    results: list[bytes] = []
    thread = threading.Thread(target=lambda: results.append(fetch(server.url("/slow"))[2]))
    thread.start()
    gate.wait_arrived(timeout=5)
    time.sleep(0.2)
    assert results == []  # still held
    assert gate.waiting == 1 and not gate.released
    other = fetch(server.url("/unrelated"))  # other paths are not held
    assert other[0] == 404
    gate.release()
    thread.join(5)
    assert results == [b"finally"]
    assert gate.released and gate.waiting == 0
    assert fetch(server.url("/slow"))[2] == b"finally"  # released gates stay open


def test_release_before_request(server: PageServer) -> None:
    server.set_page("/p", "ok")
    gate = server.hold("/p")
    gate.release()
    assert fetch(server.url("/p"))[2] == b"ok"
    gate.wait_arrived(timeout=1)


def test_wait_arrived_times_out(server: PageServer) -> None:
    gate = server.hold("/never")
    with pytest.raises(TimeoutError, match="/never"):
        gate.wait_arrived(timeout=0.05)


def test_hold_many_concurrent_requests(server: PageServer) -> None:
    server.set_page("/many", "m")
    gate = server.hold("/many")
    results: list[int] = []
    lock = threading.Lock()

    def get() -> None:
        status = fetch(server.url("/many"))[0]
        with lock:
            results.append(status)

    threads = [threading.Thread(target=get) for _ in range(8)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 5
    while gate.waiting < 8 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gate.waiting == 8
    gate.release()
    for t in threads:
        t.join(5)
    assert results == [200] * 8


def test_request_log(server: PageServer) -> None:
    before = time.monotonic()
    server.set_page("/a", "a")
    fetch(server.url("/a?x=1"))
    fetch(server.cross_url("/b"))
    fetch(server.url("/a"))
    log = server.requests
    assert [path for path, _ in log] == ["/a", "/b", "/a"]
    assert all(before <= t <= time.monotonic() for _, t in log)
    assert [t for _, t in log] == sorted(t for _, t in log)
    assert server.request_count("/a") == 2
    assert server.wait_for_request("/b").path == "/b"
    with pytest.raises(TimeoutError):
        server.wait_for_request("/c", timeout=0.05)


class TestResetBetweenTests:
    """The autouse fixture resets the server after each test (runs in order)."""

    def test_1_set_state(self, server: PageServer) -> None:
        server.set_page("/left-over", "x")
        server.hold("/held")
        fetch(server.url("/left-over"))
        assert server.requests

    def test_2_state_is_gone(self, server: PageServer) -> None:
        assert server.requests == []
        assert fetch(server.url("/left-over"))[0] == 404
        server.set_page("/held", "not held any more")
        assert fetch(server.url("/held"), timeout=2)[2] == b"not held any more"


def test_reset_releases_held_requests() -> None:
    with PageServer() as srv:
        srv.set_page("/h", "h")
        gate = srv.hold("/h")
        results: list[int] = []
        thread = threading.Thread(target=lambda: results.append(fetch(srv.url("/h"))[0]))
        thread.start()
        gate.wait_arrived(5)
        srv.reset()
        thread.join(5)
        assert gate.released
        assert results == [404]  # the page was reset too


def test_stop_with_held_request() -> None:
    srv = PageServer().start()
    srv.hold("/h")
    thread = threading.Thread(target=lambda: fetch(srv.url("/h"), timeout=5))
    thread.start()
    srv.wait_for_request("/h")
    started = time.monotonic()
    srv.stop()
    thread.join(5)
    assert time.monotonic() - started < 5
    srv.stop()  # idempotent


# --- async use, on the test's own loop, under both backends ---


@pytest.mark.anyio
async def test_default_backend_is_asyncio(anyio_backend: str) -> None:
    assert anyio_backend == "asyncio"


@pytest.mark.anyio
async def test_aiohttp_client_on_test_loop(server: PageServer) -> None:
    server.set_page("/aio", "from aiohttp")
    gate = server.hold("/aio")
    async with aiohttp.ClientSession() as session, anyio.create_task_group() as tg:

        async def get() -> None:
            async with session.get(server.cross_url("/aio")) as resp:
                assert resp.status == 200
                assert await resp.text() == "from aiohttp"

        tg.start_soon(get)
        await gate.arrived(timeout=5)
        # The test's loop keeps running while the server holds the request.
        await anyio.sleep(0.05)
        gate.release()


@pytest.mark.anyio
@pytest.mark.both_backends
async def test_both_backends(anyio_backend: str, server: PageServer) -> None:
    try:
        asyncio.get_running_loop()
        running = "asyncio"
    except RuntimeError:
        running = "trio"
    assert running == anyio_backend
    server.set_page("/both", anyio_backend)
    gate = server.hold("/both")
    result: list[bytes] = []

    async def get() -> None:
        result.append((await anyio.to_thread.run_sync(fetch, server.url("/both")))[2])

    async with anyio.create_task_group() as tg:
        tg.start_soon(get)
        await gate.arrived(timeout=5)
        gate.release()
    assert result == [anyio_backend.encode()]


@pytest.mark.anyio
@pytest.mark.both_backends(fast="trio")
async def test_both_backends_fast_trio(anyio_backend: str) -> None:
    assert anyio_backend in ("asyncio", "trio")


def test_both_backends_fast_runs_one_backend_under_fast_only(
    request: pytest.FixtureRequest,
) -> None:
    items = request.session.items
    names = [
        i.name for i in items if getattr(i, "originalname", "") == "test_both_backends_fast_trio"
    ]
    if not names:
        pytest.skip("test_both_backends_fast_trio was deselected")
    if FAST:
        assert names == ["test_both_backends_fast_trio[trio]"]
    else:
        assert names == [
            "test_both_backends_fast_trio[asyncio]",
            "test_both_backends_fast_trio[trio]",
        ]


def test_both_backends_parametrizes_only_marked_tests(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    marked = [i.name for i in items if getattr(i, "originalname", "") == "test_both_backends"]
    if not marked:
        pytest.skip("test_both_backends was deselected")
    assert marked == ["test_both_backends[asyncio]", "test_both_backends[trio]"]
    plain = [
        i.name for i in items if getattr(i, "originalname", "") == "test_default_backend_is_asyncio"
    ]
    assert plain in ([], ["test_default_backend_is_asyncio"])
