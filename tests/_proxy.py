"""A tiny HTTP forward proxy for tests, running in its own thread.

Chrome sends a request for ``http://site.test/page.html`` to the proxy as
``GET http://site.test/page.html HTTP/1.1``; this proxy forwards it to the
test's page server on 127.0.0.1 (whatever the host name), so made-up host
names load through the proxy only and every byte stays on loopback::

    with TestProxy(upstream=server.port, username="u", password="p") as proxy:
        proxy.url             # "http://127.0.0.1:PORT"
        proxy.requests        # [ProxiedRequest(host="site.test", path="/page.html", ...)]

With ``username``/``password`` it answers ``407 Proxy Authentication
Required`` (``Proxy-Authenticate: Basic``) to every request whose
``Proxy-Authorization`` does not carry them, as a real proxy does. Each
connection serves one request (``Connection: close``). ``CONNECT`` (a
tunnel for ``https:``) is challenged like any request, then refused (405):
the pages are plain HTTP.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, NamedTuple
from urllib.parse import SplitResult, urlsplit

__all__ = ["ProxiedRequest", "TestProxy"]


def _accepting(task: asyncio.Task[Any]) -> bool:
    """Whether ``task`` is asyncio's own, making an accepted connection's transport."""
    name: str = getattr(task.get_coro(), "__qualname__", "")
    return not task.done() and name.endswith("_accept_connection2")


class ProxiedRequest(NamedTuple):
    """One request the proxy received: target host, path, and whether it was let through."""

    host: str
    path: str
    authorized: bool


class TestProxy:
    """An HTTP forward proxy on 127.0.0.1 that serves every host from ``upstream``.

    Args:
        upstream: the port on 127.0.0.1 every request is forwarded to.
        username: the user a ``Proxy-Authorization`` must name (None: no auth).
        password: its password.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self, upstream: int, *, username: str | None = None, password: str | None = None
    ) -> None:
        self.upstream = upstream
        self.username = username
        self.password = password
        self._lock = threading.Lock()
        self._requests: list[ProxiedRequest] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[ProxiedRequest]:
        """Every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        """Forget the requests received so far."""
        with self._lock:
            self._requests.clear()

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> TestProxy:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="test-proxy", daemon=True)
        self._thread.start()
        fut: Future[None] = asyncio.run_coroutine_threadsafe(self._start(), loop)
        fut.result(10)
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        if not thread.is_alive():
            loop.close()
        self._loop = self._thread = None

    def __enter__(self) -> TestProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self._server = await asyncio.start_server(self._accept, sock=sock)

    async def _stop(self) -> None:
        # Every connection ends here, its transport closed, before the loop
        # stops: a task or socket left for the garbage collector warns
        # (ResourceWarning) in whichever later test the collection runs.
        current = asyncio.current_task()
        server, self._server = self._server, None
        if server is not None:
            # Stop accepting first, then let the connections just accepted get
            # their transports, and only then close the server. asyncio makes
            # each accepted connection's transport in a task of its own; once
            # the server is closed that task fails (the server refuses a new
            # transport) and leaves the socket to the collector.
            loop = asyncio.get_running_loop()
            for sock in server.sockets:
                loop.remove_reader(sock.fileno())
            for _ in range(10):
                accepting = [t for t in asyncio.all_tasks() if t is not current and _accepting(t)]
                if not accepting:
                    break
                await asyncio.wait(accepting, timeout=1)
            server.close()
        for writer in self._writers:
            writer.close()
        # Then every other task of this loop (connections being served).
        while others := [t for t in asyncio.all_tasks() if t is not current and not t.done()]:
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        await asyncio.sleep(0)  # the closed transports' connection_lost callbacks

    # -- one connection --------------------------------------------------------

    def _authorized(self, headers: list[tuple[str, str]]) -> bool:
        if self.username is None:
            return True
        expected = base64.b64encode(f"{self.username}:{self.password or ''}".encode()).decode()
        return any(
            name.lower() == "proxy-authorization" and value.strip() == f"Basic {expected}"
            for name, value in headers
        )

    def _accept(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Coroutine[Any, Any, None]:
        # Called by asyncio as the connection's transport is made, before its
        # task exists: the writer is known to _stop from this moment on.
        self._writers.add(writer)
        return self._serve(reader, writer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._handle(reader, writer)
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers = [
            (name.strip(), value.strip())
            for name, _, value in (line.partition(":") for line in lines[1:] if line)
        ]
        length = next((int(v) for n, v in headers if n.lower() == "content-length"), 0)
        body = await reader.readexactly(length) if length else b""
        parts = urlsplit(target)
        if method == "CONNECT":  # CONNECT host:port
            host, path = target.rpartition(":")[0].strip("[]"), ""
        else:
            host, path = parts.hostname or "", parts.path or "/"
        authorized = self._authorized(headers)
        with self._lock:
            self._requests.append(ProxiedRequest(host, path, authorized))
        try:
            if not authorized:
                text = b"proxy authentication required"
                writer.write(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                    b'Proxy-Authenticate: Basic realm="test proxy"\r\n'
                    b"Content-Type: text/plain\r\nConnection: close\r\n"
                    + f"Content-Length: {len(text)}\r\n\r\n".encode()
                    + text
                )
            elif method == "CONNECT":
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            else:
                await self._forward(method, parts, headers, body, writer)
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _forward(
        self,
        method: str,
        parts: SplitResult,
        headers: list[tuple[str, str]],
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> None:
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        skip = {"proxy-authorization", "proxy-connection", "connection", "keep-alive"}
        lines = [f"{method} {path} HTTP/1.1"]
        lines += [f"{n}: {v}" for n, v in headers if n.lower() not in skip]
        lines.append("Connection: close")
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        try:
            up_writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            await up_writer.drain()
            while chunk := await up_reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        finally:
            up_writer.close()
