"""The walk's state and small steps (``_tree``): frame states, pushing children and frames.

Split from ``_tree`` to keep the walk itself readable; nothing here is used
elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from kobrowser.snapshot._ax import AXNode
from kobrowser.snapshot._hidden import ROOT_KEY, ClickableMap, graft_hidden, hidden_of
from kobrowser.snapshot._node import Node
from kobrowser.snapshot._roles import STRUCTURE
from kobrowser.snapshot._runs import flush_run, merge_text

if TYPE_CHECKING:
    from kobrowser.snapshot._node import FrameAX

__all__ = [
    "Ctx",
    "FrameState",
    "finish",
    "frame_root",
    "frame_state",
    "push_children",
    "push_frame",
]

# A frame being walked: (frame id, nodeId -> node, owner backend id -> child
# frame, clickable map).
FrameState = tuple[str, dict[str, AXNode], dict[int, "FrameAX | None"], Mapping[int, int]]

# Walk context shared by siblings:
# (output list or None outside the scope, carrier name, inside a text field,
#  frame state, inside a matched element, clickable owner: the backend id of
#  the nearest clickable element the walk is inside, 0 for none, -1 inside an
#  interactive element).
Ctx = tuple["list[Any] | None", str, bool, FrameState, bool, int]


class _Kept:
    """A node index the walk reads without emptying it (``pop`` only reads).

    For a proper tree (no node listed twice, no cycle), where emptying the
    index as the walk goes changes nothing: it spares copying the index.
    """

    __slots__ = ("pop",)

    def __init__(self, index: Mapping[str, AXNode]) -> None:
        self.pop = index.get


def frame_state(
    frame: FrameAX, index: Mapping[str, AXNode] | None = None, proper: bool = False
) -> FrameState:
    """Frame id, a private nodeId -> node map (emptied as the walk goes), owners.

    With ``index``: a copy of it; for a ``proper`` tree, ``index`` itself, read only.
    """
    hidden = hidden_of(frame.clickable, frame.frame_id, frame.nodes)
    if index is not None and proper and hidden is None:
        return (
            frame.frame_id,
            cast("dict[str, AXNode]", _Kept(index)),
            frame.children,
            frame.clickable,
        )
    by_id = {n.nodeId: n for n in frame.nodes} if index is None else dict(index)
    by_id.pop(frame.nodes[0].nodeId, None)
    if hidden is not None:
        graft_hidden(frame.nodes, by_id, cast("ClickableMap", frame.clickable))
    return (frame.frame_id, by_id, frame.children, frame.clickable)


def frame_root(frame: FrameAX, fs: FrameState) -> AXNode:
    """The frame's root for the walk: the grafted one (``_hidden``), else its first node."""
    grafted = fs[1].pop(ROOT_KEY, None)
    return frame.nodes[0] if grafted is None else grafted


def finish(node: Node, parent: list[Any], kind: int) -> None:
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
                    flush_run([only], children)
            elif only.__class__ is not Node:
                children.clear()  # a lone line break or block separator
        else:
            merge_text(children)
    if kind == STRUCTURE and not children and not node.name and parent[-1] is node:
        parent.pop()


def push_children(
    stack: list[tuple[Any, Any, Any, Any]],
    ax: AXNode,
    ctx: Ctx,
    by_id: dict[str, AXNode],
    parent: AXNode | None = None,
) -> None:
    """Push ``ax``'s children so that they pop in document order.

    Their AX parent (for text runs) is ``ax``, or ``parent`` when given.
    Each child is taken out of ``by_id`` as it is pushed, so a node listed
    twice (a malformed tree, even a cycle) is visited once.
    """
    take = by_id.pop
    push = stack.append
    up = ax if parent is None else parent
    for cid in reversed(ax.childIds):
        child = take(cid, None)
        if child is not None:
            push((child, ctx, up, None))


def push_frame(
    stack: list[tuple[Any, Any, Any, Any]],
    ax: AXNode,
    ctx: Ctx,
    fs: FrameState,
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
    out, carrier, in_field, _, in_scope, _ = ctx
    if child.built is not None and out is not None and in_scope and not in_field:
        out.extend(child.built)  # built ahead, in this same context (prebuild_frame)
        return
    child_fs = frame_state(child)
    # A frame's content is its own world: no clickable owner from outside it.
    child_ctx = (out, carrier, in_field, child_fs, in_scope, 0)
    push_children(stack, frame_root(child, child_fs), child_ctx, child_fs[1])
