"""Number the printed tree and write the text of docs/snapshot-format.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, overload

from ._ax import gc_paused
from ._text import limits, normalize, truncate
from ._tree import Node

__all__ = ["ElementFactory", "format_snapshot"]

E = TypeVar("E")

ElementFactory = Callable[[int, Node, int, list[E]], E]
"""``element(id, node, depth, children) -> E``: the entry of one numbered node.

``children`` is the (still empty) list the formatter fills with the entries
of the node's printed children, in order; the entry keeps it as its own."""


@overload
def format_snapshot(
    roots: list[Node], *, title: str | None, text_limit: int | None = 80
) -> tuple[str, list[Node]]: ...


@overload
def format_snapshot(
    roots: list[Node],
    *,
    title: str | None,
    text_limit: int | None = 80,
    element: ElementFactory[E],
) -> tuple[str, list[E], list[E]]: ...


def format_snapshot(
    roots: list[Node],
    *,
    title: str | None,
    text_limit: int | None = 80,
    element: ElementFactory[E] | None = None,
) -> tuple[str, list[Node]] | tuple[str, list[E], list[E]]:
    """Number ``roots`` depth-first in pre-order from 1 and format the snapshot.

    Names and text lines are cut to ``text_limit`` code points and values to
    five eighths of it (80 and 50 by default) here; ``Node`` keeps the full
    normalized text. The title gets the same whitespace rule and the name
    limit; a title that is ``None`` or blank after normalization prints no
    ``Page:`` line.

    With ``element``, the entries of the id map are made in the same pass
    that numbers the lines: ``element(id, node, depth, children)`` is called
    once per printed node, in id order, so an id can only name the node
    printed with it.

    Args:
        roots: Top-level printed nodes (from :func:`build_tree`, optionally
            through :func:`filter_tree`).
        title: The top document's title.
        text_limit: The name limit (a whole number >= 4), or ``None`` to
            print every name, text line, value and title whole.
        element: Makes the entry of one numbered node (see
            :data:`ElementFactory`).

    Returns:
        Without ``element``: the snapshot text, and the nodes in id order
        (``nodes[i]`` has id ``i + 1``). With it: the text, the entries in
        id order, and the top-level entries (each holding its children).

    Raises:
        ValueError: ``text_limit`` is not ``None`` or a whole number >= 4.
    """
    name_max, value_max = limits(text_limit)
    with gc_paused():
        if element is None:
            return _format(roots, title, name_max, value_max)
        return _format_elements(roots, title, name_max, value_max, element)


def _node_itself(number: int, node: Node, depth: int, children: list[Node]) -> Node:
    return node


def _format(
    roots: list[Node], title: str | None, name_max: int, value_max: int
) -> tuple[str, list[Node]]:
    text, nodes, _ = _format_elements(roots, title, name_max, value_max, _node_itself)
    return text, nodes


def _format_elements(
    roots: list[Node],
    title: str | None,
    name_max: int,
    value_max: int,
    element: ElementFactory[E],
) -> tuple[str, list[E], list[E]]:
    lines: list[str] = []
    add = lines.append
    if title is not None:
        page = normalize(title)
        if page:
            add(f'Page: "{truncate(page, name_max)}"\n\n')
    entries: list[E] = []
    keep = entries.append
    top: list[E] = []
    # (node, indent, depth, the list its entry joins)
    stack: list[tuple[Node, str, int, list[E]]] = [(n, "", 0, top) for n in reversed(roots)]
    pop = stack.pop
    push = stack.append
    number = 0
    while stack:
        node, indent, depth, siblings = pop()
        number += 1
        line = f"{indent}{number}: {node.role}"
        name = node.name
        if name:
            if len(name) > name_max:
                name = name[: name_max - 3] + "..."
            line = f'{line} "{name}"'
        value = node.value
        if value:
            if len(value) > value_max:
                value = value[: value_max - 3] + "..."
            line = f'{line} value="{value}"'
        if node.states:
            line = f"{line} {' '.join(node.states)}"
        add(line + "\n")
        below: list[E] = []
        entry = element(number, node, depth, below)
        keep(entry)
        siblings.append(entry)
        children = node.children
        if children:
            child_indent = indent + "  "
            child_depth = depth + 1
            for child in reversed(children):
                push((child, child_indent, child_depth, below))
    return "".join(lines), entries, top
