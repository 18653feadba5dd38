"""The calls a :class:`~kobrowser.cdp.Connection` waits on, and how their callers wake.

A :class:`Call` is one sent command waiting for its answer; a :class:`Batch`
groups the calls of one :meth:`Connection.call_many` and wakes its caller
once, when all are done. On asyncio both wake through a bare future (far
cheaper than ``anyio.Event``) and fail at their deadline from a loop timer
(:func:`expire_call`), which never cancels the task; on other backends
through an ``anyio.Event``. Also the decoder types of ``call_many``
(:data:`Decode`, :class:`LeanAXDecode`, :data:`BatchCall`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import anyio
import msgspec

from kobrowser._exceptions import CDPTimeoutError, KoBrowserError
from kobrowser.cdp._session import CDPSession

__all__ = [
    "EMPTY",
    "Batch",
    "BatchCall",
    "Call",
    "ClickableMapDecode",
    "Decode",
    "LeanAXDecode",
    "LeanClickableDecode",
    "expire_call",
    "unexpected_answer",
]

EMPTY = msgspec.Raw(b"{}")


def unexpected_answer(method: str, exc: Exception) -> KoBrowserError:
    """The error of a call whose answer does not have the shape its decoder expects."""
    return KoBrowserError(f"{method}: unexpected answer: {exc}")


Decode = Callable[[msgspec.Raw], Any]
"""Turns a call's raw result into what :meth:`Connection.call_many` returns for it."""
BatchCall = tuple[CDPSession, str, "dict[str, Any] | None", "Decode | None"]
"""One call of :meth:`Connection.call_many`: session, method, params, decoder."""


class _LeanDecode:
    """A decoder that marks its call for a lean answer; the subclass says which."""

    __slots__ = ("decode",)

    def __init__(self, decode: Decode) -> None:
        self.decode = decode

    def __call__(self, raw: msgspec.Raw) -> Any:
        return self.decode(raw)


class LeanAXDecode(_LeanDecode):
    """A :meth:`Connection.call_many` decoder of an ``Accessibility.getFullAXTree``
    result that reads only what :mod:`kobrowser.snapshot`'s walk reads.

    Marks the call so that a transport that can (the CBOR pipe, see
    ``to_json`` in ``_cbor.c``) hands it a lean result, ``{"flatNodes":
    [...]}``: each node without the keys the walk never reads
    (``sources``, ``chromeRole``, ``parentId`` ...), its role, name and
    value flat (the ``AXValue``'s ``value`` itself), only the properties the
    walk reads (as ``[name, value]``), and a shown text piece without its
    children; shown inline text boxes are left out. The snapshot's decode
    (``decode_snapshot_nodes``) reads either form, and the walk builds the
    same tree from both; on other transports the decoder simply gets the
    whole result.
    """

    __slots__ = ()


class LeanClickableDecode(_LeanDecode):
    """A :meth:`Connection.call_many` decoder of a ``DOMSnapshot.captureSnapshot``
    result taken for the clickable map (``kobrowser._tab._clickable``).

    Marks the call so that the CBOR pipe hands it a lean result: each
    document keeps only its nodes and layout, and those only the arrays the
    clickable map reads (``CLICKABLE_*_KEYS`` in ``_cbor.c``); the text
    boxes, bounds, attributes and node values are left out unread. Decoded
    with the clickable map's structs, a lean result and a whole one are
    equal; on other transports the decoder gets the whole result.
    """

    __slots__ = ()


class ClickableMapDecode(_LeanDecode):
    """A :meth:`Connection.call_many` decoder of a ``DOMSnapshot.captureSnapshot``
    result taken for the clickable map, that needs only the map itself.

    Marks the call so that the CBOR pipe hands it, instead of the answer,
    the clickable map the native codec computes from it (``clickable_map``
    in ``_cbor.c``): ``{"clickableMap":[backend, target, ...]}``. On other
    transports the decoder gets the whole result and must compute the map
    itself (``kobrowser._tab._clickable.clickable_from_snapshot`` takes either).
    """

    __slots__ = ()


class Call:
    """One waiting call. On asyncio it wakes its caller through a bare future
    (far cheaper than anyio.Event); on other backends through an anyio.Event."""

    __slots__ = (
        "batch",
        "decoder",
        "done",
        "error",
        "event",
        "future",
        "method",
        "result",
        "session",
    )

    def __init__(
        self,
        method: str,
        session: CDPSession,
        future: asyncio.Future[None] | None,
        batch: Batch | None = None,
        decoder: Decode | None = None,
    ) -> None:
        self.method = method
        self.session = session
        self.future = future
        self.batch = batch
        self.decoder = decoder
        self.event = anyio.Event() if future is None and batch is None else None
        self.result: Any = EMPTY
        self.error: KoBrowserError | None = None
        self.done = False  # answered, or failed by the connection

    def finish(self) -> None:
        if self.done:
            return  # a batch must count each call once
        self.done = True
        batch = self.batch
        if batch is not None:
            batch.left -= 1
            if batch.left == 0:
                batch.wake()
            return
        future = self.future
        if future is not None:
            if not future.done():  # a cancelled caller's future is already done
                future.set_result(None)
        else:
            assert self.event is not None
            self.event.set()


class Batch:
    """The calls of one :meth:`Connection.call_many`, woken once all are done."""

    __slots__ = ("calls", "event", "future", "left")

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.calls: list[Call] = []
        self.left = 0
        self.future = loop.create_future() if loop is not None else None
        self.event = anyio.Event() if loop is None else None

    def wake(self) -> None:
        if self.future is not None:
            if not self.future.done():
                self.future.set_result(None)
        else:
            assert self.event is not None
            self.event.set()

    def expire(self, deadline: float) -> None:
        for call in self.calls:
            expire_call(call, deadline)


def expire_call(call: Call, deadline: float) -> None:
    """Timer callback of the asyncio fast path: fail a call still unanswered."""
    if not call.done:
        call.error = CDPTimeoutError(call.method, deadline)
        call.finish()
