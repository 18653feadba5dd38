"""JavaScript dialogs (alert, confirm, prompt, beforeunload) of a tab.

Dialogs never block a tab: each one is recorded in :attr:`DialogsMixin.dialogs`
and, unless a handler set with :meth:`DialogsMixin.on_dialog` decides
otherwise, accepted at once (a prompt with empty text). Handling runs in the
browser's task group, never on the connection's reader.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

import anyio
import msgspec

from ._exceptions import KoBrowserError, ProtocolError, WaitTimeoutError
from ._tab_core import TabCore
from ._validate import check, seconds

if TYPE_CHECKING:
    from ._browser import Browser
    from .cdp import CDPSession

__all__ = ["Dialog", "DialogHandler", "DialogsMixin"]

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


class DialogsMixin(TabCore):
    """Records and answers the tab's dialogs (auto-accept by default)."""

    def __init__(self, browser: Browser, session: CDPSession, target_id: str) -> None:
        super().__init__(browser, session, target_id)
        self._dialogs: list[Dialog] = []
        self._dialog_handler: DialogHandler | None = None
        self._dialog_opened = anyio.Event()

    @property
    def dialogs(self) -> list[Dialog]:
        """Every dialog this tab opened, oldest first."""
        return list(self._dialogs)

    def on_dialog(self, handler: DialogHandler | None) -> None:
        """Decide how the tab's dialogs are answered.

        ``handler(dialog)`` (a function or coroutine function) runs in the
        browser's task group for each new dialog and may call
        ``await dialog.accept(text)`` or ``await dialog.dismiss()``. A dialog it
        leaves open (or when it raises, or takes longer than the browser's
        timeout) is accepted. ``None`` restores the default: accept all.
        """
        check(handler=handler)
        self._dialog_handler = handler

    async def wait_for_dialog(self, *, timeout: float | None = None) -> Dialog:
        """Wait for the next dialog this tab opens and return it once handled.

        Raises:
            WaitTimeoutError: no dialog within ``timeout`` (default: the browser's).
        """
        deadline = self.timeout if timeout is None else seconds(timeout)
        seen = len(self._dialogs)
        with anyio.move_on_after(deadline):
            while len(self._dialogs) <= seen or not self._dialogs[seen].handled:
                await self._dialog_opened.wait()
            return self._dialogs[seen]
        raise WaitTimeoutError(f"no dialog opened within {deadline:g} s")

    async def _init(self) -> None:
        self.cdp.add_listener("Page.javascriptDialogOpening", self._on_dialog_opening)
        await super()._init()

    def _on_dialog_opening(self, raw: msgspec.Raw) -> None:
        dialog = Dialog(self.cdp, _OPENING.decode(raw))
        self._dialogs.append(dialog)
        handler = self._dialog_handler

        async def answer() -> None:
            if handler is not None:
                try:
                    with anyio.move_on_after(self.timeout):
                        result = handler(dialog)
                        if inspect.isawaitable(result):
                            await result
                except Exception:
                    _log.exception("the dialog handler failed; accepting %r", dialog)
            with anyio.CancelScope(shield=True), contextlib.suppress(KoBrowserError):
                await dialog.accept()
            self._signal_dialog()

        self._browser._spawn(answer)

    def _signal_dialog(self) -> None:
        self._dialog_opened.set()
        self._dialog_opened = anyio.Event()
