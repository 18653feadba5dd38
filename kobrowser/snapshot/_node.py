"""The walk's input and output: a frame's AX tree (:class:`FrameAX`), a printed :class:`Node`.

They live apart from ``_tree`` so that the text-run, label and frame passes
(``_runs``, ``_labels``, ``_walkstate``), which create and inspect them, can
import them without importing the walk that imports those passes. ``_tree``
re-exports both.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from kobrowser.snapshot._ax import AXNode

__all__ = ["FrameAX", "Node"]


class Node(msgspec.Struct, gc=False):
    """One printed element of the snapshot.

    Attributes:
        role: Printed role (lower-case ASCII letters).
        name: Whitespace-normalized, untruncated name; ``""`` when none.
        value: Normalized, untruncated value; ``None`` when not shown.
        states: States in grammar order.
        frame_id: Frame the element lives in.
        backend_node_id: Its DOM ``backendNodeId`` (``None`` if Chrome gave none).
        children: Printed children, in document order.

    Declared ``gc=False`` (see ``_ax``): a node holds only strings, numbers
    and its children list, so it cannot take part in a reference cycle
    unless a node is put inside its own subtree; untracked, the tens of
    thousands a large page builds are not walked by the cyclic garbage
    collector (its children lists still are).
    """

    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    frame_id: str
    backend_node_id: int | None
    children: list[Node] = []


class FrameAX(msgspec.Struct):
    """One frame's AX tree, with the trees of the frames it embeds.

    Attributes:
        frame_id: The CDP frame id.
        nodes: The frame's nodes as ``Accessibility.getFullAXTree`` returns
            them (BFS order, document root first).
        children: Owner ``<iframe>`` element's ``backendDOMNodeId`` (in this
            frame) -> that child frame's tree, or ``None`` when it could not
            be read.
        built: The frame's printed content, built on its own ahead of time
            (:func:`prebuild_frame`), or ``None``. The walk of the embedding
            frame takes it instead of walking ``nodes`` where that gives the
            same result.
        clickable: DOM backend node id -> backend id of the clickable element
            it belongs to, for this frame's document: a clickable element maps
            to itself, a text node inside one to that element (see
            ``kobrowser._tab._clickable``). Empty: no element is known to be
            clickable (focusable ones still are marked).
    """

    frame_id: str
    nodes: list[AXNode]
    children: dict[int, FrameAX | None] = {}
    built: list[Node] | None = None
    clickable: Mapping[int, int] = {}
