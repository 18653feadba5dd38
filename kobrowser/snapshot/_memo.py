"""What a build keeps to build the same document again, reusing unchanged subtrees.

A page changes little between two snapshots of an agent loop (a click
renames a button), yet the walk of ``_tree`` visits every AX node. With a
:class:`BuildMemo`, :func:`~kobrowser.snapshot.build_tree` records, for every
printed element of the top frame whose children it walks, what that
element's subtree added to its parent's children list (its *output*: the
finished node, nothing, or a dropped wrapper's children between run ends)
and how many things an agent acts on it printed. A later build of the same
document reuses that output instead of walking the subtree when

* no node of the subtree changed since (the caller says which nodes did
  and forgets them first, with all their ancestors: :meth:`BuildMemo.forget`),
* the element is reached with the same walk context: carrier name, inside
  a text field, clickable owner (for the top frame, scope-less builds, that
  is all the context a subtree's walk reads besides its own nodes and the
  clickable map entries of its own DOM nodes).

Why that is exact (the walk's rules, ``_tree``): a printed element's
children go into its own children list, which is finished (label markers
resolved, text merged) before the walk leaves it; what reaches its
parent's list is only whole ``Node`` objects and run ends, exactly as
recorded. Its candidate decisions (``_promote``) compare the acting count
before and after its own subtree, so they do not depend on what came
before. Nothing that crosses a subtree's edge is recorded: an element
whose subtree holds an ``iframe`` (the child frame's content is fetched
anew each time) is never recorded; neither are unprinted elements (their
text joins their parent's runs) nor leaves (nothing to save).

Entries hold finished ``Node`` objects that the new tree shares with the
old one; nothing changes a node once it is finished (``filter_tree``
copies, formatting reads).

The caller must hand the build a proper tree (every node listed by at most
one node, no cycle): the walk visits a node listed twice only once, at its
first place, and a reused subtree does not mark its nodes as visited.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from kobrowser.snapshot._ax import AXNode

__all__ = ["BuildMemo"]

# An entry: (carrier, inside a text field, clickable owner), the output, acting count.
Entry = tuple[tuple[str, bool, int], list[Any], int]


class BuildMemo:
    """Recorded outputs of one document's printed subtrees (see the module).

    Args:
        frame_id: the frame (document) whose nodes the entries describe.

    Attributes:
        frame_id: the frame the entries are for (others are never looked up).
        entries: AX node id -> entry.
        clickable: the clickable map the entries were built with; an entry
            also depends on that map's values for its own DOM nodes.
        reused: subtrees reused by the last build.
        walked: printed elements the last build recorded afresh.
    """

    __slots__ = ("clickable", "entries", "frame_id", "reused", "walked")

    def __init__(self, frame_id: str, clickable: Mapping[int, int]) -> None:
        self.frame_id = frame_id
        self.clickable = clickable
        self.entries: dict[str, Entry] = {}
        self.reused = 0
        self.walked = 0

    def forget(self, node_ids: Iterable[str]) -> None:
        """Forget the entries of ``node_ids`` (changed nodes and every ancestor of them)."""
        entries = self.entries
        if entries:
            for node_id in node_ids:
                entries.pop(node_id, None)

    def update(
        self,
        dirty: Collection[str] | None,
        clickable: Mapping[int, int],
        nodes: Collection[AXNode],
        parents: Mapping[str, str],
        by_backend: Mapping[int, str] | None = None,
    ) -> None:
        """Forget what a build of the changed nodes cannot reuse.

        Args:
            dirty: ids of the nodes whose subtree changed since the build
                that recorded the entries (the changed nodes and all their
                ancestors), or None when that is not known (forget all).
            clickable: the clickable map the next build uses. The entries
                of nodes whose DOM node maps differently in it, and of their
                ancestors, are forgotten too.
            nodes: the nodes the next build walks (to find the DOM nodes
                whose map value changed, and the entries of nodes gone).
            parents: child id -> parent id for ``nodes``.
            by_backend: DOM backend id -> the id of the node of ``nodes``
                that has it (it may name other ids too), when known: spares
                a look through ``nodes``.
        """
        if dirty is None:
            self.clear()
            return
        self.forget(dirty)
        if len(self.entries) > len(nodes):
            # Entries of nodes removed since (a removed node is not dirty,
            # its parent is): drop them, or they pile up on a changing page.
            held = {node.nodeId for node in nodes}
            self.entries = {k: v for k, v in self.entries.items() if k in held}
        old, self.clickable = self.clickable, clickable
        if old is clickable or not self.entries:
            return
        if bool(old) != bool(clickable):
            self.clear()
            return
        keys = map_changes(old, clickable)
        if not keys:
            return
        entries = self.entries
        if by_backend is not None:
            found = [by_backend[key] for key in keys if key in by_backend]
        else:
            found = [node.nodeId for node in nodes if node.backendDOMNodeId in keys]
        gone: set[str] = set()  # walked up from an earlier start (and a guard against a cycle)
        for start in found:
            node_id: str | None = start
            while node_id is not None and node_id not in dirty and node_id not in gone:
                gone.add(node_id)
                entries.pop(node_id, None)
                node_id = parents.get(node_id)

    def clear(self) -> None:
        """Forget every entry."""
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)


def map_changes(old: Mapping[int, int], new: Mapping[int, int]) -> set[int]:
    """DOM backend ids whose clickable-map value differs between ``old`` and ``new``."""
    if old is new:
        return set()
    a = old.items() if isinstance(old, dict) else dict(old).items()
    b = new.items() if isinstance(new, dict) else dict(new).items()
    return {key for key, _ in a ^ b}
