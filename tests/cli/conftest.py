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
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


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


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with make_runtime() as rt:
        yield rt


@pytest.fixture
def ko(runtime: Runtime) -> Ko:
    return Ko(runtime)
