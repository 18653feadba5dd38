"""Daemon side of ``ko-browser console`` and ``ko-browser errors``: the current tab's.

Every call of the console family is in this module.
"""

from __future__ import annotations

import msgspec

import kobrowser
from kobrowser.cli._daemon._context import Args, Command, Context, Result

__all__ = ["COMMANDS"]


def _message_line(m: kobrowser.ConsoleMessage) -> str:
    where = f"  ({m.url}:{m.line + 1})" if m.url else ""
    return f"[{m.level}] {m.text}{where}"


def _error_line(e: kobrowser.PageError) -> str:
    where = f"  ({e.url}:{e.line + 1})" if e.url else ""
    name = f"{e.name}: " if e.name else ""
    return f"{name}{e.message}{where}"


async def console(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    messages = tab.console.messages
    level = args.optional_text("level")
    if level:
        messages = [m for m in messages if m.level == level]
    if args.flag("clear"):
        tab.console.clear()
    text = "\n".join(_message_line(m) for m in messages) if messages else "no console messages"
    return {"messages": [msgspec.to_builtins(m) for m in messages]}, text


async def errors(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    found = tab.console.errors
    if args.flag("clear"):
        tab.console.clear()
    text = "\n".join(_error_line(e) for e in found) if found else "no errors"
    return {"errors": [msgspec.to_builtins(e) for e in found]}, text


COMMANDS: dict[str, Command] = {
    "console": Command(console),
    "errors": Command(errors),
}
