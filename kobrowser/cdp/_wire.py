"""The CDP wire format: decoding a message's envelope, encoding a call.

The connection decodes only a message's envelope (``result``/``params`` stay
raw JSON for the caller to decode into what it needs); a large successful
reply does not even take that: its ``result`` is sliced out
(:func:`split_reply`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

__all__ = [
    "BIG_REPLY",
    "ENVELOPE",
    "Envelope",
    "ErrorBody",
    "encode_call",
    "split_reply",
]


class ErrorBody(msgspec.Struct):
    """The ``error`` object of a failed reply."""

    code: int = 0
    message: str = ""
    data: str | None = None


class Envelope(msgspec.Struct):
    """Any message: a reply (``id``) or an event (``method``), payload left raw."""

    id: int | None = None
    method: str | None = None
    sessionId: str | None = None
    error: ErrorBody | None = None
    result: msgspec.Raw = msgspec.Raw()
    params: msgspec.Raw = msgspec.Raw()


ENVELOPE = msgspec.json.Decoder(Envelope)
_ENCODE = msgspec.json.Encoder().encode


BIG_REPLY = 1 << 18
"""Replies this long (a large AX tree) take :func:`split_reply` first."""
_REPLY_HEAD = re.compile(r'\{"id":(\d{1,15}),"result":\{')
_REPLY_HEAD_B = re.compile(rb'\{"id":(\d{1,15}),"result":\{')
_REPLY_TAIL = re.compile(r'\},"sessionId":"[0-9A-Fa-f]{1,64}"\}\Z')
_REPLY_TAIL_B = re.compile(rb'\},"sessionId":"[0-9A-Fa-f]{1,64}"\}\Z')


def split_reply(data: bytes | str) -> tuple[int, msgspec.Raw] | None:
    """The id and result of a successful reply, without parsing the result.

    The envelope decoder has to scan a whole message to find where
    ``result`` ends: 15 ms for the 20 MB AX tree of a big page, before the
    result is decoded again. Chrome writes a reply as ``{"id":N,"result":
    {...}}``, with ``,"sessionId":"..."`` last on flattened sessions, so the
    result is the slice between; it is validated when its caller decodes it.
    Anything else (an error reply, an event) gives None and takes the
    envelope decoder.
    """
    if isinstance(data, str):
        head = _REPLY_HEAD.match(data)
        if head is None:
            return None
        call_id, start = head.group(1), head.end() - 1
        tail = _REPLY_TAIL.search(data, len(data) - 100)
        tail_start = tail.start() if tail is not None else None
        closed = data.endswith("}}")
    else:
        head_b = _REPLY_HEAD_B.match(data)
        if head_b is None:
            return None
        call_id, start = head_b.group(1).decode(), head_b.end() - 1
        tail_b = _REPLY_TAIL_B.search(data, len(data) - 100)
        tail_start = tail_b.start() if tail_b is not None else None
        closed = data.endswith(b"}}")
    if tail_start is not None:
        end = tail_start + 1
    elif closed:
        end = len(data) - 1
    else:
        return None
    return int(call_id), msgspec.Raw(data[start:end])


def encode_call(
    call_id: int, method: str, params: dict[str, Any] | None, session_id: str | None
) -> bytes:
    """The JSON of one call: id, method, params if any, sessionId if any."""
    message: dict[str, Any] = {"id": call_id, "method": method}
    if params:
        message["params"] = params
    if session_id is not None:
        message["sessionId"] = session_id
    return _ENCODE(message)
