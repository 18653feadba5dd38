"""The daemon's socket is the owner's: another user's process cannot connect to it.

Runs a small Python as ``nobody`` (``setpriv``, else ``runuser``), which the
tests can do as root; a control socket open to everyone shows that the same
process does connect when the permissions let it.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from .conftest import Ko, Runtime

CONNECT = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print("refused")
except OSError as exc:
    print(type(exc).__name__)
else:
    print("connected")
"""
PYTHON = shutil.which("python3", path="/usr/bin:/bin") or ""


def as_nobody() -> list[str] | None:
    """The command prefix that runs a program as ``nobody``, or None."""
    if os.geteuid() != 0:
        return None
    if shutil.which("setpriv"):
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    return None


def connect_as_nobody(path: Path) -> str:
    prefix = as_nobody()
    assert prefix is not None
    done = subprocess.run(
        [*prefix, PYTHON, "-c", CONNECT, str(path)],
        capture_output=True, text=True, timeout=60, check=False, cwd="/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


pytestmark = pytest.mark.skipif(
    as_nobody() is None or not PYTHON,
    reason="needs root and setpriv or runuser (to run a process as another user) "
    "and a system python3 that user may run",
)


def test_the_control_socket_open_to_everyone_accepts_nobody() -> None:
    directory = Path(tempfile.mkdtemp(prefix="kbs-", dir="/tmp"))
    try:
        directory.chmod(0o755)
        path = directory / "open.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(str(path))
            path.chmod(0o666)
            server.listen(1)
            assert connect_as_nobody(path) == "connected"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_another_user_cannot_connect_to_the_daemon(ko: Ko, runtime: Runtime) -> None:
    ko.ok("get", "url")
    sock = runtime.path("default", "sock")
    assert stat.S_IMODE(runtime.directory.stat().st_mode) == 0o700
    assert connect_as_nobody(sock) == "refused"  # the directory stops it
    # Even with the directory opened up, the socket itself (0600) refuses.
    runtime.directory.chmod(0o711)
    try:
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        assert connect_as_nobody(sock) == "refused"
    finally:
        runtime.directory.chmod(0o700)
    assert ko.ok("get", "url").strip() == "about:blank"  # the owner still can
