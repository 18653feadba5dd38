"""Number the printed tree and write the text of docs/snapshot-format.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from kobrowser.snapshot._ax import gc_paused
from kobrowser.snapshot._text import limits, normalize, truncate
from kobrowser.snapshot._tree import Node

__all__ = ["KEEP", "ElementFactory", "FormatCache", "Numbering", "format_snapshot"]

E = TypeVar("E")

ElementFactory = Callable[[int, Node, int, list[E]], E]
"""``element(id, node, depth, children) -> E``: the entry of one numbered node.

``children`` is the (still empty) list the formatter fills with the entries
of the node's printed children, in order; the entry keeps it as its own."""


Numbering = Callable[[Node], int]
"""``number(node) -> id``: the id of one printed node, asked in print order
(stable ids, kobrowser/_tab/_stableids.py); without it ids run 1, 2, 3..."""


class FormatCache:
    """The lines and entries of printed subtrees, kept from one format to the next.

    An incremental build (``_memo``) hands the formatter the very ``Node``
    objects of the subtrees it reused, and a finished node never changes. So
    a node met again at the same id and depth prints the same lines and
    makes the same entries as last time: they are taken from the format
    that made them instead of being made again. Only one caller's snapshots
    of one document go through a cache, with the same text limit and the
    same element factory context (the caller keys it, see ``key``); a node
    met anywhere else is formatted afresh.

    Memory: a span points into the lines and entries of the format that
    recorded it (or last took it whole); only the last :data:`KEEP` formats'
    are kept, and spans older than that are dropped (a subtree taken whole
    keeps its own span current, the spans inside it age: they matter only
    once it changes, and then it is formatted afresh).

    Attributes:
        key: what the cached lines and entries depend on besides the nodes
            (the caller's: text limit, the document's loader and session).
        spans: ``id(node)`` -> (node, its id, depth, line count of its
            subtree, its entry, the format that holds them). The node is
            held, so its ``id()`` is not reused meanwhile.
        outputs: format number -> its lines and entries (the last ones).
        formats: formats made with this cache.
        hits: subtrees taken from the cache by the last format.
    """

    __slots__ = ("formats", "hits", "key", "outputs", "spans")

    def __init__(self, key: object = None) -> None:
        self.key = key
        self.spans: dict[int, tuple[Node, int, int, int, Any, int]] = {}
        self.outputs: dict[int, tuple[list[str], list[Any]]] = {}
        self.formats = 0
        self.hits = 0

    def _age(self) -> None:
        """Forget the outputs older than the last :data:`KEEP` formats, and their spans."""
        oldest = self.formats - KEEP
        if not self.outputs or min(self.outputs) > oldest - KEEP:
            return  # drop in batches, every KEEP formats
        self.outputs = {k: v for k, v in self.outputs.items() if k > oldest}
        self.spans = {k: v for k, v in self.spans.items() if v[5] > oldest}


KEEP = 4
"""Formats whose output a :class:`FormatCache` keeps (and points into)."""

SPAN_LINES = 4
"""Inside a subtree whose ids moved, the smallest subtree (lines) whose span is kept."""


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
    cache: FormatCache | None = None,
    number: Numbering | None = None,
) -> tuple[str, list[E], list[E]]: ...


def format_snapshot(
    roots: list[Node],
    *,
    title: str | None,
    text_limit: int | None = 80,
    element: ElementFactory[E] | None = None,
    cache: FormatCache | None = None,
    number: Numbering | None = None,
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
        cache: Lines and entries of subtrees met before (see
            :class:`FormatCache`); entries taken from it are the very
            objects an earlier format made.
        number: Gives each printed node its id, asked once per node in
            print order (see :data:`Numbering`); the lines still print in
            document order, so ids need not ascend. Not with ``cache``.

    Returns:
        Without ``element``: the snapshot text, and the nodes in print order
        (``nodes[i]`` has id ``i + 1`` without ``number``). With it: the
        text, the entries in print order, and the top-level entries (each
        holding its children).

    Raises:
        ValueError: ``text_limit`` is not ``None`` or a whole number >= 4,
            or ``number`` given with ``cache``.
    """
    name_max, value_max = limits(text_limit)
    if number is not None and cache is not None:
        raise ValueError("a format cache records sequential ids: no cache with number")
    with gc_paused():
        if element is None:
            return _format(roots, title, name_max, value_max)
        return _format_elements(roots, title, name_max, value_max, element, cache, number)


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
    cache: FormatCache | None = None,
    assign: Numbering | None = None,
) -> tuple[str, list[E], list[E]]:
    head = ""
    if title is not None:
        page = normalize(title)
        if page:
            head = f'Page: "{truncate(page, name_max)}"\n\n'
    lines: list[str] = []
    add = lines.append
    entries: list[E] = []
    keep = entries.append
    top: list[E] = []
    # (node, indent, depth, the list its entry joins)
    stack: list[tuple[Node, str, int, list[E]]] = [(n, "", 0, top) for n in reversed(roots)]
    pop = stack.pop
    push = stack.append
    number = 0
    spans = outputs = None
    made = 0
    if cache is not None:
        spans, outputs = cache.spans, cache.outputs
        cache.formats = made = cache.formats + 1
        outputs[made] = (lines, entries)
    # Subtrees being formatted whose span to keep: (stack length when the
    # node was taken, node, id, depth, entry); one ends when the stack is
    # back below that length.
    open_spans: list[tuple[int, Node, int, int, E]] = []
    hits = 0
    # Stack length of a subtree met before at another id or depth (lines
    # added or removed before it), formatted afresh: inside it, only the
    # spans of subtrees met before with at least SPAN_LINES lines are
    # recorded again, or a shift would cost more than no cache.
    quiet = -1
    record = False
    while stack:
        node, indent, depth, siblings = pop()
        if spans is not None:
            while open_spans and open_spans[-1][0] > len(stack):
                done, first, at, own = open_spans.pop()[1:]
                spans[id(done)] = (done, first, at, number - first + 1, own, made)
            if quiet > len(stack):
                quiet = -1  # out of it
            record = quiet < 0
            span = spans.get(id(node))
            if span is None:
                pass
            elif span[1] != number + 1 or span[2] != depth:
                if record:
                    quiet = len(stack)
                elif span[3] >= SPAN_LINES:
                    record = True
            else:
                count = span[3]
                old_lines, old_entries = outputs[span[5]]  # type: ignore[index]
                lines += old_lines[number : number + count]
                entries += old_entries[number : number + count]
                siblings.append(span[4])
                spans[id(node)] = (*span[:5], made)  # now held by this format's output
                number += count
                hits += 1
                continue
        number += 1
        ident = number if assign is None else assign(node)
        line = f"{indent}{ident}: {node.role}"
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
        entry = element(ident, node, depth, below)
        keep(entry)
        siblings.append(entry)
        children = node.children
        if children:
            if record:
                open_spans.append((len(stack), node, number, depth, entry))
            child_indent = indent + "  "
            child_depth = depth + 1
            for child in reversed(children):
                push((child, child_indent, child_depth, below))
    if cache is not None:
        for _, done, first, at, own in open_spans:
            spans[id(done)] = (done, first, at, number - first + 1, own, made)  # type: ignore[index]
        cache.hits = hits
        cache._age()
    return head + "".join(lines), entries, top
