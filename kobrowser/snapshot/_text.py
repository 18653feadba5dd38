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
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "NAME_MAX",
    "VALUE_MAX",
    "is_password_value",
    "normalize",
    "truncate",
    "value_to_text",
]

NAME_MAX: Final = 80
"""Longest printed name or title (code points)."""
VALUE_MAX: Final = 50
"""Longest printed value (code points)."""

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
