"""The one table of the daemon's commands: name -> :class:`~._context.Command`.

Each family's module lists its commands (``COMMANDS``); this module joins
them, and :func:`run_command` runs one. ``status`` and ``close`` are the
server's own (:mod:`._serving`): they answer even while other commands run.
"""

from __future__ import annotations

from kobrowser.cli._daemon._batch import COMMANDS as BATCH
from kobrowser.cli._daemon._browser_state import COMMANDS as BROWSER_STATE
from kobrowser.cli._daemon._console import COMMANDS as CONSOLE
from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._elements import COMMANDS as ELEMENTS
from kobrowser.cli._daemon._errors import UsageError
from kobrowser.cli._daemon._network import COMMANDS as NETWORK
from kobrowser.cli._daemon._page import COMMANDS as PAGE
from kobrowser.cli._daemon._recording import COMMANDS as RECORDING
from kobrowser.cli._daemon._seeing import COMMANDS as SEEING
from kobrowser.cli._daemon._tabs import COMMANDS as TABS
from kobrowser.cli._daemon._tracing import COMMANDS as TRACING
from kobrowser.cli._daemon._view import COMMANDS as VIEW

__all__ = ["COMMANDS", "SERVER_COMMANDS", "run_command"]

#: The commands the server answers itself (see :mod:`._serving`).
SERVER_COMMANDS = frozenset({"status", "close"})


def _join(*families: dict[str, Command]) -> dict[str, Command]:
    joined: dict[str, Command] = {}
    for family in families:
        for name, command in family.items():
            if name in joined or name in SERVER_COMMANDS:
                raise AssertionError(f"command {name!r} is listed twice")
            joined[name] = command
    return joined


COMMANDS = _join(
    PAGE,
    ELEMENTS,
    SEEING,
    TABS,
    NETWORK,
    CONSOLE,
    BROWSER_STATE,
    BATCH,
    TRACING,
    VIEW,
    RECORDING,
)


async def run_command(ctx: Context, name: str, args: Args) -> Result:
    """Run the command ``name``; library errors propagate (see :func:`._errors.describe_error`).

    Raises:
        UsageError: no such command.
    """
    command = COMMANDS.get(name)
    if command is None:
        raise UsageError(f"unknown command {name!r}")
    return await command.run(ctx, args)
