"""Number the printed tree and write the text of docs/snapshot-format.md."""

from __future__ import annotations

from ._ax import gc_paused
from ._text import limits, normalize, truncate
from ._tree import Node

__all__ = ["format_snapshot"]


def format_snapshot(
    roots: list[Node], *, title: str | None, text_limit: int | None = 80
) -> tuple[str, list[Node]]:
    """Number ``roots`` depth-first in pre-order from 1 and format the snapshot.

    Names and text lines are cut to ``text_limit`` code points and values to
    five eighths of it (80 and 50 by default) here; ``Node`` keeps the full
    normalized text. The title gets the same whitespace rule and the name
    limit; a title that is ``None`` or blank after normalization prints no
    ``Page:`` line.

    Args:
        roots: Top-level printed nodes (from :func:`build_tree`, optionally
            through :func:`filter_tree`).
        title: The top document's title.
        text_limit: The name limit (a whole number >= 4), or ``None`` to
            print every name, text line, value and title whole.

    Returns:
        The snapshot text, and the nodes in id order: ``nodes[i]`` has id
        ``i + 1``.

    Raises:
        ValueError: ``text_limit`` is not ``None`` or a whole number >= 4.
    """
    name_max, value_max = limits(text_limit)
    with gc_paused():
        return _format(roots, title, name_max, value_max)


def _format(
    roots: list[Node], title: str | None, name_max: int, value_max: int
) -> tuple[str, list[Node]]:
    lines: list[str] = []
    add = lines.append
    if title is not None:
        page = normalize(title)
        if page:
            add(f'Page: "{truncate(page, name_max)}"\n\n')
    nodes: list[Node] = []
    keep = nodes.append
    stack: list[tuple[Node, str]] = [(n, "") for n in reversed(roots)]
    pop = stack.pop
    push = stack.append
    number = 0
    while stack:
        node, indent = pop()
        number += 1
        keep(node)
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
        children = node.children
        if children:
            child_indent = indent + "  "
            for child in reversed(children):
                push((child, child_indent))
    return "".join(lines), nodes
