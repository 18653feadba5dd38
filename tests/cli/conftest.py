"""Fixtures for the `ko-browser` command tests: real subprocesses, daemons, Chromium.

``runtime``
    A private runtime directory (``KOBROWSER_RUNTIME_DIR``) for this test.
    On teardown every session in it is closed with ``ko-browser close``, and
    any process left (a daemon or Chrome whose environment names this
    directory) is killed, so no test leaves a daemon behind.

``make_runtime()``
    The same as a context manager, for a fixture of a wider scope (one
    session shared by a module's tests).

``ko``
    ``ko("open", url, session="a")`` runs the console script and returns the
    :class:`subprocess.CompletedProcess` (text mode, stdout/stderr captured).
    ``ko.popen(...)`` starts one without waiting.

``@pytest.mark.shared_session``
    For a test that is not about the session's life (start, stop, crashes,
    locks, files): its ``runtime`` and ``ko`` are the test module's one
    runtime, whose ``default`` session (daemon and Chrome) the module's marked
    tests share. Before each such test the session is left with one new blank
    tab (every other tab is closed, and with it the tab's snapshot, routes,
    console and dialogs); if that fails, the session is closed and the test
    starts a new one. Browser-wide state (cookies, storage, emulation of
    the whole browser) is not reset: tests that change it are not marked.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kobrowser.cli._protocol import PROTOCOL_VERSION, decode, encode

# A command on a shared, busy machine may take long; this only bounds a hang.
COMMAND_TIMEOUT = 120.0


def ko_command() -> list[str]:
    script = Path(sys.executable).with_name("ko-browser")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "kobrowser.cli"]


class Runtime:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, session: str, suffix: str) -> Path:
        return self.directory / f"{session}.{suffix}"

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env["KOBROWSER_RUNTIME_DIR"] = str(self.directory)
        # A daemon the teardown misses still goes away on its own.
        env.setdefault("KOBROWSER_IDLE_TIMEOUT", "300")
        env.pop("KOBROWSER_SESSION", None)
        env.update(extra)
        return env

    def processes(self) -> list[int]:
        """Pids of processes (daemons, Chrome) whose environment names this directory."""
        marker = f"KOBROWSER_RUNTIME_DIR={self.directory}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if marker in environ.split(b"\0") and not _is_zombie(int(entry.name)):
                found.append(int(entry.name))
        return found


def _is_zombie(pid: int) -> bool:
    """True when ``pid`` has exited whole: its main thread a zombie and no other thread left.

    A killed process's main thread can show as a zombie while its other
    threads still exit, holding its files (a daemon's listening socket
    accepts a connection then, and resets it).
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
            return False
        return len(os.listdir(f"/proc/{pid}/task")) <= 1
    except OSError:
        return True


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


def wait_gone(pid: int, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class Ko:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def argv(self, args: tuple[str, ...], session: str | None) -> list[str]:
        head = ko_command()
        if session is not None:
            head += ["--session", session]
        return head + list(args)

    def __call__(
        self,
        *args: str,
        session: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = COMMAND_TIMEOUT,
        cwd: str | os.PathLike[str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(args, session),
            capture_output=True,
            text=True,
            env=self.runtime.env(**(env or {})),
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
        )

    def ok(self, *args: str, session: str | None = None) -> str:
        """Run a command that must succeed; return its stdout."""
        result = self(*args, session=session)
        assert result.returncode == 0, (
            f"ko-browser {' '.join(args)} exited {result.returncode}\n"
            f"stdout: {result.stdout}\nstderr: {result.stderr}"
        )
        return result.stdout

    def json(self, *args: str, session: str | None = None) -> Any:
        return json.loads(self.ok("--json", *args, session=session))

    def popen(self, *args: str, session: str | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(args, session),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.runtime.env(),
            stdin=subprocess.DEVNULL,
        )

    def status(self, session: str) -> dict[str, Any]:
        sessions = self.json("session", "list")["result"]["sessions"]
        matching = [s for s in sessions if s["session"] == session]
        assert matching, f"session {session!r} not listed: {sessions}"
        return matching[0]


@contextlib.contextmanager
def make_runtime() -> Iterator[Runtime]:
    """A private runtime directory; every session and process in it is gone afterwards."""
    # Short path: a Unix socket path must stay under ~100 bytes.
    directory = Path(tempfile.mkdtemp(prefix="kbt-", dir="/tmp"))
    directory.chmod(0o700)
    rt = Runtime(directory)
    try:
        yield rt
    finally:
        ko = Ko(rt)
        for sock in directory.glob("*.sock"):
            with contextlib.suppress(subprocess.TimeoutExpired):
                ko("close", session=sock.name[: -len(".sock")], timeout=60)
        for pid in rt.processes():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in rt.processes():
            wait_gone(pid, 10)
        shutil.rmtree(directory, ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "shared_session: the test uses its module's shared `default` session "
        "(reset to one blank tab) instead of starting its own daemon and Chrome",
    )


@pytest.fixture(scope="module")
def shared_runtime() -> Iterator[Runtime]:
    """The runtime of a module's ``shared_session`` tests (see the module docstring)."""
    with make_runtime() as rt:
        yield rt


class _DaemonLine:
    """Requests to a running daemon over its socket, from this process.

    For the reset of a shared session, which is not what the tests check: it
    saves a Python start-up per command (several per test). The tests
    themselves run the real ``ko-browser`` command.
    """

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(60)
        self.pending = b""
        try:
            self.sock.connect(os.fspath(path))
        except OSError:
            self.sock.close()
            raise

    def close(self) -> None:
        self.sock.close()

    def call(self, cmd: str, **args: Any) -> Any:
        request = {
            "v": PROTOCOL_VERSION,
            "id": f"reset-{os.getpid()}-{time.time_ns()}",
            "cmd": cmd,
            "args": args,
            "opts": {"timeout": 30},
        }
        self.sock.sendall(encode(request))
        while b"\n" not in self.pending:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"the daemon closed the connection during {cmd}")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        reply = decode(line)
        assert reply.get("id") == request["id"] and reply.get("ok"), (cmd, reply)
        return reply["result"]


def _reset_shared(rt: Runtime) -> None:
    """Leave the shared session (if it runs) with one new blank tab, else close it."""
    if not rt.path("default", "sock").exists():
        return
    try:
        line = _DaemonLine(rt.path("default", "sock"))
        try:
            line.call("tab.new", url=None)
            for _ in range(len(line.call("tab.list")["tabs"]) - 1):
                line.call("tab.close", index=1)  # the new tab is the last one: close the others
            assert [t["url"] for t in line.call("tab.list")["tabs"]] == ["about:blank"]
        finally:
            line.close()
    except (AssertionError, OSError, KeyError, ValueError):
        Ko(rt)("close", timeout=60)  # broken by an earlier test: start anew


@pytest.fixture
def runtime(request: pytest.FixtureRequest) -> Iterator[Runtime]:
    if request.node.get_closest_marker("shared_session") is not None:
        rt: Runtime = request.getfixturevalue("shared_runtime")
        _reset_shared(rt)
        yield rt
        return
    with make_runtime() as rt:
        yield rt


@pytest.fixture
def ko(runtime: Runtime) -> Ko:
    return Ko(runtime)
