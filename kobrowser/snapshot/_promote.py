"""Clickable and focusable elements without an interactive role (the walk's *candidates*).

Pages make elements actionable without giving them a role: a ``<span>`` or
``<div>`` with a click listener, a row with ``cursor: pointer`` whose click a
parent handles, a ``tabindex`` slider handle. The walk in ``_tree`` makes such
an element a *candidate* when it has no interactive role, is not inside an
interactive element (a link's or button's inner parts are the link or
button), is not a ``label`` (a label's click goes to its control, which has
its own line) and either

* is **clickable**: its backend node id is one the frame's ``clickable`` map
  gives as its own owner (see :class:`~kobrowser.snapshot.FrameAX`), or
* is **focusable**: Chrome reports the ``focusable`` property.

A candidate is printed, even unnamed or empty, with the state ``clickable``
and/or ``focusable`` after its other states; an element that the spec would
not print otherwise (an unnamed ``generic``, paragraph, image, a layout cell)
keeps its role word (``generic`` when Chrome gives none). When the walk
finishes it (:func:`finish_candidate`):

* **Innermost wins.** If anything an agent acts on was printed inside it (an
  interactive element, an ``iframe``, another kept candidate, clickable
  text), the candidate is a wrapper (a card around its buttons, a delegation
  root such as a framework's app container, a list whose rows are
  clickable): it loses the two states, and if the spec would not print it, it
  is not printed (its children take its place, as separate runs). This keeps
  one line per action and never marks a whole page clickable.
* **Text as name.** An unnamed candidate whose printed content is only
  ``text`` lines takes them, joined with a space, as its name when that is at
  most :data:`SHORT_NAME` code points, and prints no children: a clickable
  ``<span>massa</span>`` is one line, ``generic "massa" clickable``, never a
  wrapper line plus a text line. Longer text stays as ``text`` lines under
  the candidate line.
* **Carried text.** A candidate the spec would not print passes the carrier
  (the nearest printed ancestor's name) on to its content, exactly as if it
  were not printed: a clickable ``<span>`` inside a heading prints as an
  unnamed ``generic clickable`` under the heading instead of repeating the
  heading's words.
"""

from __future__ import annotations

from typing import Any, Final

from kobrowser.snapshot._labels import resolve_labels
from kobrowser.snapshot._node import Node
from kobrowser.snapshot._roles import STRUCTURE
from kobrowser.snapshot._runs import SEPARATOR, merge_text

__all__ = ["SHORT_NAME", "finish_candidate"]

SHORT_NAME: Final = 80
"""Longest text (code points) a candidate takes as its name: the spec's name limit,
so that at the default ``text_limit`` the name is never cut."""


def finish_candidate(
    node: Node,
    parent: list[Any],
    extra: tuple[bool, int, tuple[str, ...], int],
    acts: int,
    labeled: set[int],
) -> bool:
    """Finish a candidate once its subtree is walked.

    Args:
        node: The candidate's printed node (the last item of ``parent``).
        parent: The children list it was appended to.
        extra: ``(printed only as a candidate, kind, states without the
            candidate states, the walk's acting count when it started)``.
        acts: The walk's acting count now (elements acted on printed so far).
        labeled: ``id()`` of children lists that hold label markers.

    Returns:
        Whether the candidate is kept as something an agent acts on (the
        walk then counts it).
    """
    only_candidate, kind, base_states, acts_before = extra
    children: list[Any] = node.children
    if children:
        if labeled and id(children) in labeled:
            resolve_labels(children)
        merge_text(children)
    if acts != acts_before:
        # A wrapper around something acted on: not a candidate after all.
        if only_candidate:
            parent.pop()
            parent.append(SEPARATOR)
            parent.extend(children)
            parent.append(SEPARATOR)
        else:
            node.states = base_states
            if kind == STRUCTURE and not children and not node.name:
                parent.pop()
        return False
    if not node.name and children:
        for child in children:
            if child.role != "text":
                break
        else:
            joined = " ".join(child.name for child in children)
            if len(joined) <= SHORT_NAME:
                node.name = joined
                children.clear()
    return True
