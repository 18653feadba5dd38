"""Running one action on a tab or a browser, through their public methods only.

:func:`execute` never raises for a failed action: the error becomes the
:class:`Outcome` (``ok=False``, the error's class name and message), so an
agent loop or a batch can report it and go on. Cancellation propagates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from .._exceptions import KoBrowserError
from .._validate import fail
from ._parse import parse_action
from ._types import (
    Action,
    Back,
    Check,
    Click,
    DblClick,
    Done,
    Fill,
    Focus,
    Forward,
    Hover,
    Open,
    Press,
    Reload,
    Scroll,
    Select,
    SwitchTab,
    Type,
    Uncheck,
    Wait,
    quote,
)

if TYPE_CHECKING:
    from .._browser import Browser
    from .._tab import Response, Tab

__all__ = ["Outcome", "execute", "normalize_url", "to_action"]

#: Errors that are the action's outcome; anything else is a bug and propagates.
_FAILURES = (KoBrowserError, ValueError, TimeoutError)


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


async def execute(
    target: Tab | Browser, action: Action, *, timeout: float | None = None
) -> Outcome:
    """Run ``action`` on a tab, or on a browser's current tab.

    ``tab N`` needs a :class:`~kobrowser.Browser` (it changes the current
    tab); ``done`` does nothing and carries the answer.

    Args:
        target: a :class:`~kobrowser.Tab` or a :class:`~kobrowser.Browser`.
        action: the action (see :func:`~kobrowser.parse_action`).
        timeout: deadline in seconds of the method the action calls
            (default: the browser's).

    Returns:
        The :class:`Outcome`. Errors of the action (a stale or unknown id,
        an element that is not interactable, a navigation error, a
        timeout, an unknown key or option) are in it, not raised.

    Raises:
        InvalidArgumentError: ``action`` is not an :class:`Action`.

    Cancelling the caller cancels the action's method; input already sent
    is not undone.
    """
    if not isinstance(action, Action):
        raise fail("action", action, "an Action (see kobrowser.parse_action)")
    try:
        message = await _run(target, action, timeout)
    except _FAILURES as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return Outcome(action=action, ok=False, message=text, error=type(exc).__name__)
    answer = action.answer if isinstance(action, Done) else None
    return Outcome(action=action, ok=True, message=message, answer=answer)


def _current(target: Tab | Browser) -> Tab:
    from .._browser import Browser

    return target.current_tab if isinstance(target, Browser) else target


def _response_text(response: Response | None) -> str:
    if response is None or response.ok:
        return ""
    return f" (HTTP {response.status})"


async def _run(target: Tab | Browser, action: Action, timeout: float | None) -> str:
    from .._browser import Browser

    if isinstance(action, Done):
        return "done"
    if isinstance(action, SwitchTab):
        if not isinstance(target, Browser):
            raise KoBrowserError(
                "`tab N` changes a browser's current tab: run it with browser.do(), not tab.do()"
            )
        tabs = target.tabs
        if not 1 <= action.index <= len(tabs):
            raise KoBrowserError(f"no tab {action.index}: there are {len(tabs)} tab(s)")
        await target.switch_to(tabs[action.index - 1])
        return f"switched to tab {action.index}"
    tab = _current(target)
    opts: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    match action:
        case Click(id=n):
            await tab.click(n, **opts)
            return f"clicked {n}"
        case DblClick(id=n):
            await tab.dblclick(n, **opts)
            return f"double-clicked {n}"
        case Hover(id=n):
            await tab.hover(n, **opts)
            return f"hovered {n}"
        case Focus(id=n):
            await tab.focus(n, **opts)
            return f"focused {n}"
        case Check(id=n):
            await tab.check(n, **opts)
            return f"checked {n}"
        case Uncheck(id=n):
            await tab.uncheck(n, **opts)
            return f"unchecked {n}"
        case Fill(id=n, text=text):
            await tab.fill(n, text, **opts)
            return f"filled {n}"
        case Type(id=n, text=text):
            await tab.type(n, text, **opts)
            return f"typed into {n}"
        case Select(id=n, text=label):
            await tab.select(n, label, **opts)
            return f"selected {quote(label)} in {n}"
        case Press(key=key):
            await tab.press(key, **opts)
            return f"pressed {key}"
        case Scroll(direction=direction, amount=amount):
            if amount is None:
                await tab.scroll(direction, **opts)
                return f"scrolled {direction}"
            await tab.scroll(direction, amount, **opts)
            return f"scrolled {direction} {amount} px"
        case Open(url=url):
            address = normalize_url(url)
            response = await tab.open(address, **opts)
            return f"opened {address}{_response_text(response)}"
        case Back():
            response = await tab.back(**opts)
            return f"went back to {tab.url}{_response_text(response)}"
        case Forward():
            response = await tab.forward(**opts)
            return f"went forward to {tab.url}{_response_text(response)}"
        case Reload():
            response = await tab.reload(**opts)
            return f"reloaded{_response_text(response)}"
        case Wait(ms=ms):
            await tab.wait(ms)
            return f"waited {ms} ms"
    raise TypeError(f"no executor for {type(action).__name__}")  # pragma: no cover
