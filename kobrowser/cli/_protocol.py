"""Wire protocol and file layout shared by the `ko-browser` client and daemon.

Standard library only: the client imports this on every command.

Files of a session ``NAME`` in the runtime directory (see :func:`runtime_dir`):

* ``NAME.sock``   the daemon's Unix socket (mode 0600)
* ``NAME.lock``   held (``flock``) by a client while it starts a daemon, so
  two clients never start two daemons for one session
* ``NAME.pid``    held (``flock``) by the daemon for its whole life; holds
  the daemon's state as JSON (pid, Chrome pid, profile directory), which the
  next daemon uses to clean up after one that was killed
* ``NAME.log``    the daemon's stderr (start-up errors, tracebacks)

Requests and responses are one JSON object per line (UTF-8)::

    -> {"v": 1, "id": "<unique>", "cmd": "click", "args": {"id": 5}, "opts": {"timeout": 10}}
    <- {"v": 1, "id": "<same>", "ok": true, "result": {...}, "text": "human output"}
    <- {"v": 1, "id": "<same>", "ok": false,
        "error": {"type": "StaleElementError", "message": "...", "hint": "..."}}

Commands that run many actions (``batch``, ``agent``) send progress lines
before their response, one per action or step; they carry ``progress``
(an object) and ``text``, never ``ok``::

    <- {"v": 1, "id": "<same>", "progress": {...}, "text": "click 5: clicked 5"}

``opts.text_only`` (true when the client prints text, not ``--json``) leaves the
result out of the reply (``"result": {}``), so a large one (a snapshot's node
tree) is neither built nor sent.

A connection may carry several requests in turn; each gets exactly one
response. A request id is executed at most once per daemon: a repeated id is
refused, never run again.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "PROTOCOL_VERSION",
    "PROXY_ENV",
    "ProtocolMismatch",
    "RuntimeDirError",
    "SessionPaths",
    "decode",
    "encode",
    "runtime_dir",
    "session_paths",
    "valid_session_name",
]

PROTOCOL_VERSION = 1
#: The environment variable that hands ``--proxy`` to a new daemon (its URL
#: may hold a password: a command line is visible to every user).
PROXY_ENV = "KOBROWSER_DAEMON_PROXY"
DEFAULT_SESSION = "default"
#: Seconds without a request after which a daemon closes Chrome and exits.
DEFAULT_IDLE_TIMEOUT = 1800.0
#: Longest accepted request line (a `fill` with a long text, an `eval` script).
MAX_LINE = 16 * 1024 * 1024

_SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class RuntimeDirError(Exception):
    """The runtime directory is unsafe (not ours, or open to others) or unusable."""


class ProtocolMismatch(ValueError):
    """The other side speaks another protocol version."""


def valid_session_name(name: str) -> bool:
    """Letters, digits, ``_ . -``; up to 64 characters; not starting with a dot."""
    return _SESSION_NAME.fullmatch(name) is not None


def runtime_dir(create: bool = True) -> Path:
    """The per-user directory of sockets and locks, created with mode 0700.

    ``$KOBROWSER_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/kobrowser``, else
    ``/tmp/kobrowser-$UID``. An existing directory must belong to this user;
    group/other permissions are removed from it.

    Raises:
        RuntimeDirError: it belongs to someone else or is not a directory.
    """
    override = os.environ.get("KOBROWSER_RUNTIME_DIR")
    if override:
        path = Path(override)
    else:
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        if xdg and os.path.isdir(xdg):
            path = Path(xdg) / "kobrowser"
        else:
            path = Path(f"/tmp/kobrowser-{os.getuid()}")
    if not create:
        return path
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise RuntimeDirError(f"cannot create {path}: {exc.strerror}") from None
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise RuntimeDirError(f"cannot use {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"{path} is not a directory; remove it or set KOBROWSER_RUNTIME_DIR")
    if info.st_uid != os.getuid():
        raise RuntimeDirError(
            f"{path} belongs to another user; set KOBROWSER_RUNTIME_DIR to a private directory"
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


class SessionPaths:
    """The files of one session (see the module docstring)."""

    __slots__ = ("directory", "lock", "log", "name", "pid", "socket")

    def __init__(self, directory: Path, name: str) -> None:
        self.directory = directory
        self.name = name
        self.socket = directory / f"{name}.sock"
        self.lock = directory / f"{name}.lock"
        self.pid = directory / f"{name}.pid"
        self.log = directory / f"{name}.log"


def session_paths(name: str, directory: Path | None = None) -> SessionPaths:
    return SessionPaths(runtime_dir() if directory is None else directory, name)


def encode(message: dict[str, Any]) -> bytes:
    """One JSON line (ASCII-safe, no embedded newline)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line; raise ValueError when it is not a JSON object of our version."""
    try:
        message = json.loads(line)
    except RecursionError:  # nested too deeply for the parser
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(message, dict):
        raise ValueError("a message must be a JSON object")
    version = message.get("v")
    if version != PROTOCOL_VERSION:
        raise ProtocolMismatch(f"protocol version {version!r}, expected {PROTOCOL_VERSION}")
    return message
