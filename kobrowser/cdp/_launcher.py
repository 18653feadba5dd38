"""Find, start and stop Chrome/Chromium; resolve CDP endpoints.

Chrome is looked up in this order: an explicit ``executable_path``, the
``KOBROWSER_CHROME`` then ``CHROME_PATH`` environment variables, the names
``chromium``, ``chromium-browser``, ``google-chrome``, ``google-chrome-stable``
and ``chrome`` on ``PATH``, then common install locations. Nothing is ever
downloaded.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import anyio
import anyio.abc

from .._exceptions import ConnectionClosedError, LaunchError
from ._transport import http_get_json

__all__ = ["ChromeProcess", "find_chrome", "resolve_endpoint"]

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
DEFAULT_FLAGS = (
    "--remote-debugging-port=0",
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


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class ChromeProcess:
    """A Chrome process with a temporary profile, owned by a Browser.

    Call :meth:`start`, keep :meth:`drain_stderr` running in a task, and
    always :meth:`aclose` (which is shielded from cancellation).
    """

    def __init__(
        self,
        executable: str,
        *,
        headless: bool = True,
        args: Sequence[str] = (),
        no_sandbox: bool | None = None,
    ) -> None:
        self.executable = executable
        self.headless = headless
        self.args = tuple(args)
        self.no_sandbox = _running_as_root() if no_sandbox is None else no_sandbox
        self.profile_dir: str | None = None
        self.process: anyio.abc.Process | None = None
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=40)
        self._buffer = b""
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The browser process id, once started."""
        return self.process.pid if self.process is not None else None

    def command(self) -> list[str]:
        """The full command line used to start Chrome."""
        assert self.profile_dir is not None
        cmd = [self.executable, *DEFAULT_FLAGS, f"--user-data-dir={self.profile_dir}"]
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

    async def start(self, *, timeout: float) -> str:
        """Start Chrome and return its browser WebSocket URL.

        Raises:
            LaunchError: Chrome could not start, died, or printed no endpoint in time.
        """
        self.profile_dir = tempfile.mkdtemp(prefix="kobrowser-profile-")
        try:
            self.process = await anyio.open_process(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=sys.platform != "win32",
            )
        except OSError as exc:
            await self.aclose()
            raise LaunchError(f"could not start {self.executable}: {exc}") from exc
        try:
            with anyio.fail_after(timeout):
                while True:
                    line = await self._read_line()
                    if line is None:
                        code = await self.process.wait()
                        raise LaunchError(
                            f"Chrome ({self.executable}) exited with code {code} while starting",
                            stderr_tail=self.stderr_tail,
                        )
                    match = _DEVTOOLS_LINE.search(line)
                    if match:
                        return match.group(1)
        except TimeoutError:
            tail = self.stderr_tail
            await self.aclose()
            raise LaunchError(
                f"Chrome ({self.executable}) printed no DevTools endpoint within {timeout:g} s",
                stderr_tail=tail,
            ) from None
        except BaseException:
            await self.aclose()
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

    async def aclose(self, *, grace: float = 5.0) -> None:
        """Wait for Chrome to exit (after ``Browser.close``), else terminate, else kill.

        Removes the temporary profile. Shielded from cancellation; idempotent.
        """
        if self._closed:
            return
        self._closed = True
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
                await anyio.to_thread.run_sync(_remove_tree, self.profile_dir)


def _remove_tree(path: str) -> None:
    for _ in range(5):
        shutil.rmtree(path, ignore_errors=True)
        if not Path(path).exists():
            return
