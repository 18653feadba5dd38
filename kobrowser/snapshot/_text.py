"""Whitespace normalization, truncation and AX value conversion.

Whitespace is what :meth:`str.split` splits on (:meth:`str.isspace`): ASCII
space, tab and line breaks, but also NBSP (U+00A0), the Unicode spaces
U+2000-U+200A, U+3000, the line/paragraph separators U+2028/U+2029, NEL
(U+0085) and the ASCII separators U+001C-U+001F. A run of any of them
becomes one space and the ends are trimmed. Zero-width characters (U+200B,
U+FEFF) are not whitespace and are kept. After normalization no character
that :meth:`str.splitlines` breaks on can remain, so every line of the format
stays one line.

Lengths are counted in Unicode code points (``len``), so a CJK character or an
emoji counts as one (an emoji built from several code points counts as
several; truncation may cut such a sequence).

**Text limit.** Names, text lines and the title are cut at ``text_limit``
code points (80 by default, :data:`NAME_MAX`) and values at five eighths of
it, rounded down (50 for 80, :data:`VALUE_MAX`; 125 for 200), never below
:data:`MIN_TEXT_LIMIT`; ``None`` prints them whole (:func:`limits`).
"""

from __future__ import annotations

import sys
from typing import Any, Final

__all__ = [
    "MIN_TEXT_LIMIT",
    "NAME_MAX",
    "VALUE_MAX",
    "is_password_value",
    "limits",
    "normalize",
    "truncate",
    "value_to_text",
]

NAME_MAX: Final = 80
"""Longest printed name or title (code points)."""
VALUE_MAX: Final = 50
"""Longest printed value (code points)."""
MIN_TEXT_LIMIT: Final = 4
"""Smallest ``text_limit`` (one code point and ``...``)."""
_WHOLE: Final = sys.maxsize


def limits(text_limit: int | None) -> tuple[int, int]:
    """The name and value limits for ``text_limit`` (``None``: no limit).

    Raises:
        ValueError: ``text_limit`` is not ``None`` or a whole number >= 4.
    """
    if text_limit is None:
        return _WHOLE, _WHOLE
    if text_limit.__class__ is not int or text_limit < MIN_TEXT_LIMIT:
        raise ValueError(
            f"text_limit must be None or a whole number >= {MIN_TEXT_LIMIT}, not {text_limit!r}"
        )
    return text_limit, max(MIN_TEXT_LIMIT, text_limit * 5 // 8)


_BULLET: Final = "\u2022"


def normalize(text: str) -> str:
    """Collapse whitespace runs to one space and trim the ends."""
    return " ".join(text.split())


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` code points: the first ``limit - 3`` and ``...``."""
    if len(text) <= limit:
        return text
    return text[: limit - 3] + "..."


def is_password_value(text: str) -> bool:
    """Whether ``text`` is Chrome's masked password value (only U+2022 bullets).

    Chrome exposes no password flag in the AX tree; it reports the value of
    ``<input type=password>`` as one bullet per character. A non-empty value
    made only of bullets is treated as a password and never shown.
    """
    return bool(text) and not text.strip(_BULLET)


def value_to_text(value: Any) -> str:
    """The text form of an ``AXValue.value``.

    Strings as they are, integers and integral floats without a fraction
    (``5``, not ``5.0``), other floats by :func:`repr` (shortest round-trip
    form), booleans as ``true``/``false``. ``None`` and anything else (lists,
    objects) give ``""``.
    """
    cls = value.__class__
    if cls is str:
        return value  # type: ignore[no-any-return]
    if cls is bool:
        return "true" if value else "false"
    if cls is int:
        return str(value)
    if cls is float:
        if value.is_integer():
            return str(int(value))
        return repr(value)
    return ""
