"""JavaScript dialogs (alert, confirm, prompt, beforeunload) of a tab.

:class:`Dialogs` is ``tab.dialogs``. Dialogs never block a tab: each one is
recorded (:attr:`Dialogs.opened`) and, unless a handler set with
:meth:`Dialogs.handle` decides otherwise, accepted at once (a prompt with
empty text). Handling runs in the browser's task group, never on the
connection's reader.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal

import anyio
import msgspec

from kobrowser._deadline import Deadline
from kobrowser._exceptions import KoBrowserError, ProtocolError
from kobrowser._validate import check

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["Dialog", "DialogHandler", "Dialogs"]

_log = logging.getLogger("kobrowser.dialogs")

DialogType = Literal["alert", "confirm", "prompt", "beforeunload"]
DialogHandler = Callable[["Dialog"], Awaitable[None] | None]


class _Opening(msgspec.Struct):
    type: str
    message: str = ""
    defaultPrompt: str = ""
    url: str = ""


_OPENING = msgspec.json.Decoder(_Opening)


class Dialog:
    """One JavaScript dialog the page opened.

    Attributes:
        type: ``"alert"``, ``"confirm"``, ``"prompt"`` or ``"beforeunload"``.
        message: the text the page shows.
        default_prompt: a prompt's default value ("" otherwise).
        url: the URL of the document that opened it.
        handled: True once accepted or dismissed.
        accepted: True when accepted, False when dismissed, None while open.
        prompt_text: the text a prompt was accepted with.
    """

    def __init__(self, session: CDPSession, opening: _Opening) -> None:
        self._session = session
        self.type: DialogType = opening.type  # type: ignore[assignment]
        self.message = opening.message
        self.default_prompt = opening.defaultPrompt
        self.url = opening.url
        self.handled = False
        self.accepted: bool | None = None
        self.prompt_text: str | None = None

    def __repr__(self) -> str:
        state = "open" if self.accepted is None else ("accepted" if self.accepted else "dismissed")
        return f"<Dialog {self.type} {self.message!r} {state}>"

    async def accept(self, prompt_text: str = "") -> None:
        """Accept (OK); a prompt returns ``prompt_text``. No-op when already handled.

        Cancellation may leave the dialog open; the default handling then
        accepts it.
        """
        check(prompt_text=prompt_text)
        await self._handle(True, prompt_text)

    async def dismiss(self) -> None:
        """Dismiss (Cancel; a beforeunload stays on the page). No-op when already handled."""
        await self._handle(False, None)

    async def _handle(self, accept: bool, prompt_text: str | None) -> None:
        if self.handled:
            return
        self.handled = True
        self.accepted = accept
        params: dict[str, object] = {"accept": accept}
        if accept and self.type == "prompt":
            self.prompt_text = prompt_text or ""
            params["promptText"] = self.prompt_text
        # ProtocolError: already closed (the page navigated, or Chrome closed it).
        with contextlib.suppress(ProtocolError):
            await self._session.send("Page.handleJavaScriptDialog", params)


class Dialogs:
    """A tab's JavaScript dialogs: ``tab.dialogs`` (auto-accepted by default).

    Every ``alert``, ``confirm``, ``prompt`` and ``beforeunload`` the page
    opens is recorded in :attr:`opened` and answered at once, so a dialog
    never blocks the tab: by the handler given to :meth:`handle`, else
    accepted (a prompt with empty text).

    Args:
        page: the tab's page session (its dialog events are followed from here on).
        spawn: runs a coroutine function in the browser's task group.
        timeout: the default timeout in seconds (read at each use).
    """

    def __init__(
        self,
        page: CDPSession,
        spawn: Callable[[Callable[[], Coroutine[Any, Any, None]]], None],
        timeout: Callable[[], float],
    ) -> None:
        self._page = page
        self._spawn = spawn
        self._timeout = timeout
        self._dialogs: list[Dialog] = []
        self._handler: DialogHandler | None = None
        self._opened = anyio.Event()
        page.add_listener("Page.javascriptDialogOpening", self._on_opening)

    def __repr__(self) -> str:
        return f"<Dialogs {len(self._dialogs)} opened>"

    @property
    def opened(self) -> list[Dialog]:
        """Every dialog the tab opened, oldest first, handled or not (a copy)."""
        return list(self._dialogs)

    def handle(self, handler: DialogHandler | None) -> None:
        """Decide how the tab's dialogs are answered.

        ``handler(dialog)`` (a function or coroutine function) runs in the
        browser's task group for each new dialog and may call
        ``await dialog.accept(text)`` or ``await dialog.dismiss()``. A dialog
        it leaves open (or when it raises, or takes longer than the browser's
        timeout) is accepted. ``None`` restores the default: accept all.

        Raises:
            InvalidArgumentError: ``handler`` is neither callable nor None.
        """
        check(handler=handler)
        self._handler = handler

    async def wait(self, *, timeout: float | None = None) -> Dialog:
        """Wait for the next dialog the tab opens (after this call); return it once handled.

        Raises:
            InvalidArgumentError: ``timeout`` is not a number of seconds >= 0.
            WaitTimeoutError: no dialog within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the dialog is handled all the same.
        """
        deadline = Deadline.of(timeout, self._timeout())
        seen = len(self._dialogs)
        with deadline.scope():
            while len(self._dialogs) <= seen or not self._dialogs[seen].handled:
                await self._opened.wait()
            return self._dialogs[seen]
        raise deadline.error("no dialog opened")

    def _on_opening(self, raw: msgspec.Raw) -> None:
        dialog = Dialog(self._page, _OPENING.decode(raw))
        self._dialogs.append(dialog)
        handler = self._handler
        limit = self._timeout()

        async def answer() -> None:
            if handler is not None:
                try:
                    with anyio.move_on_after(limit):
                        result = handler(dialog)
                        if inspect.isawaitable(result):
                            await result
                except Exception:
                    _log.exception("the dialog handler failed; accepting %r", dialog)
            with anyio.CancelScope(shield=True), contextlib.suppress(KoBrowserError):
                await dialog.accept()
            self._opened.set()
            self._opened = anyio.Event()

        self._spawn(answer)
