"""How a Browser follows its page targets: attach, set up, forget.

Listeners here run inline on the connection's reader (fast, no awaits);
anything that needs a round trip is spawned in the browser's task group.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
import msgspec

from ._exceptions import KoBrowserError
from ._tab import Tab
from .cdp._events import ATTACHED

if TYPE_CHECKING:
    from ._browser import Browser
    from ._context import BrowserContext
    from .cdp import ChromeProcess, Connection

__all__ = ["TargetTracking"]


class _Gone(msgspec.Struct):
    targetId: str | None = None


_GONE = msgspec.json.Decoder(_Gone)


class TargetTracking:
    """The target bookkeeping part of :class:`~kobrowser.Browser`."""

    _process: ChromeProcess | None
    _tabs: dict[str, Tab]
    _current: Tab | None
    _created: set[str]
    _owned: set[str]
    _unclaimed: deque[Tab]
    _tabs_changed: anyio.Event
    _contexts: dict[str, BrowserContext]
    _download_dir: Path | None
    _temp_download_dir: Path | None
    _attaching_existing: bool

    @property
    def connection(self) -> Connection:  # pragma: no cover - defined by Browser
        raise NotImplementedError

    def _spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        raise NotImplementedError  # pragma: no cover - defined by Browser

    def _on_attached(self, raw: msgspec.Raw) -> None:
        attached = ATTACHED.decode(raw)
        info = attached.targetInfo
        session = self.connection.session(attached.sessionId)
        existing = self._attaching_existing
        if info.type != "page" or info.targetId in self._tabs or (existing and self._process):
            # Not a page, or the blank tab a launched Chrome starts with: let it be.

            async def release() -> None:
                with contextlib.suppress(KoBrowserError):
                    await session.send("Runtime.runIfWaitingForDebugger", timeout=5)
                    await self.connection.root.send(
                        "Target.detachFromTarget", {"sessionId": session.id}, timeout=5
                    )

            self._spawn(release)
            return
        tab = Tab(cast("Browser", self), session, info.targetId)
        tab._context_id = info.browserContextId
        tab._opener_id = info.openerId
        if info.openerId in self._owned:
            self._owned.add(info.targetId)
        self._tabs[info.targetId] = tab
        self._spawn(lambda: self._set_up(tab, existing))

    async def _set_up(self, tab: Tab, existing: bool) -> None:
        try:
            # Needed even when Chrome reports no wait: an auto-attached popup
            # that shares its opener's renderer blocks the opener until then.
            await tab.cdp.send("Runtime.runIfWaitingForDebugger")
            await tab._init()
        except KoBrowserError as exc:
            tab._init_error = exc
            tab._closed = True
            self._forget(tab)
        else:
            if tab.target_id not in self._created and not existing:
                self._unclaimed.append(tab)
        finally:
            tab._ready.set()
            self._notify_tabs()

    def _on_gone(self, raw: msgspec.Raw) -> None:
        target_id = _GONE.decode(raw).targetId
        tab = self._tabs.get(target_id) if target_id else None
        if tab is not None and tab.cdp.closed:
            tab._closed = True
            self._forget(tab)

    def _on_connection_closed(self, reason: str) -> None:
        for tab in self._tabs.values():
            tab._page.close(reason)
        self._notify_tabs()

    def _notify_tabs(self) -> None:
        self._tabs_changed.set()
        self._tabs_changed = anyio.Event()

    def _tab_of_frame(self, frame_id: str) -> Tab | None:
        tab = self._tabs.get(frame_id)
        if tab is not None:
            return tab
        for tab in self._tabs.values():
            if any(frame.frame_id == frame_id for frame in tab._frames.frames()):
                return tab
        return None

    def _download_dir_of(self, tab: Tab | None) -> Path:
        if tab is not None and tab._context_id in self._contexts:
            directory = self._contexts[tab._context_id].download_dir
            if directory is not None:
                return directory
        directory = self._download_dir or self._temp_download_dir
        assert directory is not None
        return directory

    def _forget(self, tab: Tab) -> None:
        self._tabs.pop(tab.target_id, None)
        self._owned.discard(tab.target_id)
        with contextlib.suppress(ValueError):
            self._unclaimed.remove(tab)
        if self._current is tab:
            self._current = None
        tab._page.close("the tab was closed")
