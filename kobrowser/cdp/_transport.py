"""Byte transport to the browser: one WebSocket carrying whole CDP messages.

Two implementations sit behind the small :class:`Transport` interface:

* :class:`AiohttpTransport` on asyncio (fast path, C-accelerated frame parser);
* :class:`WsprotoTransport`, wsproto over anyio byte streams, which runs on
  any anyio backend (used under trio).

This is the boundary where third-party and OS errors become kobrowser
errors: nothing above this module sees an aiohttp, wsproto or OSError.
Neither transport caps the message size (a large page's AX tree is a single
message of tens of MB).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol
from urllib.parse import urlsplit

import anyio
import anyio.abc

from kobrowser._exceptions import ConnectionClosedError
from kobrowser.cdp._wire import encode_call

__all__ = ["AiohttpTransport", "Transport", "WsprotoTransport", "http_get_json", "open_transport"]


class Transport(Protocol):
    """A message-oriented, bidirectional channel to the browser.

    Attributes:
        kind: how it reaches Chrome (see :attr:`Connection.transport_kind`).
        projections: call id -> compiled :class:`~kobrowser.cdp.Keep` of the
            calls whose answers this transport projects (taken out as each
            answer goes by; the connection puts them in and takes out those
            never answered), or None for a transport that projects none
            (the answers arrive whole).
    """

    @property
    def kind(self) -> str: ...

    @property
    def projections(self) -> dict[int, Any] | None: ...

    def encode_call(
        self, call_id: int, method: str, params: dict[str, Any] | None, session_id: str | None
    ) -> bytes:
        """One call as this transport's :meth:`send` takes it."""

    async def send(self, data: bytes) -> None:
        """Send one whole message, as :meth:`encode_call` made it."""

    async def receive(self) -> bytes | str:
        """Return the next whole message; raise ConnectionClosedError at the end."""

    async def aclose(self) -> None:
        """Close the channel. Idempotent."""


def on_asyncio() -> bool:
    """Whether the calling task runs on an asyncio event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def open_transport(ws_url: str, *, timeout: float) -> Transport:
    """Open the fastest transport for the running event loop to ``ws_url``."""
    if on_asyncio():
        return await AiohttpTransport.connect(ws_url, timeout=timeout)
    return await WsprotoTransport.connect(ws_url, timeout=timeout)


class AiohttpTransport:
    """aiohttp WebSocket client (asyncio only)."""

    kind = "websocket"
    projections = None
    encode_call = staticmethod(encode_call)

    def __init__(self, session: object, ws: object) -> None:
        import aiohttp

        assert isinstance(session, aiohttp.ClientSession)
        assert isinstance(ws, aiohttp.ClientWebSocketResponse)
        self._session = session
        self._ws = ws
        self._text = aiohttp.WSMsgType.TEXT
        self._binary = aiohttp.WSMsgType.BINARY
        self._closed = False

    @classmethod
    async def connect(cls, ws_url: str, *, timeout: float) -> AiohttpTransport:
        import aiohttp

        session = aiohttp.ClientSession()
        try:
            with anyio.fail_after(timeout):
                ws = await session.ws_connect(
                    ws_url, max_msg_size=0, autoping=True, heartbeat=None, compress=0
                )
        except BaseException as exc:
            await session.close()
            if isinstance(exc, TimeoutError):
                raise ConnectionClosedError(
                    f"could not connect to {ws_url} within {timeout:g} s"
                ) from None
            if isinstance(exc, aiohttp.ClientError | OSError):
                raise ConnectionClosedError(f"could not connect to {ws_url}: {exc}") from exc
            raise
        return cls(session, ws)

    async def send(self, data: bytes) -> None:
        import aiohttp

        try:
            await self._ws.send_frame(data, self._text)
        except (aiohttp.ClientError, OSError, RuntimeError) as exc:
            raise ConnectionClosedError(f"connection to the browser lost: {exc}") from exc

    async def receive(self) -> bytes | str:
        import aiohttp

        try:
            msg = await self._ws.receive()
        except (aiohttp.ClientError, OSError, RuntimeError) as exc:
            raise ConnectionClosedError(f"connection to the browser lost: {exc}") from exc
        kind = msg.type
        if kind is self._text or kind is self._binary:
            data: bytes | str = msg.data
            return data
        raise ConnectionClosedError("the browser closed the connection")

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            try:
                with anyio.move_on_after(2):
                    await self._ws.close()
            except Exception:  # closing a dead socket may fail; it is closed either way
                pass
            await self._session.close()


class WsprotoTransport:
    """wsproto WebSocket over anyio byte streams (any anyio backend)."""

    kind = "websocket"
    projections = None
    encode_call = staticmethod(encode_call)

    def __init__(self, stream: anyio.abc.ByteStream, ws: object) -> None:
        self._stream = stream
        self._ws = ws
        self._send_lock = anyio.Lock()
        self._text_parts: list[str] = []
        self._bytes_parts: list[bytes] = []
        self._closed = False

    @classmethod
    async def connect(cls, ws_url: str, *, timeout: float) -> WsprotoTransport:
        from wsproto import ConnectionType, WSConnection
        from wsproto.events import AcceptConnection, RejectConnection, Request

        parts = urlsplit(ws_url)
        host = parts.hostname or "127.0.0.1"
        port = parts.port or 80
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        ws = WSConnection(ConnectionType.CLIENT)
        try:
            with anyio.fail_after(timeout):
                stream = await anyio.connect_tcp(host, port)
                try:
                    await stream.send(ws.send(Request(host=f"{host}:{port}", target=path)))
                    while True:
                        data = await stream.receive()
                        ws.receive_data(data)
                        for event in ws.events():
                            if isinstance(event, AcceptConnection):
                                return cls(stream, ws)
                            if isinstance(event, RejectConnection):
                                raise ConnectionClosedError(
                                    f"the browser refused the WebSocket to {ws_url} "
                                    f"(HTTP {event.status_code})"
                                )
                except BaseException:
                    await stream.aclose()
                    raise
        except TimeoutError:
            raise ConnectionClosedError(
                f"could not connect to {ws_url} within {timeout:g} s"
            ) from None
        except (OSError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise ConnectionClosedError(f"could not connect to {ws_url}: {exc}") from exc

    async def send(self, data: bytes) -> None:
        from wsproto.events import Message, TextMessage

        message: Message[str] = TextMessage(data=data.decode())
        try:
            async with self._send_lock:
                await self._stream.send(self._ws.send(message))  # type: ignore[attr-defined]
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise ConnectionClosedError(f"connection to the browser lost: {exc!r}") from exc
        except Exception as exc:  # wsproto LocalProtocolError once closing
            raise ConnectionClosedError(f"connection to the browser lost: {exc!r}") from exc

    async def receive(self) -> bytes | str:
        from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage

        ws = self._ws
        while True:
            for event in ws.events():  # type: ignore[attr-defined]
                if isinstance(event, TextMessage):
                    self._text_parts.append(event.data)
                    if event.message_finished:
                        text = "".join(self._text_parts)
                        self._text_parts.clear()
                        return text
                elif isinstance(event, BytesMessage):
                    self._bytes_parts.append(bytes(event.data))
                    if event.message_finished:
                        blob = b"".join(self._bytes_parts)
                        self._bytes_parts.clear()
                        return blob
                elif isinstance(event, Ping):
                    await self._send_event(event.response())
                elif isinstance(event, CloseConnection):
                    raise ConnectionClosedError("the browser closed the connection")
            try:
                data = await self._stream.receive(1 << 20)
            except (
                OSError,
                anyio.EndOfStream,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
            ) as exc:
                raise ConnectionClosedError("connection to the browser lost") from exc
            ws.receive_data(data)  # type: ignore[attr-defined]

    async def _send_event(self, event: object) -> None:
        try:
            async with self._send_lock:
                await self._stream.send(self._ws.send(event))  # type: ignore[attr-defined]
        except Exception as exc:
            raise ConnectionClosedError(f"connection to the browser lost: {exc!r}") from exc

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            await self._stream.aclose()


async def http_get_json(url: str, *, timeout: float) -> object:
    """GET ``url`` (plain http) and decode its JSON body, on any anyio backend.

    Only for Chrome's tiny ``/json/version`` endpoint. HTTP/1.1 with
    ``Connection: close`` (Chrome's DevTools server drops HTTP/1.0 requests
    without answering); the body ends at its Content-Length, or at EOF.
    """
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or 80
    request = (
        f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Accept: application/json\r\nConnection: close\r\n\r\n"
    ).encode()
    buffer = b""
    try:
        with anyio.fail_after(timeout):
            async with await anyio.connect_tcp(host, port) as stream:
                await stream.send(request)
                while True:
                    head, sep, body = buffer.partition(b"\r\n\r\n")
                    if sep:
                        length = _content_length(head)
                        if length is not None and len(body) >= length:
                            break
                    try:
                        buffer += await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        break
    except TimeoutError:
        raise ConnectionClosedError(f"no answer from {url} within {timeout:g} s") from None
    except OSError as exc:
        raise ConnectionClosedError(f"could not reach {url}: {exc}") from exc
    head, _, body = buffer.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    if " 200 " not in f"{status_line} ":
        raise ConnectionClosedError(f"{url} answered {status_line!r}, not a CDP endpoint")
    length = _content_length(head)
    if length is not None:
        body = body[:length]
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ConnectionClosedError(f"{url} did not answer JSON: {exc}") from exc


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                return int(value.strip())
            except ValueError:
                return None
    return None
