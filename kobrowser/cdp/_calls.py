"""The calls a :class:`~kobrowser.cdp.Connection` waits on, and how their callers wake.

A :class:`Call` is one sent command waiting for its answer; a :class:`Batch`
groups the calls of one :meth:`Connection.call_many` and wakes its caller
once, when all are done. On asyncio both wake through a bare future (far
cheaper than ``anyio.Event``) and fail at their deadline from a loop timer
(:func:`expire_call`), which never cancels the task; on other backends
through an ``anyio.Event``. Also the decoder type of ``call_many``
(:data:`Decode`). Nothing here imports the session or the connection: a
call keeps its session only to be found by it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import anyio
import msgspec

from kobrowser._exceptions import CDPTimeoutError, KoBrowserError

__all__ = ["EMPTY", "Batch", "Call", "Decode", "expire_call", "unexpected_answer"]

EMPTY = msgspec.Raw(b"{}")


def unexpected_answer(method: str, exc: Exception) -> KoBrowserError:
    """The error of a call whose answer does not have the shape its decoder expects."""
    return KoBrowserError(f"{method}: unexpected answer: {exc}")


Decode = Callable[[msgspec.Raw], Any]
"""Turns a call's raw result into what :meth:`Connection.call_many` returns for it."""


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
        session: object,
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
