"""Text runs: merging text pieces into ``text`` lines (full mode).

The walk in ``_tree`` appends text pieces and markers to the children list
of the nearest printed ancestor; :func:`merge_text` (or :func:`flush_run` for
a single run) then replaces them by ``text`` nodes. The rules:

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

Label text has a rule of its own, applied before merging (``_labels``).
"""

from __future__ import annotations

from typing import Any, Final

from ._node import Node

__all__ = ["LINE_BREAK", "SEPARATOR", "Piece", "flush_run", "merge_text"]

# Markers in a children list before text merging (never left in the output).
LINE_BREAK: Final = object()
"""A ``LineBreak``: the pieces around it join with a space."""
SEPARATOR: Final = object()
"""The end of a run (a block boundary, a scope boundary)."""

# A text piece: (raw text, AX parent, carrier name, frame id, backend node id).
Piece = tuple[str, object, str, str, "int | None"]


def flush_run(run: list[Any], out: list[Node]) -> None:
    """Merge one run of text pieces into at most one ``text`` node."""
    parts: list[str] = []
    prev_parent: object = None
    pending_space = False
    carried = True
    first: Piece | None = None
    for piece in run:
        if piece is LINE_BREAK:
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


def merge_text(items: list[Any]) -> None:
    """Replace text pieces and markers in ``items`` by merged ``text`` nodes."""
    out: list[Node] = []
    run: list[Any] = []
    for item in items:
        if item.__class__ is Node:
            if run:
                flush_run(run, out)
                run.clear()
            out.append(item)
        elif item is SEPARATOR:
            if run:
                flush_run(run, out)
                run.clear()
        else:
            run.append(item)
    if run:
        flush_run(run, out)
    items[:] = out
