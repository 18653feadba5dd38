"""The request log of a tab: what it asked the network for, and what came back.

Fed by synchronous listeners on the reader (``Network.*`` on the page
session and every out-of-process frame's session): never dropped, never
blocking, bounded (the oldest entries go first).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import anyio
import msgspec
from anyio.streams.memory import MemoryObjectSendStream

from kobrowser._exceptions import InvalidArgumentError, TargetClosedError, WaitTimeoutError
from kobrowser._tab._network._patterns import URLMatcher

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["RequestLog", "RequestRecord"]

MAX_REQUESTS = 1000


class RequestRecord(msgspec.Struct, frozen=True):
    """One request of a tab (a redirect is a record of its own).

    Attributes:
        url: the requested URL.
        method: ``"GET"``, ``"POST"``...
        resource_type: ``"document"``, ``"image"``, ``"xhr"``... (lower case).
        status: the HTTP status, None until the response arrived (or when it failed).
        from_cache: served from the memory, disk or prefetch cache.
        failure: why it failed (Chrome's error, e.g. ``"net::ERR_FAILED"``), or None.
        finished: True once it finished or failed.
        frame_id: the frame that made it.
    """

    url: str
    method: str
    resource_type: str
    status: int | None = None
    from_cache: bool = False
    failure: str | None = None
    finished: bool = False
    frame_id: str = ""


class _URL(msgspec.Struct):
    url: str
    method: str = "GET"


class _Status(msgspec.Struct):
    status: int = 0
    fromDiskCache: bool = False
    fromPrefetchCache: bool = False


class _WillBeSent(msgspec.Struct):
    requestId: str
    request: _URL
    type: str = "Other"
    frameId: str = ""
    redirectResponse: _Status | None = None


class _Received(msgspec.Struct):
    requestId: str
    response: _Status


class _Failed(msgspec.Struct):
    requestId: str
    errorText: str = ""
    canceled: bool = False
    blockedReason: str | None = None


class _Id(msgspec.Struct):
    requestId: str


_WILL = msgspec.json.Decoder(_WillBeSent)
_RECEIVED = msgspec.json.Decoder(_Received)
_FAILED = msgspec.json.Decoder(_Failed)
_ID = msgspec.json.Decoder(_Id)


class RequestLog:
    """The bounded, event-fed request log of one tab."""

    def __init__(self, limit: int = MAX_REQUESTS) -> None:
        self.limit = limit
        self._records: OrderedDict[str, RequestRecord] = OrderedDict()
        self._redirects = 0
        self._waiters: list[MemoryObjectSendStream[RequestRecord]] = []
        self._gone: str | None = None
        #: Requests logged so far, never lowered (a trace slices a step's by it).
        self.added = 0

    def records(self) -> list[RequestRecord]:
        """The records, oldest first."""
        return list(self._records.values())

    def since(self, mark: int) -> list[tuple[str, RequestRecord]]:
        """``(key, record)`` of each request logged after :attr:`added` was ``mark``.

        Only those still kept (the log drops its oldest first).
        """
        count = min(self.added - mark, len(self._records))
        if count <= 0:
            return []
        return list(self._records.items())[-count:]

    def get(self, key: str) -> RequestRecord | None:
        """The record of one request (a key from :meth:`since`), if still kept."""
        return self._records.get(key)

    def close(self, reason: str) -> None:
        """The tab went away: waits fail with :class:`TargetClosedError`."""
        self._gone = reason
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.close()

    def clear(self) -> None:
        """Forget every record (requests in flight are not logged further)."""
        self._records.clear()

    def watch(self, session: CDPSession) -> None:
        """Follow ``session``'s Network events (before enabling them)."""
        session.add_listener("Network.requestWillBeSent", self._on_request)
        session.add_listener("Network.responseReceived", self._on_response)
        session.add_listener("Network.loadingFinished", self._on_finished)
        session.add_listener("Network.loadingFailed", self._on_failed)
        session.add_listener("Network.requestServedFromCache", self._on_cached)

    # -- listeners (inline on the reader) -----------------------------------

    def _put(self, key: str, record: RequestRecord) -> None:
        if key not in self._records:
            self.added += 1
        self._records[key] = record
        while len(self._records) > self.limit:
            self._records.popitem(last=False)

    def _on_request(self, raw: msgspec.Raw) -> None:
        event = _WILL.decode(raw)
        key = event.requestId
        previous = self._records.get(key)
        if previous is not None and event.redirectResponse is not None:
            # The same id goes on with the redirect target: keep the hop apart.
            self._redirects += 1
            del self._records[key]
            self._put(
                f"{key}#{self._redirects}",
                msgspec.structs.replace(
                    previous, status=event.redirectResponse.status, finished=True
                ),
            )
        self._put(
            key,
            RequestRecord(
                event.request.url,
                event.request.method,
                event.type.lower(),
                frame_id=event.frameId,
            ),
        )

    def _on_response(self, raw: msgspec.Raw) -> None:
        event = _RECEIVED.decode(raw)
        record = self._records.get(event.requestId)
        if record is None:
            return
        http = event.response
        record = msgspec.structs.replace(
            record,
            status=http.status,
            from_cache=record.from_cache or http.fromDiskCache or http.fromPrefetchCache,
        )
        self._records[event.requestId] = record
        for waiter in tuple(self._waiters):
            try:
                waiter.send_nowait(record)
            except anyio.WouldBlock:
                pass  # the waiter is behind; it checks the log when it catches up
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._waiters.remove(waiter)

    def _on_finished(self, raw: msgspec.Raw) -> None:
        key = _ID.decode(raw).requestId
        record = self._records.get(key)
        if record is not None:
            self._records[key] = msgspec.structs.replace(record, finished=True)

    def _on_cached(self, raw: msgspec.Raw) -> None:
        key = _ID.decode(raw).requestId
        record = self._records.get(key)
        if record is not None:
            self._records[key] = msgspec.structs.replace(record, from_cache=True)

    def _on_failed(self, raw: msgspec.Raw) -> None:
        event = _FAILED.decode(raw)
        record = self._records.get(event.requestId)
        if record is None:
            return
        failure = event.errorText or ("canceled" if event.canceled else "failed")
        if event.blockedReason and event.blockedReason.lower() not in failure.lower():
            failure = f"{failure} ({event.blockedReason})"
        self._records[event.requestId] = msgspec.structs.replace(
            record, failure=failure, finished=True
        )

    # -- waiting ------------------------------------------------------------

    async def wait_for_response(self, pattern: Any, timeout: float) -> RequestRecord:
        """Wait for the next response whose URL matches ``pattern``.

        ``pattern`` is a glob, a regex or a predicate on the
        :class:`RequestRecord` (which runs in the waiting task, never on the
        reader).
        """
        matcher = URLMatcher(pattern)
        if not isinstance(timeout, int | float) or math.isnan(timeout) or timeout < 0:
            raise InvalidArgumentError(
                f"timeout must be a number >= 0, not {timeout!r}", argument="timeout"
            )
        if self._gone is not None:
            raise TargetClosedError(self._gone)
        send, receive = anyio.create_memory_object_stream[RequestRecord](256)
        self._waiters.append(send)
        try:
            with anyio.move_on_after(timeout):
                async with receive:
                    async for record in receive:
                        if matcher.matches(record.url, record):
                            return record
                raise TargetClosedError(self._gone or "the tab was closed")
        finally:
            send.close()
            if send in self._waiters:
                self._waiters.remove(send)
        raise WaitTimeoutError(f"no response matching {pattern!r} within {timeout:g} s")
