"""A scripted in-memory :class:`~kobrowser.cdp.Transport` for unit tests.

The test plays Chrome: it reads what the connection sent with
:meth:`FakeTransport.next_sent` and answers with :meth:`reply`, :meth:`fail`
or :meth:`event` (or any raw message with :meth:`feed`), in any order.
"""

from __future__ import annotations

import json
import math
from typing import Any

import anyio

from kobrowser import ConnectionClosedError
from kobrowser.cdp._wire import encode_call

_END = object()


class FakeTransport:
    kind = "websocket"
    projections = None  # answers arrive whole, as on the WebSocket
    encode_call = staticmethod(encode_call)

    def __init__(self) -> None:
        self._inbox_send, self._inbox = anyio.create_memory_object_stream[object](math.inf)
        self._outbox_send, self._outbox = anyio.create_memory_object_stream[dict[str, Any]](
            math.inf
        )
        self.sent: list[dict[str, Any]] = []
        self.close_calls = 0
        self.closed = False

    # -- the Transport protocol -------------------------------------------

    async def send(self, data: bytes) -> None:
        if self.closed:
            raise ConnectionClosedError("fake transport closed")
        message = json.loads(data)
        self.sent.append(message)
        self._outbox_send.send_nowait(message)

    async def receive(self) -> bytes | str:
        try:
            item = await self._inbox.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise ConnectionClosedError("fake transport closed") from None
        if item is _END:
            raise ConnectionClosedError("fake transport ended")
        assert isinstance(item, bytes | str)
        return item

    async def aclose(self) -> None:
        self.close_calls += 1
        if self.closed:
            return
        self.closed = True
        self._inbox_send.close()
        self._outbox_send.close()

    # -- scripting ----------------------------------------------------------

    def close_streams(self) -> None:
        """Release the memory streams (call at test end; idempotent)."""
        for stream in (self._inbox_send, self._inbox, self._outbox_send, self._outbox):
            stream.close()

    async def next_sent(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message the connection sent (waits for it)."""
        with anyio.fail_after(timeout):
            return await self._outbox.receive()

    def feed(self, message: dict[str, Any] | bytes | str) -> None:
        """Deliver one raw message to the connection's reader."""
        if isinstance(message, dict):
            message = json.dumps(message).encode()
        self._inbox_send.send_nowait(message)

    def reply(self, call_id: int, result: dict[str, Any] | None = None, **extra: Any) -> None:
        self.feed({"id": call_id, "result": result if result is not None else {}, **extra})

    def fail(self, call_id: int, code: int, message: str, data: str | None = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.feed({"id": call_id, "error": error})

    def event(
        self, method: str, params: dict[str, Any] | None = None, session_id: str | None = None
    ) -> None:
        message: dict[str, Any] = {"method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        self.feed(message)

    def attach(self, session_id: str, target_id: str, parent: str | None = None) -> None:
        """Announce a flattened session, as Chrome does after Target.attachToTarget."""
        self.event(
            "Target.attachedToTarget",
            {
                "sessionId": session_id,
                "targetInfo": {"targetId": target_id, "type": "page"},
                "waitingForDebugger": False,
            },
            session_id=parent,
        )

    def end(self) -> None:
        """The browser side goes away: the reader's next receive() raises."""
        self._inbox_send.send_nowait(_END)
