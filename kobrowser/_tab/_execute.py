"""Running one action on a tab, through its public methods only.

:func:`execute` never raises for a failed action: the error becomes the
:class:`Outcome` (``ok=False``, the error's class name and message), so an
agent loop or a batch can report it and go on. Cancellation propagates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from kobrowser._exceptions import KoBrowserError
from kobrowser._tab._verbs import TabVerbs
from kobrowser._validate import fail
from kobrowser.actions._outcome import Outcome, normalize_url
from kobrowser.actions._types import (
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
    from kobrowser._tab._pagestate import Response

__all__ = ["ActionTarget", "execute"]


class ActionTarget(TabVerbs, Protocol):
    """What an action runs on: a tab's verbs and its URL (a :class:`~kobrowser.Tab`)."""

    @property
    def url(self) -> str:
        """The URL of the top document."""
        ...


#: Makes tab N (1-based) of the browser the current one; says what it did.
SwitchTabFunc = Callable[[int], Awaitable[str]]

#: Errors that are the action's outcome; anything else is a bug and propagates.
_FAILURES = (KoBrowserError, ValueError, TimeoutError)


async def execute(
    current: Callable[[], ActionTarget],
    action: Action,
    *,
    timeout: float | None = None,
    switch_tab: SwitchTabFunc | None = None,
) -> Outcome:
    """Run ``action`` on the tab ``current()`` returns.

    ``tab N`` needs ``switch_tab`` (a browser's: it changes the current
    tab); ``done`` does nothing and carries the answer.

    Args:
        current: returns the tab to act on (a browser's current tab; what it
            raises, such as no open tab, is the outcome's error).
        action: the action (see :func:`~kobrowser.parse_action`).
        timeout: deadline in seconds of the method the action calls
            (default: the browser's).
        switch_tab: makes tab N the current one (``Browser.do`` passes it).

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
        message = await _run(current, action, timeout, switch_tab)
    except _FAILURES as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return Outcome(action=action, ok=False, message=text, error=type(exc).__name__)
    answer = action.answer if isinstance(action, Done) else None
    return Outcome(action=action, ok=True, message=message, answer=answer)


def _response_text(response: Response | None) -> str:
    if response is None or response.ok:
        return ""
    return f" (HTTP {response.status})"


async def _run(
    current: Callable[[], ActionTarget],
    action: Action,
    timeout: float | None,
    switch_tab: SwitchTabFunc | None,
) -> str:
    if isinstance(action, Done):
        return "done"
    if isinstance(action, SwitchTab):
        if switch_tab is None:
            raise KoBrowserError(
                "`tab N` changes a browser's current tab: run it with browser.do(), not tab.do()"
            )
        return await switch_tab(action.index)
    tab = current()
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
