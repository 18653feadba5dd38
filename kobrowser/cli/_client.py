"""The `ko-browser` client: parse, send one request to the session daemon, print.

This is the fast path of every command: standard library only (no anyio,
aiohttp, msgspec or kobrowser library modules), so a command with a warm
daemon costs little more than Python's own start-up. The daemon is started
here when the session has none (:mod:`._starting`, imported only then).

A request is sent at most once: after it is written, a lost connection or a
timeout is reported, never retried.
"""

from __future__ import annotations

import _socket as socket  # not `socket`: its enum set-up costs ms on every command
import errno
import json
import os
import sys
import time
from pathlib import Path

from kobrowser.cli._parser import command_word, parse
from kobrowser.cli._protocol import (
    PROTOCOL_VERSION,
    RuntimeDirError,
    SessionPaths,
    encode,
    runtime_dir,
    session_paths,
)

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "DEFAULT_TIMEOUT",
    "LONGEST_WAIT",
    "PROG",
    "ClientError",
    "connect",
    "main",
    "suppress_os_error",
]

PROG = "ko-browser"
#: Default command deadline in seconds (the library's default).
DEFAULT_TIMEOUT = 30.0
#: Seconds the client waits past the command's deadline for the daemon's answer
#: (``$KOBROWSER_ANSWER_GRACE`` overrides it).
ANSWER_GRACE = 15.0
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


def main(argv: list[str] | None = None) -> int:
    """Run one command line; return the exit status (0, 1 failed, 2 bad usage)."""
    argv = sys.argv[1:] if argv is None else argv
    if command_word(argv) == "scrape":  # runs here in the foreground, not in the daemon
        from kobrowser.scrape._cli import main as scrape_main

        return scrape_main(argv)
    try:
        cmd, args, options = parse(argv, PROG)
    except SystemExit as exc:  # --help (0) or bad usage (2)
        return exc.code if isinstance(exc.code, int) else 2
    if cmd == "mcp":  # a server in the foreground, not a daemon request
        from kobrowser.mcp._main import main as mcp_main

        return mcp_main(args, options)
    as_json = options["json"]
    try:
        if cmd == "session.list":
            result, text = session_list()
        else:
            result, text = run(cmd, args, options)
    except ClientError as exc:
        return _fail(exc.to_dict(), cmd, as_json)
    except RuntimeDirError as exc:
        return _fail(ClientError(str(exc)).to_dict(), cmd, as_json)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted; a command already sent may still finish\n")
        return 130
    if as_json:
        _write(json.dumps({"ok": True, "command": _cmd_words(cmd), "result": result}) + "\n")
    else:
        _write(text + "\n")
    return 0


def _cmd_words(cmd: str) -> str:
    return cmd.replace(".", " ")


def _write(text: str) -> None:
    try:
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError:  # a lone surrogate from the page, or a narrow locale
            encoding = sys.stdout.encoding or "utf-8"
            sys.stdout.write(text.encode(encoding, "backslashreplace").decode(encoding))
        sys.stdout.flush()
    except BrokenPipeError:  # `ko-browser snapshot | head`
        with suppress_os_error():
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class suppress_os_error:
    """``with suppress_os_error():`` ignores an OSError (contextlib costs an import)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        return kind is not None and issubclass(kind, OSError)


def _fail(error: dict[str, Any], cmd: str, as_json: bool) -> int:
    message = error.get("message") or "failed"
    hint = error.get("hint")
    line = f"{PROG}: {message.rstrip('.')}; {hint}" if hint else f"{PROG}: {message}"
    line = " ".join(line.split()) + "\n"
    try:
        sys.stderr.write(line)
    except UnicodeEncodeError:  # a lone surrogate (a path argument), or a narrow locale
        encoding = sys.stderr.encoding or "utf-8"
        sys.stderr.write(line.encode(encoding, "backslashreplace").decode(encoding))
    if as_json:
        _write(json.dumps({"ok": False, "command": _cmd_words(cmd), "error": error}) + "\n")
    code = error.get("exit", 1)
    return code if code in (1, 2) else 1


# -- one command -------------------------------------------------------------


def run(cmd: str, args: dict[str, Any], options: dict[str, Any]) -> tuple[Any, str]:
    """Send one command to the session's daemon (starting it if needed)."""
    paths = session_paths(options["session"])
    if cmd == "upload":
        files = [os.path.abspath(f) for f in args["files"]]
        for path in files:
            if not os.path.isfile(path):
                raise ClientError(
                    f"files: no such file to upload: {path!r}",
                    "check the path",
                    "InvalidArgumentError",
                    exit=2,
                )
        args["files"] = files
    if cmd in ("screenshot", "pdf", "diff"):
        _seeing_paths(cmd, args)
    if cmd in ("state.save", "state.load"):
        args["path"] = os.path.abspath(args["path"])
        if cmd == "state.load" and not os.path.isfile(args["path"]):
            raise ClientError(f"state load: no such file: {args['path']}", "check the path")
    streamed = cmd in ("batch", "agent")
    if streamed:
        from kobrowser.cli._streaming import prepare

        args = prepare(cmd, args)
    timeout = options["timeout"]
    start: dict[str, Any] = {}
    if options["headed"]:
        start["headed"] = True
    if options["executable_path"]:
        start["executable_path"] = os.path.abspath(options["executable_path"])
    if options["cdp"]:
        start["cdp"] = options["cdp"]
    request_opts: dict[str, Any] = {}
    if timeout is not None:
        request_opts["timeout"] = timeout
    if start:
        request_opts["start"] = start
    request = {
        "v": PROTOCOL_VERSION,
        "id": f"{os.getpid()}-{time.time_ns()}-{os.urandom(4).hex()}",
        "cmd": cmd,
        "args": args,
        "opts": request_opts,
    }

    sock, stale = connect(paths.socket)
    if sock is None and cmd == "close":
        from kobrowser.cli._starting import clean_dead

        sock = clean_dead(paths)
        if sock is None:
            return {"closed": False}, f"no session {paths.name!r} running"
    if sock is None:
        from kobrowser.cli._starting import start_daemon

        sock = start_daemon(paths, options, replace_stale=stale)
    budget = (timeout or DEFAULT_TIMEOUT) + _answer_grace()
    if cmd == "wait" and isinstance(args.get("ms"), int):
        # capped: a pause past a float's range (ms / 1000 would raise
        # OverflowError here) is refused by the daemon's check
        budget += min(args["ms"], 10**15) / 1000
    on_progress: Callable[[dict[str, Any]], None] | None = None
    if streamed:
        from kobrowser.cli._streaming import STREAM_GRACE, progress_printer

        budget += STREAM_GRACE
        on_progress = progress_printer(options["json"], _write)
    reply = _exchange(sock, request, budget, paths, on_progress)
    if reply.get("ok"):
        return reply.get("result"), reply.get("text") or ""
    error = reply.get("error") or {"message": "the daemon refused the request"}
    raise ClientError(
        error.get("message", "failed"),
        error.get("hint", ""),
        error.get("type", "Error"),
        error.get("exit", 1),
    )


def _answer_grace() -> float:
    """``$KOBROWSER_ANSWER_GRACE`` seconds (>= 0) if set and valid, else :data:`ANSWER_GRACE`."""
    try:
        grace = float(os.environ.get("KOBROWSER_ANSWER_GRACE") or ANSWER_GRACE)
    except ValueError:
        return ANSWER_GRACE
    return grace if 0 <= grace < float("inf") else ANSWER_GRACE


def _seeing_paths(cmd: str, args: dict[str, Any]) -> None:
    """Absolute output paths (the daemon runs in /) and the baseline's text."""
    if cmd == "diff":
        baseline = args.get("baseline")
        if baseline is not None:
            try:
                with open(baseline, encoding="utf-8") as file:
                    args["baseline_text"] = file.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise ClientError(
                    f"diff: cannot read {baseline}: {exc}", "check the path"
                ) from None
        return
    path = args.get("path")
    if path is None:
        path = time.strftime("screenshot-%Y%m%d-%H%M%S.png")
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise ClientError(f"{cmd}: no such directory: {folder}", "check the path")
    args["path"] = path


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


def _exchange(
    sock: socket.socket,
    request: dict[str, Any],
    budget: float,
    paths: SessionPaths,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Send the request once and read its reply line; close the socket.

    With ``on_progress``, progress lines before the reply (see
    :mod:`._protocol`) go to it as they come, each within ``budget``.
    """
    try:
        return _send_and_read(sock, request, budget, paths, on_progress)
    finally:
        sock.close()


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
    sock: socket.socket,
    request: dict[str, Any],
    budget: float,
    paths: SessionPaths,
    pending: bytes,
) -> tuple[dict[str, Any], bytes]:
    """The next line from the daemon, decoded and checked: (message, bytes after it)."""
    chunks: list[bytes] = [pending] if pending else []
    try:
        while b"\n" not in pending:
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


# -- session list ---------------------------------------------------------------


def session_list() -> tuple[Any, str]:
    directory = runtime_dir()
    sessions: list[dict[str, Any]] = []
    for sock_path in sorted(directory.glob("*.sock")):
        name = sock_path.name[: -len(".sock")]
        entry: dict[str, Any] = {"session": name}
        sock, stale = connect(sock_path)
        if sock is None:
            entry["state"] = "dead" if stale else "gone"
        else:
            request = {
                "v": PROTOCOL_VERSION,
                "id": f"{os.getpid()}-{time.time_ns()}-{os.urandom(4).hex()}",
                "cmd": "status",
                "args": {},
                "opts": {},
            }
            try:
                reply = _exchange(sock, request, 10.0, SessionPaths(directory, name))
            except ClientError as exc:
                entry.update(state="not answering", error=exc.message)
            else:
                entry.update(reply.get("result") or {})
                entry["state"] = "stopping" if entry.get("stopping") else "running"
        sessions.append(entry)
    lines = []
    for s in sessions:
        if s["state"] == "running":
            detail = f"pid {s.get('pid')}, {s.get('tabs', 0)} tab(s)"
            if s.get("url"):
                detail += f", {s['url']}"
            lines.append(f"{s['session']}: {detail}")
        else:
            lines.append(f"{s['session']}: {s['state']}")
    return {"sessions": sessions}, "\n".join(lines) if lines else "no sessions"
