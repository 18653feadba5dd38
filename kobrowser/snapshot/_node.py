"""The printed element of a snapshot (:class:`Node`).

It lives apart from ``_tree`` so that the text-run and label passes
(``_runs``, ``_labels``), which create and inspect nodes, can import it
without importing the walk that imports them. ``_tree`` re-exports it.
"""

from __future__ import annotations

import msgspec

__all__ = ["Node"]


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
