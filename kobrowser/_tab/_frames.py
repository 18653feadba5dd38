"""Frame registry: which CDP session serves each out-of-process frame of a tab.

The tab's page session auto-attaches (flattened) to its out-of-process
iframes; each new frame session auto-attaches to its own, recursively. The
registry follows those attach/detach events, so a snapshot knows every
frame session without searching for targets.

It also counts, per session, the Page events that change the session's frame
tree (a frame attached, detached or navigated, a document opened, a URL
change within a document): the snapshot keeps each session's last frame tree
and reuses it while that count has not moved, instead of asking for it again
(see :func:`kobrowser._tab._fetch.fetch_frames`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import msgspec

from kobrowser._exceptions import KoBrowserError
from kobrowser.cdp import CDPSession
from kobrowser.cdp._events import ATTACHED, DETACHED

__all__ = ["AUTO_ATTACH", "FrameRegistry", "FrameSession"]

_log = logging.getLogger("kobrowser.frames")

# Frames start paused until their set-up is sent (then resumed in the same
# batch), so routes and logs see their first request. Only frames: a paused
# worker nobody resumes would hang.
AUTO_ATTACH = {
    "autoAttach": True,
    "waitForDebuggerOnStart": True,
    "flatten": True,
    "filter": [{"type": "iframe", "exclude": False}],
}

# Page events after which a session's frame tree may differ.
_FRAME_TREE_EVENTS = (
    "Page.frameAttached",
    "Page.frameDetached",
    "Page.frameNavigated",
    "Page.documentOpened",
    "Page.navigatedWithinDocument",
)


Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]
# Given a new frame session, follows it and returns the (method, params) calls
# to send before it runs.
FrameSetup = Callable[[CDPSession], list[tuple[str, "dict[str, Any] | None"]]]


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
        self._changes: dict[CDPSession, int] = {}
        self._followed: set[CDPSession] = set()
        self._pending = 0
        self._settled = anyio.Event()
        self._settled.set()
        self._setups: list[FrameSetup] = []

    def add_setup(self, setup: FrameSetup) -> None:
        """Run ``setup`` for every new frame session before the frame runs."""
        self._setups.append(setup)

    def watch(self) -> None:
        """Listen to the page session's attach and frame-tree events.

        Call before the tab enables anything, so no event is missed; the
        tab then sends ``Target.setAutoAttach`` with :data:`AUTO_ATTACH`.
        """
        self._watch(self.page)

    def start(self) -> None:
        """The page session's Page domain is enabled: its frame-tree count is valid."""
        self._followed.add(self.page)

    def frame_tree_version(self, session: CDPSession) -> int | None:
        """How many frame-tree events ``session`` has had, or None if not followed.

        None until the session's Page events are enabled (an out-of-process
        frame's set-up enables them), so a change could have gone unseen.
        """
        if session not in self._followed or session.closed:
            return None
        return self._changes.get(session, 0)

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

        def changed(_raw: msgspec.Raw) -> None:
            self._changes[session] = self._changes.get(session, 0) + 1

        for method in _FRAME_TREE_EVENTS:
            session.add_listener(method, changed)

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
                self._changes.pop(frame.session, None)
                self._followed.discard(frame.session)

    async def _set_up(self, session: CDPSession) -> None:
        try:
            with contextlib.suppress(KoBrowserError):
                extra = []
                for setup in self._setups:
                    try:
                        extra += [(session, m, p, None) for m, p in setup(session)]
                    except Exception:
                        _log.exception("frame set-up failed")
                _attach, enabled, *_ = await session.connection.call_many(
                    [
                        (session, "Target.setAutoAttach", AUTO_ATTACH, None),
                        (session, "Page.enable", None, None),
                        *extra,
                        (session, "Runtime.runIfWaitingForDebugger", None, None),
                    ],
                    timeout=10,
                )
                if not isinstance(enabled, KoBrowserError) and not session.closed:
                    self._followed.add(session)
        finally:
            self._pending -= 1
            if self._pending == 0:
                self._settled.set()
