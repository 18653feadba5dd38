"""Build the printed element tree from per-frame AX trees (full mode).

:func:`build_tree` walks the AX tree of the top frame, inlines every child
frame under its ``iframe`` line, drops what docs/snapshot-format.md says
never appears and keeps what appears in full mode. It is a single iterative
depth-first walk (pages nest deeper than Python's recursion limit) that
appends each printed element straight into the children list of its nearest
printed ancestor, so "children move up" costs nothing.

The rules live with the code that applies them: text pieces, runs and
carried text in ``_runs``, label text in ``_labels``, states in ``_states``.
:class:`Node` is defined in ``_node`` and :data:`STATE_ORDER` in
``_states``; both are re-exported here.

Rules of the walk itself, beyond the letter of the spec (decisions):

* **Roles** are classified in ``_roles`` (interactive, structure, named-only,
  transparent ...). An ignored node is transparent whatever its role. A
  ``generic`` with a name is printed as ``generic``.
* **Run ends.** An element that is not ignored and not printed ends the text
  run before and after it when it has children, unless its role is one of
  ``INLINE_ROLES`` (see ``_runs``). An element with no children ends nothing.
* **Clickable map.** ``FrameAX.clickable`` maps DOM backend node ids to the
  backend id of the clickable element they belong to (an element maps to
  itself). Elements that map to themselves are clickable (``_promote``); a
  text piece whose owner is not the nearest clickable element the walk is
  inside (the owner was left out of Chrome's tree) is clickable text
  (``_runs``). Inside an interactive element neither applies.
* **Document roots.** The first node of each frame's node list is its
  document root (Chrome returns nodes in BFS order); it is never printed and
  its children are the frame's top level. Nodes not reachable from it are
  not printed. A node id met a second time (a malformed tree) is skipped.
* **Frames.** An ``Iframe`` node's content comes only from
  ``FrameAX.children[backendDOMNodeId]``; ``None`` or no entry leaves the
  ``iframe`` line empty. A frame object reached a second time (a cycle) is
  left empty too.
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
* **Scope.** With ``scope``, the walk still visits everything (the carrier and
  text-field context of a matched element come from its real ancestors), but
  only content inside a matched element is kept. Text runs never merge across
  two matched elements.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Final

from kobrowser.snapshot._ax import AXNode, FlatAXNode, gc_paused, raw_role
from kobrowser.snapshot._hidden import GRAFTED, derived_name, hidden_of
from kobrowser.snapshot._labels import LABEL_END, LABEL_START, resolve_labels
from kobrowser.snapshot._memo import BuildMemo
from kobrowser.snapshot._node import FrameAX, Node
from kobrowser.snapshot._promote import finish_candidate
from kobrowser.snapshot._roles import (
    BREAK,
    FIELD_ROLES,
    IFRAME,
    INLINE_ROLES,
    INTERACTIVE,
    NAMED,
    ROLE_CACHE,
    STRUCTURE,
    TEXT,
    TRANSPARENT,
    role_info,
)
from kobrowser.snapshot._runs import LINE_BREAK, SEPARATOR, flush_run, merge_text
from kobrowser.snapshot._states import (
    CLICKABLE_BIT,
    EDITABLE,
    FOCUSABLE,
    FOCUSABLE_BIT,
    STATE_ORDER,
    STATES_BY_BITS,
    read_props,
    states_of,
)
from kobrowser.snapshot._text import is_password_value, value_to_text
from kobrowser.snapshot._walkstate import (
    Ctx,
    finish,
    frame_root,
    frame_state,
    push_children,
    push_frame,
)

__all__ = ["STATE_ORDER", "FrameAX", "Node", "build_tree"]


# --- the walk -------------------------------------------------------------

# Text of a list marker: a bullet, or a short ordinal followed by "." or ")".
_MARKER: Final = re.compile(
    r"\s*(?:[\u2022\u25e6\u25aa\u25ab\u25a0\u25a1\u2023\u2043\u2013\u2014-]|\w{1,6}[.)])\s*"
)


# Marks a stack item that records a printed element's output in the memo.
_RECORD: Final = object()


def build_tree(
    frame: FrameAX,
    *,
    scope: Collection[tuple[str, int]] | None = None,
    memo: BuildMemo | None = None,
    index: Mapping[str, AXNode] | None = None,
    proper: bool = False,
) -> list[Node]:
    """Build the printed tree (full mode) of a frame and the frames it embeds.

    Args:
        frame: The top frame's AX tree, with its child frames.
        scope: ``(frame_id, backendDOMNodeId)`` of the elements a CSS selector
            matched, or ``None`` for the whole page. When given, only the
            printed content of the matched subtrees is returned: a matched
            element that is printed becomes a root, an unprinted one
            contributes its printed descendants; a match inside another match
            is not repeated. An empty scope gives ``[]``.
        memo: What the previous build of the same top frame recorded, its
            changed nodes already forgotten (see ``_memo``): unchanged
            subtrees are reused from it and the new outputs recorded in it.
            The frame's nodes must form a proper tree. Ignored with a
            ``scope``, or when it is for another frame.
        index: ``nodeId -> node`` for exactly ``frame.nodes``, when the
            caller has it (spares building it).
        proper: The nodes form a proper tree (no node listed by two nodes,
            no cycle, the root listed by none): the walk then reads
            ``index`` as it is instead of a copy it empties as it goes.

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
    if memo is not None:
        if scope is not None or memo.frame_id != frame.frame_id:
            memo = None
        elif bool(memo.clickable) != bool(frame.clickable):
            memo.clear()  # every element's candidate rules change
    with gc_paused():
        if memo is not None:
            memo.clickable = frame.clickable
        elif scope is None:
            return full_build(frame, index, proper)
        return _build(frame, scope_set, scope is None, memo, index, proper)


def prebuild_frame(
    frame_id: str, nodes: list[AXNode], clickable: Mapping[int, int] | None = None
) -> FrameAX:
    """A child frame's tree, with its printed content built ahead of time.

    A frame's content does not depend on where it is embedded (an ``iframe``
    carries no text, and the frame's text runs and clickable elements end at
    its edges), so a frame that embeds no other frame can be built as soon as
    its AX tree arrives, while the other frames are still being read.
    ``built`` stays ``None`` when the frame has an ``iframe`` of its own (its
    content would need the child frames). ``clickable`` is the frame's
    clickable map (see :class:`FrameAX`).
    """
    frame = FrameAX(frame_id=frame_id, nodes=nodes, clickable=clickable or {})
    if nodes and not embeds_frames(nodes):
        with gc_paused():
            frame.built = full_build(frame)
    return frame


def full_build(
    frame: FrameAX, index: Mapping[str, AXNode] | None = None, proper: bool = False
) -> list[Node]:
    """A build with no scope and no memo."""
    return _build(frame, (), True, None, index, proper)


def embeds_frames(nodes: list[AXNode]) -> bool:
    """Whether any node has a role the walk treats as an ``iframe``.

    Ignored ones too: a superset of what the walk would embed, so a frame
    it answers False for has nothing for the walk to inline. Each distinct
    role is classified once (a page has a few dozen among its nodes).
    """
    roles: set[Any] = set()
    add = roles.add
    items: list[Any] = nodes  # flat or not (FlatAXNode holds the values themselves)
    for node in items:
        raw = node.role if node.__class__ is FlatAXNode else raw_role(node)
        if raw.__class__ is str:
            add(raw)
    return any(role_info(raw)[1] == IFRAME for raw in roles)


def _build(
    frame: FrameAX,
    scope_set: Collection[tuple[str, int]],
    everything: bool,
    memo: BuildMemo | None = None,
    index: Mapping[str, AXNode] | None = None,
    proper: bool = False,
) -> list[Node]:
    roots: list[Any] = []
    fs = frame_state(frame, index, proper)
    # Grafted hidden elements (``_hidden``) hang on no node of their own that
    # the memo could check: the subtrees holding them are neither reused nor
    # recorded.
    grafting = hidden_of(frame.clickable, frame.frame_id, frame.nodes) is not None
    marker = fs[1].get(GRAFTED) if grafting else None
    blocked: frozenset[str] = frozenset(marker.childIds) if marker is not None else frozenset()
    # The memo's entries (top frame only), and counts for it: iframes met so
    # far (an output holding one is not recorded), subtrees reused, recorded.
    entries = memo.entries if memo is not None else None
    top_fs = fs
    frames = reused = walked = 0
    top: Ctx = (roots if everything else None, "", False, fs, everything, 0)
    seen_frames = {id(frame)}
    # id() of the children lists (alive until the end) that hold label markers.
    labeled: set[int] = set()
    # Stack items: (node, ctx, AX parent, None) or, to finish a printed node,
    # (None, node, the list it was appended to, its kind or candidate data).
    stack: list[tuple[Any, Any, Any, Any]] = []
    push_children(stack, frame_root(frame, fs), top, fs[1])
    push = stack.append
    pop = stack.pop
    roles = ROLE_CACHE
    states_by_bits = STATES_BY_BITS
    # Count of printed things an agent acts on (interactive elements, iframes,
    # kept candidates, clickable text): a candidate that sees it change while
    # its subtree is walked is a wrapper (see _promote).
    acts = 0
    while stack:
        ax, ctx, parent, extra = pop()
        if ax is None:
            if ctx is None:
                # The end of a block, or of a label.
                parent.append(SEPARATOR if extra is None else extra)
            elif ctx is _RECORD:
                node_id, key, start, acts_before, frames_before = extra
                if frames == frames_before:
                    entries[node_id] = (key, parent[start:], acts - acts_before)  # type: ignore[index]
                    walked += 1
            elif extra.__class__ is tuple:
                if finish_candidate(ctx, parent, extra, acts, labeled):
                    acts += 1
            else:
                children = ctx.children
                if labeled and id(children) in labeled:
                    resolve_labels(children)
                elif len(children) == 1 and children[0].__class__ is tuple:
                    # The common case, inline (see finish): the element's own
                    # text, printed only when its name does not carry it.
                    only = children[0]
                    children.clear()
                    text_carrier = only[2]
                    if not text_carrier or " ".join(only[0].split()) not in text_carrier:
                        flush_run([only], children)
                    if extra == STRUCTURE and not children and not ctx.name and parent[-1] is ctx:
                        parent.pop()
                    continue
                finish(ctx, parent, extra)
            continue
        out, carrier, in_field, fs, in_scope, owner = ctx
        if not in_scope:
            backend = ax.backendDOMNodeId
            if backend is not None and (fs[0], backend) in scope_set:
                roots.append(SEPARATOR)
                out = roots
                in_scope = True
                ctx = (out, carrier, in_field, fs, True, owner)
        if ax.ignored:
            if ax.childIds:
                push_children(stack, ax, ctx, fs[1])
            continue
        if entries is not None and fs is top_fs and not (blocked and ax.nodeId in blocked):
            entry = entries.get(ax.nodeId)
            if entry is not None and entry[0] == (carrier, in_field, owner):
                out.extend(entry[1])
                acts += entry[2]
                reused += 1
                continue
        # A flat node (FlatAXNode) holds the values themselves, not AXValues.
        flat = ax.__class__ is FlatAXNode
        role_v: Any = ax.role
        raw = (role_v if flat else role_v.value) if role_v is not None else ""
        info = roles.get(raw) if raw.__class__ is str else None
        role, kind = info if info is not None else role_info(raw if raw.__class__ is str else "")
        # Below TRANSPARENT (text, line break, skipped): no child is read
        # (``_roles.walks_below``, which the AX mirror follows too).
        if kind == TEXT:
            if out is not None and not in_field:
                name_v: Any = ax.name
                if name_v is not None:
                    text = name_v if flat else name_v.value
                    if text.__class__ is str and text:
                        backend = ax.backendDOMNodeId
                        if backend is None and parent.ignored and _MARKER.fullmatch(text):
                            continue  # the ::marker of a presentational list item
                        mine = 0
                        if fs[3] and owner >= 0 and backend is not None:
                            mine = fs[3].get(backend, 0)
                            if mine == owner:
                                mine = 0
                            elif mine:
                                acts += 1  # text of a clickable element Chrome left out
                        out.append((text, parent, carrier, fs[0], backend, mine))
            continue
        if kind < TRANSPARENT:
            if kind == BREAK and out is not None:
                out.append(LINE_BREAK)
            continue
        backend = ax.backendDOMNodeId
        clickmap = fs[3]
        # Read only where it counts (outside interactive elements, not on one):
        # ``_ahead`` relies on the walk asking the map nothing else.
        self_click = (
            owner >= 0
            and kind != INTERACTIVE
            and bool(clickmap)
            and backend is not None
            and clickmap.get(backend) == backend
        )
        if kind == TRANSPARENT:
            name = ""
        else:
            name_v = ax.name
            if name_v is None:
                name = ""
            else:
                name = name_v if flat else name_v.value
                if name.__class__ is not str:
                    name = value_to_text(name)
                if name:
                    name = " ".join(name.split())
        if not ax.properties:
            bits = flags = 0
        else:
            bits, flags = read_props(ax.properties, flat)
        only_candidate = False
        promote = 0
        if kind == TRANSPARENT or (kind == NAMED and not name):
            # Kept by Chrome, not printed by the spec: a run end, or a candidate.
            if owner >= 0 and role != "label":
                if self_click:
                    promote = CLICKABLE_BIT
                if flags & FOCUSABLE:
                    promote |= FOCUSABLE_BIT
            if not promote or out is None:
                if self_click and owner >= 0:
                    ctx = (out, carrier, in_field, fs, in_scope, backend)
                if ax.childIds:
                    if role in INLINE_ROLES:
                        # Lifted: its text joins its parent's as if it were there.
                        push_children(stack, ax, ctx, fs[1], parent)
                        continue
                    if out is not None:
                        out.append(SEPARATOR)
                        push((None, None, out, None))
                        if role == "label":
                            out.append(LABEL_START)
                            push((None, None, out, LABEL_END))
                            labeled.add(id(out))
                    push_children(stack, ax, ctx, fs[1])
                continue
            only_candidate = True
            role = role or "generic"
        elif kind < INTERACTIVE and owner >= 0 and role != "label":
            if self_click:
                promote = CLICKABLE_BIT
            if flags & FOCUSABLE:
                promote |= FOCUSABLE_BIT
        if promote & CLICKABLE_BIT and not name:
            name = derived_name(clickmap, backend)  # an icon-only control (``_hidden``)
        # A printed element (or, outside the scope, one that would be).
        child_field = in_field or (bool(flags & EDITABLE) and role in FIELD_ROLES)
        child_carrier = carrier if only_candidate else ("" if kind == IFRAME else name)
        if kind == INTERACTIVE:
            child_owner = -1
        elif self_click and owner >= 0:
            child_owner = backend
        else:
            child_owner = owner
        if out is None:
            child_ctx: Ctx = (None, child_carrier, child_field, fs, False, child_owner)
            if kind == IFRAME:
                frames += 1
                push_frame(stack, ax, child_ctx, fs, seen_frames)
            elif ax.childIds:
                push_children(stack, ax, child_ctx, fs[1])
            continue
        value: str | None = None
        value_v: Any = ax.value
        if value_v is not None:
            value = " ".join(value_to_text(value_v if flat else value_v.value).split())
            if not value or value == name or is_password_value(value):
                value = None
        states = states_by_bits.get(bits | promote)
        if states is None:
            states = states_of(bits | promote)
        node = Node(role, name, value, states, fs[0], backend, [])
        out.append(node)
        if (
            entries is not None
            and fs is top_fs
            and (promote or (ax.childIds and kind != IFRAME))
            and not (blocked and ax.nodeId in blocked)
        ):
            # Pops after the node is finished: its output is then out[start:].
            push(
                (
                    None,
                    _RECORD,
                    out,
                    (ax.nodeId, (carrier, in_field, owner), len(out) - 1, acts, frames),
                )
            )
        if promote:
            push((None, node, out, (only_candidate, kind, states_of(bits), acts)))
            if ax.childIds:
                push_children(
                    stack,
                    ax,
                    (node.children, child_carrier, child_field, fs, True, child_owner),
                    fs[1],
                )
            continue
        if kind >= INTERACTIVE:
            acts += 1
        if kind == IFRAME:
            frames += 1
            push((None, node, out, kind))
            push_frame(stack, ax, (node.children, "", child_field, fs, True, 0), fs, seen_frames)
        elif ax.childIds:
            push((None, node, out, kind))
            # push_children, inline: the walk's hottest path.
            child_ctx = (node.children, child_carrier, child_field, fs, True, child_owner)
            take = fs[1].pop
            for cid in reversed(ax.childIds):
                child = take(cid, None)
                if child is not None:
                    push((child, child_ctx, ax, None))
        elif kind == STRUCTURE and not name:
            out.pop()
    if labeled and id(roots) in labeled:
        resolve_labels(roots)
    merge_text(roots)
    if memo is not None:
        memo.reused, memo.walked = reused, walked
    return roots
