"""The snapshot a tab hands to its caller: text, id map and printed tree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from .snapshot._ax import gc_paused

if TYPE_CHECKING:
    from ._tab._fetch import FrameDocument
    from .cdp import CDPSession
    from .snapshot import Node

__all__ = ["Element", "Snapshot", "number_elements"]


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
    session: Any = msgspec.field(default=None)
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
    """A numbered accessibility snapshot of a tab (see SNAPSHOT-FORMAT.md).

    Attributes:
        text: the snapshot text, exactly in the documented format.
        id_map: id -> :class:`Element`.
        nodes: the printed tree's top-level elements.
        url: the top document's URL.
        title: the top document's title ("" when none).
    """

    __slots__ = ("_documents", "_owners", "id_map", "nodes", "text", "title", "url")

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

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Snapshot {self.url!r} {len(self.id_map)} elements>"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: text, url, title and the element tree."""
        return {
            "url": self.url,
            "title": self.title,
            "text": self.text,
            "nodes": [node.to_dict() for node in self.nodes],
        }


def number_elements(
    tree: list[Node], ordered: list[Node], documents: Mapping[str, FrameDocument]
) -> tuple[dict[int, Element], list[Element]]:
    """The id map and the element tree of a numbered printed tree.

    One pre-order walk, the order :func:`format_snapshot` numbers in; each
    node is checked against ``ordered`` so an id can never name the wrong
    element.
    """
    elements: dict[int, Element] = {}
    roots: list[Element] = []
    stack: list[tuple[Node, int, list[Element]]] = [(node, 0, roots) for node in reversed(tree)]
    pop = stack.pop
    push = stack.append
    frame_id: str | None = None
    loader_id = ""
    session: CDPSession | None = None
    index = 0
    with gc_paused():
        while stack:
            node, depth, siblings = pop()
            if ordered[index] is not node:  # pragma: no cover - a numbering bug
                raise AssertionError(f"snapshot numbering mismatch at id {index + 1}")
            index += 1
            if node.frame_id != frame_id:
                frame_id = node.frame_id
                document = documents.get(frame_id)
                loader_id = document.loader_id if document else ""
                session = document.session if document else None
            element = Element(
                id=index,
                role=node.role,
                name=node.name,
                value=node.value,
                states=node.states,
                frame_id=frame_id,
                backend_node_id=node.backend_node_id,
                loader_id=loader_id,
                session=session,
                depth=depth,
                children=[],
            )
            siblings.append(element)
            elements[index] = element
            children = node.children
            if children:
                target = element.children
                for child in reversed(children):
                    push((child, depth + 1, target))
    if index != len(ordered):  # pragma: no cover - a numbering bug
        raise AssertionError("snapshot numbering mismatch: element count")
    return elements, roots
