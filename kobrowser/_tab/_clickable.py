"""Which elements of a page are clickable: the clickable map of a frame session.

Clickability is not in Chrome's accessibility tree. One call,
``DOMSnapshot.captureSnapshot`` with the computed ``cursor`` and without DOM
rects, paint order or text styles, gives it for every document the session
renders (its own and every same-process child frame's, shadow trees
included, closed ones too), keyed by backend node id:

* ``isClickable``: the node has a click listener of its own (or is a link);
* the computed ``cursor``.

An element is **clickable** when it has a listener of its own, or when its
cursor is ``pointer`` and its parent's (the nearest ancestor with a layout
box) is not: the *outermost* element of a pointer area. So a row that shows
a pointer because the list's delegated handler will take its click is
caught, while the spans, icons and texts inside it, which inherit the
pointer, are not marked one by one. ``<html>`` and ``<body>`` are never
clickable (listeners there are delegation roots for the whole page).

Every text node inside a clickable element is mapped to that element (the
innermost one), so the snapshot can print the text of a clickable element
that Chrome leaves out of its tree (a plain ``<span>`` with
``cursor: pointer``) as clickable text of its own; an element with more than
:data:`MAX_TEXT_NODES` text nodes maps none (a large area, such as a
framework's app root with a listener, is a wrapper, not a control).

Measured against the alternatives (docs/performance.md, "Clickable
signal"): an in-page script reading ``getComputedStyle`` and the DevTools
``getEventListeners`` of every element costs about the same in the page but
needs one ``DOM.describeNode`` per element found to learn its backend id,
cannot see into closed shadow roots or same-site cross-origin frames, and
runs page-visible code; ``DOMDebugger.getEventListeners`` per node needs a
remote object per node (tens of thousands of calls on a large page).

Out-of-process frames are answered by their own session: call
:func:`clickable_nodes` once per frame session. A snapshot asks for the maps
inside its fetch batch through :class:`ClickableMaps`: one
``captureSnapshot`` per session, sent before that session's frame AX calls
(Chrome answers one session's calls in order, so the map is in when its
frames' AX trees arrive and are built), but after the top document's AX
tree, which is built only once everything is in: the renderer captures the
map while this process reads that tree. The call keeps only what the map reads
(:data:`CAPTURE_KEEP`, made of the structs below): on the CBOR pipe its
codec transcodes only those arrays and steps over the rest (text boxes,
bounds, attributes, node values) unread. The rule above is only here.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Protocol

import msgspec

from kobrowser.cdp import Keep
from kobrowser.snapshot._ax import gc_paused
from kobrowser.snapshot._hidden import ClickableMap, HiddenClickable

if TYPE_CHECKING:
    from kobrowser.cdp import BatchCall, CDPSession, SessionConnection

__all__ = [
    "CAPTURE_KEEP",
    "MAX_TEXT_NODES",
    "ClickableIndex",
    "ClickableMaps",
    "MapKeeper",
    "clickable_from_snapshot",
    "clickable_index",
    "clickable_nodes",
]

MAX_TEXT_NODES: Final = 32
"""A clickable element with more text nodes than this maps none of them."""

_ELEMENT: Final = 1
_TEXT: Final = 3
_NEVER: Final = frozenset({"HTML", "BODY"})
_SHAPES: Final = frozenset(
    {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "use", "image"}
)
"""SVG elements Chrome leaves out of its tree when unnamed: ``graphics-symbol`` lines."""
_MARKED: Final = frozenset({"pointer", *_NEVER, *_SHAPES})
"""Every string :func:`_markers` looks for."""

PARAMS: Final = {
    "computedStyles": ["cursor"],
    "includeDOMRects": False,
    "includePaintOrder": False,
    "includeBlendedBackgroundColors": False,
    "includeTextColorOpacities": False,
}
"""The ``DOMSnapshot.captureSnapshot`` parameters: the cursor, nothing else."""


class _Rare(msgspec.Struct, gc=False):
    index: list[int] = []


class _Nodes(msgspec.Struct, gc=False):
    parentIndex: list[int] = []
    nodeType: list[int] = []
    nodeName: list[int] = []
    backendNodeId: list[int] = []
    isClickable: _Rare | None = None
    shadowRootType: _Rare | None = None


class _Layout(msgspec.Struct, gc=False):
    nodeIndex: list[int] = []
    styles: msgspec.Raw = msgspec.Raw(b"[]")  # list[list[int]], read by _cursors


class _Document(msgspec.Struct, gc=False):
    nodes: _Nodes
    layout: _Layout


class _Captured(msgspec.Struct, gc=False):
    documents: list[_Document]
    strings: list[str]


_DECODER: Final = msgspec.json.Decoder(_Captured)


def _fields(struct: type[msgspec.Struct], **specs: object) -> dict[str, object]:
    """The spec of a map read by ``struct``: its fields, as they are unless given."""
    return {**dict.fromkeys(struct.__struct_fields__), **specs}


CAPTURE_KEEP: Final = Keep(
    _fields(
        _Captured,
        documents={"$each": _fields(_Document, nodes=_fields(_Nodes), layout=_fields(_Layout))},
    )
)
"""What the map reads of a ``captureSnapshot`` answer: the fields of the structs above."""


async def clickable_nodes(session: CDPSession, *, timeout: float) -> dict[int, int]:
    """The clickable map of the documents ``session`` renders.

    Args:
        session: A page's or an out-of-process frame's session.
        timeout: Deadline of the call, in seconds.

    Returns:
        Backend node id -> backend id of the clickable element it belongs to:
        each clickable element maps to itself, each text node inside one (see
        :data:`MAX_TEXT_NODES`) to the innermost. Pass it as the
        ``clickable`` of every frame the session serves (backend ids are
        unique within a renderer process).

    Raises:
        ProtocolError: Chrome refused the call.
        CDPTimeoutError: No answer before the deadline.
        TargetClosedError: The target went away.

    Cancelling the caller abandons the call.
    """
    raw = await session.send_raw(
        "DOMSnapshot.captureSnapshot", PARAMS, timeout=timeout, keep=CAPTURE_KEEP
    )
    return clickable_from_snapshot(raw)


class MapKeeper(Protocol):
    """Keeps maps between snapshots (``kobrowser._tab._clickkeep.ClickKeep``)."""

    def calls(self, maps: ClickableMaps, session: CDPSession) -> list[BatchCall]:
        """The batch calls of ``session``'s map; its own last."""
        ...

    def captured(self, session: CDPSession, found: Mapping[int, int]) -> None:
        """``session``'s map was captured."""
        ...

    def read_failed(self, session: CDPSession) -> bool:
        """Whether ``session``'s failed call was not a capture (it is captured later)."""
        ...

    async def complete(
        self, maps: ClickableMaps, connection: SessionConnection, *, timeout: float
    ) -> None:
        """Capture the maps still missing after the batch."""
        ...


class ClickableMaps:
    """The clickable maps of one snapshot's frame sessions, filled as they arrive.

    :meth:`calls` gives the batch calls of a session's map; its answer is
    decoded and kept as soon as it arrives. :meth:`get` is the session's
    map, ``None`` while it has not arrived; a session whose call failed
    (timed out, refused, target gone) gets an empty map: its elements are
    simply not marked ``clickable``, the snapshot does not fail.

    Args:
        keeper: keeps maps between snapshots (a session's map may then be
            one kept, or captured after the batch: :meth:`complete`).
    """

    __slots__ = ("_indexed", "_indexes", "_keeper", "_maps")

    def __init__(self, keeper: MapKeeper | None = None) -> None:
        self._maps: dict[CDPSession, Mapping[int, int]] = {}
        self._indexed: set[CDPSession] = set()
        self._indexes: dict[CDPSession, ClickableIndex | None] = {}
        self._keeper = keeper

    def calls(self, session: CDPSession) -> list[BatchCall]:
        """The batch calls of ``session``'s map: its answer (or error) is the last one's."""
        if self._keeper is not None and session not in self._indexed:
            return self._keeper.calls(self, session)
        return [self.call(session)]

    async def complete(self, connection: SessionConnection, *, timeout: float) -> None:
        """After the batch: capture the maps a keeper found changed (see ``_clickkeep``).

        Cancelling the caller abandons the calls.
        """
        if self._keeper is not None:
            await self._keeper.complete(self, connection, timeout=timeout)

    def forget(self, session: CDPSession) -> None:
        """Drop ``session``'s map (it is captured again)."""
        self._maps.pop(session, None)

    def preset(self, session: CDPSession, found: Mapping[int, int]) -> None:
        """Use ``found`` as ``session``'s map: its ``captureSnapshot`` is not asked for."""
        self._maps[session] = found

    def has(self, session: CDPSession) -> bool:
        """Whether ``session``'s map is known already (preset or arrived)."""
        return session in self._maps

    def want_index(self, session: CDPSession) -> None:
        """Keep a :class:`ClickableIndex` of ``session``'s map when it arrives."""
        self._indexed.add(session)

    def index(self, session: CDPSession) -> ClickableIndex | None:
        """``session``'s index (see :meth:`want_index`); None when there is none."""
        return self._indexes.get(session)

    def call(self, session: CDPSession) -> BatchCall:
        """The ``DOMSnapshot.captureSnapshot`` batch call of ``session``'s map
        (keeping only :data:`CAPTURE_KEEP` of the answer, where the transport can)."""
        indexed = session in self._indexed
        return (
            session,
            "DOMSnapshot.captureSnapshot",
            PARAMS,
            CAPTURE_KEEP.decoder(functools.partial(self._arrived, session, indexed)),
        )

    def _arrived(self, session: CDPSession, indexed: bool, raw: msgspec.Raw) -> Mapping[int, int]:
        if indexed:
            index = clickable_index(raw)
            found: Mapping[int, int] = index.found if index is not None else {}
            self._indexes[session] = index
            if index is None:
                found = clickable_from_snapshot(raw)
        else:
            found = clickable_from_snapshot(raw)
        self._maps[session] = found
        if self._keeper is not None:
            self._keeper.captured(session, found)
        return found

    def failed(self, session: CDPSession) -> None:
        """Record that ``session``'s call failed (its map is empty, unless captured later)."""
        if self._keeper is not None and self._keeper.read_failed(session):
            return
        self._maps.setdefault(session, {})

    def any_hidden(self) -> bool:
        """Whether some session's map has hidden candidates (``snapshot._hidden``)."""
        return any(
            isinstance(found, ClickableMap) and found.hidden for found in self._maps.values()
        )

    def items(self) -> list[tuple[CDPSession, Mapping[int, int]]]:
        """Every session's map known so far."""
        return list(self._maps.items())

    def get(self, session: CDPSession) -> Mapping[int, int] | None:
        """``session``'s map, or ``None`` when it has not arrived (yet)."""
        return self._maps.get(session)


def clickable_from_snapshot(raw: bytes | msgspec.Raw) -> dict[int, int]:
    """The clickable map of a ``DOMSnapshot.captureSnapshot`` result (JSON bytes).

    The result must have been taken with ``computedStyles: ["cursor"]`` (see
    :data:`PARAMS`), whole or as :data:`CAPTURE_KEEP` keeps it.
    """
    # Read in a helper: the decoded answer (arrays with an item per DOM node)
    # is let go when it returns, inside the pause, so no collection walks it.
    with gc_paused():
        return _map_of(_DECODER.decode(raw))


def _map_of(captured: _Captured) -> ClickableMap:
    pointer, never, shapes = _markers(captured.strings)
    found = ClickableMap()
    documents = captured.documents
    shadows = documents[0].nodes.shadowRootType if len(documents) == 1 else None
    found.single = len(documents) == 1 and (shadows is None or not shadows.index)
    offset = 0
    for document in captured.documents:
        _document(document, pointer, never, found, shapes=shapes, offset=offset)
        offset += len(document.nodes.backendNodeId)
    return found


def _markers(strings: list[str]) -> tuple[int, set[int], set[int]]:
    """The string index of ``pointer`` (-2: none), those of the elements never
    clickable, and those of the SVG shapes' names."""
    # One pass in C finds which of the names are there at all; only those
    # are looked for (list.index scans in C too: a page has tens of
    # thousands of strings, and most pages have no SVG shape).
    there = _MARKED.intersection(strings)
    pointer = strings.index("pointer") if "pointer" in there else -2
    never: set[int] = set()
    for name in _NEVER & there:
        at = -1
        with contextlib.suppress(ValueError):
            while True:
                at = strings.index(name, at + 1)
                never.add(at)
    shapes = {strings.index(name) for name in _SHAPES & there}
    return pointer, never, shapes


_STYLES: Final = msgspec.json.Decoder(list[list[int]])
_INTS: Final = msgspec.json.Decoder(list[int])


def _cursors(styles: msgspec.Raw) -> list[int]:
    """Each layout node's cursor: its first style, -1 (none) when it has none.

    ``styles`` is the JSON of ``layout.styles``, an array per layout node of
    the string indexes of its computed styles: the cursor only (:data:`PARAMS`).
    Tens of thousands of one-int arrays would cost a list each to decode;
    read as one array of ints instead (``[]`` as -1, the brackets left out),
    which is right when that gives one int per entry; else (other styles,
    other spacing) entry by entry.
    """
    data = bytes(styles)
    if data == b"[]":
        return []
    flat = data.replace(b"[]", b"-1").translate(None, b"[]")
    try:
        cursors = _INTS.decode(b"[" + flat + b"]")
    except (msgspec.DecodeError, msgspec.ValidationError):
        cursors = None
    if cursors is None or len(cursors) != data.count(b"[") - 1:
        cursors = [entry[0] if entry else -1 for entry in _STYLES.decode(data)]
    return cursors


class ClickableIndex:
    """A clickable map with what it takes to update it after text-only changes.

    Only built for a session rendering one document without shadow roots
    (:func:`clickable_index`). When nodes change but no element does (text
    nodes added or removed), the map changes only for those text nodes: a
    text node belongs to its parent's owner (the innermost clickable element
    around it), and an owner with more than :data:`MAX_TEXT_NODES` text
    nodes maps none of them.

    Attributes:
        found: the clickable map (backend id -> backend id of its element).
        owner_of: backend id of every node that is not a text node -> backend
            id of the innermost clickable element around it (itself when
            clickable), 0 for none.
        texts_of: backend id of a node -> backend ids of its text children.
        members: backend id of a clickable element -> backend ids of the text
            nodes it owns (mapped or not).
    """

    __slots__ = ("found", "members", "owner_of", "texts_of")

    def __init__(
        self,
        found: dict[int, int],
        owner_of: dict[int, int],
        texts_of: dict[int, list[int]],
        members: dict[int, list[int]],
    ) -> None:
        self.found = found
        self.owner_of = owner_of
        self.texts_of = texts_of
        self.members = members

    def update_texts(self, changed: Mapping[int, list[int]]) -> dict[int, int] | None:
        """Apply new text children of some nodes; the new map, or None if unknown.

        Args:
            changed: backend id of a node -> backend ids of its text children now.

        Returns:
            The updated map (a new dict; :attr:`found` becomes it), or None
            when a node is not in the index (the caller reads the map afresh).
        """
        owner_of, texts_of, members = self.owner_of, self.texts_of, self.members
        if any(node not in owner_of for node in changed):
            return None
        found: dict[int, int] = (
            self.found.copy_with(self.found)
            if isinstance(self.found, ClickableMap)
            else dict(self.found)
        )
        touched: set[int] = set()
        for node in changed:  # removals first: a text node may move between them
            owner = owner_of[node]
            old = texts_of.get(node, [])
            if owner and old:
                gone = set(old)
                members[owner] = [t for t in members.get(owner, []) if t not in gone]
                for text in old:
                    found.pop(text, None)
                touched.add(owner)
        for node, texts in changed.items():
            owner = owner_of[node]
            if texts:
                texts_of[node] = list(texts)
            else:
                texts_of.pop(node, None)
            if owner and texts:
                members.setdefault(owner, []).extend(texts)
                touched.add(owner)
        for owner in touched:
            owned = members.get(owner, [])
            if len(owned) <= MAX_TEXT_NODES:
                for text in owned:
                    found[text] = owner
            else:
                for text in owned:
                    found.pop(text, None)
        self.found = found
        return found


def clickable_index(raw: bytes | msgspec.Raw) -> ClickableIndex | None:
    """The :class:`ClickableIndex` of a ``captureSnapshot`` result (see :data:`PARAMS`).

    None when the session renders more than one document (same-process
    frames) or a shadow root: its map is only ever read afresh.
    """
    with gc_paused():  # the answer is let go inside the pause, as in clickable_from_snapshot
        return _index_of(_DECODER.decode(raw))


def _index_of(captured: _Captured) -> ClickableIndex | None:
    if len(captured.documents) != 1:
        return None
    document = captured.documents[0]
    shadows = document.nodes.shadowRootType
    if shadows is not None and shadows.index:
        return None
    pointer, never, shapes = _markers(captured.strings)
    index = ClickableIndex(ClickableMap(), {}, {}, {})
    _document(document, pointer, never, index.found, index, shapes=shapes)
    return index


def _document(
    document: _Document,
    pointer: int,
    never: set[int],
    found: dict[int, int],
    index: ClickableIndex | None = None,
    *,
    shapes: set[int] | None = None,
    offset: int = 0,
) -> None:
    nodes = document.nodes
    parents = nodes.parentIndex
    types = nodes.nodeType
    backends = nodes.backendNodeId
    count = len(backends)
    if not count:
        return
    if len(parents) < count or len(types) < count:
        raise msgspec.ValidationError("a document's node arrays differ in length")
    clickable = _clickable_elements(document, count, pointer, never)
    for i in clickable:
        found[backends[i]] = backends[i]
    if clickable and isinstance(found, ClickableMap):
        _hidden(document, clickable, shapes or set(), offset, found)
    # Owner: node index of the innermost clickable element around a node, -1
    # for none (a text node owns nothing); each text node goes to its owner.
    # An owner comes before the nodes it owns: none before the first one.
    owner = [-1] * count
    texts: dict[int, list[int]] = {}
    first = next(iter(clickable), count)
    nodes_from = zip(range(first, count), parents[first:], types[first:], strict=False)
    for i, parent, kind in nodes_from:
        up = owner[parent] if 0 <= parent < i else -1
        if kind != _TEXT:
            owner[i] = i if i in clickable else up
        elif up != -1:
            members = texts.get(up)
            if members is None:
                texts[up] = [i]
            else:
                members.append(i)
    for element, members in texts.items():
        if len(members) <= MAX_TEXT_NODES:
            target = backends[element]
            for i in members:
                found[backends[i]] = target
    if index is not None:
        _fill(index, parents, types, backends, owner, texts)


def _clickable_elements(
    document: _Document, count: int, pointer: int, never: set[int]
) -> dict[int, None]:
    """The node indexes of the document's clickable elements, in node order.

    An element with a listener of its own, or whose cursor is ``pointer`` and
    its parent's is not (a node without a layout box takes its parent's);
    never ``<html>`` or ``<body>``. Only those candidates are looked at: the
    listeners and the nodes whose own cursor is ``pointer``.
    """
    nodes = document.nodes
    parents = nodes.parentIndex
    types = nodes.nodeType
    names = nodes.nodeName
    boxes = document.layout.nodeIndex
    cursors = _cursors(document.layout.styles)
    listeners = set(nodes.isClickable.index) if nodes.isClickable is not None else set()
    candidates = {i for i in listeners if 0 <= i < count}
    at = -1
    with contextlib.suppress(ValueError, IndexError):
        while True:  # list.index scans in C
            at = cursors.index(pointer, at + 1)
            if 0 <= boxes[at] < count:
                candidates.add(boxes[at])
    own: dict[int, int] | None = None  # node -> its cursor, made when first needed
    clickable: dict[int, None] = {}
    for i in sorted(candidates):
        if types[i] != _ELEMENT or names[i] in never:
            continue
        if i not in listeners:
            # The parent's effective cursor: its own, else its parent's ...
            if own is None:
                own = dict(zip(boxes, cursors, strict=False))
            child, parent, inherited = i, parents[i], -1
            while 0 <= parent < child:
                inherited = own.get(parent, -1)
                if inherited != -1:
                    break
                child, parent = parent, parents[parent]
            if inherited == pointer:
                continue
        clickable[i] = None
    return clickable


def _hidden(
    document: _Document,
    clickable: dict[int, None],
    shapes: set[int],
    offset: int,
    found: ClickableMap,
) -> None:
    """Record the clickable elements with no child node (``snapshot._hidden``).

    Their role word and place in document order; their DOM ancestors and,
    when there are any, every node's place (``found.positions``) are worked
    out from the document's arrays only when first needed.
    """
    nodes = document.nodes
    parents = nodes.parentIndex
    names = nodes.nodeName
    backends = nodes.backendNodeId
    # The nodes come in document order (depth first): a node's first child,
    # if any, right after it.
    last = len(backends) - 1
    leaves = [i for i in clickable if i == last or parents[i + 1] != i]
    if not leaves:
        return
    # Ancestors and positions are worked out from the arrays when first needed.
    source = found.add_source(parents, backends, offset)
    hidden = found.hidden
    for i in leaves:
        role = "graphics-symbol" if names[i] in shapes else "generic"
        hidden[backends[i]] = HiddenClickable(role, (), offset + i, source)


def _fill(
    index: ClickableIndex,
    parents: list[int],
    types: list[int],
    backends: list[int],
    owner: list[int],
    texts: dict[int, list[int]],
) -> None:
    owner_of, texts_of = index.owner_of, index.texts_of
    for i, kind in enumerate(types):
        if kind == _TEXT:
            parent = parents[i]
            if parent >= 0:
                texts_of.setdefault(backends[parent], []).append(backends[i])
        else:
            up = owner[i]
            owner_of[backends[i]] = backends[up] if up >= 0 else 0
    index.members = {backends[e]: [backends[i] for i in members] for e, members in texts.items()}
