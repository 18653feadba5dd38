"""How a Browser follows its page targets: attach, set up, hand out, forget.

:class:`TargetTracker` is the browser's bookkeeping of its tabs. It is
generic over the tab type and reaches the browser only through the hooks it
is given, so its logic runs without a browser: ``tests/browser/test_targets.py``
feeds it recorded ``Target`` events.

Its listeners run inline on the connection's reader (fast, no awaits);
anything that needs a round trip is spawned through the ``spawn`` hook.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, Generic, Protocol, TypeVar

import anyio
import msgspec

from kobrowser._exceptions import KoBrowserError, TargetClosedError, WaitTimeoutError
from kobrowser.cdp._events import ATTACHED, DETACHED, TargetInfo

__all__ = ["TargetTracker", "TrackedTab"]


class TrackedTab(Protocol):
    """What the tracker reads of a tab."""

    @property
    def target_id(self) -> str:
        """Chrome's id of the page target."""
        ...

    @property
    def closed(self) -> bool:
        """True once the tab was closed or its session is gone."""
        ...


TabT = TypeVar("TabT", bound=TrackedTab)

Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class _Entry(Generic[TabT]):
    """One attached page target: its tab, and whether its set-up ended."""

    __slots__ = ("ready", "tab")

    def __init__(self, tab: TabT) -> None:
        self.tab = tab
        self.ready = anyio.Event()


class TargetTracker(Generic[TabT]):
    """The page targets of one browser connection and the tabs made for them.

    Every page target Chrome attaches (``Target.setAutoAttach``, flattened)
    gets a tab from ``make_tab``, set up in the background by ``set_up``. A
    tab is *ready* once its set-up ended; tabs that pages opened (popups,
    ``target=_blank``) wait in a queue for :meth:`next_opened`.

    Args:
        make_tab: ``make_tab(session_id, target_info)`` creates the tab of a
            new page target (inline, no I/O).
        set_up: sets a new tab up (awaited in the background); a
            :class:`KoBrowserError` from it makes the tab fail to open.
        release: ``release(session_id)`` lets go of a target the browser
            does not track (not a page, or a launched Chrome's first blank tab).
        close_tab: ``close_tab(tab, reason)`` marks a tab closed and fails
            whatever waits on it with ``reason``.
        spawn: runs a coroutine function in the browser's task group.
        keep_existing: track the pages that exist when auto-attach starts
            (True when connected to a running browser; a launched Chrome's
            only existing page is its blank start-up tab).
    """

    def __init__(
        self,
        *,
        make_tab: Callable[[str, TargetInfo], TabT],
        set_up: Callable[[TabT], Awaitable[None]],
        release: Callable[[str], None],
        close_tab: Callable[[TabT, str], None],
        spawn: Spawn,
        keep_existing: bool,
    ) -> None:
        self._make_tab = make_tab
        self._set_up_tab = set_up
        self._release = release
        self._close_tab = close_tab
        self._spawn = spawn
        self._keep_existing = keep_existing
        self._entries: dict[str, _Entry[TabT]] = {}
        self._created: set[str] = set()  # targets being opened by new_tab (never popups)
        self._owned: set[str] = set()  # targets to close on exit (connect mode)
        self._opened: deque[TabT] = deque()  # tabs pages opened, for next_opened
        self._changed = anyio.Event()
        self._failed: dict[str, KoBrowserError] = {}  # set-up errors of created targets
        self._existing = False
        self._current: TabT | None = None

    # -- listeners (inline on the connection's reader) --------------------

    def on_attached(self, raw: msgspec.Raw) -> None:
        """``Target.attachedToTarget``: make and set up the tab of a new page."""
        attached = ATTACHED.decode(raw)
        info = attached.targetInfo
        existing = self._existing
        if (
            info.type != "page"
            or info.targetId in self._entries
            or (existing and not self._keep_existing)
        ):
            self._release(attached.sessionId)
            return
        entry = _Entry(self._make_tab(attached.sessionId, info))
        if info.openerId in self._owned:
            self._owned.add(info.targetId)
        self._entries[info.targetId] = entry
        self._spawn(lambda: self._set_up(entry, existing))

    def on_gone(self, raw: msgspec.Raw) -> None:
        """``Target.detachedFromTarget`` / ``targetDestroyed`` / ``targetCrashed``."""
        target_id = DETACHED.decode(raw).targetId
        entry = self._entries.get(target_id) if target_id else None
        if entry is not None and entry.tab.closed:
            self.forget(entry.tab, "the tab was closed")

    def on_connection_closed(self, reason: str) -> None:
        """The connection ended: every tab is closed with ``reason``."""
        for entry in self._entries.values():
            self._close_tab(entry.tab, reason)
        self._notify()

    @contextlib.contextmanager
    def attaching_existing(self) -> Iterator[None]:
        """Around the ``Target.setAutoAttach`` call: Chrome reports the pages
        that already exist before it answers."""
        self._existing = True
        try:
            yield
        finally:
            self._existing = False

    async def _set_up(self, entry: _Entry[TabT], existing: bool) -> None:
        tab = entry.tab
        try:
            await self._set_up_tab(tab)
        except KoBrowserError as exc:
            if tab.target_id in self._created:
                self._failed[tab.target_id] = exc
            self.forget(tab, f"the tab could not be set up: {exc}")
        else:
            if tab.target_id not in self._created and not existing:
                self._opened.append(tab)
        finally:
            entry.ready.set()
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    # -- reading -----------------------------------------------------------

    def get(self, target_id: str) -> TabT | None:
        """The tab of a target (also while it is being set up), if tracked."""
        entry = self._entries.get(target_id)
        return entry.tab if entry is not None else None

    def all(self) -> list[TabT]:
        """Every tracked tab, ready or not, oldest first."""
        return [entry.tab for entry in self._entries.values()]

    def ready(self) -> list[TabT]:
        """The tabs that are set up and open, oldest first."""
        return [
            entry.tab
            for entry in self._entries.values()
            if entry.ready.is_set() and not entry.tab.closed
        ]

    def owned(self, target_id: str) -> bool:
        """True when the browser opened this target (or a tab it opened did)."""
        return target_id in self._owned

    @property
    def current(self) -> TabT | None:
        """The tab actions on the browser apply to: the one chosen, else the newest ready one."""
        if self._current is None or self._current.closed:
            tabs = self.ready()
            self._current = tabs[-1] if tabs else None
        return self._current

    @current.setter
    def current(self, tab: TabT) -> None:
        self._current = tab

    # -- opening and forgetting ---------------------------------------------

    def expect(self, target_id: str) -> None:
        """``new_tab`` created this target: it is owned and not handed out as opened."""
        self._created.add(target_id)
        self._owned.add(target_id)

    def expected(self, target_id: str) -> None:
        """``new_tab`` is done with this target (whatever the outcome)."""
        self._created.discard(target_id)
        self._failed.pop(target_id, None)

    async def wait_ready(self, target_id: str, timeout: float) -> TabT:
        """The tab of ``target_id`` once set up.

        Raises:
            WaitTimeoutError: not attached and set up within ``timeout``.
            KoBrowserError: its set-up failed (that error; only for targets
                announced with :meth:`expect`).
        """
        with anyio.move_on_after(timeout):
            while (entry := self._entries.get(target_id)) is None or not entry.ready.is_set():
                if (error := self._failed.get(target_id)) is not None:
                    raise error
                await self._changed.wait()
            with contextlib.suppress(ValueError):
                self._opened.remove(entry.tab)
            return entry.tab
        raise WaitTimeoutError(f"the new tab did not get ready within {timeout:g} s")

    async def next_opened(self, timeout: float) -> TabT:
        """The oldest tab a page opened not yet returned, or the next one.

        Raises:
            WaitTimeoutError: none within ``timeout``.
        """
        with anyio.move_on_after(timeout):
            while True:
                while self._opened:
                    tab = self._opened.popleft()
                    if not tab.closed:
                        return tab
                await self._changed.wait()
        raise WaitTimeoutError(f"no new tab opened within {timeout:g} s")

    def forget(self, tab: TabT, reason: str = "the tab was closed") -> None:
        """Stop tracking ``tab`` and close it with ``reason``."""
        entry = self._entries.get(tab.target_id)
        if entry is not None and entry.tab is tab:
            del self._entries[tab.target_id]
        self._owned.discard(tab.target_id)
        with contextlib.suppress(ValueError):
            self._opened.remove(tab)
        if self._current is tab:
            self._current = None
        if tab.target_id in self._created:  # new_tab waits for it: tell it
            self._failed.setdefault(tab.target_id, TargetClosedError(reason))
            self._notify()
        self._close_tab(tab, reason)
