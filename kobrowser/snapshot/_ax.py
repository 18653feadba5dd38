"""Lean msgspec structs for decoding ``Accessibility.getFullAXTree``.

Only the fields the snapshot reads are declared; msgspec skips every other
field of the payload (``sources``, ``parentId``, ``chromeRole``, ``frameId``,
``description`` ...) without building Python objects for it, which is most of
the bytes of a large page.

All structs are declared with ``gc=False``: they only ever hold strings,
numbers, lists of strings and other such structs, so they cannot take part in
a reference cycle, and untracking them keeps the cyclic garbage collector from
walking tens of thousands of freshly decoded nodes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, Literal, cast, get_args

import msgspec

__all__ = [
    "AX_TREE_DECODER",
    "FLAT_AX_KEEP",
    "AXNode",
    "AXProperty",
    "AXTree",
    "AXValue",
    "FlatAXNode",
    "FlatAXProperty",
    "counted_nodes",
    "decode_ax_tree",
    "decode_snapshot_nodes",
    "document_title",
    "gc_paused",
    "raw_name",
    "raw_role",
]


class AXValue(msgspec.Struct, gc=False):
    """A CDP ``Accessibility.AXValue``: a typed value (string, number, bool ...)."""

    type: str = ""
    value: Any = None


class AXProperty(msgspec.Struct, gc=False):
    """A CDP ``Accessibility.AXProperty``: ``focused``, ``checked``, ``level`` ..."""

    name: str
    value: AXValue


class AXNode(msgspec.Struct, gc=False):
    """A CDP ``Accessibility.AXNode``, reduced to what the snapshot uses."""

    nodeId: str
    ignored: bool = False
    role: AXValue | None = None
    name: AXValue | None = None
    value: AXValue | None = None
    properties: list[AXProperty] = []
    childIds: list[str] = []
    backendDOMNodeId: int | None = None


class AXTree(msgspec.Struct, gc=False):
    """The ``result`` object of ``Accessibility.getFullAXTree``."""

    nodes: list[AXNode]


AX_TREE_DECODER: msgspec.json.Decoder[AXTree] = msgspec.json.Decoder(AXTree)
"""Decodes the ``result`` of ``Accessibility.getFullAXTree`` (raw JSON bytes)."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a burst of allocations.

    Decoding or building a large page allocates a hundred thousand container
    objects; every 700 of them the collector runs, and now and then it walks
    every live object. Pausing it for the burst roughly halves the median
    time. Nothing allocated in the burst forms a cycle, so nothing is lost;
    the collector is restored (only if it was enabled) even on error.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def promote_all() -> None:
    """Move every object the collector tracks to its oldest generation, unwalked.

    For a caller that keeps what it built under :func:`gc_paused` and has
    more to do at once (a tree built ahead while the clickable map is on its
    way): otherwise the first allocation after the pause starts a collection
    of the youngest generation, which walks every object of the burst (about
    90,000 for the 2,400-row table's tree, numbered: 10 to 15 ms) only to
    find them all alive. ``gc.freeze()`` then ``gc.unfreeze()`` moves them to
    the oldest generation without that walk (the documented pair: unfreeze
    puts the frozen objects in the oldest generation), where a full
    collection still reaches them and any cycle among them. It moves the
    whole process's young objects, not only the burst's: cyclic garbage made
    elsewhere just before waits for the next full collection instead of the
    next young one. Nothing is done when objects are frozen already: someone
    else's ``gc.freeze()`` stays in force.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def decode_ax_tree(data: bytes | bytearray | memoryview | str) -> AXTree:
    """Decode the JSON ``result`` of ``Accessibility.getFullAXTree``.

    Same as ``AX_TREE_DECODER.decode(data)`` with the garbage collector paused
    during the decode (see :func:`gc_paused`).

    Raises:
        msgspec.ValidationError: The JSON does not have the expected shape.
        msgspec.DecodeError: The data is not JSON.
    """
    with gc_paused():
        return AX_TREE_DECODER.decode(data)


class _WalkAXValue(msgspec.Struct, gc=False):
    """An :class:`AXValue` without its ``type``, which the walk never reads."""

    value: Any = None


class _WalkAXProperty(msgspec.Struct, gc=False):
    """An :class:`AXProperty` holding a :class:`_WalkAXValue`."""

    name: str
    value: _WalkAXValue


class _WalkAXNode(AXNode, gc=False):
    """An :class:`AXNode` as the walk reads it: tuples, values without ``type``.

    What the snapshot's fetch decodes (:func:`decode_snapshot_nodes`): the
    walk only reads ``properties`` and ``childIds``, and tuples cost less
    than lists to decode and to keep. A node with no children or no
    properties shares the empty tuple instead of holding a list of its own,
    and a tuple of strings or of untracked structs leaves the cyclic garbage
    collector's care at its first pass, where tens of thousands of lists
    would be walked again at every collection while they live. The values
    (``role``, ``name``, ``value`` and the properties') leave out ``type``:
    one string fewer per value.
    """

    role: _WalkAXValue | None = None  # type: ignore[assignment]
    name: _WalkAXValue | None = None  # type: ignore[assignment]
    value: _WalkAXValue | None = None  # type: ignore[assignment]
    properties: tuple[_WalkAXProperty, ...] = ()  # type: ignore[assignment]
    childIds: tuple[str, ...] = ()  # type: ignore[assignment]


LeanPropertyName = Literal[
    "focused",
    "disabled",
    "checked",
    "pressed",
    "expanded",
    "selected",
    "required",
    "readonly",
    "multiline",
    "editable",
    "focusable",
]
"""The properties a flat answer keeps (:data:`FLAT_AX_KEEP`): the ones
:func:`~kobrowser.snapshot._states.read_props` reads (a test holds the two
equal). Typed as literals, a property's name is decoded as this one string
object, not a new one per property (21,600 fewer on the 2,400-row table)."""


class FlatAXProperty(msgspec.Struct, gc=False, array_like=True):
    """A property of a :class:`FlatAXNode`: ``[name, value]``, the value unwrapped."""

    name: LeanPropertyName
    value: Any


class FlatAXNode(msgspec.Struct, gc=False):
    """A node of a flat answer (``flatNodes``, see :data:`FLAT_AX_KEEP`), for the walk only.

    ``role``, ``name`` and ``value`` are flat: each is the ``value`` of
    Chrome's ``AXValue`` itself (None when Chrome sent none), not a struct
    holding it; ``properties`` holds only those the walk reads
    (:data:`LeanPropertyName`), each as a :class:`FlatAXProperty`; and a
    shown ``StaticText`` comes without its ``childIds`` (the walk never
    reads them). Four to six objects fewer per node than
    :class:`_WalkAXNode`, to decode and to free. The walk reads both kinds:
    a node is flat when its class is this one.
    """

    nodeId: str
    ignored: bool = False
    role: Any = None
    name: Any = None
    value: Any = None
    properties: tuple[FlatAXProperty, ...] = ()
    childIds: tuple[str, ...] = ()
    backendDOMNodeId: int | None = None


class _WalkAXTree(msgspec.Struct, gc=False):
    nodes: list[_WalkAXNode] | None = None
    flatNodes: list[FlatAXNode] | None = None


_AX_VALUE: Final = {"$unwrap": "value"}
FLAT_AX_KEEP: Final[dict[str, Any]] = {
    "$rename": {"nodes": "flatNodes"},
    "nodes": {
        "$each": {
            **dict.fromkeys(FlatAXNode.__struct_fields__),
            "role": _AX_VALUE,
            "name": _AX_VALUE,
            "value": _AX_VALUE,
            "properties": {
                "$each": {"$pick": list(FlatAXProperty.__struct_fields__), "value": _AX_VALUE},
                "$only": ["name", sorted(get_args(LeanPropertyName))],
            },
        },
        "$when": [
            # A shown inline text box after the root: never printed, nor
            # anything below it (the walk skips it, see _roles.py and _tree.py).
            {"match": [["ignored", False], ["role", "InlineTextBox"]], "drop": True, "from": 1},
            # A shown text piece: the walk never reads its children.
            {"match": [["ignored", False], ["role", "StaticText"]], "omit": ["childIds"]},
        ],
    },
}
"""What the snapshot's decode reads of a ``getFullAXTree`` answer, as the spec
of a :class:`kobrowser.cdp.Keep` (the CBOR pipe applies it while transcoding;
the tab compiles it): the nodes, renamed ``flatNodes`` so that
:func:`decode_snapshot_nodes` tells the two forms apart, each with only the
fields of :class:`FlatAXNode`, its role, name and value unwrapped, its
properties those the walk reads as ``[name, value]``, without the shown
inline text boxes after the root and the children of shown text pieces. An
ignored node stays whole (its children are walked), whatever its role; the
match wants ``ignored`` before ``role``, as Chrome sends them."""


_WALK_DECODER: msgspec.json.Decoder[_WalkAXTree] = msgspec.json.Decoder(_WalkAXTree)


def decode_snapshot_nodes(data: bytes | bytearray | memoryview | str) -> list[AXNode]:
    """The nodes of a JSON ``getFullAXTree`` result, for the snapshot walk only.

    Like ``decode_ax_tree(data).nodes``, with the garbage collector paused,
    but each node's ``properties`` and ``childIds`` are tuples and its
    values have no ``type`` (see ``_WalkAXNode``): read them, never change
    them. A flat answer (``{"flatNodes": [...]}``, :data:`FLAT_AX_KEEP`) gives
    :class:`FlatAXNode` nodes instead. Not for the AX mirror or anything that
    compares nodes with other decoded nodes.

    Raises:
        msgspec.ValidationError: The JSON does not have the expected shape
            (also: neither ``nodes`` nor ``flatNodes``).
        msgspec.DecodeError: The data is not JSON.
    """
    with gc_paused():
        tree = _WALK_DECODER.decode(data)
    nodes = tree.flatNodes if tree.flatNodes is not None else tree.nodes
    if nodes is None:
        raise msgspec.ValidationError("Object missing required field `nodes`")
    return cast("list[AXNode]", nodes)


def raw_role(node: AXNode | FlatAXNode) -> Any:
    """The role ``value`` Chrome sent for ``node`` (flat or not), None when none."""
    if isinstance(node, FlatAXNode) or node.role is None:
        return node.role
    return node.role.value


def raw_name(node: AXNode | FlatAXNode) -> Any:
    """The name ``value`` Chrome sent for ``node`` (flat or not), None when none."""
    if isinstance(node, FlatAXNode) or node.name is None:
        return node.name
    return node.name.value


def document_title(nodes: Sequence[AXNode | FlatAXNode]) -> str:
    """A document's title: its root node's name, whitespace-normalized ("" for none)."""
    title = raw_name(nodes[0]) if nodes else None
    return " ".join(title.split()) if isinstance(title, str) else ""


def counted_nodes(nodes: Sequence[AXNode | FlatAXNode]) -> int:
    """How many of a document's nodes count toward the AX mirror's ``min_nodes``.

    All but its shown inline text boxes (after the root). A flat answer
    (:data:`FLAT_AX_KEEP`, on the CBOR pipe) leaves those out (the snapshot
    never prints them), so counting them on other transports would start
    mirrors at other page sizes.
    """
    boxes = 0
    for at in range(1, len(nodes)):
        node = nodes[at]
        role: Any = node.role
        if role is not None and not node.ignored:
            if node.__class__ is not FlatAXNode:
                role = role.value
            if role == "InlineTextBox":
                boxes += 1
    return len(nodes) - boxes
