"""Temporary Chrome profiles: named after their owner, swept when the owner is dead.

A launched Chrome gets a fresh profile ``<tmp>/kobrowser-profile-<pid>-<random>``,
where ``<pid>`` is the Python process that launched it. Every exit path the
library controls removes it (closing the browser, a failed start, a
cancelled launch, and the interpreter's normal exit through ``atexit``). A
process killed outright (SIGKILL, a crash) cannot: its profile stays on disk
until a later :func:`sweep_stale_profiles`, which ``launch()`` runs, removes
every profile whose owner process and whose Chrome (the pid in its
``SingletonLock``) are both gone; the same for the temporary download
directories (``kobrowser-downloads-<pid>-<random>``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

__all__ = ["PROFILE_PREFIX", "make_profile_dir", "remove_tree", "sweep_stale_profiles"]

PROFILE_PREFIX = "kobrowser-profile-"
# profiles, and the download directories launch() makes beside them
_OWNED = re.compile(r"kobrowser-(?:profile|downloads)-(\d+)-")


def make_profile_dir() -> str:
    """A new empty profile directory owned by this process."""
    return tempfile.mkdtemp(prefix=f"{PROFILE_PREFIX}{os.getpid()}-")


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists and is not a zombie (a pid reused counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: trust kill(0)
    return stat.rsplit(")", 1)[-1].split()[:1] != ["Z"]


def _locked(profile: Path) -> bool:
    """Whether a Chrome may still use the profile: its SingletonLock (``host-pid``)
    names a live process, or another host (a container sharing the temp dir)."""
    try:
        target = os.readlink(profile / "SingletonLock")
    except OSError:
        return False
    host, _, pid = target.rpartition("-")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # not ours to judge
    return pid_alive(int(pid))


def sweep_stale_profiles(directory: str | None = None) -> list[str]:
    """Remove the profiles of dead owners from ``directory`` (default: the temp dir).

    A profile is stale when the process named in its directory name is gone
    and no Chrome holds its ``SingletonLock``. Profiles of live processes,
    of other users, locked from another host, and in the old unnamed format
    are left alone.

    Returns:
        The paths removed.
    """
    root = Path(directory or tempfile.gettempdir())
    removed: list[str] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if not entry.is_dir(follow_symlinks=False) or entry.stat().st_uid != os.getuid():
                continue
        if pid_alive(int(match.group(1))):
            continue
        path = Path(entry.path)
        if _locked(path):
            continue
        if remove_tree(str(path)):
            removed.append(str(path))
    return removed


def remove_tree(path: str) -> bool:
    """Remove a directory tree (retrying: Chrome may still be writing). True when gone."""
    for _ in range(5):
        shutil.rmtree(path, ignore_errors=True)
        if not Path(path).exists():
            return True
    return False
