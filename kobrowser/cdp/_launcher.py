"""Find, start and stop Chrome/Chromium; resolve CDP endpoints.

Chrome is looked up in this order: an explicit ``executable_path``, the
``KOBROWSER_CHROME`` then ``CHROME_PATH`` environment variables, the names
``chromium``, ``chromium-browser``, ``google-chrome``, ``google-chrome-stable``
and ``chrome`` on ``PATH``, then common install locations. Nothing is ever
downloaded.

A launched Chrome talks over a pipe by default (``--remote-debugging-pipe``,
CBOR when the native codec is built, else JSON; see :mod:`._pipe`), which
also ties its life to ours: when this process dies, even by SIGKILL, Chrome
reads EOF and quits. ``transport="websocket"`` (or ``KOBROWSER_TRANSPORT``)
picks the DevTools WebSocket on a free port instead.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import weakref
from collections.abc import Sequence

import anyio
import anyio.abc

from kobrowser._exceptions import ConnectionClosedError, LaunchError
from kobrowser.cdp._codec import cbor_codec, warn_json_fallback
from kobrowser.cdp._pipe import PipeTransport
from kobrowser.cdp._profiles import make_profile_dir, remove_tree, sweep_stale_profiles
from kobrowser.cdp._transport import Transport, http_get_json, open_transport

__all__ = ["TRANSPORTS", "ChromeProcess", "choose_transport", "find_chrome", "resolve_endpoint"]

TRANSPORTS = ("pipe", "pipe-cbor", "pipe-json", "websocket")
"""What ``launch(transport=...)`` and ``KOBROWSER_TRANSPORT`` accept; ``pipe``
is CBOR when the native codec is built, else JSON."""

CHROME_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
COMMON_PATHS = (
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/opt/google/chrome/chrome",
    "/snap/bin/chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
)
INSTALL_HINT = (
    "install Chromium (Debian/Ubuntu: `sudo apt-get install chromium`), "
    "or set KOBROWSER_CHROME to the path of a Chrome/Chromium executable"
)

# Flags for a quiet, deterministic browser on a closed network.
_PORT_FLAG = "--remote-debugging-port=0"
DEFAULT_FLAGS = (
    _PORT_FLAG,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
    "--disable-quic",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
)

_DEVTOOLS_LINE = re.compile(r"DevTools listening on (ws://\S+)")

# Chrome reads the pipe on its fd 3 and writes on its fd 4: the shell moves
# our pipe ends from its stdin/stdout there, then execs Chrome (same pid).
_PIPE_SHIM = 'exec "$@" 3<&0 4>&1 0</dev/null 1>/dev/null'
_PROBE_ID = 2**31 - 1  # the start-up call's id; the connection counts from 1


def choose_transport(requested: str | None = None) -> str:
    """The transport a launch uses: ``"pipe-cbor"``, ``"pipe-json"`` or ``"websocket"``.

    ``requested`` (else ``KOBROWSER_TRANSPORT``, else ``"pipe"``) is one of
    :data:`TRANSPORTS`. ``"pipe"`` means CBOR when the native codec is
    importable, else the JSON pipe (said once per process, as a warning on
    the ``kobrowser`` logger).

    Raises:
        LaunchError: an unknown name, or ``"pipe-cbor"`` without the codec.
    """
    value = requested or os.environ.get("KOBROWSER_TRANSPORT") or "pipe"
    if value not in TRANSPORTS:
        raise LaunchError(f"unknown transport {value!r}: use one of {', '.join(TRANSPORTS)}")
    if value == "websocket":
        return value
    if sys.platform == "win32":
        if value == "pipe":
            return "websocket"
        raise LaunchError(f"transport {value!r} is not available on Windows")
    if cbor_codec() is not None:
        return "pipe-cbor" if value == "pipe" else value
    if value == "pipe-cbor":
        raise LaunchError(
            "transport 'pipe-cbor' needs the native codec kobrowser.cdp._cbor, which is not "
            "built or is stale (reinstall with a C compiler), or use transport='pipe-json'"
        )
    if value == "pipe":
        warn_json_fallback()
    return "pipe-json"


_live: weakref.WeakSet[ChromeProcess] = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    """At interpreter exit, kill every Chrome not closed and remove its profile."""
    for chrome in list(_live):
        chrome._kill_now()


def find_chrome(executable_path: str | os.PathLike[str] | None = None) -> str:
    """Return the path of a Chrome/Chromium executable.

    Raises:
        LaunchError: nothing found, or an explicitly named path does not exist.
    """
    if executable_path is not None:
        return _check_explicit(str(executable_path), "executable_path")
    for var in ("KOBROWSER_CHROME", "CHROME_PATH"):
        value = os.environ.get(var)
        if value:
            return _check_explicit(value, var)
    for name in CHROME_NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in COMMON_PATHS:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise LaunchError(f"no Chrome or Chromium found on this machine: {INSTALL_HINT}")


def _check_explicit(value: str, source: str) -> str:
    found = shutil.which(value) if os.sep not in value else value
    if found and os.path.isfile(found) and os.access(found, os.X_OK):
        return found
    raise LaunchError(f"{source}={value!r} is not an executable file: {INSTALL_HINT}")


async def resolve_endpoint(endpoint: str, *, timeout: float) -> str:
    """Turn ``ws://...``, ``http://host:port`` or ``host:port`` into a browser WebSocket URL."""
    endpoint = endpoint.strip()
    if endpoint.startswith(("ws://", "wss://")):
        return endpoint
    if not endpoint.startswith(("http://", "https://")):
        if not re.fullmatch(r"[\w.\-\[\]:]+:\d+", endpoint):
            raise ConnectionClosedError(
                f"not a CDP endpoint: {endpoint!r} "
                "(expected ws://.../devtools/browser/..., http://host:port or host:port)"
            )
        endpoint = "http://" + endpoint
    info = await http_get_json(endpoint.rstrip("/") + "/json/version", timeout=timeout)
    if not isinstance(info, dict) or not isinstance(info.get("webSocketDebuggerUrl"), str):
        raise ConnectionClosedError(f"{endpoint}/json/version has no webSocketDebuggerUrl")
    url: str = info["webSocketDebuggerUrl"]
    return url


async def _probe(transport: PipeTransport) -> None:
    """Wait until Chrome answers a first call on the pipe."""
    await transport.send(transport.encode_call(_PROBE_ID, "Browser.getVersion", None, None))
    prefix = b'{"id":%d,' % _PROBE_ID
    while not (await transport.receive()).startswith(prefix):
        pass


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class ChromeProcess:
    """A Chrome process with a temporary profile, owned by a Browser.

    Call :meth:`open` (Chrome on the chosen transport, returned ready) or
    :meth:`start` (Chrome on a DevTools WebSocket, its URL returned), keep
    :meth:`drain_stderr` running in a task, and always :meth:`aclose` (which
    is shielded from cancellation).

    Args:
        executable: the Chrome/Chromium to run.
        headless: run without a window.
        args: extra command-line flags.
        no_sandbox: pass ``--no-sandbox``; default: only when running as root.
        transport: for :meth:`open`: one of :data:`TRANSPORTS`; default:
            ``KOBROWSER_TRANSPORT``, else ``"pipe"`` (see :func:`choose_transport`).

    Raises:
        LaunchError: an unknown transport, or ``"pipe-cbor"`` without the codec.
    """

    def __init__(
        self,
        executable: str,
        *,
        headless: bool = True,
        args: Sequence[str] = (),
        no_sandbox: bool | None = None,
        transport: str | None = None,
    ) -> None:
        self.executable = executable
        self.headless = headless
        self.args = tuple(args)
        self.no_sandbox = _running_as_root() if no_sandbox is None else no_sandbox
        self.transport_kind = choose_transport(transport)
        """``"pipe-cbor"``, ``"pipe-json"`` or ``"websocket"``."""
        self.profile_dir: str | None = None
        self.process: anyio.abc.Process | None = None
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=40)
        self._buffer = b""
        self._closed = False
        self._lifeline = (-1, -1)  # WebSocket mode: our ends of the idle pipe

    @property
    def pid(self) -> int | None:
        """The browser process id, once started."""
        return self.process.pid if self.process is not None else None

    def command(self) -> list[str]:
        """The full command line used to start Chrome."""
        assert self.profile_dir is not None
        if self.transport_kind == "websocket":
            flags: list[str] = list(DEFAULT_FLAGS)
            if sys.platform != "win32":
                flags.append("--remote-debugging-pipe")  # the lifeline (see _spawn)
        else:
            pipe = "--remote-debugging-pipe" + (
                "=cbor" if self.transport_kind == "pipe-cbor" else ""
            )
            flags = [pipe, *(flag for flag in DEFAULT_FLAGS if flag != _PORT_FLAG)]
        cmd = [self.executable, *flags, f"--user-data-dir={self.profile_dir}"]
        if self.headless:
            cmd += ["--headless=new", "--hide-scrollbars"]
        if self.no_sandbox:
            cmd.append("--no-sandbox")
        cmd += list(self.args)
        cmd.append("about:blank")
        return cmd

    @property
    def stderr_tail(self) -> str:
        """The last lines Chrome printed on stderr."""
        return "\n".join(self._stderr_tail)

    async def open(self, *, timeout: float) -> Transport:
        """Start Chrome on :attr:`transport_kind` and return the open transport.

        On the pipe, Chrome has answered a first call when this returns.
        Stale profiles of dead processes are swept first
        (:func:`~kobrowser.cdp._profiles.sweep_stale_profiles`).

        Raises:
            LaunchError: Chrome could not start, died, or did not answer in time.
        """
        await anyio.to_thread.run_sync(sweep_stale_profiles)
        if self.transport_kind == "websocket":
            ws_url = await self.start(timeout=timeout)
            try:
                return await open_transport(ws_url, timeout=timeout)
            except BaseException:
                await self.aclose(grace=0)  # never connected: no close to wait for
                raise
        reply_read, cmd_write = await self._spawn()
        transport = PipeTransport(reply_read, cmd_write, cbor=self.transport_kind == "pipe-cbor")
        failure: str | None = None
        try:
            async with anyio.create_task_group() as task_group:
                task_group.start_soon(self.drain_stderr)
                try:
                    with anyio.fail_after(timeout):
                        await _probe(transport)
                except ConnectionClosedError:
                    failure = await self._exit_message()
                except TimeoutError:
                    failure = (
                        f"Chrome ({self.executable}) did not answer on its DevTools pipe "
                        f"within {timeout:g} s"
                    )
                assert self.process is not None
                if failure is None or self.process.returncode is None:
                    task_group.cancel_scope.cancel()
                else:  # Chrome is gone: read the rest of its stderr, for the error
                    task_group.cancel_scope.deadline = anyio.current_time() + 2
        except BaseException:
            await transport.aclose()
            await self.aclose(grace=0)  # never connected: no close to wait for
            raise
        if failure is not None:
            await transport.aclose()
            await self.aclose(grace=0)  # never connected: no close to wait for
            raise LaunchError(failure, stderr_tail=self.stderr_tail)
        return transport

    async def _spawn(self) -> tuple[int, int]:
        """Start Chrome with a new profile; return our ends of its DevTools pipe.

        Every launch gets the pipe: in WebSocket mode it carries nothing and
        only ties Chrome's life to this process (:attr:`_lifeline`).
        """
        self.profile_dir = make_profile_dir()
        _live.add(self)
        if sys.platform == "win32":  # pragma: no cover - no fd 3/4 there
            command, lifeline = self.command(), False
        else:
            command, lifeline = ["/bin/sh", "-c", _PIPE_SHIM, "sh", *self.command()], True
        fds = (*os.pipe(), *os.pipe()) if lifeline else ()
        try:
            self.process = await anyio.open_process(
                command,
                stdin=fds[0] if fds else subprocess.DEVNULL,
                stdout=fds[3] if fds else subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=lifeline,
            )
        except BaseException as exc:
            for fd in fds:
                os.close(fd)
            await self.aclose(grace=0)  # never connected: no close to wait for
            if isinstance(exc, OSError):
                raise LaunchError(f"could not start {self.executable}: {exc}") from exc
            raise
        if not fds:
            return -1, -1
        os.close(fds[0])  # Chrome's ends
        os.close(fds[3])
        return fds[2], fds[1]

    async def _exit_message(self) -> str:
        assert self.process is not None
        with anyio.move_on_after(10):
            await self.process.wait()
        code = self.process.returncode
        if code is None:
            return f"Chrome ({self.executable}) closed its DevTools pipe while starting"
        return f"Chrome ({self.executable}) exited with code {code} while starting"

    async def start(self, *, timeout: float) -> str:
        """Start Chrome with a DevTools WebSocket and return its browser URL.

        Chrome also gets an idle DevTools pipe, so that it exits with this
        process whatever the way this process ends.

        Raises:
            LaunchError: Chrome could not start, died, or printed no endpoint in time.
        """
        self.transport_kind = "websocket"
        self._lifeline = await self._spawn()
        try:
            with anyio.fail_after(timeout):
                while True:
                    line = await self._read_line()
                    if line is None:
                        raise LaunchError(await self._exit_message(), stderr_tail=self.stderr_tail)
                    match = _DEVTOOLS_LINE.search(line)
                    if match:
                        return match.group(1)
        except TimeoutError:
            tail = self.stderr_tail
            await self.aclose(grace=0)  # never connected: no close to wait for
            raise LaunchError(
                f"Chrome ({self.executable}) printed no DevTools endpoint within {timeout:g} s",
                stderr_tail=tail,
            ) from None
        except BaseException:
            await self.aclose(grace=0)  # never connected: no close to wait for
            raise

    async def _read_line(self) -> str | None:
        assert self.process is not None and self.process.stderr is not None
        while b"\n" not in self._buffer:
            try:
                chunk = await self.process.stderr.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                if self._buffer:
                    rest, self._buffer = self._buffer, b""
                    return self._remember(rest)
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return self._remember(line)

    def _remember(self, raw: bytes) -> str:
        line = raw.decode(errors="replace").rstrip()
        if line:
            self._stderr_tail.append(line)
        return line

    async def drain_stderr(self) -> None:
        """Keep reading Chrome's stderr so it never blocks on a full pipe."""
        while await self._read_line() is not None:
            pass

    def _close_lifeline(self) -> None:
        fds, self._lifeline = self._lifeline, (-1, -1)
        for fd in fds:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _kill_now(self) -> None:
        """Kill Chrome's process group and remove the profile, synchronously (atexit)."""
        if self._closed:
            return
        self._closed = True
        self._close_lifeline()
        process = self.process
        if process is not None and process.returncode is None and sys.platform != "win32":
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        if self.profile_dir is not None:
            remove_tree(self.profile_dir)

    async def aclose(self, *, grace: float = 5.0) -> None:
        """Wait for Chrome to exit (after ``Browser.close``), else terminate, else kill.

        Removes the temporary profile. Shielded from cancellation; idempotent.
        """
        if self._closed:
            return
        self._closed = True
        _live.discard(self)
        self._close_lifeline()  # Chrome sees EOF and quits, if Browser.close did not
        with anyio.CancelScope(shield=True):
            process = self.process
            if process is not None:
                if process.returncode is None:
                    with anyio.move_on_after(grace):
                        await process.wait()
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.terminate()
                    with anyio.move_on_after(3):
                        await process.wait()
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
                # Renderers and helpers share the browser's process group.
                if sys.platform != "win32":
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(process.pid, signal.SIGKILL)
                await process.aclose()
            if self.profile_dir is not None:
                await anyio.to_thread.run_sync(remove_tree, self.profile_dir)
