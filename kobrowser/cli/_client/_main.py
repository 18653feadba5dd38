"""The `ko-browser` client's entry: parse, send one request to the session daemon, print.

This is the fast path of every command: standard library only (no anyio,
aiohttp, msgspec or kobrowser library modules), so a command with a warm
daemon costs little more than Python's own start-up. The daemon is started
here when the session has none (:mod:`._starting`, imported only then);
``scrape`` and ``mcp`` are handed to their foreground modules
(:mod:`kobrowser.cli._scrape`, :mod:`kobrowser.cli._mcp`), imported only for them.
"""

from __future__ import annotations

import json
import os
import sys
import time

from kobrowser.cli._client._argtypes import no_such_directory, no_such_file
from kobrowser.cli._client._connection import (
    DEFAULT_TIMEOUT,
    NATIVE_REPLY_ENV,
    PROG,
    ClientError,
    connect,
    exchange,
    handed_reply,
    new_request,
    suppress_os_error,
)
from kobrowser.cli._client._parser import command_word, parse
from kobrowser.cli._protocol import RuntimeDirError, SessionPaths, runtime_dir, session_paths

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["ANSWER_GRACE", "main", "run", "session_list"]

#: Seconds the client waits past the command's deadline for the daemon's answer
#: (``$KOBROWSER_ANSWER_GRACE`` overrides it).
ANSWER_GRACE = 15.0


def main(argv: list[str] | None = None) -> int:
    """Run one command line; return the exit status (0, 1 failed, 2 bad usage)."""
    argv = sys.argv[1:] if argv is None else argv
    if command_word(argv) == "scrape":  # runs here in the foreground, not in the daemon
        from kobrowser.cli._scrape import main as scrape_main

        return scrape_main(argv)
    try:
        cmd, args, options = parse(argv, PROG)
    except SystemExit as exc:  # --help (0) or bad usage (2)
        return exc.code if isinstance(exc.code, int) else 2
    if cmd == "mcp":  # a server in the foreground, not a daemon request
        from kobrowser.cli._mcp import main as mcp_main

        return mcp_main(args, options)
    as_json = options["json"]
    if cmd == "view":
        import signal

        signal.signal(signal.SIGTERM, signal.default_int_handler)  # stops it as Ctrl-C does
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
        if cmd == "view":  # how a view is stopped: Ctrl-C (or SIGTERM, below)
            return 0
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
    if cmd in ("screenshot", "pdf", "diff"):
        _seeing_paths(cmd, args)
    if cmd == "trace.stop":
        args["path"] = os.path.abspath(args["path"])
        folder = os.path.dirname(args["path"])
        if not os.path.isdir(folder):
            raise ClientError(f"trace stop: {no_such_directory(folder)}", "check the path")
    if cmd in ("network.har", "record.stop"):
        args["path"] = os.path.abspath(args["path"])
    if cmd in ("state.save", "state.load"):
        args["path"] = os.path.abspath(args["path"])
        if cmd == "state.load" and not os.path.isfile(args["path"]):
            raise ClientError(f"state load: {no_such_file(args['path'])}", "check the path")
    streamed = cmd in ("batch", "agent", "view")
    if streamed:
        from kobrowser.cli._client._streaming import prepare

        args = prepare(cmd, args)
    timeout = options["timeout"]
    start: dict[str, Any] = {}
    if options["headed"]:
        start["headed"] = True
    if options["executable_path"]:
        start["executable_path"] = os.path.abspath(options["executable_path"])
    if options["cdp"]:
        start["cdp"] = options["cdp"]
    if options["proxy"]:
        if options["cdp"]:
            raise ClientError(
                "--proxy goes with a browser the session launches, not with --cdp",
                "give the proxy to the browser behind the endpoint",
                exit=2,
            )
        start["proxy"] = options["proxy"]
    if options["block"]:
        start["block"] = options["block"]
    if options["ids"]:
        start["ids"] = options["ids"]
    request_opts: dict[str, Any] = {}
    if timeout is not None:
        request_opts["timeout"] = timeout
    if not options["json"] and not streamed and cmd != "close":
        # The result is not printed: not sent either. (Not for `close`, which
        # stops a daemon of an older kobrowser too, one that knows no text_only.)
        request_opts["text_only"] = True
    if start:
        request_opts["start"] = start
    request = new_request(cmd, args, request_opts)
    handoff = os.environ.pop(NATIVE_REPLY_ENV, None)
    if handoff is not None:  # the native client sent it and got this reply
        return _outcome(handed_reply(handoff, request, paths))

    sock, stale = connect(paths.socket)
    if sock is None and cmd == "close":
        from kobrowser.cli._client._starting import clean_dead

        sock = clean_dead(paths)
        if sock is None:
            return {"closed": False}, f"no session {paths.name!r} running"
    if sock is None:
        from kobrowser.cli._client._starting import start_daemon

        sock = start_daemon(paths, options, replace_stale=stale)
    budget = (timeout or DEFAULT_TIMEOUT) + _answer_grace()
    if cmd == "wait" and isinstance(args.get("ms"), int):
        # capped: a pause past a float's range (ms / 1000 would raise
        # OverflowError here) is refused by the daemon's check
        budget += min(args["ms"], 10**15) / 1000
    on_progress: Callable[[dict[str, Any]], None] | None = None
    if streamed:
        from kobrowser.cli._client._streaming import STREAM_GRACE, progress_printer

        budget += STREAM_GRACE
        on_progress = progress_printer(options["json"], _write)
    return _outcome(exchange(sock, request, budget, paths, on_progress))


def _outcome(reply: dict[str, Any]) -> tuple[Any, str]:
    """(result, text) of a reply, or its error raised as a ClientError."""
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
        raise ClientError(f"{cmd}: {no_such_directory(folder)}", "check the path")
    args["path"] = path


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
            request = new_request("status", {}, {})
            try:
                reply = exchange(sock, request, 10.0, SessionPaths(directory, name))
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
