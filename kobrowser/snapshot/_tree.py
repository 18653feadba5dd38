"""Build the printed element tree from per-frame AX trees (full mode).

:func:`build_tree` walks the AX tree of the top frame, inlines every child
frame under its ``iframe`` line, drops what SNAPSHOT-FORMAT.md says never
appears and keeps what appears in full mode. It is a single iterative
depth-first walk (pages nest deeper than Python's recursion limit) that
appends each printed element straight into the children list of its nearest
printed ancestor, so "children move up" costs nothing.

Rules beyond the letter of the spec (decisions):

* **Roles** are classified in ``_roles`` (interactive, structure, named-only,
  transparent ...). An ignored node is transparent whatever its role. A
  ``generic`` with a name is printed as ``generic``.
* **Document roots.** The first node of each frame's node list is its
  document root (Chrome returns nodes in BFS order); it is never printed and
  its children are the frame's top level. Nodes not reachable from it are
  not printed. A node id met a second time (a malformed tree) is skipped.
* **Frames.** An ``Iframe`` node's content comes only from
  ``FrameAX.children[backendDOMNodeId]``; ``None`` or no entry leaves the
  ``iframe`` line empty. A frame object reached a second time (a cycle) is
  left empty too.
* **Text pieces** (``StaticText``) land in their nearest printed ancestor, the
  *carrier*. Adjacent pieces (no printed element between them) merge into one
  ``text`` line: pieces with the same AX parent join directly, pieces with
  different AX parents or with a ``LineBreak`` between them join with one
  space; then whitespace is normalized and an empty result is dropped.
  A paragraph-like block (``BLOCK_ROLES``: paragraph, blockquote, term,
  definition, caption ...) that is not printed still ends the run before it
  and starts a new one, so two paragraphs are two ``text`` lines, each with
  its own 80 characters, instead of one line cut after 80. Unnamed
  ``generic`` containers do not end a run (Chrome reports ``<div>`` and the
  few ``<span>`` it keeps alike), so ``<div>Price</div><div>$5</div>`` gives
  ``text "Price $5"``.
* **Carried text.** A merged run is not printed when every piece of it (or
  the whole run), normalized, is a substring of the carrier's normalized
  name: that is how a link's, button's, heading's or cell's text, split over
  inline elements, is not repeated. Otherwise the run is printed whole (never
  partly cut). An ``iframe`` never carries text: its name comes from the
  ``title`` attribute, not from the frame's content. Text at the top level
  has no carrier and is always printed.
* **Label text.** A ``<label>`` that is not printed (Chrome's ``LabelText``
  with no name of its own) does not repeat the name of the control it
  labels: its text pieces are dropped when, normalized and joined as in a
  run (or every piece of them), they are a substring of the name of an
  *associated* labelable control. Labelable here means an interactive role
  but ``link`` and ``iframe`` (HTML cannot label those). The AX tree has no
  ``for=`` target in the fields decoded (only in the name ``sources``, which
  are skipped for speed), so the association is structural, among the
  label's printed siblings (the same children list, hence the same parent
  and frame):

  - a control printed inside the label (``<label>Lab <input></label>``);
  - the printed element right before or right after the label
    (``<label for=e>Email</label><input id=e>`` and
    ``<input type=checkbox id=c><label for=c>Agree</label>``), skipping
    whitespace-only text, line breaks and block boundaries
    (``<p><label for=x>City</label></p><p><input id=x></p>``), but not text
    or another label.

  This is chosen over "any control of the frame whose name equals the
  label's text" because it never looks far away: a lone label (or one whose
  control has a different ``aria-label``) is dropped only if a neighbouring
  control's name already says the same words, whereas a frame-wide match
  would drop it on a mere name collision anywhere on the page, and could
  not allow containment (``Name`` is a substring of ``Username``). It costs
  nothing on pages without labels: one extra pass over the children list of
  each parent that holds a label. A label whose text is not dropped keeps
  it in the run exactly as before; a dropped label's text disappears
  without ending the run around it. A printed (named) label is a carrier
  like any element and is not affected.
* **List markers.** ``ListMarker`` nodes are skipped with their subtree. When
  the list item is presentational (``<li role=none>``), Chrome reports the
  marker as an ignored node over a ``StaticText`` that has no DOM node; such a
  text is dropped when its parent is ignored and it reads like a marker (a
  bullet, or up to six letters/digits then ``.`` or ``)``). Other generated
  content (``::before``/``::after``, same shape) is kept.
* **Text fields.** Below a ``textbox``/``searchbox``/``combobox``/
  ``spinbutton`` that has the ``editable`` property, no text piece is printed
  (its value carries it); elements inside a rich-text field still are.
* **Values** are shown when non-empty after normalization, different from the
  normalized name, and not a masked password (only U+2022 bullets). Numbers
  print as ``5``, ``0.5``.
* **States**: ``focused``, ``disabled``, ``required``, ``readonly``,
  ``multiline``, ``selected`` when the property is true; ``checked`` for
  checked ``"true"``; ``mixed`` for checked or pressed ``"mixed"``; ``pressed``
  for pressed ``"true"``; ``expanded``/``collapsed`` when the ``expanded``
  property is true/false (absent or undefined: neither). Any role may carry
  them; order is the grammar's.
* **Scope.** With ``scope``, the walk still visits everything (the carrier and
  text-field context of a matched element come from its real ancestors), but
  only content inside a matched element is kept. Text runs never merge across
  two matched elements.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, Final

import msgspec

from ._ax import AXNode, AXProperty, gc_paused
from ._roles import (
    BLOCK_ROLES,
    BREAK,
    FIELD_ROLES,
    IFRAME,
    INTERACTIVE_ROLES,
    NAMED,
    ROLE_CACHE,
    STRUCTURE,
    TEXT,
    TRANSPARENT,
    role_info,
)
from ._text import is_password_value, value_to_text

__all__ = ["STATE_ORDER", "FrameAX", "Node", "build_tree"]


class FrameAX(msgspec.Struct):
    """One frame's AX tree, with the trees of the frames it embeds.

    Attributes:
        frame_id: The CDP frame id.
        nodes: The frame's nodes as ``Accessibility.getFullAXTree`` returns
            them (BFS order, document root first).
        children: Owner ``<iframe>`` element's ``backendDOMNodeId`` (in this
            frame) -> that child frame's tree, or ``None`` when it could not
            be read.
    """

    frame_id: str
    nodes: list[AXNode]
    children: dict[int, FrameAX | None] = {}


class Node(msgspec.Struct):
    """One printed element of the snapshot.

    Attributes:
        role: Printed role (lower-case ASCII letters).
        name: Whitespace-normalized, untruncated name; ``""`` when none.
        value: Normalized, untruncated value; ``None`` when not shown.
        states: States in grammar order.
        frame_id: Frame the element lives in.
        backend_node_id: Its DOM ``backendNodeId`` (``None`` if Chrome gave none).
        children: Printed children, in document order.
    """

    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    frame_id: str
    backend_node_id: int | None
    children: list[Node] = []


STATE_ORDER: Final[tuple[str, ...]] = (
    "focused",
    "disabled",
    "checked",
    "expanded",
    "collapsed",
    "selected",
    "required",
    "readonly",
    "multiline",
    "mixed",
    "pressed",
)
"""All states, in the order of the format's grammar."""

_BIT: Final = {state: 1 << i for i, state in enumerate(STATE_ORDER)}

# (property name, property value) -> state bit.
_PROP_BITS: Final[dict[tuple[str, Any], int]] = {
    ("focused", True): _BIT["focused"],
    ("disabled", True): _BIT["disabled"],
    ("checked", "true"): _BIT["checked"],
    ("checked", True): _BIT["checked"],
    ("checked", "mixed"): _BIT["mixed"],
    ("pressed", "true"): _BIT["pressed"],
    ("pressed", True): _BIT["pressed"],
    ("pressed", "mixed"): _BIT["mixed"],
    ("expanded", True): _BIT["expanded"],
    ("expanded", False): _BIT["collapsed"],
    ("selected", True): _BIT["selected"],
    ("required", True): _BIT["required"],
    ("readonly", True): _BIT["readonly"],
    ("multiline", True): _BIT["multiline"],
}
_STATE_PROPS: Final = frozenset(name for name, _ in _PROP_BITS)
_STATES_BY_BITS: dict[int, tuple[str, ...]] = {0: ()}


def _states(bits: int) -> tuple[str, ...]:
    states = _STATES_BY_BITS.get(bits)
    if states is None:
        states = tuple(s for s in STATE_ORDER if bits & _BIT[s])
        _STATES_BY_BITS[bits] = states
    return states


def _read_props(props: list[AXProperty]) -> tuple[int, bool]:
    """State bits and whether ``editable`` is present."""
    bits = 0
    editable = False
    for prop in props:
        pname = prop.name
        if pname in _STATE_PROPS:
            v = prop.value.value
            if v.__class__ is bool or v.__class__ is str:
                bits |= _PROP_BITS.get((pname, v), 0)
        elif pname == "editable":
            editable = True
    return bits, editable


# --- the walk -------------------------------------------------------------

# Text of a list marker: a bullet, or a short ordinal followed by "." or ")".
_MARKER: Final = re.compile(
    r"\s*(?:[\u2022\u25e6\u25aa\u25ab\u25a0\u25a1\u2023\u2043\u2013\u2014-]|\w{1,6}[.)])\s*"
)

# Markers in a children list before text merging (never left in the output).
_LINE_BREAK: Final = object()
_SEPARATOR: Final = object()
# Start and end of an unprinted <label>'s content (see _resolve_labels).
_LABEL_START: Final = object()
_LABEL_END: Final = object()

# Roles a <label> can label (HTML "labelable elements" among the interactive roles).
_LABELABLE: Final = INTERACTIVE_ROLES - {"link", "iframe"}

# A text piece: (raw text, AX parent, carrier name, frame id, backend node id).
_Piece = tuple[str, object, str, str, "int | None"]

# A frame being walked: (frame id, nodeId -> node, owner backend id -> child frame).
_FrameState = tuple[str, dict[str, AXNode], dict[int, "FrameAX | None"]]

# Walk context shared by siblings:
# (output list or None outside the scope, carrier name, inside a text field,
#  frame state, inside a matched element).
_Ctx = tuple["list[Any] | None", str, bool, _FrameState, bool]


def _frame_state(frame: FrameAX) -> _FrameState:
    """Frame id, a private nodeId -> node map (emptied as the walk goes), owners."""
    by_id = {n.nodeId: n for n in frame.nodes}
    by_id.pop(frame.nodes[0].nodeId, None)
    return (frame.frame_id, by_id, frame.children)


def _flush(run: list[Any], out: list[Node]) -> None:
    """Merge one run of text pieces into at most one ``text`` node."""
    parts: list[str] = []
    prev_parent: object = None
    pending_space = False
    carried = True
    first: _Piece | None = None
    for piece in run:
        if piece is _LINE_BREAK:
            pending_space = True
            continue
        raw, parent, carrier, _, _ = piece
        if first is None:
            first = piece
        elif pending_space or parent is not prev_parent:
            parts.append(" ")
        pending_space = False
        prev_parent = parent
        parts.append(raw)
        if carried and (not carrier or " ".join(raw.split()) not in carrier):
            carried = False
    if first is None:
        return
    text = " ".join("".join(parts).split())
    if not text:
        return
    carrier = first[2]
    if carried or (carrier and text in carrier):
        return
    out.append(Node("text", text, None, (), first[3], first[4], []))


def _merge_text(items: list[Any]) -> None:
    """Replace text pieces and markers in ``items`` by merged ``text`` nodes."""
    out: list[Node] = []
    run: list[Any] = []
    for item in items:
        if item.__class__ is Node:
            if run:
                _flush(run, out)
                run.clear()
            out.append(item)
        elif item is _SEPARATOR:
            if run:
                _flush(run, out)
                run.clear()
        else:
            run.append(item)
    if run:
        _flush(run, out)
    items[:] = out


def build_tree(frame: FrameAX, *, scope: Collection[tuple[str, int]] | None = None) -> list[Node]:
    """Build the printed tree (full mode) of a frame and the frames it embeds.

    Args:
        frame: The top frame's AX tree, with its child frames.
        scope: ``(frame_id, backendDOMNodeId)`` of the elements a CSS selector
            matched, or ``None`` for the whole page. When given, only the
            printed content of the matched subtrees is returned: a matched
            element that is printed becomes a root, an unprinted one
            contributes its printed descendants; a match inside another match
            is not repeated. An empty scope gives ``[]``.

    Returns:
        The top-level printed nodes (the document root itself is not printed).
    """
    if not frame.nodes:
        return []
    scope_set: Collection[tuple[str, int]] = ()
    if scope is not None:
        if not scope:
            return []
        scope_set = scope if isinstance(scope, (set, frozenset)) else set(scope)
    with gc_paused():
        return _build(frame, scope_set, scope is None)


def _build(frame: FrameAX, scope_set: Collection[tuple[str, int]], everything: bool) -> list[Node]:
    roots: list[Any] = []
    fs = _frame_state(frame)
    top: _Ctx = (roots if everything else None, "", False, fs, everything)
    seen_frames = {id(frame)}
    # id() of the children lists (alive until the end) that hold label markers.
    labeled: set[int] = set()
    # Stack items: (node, ctx, AX parent, None) or, to finish a printed node,
    # (None, node, the list it was appended to, its kind).
    stack: list[tuple[Any, Any, Any, Any]] = []
    _push_children(stack, frame.nodes[0], top, fs[1])
    push = stack.append
    pop = stack.pop
    roles = ROLE_CACHE
    states_by_bits = _STATES_BY_BITS
    while stack:
        ax, ctx, parent, extra = pop()
        if ax is None:
            if ctx is None:
                # The end of a block, or of a label.
                parent.append(_SEPARATOR if extra is None else extra)
            else:
                if labeled and id(ctx.children) in labeled:
                    _resolve_labels(ctx.children)
                _finish(ctx, parent, extra)
            continue
        out, carrier, in_field, fs, in_scope = ctx
        if not in_scope:
            backend = ax.backendDOMNodeId
            if backend is not None and (fs[0], backend) in scope_set:
                roots.append(_SEPARATOR)
                out = roots
                in_scope = True
                ctx = (out, carrier, in_field, fs, True)
        if ax.ignored:
            if ax.childIds:
                _push_children(stack, ax, ctx, fs[1])
            continue
        role_v = ax.role
        raw = role_v.value if role_v is not None else ""
        info = roles.get(raw) if raw.__class__ is str else None
        role, kind = info if info is not None else role_info(raw if raw.__class__ is str else "")
        if kind == TEXT:
            if out is not None and not in_field:
                name_v = ax.name
                if name_v is not None:
                    text = name_v.value
                    if text.__class__ is str and text:
                        backend = ax.backendDOMNodeId
                        if backend is None and parent.ignored and _MARKER.fullmatch(text):
                            continue  # the ::marker of a presentational list item
                        out.append((text, parent, carrier, fs[0], backend))
            continue
        if kind <= TRANSPARENT:
            if kind == TRANSPARENT:
                if ax.childIds:
                    _push_children(stack, ax, ctx, fs[1])
            elif kind == BREAK and out is not None:
                out.append(_LINE_BREAK)
            continue
        name_v = ax.name
        if name_v is None:
            name = ""
        else:
            name = name_v.value
            if name.__class__ is not str:
                name = value_to_text(name)
            if name:
                name = " ".join(name.split())
        if kind == NAMED and not name:
            if ax.childIds:
                if out is not None:
                    if role in BLOCK_ROLES:
                        # A paragraph-like block: its text is a run of its own.
                        out.append(_SEPARATOR)
                        push((None, None, out, None))
                    elif role == "label":
                        out.append(_LABEL_START)
                        push((None, None, out, _LABEL_END))
                        labeled.add(id(out))
                _push_children(stack, ax, ctx, fs[1])
            continue
        # A printed element (or, outside the scope, one that would be).
        bits, editable = _read_props(ax.properties) if ax.properties else (0, False)
        child_field = in_field or (editable and role in FIELD_ROLES)
        child_carrier = "" if kind == IFRAME else name
        if out is None:
            child_ctx: _Ctx = (None, child_carrier, child_field, fs, False)
            if kind == IFRAME:
                _push_frame(stack, ax, child_ctx, fs, seen_frames)
            elif ax.childIds:
                _push_children(stack, ax, child_ctx, fs[1])
            continue
        value: str | None = None
        value_v = ax.value
        if value_v is not None:
            value = " ".join(value_to_text(value_v.value).split())
            if not value or value == name or is_password_value(value):
                value = None
        states = states_by_bits.get(bits)
        if states is None:
            states = _states(bits)
        node = Node(role, name, value, states, fs[0], ax.backendDOMNodeId, [])
        out.append(node)
        if kind == IFRAME:
            push((None, node, out, kind))
            _push_frame(stack, ax, (node.children, "", child_field, fs, True), fs, seen_frames)
        elif ax.childIds:
            push((None, node, out, kind))
            _push_children(stack, ax, (node.children, child_carrier, child_field, fs, True), fs[1])
        elif kind == STRUCTURE and not name:
            out.pop()
    if labeled and id(roots) in labeled:
        _resolve_labels(roots)
    _merge_text(roots)
    return roots


def _neighbour(items: list[Any], i: int, step: int) -> Node | None:
    """The printed element next to ``items[i]`` (``step`` -1: before, 1: after).

    Whitespace-only text, line breaks and block ends are skipped; other text
    and label markers stop the search.
    """
    n = len(items)
    i += step
    while 0 <= i < n:
        item = items[i]
        if item.__class__ is Node:
            return item
        if item is _LABEL_START or item is _LABEL_END:
            return None
        if item.__class__ is tuple and not item[0].isspace():
            return None
        i += step
    return None


def _label_carried(items: list[Any], start: int, end: int) -> bool:
    """Whether the text of the label ``items[start:end + 1]`` is in a control's name."""
    controls: list[Node] = []
    pieces: list[str] = []
    run: list[Any] = []
    frame_id = ""
    for k in range(start + 1, end):
        item = items[k]
        if item.__class__ is Node:
            if item.role in _LABELABLE:
                controls.append(item)
        elif item.__class__ is tuple:
            run.append(item)
            pieces.append(" ".join(item[0].split()))
            frame_id = item[3]
        elif item is _LINE_BREAK:
            run.append(item)
    if not pieces:
        return False
    node = _neighbour(items, start, -1)
    if node is not None and node.role in _LABELABLE:
        controls.append(node)
    node = _neighbour(items, end, 1)
    if node is not None and node.role in _LABELABLE:
        controls.append(node)
    if not controls:
        return False
    if len(run) == 1:
        text = pieces[0]  # the common case: one piece
    else:
        # The run's text, joined exactly as a text line would be (no carrier).
        joined: list[Node] = []
        _flush([p if p is _LINE_BREAK else (p[0], p[1], "", p[3], p[4]) for p in run], joined)
        text = joined[0].name if joined else ""
    if not text:
        return False  # only whitespace
    for control in controls:
        name = control.name
        if (
            control.frame_id == frame_id
            and name
            and (text in name or all(p in name for p in pieces))
        ):
            return True
    return False


def _resolve_labels(items: list[Any]) -> None:
    """Drop carried label text from ``items`` and remove every label marker.

    See "Label text" in the module docstring. Runs once per children list
    that holds a label, after all of it is known (a label's control may
    come after it).
    """
    starts: list[int] = []
    drop = bytearray(len(items))
    for i, item in enumerate(items):
        if item is _LABEL_START:
            starts.append(i)
            drop[i] = 1
        elif item is _LABEL_END:
            drop[i] = 1
            if starts:
                start = starts.pop()
                if _label_carried(items, start, i):
                    for k in range(start + 1, i):
                        inner = items[k]
                        if inner.__class__ is tuple or inner is _LINE_BREAK:
                            drop[k] = 1
    items[:] = [item for item, d in zip(items, drop, strict=True) if not d]


def _finish(node: Node, parent: list[Any], kind: int) -> None:
    """Finish a printed node: merge its text, drop it if unnamed empty structure."""
    children: list[Any] = node.children
    if children:
        if len(children) == 1:
            only = children[0]
            if only.__class__ is tuple:
                # The common case: a link's, button's, cell's own text.
                children.clear()
                carrier = only[2]
                if not carrier or " ".join(only[0].split()) not in carrier:
                    _flush([only], children)
            elif only.__class__ is not Node:
                children.clear()  # a lone line break or block separator
        else:
            _merge_text(children)
    if kind == STRUCTURE and not children and not node.name and parent[-1] is node:
        parent.pop()


def _push_children(
    stack: list[tuple[Any, Any, Any, Any]],
    ax: AXNode,
    ctx: _Ctx,
    by_id: dict[str, AXNode],
) -> None:
    """Push ``ax``'s children so that they pop in document order.

    Each child is taken out of ``by_id`` as it is pushed, so a node listed
    twice (a malformed tree, even a cycle) is visited once.
    """
    take = by_id.pop
    push = stack.append
    for cid in reversed(ax.childIds):
        child = take(cid, None)
        if child is not None:
            push((child, ctx, ax, None))


def _push_frame(
    stack: list[tuple[Any, Any, Any, Any]],
    ax: AXNode,
    ctx: _Ctx,
    fs: _FrameState,
    seen_frames: set[int],
) -> None:
    """Push the content of the frame owned by iframe node ``ax``, if readable."""
    backend = ax.backendDOMNodeId
    if backend is None:
        return
    child = fs[2].get(backend)
    if child is None or not child.nodes or id(child) in seen_frames:
        return
    seen_frames.add(id(child))
    child_fs = _frame_state(child)
    out, carrier, in_field, _, in_scope = ctx
    _push_children(stack, child.nodes[0], (out, carrier, in_field, child_fs, in_scope), child_fs[1])
