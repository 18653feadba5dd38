"""What the MCP server says on stderr, and what a stop signal does in each phase."""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["PROG", "Stopper", "say"]

PROG = "ko-browser mcp"


def say(message: str) -> None:
    """One line on stderr (stdout carries the protocol)."""
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


class Stopper:
    """What the first stop signal does; changed by the phase the server is in.

    Until the transport runs, a signal cancels everything (a launching
    browser is closed again); the HTTP server sets a graceful stop instead.
    A second signal always cancels.
    """

    def __init__(self, cancel: Callable[[], None]) -> None:
        self.cancel = cancel
        self.stop = cancel
