"""Reference CBOR for the codec tests: Chrome's enveloped encoder, and cbor2 as the oracle.

:func:`chrome_encode` writes values the way Chrome's DevTools pipe does
(``crdtp/cbor.cc``): every map and array inside an envelope (tag 24, a byte
string with a 4-byte length) and of indefinite length, integers in int32
range (others as doubles), strings as UTF-8 text when they are ASCII (or
``utf16=False``), else as UTF-16LE byte strings, and :class:`Binary` as tag 22.

:func:`oracle` decodes any such bytes with cbor2 and gives the value the
codec's JSON must decode to.
"""

from __future__ import annotations

import base64
import math
import struct
from typing import Any

import cbor2


class Binary(bytes):
    """Bytes that travel as CDP binary (tag 22) and arrive as base64 text."""


def _head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * size):
            return bytes([major << 5 | info]) + value.to_bytes(size, "big")
    raise ValueError(value)


def _envelope(opener: int, items: list[bytes]) -> bytes:
    body = bytes([opener]) + b"".join(items) + b"\xff"
    return b"\xd8\x18\x5a" + struct.pack(">I", len(body)) + body


def _string(text: str, utf16: bool) -> bytes:
    if utf16 and not text.isascii():
        data = text.encode("utf-16-le", "surrogatepass")
        return _head(2, len(data)) + data
    data = text.encode()
    return _head(3, len(data)) + data


def chrome_encode(value: Any, *, utf16: bool = True) -> bytes:
    """``value`` as Chrome's enveloped CBOR."""
    if value is None:
        return b"\xf6"
    if value is True:
        return b"\xf5"
    if value is False:
        return b"\xf4"
    if isinstance(value, Binary):
        return b"\xd6" + _head(2, len(value)) + bytes(value)
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return _head(0, value) if value >= 0 else _head(1, -1 - value)
        return b"\xfb" + struct.pack(">d", float(value))
    if isinstance(value, float):
        return b"\xfb" + struct.pack(">d", value)
    if isinstance(value, str):
        return _string(value, utf16)
    if isinstance(value, list | tuple):
        return _envelope(0x9F, [chrome_encode(v, utf16=utf16) for v in value])
    if isinstance(value, dict):
        return _envelope(
            0xBF,
            [_string(k, utf16) + chrome_encode(v, utf16=utf16) for k, v in value.items()],
        )
    raise TypeError(type(value))


def _tag_hook(*args: Any) -> Any:
    # cbor2 5 calls hook(decoder, tag), cbor2 6 hook(tag, immutable)
    tag = next(arg for arg in args if isinstance(arg, cbor2.CBORTag))
    if tag.tag == 24:
        return oracle(tag.value)
    if tag.tag == 22:
        return base64.b64encode(tag.value).decode()
    return tag


def _normalize(value: Any) -> Any:
    if isinstance(value, bytes):  # an untagged byte string is UTF-16LE text
        return value.decode("utf-16-le", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if isinstance(value, dict):
        return {_normalize(k): _normalize(v) for k, v in value.items()}
    return value


def oracle(data: bytes) -> Any:
    """What cbor2 reads in ``data``, as the codec's JSON should decode."""
    return _normalize(cbor2.loads(data, tag_hook=_tag_hook))


def expected(value: Any, *, int32: bool = False) -> Any:
    """``value`` as it comes back through JSON (binary as base64, non-finite as null).

    ``int32``: integers outside int32 went as doubles (Chrome's form).
    """
    if isinstance(value, Binary):
        return base64.b64encode(value).decode()
    if int32 and type(value) is int and not -(2**31) <= value < 2**31:
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [expected(v, int32=int32) for v in value]
    if isinstance(value, dict):
        return {k: expected(v, int32=int32) for k, v in value.items()}
    return value
