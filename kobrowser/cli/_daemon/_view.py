"""Daemon side of ``ko-browser view`` and ``agent --view``: the session's live view.

The view runs in the daemon, beside the session's browser, so it sees every
action of the session through the recording hook. ``view`` sends the URL as
its first progress line, then a heartbeat every second: a client that left
(Ctrl-C, SIGTERM) makes the next one fail, which cancels the command and
closes the view.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio

from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._errors import UsageError
from kobrowser.view import LiveView

__all__ = ["COMMANDS", "live_view"]

#: Seconds between a view's heartbeats (how soon a gone client closes it).
HEARTBEAT = 1.0


@contextlib.asynccontextmanager
async def live_view(
    ctx: Context, *, host: str | None = None, port: int = 0, token: str | None = None
) -> AsyncIterator[LiveView]:
    """Serve a live view of the session for the block; its URL is the first progress line."""
    try:
        view = LiveView(ctx.browser, host=host, port=port, token=token)
    except ValueError as exc:  # InvalidArgumentError: no token off loopback
        raise UsageError(f"view: {exc}") from None
    ready = anyio.Event()

    async def announce(url: str) -> None:
        await ctx.progress({"view": url}, url)
        ready.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(view.run, announce)
        await ready.wait()
        try:
            yield view
        finally:
            tg.cancel_scope.cancel()


async def view(ctx: Context, args: Args) -> Result:
    port = args.optional_whole("port") or 0
    async with live_view(
        ctx, host=args.optional_text("host"), port=port, token=args.optional_text("token")
    ):
        while True:  # until the client leaves (the heartbeat then cancels this)
            await anyio.sleep(HEARTBEAT)
            await ctx.progress({"heartbeat": True}, "")
    return {}, ""  # pragma: no cover - never reached


COMMANDS: dict[str, Command] = {
    "view": Command(view, streaming=True),
}
