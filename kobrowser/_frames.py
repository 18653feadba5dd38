"""Frame registry: which CDP session serves each out-of-process frame of a tab.

The tab's page session auto-attaches (flattened) to its out-of-process
iframes; each new frame session auto-attaches to its own, recursively. The
registry follows those attach/detach events, so a snapshot knows every
frame session without searching for targets.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import msgspec

from ._exceptions import KoBrowserError
from .cdp import CDPSession
from .cdp._events import ATTACHED, DETACHED

__all__ = ["FrameRegistry", "FrameSession"]

_log = logging.getLogger("kobrowser.frames")

_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}


Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class FrameSession(msgspec.Struct):
    """An out-of-process frame: its id (== target id), session and the parent's session."""

    frame_id: str
    session: CDPSession
    parent: CDPSession


class FrameRegistry:
    """Keeps frame id -> session for every out-of-process frame of one tab.

    Args:
        page: the tab's page session.
        spawn: runs a coroutine function in the owning browser's task group.
    """

    def __init__(self, page: CDPSession, spawn: Spawn) -> None:
        self.page = page
        self._spawn = spawn
        self._frames: dict[str, FrameSession] = {}
        self._pending = 0
        self._settled = anyio.Event()
        self._settled.set()

    async def start(self) -> None:
        """Begin following the page's out-of-process frames."""
        self._watch(self.page)
        await self.page.send("Target.setAutoAttach", _AUTO_ATTACH)

    def frames(self) -> list[FrameSession]:
        """The live out-of-process frames, parents before children."""
        return [f for f in self._frames.values() if not f.session.closed]

    async def settled(self) -> None:
        """Wait until every attached frame session finished its set-up."""
        while self._pending:
            await self._settled.wait()

    def _watch(self, session: CDPSession) -> None:
        session.add_listener("Target.attachedToTarget", lambda raw: self._on_attached(session, raw))
        session.add_listener("Target.detachedFromTarget", self._on_detached)

    def _on_attached(self, parent: CDPSession, raw: msgspec.Raw) -> None:
        attached = ATTACHED.decode(raw)
        if attached.targetInfo.type != "iframe":
            return
        session = parent.connection.session(attached.sessionId)
        frame_id = attached.targetInfo.targetId
        self._frames[frame_id] = FrameSession(frame_id, session, parent)
        self._watch(session)
        if self._pending == 0:
            self._settled = anyio.Event()
        self._pending += 1
        self._spawn(lambda: self._set_up(session))

    def _on_detached(self, raw: msgspec.Raw) -> None:
        session_id = DETACHED.decode(raw).sessionId
        for frame_id, frame in list(self._frames.items()):
            if frame.session.id == session_id:
                del self._frames[frame_id]

    async def _set_up(self, session: CDPSession) -> None:
        try:
            with contextlib.suppress(KoBrowserError):
                await session.send("Target.setAutoAttach", _AUTO_ATTACH, timeout=10)
        finally:
            self._pending -= 1
            if self._pending == 0:
                self._settled.set()
