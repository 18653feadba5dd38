"""What the benchmarks and probes share: page servers, process CPU, timing, load.

* :class:`LocalServer` serves pages made by a function over HTTP/1.1 from a
  thread, on one port per origin (``127.0.0.1`` and ``localhost`` are two
  sites, so a page of one embeds the other as a cross-origin frame);
  :func:`serve_in_subprocess` serves a set of pages from another process, so
  the server's Python never competes with the client under test for the GIL
  (``python -m benchmarks._common DIR`` is that process).
* :func:`descendants` and :func:`cpu_times` read the CPU time of this process
  and every process below it from ``/proc`` (Linux): Chrome's renderers, its
  browser process, a Node driver.
* :func:`timed`, :func:`timed_result`, :func:`median_ms` and :func:`load` are
  the small timing helpers every benchmark used to write for itself.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar

__all__ = [
    "LocalServer",
    "Render",
    "cpu_times",
    "descendants",
    "load",
    "loads",
    "median_ms",
    "serve_in_subprocess",
    "timed",
    "timed_result",
]

T = TypeVar("T")

# -- page servers ---------------------------------------------------------------------

Render = Callable[[str, dict[str, str], int], bytes | str | None]
"""What a server answers: ``(path, query, port)`` -> the page, or None for a 404.

``path`` is unquoted, ``query`` holds each parameter's first value, ``port``
is the port the request came in on (which origin it was asked of).
"""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(parts.query).items()}
        body = self.server.render(urllib.parse.unquote(parts.path), query, self.server.port)
        if body is None:
            self.send_error(404)
            return
        data = body.encode() if isinstance(body, str) else body
        self.send_response(200)
        self.send_header("Content-Type", self.server.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    render: Render
    content_type: str
    port: int


class LocalServer:
    """Serves ``render``'s pages on 127.0.0.1, one port per host name, from threads.

    Every answer is HTTP/1.1 (keep-alive) with ``Cache-Control: no-store``.
    Use it as a context manager, or call :meth:`start` and :meth:`close`.

    Args:
        render: the page of a request (see :data:`Render`).
        hosts: the host name of each origin; each gets a port of its own.
            ``("127.0.0.1", "localhost")`` makes two sites.
        content_type: the ``Content-Type`` of every page. Real pages keep
            ``text/html`` (their own ``<meta charset>`` decides); generated
            ones are ``text/html; charset=utf-8``.
    """

    def __init__(
        self,
        render: Render,
        *,
        hosts: Sequence[str] = ("127.0.0.1",),
        content_type: str = "text/html; charset=utf-8",
    ) -> None:
        self._render = render
        self._hosts = tuple(hosts)
        self._content_type = content_type
        self._servers: list[_Server] = []
        self.origins: list[str] = []
        """``http://HOST:PORT`` of each host, in the order given."""
        self.ports: list[int] = []

    def start(self) -> LocalServer:
        for host in self._hosts:
            server = _Server(("127.0.0.1", 0), _Handler)
            server.render = self._render
            server.content_type = self._content_type
            server.port = server.server_address[1]
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self._servers.append(server)
            self.ports.append(server.port)
            self.origins.append(f"http://{host}:{server.port}")
        return self

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, path: str, origin: int = 0) -> str:
        """The address of ``path`` (``"/table"``) on the ``origin``-th host."""
        assert self.origins, "start the server first (or use it as a context manager)"
        return self.origins[origin] + path


def _directory_pages(directory: Path) -> Render:
    root = directory.resolve()

    def render(path: str, query: dict[str, str], port: int) -> bytes | None:
        target = (root / path.lstrip("/")).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            return None
        return target.read_bytes()

    return render


@contextlib.contextmanager
def serve_in_subprocess(pages: Iterable[tuple[str, str]], *, prefix: str) -> Iterator[str]:
    """Serve ``(path, html)`` pages from another process; yields ``http://127.0.0.1:PORT``.

    The pages are written to a temporary directory (named with ``prefix``)
    and served as ``text/html`` by ``python -m benchmarks._common DIR``,
    which is stopped when the block is left.
    """
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        for path, text in pages:
            target = Path(directory) / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks._common", directory],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        try:
            assert process.stdout is not None
            port = int(process.stdout.readline())
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(10)


# -- process CPU (Linux) --------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (children, their children ...)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, []))
    return out


def cpu_times(pids: Iterable[int]) -> dict[int, tuple[str, float]]:
    """pid -> (command line, seconds of user + system CPU) of each process still there.

    The command line's arguments are separated by NUL characters, as
    ``/proc/PID/cmdline`` has them; a process gone meanwhile is left out.
    """
    found: dict[int, tuple[str, float]] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().decode(errors="replace")
        except OSError:
            continue
        found[pid] = (command, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return found


# -- timing ---------------------------------------------------------------------------


async def timed(call: Callable[[], Awaitable[object]]) -> float:
    """Seconds ``await call()`` took (wall clock)."""
    start = time.perf_counter()
    await call()
    return time.perf_counter() - start


async def timed_result(call: Callable[[], Awaitable[T]]) -> tuple[float, T]:
    """Seconds ``await call()`` took (wall clock), and what it returned."""
    start = time.perf_counter()
    result = await call()
    return time.perf_counter() - start, result


def median_ms(seconds: Sequence[float]) -> str:
    """The median of ``seconds`` as ``"12.3 ms"``; ``"-"`` when there is none."""
    return f"{statistics.median(seconds) * 1000:.1f} ms" if seconds else "-"


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def loads(digits: int = 1, sep: str = " / ") -> str:
    """The 1, 5 and 15-minute load averages as text (``"2.1 / 1.5 / 0.9"``)."""
    return sep.join(f"{x:.{digits}f}" for x in os.getloadavg())


def _serve_directory(directory: str) -> None:
    """Serve ``directory``'s files as ``text/html`` until killed; print the port first."""
    server = LocalServer(_directory_pages(Path(directory)), content_type="text/html").start()
    print(server.ports[0], flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    _serve_directory(sys.argv[1])
