"""Clickable elements Chrome leaves out of its tree, grafted back for the walk.

Chrome's accessibility tree has no node for an SVG shape without a name
(``<rect>``, ``<circle>``, ``<path>`` ...), and marks an empty box
(``<div style="cursor:pointer">`` with nothing in it) ignored. When the page
made such an element clickable (its only signal is ``cursor: pointer`` or a
listener), the spec still gives it a line. The clickable map of its
session says which elements those can be: a :class:`ClickableMap` carries,
besides the map itself, its clickable elements with no child node
(:attr:`ClickableMap.hidden`), each with its role word, its DOM ancestors
and its position in document order.

:func:`graft_hidden` prepares one walk of a frame: a hidden element that is
in the frame's tree but ignored is replaced by a node of its role that is
not ignored; one that is not in the tree at all gets a node of its own,
listed among the children of its nearest ancestor that is in the tree, in
document order (before the first child that comes after it in the
document; children without a DOM node keep their place). The walk then
treats it as any other clickable element without an interactive role
(``_promote``): one line, ``clickable``, and an element around it is a
wrapper. Nothing of the frame is changed: the replaced nodes live in the
walk's own ``nodeId -> node`` map.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import msgspec

from kobrowser.snapshot._ax import AXNode, FlatAXNode, raw_name, raw_role
from kobrowser.snapshot._roles import INTERACTIVE, TRANSPARENT, role_info

__all__ = [
    "GRAFTED",
    "ROOT_KEY",
    "ClickableMap",
    "HiddenClickable",
    "derived_name",
    "graft_hidden",
    "hidden_of",
    "unnamed_candidates",
]

MAX_DEPTH = 256
"""The most DOM ancestors kept of a hidden candidate."""

ROOT_KEY = "\0root"
"""Key of the frame's root in the walk's node map when grafting replaced it."""

GRAFTED = "\0grafted"
"""Key of a node in the walk's node map, when grafting changed it, whose
``childIds`` are the nodes the walk's memo must neither reuse nor record: the
tree's ancestors of every grafted element (no node lists this key)."""


class HiddenClickable(msgspec.Struct, frozen=True, gc=False):
    """A clickable element with no child node, as its session's DOM has it.

    Attributes:
        role: Chrome's role for its line (``graphics-symbol`` for an SVG
            shape, ``generic`` otherwise).
        ancestors: Backend ids of its DOM ancestors, nearest first (when
            ``source`` is not -1, its map works them out when first asked,
            see :meth:`ClickableMap.ancestors`).
        position: Its place in document order (larger is later).
        source: -1, or the index of the document in its map's sources
            (:meth:`ClickableMap.add_source`) that holds it.
    """

    role: str
    ancestors: tuple[int, ...]
    position: int
    source: int = -1


class ClickableMap(dict[int, int]):
    """A clickable map (see ``FrameAX.clickable``) with its hidden candidates.

    Attributes:
        hidden: Backend id -> :class:`HiddenClickable`, for every clickable
            element with no child node.
        positions: Backend id of every DOM node -> its place in document
            order (filled only when :attr:`hidden` is not empty).
            Worked out from the map's sources when first read (only a
            grafted element absent from its frame's tree needs it).
        names: Backend id of a hidden candidate -> the name derived from
            what the page says about it (``file:``, ``id:`` or ``title:``,
            see ``kobrowser._tab._hints``), given to it when Chrome gives none.
        single: Whether it was read from a single document without shadow
            roots (a watcher of that document sees every change that
            matters, see ``kobrowser._tab._clickkeep``).
        asked: Backend ids of the hidden candidates the page was asked
            about for this map (named or not): a map kept between
            snapshots is not asked about them again.
    """

    __slots__ = (
        "_lineage",
        "_positions",
        "_present",
        "_sources",
        "asked",
        "hidden",
        "names",
        "single",
    )

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.hidden: dict[int, HiddenClickable] = {}
        self.names: dict[int, str] = {}
        self.asked: set[int] = set()
        self.single = False
        self._positions: dict[int, int] | None = {}
        # (parentIndex, backendNodeId, offset) of each captured document.
        self._sources: list[tuple[list[int], list[int], int]] = []
        self._lineage: dict[int, tuple[int, ...]] = {}
        # Frame id -> (its nodes, the candidates among them): the last scan.
        self._present: dict[str, tuple[list[AXNode], dict[int, AXNode]]] = {}

    @property
    def positions(self) -> dict[int, int]:
        """Backend id of every DOM node of the sources -> its place in document order."""
        positions = self._positions
        if positions is None:
            positions = self._positions = {}
            for _, backends, offset in self._sources:
                positions.update(zip(backends, range(offset, offset + len(backends)), strict=False))
        return positions

    @positions.setter
    def positions(self, value: dict[int, int]) -> None:
        self._positions = value

    def add_source(self, parents: list[int], backends: list[int], offset: int) -> int:
        """Keep a captured document's node arrays (for :attr:`positions` and
        :meth:`ancestors`, worked out when first needed); its index."""
        self._sources.append((parents, backends, offset))
        self._positions = None
        return len(self._sources) - 1

    def ancestors(self, backend: int) -> tuple[int, ...]:
        """Backend ids of the DOM ancestors of hidden candidate ``backend``, nearest first."""
        info = self.hidden[backend]
        if info.source < 0:
            return info.ancestors
        known = self._lineage.get(backend)
        if known is None:
            parents, backends, offset = self._sources[info.source]
            found: list[int] = []
            up = parents[info.position - offset]
            while 0 <= up < len(backends) and len(found) < MAX_DEPTH:
                found.append(backends[up])
                up = parents[up]
            known = self._lineage[backend] = tuple(found)
        return known

    def present(self, frame_id: str, nodes: list[AXNode]) -> dict[int, AXNode]:
        """The hidden candidates of this map's own (mapped to themselves) among
        ``nodes`` (frame ``frame_id``'s), each with its node; kept for that list."""
        cached = self._present.get(frame_id)
        if cached is not None and cached[0] is nodes:
            return cached[1]
        hidden = self.hidden
        found: dict[int, AXNode] = {}
        for node in nodes:
            backend = node.backendDOMNodeId
            if backend is not None and backend in hidden and backend not in found:
                found[backend] = node
        for backend in [b for b in found if self.get(b) != b]:
            del found[backend]
        self._present[frame_id] = (nodes, found)
        return found

    def forget_scans(self) -> None:
        """Forget what :meth:`present` found (a new snapshot's lists may be the
        same objects with other contents: a mirror's)."""
        self._present = {}

    def nothing_to_graft(self, frame_id: str, nodes: list[AXNode]) -> bool:
        """Whether every candidate is in ``nodes`` and not ignored (:func:`graft_hidden`
        would change nothing of that frame)."""
        present = self.present(frame_id, nodes)
        own = sum(1 for backend in self.hidden if self.get(backend) == backend)
        return len(present) == own and not any(node.ignored for node in present.values())

    def copy_with(self, found: dict[int, int]) -> ClickableMap:
        """A map of ``found`` with this map's hidden candidates and positions."""
        out = ClickableMap(found)
        out.hidden = self.hidden
        out._positions = self._positions
        out._sources = self._sources
        out._lineage = self._lineage
        out.names = self.names
        out.asked = self.asked
        out.single = self.single
        return out


def hidden_of(
    clickable: object, frame_id: str | None = None, nodes: list[AXNode] | None = None
) -> dict[int, HiddenClickable] | None:
    """The hidden candidates of a clickable map, None when it has none.

    With ``frame_id`` and ``nodes`` (a frame's): None also when grafting
    would change nothing of that frame (:meth:`ClickableMap.nothing_to_graft`).
    """
    if isinstance(clickable, ClickableMap):
        hidden: dict[int, HiddenClickable] = clickable.hidden
        if not hidden:
            return None
        if frame_id is not None and nodes and clickable.nothing_to_graft(frame_id, nodes):
            return None
        return hidden
    return None


def derived_name(clickable: object, backend: int | None) -> str:
    """The derived name of hidden candidate ``backend`` ("" for none)."""
    if backend is None or not isinstance(clickable, ClickableMap):
        return ""
    return clickable.names.get(backend, "")


def unnamed_candidates(
    clickable: ClickableMap, frames: Iterable[tuple[str, list[AXNode]]]
) -> list[int]:
    """The hidden candidates whose line would print with no name, in document order.

    Only those can take a derived name (``derived_name``): a candidate the
    walk grafts (absent from its frame's tree, or ignored there), or one in
    the tree whose line is a promoted element (a role below the interactive
    ones) that Chrome gives no name. One with an interactive role or with
    a name of its own never shows a derived name, so it is not asked about.

    Args:
        clickable: A session's clickable map.
        frames: Frame id and nodes of every frame the session serves (as fetched).

    Returns:
        Backend ids of the candidates to ask about, earliest first.
    """
    hidden = clickable.hidden
    wanted = {backend for backend in hidden if clickable.get(backend) == backend}
    if not wanted:
        return []
    for frame_id, nodes in frames:
        for backend, node in clickable.present(frame_id, nodes).items():
            if node.ignored:
                continue
            role = raw_role(node)
            kind = role_info(role if isinstance(role, str) else "")[1]
            name = raw_name(node)
            named = isinstance(name, str) and not name.isspace() and bool(name)
            if kind >= INTERACTIVE or kind < TRANSPARENT or (named and kind != TRANSPARENT):
                wanted.discard(backend)
    return sorted(wanted, key=lambda backend: hidden[backend].position)


def graft_hidden(nodes: list[AXNode], by_id: dict[str, AXNode], clickable: ClickableMap) -> bool:
    """Graft ``clickable``'s hidden candidates into ``by_id`` for one walk.

    Args:
        nodes: The frame's nodes (root first).
        by_id: The walk's ``nodeId -> node`` map (root left out); changed in
            place. A replaced root is put under :data:`ROOT_KEY`, and
            :data:`GRAFTED` is set when anything was grafted.
        clickable: The frame's clickable map.

    Returns:
        Whether anything was grafted.
    """
    hidden = clickable.hidden
    by_backend: dict[int, AXNode] = {}
    for node in nodes:
        backend = node.backendDOMNodeId
        if backend is not None:
            by_backend[backend] = node
    root = nodes[0]
    # nodeId of the nearest ancestor in the tree -> [(position, new node)].
    inserts: dict[str, list[tuple[int, AXNode]]] = {}
    grafted = False
    blocked: set[str] = set()
    for backend, info in hidden.items():
        if clickable.get(backend) != backend:
            continue
        present = by_backend.get(backend)
        if present is not None:
            if present.ignored and present.nodeId in by_id:
                by_id[present.nodeId] = _node(
                    present.nodeId, info.role, backend, tuple(present.childIds)
                )
                grafted = True
                blocked.update(_tree_ancestors(clickable.ancestors(backend), by_backend))
            continue
        ancestors = clickable.ancestors(backend)
        for up in ancestors:
            holder = by_backend.get(up)
            if holder is not None:
                node_id = f"hidden:{backend}"
                made = _node(node_id, info.role, backend, ())
                by_id[node_id] = made
                inserts.setdefault(holder.nodeId, []).append((info.position, made))
                blocked.update(_tree_ancestors(ancestors, by_backend))
                break
    positions = clickable.positions
    for holder_id, added in inserts.items():
        holder = root if holder_id == root.nodeId else by_id.get(holder_id)
        if holder is None:
            continue
        added.sort(key=lambda item: item[0])
        # Each child goes before the first listed child that comes after it.
        ids = _before_later(holder.childIds, added, by_id, positions)
        replaced = msgspec.structs.replace(holder, childIds=tuple(ids))
        by_id[ROOT_KEY if holder is root else holder_id] = replaced
        grafted = True
    if grafted:
        by_id[GRAFTED] = _node(GRAFTED, "none", 0, tuple(blocked))
    return grafted


def _tree_ancestors(ancestors: tuple[int, ...], by_backend: dict[int, AXNode]) -> list[str]:
    """nodeIds of the DOM ancestors that are in the tree (its ancestors there)."""
    return [node.nodeId for up in ancestors if (node := by_backend.get(up)) is not None]


def _node(node_id: str, role: str, backend: int, children: tuple[str, ...]) -> AXNode:
    """A flat node of ``role`` (the walk reads flat and full nodes alike)."""
    made = FlatAXNode(nodeId=node_id, role=role, childIds=children, backendDOMNodeId=backend)
    return cast("AXNode", made)


def _before_later(
    child_ids: list[str] | tuple[str, ...],
    added: list[tuple[int, AXNode]],
    by_id: dict[str, AXNode],
    positions: dict[int, int],
) -> list[str]:
    """``child_ids`` with the added nodes (sorted) each before the first later child."""
    ids: list[str] = []
    at = 0
    for cid in child_ids:
        child = by_id.get(cid)
        backend = child.backendDOMNodeId if child is not None else None
        place = positions.get(backend) if backend is not None else None
        if place is not None:
            while at < len(added) and added[at][0] < place:
                ids.append(added[at][1].nodeId)
                at += 1
        ids.append(cid)
    ids.extend(item[1].nodeId for item in added[at:])
    return ids
