"""Snapshot modes: interactive, compact and depth (docs/snapshot-format.md, "Modes").

Decisions where the spec is silent:

* ``compact`` removes every printed element that is not interactive, not a
  ``text`` line and has no name; its children take its place. Text lines that
  become neighbours this way stay separate lines (they belonged to different
  elements).
* ``interactive`` keeps only the interactive roles (``iframe`` included, so
  frame content stays under its ``iframe`` line) and the elements marked
  ``clickable`` or ``focusable`` (an element a page made actionable without a
  role, clickable text included); other ``text`` lines go.
* ``compact`` keeps marked elements too, named or not.
* ``depth=0`` prints nothing; a negative depth is an error.
* The result is always a new tree; the input is never changed.
"""

from __future__ import annotations

from typing import Any

from ._ax import gc_paused
from ._roles import INTERACTIVE_ROLES
from ._tree import Node

_ACTION_STATES = frozenset({"clickable", "focusable"})

__all__ = ["filter_tree"]


def filter_tree(
    roots: list[Node],
    *,
    interactive: bool = False,
    compact: bool = False,
    depth: int | None = None,
) -> list[Node]:
    """Apply the snapshot modes to a built tree.

    ``interactive`` and ``compact`` are applied first, then ``depth`` on the
    resulting printed tree.

    Args:
        roots: Top-level nodes from :func:`build_tree`.
        interactive: Keep interactive roles and ``clickable``/``focusable``
            elements only, each under its nearest kept ancestor.
        compact: Drop unnamed elements that are neither interactive nor
            marked ``clickable``/``focusable`` (``text`` lines stay); their
            children move up one level.
        depth: Keep only elements at printed depth ``< depth`` (top level is
            depth 0). ``None`` means no limit.

    Returns:
        New top-level nodes (new ``Node`` objects; the input is not modified).

    Raises:
        ValueError: ``depth`` is negative.
    """
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    limit = depth if depth is not None else -1
    if limit == 0:
        return []
    with gc_paused():
        return _filter(roots, interactive, compact, limit)


def _filter(roots: list[Node], interactive: bool, compact: bool, limit: int) -> list[Node]:
    out_roots: list[Node] = []
    # (node, list to append to, printed depth of a kept node here)
    stack: list[tuple[Node, list[Node], int]] = [(n, out_roots, 0) for n in reversed(roots)]
    pop = stack.pop
    push = stack.append
    interactive_roles = INTERACTIVE_ROLES
    marks = _ACTION_STATES
    while stack:
        node, out, level = pop()
        role = node.role
        if interactive:
            keep = role in interactive_roles or (
                bool(node.states) and not marks.isdisjoint(node.states)
            )
        elif compact:
            keep = (
                bool(node.name)
                or role == "text"
                or role in interactive_roles
                or (bool(node.states) and not marks.isdisjoint(node.states))
            )
        else:
            keep = True
        children: Any = node.children
        if keep:
            copy = Node(
                role,
                node.name,
                node.value,
                node.states,
                node.frame_id,
                node.backend_node_id,
                [],
            )
            out.append(copy)
            if not children or level + 1 == limit:
                continue
            target = copy.children
            child_level = level + 1
        else:
            if not children:
                continue
            target = out
            child_level = level
        for child in reversed(children):
            push((child, target, child_level))
    return out_roots
