"""The client's connection to a session daemon: connect, send one request, read its reply.

Standard library only. A request is sent at most once: after it is written,
a lost connection or a timeout is reported (:class:`ClientError`), never
retried.
"""

from __future__ import annotations

import _socket as socket  # not `socket`: its enum set-up costs ms on every command
import errno
import json
import os
import time

from kobrowser.cli._protocol import PROTOCOL_VERSION, SessionPaths, encode

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

__all__ = [
    "DEFAULT_TIMEOUT",
    "LONGEST_WAIT",
    "NATIVE_REPLY_ENV",
    "PROG",
    "ClientError",
    "connect",
    "exchange",
    "handed_reply",
    "new_request",
    "suppress_os_error",
]

PROG = "ko-browser"
#: Default command deadline in seconds (the library's default).
DEFAULT_TIMEOUT = 30.0
#: Set by the native client (kobrowser/cli/_native/ko_browser.c) when it hands a
#: reply it received over to this client: ``FD:REQUEST_ID``, the reply line in FD.
NATIVE_REPLY_ENV = "KOBROWSER_NATIVE_REPLY"
#: The longest the client waits for one answer, in seconds (about 115 days): a
#: socket refuses a timeout past time_t (``--timeout 1e300``, ``wait`` of 10**15 ms).
LONGEST_WAIT = 1e7


class ClientError(Exception):
    """A command failed on the client side; exit status 1 unless ``exit`` says otherwise."""

    def __init__(self, message: str, hint: str = "", kind: str = "ClientError", exit: int = 1):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.kind = kind
        self.exit = exit

    def to_dict(self) -> dict[str, Any]:
        error: dict[str, Any] = {"type": self.kind, "message": self.message, "exit": self.exit}
        if self.hint:
            error["hint"] = self.hint
        return error


class suppress_os_error:
    """``with suppress_os_error():`` ignores an OSError (contextlib costs an import)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        return kind is not None and issubclass(kind, OSError)


def new_request(cmd: str, args: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    """A request of this protocol version with a new id (unique across clients)."""
    return {
        "v": PROTOCOL_VERSION,
        "id": f"{os.getpid()}-{time.time_ns()}-{os.urandom(4).hex()}",
        "cmd": cmd,
        "args": args,
        "opts": opts,
    }


def connect(path: Path) -> tuple[socket.socket | None, bool]:
    """Connect to a daemon: (socket, False), or (None, stale) when none listens.

    ``stale`` is True when a socket file exists but nobody accepts on it
    (the daemon died without cleaning up).
    """
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except FileNotFoundError:
        sock.close()
        return None, False
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.ECONNREFUSED, errno.ENOTSOCK):
            return None, True
        raise ClientError(f"cannot reach the session daemon at {path}: {exc.strerror}") from None
    return sock, False


def exchange(
    sock: socket.socket,
    request: dict[str, Any],
    budget: float,
    paths: SessionPaths,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Send the request once and read its reply line; close the socket.

    With ``on_progress``, progress lines before the reply (see
    :mod:`kobrowser.cli._protocol`) go to it as they come, each within ``budget``.
    """
    try:
        return _send_and_read(sock, request, budget, paths, on_progress)
    finally:
        sock.close()


def handed_reply(handoff: str, request: dict[str, Any], paths: SessionPaths) -> dict[str, Any]:
    """The reply the native client received for ``request`` and handed over, checked
    and decoded as :func:`exchange` does a reply it reads (the request is not sent:
    the native client sent it, with the id given here)."""
    fd, _, request["id"] = handoff.partition(":")
    try:
        with open(int(fd), "rb") as file:
            data = file.read()
    except (OSError, ValueError) as exc:
        raise ClientError(f"cannot read the reply the native client handed over: {exc}") from None
    return _read_reply(None, request, 0.0, paths, data)[0]


def _send_and_read(
    sock: socket.socket,
    request: dict[str, Any],
    budget: float,
    paths: SessionPaths,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    sock.settimeout(min(budget, LONGEST_WAIT))
    try:
        sock.sendall(encode(request))
    except OSError as exc:
        # Nothing or part of a line reached the daemon: it cannot run a partial line.
        raise ClientError(
            f"lost the session daemon while sending ({exc.strerror or exc})",
            "run the command again",
        ) from None
    pending = b""
    while True:
        reply, pending = _read_reply(sock, request, budget, paths, pending)
        if on_progress is None or "ok" in reply or "progress" not in reply:
            return reply
        on_progress(reply)


def _read_reply(
    sock: socket.socket | None,
    request: dict[str, Any],
    budget: float,
    paths: SessionPaths,
    pending: bytes,
) -> tuple[dict[str, Any], bytes]:
    """The next line from the daemon, decoded and checked: (message, bytes after it).

    With no socket, the line is all in ``pending`` (a reply handed over).
    """
    chunks: list[bytes] = [pending] if pending else []
    try:
        while sock is not None and b"\n" not in pending:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            if b"\n" in chunk:
                break
    except TimeoutError:
        raise ClientError(
            f"no answer from session {paths.name!r} within {budget:g} s; the command was "
            "sent once and is not repeated, it may still finish",
            "check with `ko-browser get url` or `ko-browser snapshot`",
            "ClientTimeout",
        ) from None
    except OSError as exc:
        chunks = []
        reason = exc.strerror or str(exc)
    else:
        reason = "connection closed"
    data = b"".join(chunks)
    if b"\n" not in data:
        raise ClientError(
            f"the session daemon stopped before answering ({reason}); the command is not "
            f"repeated, it may or may not have run",
            f"see {paths.log}; the next command starts a new session",
            "DaemonLost",
        )
    data, pending = data.split(b"\n", 1)
    try:
        reply = json.loads(data)
    except ValueError:
        raise ClientError(
            "the session daemon sent a malformed answer", f"see {paths.log}"
        ) from None
    if not isinstance(reply, dict) or reply.get("v") != PROTOCOL_VERSION:
        version = reply.get("v") if isinstance(reply, dict) else None
        raise ClientError(
            f"the session daemon speaks protocol version {version}, this client {PROTOCOL_VERSION}",
            f"run `ko-browser --session {paths.name} close` and retry",
        )
    if reply.get("id") not in (request["id"], None):
        raise ClientError("the session daemon answered another request", f"see {paths.log}")
    return reply, pending
