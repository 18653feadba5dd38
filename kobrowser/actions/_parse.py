"""Reading actions from text: one action a line, tolerant where models are sloppy.

Tolerated: prose lines around the actions, Markdown code fences, list
markers (``- ``, ``1. ``), a leading ``Action:`` label, a line wrapped in
backticks, ``@5``, ``#5`` or ``[5]`` for id 5, upper-case verbs, extra
spaces, one trailing ``.``, ``,`` or ``;``, single-quoted strings, a bare
word for a string (``fill 3 hello``), ``px``/``ms``/``s`` units, and a JSON
object per action (see :mod:`kobrowser.actions._json`).

Exact: a line that starts with a verb (in lower or upper case) must be that
action with the right arguments, and a line that looks like an action with
an unknown verb (``tap 5``, ``goto https://...``) is an error. Errors are
:class:`~kobrowser.ActionSyntaxError` with the line and the column.

A line is prose (skipped) when its first word is not a verb and it does not
look like an action, or when it starts with a capitalised verb and is not a
valid action (``Click the blue button first.``).
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from kobrowser._exceptions import ActionSyntaxError
from kobrowser._validate import fail
from kobrowser.actions._json import ALIASES, from_json, unknown_verb
from kobrowser.actions._types import (
    DIRECTIONS,
    USAGE,
    VERBS,
    Action,
    Done,
    Fill,
    Open,
    Press,
    Scroll,
    Select,
    SwitchTab,
    Type,
    Wait,
)

__all__ = ["parse_action", "parse_actions"]

_FENCE = re.compile(r"\s*(?:```|~~~)")
_LIST_MARKER = re.compile(r"(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_LABEL = re.compile(r"(?i)(?:next\s+)?actions?\s*:\s*")
_ID = re.compile(r"[@#]?(\d+)|\[[@#]?(\d+)\]")
_WORD = re.compile(r"[A-Za-z][A-Za-z_-]*")
_NUMBER_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*(px|ms|s)?", re.IGNORECASE)
_UNESCAPE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
_TRAILING = ".,;"
_ID_VERBS = frozenset({"click", "dblclick", "hover", "focus", "check", "uncheck"})
_TEXT_VERBS: dict[str, type[Fill | Type | Select]] = {"fill": Fill, "type": Type, "select": Select}


class _Token(NamedTuple):
    text: str
    start: int  # index in the line
    end: int
    quoted: bool


class _Line:
    """One line being parsed: its number and text, for error positions."""

    __slots__ = ("number", "text")

    def __init__(self, number: int, text: str) -> None:
        self.number = number
        self.text = text

    def error(self, reason: str, index: int) -> ActionSyntaxError:
        return ActionSyntaxError(reason, line=self.number, column=index + 1, source=self.text)


def parse_action(text: str) -> Action:
    """Parse exactly one action, e.g. ``click 5`` or ``{"action": "click", "id": 5}``.

    Raises:
        ActionSyntaxError: the text is not one action (none, several, or a
            malformed one); the message gives the line and the column.
    """
    actions = parse_actions(text)
    if len(actions) != 1:
        found = "no action" if not actions else f"{len(actions)} actions"
        raise ActionSyntaxError(
            f"expected one action, found {found}; write one line such as `click 5`",
            source=text.split("\n", 1)[0],
        )
    return actions[0]


def parse_actions(text: str) -> list[Action]:
    """Parse every action in ``text`` (a model's reply, a batch file), in order.

    Prose and blank lines are skipped (see the module documentation), so a
    reply without any action gives an empty list.

    Raises:
        ActionSyntaxError: a malformed action (wrong arity, unknown verb, bad
            id, unterminated string, bad JSON); the first one found.
    """
    if not isinstance(text, str):
        raise fail("text", text, "a str of action lines")
    lines = text.split("\n")
    starts = [0]
    for previous in lines[:-1]:
        starts.append(starts[-1] + len(previous) + 1)
    actions: list[Action] = []
    index = 0
    while index < len(lines):
        raw = lines[index]
        line = _Line(index + 1, raw[:-1] if raw.endswith("\r") else raw)
        index += 1
        if not line.text.strip() or _FENCE.match(line.text):
            continue
        begin, end = _content(line.text)
        if begin >= end:
            continue
        if line.text[begin] in "{[":
            found = _json_at(text, starts, starts[line.number - 1] + begin, line)
            if found is not None:
                parsed, last_line = found
                actions.extend(parsed)
                index = last_line
                continue
        action = _parse_line(line, begin, end)
        if action is not None:
            actions.append(action)
    return actions


# -- one line ------------------------------------------------------------------


def _content(text: str) -> tuple[int, int]:
    """The span of ``text`` left once list markers, labels and backticks are dropped."""
    begin = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    match = _LIST_MARKER.match(text, begin, end)
    if match:
        begin = match.end()
    match = _LABEL.match(text, begin, end)
    if match:
        begin = match.end()
    if begin < end and text[begin] == "`":
        ticks = len(text[begin:end]) - len(text[begin:end].lstrip("`"))
        if end - begin > 2 * ticks and text[end - ticks : end] == "`" * ticks:
            begin += ticks
            end -= ticks
    while begin < end and text[begin].isspace():
        begin += 1
    while end > begin and text[end - 1].isspace():
        end -= 1
    return begin, end


def _tokenize(line: _Line, begin: int, end: int) -> list[_Token]:
    text = line.text
    tokens: list[_Token] = []
    i = begin
    while i < end:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char in "\"'":
            value, after = _string(line, i, end)
            tokens.append(_Token(value, i, after, True))
            i = after
            if i < end and not text[i].isspace():
                if text[i] in _TRAILING and not text[i + 1 : end].strip():
                    break
                raise line.error("put a space after the closing quote", i)
            continue
        j = i
        while j < end and not text[j].isspace():
            j += 1
        tokens.append(_Token(text[i:j], i, j, False))
        i = j
    if tokens and not tokens[-1].quoted:
        last = tokens[-1]
        if len(last.text) > 1 and last.text[-1] in _TRAILING:
            tokens[-1] = last._replace(text=last.text[:-1], end=last.end - 1)
    return tokens


def _string(line: _Line, start: int, end: int) -> tuple[str, int]:
    """The quoted string starting at ``start``: (its value, index after it)."""
    text = line.text
    quote = text[start]
    parts: list[str] = []
    i = start + 1
    while i < end:
        char = text[i]
        if char == "\\" and i + 1 < end:
            following = text[i + 1]
            parts.append(_UNESCAPE.get(following, "\\" + following))
            i += 2
            continue
        if char == quote:
            return "".join(parts), i + 1
        parts.append(char)
        i += 1
    raise line.error(f"unterminated string: end it with {quote}", start)


def _sentence_case(word: str) -> bool:
    """``Click`` (prose style), as opposed to ``click`` or ``CLICK``."""
    return word[:1].isupper() and not word[1:].isupper() and len(word) > 1


def _parse_line(line: _Line, begin: int, end: int) -> Action | None:
    tokens = _tokenize(line, begin, end)
    if not tokens or tokens[0].quoted:
        return None
    head = tokens[0]
    verb = head.text.lower()
    if verb not in VERBS:
        if _looks_like_action(head.text, tokens):
            raise line.error(unknown_verb(head.text), head.start)
        return None
    if _sentence_case(head.text):
        if verb == "done" and not (len(tokens) == 2 and tokens[1].quoted):
            return None  # "Done." / "Done with the form" is prose
        try:
            return _build(verb, tokens, line, end)
        except ActionSyntaxError:
            return None  # "Click the blue button first." is prose
    return _build(verb, tokens, line, end)


def _looks_like_action(word: str, tokens: list[_Token]) -> bool:
    if not _WORD.fullmatch(word) or _sentence_case(word):
        return False
    if word.lower().replace("-", "_") in ALIASES:
        return True
    if not 2 <= len(tokens) <= 3:
        return False
    arg = tokens[1]
    return arg.quoted or _ID.fullmatch(arg.text) is not None or "://" in arg.text


def _arity(verb: str, tokens: list[_Token], line: _Line, end: int, low: int, high: int) -> None:
    args = len(tokens) - 1
    if low <= args <= high:
        return
    usage = USAGE[verb]
    if args > high:
        extra = tokens[high + 1]
        if verb in _TEXT_VERBS and not extra.quoted and not tokens[high].quoted:
            raise line.error(f"too many words: quote the text, as in `{usage}`", tokens[high].start)
        raise line.error(f"{verb} takes {_count(high)}, as in `{usage}`", extra.start)
    raise line.error(f"{verb} needs {_count(low)}, as in `{usage}`", max(end, tokens[-1].end))


def _count(n: int) -> str:
    return "no argument" if n == 0 else "1 argument" if n == 1 else f"{n} arguments"


def _element_id(token: _Token, line: _Line, what: str = "an id") -> int:
    match = None if token.quoted else _ID.fullmatch(token.text)
    if match is None:
        raise line.error(
            f"expected {what} (a number from the snapshot), found {token.text!r}", token.start
        )
    value = int(match.group(1) or match.group(2))
    if value < 1:
        raise line.error("ids start at 1", token.start)
    return value


def _number(token: _Token, line: _Line, units: tuple[str, ...], what: str) -> int:
    match = None if token.quoted else _NUMBER_UNIT.fullmatch(token.text)
    unit = (match.group(2) or "").lower() if match else ""
    if match is None or (unit and unit not in units):
        raise line.error(f"expected {what}, found {token.text!r}", token.start)
    value = float(match.group(1))
    if unit == "s":
        value *= 1000
    if value != int(value):
        raise line.error(f"expected a whole number for {what}, found {token.text!r}", token.start)
    return int(value)


def _build(verb: str, tokens: list[_Token], line: _Line, end: int) -> Action:
    args = tokens[1:]
    if verb in _ID_VERBS:
        element = _element_id(args[0], line) if args else 0  # a bad id first, then arity
        _arity(verb, tokens, line, end, 1, 1)
        return VERBS[verb](element)
    if verb in _TEXT_VERBS:
        element = _element_id(args[0], line) if args else 0
        _arity(verb, tokens, line, end, 2, 2)
        return _TEXT_VERBS[verb](element, args[1].text)
    if verb == "press":
        _arity(verb, tokens, line, end, 1, 1)
        if not args[0].text:
            raise line.error("press needs a key, as in `press Enter`", args[0].start)
        return Press(args[0].text)
    if verb == "scroll":
        _arity(verb, tokens, line, end, 1, 2)
        direction = args[0].text.lower()
        if args[0].quoted or direction not in DIRECTIONS:
            raise line.error(
                f"scroll goes up, down, left or right, not {args[0].text!r}", args[0].start
            )
        amount = _number(args[1], line, ("px",), "pixels") if len(args) == 2 else None
        return Scroll(direction, amount)
    if verb == "open":
        _arity(verb, tokens, line, end, 1, 1)
        if not args[0].text.strip():
            raise line.error("open needs a URL, as in `open https://example.com`", args[0].start)
        return Open(args[0].text)
    if verb == "wait":
        _arity(verb, tokens, line, end, 1, 1)
        return Wait(_number(args[0], line, ("ms", "s"), "milliseconds"))
    if verb == "tab":
        _arity(verb, tokens, line, end, 1, 1)
        return SwitchTab(_element_id(args[0], line, "a tab number"))
    if verb == "done":
        if not args:
            return Done()
        if not args[0].quoted:  # done The answer is 42 (the rest of the line)
            return Done(line.text[args[0].start : end].rstrip(_TRAILING + " "))
        _arity(verb, tokens, line, end, 0, 1)
        return Done(args[0].text)
    _arity(verb, tokens, line, end, 0, 0)  # back, forward, reload
    return VERBS[verb]()


# -- JSON ----------------------------------------------------------------------


def _json_at(
    text: str, starts: list[int], offset: int, line: _Line
) -> tuple[list[Action], int] | None:
    """Actions of the JSON value at ``offset``: (actions, index of the line after it).

    None when a ``[`` does not start JSON actions (the line is then read as text).
    """

    def position(absolute: int) -> tuple[int, int]:
        number = max(i for i, start in enumerate(starts) if start <= absolute)
        return number + 1, absolute - starts[number] + 1

    try:
        value, after = json.JSONDecoder().raw_decode(text, offset)
    except json.JSONDecodeError as exc:
        if text[offset] == "[":
            return None
        number, column = position(exc.pos)
        source = text.split("\n")[number - 1]
        raise ActionSyntaxError(
            f"invalid JSON: {exc.msg}", line=number, column=column, source=source
        ) from None
    if text[offset] == "[" and not (
        isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    ):
        return None
    last, _ = position(max(after - 1, offset))
    rest_end = text.find("\n", after)
    rest = text[after : len(text) if rest_end < 0 else rest_end]
    if rest.strip(" \t\r`" + _TRAILING):
        number, column = position(after + len(rest) - len(rest.lstrip()))
        raise ActionSyntaxError(
            "unexpected text after the JSON object: one action per line",
            line=number,
            column=column,
            source=text.split("\n")[number - 1],
        )
    try:
        return from_json(value), last
    except ValueError as exc:
        raise line.error(str(exc), offset - starts[line.number - 1]) from None
