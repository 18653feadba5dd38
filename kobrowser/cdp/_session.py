"""One CDP session (browser, page, iframe or worker) on a shared connection.

A :class:`CDPSession` is the raw protocol handle of a target: ``send()`` a
method and await its result, or ``subscribe()`` to its events. Sessions are
created by the :class:`~kobrowser.cdp.Connection` when Chrome reports an
attach (flattened mode), so every session of every tab and out-of-process
frame travels over the one WebSocket. A session sees its connection through
:class:`SessionConnection` (what :class:`~kobrowser.cdp.Connection` offers
it), so this module does not import the connection's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

import anyio
import msgspec

from kobrowser._exceptions import TargetClosedError
from kobrowser._validate import timeout as check_timeout
from kobrowser.cdp._calls import Decode
from kobrowser.cdp._keep import Keep

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["BatchCall", "CDPEvent", "CDPSession", "EventStream", "SessionConnection"]

_log = logging.getLogger("kobrowser.cdp")
T = TypeVar("T")
Listener = Callable[[msgspec.Raw], None]

BatchCall: TypeAlias = tuple["CDPSession", str, "dict[str, Any] | None", "Decode | None"]
"""One call of :meth:`Connection.call_many`: session, method, params, decoder."""


class SessionConnection(Protocol):
    """What a session's connection (a :class:`~kobrowser.cdp.Connection`) offers it
    and its users; see there for each member."""

    @property
    def closed(self) -> bool: ...

    @property
    def root(self) -> CDPSession: ...

    @property
    def transport_kind(self) -> str: ...

    @property
    def pending_count(self) -> int: ...

    def session(self, session_id: str) -> CDPSession: ...

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None,
        session: CDPSession,
        timeout: float | None,
        keep: Keep | None = None,
    ) -> msgspec.Raw: ...

    async def call_many(
        self, requests: Sequence[BatchCall], *, timeout: float | None = None
    ) -> list[Any]: ...


class CDPEvent:
    """One protocol event.

    Attributes:
        method: the event name, e.g. ``"Page.loadEventFired"``.
        session_id: the session it arrived on (None for the browser session).
        raw: the undecoded ``params`` JSON.
    """

    __slots__ = ("_params", "method", "raw", "session_id")

    def __init__(self, method: str, raw: msgspec.Raw, session_id: str | None) -> None:
        self.method = method
        self.raw = raw
        self.session_id = session_id
        self._params: dict[str, Any] | None = None

    @property
    def params(self) -> dict[str, Any]:
        """The event's parameters, decoded on first access."""
        if self._params is None:
            self._params = msgspec.json.decode(self.raw) if len(self.raw) else {}
        return self._params

    def __repr__(self) -> str:
        return f"CDPEvent({self.method!r}, session_id={self.session_id!r})"


class EventStream:
    """A bounded buffer of a session's events, read with ``async for``.

    The connection's reader never waits for a subscriber: when the buffer is
    full, new events are dropped and counted in :attr:`dropped`. When the
    session's target goes away, iteration raises
    :class:`~kobrowser.TargetClosedError` once the buffered events are read.
    Use as a context manager (sync or async) so the subscription is removed.
    """

    def __init__(self, session: CDPSession, methods: frozenset[str], max_buffer: int) -> None:
        self._session = session
        self.methods = methods
        self._send, self._receive = anyio.create_memory_object_stream[CDPEvent](max_buffer)
        self._error: BaseException | None = None
        self.dropped = 0

    def _offer(self, event: CDPEvent) -> None:
        if self.methods and event.method not in self.methods:
            return
        try:
            self._send.send_nowait(event)
        except anyio.WouldBlock:
            self.dropped += 1
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    def _fail(self, error: BaseException | None) -> None:
        self._error = error
        self._send.close()

    def close(self) -> None:
        """Stop receiving events; pending ones are discarded. Idempotent."""
        self._session._remove_stream(self)
        self._send.close()
        self._receive.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> CDPEvent:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self._error is not None:
                raise self._error from None
            raise StopAsyncIteration from None

    async def next(self, *, timeout: float | None = None) -> CDPEvent:
        """Return the next event, waiting at most ``timeout`` seconds.

        Raises:
            TimeoutError: no event within ``timeout``.
            TargetClosedError: the target went away.
        """
        with anyio.fail_after(check_timeout(timeout)):
            return await self.__anext__()


class CDPSession:
    """The raw CDP session of one target; the escape hatch to the protocol.

    Attributes:
        id: the flattened session id (None for the browser-level session).
        target_id: the target's id, when known.
        target_type: ``"page"``, ``"iframe"``, ``"worker"``... when known.
        parent_id: the session that attached this one, if any.
    """

    def __init__(
        self,
        connection: SessionConnection,
        session_id: str | None,
        *,
        target_id: str | None = None,
        target_type: str | None = None,
        parent_id: str | None = None,
    ) -> None:
        self._connection = connection
        self.id = session_id
        self.target_id = target_id
        self.target_type = target_type
        self.parent_id = parent_id
        self._listeners: dict[str, list[Listener]] = {}
        self._streams: list[EventStream] = []
        self._closed: str | None = None
        self._close_error: type[Exception] = TargetClosedError

    @property
    def connection(self) -> SessionConnection:
        """The connection this session travels on (a :class:`~kobrowser.cdp.Connection`)."""
        return self._connection

    @property
    def closed(self) -> bool:
        """True once the target was closed, crashed or detached."""
        return self._closed is not None

    def __repr__(self) -> str:
        state = f" closed={self._closed!r}" if self._closed else ""
        return f"<CDPSession {self.id} {self.target_type or ''}{state}>"

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Call a CDP method on this session and return its decoded result.

        Args:
            method: e.g. ``"Runtime.evaluate"``.
            params: the method's parameters.
            timeout: deadline in seconds; default is the connection's.

        Raises:
            ProtocolError: Chrome answered with an error.
            CDPTimeoutError: no answer before the deadline (a late answer is dropped).
            TargetClosedError: the target is gone, or went away while waiting.
            ConnectionClosedError: the browser connection is gone.

        Cancelling the caller abandons the call: its pending entry is removed
        and a late answer is dropped.
        """
        raw = await self._connection.call(method, params, self, timeout)
        result: dict[str, Any] = msgspec.json.decode(raw) if len(raw) else {}
        return result

    async def send_raw(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        keep: Keep | None = None,
    ) -> msgspec.Raw:
        """Like :meth:`send` but return the undecoded result JSON.

        Args:
            method: e.g. ``"Runtime.evaluate"``.
            params: the method's parameters.
            timeout: deadline in seconds; default is the connection's.
            keep: what to keep of the result, on a transport that can
                project it (:class:`~kobrowser.cdp.Keep`); the others return
                it whole, so read both.

        Raises:
            ProtocolError: Chrome answered with an error, or the answer does
                not have the shape ``keep`` expects.
            CDPTimeoutError: no answer before the deadline.
            TargetClosedError: the target is gone, or went away while waiting.
            ConnectionClosedError: the browser connection is gone.

        Cancelling the caller abandons the call: its pending entry is removed
        and a late answer is dropped.
        """
        return await self._connection.call(method, params, self, timeout, keep)

    async def send_typed(
        self,
        method: str,
        params: dict[str, Any] | None,
        decoder: msgspec.json.Decoder[T],
        *,
        timeout: float | None = None,
        keep: Keep | None = None,
    ) -> T:
        """Like :meth:`send` but decode the result with a prebuilt msgspec decoder
        (``keep`` as in :meth:`send_raw`)."""
        raw = await self._connection.call(method, params, self, timeout, keep)
        return decoder.decode(raw if len(raw) else b"{}")

    def subscribe(self, *methods: str, max_buffer: int = 1024) -> EventStream:
        """Receive this session's events (all of them when no method is named).

        Returns:
            An :class:`EventStream`; use it as a context manager and iterate it.
        """
        stream = EventStream(self, frozenset(methods), max_buffer)
        if self._closed is not None:
            stream._fail(self._close_error(self._closed))
        else:
            self._streams.append(stream)
        return stream

    def add_listener(self, method: str, listener: Listener) -> Callable[[], None]:
        """Register a synchronous internal callback for ``method``.

        For library code only: it runs inline on the reader and must be fast
        and never block. Returns a function that removes the listener.
        """
        self._listeners.setdefault(method, []).append(listener)

        def remove() -> None:
            listeners = self._listeners.get(method)
            if listeners and listener in listeners:
                listeners.remove(listener)

        return remove

    def _remove_stream(self, stream: EventStream) -> None:
        if stream in self._streams:
            self._streams.remove(stream)

    def _dispatch(self, method: str, params: msgspec.Raw) -> None:
        listeners = self._listeners.get(method)
        if listeners:
            for listener in tuple(listeners):
                try:
                    listener(params)
                except Exception:
                    _log.exception("CDP listener for %s failed", method)
        if self._streams:
            event = CDPEvent(method, params, self.id)
            for stream in self._streams:
                stream._offer(event)

    def _close(self, reason: str, error: type[Exception] = TargetClosedError) -> None:
        if self._closed is not None:
            return
        self._closed = reason
        self._close_error = error
        streams, self._streams = self._streams, []
        for stream in streams:
            stream._fail(error(reason))
        self._listeners.clear()
