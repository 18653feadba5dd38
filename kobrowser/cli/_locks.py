"""Session locks and the state a daemon leaves for its successor (stdlib only).

The daemon holds ``NAME.pid`` locked for its whole life and writes into it
its pid, its Chrome's pid and Chrome's profile directory. When a daemon is
killed (SIGKILL, OOM) its Chrome keeps running; whoever next takes the lock
(the next daemon, or ``ko-browser close``) kills that Chrome and removes its
profile with :func:`reap_previous`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

__all__ = ["LockBusy", "chrome_profile_dir", "lock_file", "reap_previous"]


class LockBusy(Exception):
    """The lock is held by another process past the deadline."""


def lock_file(path: Path, wait: float) -> int:
    """Open and ``flock`` ``path`` (polling up to ``wait`` s); return the fd.

    Closing the fd releases the lock; so does the death of the process.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockBusy(str(path)) from None
            time.sleep(0.02)
        except BaseException:
            os.close(fd)
            raise


def chrome_profile_dir(chrome_pid: int) -> str | None:
    """The ``--user-data-dir`` of a running process (Linux /proc), else None."""
    try:
        argv = Path(f"/proc/{chrome_pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    for arg in argv:
        if arg.startswith(b"--user-data-dir="):
            return arg.split(b"=", 1)[1].decode(errors="replace")
    return None


def reap_previous(state_text: str) -> str:
    """Kill the Chrome of a daemon that died without closing it; remove its profile.

    Only a process whose command line still names the recorded profile is
    killed (never a process that merely reuses the pid). Returns what was done.
    """
    try:
        state = json.loads(state_text)
    except ValueError:
        return ""
    if not isinstance(state, dict):
        return ""
    done = ""
    chrome = state.get("chrome_pid")
    profile = state.get("profile_dir")
    if (
        isinstance(chrome, int)
        and isinstance(profile, str)
        and chrome_profile_dir(chrome) == profile
    ):
        done = f"killed Chrome {chrome} left behind by daemon {state.get('pid')}"
        with contextlib.suppress(OSError):
            os.killpg(chrome, signal.SIGKILL)  # Chrome leads its own process group
        with contextlib.suppress(OSError):
            os.kill(chrome, signal.SIGKILL)
    if isinstance(profile, str):
        path = Path(profile)
        if path.name.startswith("kobrowser-profile-") and path.parent == Path(
            tempfile.gettempdir()
        ):
            for _ in range(50):  # helpers may write for a moment after the kill
                shutil.rmtree(path, ignore_errors=True)
                if not path.exists():
                    break
                time.sleep(0.02)
    return done
