"""The `ko-browser` command: every library action from the shell.

``ko-browser open URL``, ``ko-browser snapshot -i``, ``ko-browser click 5``
... are parsed by a thin client (:mod:`kobrowser.cli._client`, standard
library only) that sends each command over a Unix socket to the session's
daemon (:mod:`kobrowser.cli._daemon`, started as a process), which keeps
Chrome open between commands and calls the library. ``ko-browser scrape``
and ``ko-browser mcp`` run in the foreground instead (:mod:`._scrape`,
:mod:`._mcp`).
"""

from __future__ import annotations

from kobrowser.cli._client._main import main

__all__ = ["main"]
