"""A tab's snapshots: fetch every frame, build, filter, number; keep the latest.

The :class:`Snapshotter` owns the per-tab snapshot state: the latest
:class:`~kobrowser.Snapshot` (its ids are the ones actions use) and the
:class:`~kobrowser._tab._fetch.FetchCache` (frame trees, same-process child
frames and ``<iframe>`` owners kept between snapshots), and the tab's
:class:`~kobrowser._tab._axmirror.TabMirror`: the top document's nodes come from
it when it has them, and so do out-of-process frames' documents from
their own mirrors (see docs/ax-mirror.md).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import anyio

from kobrowser._concurrency import gather, unwrapping
from kobrowser._tab._ahead import TopAhead
from kobrowser._tab._clickable import ClickableMaps
from kobrowser._tab._clickkeep import ClickKeep
from kobrowser._tab._clickwatch import ClickWatch
from kobrowser._tab._fetch import FetchCache, fetch_frames, resolve_scope
from kobrowser._tab._hints import add_hints, hint_calls, name_icons
from kobrowser._tab._incremental import IncrementalBuilder, compare_numbered
from kobrowser._tab._snapshot import Element, Snapshot, number_snapshot
from kobrowser._tab._stableids import StableIds
from kobrowser.snapshot import build_tree, filter_tree
from kobrowser.snapshot._ax import document_title, gc_paused

if TYPE_CHECKING:
    from collections.abc import Mapping

    from kobrowser._tab._ahead import Numbered
    from kobrowser._tab._axmirror import MirrorAnswer, TabMirror
    from kobrowser._tab._fetch import FetchedFrames, FrameDocument
    from kobrowser._tab._frames import FrameRegistry
    from kobrowser.cdp import CDPSession
    from kobrowser.snapshot import AXNode, Node
    from kobrowser.snapshot._filter import FilterCache
    from kobrowser.snapshot._format import FormatCache

__all__ = ["Snapshotter"]


class Snapshotter:
    """Takes a tab's snapshots and keeps the latest one and the fetch caches.

    Args:
        page: the tab's page session.
        frames: the tab's frame registry (its out-of-process frames).
        mirror: the tab's AX mirror, or None for none.
        stable: number elements with stable ids (kobrowser/_tab/_stableids.py)
            instead of depth-first from 1.

    Attributes:
        latest: the latest snapshot (None before the first).
        cache: what fetches keep between snapshots.
        mirror: the tab's AX mirror (None: never used).
        clickwatch: keeps the page's clickable map between mirrored
            snapshots (kobrowser/_tab/_clickwatch.py); None without a mirror.
        clickkeep: keeps every frame session's clickable map between the
            other snapshots (kobrowser/_tab/_clickkeep.py).
        incremental: builds mirrored snapshots from the previous one
            (kobrowser/_tab/_incremental.py).
        ids: the tab's stable ids (None: depth-first numbering).
        build_ahead: build a big top document while its clickable map is
            captured (kobrowser/_tab/_ahead.py); False: after (for tests
            and benchmarks).
        stats: ``ahead`` (snapshots whose top document was built ahead and
            kept), ``numbered ahead`` (of those, numbered ahead too) and
            ``ahead refused`` (built ahead, then built again because the
            map changed it).
    """

    def __init__(
        self,
        page: CDPSession,
        frames: FrameRegistry,
        mirror: TabMirror | None = None,
        *,
        stable: bool = False,
    ) -> None:
        self._page = page
        self._frames = frames
        self.latest: Snapshot | None = None
        self.cache = FetchCache()
        self.mirror = mirror
        self.clickwatch = ClickWatch(page) if mirror is not None else None
        self.clickkeep = ClickKeep(frames.frame_tree_version)
        self.incremental = IncrementalBuilder()
        self.ids = StableIds() if stable else None
        self.build_ahead = True
        self.stats: dict[str, int] = {"ahead": 0, "numbered ahead": 0, "ahead refused": 0}

    async def take(
        self,
        *,
        interactive: bool,
        compact: bool,
        depth: int | None,
        selector: str | None,
        clickable: bool,
        text_limit: int | None,
        limit: int | None,
        timeout: float,
        fresh: bool = False,
    ) -> Snapshot:
        """Fetch every frame, merge, filter, number and format (see ``Tab.snapshot``).

        ``limit``: the most bytes of AX data to read (``Browser.snapshot_limit``).
        The arguments are checked by the caller. The new snapshot becomes
        :attr:`latest` once complete; a failure or cancellation keeps the
        previous one.
        """
        page, frames, cache = self._page, self._frames, self.cache
        keep = self.clickkeep
        keep.begin(fresh=fresh)
        maps = ClickableMaps(keep) if clickable else None
        # Frame sessions still setting up are waited for, at most one deadline:
        # a slow set-up must not fail the snapshot (the session is usable already).
        with anyio.move_on_after(timeout):
            await frames.settled()
        oopifs = [(f.frame_id, f.session, f.parent) for f in frames.frames()]
        mirror = self.mirror
        answer = None if mirror is None else await mirror.top_answer(fresh=fresh, timeout=timeout)
        top = None if answer is None else answer.nodes
        framed = (
            {} if mirror is None else await mirror.frame_nodes(oopifs, fresh=fresh, timeout=timeout)
        )
        same = (
            {}
            if mirror is None
            else await mirror.same_frame_nodes(cache.children, fresh=fresh, timeout=timeout)
        )
        watch = self.clickwatch
        if watch is not None and watch.active and mirror is not None and not mirror.enabled:
            # The mirror was switched off: no kept map, and no watcher left in
            # the page (or in each new document). Switched on again, the next
            # mirrored snapshot installs it again.
            await watch.remove(timeout=timeout)
        if watch is not None and maps is not None and (top is not None or watch.active):
            # Mirrored snapshots (large pages) keep the page's clickable map;
            # the others read it afresh (and keep that).
            assert mirror is not None
            await watch.prepare(maps, timeout=timeout, verify=mirror.verify, fresh=top is None)
        scope: set[tuple[str, int]] | None = None
        fetch = functools.partial(
            fetch_frames,
            page,
            oopifs,
            timeout=timeout,
            cache=cache,
            frame_tree_version=frames.frame_tree_version,
            clickable=maps,
            limit=limit,
            top_nodes=top,
            frame_nodes=framed,
            child_nodes=same,
        )
        ahead: TopAhead | None = None
        # fetch_frames and the selector run in task groups: a failure of the top
        # document or an invalid selector comes back as itself, not as a group
        # (and the caller's cancellation is never lost to an error on the way out).
        async with unwrapping():
            if selector is not None:
                fetched, found = await gather(
                    fetch, lambda: resolve_scope(page, selector, timeout=timeout)
                )
                top_frame = fetched.root.frame_id
                scope = {(top_frame, backend) for backend in found}
            elif maps is None or top is not None or not self.build_ahead or maps.has(page):
                fetched = await fetch()
            else:
                # A full read with its map still to come: the top document is
                # built (and numbered) while the renderer captures the map.
                number = (
                    None
                    if self.ids is not None
                    else functools.partial(
                        _numbered,
                        interactive=interactive,
                        compact=compact,
                        depth=depth,
                        text_limit=text_limit,
                    )
                )
                ahead = TopAhead(page, functools.partial(maps.has, page), number)
                async with anyio.create_task_group() as group:
                    group.start_soon(ahead.run)
                    try:
                        fetched = await fetch(top_hook=ahead)
                    finally:
                        ahead.close()
        built = None
        numbered_ahead = None
        if ahead is not None:
            built = ahead.tree_for(fetched.root.frame_id, fetched.root_raw, fetched.root.clickable)
            if built is not None:
                fetched.adopt_root(built.nodes)
                numbered_ahead = ahead.numbered_for(fetched.documents)
                self.stats["ahead"] += 1
                self.stats["numbered ahead"] += numbered_ahead is not None
            elif ahead.ahead is not None:
                self.stats["ahead refused"] += 1

        if maps is not None and maps.any_hidden():
            # Names of icon-only controls, asked only for lines that would
            # print unnamed (the AX trees say which): the top one is decoded now.
            with gc_paused():
                fetched.decode_root()
                wanted = hint_calls(maps, fetched.documents, fetched.frames)
            await add_hints(wanted, timeout=timeout)
        # Building, filtering and numbering allocate hundreds of thousands of
        # objects, and the fetched AX structs hold tens of thousands of lists:
        # one collector pause over the whole stretch (no await in it), with the
        # fetched data let go before it ends, so no collection walks it.
        with gc_paused():
            snapshot = self._finish(
                fetched,
                None if built is None else built.tree,
                numbered_ahead,
                answer,
                maps,
                watch,
                oopifs,
                framed,
                same,
                scope,
                interactive=interactive,
                compact=compact,
                depth=depth,
                text_limit=text_limit,
                timeout=timeout,
                fresh=fresh,
            )
            del fetched  # the AX structs (a mirror keeps its own nodes)
        self.latest = snapshot
        return snapshot

    def _finish(
        self,
        fetched: FetchedFrames,
        built: list[Node] | None,
        numbered_ahead: Numbered | None,
        answer: MirrorAnswer | None,
        maps: ClickableMaps | None,
        watch: ClickWatch | None,
        oopifs: list[tuple[str, CDPSession, CDPSession]],
        framed: dict[CDPSession, list[AXNode]],
        same: dict[str, list[AXNode]],
        scope: set[tuple[str, int]] | None,
        *,
        interactive: bool,
        compact: bool,
        depth: int | None,
        text_limit: int | None,
        timeout: float,
        fresh: bool,
    ) -> Snapshot:
        """Build, filter, number and format what ``take`` fetched (no I/O, no await).

        ``built``: the top document's tree, built already (``_ahead``), and
        ``numbered_ahead`` that tree numbered (None: numbered here).
        """
        fetched.decode_root()
        mirror, cache = self.mirror, self.cache
        top = None if answer is None else answer.nodes
        if watch is not None and maps is not None:
            watch.after(maps)
        root_nodes = fetched.root.nodes
        # A fresh snapshot is a one-off full read: it starts no mirror (a
        # scraper's single snapshot of a big page must not set off a crawl).
        if mirror is not None and top is None and not fresh:
            mirror.after_full(root_nodes, timeout=timeout)
        if mirror is not None and oopifs and not fresh:
            read_in_full = {
                session: read.nodes
                for frame_id, session, _ in oopifs
                if session not in framed and (read := fetched.frames.get(frame_id)) is not None
            }
            mirror.after_frames(read_in_full, timeout=timeout)
        if mirror is not None:
            _after_same_frames(mirror, fetched, oopifs, same, timeout, start=not fresh)
        title = document_title(root_nodes)

        filtered = interactive or compact or depth is not None
        ids = self.ids

        def numbered(
            tree: list[Node], cache: FormatCache | None = None, kept: FilterCache | None = None
        ) -> tuple[str, dict[int, Element], list[Element]]:
            return _numbered(
                tree,
                title,
                fetched.documents,
                interactive=interactive,
                compact=compact,
                depth=depth,
                text_limit=text_limit,
                cache=cache,
                kept=kept,
                ids=ids,
            )

        incremental = self.incremental
        tree, reused = incremental.build(fetched.root, answer, scope=scope, built=built)
        if maps is not None:
            name_icons(tree, fetched.documents, maps)  # frames built ahead of the hints
        lines = (
            incremental.format_cache(fetched.root.frame_id, fetched.documents, text_limit)
            if ids is None
            else None  # a format cache keeps sequential ids
        )
        kept = incremental.filter_cache(interactive, compact, depth) if filtered else None
        if numbered_ahead is not None:
            text, elements, roots = numbered_ahead
        else:
            text, elements, roots = numbered(tree, lines, kept)
        if (reused or built is not None) and mirror is not None and mirror.verify:
            compare_numbered(
                (text, elements, roots), lambda: numbered(build_tree(fetched.root, scope=scope))
            )
        snapshot = Snapshot(
            text,
            elements,
            roots,
            fetched.url,
            title,
            documents=fetched.documents,
            owners=dict(cache.owners),
            issued=0 if ids is None else ids.issued,
        )
        return snapshot


def _numbered(
    tree: list[Node],
    title: str,
    documents: Mapping[str, FrameDocument],
    *,
    interactive: bool,
    compact: bool,
    depth: int | None,
    text_limit: int | None,
    cache: FormatCache | None = None,
    kept: FilterCache | None = None,
    ids: StableIds | None = None,
) -> tuple[str, dict[int, Element], list[Element]]:
    """Filter (in the modes asked), number and format a printed tree."""
    if interactive or compact or depth is not None:
        # The full tree needs no filtering (filter_tree would only copy it).
        tree = filter_tree(tree, interactive=interactive, compact=compact, depth=depth, cache=kept)
    return number_snapshot(
        tree,
        title=title or None,
        documents=documents,
        text_limit=text_limit,
        cache=cache,
        ids=ids,
    )


def _after_same_frames(
    mirror: TabMirror,
    fetched: FetchedFrames,
    oopifs: list[tuple[str, CDPSession, CDPSession]],
    same: dict[str, list[AXNode]],
    timeout: float,
    *,
    start: bool,
) -> None:
    """Tell the mirror which same-process child frames the fetch saw and read in full.

    Mirrors of frames gone are dropped; with ``start``, frames read in full
    that pay get one.
    """
    roots = {fetched.root.frame_id, *(frame_id for frame_id, _, _ in oopifs)}
    present = [
        (document.session, frame_id)
        for frame_id, document in fetched.documents.items()
        if frame_id not in roots
    ]
    read_in_full = {
        (session, frame_id): read.nodes
        for session, frame_id in present
        if start and frame_id not in same and (read := fetched.frames.get(frame_id)) is not None
    }
    mirror.after_same_frames(present, read_in_full, timeout=timeout)
