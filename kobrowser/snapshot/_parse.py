"""Parse snapshot text back into lines (tests, tools, agents' harnesses).

Names and values are printed with their double quotes unescaped, so the
parser relies on the fixed structure of a line instead of on quoting:

* States are a closed set of words and contain no ``"``: whatever follows the
  **last** ``"`` of the line is the state list. A name that ends in what looks
  like a state (``"Mark as checked"``) is therefore never misread.
* After the role, `` "`` starts a name and `` value="`` starts a value with no
  name before it.
* When a line has both, the name and value are split at the **last**
  ``" value="`` between the name's opening quote and the line's last quote.

Known ambiguity (documented, deterministic): a name or value that itself
contains the seven characters ``" value="`` cannot always be told apart from
a name followed by a value. The parser always splits at the last occurrence,
so a *value* containing ``" value="`` is split too late (part of it goes to
the name), and a *name* containing it on a line without a value is split
into a name and a value. One exception removes the common case: ``text``
lines never carry a value in kobrowser output, so for role ``text`` no value
is looked for (HTML shown as text, ``<input type="text" value="x">``,
parses back exactly).

Beyond the line grammar the parser checks the rest of the format: the blank
line after the ``Page:`` line, the final newline, indentation in steps of two
spaces that deepens one level at a time starting at 0, ids 1, 2, 3 ... in
order (with ``ids="stable"``: unique ids in any order), states in grammar
order without repeats (kobrowser's ``clickable`` and
``focusable`` after the seed's), names and title of at most ``text_limit``
(80) and values of at most 50 code points (five eighths of ``text_limit``);
with ``text_limit=None`` no length is checked, as the formatter cuts none.
"""

from __future__ import annotations

from typing import Final

import msgspec

from kobrowser._exceptions import InvalidArgumentError
from kobrowser.snapshot._text import limits
from kobrowser.snapshot._tree import STATE_ORDER

__all__ = ["ParsedSnapshot", "SnapshotLine", "parse_snapshot"]

_STATE_RANK: Final = {state: i for i, state in enumerate(STATE_ORDER)}
_VALUE_MARK: Final = '" value="'


class SnapshotLine(msgspec.Struct, frozen=True):
    """One element line.

    Attributes:
        id: The element's number.
        depth: Printed depth (indent / 2).
        role: The role.
        name: The name as printed (possibly truncated), ``None`` when absent.
        value: The value as printed, ``None`` when absent.
        states: The states, in order.
    """

    id: int
    depth: int
    role: str
    name: str | None
    value: str | None
    states: tuple[str, ...]


class ParsedSnapshot(msgspec.Struct, frozen=True):
    """A parsed snapshot: the title (``None`` without a ``Page:`` line) and lines."""

    title: str | None
    lines: tuple[SnapshotLine, ...]


def _is_id(text: str) -> bool:
    return text.isascii() and text.isdigit() and text[0] != "0"


def _is_role(text: str) -> bool:
    return text.isascii() and text.isalpha() and text.islower()


def _parse_states(part: str, lineno: int) -> tuple[str, ...]:
    if not part:
        return ()
    if part[0] != " ":
        raise _malformed(f"line {lineno}: expected a space before the states")
    words = part[1:].split(" ")
    last = -1
    for word in words:
        rank = _STATE_RANK.get(word)
        if rank is None:
            raise _malformed(f"line {lineno}: {word!r} is not a state")
        if rank <= last:
            raise _malformed(f"line {lineno}: state {word!r} out of order or repeated")
        last = rank
    return tuple(words)


def _parse_line(
    line: str, lineno: int, name_max: int, value_max: int
) -> tuple[int, int, str, str | None, str | None, tuple[str, ...]]:
    body = line.lstrip(" ")
    spaces = len(line) - len(body)
    if spaces % 2:
        raise _malformed(f"line {lineno}: indent of {spaces} spaces is not a multiple of two")
    colon = body.find(": ")
    if colon <= 0 or not _is_id(body[:colon]):
        raise _malformed(f"line {lineno}: expected '<id>: <role>'")
    rest = body[colon + 2 :]
    space = rest.find(" ")
    role = rest if space == -1 else rest[:space]
    if not role or not _is_role(role):
        raise _malformed(f"line {lineno}: role {role!r} is not lower-case letters")
    tail = rest[len(role) :]
    name: str | None = None
    value: str | None = None
    quote = tail.rfind('"')
    head, states_part = ("", tail) if quote == -1 else (tail[: quote + 1], tail[quote + 1 :])
    if head.startswith(' value="') and len(head) >= 9:
        value = head[8:-1]
    elif head.startswith(' "') and len(head) >= 3:
        inner = head[2:-1]
        mark = -1 if role == "text" else inner.rfind(_VALUE_MARK)
        if mark == -1:
            name = inner
        else:
            name, value = inner[:mark], inner[mark + len(_VALUE_MARK) :]
    elif head:
        raise _malformed(f'line {lineno}: expected a quoted name or value="..."')
    if name is not None and len(name) > name_max:
        raise _malformed(f"line {lineno}: name longer than {name_max} characters")
    if value is not None and len(value) > value_max:
        raise _malformed(f"line {lineno}: value longer than {value_max} characters")
    states = _parse_states(states_part, lineno)
    return int(body[:colon]), spaces // 2, role, name, value, states


def _malformed(message: str) -> InvalidArgumentError:
    """The error for snapshot text that breaks the format (``line N: ...``)."""
    return InvalidArgumentError(message, argument="text")


def parse_snapshot(
    text: str, *, text_limit: int | None = 80, ids: str = "depth-first"
) -> ParsedSnapshot:
    """Parse snapshot text (docs/snapshot-format.md, version 1).

    Args:
        text: The exact text :func:`format_snapshot` produced.
        text_limit: The ``text_limit`` it was formatted with (``None``: names
            and values of any length).
        ids: How the text was numbered: ``"depth-first"`` (ids 1, 2, 3...
            in order, checked) or ``"stable"`` (``launch(ids="stable")``:
            unique ids in any order).

    Returns:
        The title and the element lines.

    Raises:
        InvalidArgumentError: The text does not follow the format (also a
            ValueError); the message starts with ``line N:`` (1-based). Also
            when ``text`` is not a str, or ``text_limit`` is not ``None`` or
            a whole number >= 4, or ``ids`` is neither mode.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(
            f"text: got {type(text).__name__}; expected snapshot text (a str)", argument="text"
        )
    name_max, value_max = limits(text_limit)
    if ids not in ("depth-first", "stable"):
        raise InvalidArgumentError(
            f'ids: got {ids!r}; expected "depth-first" or "stable"', argument="ids"
        )
    stable = ids == "stable"
    if not text:
        return ParsedSnapshot(None, ())
    raw_lines = text.split("\n")
    if raw_lines[-1] != "":
        raise _malformed(f"line {len(raw_lines)}: the snapshot must end with a newline")
    raw_lines.pop()
    title: str | None = None
    start = 0
    if raw_lines[0].startswith("Page:"):
        page = raw_lines[0]
        if not (page.startswith('Page: "') and page.endswith('"') and len(page) >= 8):
            raise _malformed('line 1: expected Page: "<title>"')
        title = page[7:-1]
        if len(title) > name_max:
            raise _malformed(f"line 1: title longer than {name_max} characters")
        if len(raw_lines) < 2 or raw_lines[1] != "":
            raise _malformed("line 2: expected a blank line after the Page line")
        start = 2
    lines: list[SnapshotLine] = []
    seen: dict[int, int] = {}  # id -> line (ids are unique, in any order: stable ids)
    prev_depth = -1
    for index in range(start, len(raw_lines)):
        lineno = index + 1
        parsed = _parse_line(raw_lines[index], lineno, name_max, value_max)
        ident, depth, role, name, value, states = parsed
        if not stable:
            if ident != len(lines) + 1:
                raise _malformed(f"line {lineno}: id {ident}, expected {len(lines) + 1}")
        elif ident in seen:
            raise _malformed(f"line {lineno}: id {ident} again (first on line {seen[ident]})")
        else:
            seen[ident] = lineno
        if depth > prev_depth + 1:
            raise _malformed(f"line {lineno}: indent deepens by more than one level")
        prev_depth = depth
        lines.append(SnapshotLine(ident, depth, role, name, value, states))
    return ParsedSnapshot(title, tuple(lines))
