"""Chromes started by the tests themselves, to be used as remote CDP endpoints.

Each runs the same binary with the same closed-network flags as
``kobrowser.launch`` (``--remote-debugging-port=0``, a temporary profile),
in its own process group so a test can SIGKILL it whole.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from kobrowser.cdp import find_chrome
from kobrowser.cdp._launcher import DEFAULT_FLAGS

__all__ = ["EndpointChrome", "live_group_members", "pid_alive"]


class EndpointChrome:
    """A headless Chrome listening on a free DevTools port.

    Attributes:
        port: its DevTools port.
        http: ``http://127.0.0.1:PORT``.
        ws: its browser WebSocket URL.
    """

    def __init__(self, *, startup_timeout: float = 60.0) -> None:
        self.profile = tempfile.mkdtemp(prefix="kobrowser-test-endpoint-")
        command = [find_chrome(), *DEFAULT_FLAGS, f"--user-data-dir={self.profile}"]
        command += ["--headless=new", "--hide-scrollbars"]
        if os.geteuid() == 0:
            command.append("--no-sandbox")
        command.append("about:blank")
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        active = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + startup_timeout
        lines: list[str] = []
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                lines = active.read_text().split()
            except OSError:
                lines = []
            if len(lines) >= 2:
                break
            time.sleep(0.05)
        if len(lines) < 2:
            self.kill()
            raise RuntimeError("the endpoint Chrome did not start")
        self.port = int(lines[0])
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}{lines[1]}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL the browser and every process of its group; remove its profile."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> EndpointChrome:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def _stat(pid: str) -> tuple[str, int] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return fields[0], int(fields[2])


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process."""
    stat = _stat(str(pid))
    return stat is not None and stat[0] != "Z"


def live_group_members(pgid: int) -> list[int]:
    """Pids of the live processes of process group ``pgid``."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(entry)
            if stat is not None and stat[1] == pgid and stat[0] != "Z":
                members.append(int(entry))
    return members
