"""Single-value argument checks (pure, no I/O but ``stat``): the rules :mod:`._validate` names.

Each check takes the value and the argument's name (for the message) and
returns the value, normalised (a float for seconds, absolute paths for
files), or raises :class:`~kobrowser.InvalidArgumentError` via :func:`fail`,
whose message names the argument, shows the value and says what is accepted.
The keyword table that maps public parameters to these checks, and the
checks of whole option sets, are in :mod:`._validate`.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from typing import Any

from kobrowser._exceptions import InvalidArgumentError

__all__ = [
    "BUTTONS",
    "DIRECTIONS",
    "ID_MODES",
    "LOAD_STATES",
    "MAX_CLICK_COUNT",
    "MAX_DRAG_STEPS",
    "MAX_TYPE_DELAY_MS",
    "SELECTOR_STATES",
    "TRANSPORTS",
    "callable_or_none",
    "choice",
    "directory",
    "element_id",
    "existing_files",
    "fail",
    "flag",
    "key_combo",
    "modifier_names",
    "no_surrogates",
    "number",
    "option_values",
    "optional_depth",
    "optional_selector",
    "optional_text",
    "seconds",
    "text_limit",
    "text_value",
    "timeout",
    "url",
    "url_pattern",
    "whole",
]

LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")
SELECTOR_STATES = ("attached", "detached", "visible", "hidden")
DIRECTIONS = ("up", "down", "left", "right")
BUTTONS = ("left", "right", "middle")
TRANSPORTS = ("pipe", "pipe-cbor", "pipe-json", "websocket")
#: How a browser numbers its snapshots' elements (``launch(ids=)``).
ID_MODES = ("depth-first", "stable")
#: Longest value shown in a message (the rest is cut, with its length said).
_SHOWN = 60
#: Most clicks of one click() (1 single, 2 double, 3 triple...).
MAX_CLICK_COUNT = 10
#: Most mouse moves of one drag().
MAX_DRAG_STEPS = 1000
#: Longest pause between two keys of type(), in ms.
MAX_TYPE_DELAY_MS = 10_000.0
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# isinstance() with tuples built once (an `int | float` union is built on every call).
_SCALARS = (bool, int, float)
_NUMBERS = (int, float)
_COLLECTIONS = (list, tuple, set, frozenset)
_SEQUENCES = (list, tuple)
_PATHS = (str, os.PathLike)
_INF = math.inf
# The largest finite float: an int above it is not a number of seconds (float()
# of it raises OverflowError, and so does math.isfinite); comparisons stay exact.
_MAX = sys.float_info.max


def _show(value: Any) -> str:
    """``value`` as a message shows it: repr, cut when long, type named when odd."""
    if isinstance(value, str):
        text = repr(value)
        if len(text) > _SHOWN:
            text = f"{text[: _SHOWN - 4]}...' ({len(value)} characters)"
        return text
    if value is None or isinstance(value, _SCALARS):
        text = repr(value)
        return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({type(value).__name__})"
    text = repr(value)
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 3] + "..."
    return f"{text} ({type(value).__name__})"


def fail(argument: str, value: Any, accepted: str) -> InvalidArgumentError:
    """The error for ``argument`` given ``value``, saying what is ``accepted``.

    With ``argument`` empty the message starts at "got": a command-line type
    (:mod:`kobrowser.cli._client._argtypes`) calls a rule so, since argparse names the option.
    """
    message = f"got {_show(value)}; expected {accepted}"
    if not argument:
        return InvalidArgumentError(message)
    return InvalidArgumentError(f"{argument}: {message}", argument=argument)


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBERS) and value.__class__ is not bool


def _finite(value: float) -> bool:
    """A finite float, or an int a float can hold (never raises OverflowError)."""
    return -_MAX <= value <= _MAX  # NaN fails


# -- single checks -------------------------------------------------------------


def seconds(value: Any, argument: str = "timeout", *, positive: bool = False) -> float:
    """A finite number of seconds, >= 0 (> 0 with ``positive``), as a float."""
    # The hot path (every CDP call): a plain float or int. NaN fails every
    # comparison; a bool's class is bool, never int.
    cls = value.__class__
    if (cls is float or cls is int) and (0 < value <= _MAX if positive else 0 <= value <= _MAX):
        return float(value)
    bound = "> 0" if positive else ">= 0"
    if not _is_number(value) or not _finite(value) or value < 0 or (positive and value == 0):
        raise fail(argument, value, f"a number of seconds {bound} (not NaN or infinite)")
    return float(value)


def timeout(value: Any, argument: str = "timeout") -> float | None:
    """None (the default deadline) or a finite number of seconds >= 0."""
    if value is None:
        return None
    cls = value.__class__
    if (cls is float or cls is int) and 0 <= value <= _MAX:
        return float(value)
    if not _is_number(value) or not _finite(value) or value < 0:
        raise fail(argument, value, "a number of seconds >= 0 (not NaN or infinite), or None")
    return float(value)


def element_id(value: Any, argument: str = "element_id") -> int:
    """A snapshot id: a whole number >= 1 (a bool is not an id)."""
    if value.__class__ is int and value >= 1:
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise fail(argument, value, "an element id from the latest snapshot: a whole number >= 1")
    return value


def no_surrogates(value: str, argument: str) -> str:
    """``value`` unless it holds a lone surrogate (it cannot be sent as UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(
            f"{argument}: got {_show(value)}, which holds a lone surrogate "
            f"({value[exc.start]!r} at index {exc.start}); expected text that "
            "is valid Unicode (no unpaired surrogate)",
            argument=argument,
        ) from None
    return value


def text_value(value: Any, argument: str, *, empty: bool = True, what: str = "text") -> str:
    if not isinstance(value, str):
        raise fail(argument, value, f"a str ({what})")
    if not empty and not value.strip():
        raise fail(argument, value, f"a non-empty str ({what})")
    return no_surrogates(value, argument)


def whole(
    value: Any, argument: str, low: int, high: int | None = None, unit: str | None = None
) -> int:
    """A whole number from ``low`` (to ``high``) of ``unit`` (named in the message); not a bool."""
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        of = f" of {unit}" if unit else ""
        raise fail(argument, value, f"a whole number{of} {bound}")
    return value


def choice(value: Any, argument: str, choices: tuple[str, ...]) -> str:
    """One of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise fail(argument, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def flag(value: Any, argument: str) -> bool:
    """True or False (not 1, not "yes")."""
    if not isinstance(value, bool):
        raise fail(argument, value, "True or False")
    return value


def number(
    value: Any,
    argument: str,
    low: float = -_INF,
    high: float | None = None,
    unit: str | None = None,
) -> float:
    """A finite number from ``low`` (to ``high``) of ``unit`` (named in the message), as a float."""
    if (
        not _is_number(value)
        or not _finite(value)
        or value < low
        or (high is not None and value > high)
    ):
        if high is not None:
            bound = f" from {low:g} to {high:g}"
        else:
            bound = f" >= {low:g}" if low > -_INF else ""
        of = f" of {unit}" if unit else ""
        raise fail(argument, value, f"a number{of}{bound} (not NaN or infinite)")
    return float(value)


def url(value: Any, argument: str = "url") -> str:
    """An absolute URL: it starts with a scheme (``https:``, ``about:``, ``data:``...)."""
    text = text_value(value, argument, empty=False, what="an absolute URL")
    if not _SCHEME.match(text.lstrip()):
        raise fail(
            argument,
            value,
            "an absolute URL with a scheme, e.g. 'https://example.com' or 'about:blank'",
        )
    return text


def url_pattern(value: Any, argument: str) -> Any:
    if isinstance(value, str):
        return no_surrogates(value, argument)
    if isinstance(value, re.Pattern):
        if not isinstance(value.pattern, str):
            raise fail(argument, value, "a glob str, a compiled str regex or a function")
        return value
    if not callable(value):
        raise fail(argument, value, "a glob str, a compiled regex or a function of the URL")
    return value


@functools.cache
def _keyboard() -> Any:
    """The key tables, imported on first use (msgspec is not loaded before a check needs it)."""
    from kobrowser._validate import _keys as keyboard

    return keyboard


def key_combo(value: Any, argument: str) -> str:
    text = text_value(
        value, argument, empty=False, what="a key or chord such as 'Enter' or 'Control+a'"
    )
    parse_combo = _keyboard().parse_combo

    try:
        parse_combo(text)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"{argument}: {exc}", argument=argument) from None
    return text


def modifier_names(value: Any, argument: str) -> Any:
    accepted = "a list of modifier names: Shift, Control, Alt, Meta"
    if isinstance(value, str) or not isinstance(value, _COLLECTIONS):
        raise fail(argument, value, accepted)
    MODIFIER_BITS = _keyboard().MODIFIER_BITS

    for name in value:
        canonical = (
            {"ctrl": "Control", "cmd": "Meta"}.get(name.lower(), name.capitalize())
            if isinstance(name, str)
            else None
        )
        if canonical not in MODIFIER_BITS:
            raise fail(argument, value, f"{accepted} (not {_show(name)})")
    return value


def existing_files(value: Any, argument: str = "files") -> list[str]:
    """Absolute paths of files that exist (``~`` expanded)."""
    if isinstance(value, _PATHS):
        value = [value]
    if not isinstance(value, _SEQUENCES):
        raise fail(argument, value, "paths of files (str or os.PathLike)")
    paths: list[str] = []
    for item in value:
        if not isinstance(item, _PATHS):
            raise fail(argument, item, "a path of a file (str or os.PathLike)")
        try:
            path = os.fspath(item)
            if not isinstance(path, str) or "\0" in path:
                raise TypeError
            path = os.path.abspath(os.path.expanduser(no_surrogates(path, argument)))
            exists = os.path.isfile(path)
        except (TypeError, ValueError):  # bytes paths, NUL bytes
            raise fail(argument, item, "a path of a file (str or os.PathLike)") from None
        if not exists:
            raise InvalidArgumentError(
                f"{argument}: no such file to upload: {path!r}; expected paths of existing files",
                argument=argument,
            )
        paths.append(path)
    return paths


def option_values(value: Any, argument: str) -> Any:
    if not isinstance(value, _SEQUENCES) or not value:
        raise fail(argument, value, "at least one option value or label (str)")
    for item in value:
        text_value(item, argument, what="an option value or label")
    return value


def directory(value: Any, argument: str) -> Any:
    if not isinstance(value, _PATHS):
        raise fail(argument, value, "a directory path (str or os.PathLike)")
    path = os.fspath(value)
    if not isinstance(path, str) or not path or "\0" in path:
        raise fail(argument, value, "a directory path (str or os.PathLike)")
    no_surrogates(path, argument)
    return value


def callable_or_none(value: Any, argument: str) -> Any:
    if value is not None and not callable(value):
        raise fail(argument, value, "a function, or None")
    return value


def optional_depth(value: Any, argument: str) -> Any:
    return None if value is None else whole(value, argument, 0)


def optional_selector(value: Any, argument: str) -> Any:
    return (
        None if value is None else text_value(value, argument, empty=False, what="a CSS selector")
    )


def optional_text(value: Any, argument: str) -> Any:
    return None if value is None else text_value(value, argument)


def text_limit(value: Any, argument: str) -> Any:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 4:
        raise fail(argument, value, "a whole number >= 4 (code points), or None for whole text")
    return value
