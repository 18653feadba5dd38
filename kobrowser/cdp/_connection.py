"""The CDP multiplexer: one transport, many flattened sessions.

The connection owns a reader task (in its task group) that decodes only the
message envelope, resolves replies inline and routes events to sessions. It
never runs or awaits user code, so a slow event consumer cannot delay a
reply. Every call has a deadline; a closed target fails its session's
waiting calls at once, and a lost connection fails every waiting call.
The waiting calls themselves (how their callers wake, how a deadline fails
them) are in :mod:`._calls`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import msgspec

from kobrowser._exceptions import (
    CDPTimeoutError,
    ConnectionClosedError,
    KoBrowserError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser._validate import seconds
from kobrowser.cdp._calls import Batch, Call, expire_call, unexpected_answer
from kobrowser.cdp._events import ATTACHED, DETACHED, TARGET_REF
from kobrowser.cdp._keep import Keep, KeptDecode
from kobrowser.cdp._session import BatchCall, CDPSession
from kobrowser.cdp._transport import on_asyncio
from kobrowser.cdp._wire import BIG_REPLY, ENVELOPE, Envelope, ErrorBody, split_reply

if TYPE_CHECKING:
    from types import TracebackType

    from kobrowser.cdp._transport import Transport

__all__ = ["Connection"]

_log = logging.getLogger("kobrowser.cdp")
_ID_HEAD = re.compile(rb'\{"id":(\d{1,15})[,}]')  # how Chrome's replies start


_NO_SCOPE = contextlib.nullcontext()

_LIFECYCLE = frozenset(
    {
        "Target.attachedToTarget",
        "Target.detachedFromTarget",
        "Target.targetCrashed",
        "Target.targetDestroyed",
        "Inspector.targetCrashed",
        "Inspector.detached",
    }
)


class Connection:
    """A CDP connection multiplexing flattened sessions over one transport.

    Use as an async context manager; it owns the reader task::

        async with Connection(transport, timeout=30) as conn:
            version = await conn.root.send("Browser.getVersion")

    Args:
        transport: an open :class:`~kobrowser.cdp.Transport`; closed with the connection.
        timeout: default deadline of every call, in seconds.
    """

    def __init__(self, transport: Transport, *, timeout: float = 30.0) -> None:
        self._transport = transport
        self.timeout = seconds(timeout, positive=True)
        self._ids = itertools.count(1)
        self._pending: dict[int, Call] = {}
        self._sessions: dict[str | None, CDPSession] = {}
        self._closed: str | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        # The reader runs in its own scope: closing must cancel the reader only,
        # never the code of the task that entered the connection.
        self._reader_scope = anyio.CancelScope()
        self.root = CDPSession(self, None, target_type="browser")
        self._sessions[None] = self.root
        self._close_listeners: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # Each transport frames and encodes calls its way (JSON, or CBOR on a pipe).
        self._encode_call: Callable[[int, str, dict[str, Any] | None, str | None], bytes] = (
            transport.encode_call
        )
        # Call id -> compiled projection of its answer, for a transport that
        # projects answers (None: it projects none); it takes an id out once
        # answered, the connection those never answered.
        self._keeps: dict[int, Any] | None = transport.projections

    # -- lifecycle ---------------------------------------------------------

    async def __aenter__(self) -> Connection:
        if on_asyncio():
            self._loop = asyncio.get_running_loop()
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        task_group.start_soon(self._reader)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        assert self._task_group is not None
        if exc is not None and not isinstance(exc, anyio.get_cancelled_exc_class()):
            # The block's own error must reach the caller as it is; through the
            # task group it would come out wrapped in an ExceptionGroup. The
            # reader, the group's only task, is already stopped by aclose().
            await self._task_group.__aexit__(None, None, None)
            return None
        return await self._task_group.__aexit__(exc_type, exc, tb)

    async def aclose(self) -> None:
        """Close the connection; waiting calls fail with ConnectionClosedError. Idempotent."""
        self._shutdown("the connection was closed")
        await self._transport.aclose()
        self._reader_scope.cancel()

    @property
    def closed(self) -> bool:
        """True once the connection is closed or lost."""
        return self._closed is not None

    @property
    def transport_kind(self) -> str:
        """How this connection reaches Chrome: "websocket", "pipe-json" or "pipe-cbor"."""
        return self._transport.kind

    @property
    def pending_count(self) -> int:
        """How many calls are waiting for an answer (for diagnostics and tests)."""
        return len(self._pending)

    def on_close(self, callback: Any) -> None:
        """Call ``callback(reason)`` (sync, fast) once when the connection ends."""
        self._close_listeners.append(callback)

    def session(self, session_id: str) -> CDPSession:
        """The session object for a flattened session id (created on first use)."""
        session = self._sessions.get(session_id)
        if session is None:
            if self._closed is not None:
                raise ConnectionClosedError(self._closed)
            session = CDPSession(self, session_id)
            self._sessions[session_id] = session
        return session

    # -- calls -------------------------------------------------------------

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None,
        session: CDPSession,
        timeout: float | None,
        keep: Keep | None = None,
    ) -> msgspec.Raw:
        """Send ``method`` on ``session`` and wait for its result (raw JSON).

        ``keep``: what to keep of the result, on a transport that projects
        answers (see :class:`~kobrowser.cdp.Keep`); others return it whole.
        """
        if self._closed is not None:
            raise ConnectionClosedError(self._closed)
        if session._closed is not None:
            raise TargetClosedError(f"{method}: {session._closed}")
        call_id = next(self._ids)
        data = self._encode_call(call_id, method, params, session.id)
        deadline = self.timeout if timeout is None else seconds(timeout)
        # Taken out by the transport as the answer goes by, else below.
        keeps = self._keeps if keep is not None and keep.compiled is not None else None
        if keeps is not None:
            assert keep is not None
            keeps[call_id] = keep.compiled
        loop = self._loop
        if loop is not None:
            # asyncio fast path: a bare future, and a timer that fails the call
            # at its deadline. The timer never cancels the task, so it cannot
            # interfere with the caller's anyio cancel scopes (asyncio.timeout
            # and anyio both count task cancellations; mixed, a cancellation
            # can be misread). A fraction of the cost of anyio.fail_after.
            call = Call(method, session, loop.create_future())
            self._pending[call_id] = call
            timer = loop.call_later(deadline, expire_call, call, deadline)
            try:
                await self._transport.send(data)
                await call.future  # type: ignore[misc]
            finally:
                timer.cancel()
                self._pending.pop(call_id, None)
                if keeps is not None:
                    keeps.pop(call_id, None)  # an error reply, or never answered
        else:
            call = Call(method, session, None)
            self._pending[call_id] = call
            try:
                with anyio.fail_after(deadline):
                    await self._transport.send(data)
                    await call.event.wait()  # type: ignore[union-attr]
            except TimeoutError:
                if not call.done:
                    raise CDPTimeoutError(method, deadline) from None
            finally:
                self._pending.pop(call_id, None)
                if keeps is not None:
                    keeps.pop(call_id, None)
        if call.error is not None:
            raise call.error
        result: msgspec.Raw = call.result
        return result

    async def call_many(
        self,
        requests: Sequence[BatchCall],
        *,
        timeout: float | None = None,
    ) -> list[Any]:
        """Send several calls at once and wait until every one is answered.

        The calls go out back to back, in order (Chrome answers one session's
        calls in the order it got them), and share one deadline. It costs far
        less than one task per call, which matters when a caller asks tens
        of frames at once. A request's decoder, when given, runs as soon as
        its answer arrives (while the others are still being worked on);
        it must be fast and must not block.

        Args:
            requests: ``(session, method, params, decoder)`` of each call;
                ``decoder`` is None to get the raw result JSON. A decoder made
                by :meth:`Keep.decoder <kobrowser.cdp.Keep.decoder>` asks for
                its projection of the result (where the transport can).
            timeout: the deadline of the whole batch, in seconds; default is
                the connection's.

        Returns:
            Per request, in order: its decoded (or raw) result, or the error
            it failed with (:class:`ProtocolError`, :class:`CDPTimeoutError`,
            :class:`TargetClosedError`, :class:`ConnectionClosedError`, or a
            :class:`KoBrowserError` naming the method when the decoder
            rejected the answer).

        Raises:
            ConnectionClosedError: the connection was closed before or while
                sending.

        Cancelling the caller abandons every call of the batch: the pending
        entries are removed and late answers are dropped.
        """
        if self._closed is not None:
            raise ConnectionClosedError(self._closed)
        deadline = self.timeout if timeout is None else seconds(timeout)
        loop = self._loop
        batch = Batch(loop)
        # The batch counts one extra "call" while sending, so that an answer
        # arriving before the last call is sent cannot wake it early.
        batch.left = 1
        results: list[Any] = []
        ids: list[int] = []
        pending = self._pending
        keeps = self._keeps
        kept = False
        timer: asyncio.TimerHandle | None = None
        try:
            if loop is not None:
                timer = loop.call_later(deadline, batch.expire, deadline)
            with anyio.fail_after(deadline) if loop is None else _NO_SCOPE:
                for session, method, params, decoder in requests:
                    call = Call(method, session, None, batch, decoder)
                    batch.calls.append(call)
                    if session._closed is not None:
                        call.done = True
                        call.error = TargetClosedError(f"{method}: {session._closed}")
                        continue
                    call_id = next(self._ids)
                    batch.left += 1
                    pending[call_id] = call
                    ids.append(call_id)
                    if keeps is not None and type(decoder) is KeptDecode:
                        compiled = decoder.keep.compiled
                        if compiled is not None:
                            keeps[call_id] = compiled
                            kept = True
                    await self._transport.send(
                        self._encode_call(call_id, method, params, session.id)
                    )
                batch.left -= 1  # the sending guard (see above)
                if batch.left:
                    if batch.future is not None:
                        await batch.future
                    else:
                        assert batch.event is not None
                        await batch.event.wait()
        except TimeoutError:
            batch.expire(deadline)
        finally:
            if timer is not None:
                timer.cancel()
            for call_id in ids:
                pending.pop(call_id, None)
            if kept:
                assert keeps is not None
                for call_id in ids:
                    keeps.pop(call_id, None)  # error replies, calls never answered
        for call in batch.calls:
            results.append(call.error if call.error is not None else call.result)
        return results

    # -- reader ------------------------------------------------------------

    async def _reader(self) -> None:
        receive = self._transport.receive
        dispatch = self._dispatch
        try:
            with self._reader_scope:
                while True:
                    dispatch(await receive())
        except ConnectionClosedError as exc:
            self._shutdown(str(exc))
        except BaseException:
            self._shutdown("the connection's reader stopped")
            raise

    def _dispatch(self, data: bytes | str) -> None:
        if len(data) >= BIG_REPLY:
            reply = split_reply(data)
            if reply is not None:
                self._resolve(reply[0], reply[1], None)
                return
        try:
            envelope = ENVELOPE.decode(data)
        except msgspec.DecodeError:
            _log.warning("dropped a malformed CDP message: %.200r", data)
            return
        except RecursionError:  # a page's value nested ~1,000 deep: fail its call only
            self._too_deep(data)
            return
        call_id = envelope.id
        if call_id is not None:
            self._resolve(call_id, envelope.result, envelope.error)
            return
        method = envelope.method
        if method is None:
            return
        if method in _LIFECYCLE:
            self._lifecycle(method, envelope)
        session = self._sessions.get(envelope.sessionId)
        if session is not None:
            session._dispatch(method, envelope.params)

    def _too_deep(self, data: bytes | str) -> None:
        """Fail the call a message nested too deeply to decode answers (else drop it)."""
        head = data[:32].encode() if isinstance(data, str) else bytes(data[:32])
        match = _ID_HEAD.match(head)
        call = self._pending.pop(int(match.group(1)), None) if match is not None else None
        if call is None or call.done:
            _log.warning("dropped a CDP message nested too deeply to read: %.200r", data)
            return
        call.error = KoBrowserError(f"{call.method}: the answer is nested too deeply to read")
        call.finish()

    def _resolve(self, call_id: int, result: msgspec.Raw, error: ErrorBody | None) -> None:
        call = self._pending.pop(call_id, None)
        if call is None or call.done:
            # Late (timed out or cancelled caller), already failed (its
            # target went away first), or an unknown id.
            return
        if error is not None:
            call.error = ProtocolError(call.method, error.code, error.message, error.data)
        elif call.decoder is None:
            call.result = result
        else:
            try:
                call.result = call.decoder(result)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                call.error = unexpected_answer(call.method, exc)
            except KoBrowserError as exc:  # the decoder refused the answer on purpose
                call.error = exc
            except Exception as exc:  # a decoder's bug must never stop the reader
                _log.exception("decoding the answer to %s failed", call.method)
                call.error = KoBrowserError(f"{call.method}: could not read the answer: {exc!r}")
        call.finish()

    def _lifecycle(self, method: str, envelope: Envelope) -> None:
        try:
            if method == "Target.attachedToTarget":
                attached = ATTACHED.decode(envelope.params)
                session = self.session(attached.sessionId)
                session.target_id = attached.targetInfo.targetId
                session.target_type = attached.targetInfo.type
                session.parent_id = envelope.sessionId
            elif method == "Target.detachedFromTarget":
                detached = DETACHED.decode(envelope.params)
                if detached.sessionId is not None:
                    self._close_session(detached.sessionId, "the target was detached")
            elif method == "Inspector.targetCrashed":
                if envelope.sessionId is not None:
                    self._close_session(envelope.sessionId, "the target crashed")
            elif method == "Inspector.detached":
                if envelope.sessionId is not None:
                    self._close_session(envelope.sessionId, "the target was detached")
            else:
                target_id = TARGET_REF.decode(envelope.params).targetId
                reason = (
                    "the target crashed"
                    if method == "Target.targetCrashed"
                    else "the target was closed"
                )
                for sid, session in list(self._sessions.items()):
                    if sid is not None and session.target_id == target_id:
                        self._close_session(sid, reason)
        except msgspec.DecodeError:
            _log.warning("unexpected %s parameters", method)

    def _close_session(self, session_id: str, reason: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is None:
            return
        session._close(reason)
        for call in list(self._pending.values()):
            if call.session is session and not call.done:
                call.error = TargetClosedError(f"{call.method}: {reason}")
                call.finish()
        for child_id, child in list(self._sessions.items()):
            if child_id is not None and child.parent_id == session_id:
                self._close_session(child_id, reason)

    def _shutdown(self, reason: str) -> None:
        if self._closed is not None:
            return
        self._closed = reason
        for call in list(self._pending.values()):
            if not call.done:
                call.error = ConnectionClosedError(f"{call.method}: {reason}")
                call.finish()
        for session in list(self._sessions.values()):
            session._close(reason, ConnectionClosedError)
        for callback in self._close_listeners:
            try:
                callback(reason)
            except Exception:
                _log.exception("connection close listener failed")
