"""When a tab builds, uses and drops its mirror (the snapshotter's side)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._mirror import DocumentMirror, MirrorAnswer, Spawn
from ._settings import AXMirrorSettings

if TYPE_CHECKING:
    from ..cdp import CDPSession
    from ..snapshot import AXNode

__all__ = ["TabMirror"]


class TabMirror:
    """The mirror of a tab's top document, used only where it pays.

    A full fetch reports its top document's size (:meth:`after_full`); one of
    at least ``min_nodes`` nodes starts the background crawl. Later
    snapshots ask :meth:`top_nodes` first and fetch in full when it answers
    None. Same-process and out-of-process child frames are always fetched
    in full (they are separate documents).

    Args:
        page: the tab's page session.
        settings: returns the settings in force (the browser's, read on each call).
        spawn: runs the crawl in the browser's task group.
    """

    def __init__(
        self, page: CDPSession, settings: Callable[[], AXMirrorSettings], spawn: Spawn
    ) -> None:
        self._page = page
        self._settings = settings
        self._spawn = spawn
        self._mirror: DocumentMirror | None = None
        self._mirror_settings: AXMirrorSettings | None = None

    @property
    def mirror(self) -> DocumentMirror | None:
        """The document mirror, once one was started."""
        return self._mirror

    @property
    def verify(self) -> bool:
        """Whether the settings in force ask for verify mode."""
        return self._settings().verify

    def _current(self) -> DocumentMirror | None:
        settings = self._settings()
        if self._mirror is not None and settings != self._mirror_settings:
            self.close()  # settings changed: a new mirror follows them
        if not settings.enabled:
            return None
        return self._mirror

    async def top_nodes(self, *, fresh: bool, timeout: float) -> list[AXNode] | None:
        """The top document's current AX nodes from the mirror, or None: fetch in full.

        Args:
            fresh: skip the mirror (the caller fetches in full).
            timeout: deadline of each CDP call.

        Raises:
            AssertionError: verify mode found a difference with a full fetch.

        Cancelling the caller abandons the barrier (the mirror stays usable).
        """
        answer = await self.top_answer(fresh=fresh, timeout=timeout)
        return None if answer is None else answer.nodes

    async def top_answer(self, *, fresh: bool, timeout: float) -> MirrorAnswer | None:
        """Like :meth:`top_nodes`, with what changed since the mirror's previous answer.

        Raises:
            AssertionError: verify mode found a difference with a full fetch.

        Cancelling the caller abandons the barrier (the mirror stays usable).
        """
        mirror = self._current()
        if fresh or mirror is None:
            return None
        return await mirror.answer(timeout=timeout)

    def after_full(self, node_count: int, *, timeout: float) -> None:
        """A full fetch read ``node_count`` top-document nodes: build a mirror if it pays."""
        mirror = self._current()
        settings = self._settings()
        if not settings.enabled or node_count < settings.min_nodes or self._page.closed:
            return
        if mirror is None:
            mirror = DocumentMirror(self._page, settings, self._spawn)
            self._mirror, self._mirror_settings = mirror, settings
        mirror.start_crawl(timeout)

    def close(self) -> None:
        """Stop and forget the mirror. Idempotent."""
        if self._mirror is not None:
            self._mirror.close()
        self._mirror = self._mirror_settings = None
