"""Mirrored snapshots built incrementally: only the changed subtrees are walked again.

The AX mirror (``kobrowser/_tab/_axmirror``) answers each snapshot of a large
page with the top document's nodes and the ids of the nodes whose subtree
changed since its previous answer. :class:`IncrementalBuilder` keeps the
top document's :class:`~kobrowser.snapshot._memo.BuildMemo` from one
mirrored snapshot to the next and hands it to ``build_tree`` with those
ids, so unchanged subtrees are reused instead of walked (see
docs/ax-mirror.md). Anything else (a full fetch, a selector scope, a gap in
the mirror's answers, a new mirror) builds in full and starts a new memo.

In verify mode every incremental build is compared with a full build of the
same nodes, text and id map, and a difference raises ``AssertionError``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from kobrowser.snapshot import build_tree
from kobrowser.snapshot._filter import FilterCache
from kobrowser.snapshot._format import FormatCache
from kobrowser.snapshot._memo import BuildMemo

if TYPE_CHECKING:
    from kobrowser._tab._axmirror import MirrorAnswer
    from kobrowser._tab._fetch import FrameDocument
    from kobrowser._tab._snapshot import Element
    from kobrowser.snapshot import FrameAX, Node

__all__ = ["IncrementalBuilder", "compare_numbered"]

_MAX_FILTERS = 4
"""Sets of modes whose filter caches are kept at once."""

_MAX_SPANS = 400_000
"""Spans a numbering cache may hold before it starts over (each pins old lines)."""


class IncrementalBuilder:
    """Builds a tab's top document, reusing what the previous mirrored build recorded.

    Attributes:
        enabled: build from the memo (False: every build is a full one,
            while the memo still follows the answers; for benchmarks).
        stats: ``incremental`` (builds that reused a memo), ``full`` (builds
            that started one), ``reused`` / ``walked`` (subtrees reused and
            recorded afresh, summed over incremental builds).
    """

    def __init__(self) -> None:
        self._memo: BuildMemo | None = None
        self._store: object = None
        self._serial = -1
        self._cache: FormatCache | None = None
        self._filters: dict[tuple[bool, bool, int | None], FilterCache] = {}
        self._built = False  # the last build went through the memo
        self.enabled = True
        self.stats: dict[str, int] = {"incremental": 0, "full": 0, "reused": 0, "walked": 0}

    def build(
        self,
        root: FrameAX,
        answer: MirrorAnswer | None,
        *,
        scope: Collection[tuple[str, int]] | None,
        built: list[Node] | None = None,
    ) -> tuple[list[Node], bool]:
        """The printed tree of ``root``; whether it reused the previous build.

        Args:
            root: the top frame's tree, as fetched.
            answer: the mirror's answer the top frame's nodes came from, or
                None for a full fetch.
            scope: the selector's scope, as for ``build_tree``.
            built: a full fetch's tree, built already (no scope): taken as it is.
        """
        self._built = False
        if answer is None:
            # A full fetch: the memo stays (it follows the mirror's answers).
            if built is not None and scope is None:
                return built, False
            return build_tree(root, scope=scope), False
        memo, self._memo = self._memo, None  # until this build completes
        usable = (
            memo is not None
            and answer.dirty is not None
            and answer.store is self._store
            and answer.serial == self._serial + 1
            and memo.frame_id == root.frame_id
        )
        if not self.enabled or scope is not None or root.nodes is not answer.nodes:
            if memo is not None and usable and answer.dirty is not None:
                # Not built with the memo, but it follows the answer: what
                # changed is forgotten (map changes are found at the next
                # update, against the map the entries were built with).
                memo.forget(answer.dirty)
                self._memo, self._serial = memo, answer.serial
            return build_tree(root, scope=scope), False
        index, parents, by_backend, proper = answer.current_index()
        if memo is None or not usable:
            memo = BuildMemo(root.frame_id, root.clickable)
            self.stats["full"] += 1
        else:
            memo.update(answer.dirty, root.clickable, answer.nodes, parents, by_backend)
        incremental = bool(memo.entries)
        tree = build_tree(root, memo=memo, index=index, proper=proper)
        self._built = True
        if incremental:
            self.stats["incremental"] += 1
            self.stats["reused"] += memo.reused
            self.stats["walked"] += memo.walked
        self._memo, self._store, self._serial = memo, answer.store, answer.serial
        return tree, incremental

    def format_cache(
        self, frame_id: str, documents: Mapping[str, FrameDocument], text_limit: int | None
    ) -> FormatCache | None:
        """The numbering cache for the tree just built, or None: number it in full.

        Only a tree built through the memo (its reused nodes are the ones
        the cache knows), or filtered from one with :meth:`filter_cache`, is
        numbered with it; the cache is kept
        per text limit and top document (loader, session), and dropped when
        it holds far more spans than a page has lines (they pin old lines).
        """
        if not self._built:
            return None
        document = documents.get(frame_id)
        key = (text_limit, frame_id, document.loader_id, id(document.session)) if document else None
        cache = self._cache
        if key is None or cache is None or cache.key != key or len(cache.spans) > _MAX_SPANS:
            cache = self._cache = FormatCache(key)
        return cache

    def filter_cache(
        self, interactive: bool, compact: bool, depth: int | None
    ) -> FilterCache | None:
        """The cache of filtered subtrees for these modes, for the tree just built.

        None unless the tree was built through the memo. One cache per set
        of modes (at most a few kept; an agent uses one or two).
        """
        if not self._built:
            return None
        key = (interactive, compact, depth)
        filters = self._filters
        cache = filters.get(key)
        if cache is None:
            if len(filters) >= _MAX_FILTERS:
                filters.clear()
            cache = filters[key] = FilterCache(key)
        return cache

    def reset(self) -> None:
        """Forget the memo and the caches (the next builds are full ones)."""
        self._memo = self._cache = None
        self._filters = {}


Numbered = tuple[str, Mapping[int, "Element"], list["Element"]]


def compare_numbered(made: Numbered, full: Callable[[], Numbered]) -> None:
    """Raise ``AssertionError`` when an incremental snapshot differs from a full build.

    Args:
        made: the incremental snapshot's text and id map.
        full: makes the same snapshot from a full build of the same nodes.
    """
    text, elements, roots = full()
    if text != made[0]:
        mine, theirs = made[0].splitlines(), text.splitlines()
        at = next(
            (i for i, pair in enumerate(zip(mine, theirs, strict=False)) if pair[0] != pair[1]),
            min(len(mine), len(theirs)),
        )
        raise AssertionError(
            f"incremental snapshot differs from a full build at line {at + 1}: "
            f"{mine[at : at + 1]!r} != {theirs[at : at + 1]!r} ({len(mine)} vs {len(theirs)} lines)"
        )
    if made[1].keys() != elements.keys() or [e.id for e in made[2]] != [e.id for e in roots]:
        raise AssertionError("incremental snapshot's ids differ from a full build's")
    for number, element in elements.items():
        if _fields(made[1][number]) != _fields(element):
            raise AssertionError(
                f"incremental element {number} differs from a full build: "
                f"{_fields(made[1][number])!r} != {_fields(element)!r}"
            )


def _fields(element: Element) -> tuple[Any, ...]:
    return (
        element.id,
        element.role,
        element.name,
        element.value,
        element.states,
        element.frame_id,
        element.backend_node_id,
        element.loader_id,
        id(element.session),
        element.depth,
        [child.id for child in element.children],
    )
