"""The `ko-browser` command: every library action from the shell.

``ko-browser open URL``, ``ko-browser snapshot -i``, ``ko-browser click 5``
... talk to a per-session daemon (:mod:`kobrowser.cli._daemon`) that keeps
Chrome open between commands. This module stays import-light: the client
(:mod:`kobrowser.cli._client`) uses the standard library only.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ko-browser`` console script; returns the exit status."""
    from kobrowser.cli._client import main as client_main

    return client_main(argv)
