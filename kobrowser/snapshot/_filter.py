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

With a :class:`FilterCache`, the output of a subtree met before (the very
``Node`` object, at the same printed depth when ``depth`` is given) is taken
as it was: a finished node never changes, and the filtered copies are not
changed once their subtree is done, so they can be shared.
"""

from __future__ import annotations

from typing import Any

from kobrowser.snapshot._ax import gc_paused
from kobrowser.snapshot._roles import INTERACTIVE_ROLES
from kobrowser.snapshot._tree import Node

_ACTION_STATES = frozenset({"clickable", "focusable"})

__all__ = ["FilterCache", "filter_tree"]

KEEP = 4
"""Runs whose outputs a :class:`FilterCache` keeps the subtrees of."""


class FilterCache:
    """What subtrees filtered to, kept from one :func:`filter_tree` run to the next.

    For one caller's trees (built with ``_memo``, so unchanged subtrees are
    the same ``Node`` objects) and one set of modes: the caller keys it with
    the modes (``key``).

    Attributes:
        key: the modes the outputs were made with (the caller's).
        subtrees: ``id(node)`` -> (node, printed depth or 0 without a depth
            limit, what it filtered to, the run that made or last took it).
        runs: runs made with this cache.
        hits: subtrees taken whole by the last run.
    """

    __slots__ = ("hits", "key", "runs", "subtrees")

    def __init__(self, key: object = None) -> None:
        self.key = key
        self.subtrees: dict[int, tuple[Node, int, list[Node], int]] = {}
        self.runs = 0
        self.hits = 0


def filter_tree(
    roots: list[Node],
    *,
    interactive: bool = False,
    compact: bool = False,
    depth: int | None = None,
    cache: FilterCache | None = None,
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
        cache: Outputs of subtrees filtered before with the same modes (see
            :class:`FilterCache`).

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
        return _filter(roots, interactive, compact, limit, cache)


def _filter(
    roots: list[Node],
    interactive: bool,
    compact: bool,
    limit: int,
    cache: FilterCache | None = None,
) -> list[Node]:
    out_roots: list[Node] = []
    subtrees = None
    run = hits = 0
    if cache is not None:
        subtrees = cache.subtrees
        cache.runs = run = cache.runs + 1
    # Subtrees being filtered whose output to keep: (stack length when the
    # node was taken, node, depth key, the list its output goes to, where
    # its output starts); one ends when the stack is back below that length.
    open_subtrees: list[tuple[int, Node, int, list[Node], int]] = []
    # (node, list to append to, printed depth of a kept node here)
    stack: list[tuple[Node, list[Node], int]] = [(n, out_roots, 0) for n in reversed(roots)]
    pop = stack.pop
    push = stack.append
    interactive_roles = INTERACTIVE_ROLES
    marks = _ACTION_STATES
    while stack:
        node, out, level = pop()
        if subtrees is not None:
            while open_subtrees and open_subtrees[-1][0] > len(stack):
                _, done, at, target_list, start = open_subtrees.pop()
                subtrees[id(done)] = (done, at, target_list[start:], run)
            known = subtrees.get(id(node))
            if known is not None and known[1] == (level if limit >= 0 else 0):
                out.extend(known[2])
                subtrees[id(node)] = (*known[:3], run)
                hits += 1
                continue
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
        if subtrees is not None:
            start = len(out) - 1 if keep else len(out)
            open_subtrees.append((len(stack), node, level if limit >= 0 else 0, out, start))
        for child in reversed(children):
            push((child, target, child_level))
    if cache is not None:
        for _, done, at, target_list, start in open_subtrees:
            subtrees[id(done)] = (done, at, target_list[start:], run)  # type: ignore[index]
        cache.hits = hits
        if run % KEEP == 0:
            # Outputs not made or taken in the last KEEP runs go (a subtree
            # taken whole keeps its own; the ones inside it age).
            oldest = run - KEEP
            cache.subtrees = {k: v for k, v in cache.subtrees.items() if v[3] > oldest}
    return out_roots
