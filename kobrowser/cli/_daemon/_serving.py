"""Serve the session socket's connections, one request line at a time.

:class:`RequestServer` is the daemon's protocol half: it reads each line
(refusing other users, over-long lines and repeated request ids), checks
it (:mod:`._requests`), answers ``status`` and ``close`` at once, and runs
every other command of :data:`._registry.COMMANDS` under its deadline plus
:data:`GRACE` (commands that change a tab one at a time), turning what it
raised into an error reply. Streaming commands send progress lines first; a
client that left cancels its command. The process's life (Chrome, the
socket, signals, idling) is :class:`~._process.Daemon`'s, seen here through
the :class:`Session` protocol.
"""

from __future__ import annotations

import collections
import os
import socket
import struct
import sys
import time
import traceback
from typing import Any, Protocol

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

import kobrowser
from kobrowser._validate._proxy import masked
from kobrowser.cli._daemon._context import Args, Context
from kobrowser.cli._daemon._errors import CommandError, describe_error
from kobrowser.cli._daemon._registry import COMMANDS, run_command
from kobrowser.cli._daemon._requests import MAX_ID, RequestError, check_request
from kobrowser.cli._protocol import MAX_LINE, PROTOCOL_VERSION, SessionPaths, decode, encode

__all__ = ["GRACE", "REPORT", "SEEN_IDS", "RequestServer", "Session", "log"]

#: Seconds a command may run past its own timeout before the daemon gives up on it.
GRACE = 5.0
#: How to report a bug: said with every internal error (in the reply and the log).
REPORT = (
    "a bug: please report it on the kobrowser issue tracker with the command line, "
    "the kobrowser version and this traceback"
)
#: Request ids remembered to refuse a repeated request.
SEEN_IDS = 4096


def log(message: str) -> None:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"{stamp} [{os.getpid()}] {message}", file=sys.stderr, flush=True)


class Session(Protocol):
    """What the server needs of the daemon process (:class:`~._process.Daemon`)."""

    paths: SessionPaths
    browser: kobrowser.Browser | None
    stopping: bool
    last_activity: float
    inflight: set[anyio.CancelScope]
    exit_event: anyio.Event

    def config(self) -> dict[str, Any]:
        """How the session was started: ``headed``, ``executable_path``, ``cdp``, ``proxy``..."""
        ...

    async def status(self) -> dict[str, Any]:
        """The answer to ``status``."""
        ...

    async def stop(self, reason: str) -> None:
        """Refuse new commands, cancel running ones, close Chrome."""
        ...

    def spawn_stop(self, reason: str) -> None:
        """Stop beside the reply being sent."""
        ...

    def browser_gone(self) -> bool:
        """True when the connection to Chrome is lost."""
        ...


class RequestServer:
    """Serves the connections of one daemon's socket."""

    def __init__(self, daemon: Session) -> None:
        self.daemon = daemon
        self.seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        self.tab_lock = anyio.Lock()

    async def serve_connection(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            if not _same_user(stream):
                return
            reader = BufferedByteReceiveStream(stream)
            while True:
                try:
                    line = await reader.receive_until(b"\n", MAX_LINE)
                except anyio.DelimiterNotFound:
                    await self.send(
                        stream, self.error_reply(None, "ProtocolError", "line too long")
                    )
                    return
                except (
                    anyio.EndOfStream,
                    anyio.IncompleteRead,
                    anyio.ClosedResourceError,
                    anyio.BrokenResourceError,
                ):
                    return
                try:
                    reply, after = await self.handle_line(line, stream)
                except Exception:  # never let one request take the daemon down
                    log(f"internal error in the daemon ({REPORT}):\n{traceback.format_exc()}")
                    reply, after = (
                        self.error_reply(
                            None,
                            "InternalError",
                            "internal error in the daemon (a bug in kobrowser)",
                            self.report_hint(),
                        ),
                        None,
                    )
                if not await self.send(stream, reply):
                    return
                if after is not None:
                    self.daemon.exit_event.set()
                    return

    async def send(self, stream: anyio.abc.SocketStream, message: dict[str, Any]) -> bool:
        try:
            data = encode(message)
        except (TypeError, ValueError, RecursionError):  # not JSON: a bug, not a dead daemon
            log(f"internal error in the daemon ({REPORT}):\n{traceback.format_exc()}")
            data = encode(
                self.error_reply(
                    message.get("id"),
                    "InternalError",
                    "internal error in the daemon (a bug in kobrowser)",
                    self.report_hint(),
                )
            )
        try:
            await stream.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True

    @staticmethod
    def error_reply(
        request_id: Any, kind: str, message: str, hint: str = "", exit: int = 1
    ) -> dict[str, Any]:
        error: dict[str, Any] = {"type": kind, "message": message, "exit": exit}
        if hint:
            error["hint"] = hint
        return {"v": PROTOCOL_VERSION, "id": request_id, "ok": False, "error": error}

    async def handle_line(
        self, line: bytes, stream: anyio.abc.SocketStream | None = None
    ) -> tuple[dict[str, Any], str | None]:
        """One request -> (reply, "stop" when the daemon should stop after replying)."""
        try:
            request = decode(line)
        except ValueError as exc:
            return self.error_reply(
                None,
                "ProtocolError",
                f"bad request: {exc}; this daemon speaks protocol version {PROTOCOL_VERSION}",
                "run `ko-browser close` and retry with the same kobrowser version",
                exit=2,
            ), None
        try:
            request_id, cmd, args, opts = check_request(request)
        except RequestError as exc:
            raw_id = request.get("id")
            echo = raw_id if isinstance(raw_id, str) and len(raw_id) <= MAX_ID else None
            hint = "run `ko-browser --help`; use the same kobrowser for client and daemon"
            return self.error_reply(echo, "UsageError", str(exc), hint, exit=2), None
        if request_id in self.seen:
            return self.error_reply(
                request_id,
                "DuplicateRequest",
                f"request {request_id} was already received; it is not run twice",
            ), None
        self.seen[request_id] = None
        while len(self.seen) > SEEN_IDS:
            self.seen.popitem(last=False)

        if cmd == "status":
            return self.reply(request_id, await self.daemon.status(), ""), None
        if cmd == "close":
            await self.daemon.stop("close command")
            return self.reply(request_id, {"closed": True}, "closed"), "stop"
        if self.daemon.stopping:
            return self.error_reply(
                request_id,
                "SessionClosed",
                "the session is closing",
                "run the command again to start a new session",
            ), None
        mismatch = self.config_mismatch(opts)
        if mismatch:
            return self.error_reply(
                request_id,
                "SessionMismatch",
                mismatch,
                f"run `ko-browser --session {self.daemon.paths.name} close` first to start it anew",
            ), None
        return await self.execute(request_id, cmd, args, opts, stream), None

    def config_mismatch(self, opts: dict[str, Any]) -> str:
        wanted = opts.get("start") or {}
        mine = self.daemon.config()
        for key in ("headed", "executable_path", "cdp", "proxy", "block", "ids"):
            if key in wanted and wanted[key] != mine[key]:
                option = "--" + key.replace("_", "-")
                have, want = mine[key], wanted[key]
                if key == "proxy":  # never echo a password
                    have = masked(have) if isinstance(have, str) else have
                    want = masked(want) if isinstance(want, str) else want
                return (
                    f"session {self.daemon.paths.name!r} is already running with {option}="
                    f"{have!r}, not {want!r}"
                )
        return ""

    def reply(self, request_id: str, result: dict[str, Any], text: str) -> dict[str, Any]:
        return {"v": PROTOCOL_VERSION, "id": request_id, "ok": True, "result": result, "text": text}

    async def execute(
        self,
        request_id: str,
        cmd: str,
        args: dict[str, Any],
        opts: dict[str, Any],
        stream: anyio.abc.SocketStream | None = None,
    ) -> dict[str, Any]:
        assert self.daemon.browser is not None
        timeout: float | None = opts.get("timeout")  # checked by check_request
        budget: float | None = (timeout or self.daemon.browser.timeout) + GRACE
        if cmd == "wait" and isinstance(args.get("ms"), int):
            # capped: ms / 1000 overflows past a float; Tab.wait refuses such a pause
            budget = (budget or 0) + min(args["ms"], 10**15) / 1000
        command = COMMANDS.get(cmd)
        if command is not None and command.streaming:
            budget = None  # each action and model call has its own deadline
        scope = anyio.CancelScope()

        async def progress(result: dict[str, Any], text: str) -> None:
            """Send a progress line; a client that left cancels the command."""
            self.daemon.last_activity = anyio.current_time()
            line = {"v": PROTOCOL_VERSION, "id": request_id, "progress": result, "text": text}
            if stream is None or not await self.send(stream, line):
                scope.cancel()

        text_only = bool(opts.get("text_only"))
        ctx = Context(
            self.daemon.browser,
            timeout,
            progress if stream is not None else None,
            text_only=text_only,
        )
        self.daemon.last_activity = anyio.current_time()
        self.daemon.inflight.add(scope)
        try:
            with scope:
                with anyio.fail_after(budget):
                    if command is not None and command.serialized:
                        async with self.tab_lock:
                            result, text = await run_command(ctx, cmd, Args(args))
                    else:
                        result, text = await run_command(ctx, cmd, Args(args))
                return self.reply(request_id, {} if text_only else result, text)
            return self.error_reply(
                request_id,
                "SessionClosed",
                "the session was closed while this command ran",
                "run the command again to start a new session",
            )
        except TimeoutError as exc:
            if isinstance(exc, kobrowser.KoBrowserError):
                reply = describe_error(exc)
            else:
                reply = describe_error(TimeoutError(f"{cmd}: no result within {budget or 0:g} s"))
            return {"v": PROTOCOL_VERSION, "id": request_id, "ok": False, "error": reply}
        except Exception as exc:
            error = describe_error(exc)
            known = isinstance(exc, kobrowser.KoBrowserError | CommandError)
            if not known and error["exit"] != 2:
                log(f"internal error in {cmd} ({REPORT}):\n{traceback.format_exc()}")
                error["message"] = f"internal error (a bug in kobrowser): {error['message']}"
                error["hint"] = self.report_hint()
            if isinstance(exc, kobrowser.ConnectionClosedError) or self.daemon.browser_gone():
                self.daemon.spawn_stop("Chrome went away")
            return {"v": PROTOCOL_VERSION, "id": request_id, "ok": False, "error": error}
        finally:
            self.daemon.inflight.discard(scope)
            self.daemon.last_activity = anyio.current_time()

    def report_hint(self) -> str:
        return (
            "please report it on the kobrowser issue tracker with the command line "
            f"and the traceback in {self.daemon.paths.log}"
        )


def _same_user(stream: anyio.abc.SocketStream) -> bool:
    """Serve only this user (the 0700 directory already keeps others out)."""
    raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)
    try:
        creds = raw.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):  # not Linux: rely on the directory's mode
        return True
    _, uid, _ = struct.unpack("3i", creds)
    return uid in (os.getuid(), 0)
