"""Daemon side: the errors of a command, and the error reply each becomes.

:func:`describe_error` turns what a command raised (a library error, a
timeout, one of the errors below) into the reply's ``{"type", "message",
"hint", "exit"}``: one line, a hint saying what to do next, exit status 2
for bad usage.
"""

from __future__ import annotations

from typing import Any

import kobrowser

__all__ = ["CommandError", "UsageError", "describe_error"]


class UsageError(Exception):
    """Bad usage the daemon finds (exit status 2): an unknown command, a bad batch."""


class CommandError(Exception):
    """The command cannot be done as asked (no such tab, no open tab)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


_SNAPSHOT_HINT = "run `ko-browser snapshot` and use its ids"


def _hint(exc: BaseException) -> str:
    k = kobrowser
    if isinstance(exc, k.StaleElementError):
        return "run `ko-browser snapshot` and use the new ids"
    if isinstance(exc, k.NoSnapshotError):
        return "run `ko-browser snapshot` first"
    if isinstance(exc, k.UnknownElementError):
        return _SNAPSHOT_HINT
    if isinstance(exc, k.NotInteractableError):
        return "run `ko-browser snapshot` to see the page as it is now"
    if isinstance(exc, k.WrongElementKindError):
        return "check the element's role in `ko-browser snapshot`"
    if isinstance(exc, k.InvalidSelectorError):
        return "fix the CSS selector"
    if isinstance(exc, k.NavigationError):
        return "check the URL and that the site is reachable"
    if isinstance(exc, k.ModelError):
        return "check --model, --base-url and the API key"
    if isinstance(exc, k.LaunchError):
        return "install Chromium, or pass --executable-path PATH or --cdp ENDPOINT"
    if isinstance(exc, k.ConnectionClosedError):
        return "Chrome is gone; the session stops, run the command again to start a new one"
    if isinstance(exc, k.TargetClosedError):
        return "the tab is gone; run `ko-browser tab list`"
    if isinstance(exc, TimeoutError):
        return "the page may still be busy; retry, or pass a larger --timeout"
    if isinstance(exc, CommandError):
        return exc.hint
    return ""


def describe_error(exc: BaseException) -> dict[str, Any]:
    """``{"type", "message", "hint", "exit"}`` for a failed command."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, kobrowser.LaunchError):
        message = " ".join(str(exc).split("\n", 1)[0].split())
    if len(message) > 500:
        message = message[:497] + "..."
    error: dict[str, Any] = {"type": type(exc).__name__, "message": message, "exit": 1}
    if isinstance(exc, kobrowser.ElementError) and exc.element_id is not None:
        error["id"] = exc.element_id
    if isinstance(exc, UsageError | kobrowser.InvalidArgumentError):
        error["exit"] = 2
    hint = _hint(exc)
    if hint:
        error["hint"] = hint
    return error
