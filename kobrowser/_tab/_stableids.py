"""Stable ids: an element keeps its number for as long as it exists in its tab.

A browser launched with ``ids="stable"`` numbers its tabs' snapshots with a
:class:`StableIds` per tab instead of depth-first from 1. An element is keyed
by its frame and its DOM node (``backendNodeId``): the key met again, in any
later snapshot of the same document of that frame, gets the number it got the
first time; a key never met gets the next number of the tab's counter, which
only grows, so no number is ever given to two elements of one tab.

A frame whose document changed (a navigation or reload: a new loader id)
forgets its keys; its elements get new numbers from the same counter, so the
ids of a new document continue above the old ones (docs/snapshot-format.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from kobrowser.snapshot import Node

__all__ = ["IdMode", "StableIds"]

IdMode = Literal["depth-first", "stable"]
"""``"depth-first"`` (ids 1, 2, 3... in print order) or ``"stable"``."""


class StableIds:
    """One tab's numbers of its elements, kept from snapshot to snapshot.

    Use :meth:`begin` once per snapshot with its frames' loader ids, then
    :meth:`number` once per printed node in print order.

    Attributes:
        issued: the highest number given so far (0: none).
    """

    __slots__ = ("_frames", "_seen", "issued")

    def __init__(self) -> None:
        self.issued = 0
        # frame id -> (loader id, {(backend node id, occurrence): number})
        self._frames: dict[str, tuple[str, dict[tuple[int, int], int]]] = {}
        # (frame id, backend node id) -> times met in this snapshot
        self._seen: dict[tuple[str, int], int] = {}

    def begin(self, loaders: Mapping[str, str]) -> None:
        """Start numbering one snapshot whose frames hold these documents.

        ``loaders``: frame id -> loader id of its document now. A frame whose
        loader changed forgets its numbers (a new document); frames not in
        the snapshot keep theirs (a frame that comes back with the same
        document finds them).
        """
        self._seen = {}
        frames = self._frames
        for frame_id, loader in loaders.items():
            kept = frames.get(frame_id)
            if kept is None or kept[0] != loader:
                frames[frame_id] = (loader, {})

    def number(self, node: Node) -> int:
        """The id of ``node``: its number from an earlier snapshot, else a new one.

        A node Chrome gave no DOM node gets a new number each time. Two
        printed nodes of one DOM node are told apart by the order they
        print in.
        """
        backend = node.backend_node_id
        kept = self._frames.get(node.frame_id)
        if backend is None or kept is None:
            self.issued += 1
            return self.issued
        key = (node.frame_id, backend)
        occurrence = self._seen.get(key, 0)
        self._seen[key] = occurrence + 1
        numbers = kept[1]
        found = numbers.get((backend, occurrence))
        if found is None:
            self.issued += 1
            found = numbers[backend, occurrence] = self.issued
        return found
