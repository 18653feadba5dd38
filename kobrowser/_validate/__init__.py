"""Checks of public arguments, made before any browser call (pure, no I/O but ``stat``).

Every public method starts with one call::

    check(element_id=element_id, button=button, timeout=timeout)

The keyword names the rule (see :data:`RULES`) and the argument: a bad value
raises :class:`~kobrowser.InvalidArgumentError` whose message names the
argument, shows the value given and says what is accepted, e.g.::

    timeout: got nan; expected a number of seconds >= 0 (not NaN or infinite), or None

This module holds the keyword table, the checks of whole option sets
(:func:`launch_options`, :func:`connect_options`) and :func:`argument_errors`,
which lists one message per rule (for the docs and the note of issue 18;
``scripts/list_argument_errors.py`` prints it). The single-value checks
themselves are in :mod:`._checks`; the ones other modules call are
re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kobrowser._exceptions import InvalidArgumentError
from kobrowser._validate._values import (
    BUTTONS,
    DIRECTIONS,
    ID_MODES,
    LOAD_STATES,
    MAX_CLICK_COUNT,
    MAX_DRAG_STEPS,
    MAX_TYPE_DELAY_MS,
    SELECTOR_STATES,
    TRANSPORTS,
    callable_or_none,
    choice,
    directory,
    element_id,
    existing_files,
    fail,
    flag,
    key_combo,
    modifier_names,
    no_surrogates,
    number,
    option_values,
    optional_depth,
    optional_selector,
    optional_text,
    seconds,
    text_limit,
    text_value,
    timeout,
    url,
    url_pattern,
    whole,
)

__all__ = [
    "ID_MODES",
    "LOAD_STATES",
    "RULES",
    "SELECTOR_STATES",
    "argument_errors",
    "check",
    "choice",
    "element_id",
    "existing_files",
    "fail",
    "flag",
    "no_surrogates",
    "number",
    "seconds",
    "timeout",
    "whole",
]

_SEQUENCES = (list, tuple)


# -- keyword rules ---------------------------------------------------------------

Rule = Callable[[Any, str], Any]

#: keyword -> (check, the argument's name in messages).
RULES: dict[str, tuple[Rule, str]] = {
    "timeout": (timeout, "timeout"),
    "element_id": (element_id, "element_id"),
    "source_id": (element_id, "source_id"),
    "target_id": (element_id, "target_id"),
    "url": (url, "url"),
    "url_pattern": (url_pattern, "url"),
    "referrer": (optional_text, "referrer"),
    "wait_until": (lambda v, a: choice(v, a, LOAD_STATES), "wait_until"),
    "state": (lambda v, a: choice(v, a, LOAD_STATES), "state"),
    "selector_state": (lambda v, a: choice(v, a, SELECTOR_STATES), "state"),
    "selector": (lambda v, a: text_value(v, a, empty=False, what="a CSS selector"), "selector"),
    "scope": (optional_selector, "selector"),
    "interactive": (flag, "interactive"),
    "compact": (flag, "compact"),
    "depth": (optional_depth, "depth"),
    "text_limit": (text_limit, "text_limit"),
    "clickable": (flag, "clickable"),
    "fresh": (flag, "fresh"),
    "find_role": (optional_text, "role"),
    "find_name": (optional_text, "name"),
    "find_text": (optional_text, "text"),
    "exact": (flag, "exact"),
    "key": (key_combo, "key"),
    "button": (lambda v, a: choice(v, a, BUTTONS), "button"),
    "click_count": (lambda v, a: whole(v, a, 1, MAX_CLICK_COUNT), "click_count"),
    "modifiers": (modifier_names, "modifiers"),
    "steps": (lambda v, a: whole(v, a, 1, MAX_DRAG_STEPS), "steps"),
    "direction": (lambda v, a: choice(v, a, DIRECTIONS), "direction"),
    "amount": (lambda v, a: number(v, a, 0, None, "CSS pixels"), "amount"),
    "delay": (lambda v, a: number(v, a, 0, MAX_TYPE_DELAY_MS, "milliseconds"), "delay"),
    "ms": (lambda v, a: number(v, a, 0, None, "milliseconds"), "ms"),
    "value": (text_value, "value"),
    "text": (text_value, "text"),
    "values": (option_values, "values"),
    "name": (lambda v, a: text_value(v, a, empty=False, what="an attribute name"), "name"),
    "expression": (
        lambda v, a: text_value(v, a, empty=False, what="a JavaScript expression"),
        "expression",
    ),
    "script": (text_value, "expression"),
    "prompt_text": (text_value, "prompt_text"),
    "files": (existing_files, "files"),
    "path": (directory, "path"),
    "download_dir": (lambda v, a: None if v is None else directory(v, a), "download_dir"),
    "handler": (callable_or_none, "handler"),
}


def check(**values: Any) -> None:
    """Check each keyword's value by the rule of that name (see :data:`RULES`).

    Raises:
        InvalidArgumentError: the first bad value (the message names it).
    """
    for keyword, value in values.items():
        rule, argument = RULES[keyword]
        rule(value, argument)


def launch_options(
    *,
    headless: Any,
    executable_path: Any,
    args: Any,
    timeout: Any,
    no_sandbox: Any,
    download_dir: Any,
    transport: Any,
    ids: Any = "depth-first",
) -> None:
    """The arguments of :func:`kobrowser.launch`."""
    choice(ids, "ids", ID_MODES)
    flag(headless, "headless")
    if no_sandbox is not None:
        flag(no_sandbox, "no_sandbox")
    if executable_path is not None:
        directory(executable_path, "executable_path")
    if isinstance(args, str) or not isinstance(args, _SEQUENCES):
        raise fail("args", args, "a list of command-line flags (str)")
    for arg in args:
        if not isinstance(arg, str) or "\0" in arg:
            raise fail("args", arg, "a command-line flag (str without NUL)")
        no_surrogates(arg, "args")
    seconds(timeout, "timeout", positive=True)
    check(download_dir=download_dir)
    if transport is not None:
        choice(transport, "transport", TRANSPORTS)


def connect_options(
    *, endpoint: Any, timeout: Any, download_dir: Any, ids: Any = "depth-first"
) -> None:
    """The arguments of :func:`kobrowser.connect`."""
    choice(ids, "ids", ID_MODES)
    text_value(
        endpoint,
        "endpoint",
        empty=False,
        what="ws://host:port/devtools/browser/<id>, http://host:port or host:port",
    )
    seconds(timeout, "timeout", positive=True)
    check(download_dir=download_dir)


# -- the list of messages ----------------------------------------------------------

#: keyword -> a bad value that shows its rule's message.
_EXAMPLES: dict[str, Any] = {
    "timeout": float("nan"),
    "element_id": True,
    "source_id": 0,
    "target_id": -3,
    "url": "example.com",
    "url_pattern": 42,
    "referrer": 7,
    "wait_until": "loaded",
    "state": "idle",
    "selector_state": "shown",
    "selector": "",
    "scope": "  ",
    "interactive": "yes",
    "compact": 1,
    "depth": -1,
    "text_limit": 3,
    "clickable": None,
    "find_role": 5,
    "find_name": ["Pay"],
    "find_text": b"total",
    "exact": "yes",
    "fresh": "yes",
    "key": "NotAKey",
    "button": "back",
    "click_count": 0,
    "modifiers": ["Hyper"],
    "steps": 0,
    "direction": "sideways",
    "amount": float("inf"),
    "delay": -5,
    "ms": float("nan"),
    "value": "\ud800",
    "text": None,
    "values": [],
    "name": "",
    "expression": "",
    "script": b"1 + 1",
    "prompt_text": 3,
    "files": ["/nonexistent/file.txt"],
    "path": 5,
    "download_dir": "",
    "handler": "not a function",
}


def argument_errors() -> list[tuple[str, str]]:
    """(keyword, message) of one bad value per rule, in :data:`RULES` order."""
    out: list[tuple[str, str]] = []
    for keyword in RULES:
        try:
            check(**{keyword: _EXAMPLES[keyword]})
        except InvalidArgumentError as exc:
            out.append((keyword, str(exc)))
        else:  # pragma: no cover - a rule that accepts its bad example
            raise AssertionError(f"rule {keyword!r} accepted {_EXAMPLES[keyword]!r}")
    return out
