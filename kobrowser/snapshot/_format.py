"""Number the printed tree and write the text of SNAPSHOT-FORMAT.md."""

from __future__ import annotations

from ._ax import gc_paused
from ._text import NAME_MAX, VALUE_MAX, normalize, truncate
from ._tree import Node

__all__ = ["format_snapshot"]


def format_snapshot(roots: list[Node], *, title: str | None) -> tuple[str, list[Node]]:
    """Number ``roots`` depth-first in pre-order from 1 and format the snapshot.

    Names are cut to 80 code points and values to 50 here (``Node`` keeps the
    full normalized text). The title gets the same whitespace rule and the 80
    limit; a title that is ``None`` or blank after normalization prints no
    ``Page:`` line.

    Args:
        roots: Top-level printed nodes (from :func:`build_tree`, optionally
            through :func:`filter_tree`).
        title: The top document's title.

    Returns:
        The snapshot text, and the nodes in id order: ``nodes[i]`` has id
        ``i + 1``.
    """
    with gc_paused():
        return _format(roots, title)


def _format(roots: list[Node], title: str | None) -> tuple[str, list[Node]]:
    lines: list[str] = []
    add = lines.append
    if title is not None:
        page = normalize(title)
        if page:
            add(f'Page: "{truncate(page, NAME_MAX)}"\n\n')
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
            if len(name) > NAME_MAX:
                name = name[: NAME_MAX - 3] + "..."
            line = f'{line} "{name}"'
        value = node.value
        if value:
            if len(value) > VALUE_MAX:
                value = value[: VALUE_MAX - 3] + "..."
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
