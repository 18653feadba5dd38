"""What the CBOR pipe's flat answer makes of an AX node: the oracle for its tests.

``flatten`` turns a decoded node (``AXNode`` or the walk's ``_WalkAXNode``)
into the :class:`~kobrowser.snapshot._ax.FlatAXNode` the codec's projection
of the answer (``FLAT_AX_KEEP``) decodes to: role, name and value unwrapped,
only the properties the walk reads, and no children for a shown text piece.
"""

from __future__ import annotations

from typing import Any

from kobrowser.snapshot import AXNode
from kobrowser.snapshot._ax import FlatAXNode, FlatAXProperty
from kobrowser.snapshot._states import READ_PROPERTIES


def _unwrapped(value: Any) -> Any:
    return None if value is None else value.value


def flatten(node: AXNode, *, text_children: bool | None = None) -> FlatAXNode:
    """``node`` as a lean answer's flat node.

    ``text_children``: whether its ``childIds`` stay; by default they do
    unless the node is a shown ``StaticText`` (the projection's rule when Chrome
    sends ``ignored`` before ``role``, as it does).
    """
    role = _unwrapped(node.role)
    if text_children is None:
        text_children = node.ignored or role != "StaticText"
    return FlatAXNode(
        nodeId=node.nodeId,
        ignored=node.ignored,
        role=role,
        name=_unwrapped(node.name),
        value=_unwrapped(node.value),
        properties=tuple(
            FlatAXProperty(prop.name, prop.value.value)
            for prop in node.properties
            if prop.name in READ_PROPERTIES
        ),
        childIds=tuple(node.childIds) if text_children else (),
        backendDOMNodeId=node.backendDOMNodeId,
    )
