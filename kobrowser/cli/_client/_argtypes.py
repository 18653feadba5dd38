"""The argparse value types of every `ko-browser` parser: text -> checked value.

One type per kind of value, for ``ko-browser``, ``ko-browser scrape``
(:mod:`kobrowser.cli._scrape`) and ``ko-browser mcp`` alike, and for the
daemon, which checks each request through the same parser
(:mod:`kobrowser.cli._daemon._requests`). A bad text gets the message of the
library's rule of that kind (:mod:`kobrowser._validate._values`), called with
the text; argparse puts the option's name before it::

    ko-browser snapshot: error: argument -d/--depth: got 'x'; expected a whole number >= 0

Standard library only: the rules' module is imported only to word an error,
so a good command line (the client builds its parser on every command) never
loads it.
"""

from __future__ import annotations

import argparse
import json
import math
import os

from kobrowser.cli._protocol import valid_session_name

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "element_id",
    "existing_file",
    "header",
    "json_headers",
    "no_such_directory",
    "no_such_file",
    "number",
    "on_off",
    "proxy_url",
    "resource_types",
    "seconds",
    "session_name",
    "whole",
]


def _refused(check: Callable[[], object]) -> argparse.ArgumentTypeError:
    """The error a rule of :mod:`kobrowser._validate._values` raises in ``check``.

    ``check`` calls the rule with the refused text (a str, which each rule
    used here refuses) and an empty argument name: the message then starts at
    "got", since argparse names the option. The caller imports the rules
    there, on the bad value only.
    """
    try:
        check()
    except ValueError as exc:  # InvalidArgumentError
        return argparse.ArgumentTypeError(str(exc))
    raise AssertionError("the rule accepted the text")  # pragma: no cover


def _expected(text: str, accepted: str) -> argparse.ArgumentTypeError:
    """``got <text>; expected <accepted>``: the library's wording of a value it refuses."""
    from kobrowser._validate import _values as rules

    return argparse.ArgumentTypeError(str(rules.fail("", text, accepted)))


def no_such_file(path: str) -> str:
    """How a missing file is worded, by the types and by the client's own checks."""
    return f"no such file: {path!r}"


def no_such_directory(path: str) -> str:
    """How a missing directory is worded (the folder of a file to write)."""
    return f"no such directory: {path!r}"


def _int(text: str) -> int | None:
    """Digits (spaces around them allowed) as an int, else None: no sign, no '_'."""
    digits = text.strip()
    if not digits.isdigit():
        return None
    try:
        return int(digits)
    except ValueError:  # digits int() does not read, e.g. '²'
        return None


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def whole(low: int, high: int | None = None, *, none: bool = False) -> Callable[[str], Any]:
    """The type of a whole number from ``low`` (to ``high``); with ``none``, "none" gives None."""

    def convert(text: str) -> int | None:
        if none and text.strip().lower() == "none":
            return None
        value = _int(text)
        if value is not None and low <= value and (high is None or value <= high):
            return value
        from kobrowser._validate import _values as rules

        error = _refused(lambda: rules.whole(text, "", low, high))
        raise argparse.ArgumentTypeError(f"{error}, or none") if none else error

    convert.__name__ = "whole"
    return convert


def number(
    low: float = -math.inf, high: float | None = None, unit: str | None = None
) -> Callable[[str], float]:
    """The type of a finite number from ``low`` (to ``high``) of ``unit``."""

    def convert(text: str) -> float:
        value = _float(text)
        if math.isfinite(value) and low <= value and (high is None or value <= high):
            return value
        from kobrowser._validate import _values as rules

        raise _refused(lambda: rules.number(text, "", low, high, unit))

    convert.__name__ = "number"
    return convert


def seconds(text: str) -> float:
    """A deadline: a finite number of seconds > 0."""
    value = _float(text)
    if 0 < value < math.inf:  # NaN fails too
        return value
    from kobrowser._validate import _values as rules

    raise _refused(lambda: rules.seconds(text, "", positive=True))


def element_id(text: str) -> int:
    """An id of the latest snapshot: a whole number >= 1."""
    value = _int(text)
    if value is not None and value >= 1:
        return value
    from kobrowser._validate import _values as rules

    raise _refused(lambda: rules.element_id(text, ""))


def session_name(text: str) -> str:
    """A session's name: up to 64 letters, digits, '_', '.' or '-'."""
    if valid_session_name(text):
        return text
    raise _expected(text, "a session name: letters, digits, '_', '.', '-' (up to 64)")


def existing_file(text: str) -> str:
    """A file that exists, as an absolute path (the daemon runs elsewhere)."""
    path = os.path.abspath(text)
    if os.path.isfile(path):
        return path
    raise argparse.ArgumentTypeError(no_such_file(text))


def header(text: str) -> str:
    """One header, ``NAME:VALUE``."""
    name, sep, _value = text.partition(":")
    if sep and name.strip():
        return text
    raise _expected(text, "a header NAME:VALUE, e.g. 'X-Token: abc'")


def on_off(text: str) -> bool:
    """on/off (also true/false, 1/0, yes/no)."""
    word = text.lower()
    if word in ("on", "true", "1", "yes"):
        return True
    if word in ("off", "false", "0", "no"):
        return False
    raise _expected(text, "on or off")


def json_headers(text: str) -> dict[str, str]:
    """Headers as a JSON object of strings."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return value
    raise _expected(text, 'a JSON object of strings, e.g. \'{"X-Token": "abc"}\'')


def proxy_url(text: str) -> str:
    """A proxy URL: ``http://[user:password@]host:port``, ``https://``, ``socks4://``, ``socks5://``.

    Checked by the library's rule (:mod:`kobrowser._validate._proxy`, standard
    library only); the error never shows the password.
    """
    from kobrowser._validate._proxy import split_proxy_url

    try:
        split_proxy_url(text, "")
    except ValueError as exc:  # InvalidArgumentError
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text.strip()


def resource_types(text: str) -> str:
    """Resource types, comma-separated: ``image,font,media`` (Chrome's, lower case).

    The value is the same text made plain: lower case, sorted, no spaces
    (so the daemon's check of a request gets back what it was sent).
    """
    from kobrowser._validate._resources import check_resource_types

    try:
        names = check_resource_types(text, "")
    except ValueError as exc:  # InvalidArgumentError
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not names:
        raise _expected(text, "resource types, e.g. image,font,media")
    return ",".join(sorted(names))
