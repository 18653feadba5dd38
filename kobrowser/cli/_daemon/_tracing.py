"""Daemon side of ``ko-browser trace start`` / ``trace stop FILE``: the session's trace.

The trace is a recorder of the whole browser (every tab), so every action
the session makes from ``start`` on is a step: CLI commands, ``batch``
lines and ``agent`` runs alike. ``stop`` writes the HTML page and detaches it.
"""

from __future__ import annotations

import kobrowser
from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._errors import CommandError

__all__ = ["COMMANDS", "session_trace"]


def session_trace(browser: kobrowser.Browser) -> kobrowser.Trace | None:
    """The trace ``trace start`` attached to ``browser``, if one records."""
    for recorder in browser._recorders:
        if isinstance(recorder, kobrowser.Trace):
            return recorder
    return None


async def trace_start(ctx: Context, args: Args) -> Result:
    if session_trace(ctx.browser) is not None:
        raise CommandError(
            "a trace is already recording", "run `ko-browser trace stop FILE` to write it first"
        )
    trace = kobrowser.Trace(args.optional_text("title") or "ko-browser trace")
    ctx.browser._attach_recorder(trace)
    return {"tracing": True}, "tracing: every action is recorded until `trace stop FILE`"


async def trace_stop(ctx: Context, args: Args) -> Result:
    trace = session_trace(ctx.browser)
    if trace is None:
        raise CommandError("no trace is recording", "run `ko-browser trace start` first")
    path = args.text("path")  # the client made it absolute
    ctx.browser._detach_recorder(trace)
    size = await trace.save(path)
    steps = len(trace.steps)
    return {"path": path, "steps": steps, "bytes": size}, f"{path} ({steps} steps, {size} bytes)"


COMMANDS: dict[str, Command] = {
    "trace.start": Command(trace_start),
    "trace.stop": Command(trace_stop),
}
