"""Which AX nodes the mirror follows: the children the snapshot's walk reads.

The rule itself is ``walks_below`` (kobrowser/snapshot/_roles.py); here it
is applied to nodes: what a crawl asks for (:func:`crawl_parents`), what the
store holds under a node (:func:`held_children`) and the store's walks of
its tree (:func:`walk`, :func:`walk_once`). Pure logic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from kobrowser.snapshot._ax import AXNode, FlatAXNode
from kobrowser.snapshot._roles import walks_below

__all__ = [
    "crawl_calls",
    "crawl_parents",
    "held_children",
    "reads_children",
    "walk",
    "walk_once",
]


def reads_children(node: AXNode) -> bool:
    """Whether the snapshot's walk reads ``node``'s children (kobrowser/snapshot/_tree.py).

    It never reads below a shown text piece, line break, inline text box or
    list marker (``walks_below`` in kobrowser/snapshot/_roles.py, the one
    statement of the rule; the CBOR pipe's full fetch leaves the text
    pieces' children out too, see ``FLAT_AX_KEEP``), so the mirror neither
    asks for them nor holds them: on a page of text every shown
    ``StaticText`` lists an ``InlineTextBox``, a third of a crawl's calls.
    An ignored node's children are always read.
    """
    if node.ignored or not node.childIds:
        return True
    role: Any = node.role
    raw = role.value if role is not None else ""
    return walks_below(raw if raw.__class__ is str else "")


_NO_CHILDREN: Final[tuple[str, ...]] = ()


def held_children(node: AXNode) -> Sequence[str]:
    """The children of ``node`` the store holds under it: those the walk reads.

    A node a shown text piece or list marker lists is not part of the tree
    the store keeps (:meth:`MirrorStore.prune` drops it, no parent entry
    names the marker): every node held is one the walk reaches, so a walk
    that reaches more nodes than are held has met one twice.
    """
    return node.childIds if reads_children(node) else _NO_CHILDREN


def crawl_parents(nodes: Sequence[AXNode | FlatAXNode]) -> list[str]:
    """The nodes a crawl of these nodes asks for the children of, in their order.

    Every shown node whose children the walk reads (:func:`reads_children`)
    and that has any: an ignored child's children come with its parent's
    answer. ``nodes`` as a full fetch read them, flat (the CBOR pipe's
    projection, which already leaves the text pieces' children out) or not;
    a full fetch lists every node after its parent, so asking in this order
    stores each node before its children's answer.
    """
    out: list[str] = []
    kinds: dict[Any, bool] = {}
    for node in nodes:
        if node.ignored or not node.childIds:
            continue
        raw: Any = node.role
        if raw is not None and node.__class__ is not FlatAXNode:
            raw = raw.value
        reads = kinds.get(raw)
        if reads is None:
            reads = kinds[raw] = walks_below(raw if raw.__class__ is str else "")
        if reads:
            out.append(node.nodeId)
    return out


def crawl_calls(nodes: Sequence[AXNode | FlatAXNode]) -> int:
    """About how many ``getChildAXNodes`` calls a crawl of these nodes makes (see
    :func:`crawl_parents`)."""
    return len(crawl_parents(nodes))


def walk(
    root: AXNode, store: dict[str, AXNode], limit: int
) -> tuple[list[AXNode], list[str]] | None:
    """Every node under ``root`` and the parents lacking a child; None past ``limit``.

    The fast walk of a proper tree: a node reached twice makes the count
    pass the number of nodes held, and the caller walks again with a seen set.
    """
    get = store.get
    out: list[AXNode] = [root]
    parents: list[str] = []
    append = out.append
    stack: list[AXNode] = [root]
    push = stack.append
    pop = stack.pop
    reads = reads_children
    while stack:
        node = pop()
        if not reads(node):
            continue
        for child_id in node.childIds:
            child = get(child_id)
            if child is None:
                parents.append(node.nodeId)
                continue
            append(child)
            push(child)
        if len(out) > limit:
            return None
    return out, list(dict.fromkeys(parents))


def walk_once(root: AXNode, store: dict[str, AXNode]) -> tuple[list[AXNode], list[str]]:
    """:func:`walk` of any tree: each node once, the first time it is reached."""
    get = store.get
    out: list[AXNode] = [root]
    parents: list[str] = []
    seen: set[str] = {root.nodeId}
    stack: list[AXNode] = [root]
    while stack:
        node = stack.pop()
        if not reads_children(node):
            continue
        lacking = False
        for child_id in node.childIds:
            if child_id in seen:
                continue
            child = get(child_id)
            if child is None:
                lacking = True
                continue
            seen.add(child_id)
            out.append(child)
            stack.append(child)
        if lacking:
            parents.append(node.nodeId)
    return out, parents
