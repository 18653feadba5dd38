"""Label text: an unprinted ``<label>`` does not repeat its control's name.

A ``<label>`` that is not printed (Chrome's ``LabelText`` with no name of its
own) does not repeat the name of the control it labels: its text pieces are
dropped when, normalized and joined as in a run (or every piece of them),
they are a substring of the name of an *associated* labelable control.
Labelable here means an interactive role but ``link`` and ``iframe`` (HTML
cannot label those). The AX tree has no ``for=`` target in the fields
decoded (only in the name ``sources``, which are skipped for speed), so the
association is structural, among the label's printed siblings (the same
children list, hence the same parent and frame):

- a control printed inside the label (``<label>Lab <input></label>``);
- the printed element right before or right after the label
  (``<label for=e>Email</label><input id=e>`` and
  ``<input type=checkbox id=c><label for=c>Agree</label>``), skipping
  whitespace-only text, line breaks and block boundaries
  (``<p><label for=x>City</label></p><p><input id=x></p>``), but not text
  or another label.

This is chosen over "any control of the frame whose name equals the label's
text" because it never looks far away: a lone label (or one whose control
has a different ``aria-label``) is dropped only if a neighbouring control's
name already says the same words, whereas a frame-wide match would drop it
on a mere name collision anywhere on the page, and could not allow
containment (``Name`` is a substring of ``Username``). It costs nothing on
pages without labels: one extra pass over the children list of each parent
that holds a label. A label whose text is not dropped keeps it in the run
exactly as before (``_runs``); a dropped label's text disappears without
ending the run around it. A printed (named) label is a carrier like any
element and is not affected.

The walk in ``_tree`` brackets an unprinted label's content with
:data:`LABEL_START` and :data:`LABEL_END` and calls :func:`resolve_labels`
on each children list that holds such markers, before text merging.
"""

from __future__ import annotations

from typing import Any, Final

from kobrowser.snapshot._node import Node
from kobrowser.snapshot._roles import INTERACTIVE_ROLES
from kobrowser.snapshot._runs import LINE_BREAK, flush_run

__all__ = ["LABEL_END", "LABEL_START", "resolve_labels"]

# Start and end of an unprinted <label>'s content (see resolve_labels).
LABEL_START: Final = object()
LABEL_END: Final = object()

# Roles a <label> can label (HTML "labelable elements" among the interactive roles).
_LABELABLE: Final = INTERACTIVE_ROLES - {"link", "iframe"}


def _neighbour(items: list[Any], i: int, step: int) -> Node | None:
    """The printed element next to ``items[i]`` (``step`` -1: before, 1: after).

    Whitespace-only text, line breaks and block ends are skipped; other text
    and label markers stop the search.
    """
    n = len(items)
    i += step
    while 0 <= i < n:
        item = items[i]
        if item.__class__ is Node:
            return item
        if item is LABEL_START or item is LABEL_END:
            return None
        if item.__class__ is tuple and not item[0].isspace():
            return None
        i += step
    return None


def _label_carried(items: list[Any], start: int, end: int) -> bool:
    """Whether the text of the label ``items[start:end + 1]`` is in a control's name."""
    controls: list[Node] = []
    pieces: list[str] = []
    run: list[Any] = []
    frame_id = ""
    for k in range(start + 1, end):
        item = items[k]
        if item.__class__ is Node:
            if item.role in _LABELABLE:
                controls.append(item)
        elif item.__class__ is tuple:
            run.append(item)
            pieces.append(" ".join(item[0].split()))
            frame_id = item[3]
        elif item is LINE_BREAK:
            run.append(item)
    if not pieces:
        return False
    node = _neighbour(items, start, -1)
    if node is not None and node.role in _LABELABLE:
        controls.append(node)
    node = _neighbour(items, end, 1)
    if node is not None and node.role in _LABELABLE:
        controls.append(node)
    if not controls:
        return False
    if len(run) == 1:
        text = pieces[0]  # the common case: one piece
    else:
        # The run's text, joined exactly as a text line would be (no carrier).
        joined: list[Node] = []
        flush_run(
            [p if p is LINE_BREAK else (p[0], p[1], "", p[3], p[4], p[5]) for p in run], joined
        )
        text = joined[0].name if joined else ""
    if not text:
        return False  # only whitespace
    for control in controls:
        name = control.name
        if (
            control.frame_id == frame_id
            and name
            and (text in name or all(p in name for p in pieces))
        ):
            return True
    return False


def resolve_labels(items: list[Any]) -> None:
    """Drop carried label text from ``items`` and remove every label marker.

    See the module docstring. Runs once per children list that holds a
    label, after all of it is known (a label's control may come after it).
    """
    starts: list[int] = []
    drop = bytearray(len(items))
    for i, item in enumerate(items):
        if item is LABEL_START:
            starts.append(i)
            drop[i] = 1
        elif item is LABEL_END:
            drop[i] = 1
            if starts:
                start = starts.pop()
                if _label_carried(items, start, i):
                    for k in range(start + 1, i):
                        inner = items[k]
                        if inner.__class__ is tuple or inner is LINE_BREAK:
                            drop[k] = 1
    items[:] = [item for item, d in zip(items, drop, strict=True) if not d]
