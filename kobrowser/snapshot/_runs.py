"""Text runs: merging text pieces into ``text`` lines (full mode).

The walk in ``_tree`` appends text pieces and markers to the children list
of the nearest printed ancestor; :func:`merge_text` (or :func:`flush_run` for
a single run) then replaces them by ``text`` nodes. The rules:

* **Text pieces** (``StaticText``) land in their nearest printed ancestor, the
  *carrier*. Adjacent pieces (no printed element between them, no run end)
  merge into one ``text`` line: pieces with the same AX parent join directly,
  pieces with different AX parents or with a ``LineBreak`` between them join
  with one space; then whitespace is normalized and an empty result is
  dropped. The line keeps the frame and DOM node of its first piece, so an
  action on it reaches the element that holds that text.
* **Run ends** (:data:`SEPARATOR`). Every element Chrome keeps in its tree
  (not ``ignored``) and that is not printed ends the run before it and after
  it: a block ``<div>`` (an unnamed ``generic``), a paragraph, a ``<span>``
  Chrome keeps (a click listener, an ``id``), a layout table cell. So its own
  text is a line of its own (with its own id) and blocks are never glued
  together. The few text-level roles in ``INLINE_ROLES`` (``<em>``,
  ``<strong>``, ``<code>`` ...) do not end runs; ignored nodes (``<b>``, a
  plain ``<span>``) never do: ``Hello <b>world</b>!`` is one line.
* **Clickable pieces.** A piece whose DOM text node belongs to a clickable
  element that Chrome left out of its tree (a ``<span>`` with
  ``cursor: pointer`` whose click a parent handles) carries that element's
  backend id as its *owner*; pieces of different owners never share a run, and
  a run with an owner becomes a ``text`` line with the ``clickable`` state.
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

from kobrowser.snapshot._node import Node

__all__ = ["LINE_BREAK", "SEPARATOR", "Piece", "flush_run", "merge_text"]

# Markers in a children list before text merging (never left in the output).
LINE_BREAK: Final = object()
"""A ``LineBreak``: the pieces around it join with a space."""
SEPARATOR: Final = object()
"""The end of a run (a block boundary, a scope boundary)."""

# A text piece: (raw text, AX parent, carrier name, frame id, backend node id,
# owner: the backend id of the clickable element it belongs to, or 0).
Piece = tuple[str, object, str, str, "int | None", int]

_CLICKABLE: Final = ("clickable",)


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
        raw, parent, carrier, _, _, _ = piece
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
    out.append(Node("text", text, None, _CLICKABLE if first[5] else (), first[3], first[4], []))


def merge_text(items: list[Any]) -> None:
    """Replace text pieces and markers in ``items`` by merged ``text`` nodes."""
    out: list[Node] = []
    run: list[Any] = []
    owner = 0
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
        elif item is LINE_BREAK:
            run.append(item)
        else:
            if item[5] != owner:
                if run:
                    flush_run(run, out)
                    run.clear()
                owner = item[5]
            run.append(item)
    if run:
        flush_run(run, out)
    items[:] = out
