"""What running one action did, and the pure helpers the executors share."""

from __future__ import annotations

from typing import Any

import msgspec

from kobrowser._validate import fail
from kobrowser.actions._parse import parse_action
from kobrowser.actions._types import Action

__all__ = ["Outcome", "normalize_url", "to_action"]


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What running one action did.

    Attributes:
        action: the action.
        ok: True when it was done.
        message: what happened (``"clicked 5"``) or the error's message.
        error: the error's class name (``"StaleElementError"``) when not ok.
        skipped: True when the action was not run (an agent skips the rest
            of a step once the page changed under it, or an action failed).
        answer: the answer of a ``done`` action.
    """

    action: Action
    ok: bool
    message: str
    error: str | None = None
    skipped: bool = False
    answer: str | None = None

    def __str__(self) -> str:
        if self.ok:
            return f"{self.action}: {self.message}"
        if self.skipped:
            return f"{self.action}: not run: {self.message}"
        return f"{self.action}: {self.error}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``action`` is the canonical line."""
        data: dict[str, Any] = {"action": str(self.action), "ok": self.ok, "message": self.message}
        if self.error is not None:
            data["error"] = self.error
        if self.skipped:
            data["skipped"] = True
        if self.answer is not None:
            data["answer"] = self.answer
        return data


def normalize_url(url: str) -> str:
    """``example.com`` -> ``https://example.com``; ``localhost:8000`` -> ``http://...``.

    The one reading of a typed address: actions, the CLI's ``open`` and ``tab
    new``, and the MCP tools use it.
    """
    url = url.strip()
    scheme = url.split(":", 1)[0].lower()
    if "://" in url or scheme in {"about", "data", "file", "javascript", "blob", "chrome"}:
        return url
    authority = url.split("/", 1)[0]
    if authority.startswith("["):  # an IPv6 literal, e.g. [::1]:8080
        host = authority.split("]", 1)[0] + "]"
    else:
        host = authority.split(":", 1)[0]
    host = host.lower()  # host names are case-insensitive: LOCALHOST:8000 is local too
    if host in {"localhost", "127.0.0.1", "[::1]"} or host.endswith(".localhost"):
        return "http://" + url
    return "https://" + url


def to_action(action: Action | str) -> Action:
    """``action`` itself, or the one action of a line (see :func:`~kobrowser.parse_action`).

    Raises:
        ActionSyntaxError: the line is not exactly one action.
        InvalidArgumentError: ``action`` is neither an Action nor a str.
    """
    if isinstance(action, Action):
        return action
    if isinstance(action, str):
        return parse_action(action)
    raise fail("action", action, 'an Action, or one action line such as "click 5"')
