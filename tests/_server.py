"""A local HTTP server for browser tests, running in its own thread.

The server runs an aiohttp application on a private event loop in a daemon
thread, so it works the same under asyncio and trio tests and never shares
(or blocks on) the test's loop. Every method is plain, thread-safe, and
synchronous; call it from sync or async tests alike.

Two listeners serve the same routes, both bound to 127.0.0.1 on random free
ports:

* ``server.url("/a.html")``       -> ``http://127.0.0.1:PORT/a.html``
* ``server.cross_url("/b.html")`` -> ``http://localhost:PORT2/b.html``

``127.0.0.1`` and ``localhost`` are different sites to Chrome, so a page from
one with an iframe from the other gets an out-of-process (cross-origin) frame.

What a path serves, first match wins:

1. ``server.set_route(path, handler)``: an aiohttp handler (runs on the
   server's loop), ``async def handler(request: web.Request) -> web.StreamResponse``.
2. ``server.set_page(path, html, status=200, headers=None, content_type="text/html")``.
3. A file under ``tests/pages/`` (``/vendor/react.production.min.js`` ->
   ``tests/pages/vendor/react.production.min.js``).
4. 404.

``gate = server.hold(path)`` makes requests to ``path`` wait until
``gate.release()`` (from any thread), then served as above. Every response
carries ``Cache-Control: no-store`` unless the page's headers say otherwise,
so the browser never serves a previous test's page from its cache.
``server.reset()`` (called after every test by the autouse fixture in
conftest.py) drops routes, releases all gates and clears the request log.
"""

from __future__ import annotations

import asyncio
import mimetypes
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import anyio.to_thread
from aiohttp import web
from multidict import CIMultiDict

__all__ = ["Gate", "Handler", "LoggedRequest", "PageServer"]

PAGES_DIR = Path(__file__).resolve().parent / "pages"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_T = TypeVar("_T")


class LoggedRequest(NamedTuple):
    """One request as it arrived: its path (no query) and ``time.monotonic()``."""

    path: str
    time: float


class _Page(NamedTuple):
    body: bytes
    status: int
    headers: Mapping[str, str]
    content_type: str


class Gate:
    """Holds requests to one path until :meth:`release`. Thread-safe."""

    def __init__(self, server: PageServer, path: str) -> None:
        self.path = path
        self._server = server
        self._released = threading.Event()
        self._arrived = threading.Event()
        self._lock = threading.Lock()
        self._waiting = 0
        self._waiters: list[asyncio.Future[None]] = []  # touched on the server loop only

    @property
    def released(self) -> bool:
        return self._released.is_set()

    @property
    def waiting(self) -> int:
        """How many requests are being held right now."""
        with self._lock:
            return self._waiting

    def release(self) -> None:
        """Let every held and every future request through."""
        if self._released.is_set():
            return
        self._released.set()
        self._server._call_soon(self._wake)

    def wait_arrived(self, timeout: float = 10.0) -> None:
        """Block until a request has reached the gate (``TimeoutError`` if none)."""
        if not self._arrived.wait(timeout):
            raise TimeoutError(f"no request for {self.path} reached the gate in {timeout}s")

    def arrived(self, timeout: float = 10.0) -> Awaitable[None]:
        """``await gate.arrived()``: :meth:`wait_arrived` for asyncio and trio tests.

        Waits in a worker thread, so the test's own loop keeps running.
        """
        return anyio.to_thread.run_sync(self.wait_arrived, timeout, abandon_on_cancel=True)

    # --- server loop side ---

    def _wake(self) -> None:
        for fut in self._waiters:
            if not fut.done():
                fut.set_result(None)
        self._waiters.clear()

    async def _pass(self) -> None:
        with self._lock:
            self._waiting += 1
        self._arrived.set()
        try:
            if not self._released.is_set():
                fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._waiters.append(fut)
                if self._released.is_set():  # released between the check and append
                    self._wake()
                await fut
        finally:
            with self._lock:
                self._waiting -= 1


class PageServer:
    """Two HTTP origins on 127.0.0.1 served from one background thread."""

    def __init__(self, pages_dir: Path = PAGES_DIR) -> None:
        self.pages_dir = pages_dir
        self._lock = threading.Lock()
        self._pages: dict[str, _Page] = {}
        self._routes: dict[str, Handler] = {}
        self._gates: dict[str, Gate] = {}
        self._requests: list[LoggedRequest] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._socks: list[socket.socket] = []
        self.port = 0
        self.cross_port = 0

    # --- lifecycle ---

    def start(self) -> PageServer:
        if self._thread is not None:
            raise RuntimeError("server already started")
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(
            target=loop.run_forever, name="kobrowser-test-server", daemon=True
        )
        self._thread.start()
        try:
            self._run(self._start())
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with self._lock:
            gates = list(self._gates.values())
        for gate in gates:
            gate.release()
        try:
            self._run(self._stop(), timeout=10.0)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10.0)
            if not thread.is_alive():
                loop.close()
            self._loop = self._thread = None

    def __enter__(self) -> PageServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await self._runner.setup()
        main_sock, self.port = _bind_free_port()
        cross_sock, self.cross_port = _bind_free_port()
        self._socks = [main_sock, cross_sock]
        for sock in self._socks:
            await web.SockSite(self._runner, sock).start()

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for sock in self._socks:
            sock.close()
        self._socks = []
        await asyncio.get_running_loop().shutdown_asyncgens()

    def _run(self, coro: Coroutine[Any, Any, _T], timeout: float = 30.0) -> _T:
        assert self._loop is not None, "server not started"
        fut: Future[_T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return fut.result(timeout)

    def _call_soon(self, callback: Callable[[], Any]) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback)

    # --- addresses ---

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def cross_origin(self) -> str:
        return f"http://localhost:{self.cross_port}"

    def url(self, path: str = "/") -> str:
        """``http://127.0.0.1:PORT/path``."""
        return self.origin + _norm(path)

    def cross_url(self, path: str = "/") -> str:
        """``http://localhost:PORT2/path``: same routes, a different site."""
        return self.cross_origin + _norm(path)

    # --- routes ---

    def set_page(
        self,
        path: str,
        html: str | bytes,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        content_type: str = "text/html",
    ) -> str:
        """Serve ``html`` at ``path`` on both origins; returns ``self.url(path)``."""
        body = html.encode() if isinstance(html, str) else html
        page = _Page(body, status, dict(headers or {}), content_type)
        with self._lock:
            self._routes.pop(_norm(path), None)
            self._pages[_norm(path)] = page
        return self.url(path)

    def set_route(self, path: str, handler: Handler) -> str:
        """Serve ``path`` with an aiohttp handler (runs on the server's loop)."""
        with self._lock:
            self._pages.pop(_norm(path), None)
            self._routes[_norm(path)] = handler
        return self.url(path)

    def hold(self, path: str) -> Gate:
        """Make requests to ``path`` wait until ``gate.release()``."""
        gate = Gate(self, _norm(path))
        with self._lock:
            old = self._gates.get(gate.path)
            self._gates[gate.path] = gate
        if old is not None:
            old.release()
        return gate

    def reset(self) -> None:
        """Drop routes and pages, release every gate, clear the request log."""
        with self._lock:
            gates = list(self._gates.values())
            self._pages.clear()
            self._routes.clear()
            self._gates.clear()
            self._requests.clear()
        for gate in gates:
            gate.release()

    # --- request log ---

    @property
    def requests(self) -> list[LoggedRequest]:
        """A copy of the log: ``(path, time.monotonic())`` per request, in order."""
        with self._lock:
            return list(self._requests)

    def request_count(self, path: str) -> int:
        path = _norm(path)
        with self._lock:
            return sum(1 for r in self._requests if r.path == path)

    def wait_for_request(self, path: str, timeout: float = 10.0) -> LoggedRequest:
        """Block until ``path`` has been requested; returns the first such request."""
        path = _norm(path)
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                for r in self._requests:
                    if r.path == path:
                        return r
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{path} was not requested within {timeout}s")
            time.sleep(0.01)

    # --- serving (server loop) ---

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        with self._lock:
            self._requests.append(LoggedRequest(path, time.monotonic()))
            gate = self._gates.get(path)
        if gate is not None:
            await gate._pass()
        with self._lock:
            handler = self._routes.get(path)
            page = self._pages.get(path)
        if handler is not None:
            return await handler(request)
        if page is not None:
            headers = CIMultiDict({"Cache-Control": "no-store"})
            headers.setdefault("Content-Type", _with_charset(page.content_type))
            headers.update(page.headers)
            return web.Response(body=page.body, status=page.status, headers=headers)
        file = self._static_file(path)
        if file is not None:
            ctype = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            return web.Response(
                body=file.read_bytes(),
                headers={"Cache-Control": "no-store", "Content-Type": _with_charset(ctype)},
            )
        return web.Response(
            text=f"404: nothing at {path}",
            status=404,
            headers={"Cache-Control": "no-store"},
        )

    def _static_file(self, path: str) -> Path | None:
        root = self.pages_dir.resolve()
        candidate = (root / path.lstrip("/")).resolve()
        if candidate.is_dir():
            candidate = candidate / "index.html"
        if candidate.is_relative_to(root) and candidate.is_file():
            return candidate
        return None


def _with_charset(content_type: str) -> str:
    """Text types get an explicit UTF-8 charset so Chrome never guesses."""
    textual = content_type.startswith("text/") or content_type in {
        "application/javascript",
        "application/json",
        "image/svg+xml",
    }
    if textual and "charset" not in content_type:
        return f"{content_type}; charset=utf-8"
    return content_type


def _norm(path: str) -> str:
    return path if path.startswith("/") else "/" + path


def _bind_free_port() -> tuple[socket.socket, int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    port: int = sock.getsockname()[1]
    return sock, port
