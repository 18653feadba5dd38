"""What changed between two snapshots (pure: no browser, no I/O).

Ids are renumbered by every snapshot, so lines are matched **without** their
ids: a line is its role, name, value and states, under its ancestry (the role
and name of every printed ancestor). An element inserted at the top shifts
every id below it and is still the only change reported.

The matching:

1. Both snapshots are flattened in id order; each line gets a key of its
   ancestry, role, name, value and states (ancestries are interned to ints,
   so keys stay small however deep the tree).
2. The common head and tail are cut off (a page changes somewhere, rarely
   everywhere), and the middle is aligned by :class:`difflib.SequenceMatcher`
   (no junk heuristic: repeated lines such as a column of "Delete" buttons
   are matched in order, not dropped).
3. In each stretch that differs, a removed and an added line with the same
   ancestry, role and name (only value or states differ) are paired as
   *changed*, in order; the rest are *removed* and *added*.
4. With stable ids (``match_ids``) an id names one element, so an id both
   removed and added is that element once: *moved* when only its place
   changed (a sorted list: ``~ 7: link "A" (moved, now after 12)``),
   *changed* when its name, value or states did (``~ 7: button "Cart (1)"
   (was "Cart (0)")``). No line then says an id is gone that is still there.

A name or value cut to the text limit (``...``) is compared as printed when
either side comes from snapshot text (a saved baseline), so a baseline read
back from a file matches the live snapshot it was printed from.
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Literal, Protocol

import msgspec

from kobrowser.snapshot._parse import ParsedSnapshot, parse_snapshot
from kobrowser.snapshot._text import NAME_MAX, VALUE_MAX, truncate

__all__ = ["DiffEntry", "SnapshotDiff", "diff_snapshots"]

ChangeKind = Literal["added", "removed", "changed", "moved"]


class _ElementLike(Protocol):
    """What the diff reads of a snapshot element (``kobrowser.Element``)."""

    @property
    def id(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> str | None: ...
    @property
    def states(self) -> tuple[str, ...]: ...


class _SnapshotLike(Protocol):
    """What the diff reads of a live snapshot (``kobrowser.Snapshot``)."""

    @property
    def id_map(self) -> Mapping[int, _ElementLike]: ...
    @property
    def title(self) -> str: ...


DiffInput = _SnapshotLike | ParsedSnapshot | str
"""A snapshot, a parsed snapshot, or snapshot text (``text_limit`` 80 or none)."""


class DiffEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One added, removed, changed or moved element.

    Attributes:
        kind: ``"added"``, ``"removed"``, ``"changed"``, or ``"moved"``
            (stable ids only: the same element, same line, elsewhere).
        id: Its id in the new snapshot (``None`` when removed).
        old_id: Its id in the old snapshot (``None`` when added).
        depth: Printed depth (in the new snapshot, or the old when removed).
        role: The role.
        name: The name (``""`` when none).
        value: The value (the new one when changed), ``None`` when none.
        states: The states (the new ones when changed).
        old_value: The old value (changed elements only, else ``None``).
        old_states: The old states (changed elements only, else ``()``).
        old_name: The old name of an element whose name changed under the
            same stable id (changed elements only, else ``None``).
        after: Where a moved element now stands: the id of the line printed
            just before it in the new snapshot (``None`` when it is first, or
            the element did not move).
    """

    kind: ChangeKind
    id: int | None
    old_id: int | None
    depth: int
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    old_value: str | None = None
    old_states: tuple[str, ...] = ()
    old_name: str | None = None
    after: int | None = None

    def line(self) -> str:
        """This change as one line of :meth:`SnapshotDiff.__str__`."""
        body = _describe(self.role, self.name, self.value, self.states)
        if self.kind == "removed":
            return f"- {body} (was {self.old_id})"
        if self.kind == "added":
            return f"+ {self.id}: {body}"
        if self.kind == "moved":
            where = "now first" if self.after is None else f"now after {self.after}"
            return f"~ {self.id}: {body} (moved, {where})"
        old_name = None if self.old_name is None else f'"{truncate(self.old_name, NAME_MAX)}"'
        state = _describe_state(self.old_value, self.old_states)
        if old_name is not None:
            before = f"{old_name} {state}" if state else old_name
        else:
            before = state or "no value or state"
        return f"~ {self.id}: {body} (was {before})"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {f: getattr(self, f) for f in self.__struct_fields__} | {
            "states": list(self.states),
            "old_states": list(self.old_states),
        }


class SnapshotDiff(msgspec.Struct, frozen=True, kw_only=True):
    """The changes from one snapshot to the next (:func:`diff_snapshots`).

    Attributes:
        entries: Every change, in the order of the new snapshot (a removed
            element stands where it was).
        title: ``(old, new)`` when the page title changed, else ``None``.

    ``bool(diff)`` is true when anything changed. ``str(diff)`` is one line
    per change: ``+ 14: button "Pay now"`` (added, with its new id),
    ``- button "Pay" (was 12)`` (removed, with its old id),
    ``~ 8: textbox "Email" value="b@x.org" (was value="a@x.org")`` (changed),
    ``~ 7: link "A" (moved, now after 12)`` (moved, stable ids only),
    and ``~ Page: "New" (was "Old")`` for the title. Nothing is printed for
    unchanged lines, so no line of it can be mistaken for an element that
    is still there; an empty diff is ``""``.
    """

    entries: tuple[DiffEntry, ...]
    title: tuple[str, str] | None = None

    @property
    def added(self) -> tuple[DiffEntry, ...]:
        """The added elements."""
        return tuple(e for e in self.entries if e.kind == "added")

    @property
    def removed(self) -> tuple[DiffEntry, ...]:
        """The removed elements."""
        return tuple(e for e in self.entries if e.kind == "removed")

    @property
    def changed(self) -> tuple[DiffEntry, ...]:
        """The elements whose value or states (or, with stable ids, name) changed."""
        return tuple(e for e in self.entries if e.kind == "changed")

    @property
    def moved(self) -> tuple[DiffEntry, ...]:
        """The elements that only moved (stable ids, ``match_ids=True``)."""
        return tuple(e for e in self.entries if e.kind == "moved")

    def __bool__(self) -> bool:
        return bool(self.entries) or self.title is not None

    def touched(self) -> frozenset[tuple[str, int]]:
        """What the diff does to ids: ``("-", id)`` an id that no longer names its
        element, ``("+", id)`` an id that now names a new one, ``("~", id)`` an
        element changed in place. A moved or renamed element (stable ids) is
        both ``-`` and ``+``, as a diff without ``match_ids`` reports it, so two
        diffs of the same snapshots compare equal exactly when no other id moved.
        """
        out: set[tuple[str, int]] = set()
        for e in self.entries:
            if e.kind == "removed" and e.old_id is not None:
                out.add(("-", e.old_id))
            elif e.kind == "added" and e.id is not None:
                out.add(("+", e.id))
            elif e.id is not None and (e.kind == "moved" or e.old_name is not None):
                out.update((("-", e.id), ("+", e.id)))
            elif e.id is not None:
                out.add(("~", e.id))
        return frozenset(out)

    def __str__(self) -> str:
        lines: list[str] = []
        if self.title is not None:
            old, new = (truncate(t, NAME_MAX) for t in self.title)
            lines.append(f'~ Page: "{new}" (was "{old}")')
        lines.extend(entry.line() for entry in self.entries)
        return "".join(f"{line}\n" for line in lines)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: ``title`` and the list of ``entries``."""
        return {
            "title": list(self.title) if self.title is not None else None,
            "entries": [entry.to_dict() for entry in self.entries],
        }


class _Line(msgspec.Struct, gc=False):
    id: int
    depth: int
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    path: int = 0  # interned ancestry
    subtree: int = 0  # hash of the line and everything below it


def diff_snapshots(before: DiffInput, after: DiffInput, *, match_ids: bool = False) -> SnapshotDiff:
    """What changed from ``before`` to ``after``, matching lines without ids.

    Args:
        before: The earlier snapshot: a :class:`kobrowser.Snapshot`, a
            :class:`ParsedSnapshot`, or snapshot text (read with no length
            limit, so text printed with any ``text_limit`` is accepted).
        after: The later one, of any of these kinds.
        match_ids: Match lines with their ids too (stable ids,
            ``launch(ids="stable")``): a line whose id changed is reported
            removed and added, so every id the diff leaves unmentioned
            still names the element it named; an id both removed and added
            is one element, reported once, as moved or changed.

    Returns:
        The added, removed and changed elements, with their ids in ``after``
        (and in ``before``), in the order of ``after``.

    Raises:
        ValueError: A text argument is not snapshot text.
        TypeError: An argument is none of these kinds.
    """
    old_title, old_lines, old_text = _lines(before, "before")
    new_title, new_lines, new_text = _lines(after, "after")
    if old_text or new_text:
        # One side may be cut to the text limit: compare both as printed.
        for lines in (old_lines, new_lines):
            for line in lines:
                line.name = truncate(line.name, NAME_MAX)
                if line.value is not None:
                    line.value = truncate(line.value, VALUE_MAX)
        old_title, new_title = truncate(old_title, NAME_MAX), truncate(new_title, NAME_MAX)
    paths: dict[tuple[int, str, str], int] = {}
    old_keys = _keys(old_lines, paths, match_ids)
    new_keys = _keys(new_lines, paths, match_ids)
    entries = _align(old_lines, new_lines, old_keys, new_keys, match_ids)
    if match_ids:
        entries = _same_ids(entries, new_lines)
    title = (old_title, new_title) if old_title != new_title else None
    return SnapshotDiff(entries=tuple(entries), title=title)


def _lines(snapshot: DiffInput, what: str) -> tuple[str, list[_Line], bool]:
    """(title, lines in id order, whether it came from text)."""
    if isinstance(snapshot, str):
        # Any unique ids: a diff matches lines without them (stable ids too).
        snapshot = parse_snapshot(snapshot, text_limit=None, ids="stable")
    if isinstance(snapshot, ParsedSnapshot):
        lines = [
            _Line(ln.id, ln.depth, ln.role, ln.name or "", ln.value, ln.states)
            for ln in snapshot.lines
        ]
        return snapshot.title or "", lines, True
    id_map = getattr(snapshot, "id_map", None)
    if not isinstance(id_map, Mapping):
        raise TypeError(
            f"{what} must be a Snapshot, a ParsedSnapshot or snapshot text, "
            f"not {type(snapshot).__name__}"
        )
    elements: Iterable[_ElementLike] = id_map.values()  # print order
    lines = [_Line(e.id, e.depth, e.role, e.name or "", e.value, e.states) for e in elements]
    return str(getattr(snapshot, "title", "") or ""), lines, False


_Key = tuple[int, str, str, str | None, tuple[str, ...], int, int]


def _keys(
    lines: list[_Line], paths: dict[tuple[int, str, str], int], match_ids: bool = False
) -> list[_Key]:
    """Each line's alignment key; sets ``line.path`` (its interned ancestry)
    and ``line.subtree`` (a hash of everything printed below it). With
    ``match_ids`` the line's id is part of its key and of its subtree's hash."""
    # stack[d] = interned path of the line at depth d seen last (its children's ancestry).
    stack: list[int] = []
    parents: list[int] = []  # index of each line's parent, -1 at the top
    open_lines: list[int] = []
    for index, line in enumerate(lines):
        del stack[line.depth :]
        del open_lines[line.depth :]
        path = stack[-1] if stack else 0
        line.path = path
        parents.append(open_lines[-1] if open_lines else -1)
        own = (path, line.role, line.name)
        interned = paths.get(own)
        if interned is None:
            interned = paths[own] = len(paths) + 1
        stack.append(interned)
        open_lines.append(index)
    # Subtree hashes bottom-up: a container whose content changed does not
    # align with its old self, so the change is placed inside the right one.
    below: list[list[int]] = [[] for _ in lines]
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        children = below[index]
        children.reverse()
        own_id = line.id if match_ids else 0
        line.subtree = hash(
            (line.role, line.name, line.value, line.states, own_id, tuple(children))
        )
        parent = parents[index]
        if parent >= 0:
            below[parent].append(line.subtree)
    return [
        (
            line.path,
            line.role,
            line.name,
            line.value,
            line.states,
            line.subtree,
            line.id if match_ids else 0,
        )
        for line in lines
    ]


def _align(
    old: list[_Line],
    new: list[_Line],
    old_keys: list[_Key],
    new_keys: list[_Key],
    match_ids: bool = False,
) -> list[DiffEntry]:
    head = 0
    limit = min(len(old_keys), len(new_keys))
    while head < limit and old_keys[head] == new_keys[head]:
        head += 1
    tail = 0
    while (
        tail < limit - head
        and old_keys[len(old_keys) - 1 - tail] == new_keys[len(new_keys) - 1 - tail]
    ):
        tail += 1
    old_mid = old_keys[head : len(old_keys) - tail]
    new_mid = new_keys[head : len(new_keys) - tail]
    entries: list[DiffEntry] = []
    if not old_mid and not new_mid:
        return entries
    matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        entries.extend(_stretch(old[head + i1 : head + i2], new[head + j1 : head + j2], match_ids))
    return entries


def _entry(kind: ChangeKind, line: _Line, before: _Line | None = None) -> DiffEntry:
    return DiffEntry(
        kind=kind,
        id=None if kind == "removed" else line.id,
        old_id=line.id if kind == "removed" else (before.id if before else None),
        depth=line.depth,
        role=line.role,
        name=line.name,
        value=line.value,
        states=line.states,
        old_value=before.value if before else None,
        old_states=before.states if before else (),
    )


def _stretch(removed: list[_Line], added: list[_Line], match_ids: bool = False) -> list[DiffEntry]:
    """The entries of one differing stretch.

    A removed and an added line with the same ancestry, role and name are
    the same element: unchanged when only what is below them changed (that
    change is reported on its own lines), *changed* when its value or
    states differ. The rest are removed and added. With ``match_ids`` the
    two must have the same id as well.
    """
    waiting: dict[tuple[int, str, str, int], deque[_Line]] = {}
    for line in removed:
        key = (line.path, line.role, line.name, line.id if match_ids else 0)
        waiting.setdefault(key, deque()).append(line)
    was: dict[int, _Line] = {}  # id(new line) -> the old line it was
    paired: set[int] = set()  # id(old line) of every paired old line
    for line in added:
        queue = waiting.get((line.path, line.role, line.name, line.id if match_ids else 0))
        if queue:
            match = queue.popleft()
            was[id(line)] = match
            paired.add(id(match))
    # Removed lines come first in a stretch (as in a unified diff), each
    # changed line where its new version stands.
    entries = [_entry("removed", line) for line in removed if id(line) not in paired]
    for line in added:
        before = was.get(id(line))
        if before is None:
            entries.append(_entry("added", line))
        elif before.value != line.value or before.states != line.states:
            entries.append(_entry("changed", line, before))
        elif before.subtree == line.subtree:
            # Same line, same content below, yet not aligned: it moved.
            entries.insert(0, _entry("removed", before))
            entries.append(_entry("added", line))
    return entries


def _same_ids(entries: list[DiffEntry], new: list[_Line]) -> list[DiffEntry]:
    """Stable ids: each id removed and added with the same role is one entry, where it now is."""
    removed = {e.old_id: e for e in entries if e.kind == "removed"}
    added = {e.id: e for e in entries if e.kind == "added"}
    both = {i for i in removed.keys() & added.keys() if removed[i].role == added[i].role}
    if not both:
        return entries
    before: dict[int, int | None] = {}
    previous: int | None = None
    for line in new:
        before[line.id] = previous
        previous = line.id
    out: list[DiffEntry] = []
    for entry in entries:
        if entry.kind == "removed" and entry.old_id in both:
            continue
        if entry.kind != "added" or entry.id not in both:
            out.append(entry)
            continue
        element = entry.id
        assert element is not None  # an added entry has its new id
        old = removed[element]
        if (old.name, old.value, old.states) == (entry.name, entry.value, entry.states):
            moved = msgspec.structs.replace(
                entry, kind="moved", old_id=element, after=before.get(element)
            )
            out.append(moved)
        else:
            out.append(
                msgspec.structs.replace(
                    entry,
                    kind="changed",
                    old_id=entry.id,
                    old_value=old.value,
                    old_states=old.states,
                    old_name=old.name if old.name != entry.name else None,
                )
            )
    return out


def _describe_state(value: str | None, states: tuple[str, ...]) -> str:
    parts = []
    if value:
        parts.append(f'value="{truncate(value, VALUE_MAX)}"')
    parts.extend(states)
    return " ".join(parts)


def _describe(role: str, name: str, value: str | None, states: tuple[str, ...]) -> str:
    line = role
    if name:
        line = f'{line} "{truncate(name, NAME_MAX)}"'
    rest = _describe_state(value, states)
    return f"{line} {rest}" if rest else line
