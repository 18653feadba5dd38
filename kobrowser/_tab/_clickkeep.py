"""Clickable maps kept between snapshots while their documents do not change.

A snapshot reads each frame session's clickable map with a
``DOMSnapshot.captureSnapshot`` of its whole DOM (kobrowser/_tab/_clickable.py):
on real pages about a third of a snapshot, for a map that is most often the
same as the last one. :class:`ClickKeep` keeps each session's last map and
a change watcher in the session's document, in an isolated world of its
own (the page's scripts cannot see it): the watcher of
kobrowser/_tab/_clickwatch.py (a ``MutationObserver`` over the document,
capture listeners on ``window`` and the shape of the style sheets; see
that module for what it counts as a change and what it cannot see).

Per session and snapshot, in the snapshot's one fetch batch:

* first snapshot: the watcher is installed (for this document and every new
  one, ``Page.addScriptToEvaluateOnNewDocument``, and taken as its baseline
  at once), its world's context asked for, then the map captured;
* a map kept, the same document (no frame-tree event since): one
  ``Runtime.evaluate`` asks the watcher whether anything changed since it was
  last asked, before the session's frame AX calls (after the top document's,
  which is built once all is in). Nothing: the kept map is the snapshot's
  (before the frames' AX trees arrive, so they are built with it).
  Anything (or the watcher is gone): the map is captured right after the
  batch (one round trip more, only then);
* a change expected (the watcher saw one at the last snapshot, the tab
  acted on an element since, or the session has a new document: a
  frame-tree event since the context was asked for), no kept map, a
  ``fresh`` snapshot, or every :data:`FULL_EVERY` snapshots (event
  listeners added by script change no node): the map is captured in the
  batch, as without this module, the watcher read just before it (what it
  saw until then is not reported again; whether it saw a change decides
  what the next snapshot expects). A page that keeps changing, or an agent
  that acts between snapshots, pays one cheap call more than before and no
  round trip.

Only a session rendering a single document without shadow roots keeps its
map (a ``MutationObserver`` on the document does not see into shadow trees
or same-process child frames); the others are captured every time, as
without this module. A change between the watcher's answer and the AX
trees is seen by the next snapshot (as a change between a capture and the
AX trees always was).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import msgspec

from kobrowser._exceptions import KoBrowserError
from kobrowser._tab._clickwatch import FULL_EVERY, WATCHER
from kobrowser.snapshot._hidden import ClickableMap

if TYPE_CHECKING:
    from kobrowser._tab._clickable import ClickableMaps
    from kobrowser.cdp import BatchCall, CDPSession, SessionConnection

__all__ = ["WORLD", "ClickKeep"]

WORLD: Final = "kobrowser-clickkeep"
"""The isolated world of the watcher (not the mirror's, which is read apart)."""

_INSTALL: Final = WATCHER + "\n;globalThis.__kbClickWatch && globalThis.__kbClickWatch.read();"
"""The watcher, its state taken as the baseline at once (its first answer is about later)."""

_READ: Final = (
    "(() => { const w = globalThis.__kbClickWatch; if (!w) return 'none';"
    " const r = w.read(); return typeof r === 'string' ? r : 'texts'; })()"
)
"""``same`` when nothing that can change the map changed since the last read."""


class _World(msgspec.Struct, gc=False):
    executionContextId: int


class _Value(msgspec.Struct, frozen=True, gc=False):
    value: Any = None


class _Evaluated(msgspec.Struct, gc=False):
    result: _Value = _Value()
    exceptionDetails: Any = None


_WORLD: Final = msgspec.json.Decoder(_World)
_EVALUATED: Final = msgspec.json.Decoder(_Evaluated)


class _Kept:
    """What is kept of one session: its watcher's context and its last map."""

    __slots__ = ("answered", "busy", "context", "found", "uses", "version")

    def __init__(self) -> None:
        self.context: int | None = None
        self.version: int | None = None  # the frame-tree count when context was asked for
        self.found: ClickableMap | None = None
        self.uses = 0
        self.busy = False  # a change is expected: captured in the batch, the watcher read first
        self.answered = False  # the watcher answered in this snapshot's batch


class ClickKeep:
    """A tab's clickable maps kept between snapshots (see the module).

    Args:
        version: a session's count of frame-tree events (None: not followed,
            its map is captured every time).

    Attributes:
        stats: ``reused`` (maps taken as kept), ``captured`` (read afresh),
            ``late`` (captured after the batch, the watcher having seen a change).
    """

    def __init__(self, version: Callable[[CDPSession], int | None]) -> None:
        self._version = version
        self._kept: weakref.WeakKeyDictionary[CDPSession, _Kept] = weakref.WeakKeyDictionary()
        self._reading: dict[CDPSession, _Kept] = {}
        self._asked: list[_Kept] = []
        self._fresh = False
        self._acted = False
        self.stats: dict[str, int] = {"reused": 0, "captured": 0, "late": 0}

    def acted(self) -> None:
        """The tab acted on the page: the next snapshot expects its maps changed."""
        self._acted = True

    def begin(self, *, fresh: bool) -> None:
        """A snapshot starts (``fresh``: every map is captured)."""
        self._reading = {}
        self._asked = []
        self._fresh = fresh
        self._acted, acted = False, self._acted
        if acted:
            for kept in self._kept.values():
                kept.busy = True

    def calls(self, maps: ClickableMaps, session: CDPSession) -> list[BatchCall]:
        """The batch calls of ``session``'s map; its own last (a capture or a read)."""
        frame_id = session.target_id
        version = self._version(session)
        if not frame_id or version is None:
            return [maps.call(session)]
        kept = self._kept.get(session)
        calls: list[BatchCall] = []
        new = kept is None
        if kept is None:
            kept = self._kept[session] = _Kept()
            calls.append(
                (
                    session,
                    "Page.addScriptToEvaluateOnNewDocument",
                    {"source": _INSTALL, "worldName": WORLD, "runImmediately": True},
                    None,
                )
            )
        if kept.context is None or kept.version != version:
            kept.found = None  # of another document, or of a state not watched
            kept.version = version
            # A new document's watcher saw it being built (not so one installed now).
            kept.busy = not new
            calls.append(self._context_call(session, frame_id, kept))
        else:
            read = {"expression": _READ, "contextId": kept.context, "returnByValue": True}
            kept.answered = False
            self._asked.append(kept)
            if not (self._fresh or kept.busy or kept.found is None or kept.uses + 1 >= FULL_EVERY):
                self._reading[session] = kept
                decode = functools.partial(self._answered, maps, session, kept)
                return [(session, "Runtime.evaluate", read, decode)]
            # Captured anyway: the watcher is read first, so that what it saw
            # before the capture is not reported again (and to learn whether
            # the page is still changing).
            calls.append((session, "Runtime.evaluate", read, functools.partial(_noted, kept)))
        calls.append(maps.call(session))
        return calls

    def _context_call(self, session: CDPSession, frame_id: str, kept: _Kept) -> BatchCall:
        params = {"frameId": frame_id, "worldName": WORLD}
        return (session, "Page.createIsolatedWorld", params, functools.partial(_context, kept))

    def _answered(
        self, maps: ClickableMaps, session: CDPSession, kept: _Kept, raw: msgspec.Raw
    ) -> str:
        answer = _noted(kept, raw)
        if answer == "same" and kept.found is not None:
            kept.uses += 1
            maps.preset(session, kept.found)
            return "same"
        kept.found = None
        return "changed"

    def captured(self, session: CDPSession, found: Mapping[int, int]) -> None:
        """``session``'s map was captured: keep it (if its session is watched)."""
        kept = self._kept.get(session)
        if kept is None:
            return
        self.stats["captured"] += 1
        kept.uses = 0
        kept.found = found if isinstance(found, ClickableMap) and found.single else None

    def read_failed(self, session: CDPSession) -> bool:
        """Whether ``session``'s failed call was a read (its map is captured later)."""
        kept = self._reading.get(session)
        if kept is None:
            return False
        kept.context = None  # a document gone: its world with it
        kept.found = None
        return True

    async def complete(
        self, maps: ClickableMaps, connection: SessionConnection, *, timeout: float
    ) -> None:
        """Capture the maps whose watcher saw a change (after the snapshot's batch).

        Cancelling the caller abandons the calls.
        """
        reading, self._reading = self._reading, {}
        for kept in self._asked:
            if not kept.answered:
                kept.context = None  # the read failed: the document (and its world) went away
        self._asked = []
        calls: list[BatchCall] = []
        late: list[tuple[CDPSession, int]] = []
        for session, kept in reading.items():
            version = self._version(session)
            if maps.has(session) and version == kept.version:
                self.stats["reused"] += 1
                continue
            maps.forget(session)
            kept.found = None
            frame_id = session.target_id
            if (kept.context is None or version != kept.version) and frame_id:
                kept.version = version
                calls.append(self._context_call(session, frame_id, kept))
            late.append((session, len(calls)))
            calls.append(maps.call(session))
        if not calls:
            return
        self.stats["late"] += len(late)
        results = await connection.call_many(calls, timeout=timeout)
        for session, at in late:
            if isinstance(results[at], KoBrowserError):
                maps.failed(session)


def _noted(kept: _Kept, raw: msgspec.Raw) -> str:
    """The watcher's answer, noted: a change makes the next snapshot expect one."""
    evaluated = _EVALUATED.decode(raw)
    answer = evaluated.result.value if evaluated.exceptionDetails is None else None
    kept.answered = True
    kept.busy = answer != "same"
    if answer == "none":
        kept.context = None  # no watcher in that world: ask for it again
    return str(answer)


def _context(kept: _Kept, raw: msgspec.Raw) -> int:
    context = _WORLD.decode(raw).executionContextId
    kept.context = context
    return context
