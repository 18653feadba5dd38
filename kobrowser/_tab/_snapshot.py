"""The snapshot a tab hands to its caller: text, id map and printed tree."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from kobrowser._tab._capture._geometry import Box, Measured, measure
from kobrowser._validate import check
from kobrowser.snapshot import Node, SnapshotDiff, diff_snapshots, format_snapshot

if TYPE_CHECKING:
    from kobrowser._tab._fetch import FrameDocument
    from kobrowser._tab._stableids import StableIds
    from kobrowser.cdp import CDPSession
    from kobrowser.snapshot import ElementFactory, ParsedSnapshot
    from kobrowser.snapshot._format import FormatCache

__all__ = ["Element", "Snapshot", "element_factory", "number_snapshot"]


class Element(msgspec.Struct, kw_only=True):
    """One numbered element of a snapshot.

    Attributes:
        id: its number in the snapshot text.
        role, name, value, states: as printed (name and value untruncated).
        frame_id: the frame whose document holds it.
        backend_node_id: Chrome's backend DOM node id (a text line carries its
            first text node's; None only when Chrome reported none).
        loader_id: the frame's document id when the snapshot was taken.
        session: the CDP session that serves the frame.
        depth: printed depth (0 = top level).
        children: the printed children.
    """

    id: int
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    frame_id: str
    backend_node_id: int | None
    loader_id: str
    session: CDPSession | None = None
    depth: int = 0
    children: list[Element] = msgspec.field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the session object), children nested."""
        return {
            "id": self.id,
            "role": self.role,
            "name": self.name,
            "value": self.value,
            "states": list(self.states),
            "frame_id": self.frame_id,
            "backend_node_id": self.backend_node_id,
            "loader_id": self.loader_id,
            "children": [child.to_dict() for child in self.children],
        }


class Snapshot:
    """A numbered accessibility snapshot of a tab (see docs/snapshot-format.md).

    Attributes:
        text: the snapshot text, exactly in the documented format.
        id_map: id -> :class:`Element`, in print order (with stable ids,
            ``Browser.ids == "stable"``, the ids need not ascend).
        nodes: the printed tree's top-level elements.
        url: the top document's URL.
        title: the top document's title ("" when none).
    """

    __slots__ = ("_documents", "_issued", "_owners", "id_map", "nodes", "text", "title", "url")

    def __init__(
        self,
        text: str,
        id_map: Mapping[int, Element],
        nodes: list[Element],
        url: str,
        title: str,
        *,
        documents: Mapping[str, FrameDocument] | None = None,
        owners: Mapping[str, int] | None = None,
        issued: int = 0,
    ) -> None:
        self.text = text
        self.id_map = id_map
        self.nodes = nodes
        self.url = url
        self.title = title
        # Frame id -> document (session, loader, parent) and frame id -> owner
        # <iframe> backend node id, as they were when the snapshot was taken.
        self._documents: Mapping[str, FrameDocument] = documents or {}
        self._owners: Mapping[str, int] = owners or {}
        # With stable ids: the highest id the tab had given when this was
        # taken (an id up to it not in id_map is an element gone); else 0.
        self._issued = issued

    def __str__(self) -> str:
        return self.text

    @property
    def document_id(self) -> str:
        """The top document's loader id: another one after every navigation or reload."""
        top = next((d for d in self._documents.values() if d.parent_id is None), None)
        return "" if top is None else top.loader_id

    def __repr__(self) -> str:
        return f"<Snapshot {self.url!r} {len(self.id_map)} elements>"

    def diff(self, previous: Snapshot | ParsedSnapshot | str) -> SnapshotDiff:
        """What changed since ``previous`` (see :func:`kobrowser.diff_snapshots`).

        Lines are matched without their ids, so renumbering alone is no
        change; the result names elements by their ids in this snapshot.
        ``previous`` may also be snapshot text (a saved baseline).
        """
        return diff_snapshots(previous, self)

    async def _measure(
        self, *, timeout: float | None, ids: Collection[int] | None = None
    ) -> Measured:
        """Place this snapshot's elements (all, or ``ids``) on the page (see ``_geometry``)."""
        return await measure(self._documents, self._owners, self.id_map, timeout=timeout, ids=ids)

    async def boxes(self, *, timeout: float | None = None) -> dict[int, Box]:
        """Where every element of this snapshot is now, in one batched call per frame.

        One ``DOMSnapshot.captureSnapshot`` per frame session (the page and
        each out-of-process iframe), not one call per element; nothing in the
        page changes (no scroll, no script, no focus change). Coordinates are
        top-viewport CSS pixels like :meth:`Tab.box`, placed through every
        iframe above the element.

        Args:
            timeout: deadline of each call, in seconds (default: the
                connection's).

        Returns:
            Id -> :class:`Box`, for every id whose element has a layout box
            now (an element that is not rendered, was removed, or whose frame
            went away is left out).

        Raises:
            InvalidArgumentError: a bad timeout.
            TargetClosedError: the tab was closed or crashed.
            CDPTimeoutError: the page did not answer in time.
            KoBrowserError: the snapshot holds no page (an empty snapshot).

        Cancelling the caller abandons the calls.
        """
        check(timeout=timeout)
        measured = await self._measure(timeout=timeout)
        found = (measured.box(element_id) for element_id in measured.boxes)
        return {box.id: box for box in found if box is not None}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: text, url, title and the element tree."""
        return {
            "url": self.url,
            "title": self.title,
            "text": self.text,
            "nodes": [node.to_dict() for node in self.nodes],
        }


def number_snapshot(
    tree: list[Node],
    *,
    title: str | None,
    documents: Mapping[str, FrameDocument],
    text_limit: int | None = 80,
    cache: FormatCache | None = None,
    ids: StableIds | None = None,
) -> tuple[str, dict[int, Element], list[Element]]:
    """Number and format a printed tree, making its elements in the same pass.

    ``cache``: lines and elements of subtrees of an earlier snapshot of the
    same document with the same ``text_limit`` (see
    :class:`~kobrowser.snapshot._format.FormatCache`); the elements taken
    from it are shared with that snapshot (they are equal in every field).

    ``ids``: the tab's stable ids (kobrowser/_tab/_stableids.py), or None
    for ids 1, 2, 3... in print order; with them no ``cache`` is used.

    Returns:
        The snapshot text, the id map (in print order) and the top-level
        elements.
    """
    if ids is not None:
        ids.begin({frame_id: document.loader_id for frame_id, document in documents.items()})
        text, ordered, roots = format_snapshot(
            tree,
            title=title,
            text_limit=text_limit,
            element=element_factory(documents),
            number=ids.number,
        )
        return text, {element.id: element for element in ordered}, roots
    text, ordered, roots = format_snapshot(
        tree,
        title=title,
        text_limit=text_limit,
        element=element_factory(documents),
        cache=cache,
    )
    return text, dict(enumerate(ordered, 1)), roots


def element_factory(documents: Mapping[str, FrameDocument]) -> ElementFactory[Element]:
    """What :func:`format_snapshot` calls to make each numbered :class:`Element`.

    Each element gets its frame's document (loader id, session) as it was
    fetched; consecutive nodes of one frame share one lookup.
    """
    frame_id: str | None = None
    loader_id = ""
    session: CDPSession | None = None

    def element(number: int, node: Node, depth: int, children: list[Element]) -> Element:
        nonlocal frame_id, loader_id, session
        if node.frame_id != frame_id:
            frame_id = node.frame_id
            document = documents.get(frame_id)
            loader_id = document.loader_id if document else ""
            session = document.session if document else None
        return Element(
            id=number,
            role=node.role,
            name=node.name,
            value=node.value,
            states=node.states,
            frame_id=frame_id,
            backend_node_id=node.backend_node_id,
            loader_id=loader_id,
            session=session,
            depth=depth,
            children=children,
        )

    return element
