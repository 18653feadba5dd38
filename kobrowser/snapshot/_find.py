"""Finding printed elements by role, name or text (``Tab.find``), pure.

:func:`find_nodes` walks a printed tree (the nodes of a snapshot, or the
elements of its id map: anything with ``role``, ``name``, ``value`` and
``children``) in id order and returns the elements that match every
criterion given:

* ``role``: the printed role, compared case-insensitively (``Button`` finds
  ``button`` lines).
* ``name``: the element's whole name (never the truncated one printed).
* ``text``: the text the line shows, its name or its value (a ``text``
  line's name is its text). Of an element and a printed descendant that
  both match, only the descendant is returned (the innermost, as for a
  heading ``"Section"`` with its link ``"Section"``: the link).

Names and texts are matched after whitespace normalization (the snapshot's
names are normalized already). With ``exact=False`` a criterion matches when
it is contained in the name or text, case-insensitively (``casefold``); with
``exact=True`` the whole name or text must equal it, case included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["Findable", "find_nodes", "matcher", "numbered_lines"]


class Findable(Protocol):
    """What :func:`find_nodes` reads of a printed element."""

    @property
    def role(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> str | None: ...

    @property
    def children(self) -> Sequence[Findable]: ...


T = TypeVar("T", bound=Findable)


def matcher(query: str, *, exact: bool) -> _Match:
    """A test of one name or text against ``query`` (see the module docstring)."""
    wanted = " ".join(query.split())
    if exact:
        return lambda candidate: candidate == wanted
    folded = wanted.casefold()
    return lambda candidate: folded in candidate.casefold()


class _Match(Protocol):
    def __call__(self, candidate: str, /) -> bool: ...


def find_nodes(
    roots: Sequence[T],
    *,
    role: str | None = None,
    name: str | None = None,
    text: str | None = None,
    exact: bool = False,
) -> list[T]:
    """The elements of the printed tree ``roots`` that match every criterion.

    Args:
        roots: The top-level printed elements (a snapshot's ``nodes``).
        role: The printed role (case-insensitive).
        name: Text of the whole name (see ``exact``).
        text: Text the line shows: its name or its value (see ``exact``);
            only the innermost of nested matches is kept.
        exact: Match whole, case-sensitive strings instead of contained,
            case-insensitive ones (``role`` is always case-insensitive).

    Returns:
        The matching elements in id order (pre-order of ``roots``).

    Raises:
        ValueError: No criterion is given, or one is not a string.
    """
    for label, criterion in (("role", role), ("name", name), ("text", text)):
        if criterion is not None and not isinstance(criterion, str):
            raise ValueError(f"find: {label} must be a string, not {criterion!r}")
    if role is None and name is None and text is None:
        raise ValueError("find needs at least one of role, name or text")
    wanted_role = role.strip().lower() if role is not None else None
    name_ok = matcher(name, exact=exact) if name is not None else None
    text_ok = matcher(text, exact=exact) if text is not None else None

    def matches(node: Findable) -> bool:
        if wanted_role is not None and node.role != wanted_role:
            return False
        if name_ok is not None and not name_ok(node.name):
            return False
        if text_ok is not None:
            value = node.value
            return text_ok(node.name) or (value is not None and text_ok(value))
        return True

    found: list[T | None] = []
    # Pre-order walk. With ``text``, a match's slot in ``found`` is cleared
    # when a match is found below it (checked when its subtree is done):
    # open_matches holds [slot, a match below] of the matches being walked.
    stack: list[tuple[T, bool]] = [(node, False) for node in reversed(roots)]
    open_matches: list[list[int]] = []
    innermost = text is not None
    while stack:
        node, done = stack.pop()
        if done:
            slot, below = open_matches.pop()
            if below:
                found[slot] = None
            continue
        if matches(node):
            for entry in open_matches:
                entry[1] = 1
            found.append(node)
            if innermost and node.children:
                open_matches.append([len(found) - 1, 0])
                stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.children))  # type: ignore[misc]
    return [node for node in found if node is not None]


def numbered_lines(text: str) -> dict[int, str]:
    """Id -> its line of a snapshot text, without the indentation."""
    lines: dict[int, str] = {}
    for line in text.splitlines():
        body = line.lstrip(" ")
        head, sep, _ = body.partition(": ")
        if sep and head.isdigit():
            lines[int(head)] = body
    return lines
