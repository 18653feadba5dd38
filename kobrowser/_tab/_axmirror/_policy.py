"""When a tab builds, uses and drops its mirror (the snapshotter's side)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

from kobrowser._tab._axmirror._mirror import DocumentMirror, MirrorAnswer, Spawn
from kobrowser._tab._axmirror._settings import AXMirrorSettings
from kobrowser.snapshot._ax import counted_nodes

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession
    from kobrowser.snapshot import AXNode

__all__ = ["REPEATS", "TabMirror"]

REPEATS: Final = 3
"""Full fetches in a row of one top document that give it a mirror from
``AXMirrorSettings.repeat_min_nodes`` nodes on."""

_Key = TypeVar("_Key", bound=Hashable)


def _drop_gone(mirrors: dict[_Key, DocumentMirror], live: Collection[_Key]) -> None:
    """Close and forget the mirrors whose key is not ``live``."""
    for key in [k for k in mirrors if k not in live]:
        mirrors.pop(key).close()


class TabMirror:
    """The mirrors of a tab's top document and out-of-process frames, used where they pay.

    A full fetch reports its top document's size (:meth:`after_full`); one of
    at least ``min_nodes`` nodes starts the background crawl. Later
    snapshots ask :meth:`top_nodes` first and fetch in full when it answers
    None. Each out-of-process frame's document (its session's own
    document) gets a mirror of its own the same way (:meth:`frame_nodes`,
    :meth:`after_frames`), dropped when the frame detaches or its session
    closes. So does each same-process child frame's document (a mirror on
    its parent's session naming the frame: :meth:`same_frame_nodes`,
    :meth:`after_same_frames`), dropped when the frame leaves its session's
    frame tree.

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
        self._frames: dict[CDPSession, DocumentMirror] = {}
        self._same: dict[tuple[CDPSession, str], DocumentMirror] = {}
        # The root node id of the top document read in full last, and how
        # many full fetches in a row read it.
        self._root: str | None = None
        self._reads = 0

    @property
    def mirror(self) -> DocumentMirror | None:
        """The document mirror, once one was started."""
        return self._mirror

    @property
    def frame_mirrors(self) -> dict[CDPSession, DocumentMirror]:
        """Out-of-process frame session -> the mirror of its document (a copy)."""
        return dict(self._frames)

    @property
    def same_frame_mirrors(self) -> dict[tuple[CDPSession, str], DocumentMirror]:
        """(session, frame id) of a same-process child frame -> its mirror (a copy)."""
        return dict(self._same)

    @property
    def enabled(self) -> bool:
        """Whether the settings in force keep mirrors at all."""
        return self._settings().enabled

    @property
    def verify(self) -> bool:
        """Whether the settings in force ask for verify mode."""
        return self._settings().verify

    def _current(self) -> DocumentMirror | None:
        settings = self._settings()
        if (
            self._mirror is not None or self._frames or self._same
        ) and settings != self._mirror_settings:
            self.close()  # settings changed: new mirrors follow them
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

    def after_full(self, nodes: Sequence[AXNode], *, timeout: float) -> None:
        """A full fetch read these top-document nodes: build a mirror if it pays.

        It pays for a document of ``min_nodes`` nodes at once, and for one of
        ``repeat_min_nodes`` at its :data:`REPEATS` th full fetch in a row.
        """
        mirror = self._current()
        settings = self._settings()
        root = nodes[0].nodeId if nodes else None
        self._reads = self._reads + 1 if root == self._root else 1
        self._root = root
        if not settings.enabled or self._page.closed:
            return
        least = settings.min_nodes
        if self._reads >= REPEATS:
            least = min(least, settings.repeat_min_nodes)
        if not _pays(nodes, least):
            return
        if mirror is None:
            mirror = DocumentMirror(self._page, settings, self._spawn)
            self._mirror, self._mirror_settings = mirror, settings
        mirror.start_crawl(timeout, nodes)

    async def frame_nodes(
        self,
        oopifs: Sequence[tuple[str, CDPSession, CDPSession]],
        *,
        fresh: bool,
        timeout: float,
    ) -> dict[CDPSession, list[AXNode]]:
        """Out-of-process frame session -> its document's nodes, for the mirrors that answer.

        Mirrors of frames no longer in ``oopifs`` (detached) or whose
        session closed are dropped first. A session missing from the result
        is fetched in full.

        Args:
            oopifs: ``(frame_id, session, parent_session)`` of each out-of-process frame.
            fresh: skip the mirrors (the caller fetches in full).
            timeout: deadline of each CDP call.

        Raises:
            AssertionError: verify mode found a difference with a full fetch.

        Cancelling the caller abandons the barrier (the mirrors stay usable).
        """
        _drop_gone(self._frames, {session for _, session, _ in oopifs if not session.closed})
        return await self._answers(self._frames, fresh=fresh, timeout=timeout)

    def after_frames(self, read: Mapping[CDPSession, Sequence[AXNode]], *, timeout: float) -> None:
        """Full fetches read these out-of-process frame documents: mirror those that pay.

        Args:
            read: frame session -> the nodes of its document as read in full.
            timeout: deadline of each CDP call of the crawls.
        """
        self._start(self._frames, read, lambda session: (session, None), timeout=timeout)

    async def same_frame_nodes(
        self,
        children: Mapping[CDPSession, Sequence[str]],
        *,
        fresh: bool,
        timeout: float,
    ) -> dict[str, list[AXNode]]:
        """Same-process child frame id -> its document's nodes, for the mirrors that answer.

        Mirrors of frames not in ``children`` (the frames each session
        served at the last snapshot) or whose session closed are dropped
        first. A frame missing from the result is fetched in full.

        Raises:
            AssertionError: verify mode found a difference with a full fetch.
        """
        live = {
            (session, frame_id)
            for session, frame_ids in children.items()
            if not session.closed
            for frame_id in frame_ids
        }
        _drop_gone(self._same, live)
        found = await self._answers(self._same, fresh=fresh, timeout=timeout)
        return {frame_id: nodes for (_session, frame_id), nodes in found.items()}

    def after_same_frames(
        self,
        present: Sequence[tuple[CDPSession, str]],
        read: Mapping[tuple[CDPSession, str], Sequence[AXNode]],
        *,
        timeout: float,
    ) -> None:
        """A snapshot saw these same-process child frames and ``read`` some of them in full.

        Mirrors of frames not ``present`` are dropped; a frame read in full
        with at least ``min_nodes`` nodes gets a mirror (its crawl starts).
        """
        _drop_gone(self._same, set(present))
        self._start(self._same, read, lambda key: key, timeout=timeout)

    async def _answers(
        self, mirrors: dict[_Key, DocumentMirror], *, fresh: bool, timeout: float
    ) -> dict[_Key, list[AXNode]]:
        """Key -> nodes of each of ``mirrors`` that answers (the others are fetched in full)."""
        found: dict[_Key, list[AXNode]] = {}
        if fresh or not mirrors or not self._settings().enabled:
            return found
        self._current()  # settings changed: the mirrors are dropped
        for key, mirror in list(mirrors.items()):
            nodes = await mirror.nodes(timeout=timeout)
            if nodes is not None:
                found[key] = nodes
        return found

    def _start(
        self,
        mirrors: dict[_Key, DocumentMirror],
        read: Mapping[_Key, Sequence[AXNode]],
        where: Callable[[_Key], tuple[CDPSession, str | None]],
        *,
        timeout: float,
    ) -> None:
        """Start (or restart) the crawl of each document read in full that pays.

        ``where(key)`` is the mirror's session and frame id (None: the
        session's own document).
        """
        self._current()
        settings = self._settings()
        if not settings.enabled:
            return
        for key, nodes in read.items():
            session, frame_id = where(key)
            if not _pays(nodes, settings.min_nodes) or session.closed:
                continue
            mirror = mirrors.get(key)
            if mirror is None:
                mirror = mirrors[key] = DocumentMirror(session, settings, self._spawn, frame_id)
                self._mirror_settings = settings
            mirror.start_crawl(timeout, nodes)

    def close(self) -> None:
        """Stop and forget the mirrors. Idempotent."""
        if self._mirror is not None:
            self._mirror.close()
        for mirror in [*self._frames.values(), *self._same.values()]:
            mirror.close()
        self._frames.clear()
        self._same.clear()
        self._mirror = self._mirror_settings = None


def _pays(nodes: Sequence[AXNode], min_nodes: int) -> bool:
    """Whether a document read in full is large enough for a mirror.

    Its :func:`~kobrowser.snapshot._ax.counted_nodes` are counted only when
    it has ``min_nodes`` nodes at all (the count is never more than that):
    most documents are far below, and counting walks every node.
    """
    return len(nodes) >= min_nodes and counted_nodes(nodes) >= min_nodes
