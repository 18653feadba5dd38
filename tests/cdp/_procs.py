"""Process inspection for the real-Chromium tests (Linux /proc)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio


def _stat(pid: str) -> tuple[str, int] | None:
    """(state, process group) of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return fields[0], int(fields[2])


def live_group_members(pgid: int) -> list[int]:
    """Pids of the non-zombie processes in process group ``pgid``."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(entry)
            if stat is not None and stat[1] == pgid and stat[0] != "Z":
                members.append(int(entry))
    return members


def live_processes_mentioning(text: str) -> list[int]:
    """Pids of non-zombie processes whose command line contains ``text``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        stat = _stat(entry)
        if text.encode() in cmdline and stat is not None and stat[0] != "Z":
            found.append(int(entry))
    return found


def leftovers(directory: Path) -> list[str]:
    """Names of the entries left in ``directory``."""
    return sorted(entry.name for entry in directory.iterdir())


def pid_alive(pid: int) -> bool:
    stat = _stat(str(pid))
    return stat is not None and stat[0] != "Z"


async def assert_gone(pgid: int | None = None, mentioning: str | None = None) -> None:
    """Assert that the process group / the processes naming ``mentioning`` are gone.

    SIGKILL is delivered asynchronously, so allow a generous moment before failing.
    """

    def lingering() -> bool:
        return bool(pgid is not None and live_group_members(pgid)) or bool(
            mentioning is not None and live_processes_mentioning(mentioning)
        )

    with anyio.move_on_after(10):
        while lingering():  # noqa: ASYNC110 - polling /proc, there is no event to wait on
            await anyio.sleep(0.05)
    if pgid is not None:
        assert not pid_alive(pgid), f"Chrome process {pgid} outlived the block"
        assert live_group_members(pgid) == [], f"processes of group {pgid} outlived the block"
    if mentioning is not None:
        assert live_processes_mentioning(mentioning) == []
