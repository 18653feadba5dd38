"""Chrome's DevTools pipe (``--remote-debugging-pipe``): the transport of ``launch()``.

Chrome reads commands on its fd 3 and writes replies and events on its fd 4;
we hold the other ends. Two framings:

* JSON (``--remote-debugging-pipe``): each message is JSON followed by a NUL byte.
* CBOR (``--remote-debugging-pipe=cbor``): each message is an envelope, bytes
  ``d8 18 5a``, a 4-byte big-endian length, then that many bytes (an
  indefinite-length map). The browser process then skips two JSON<->CBOR
  conversions of every reply. The native codec (:mod:`kobrowser.cdp._cbor`)
  turns each message into the same JSON the WebSocket carries, so everything
  above the transport is unchanged, and encodes commands into Chrome's
  enveloped CBOR. Of a call made with a :class:`~kobrowser.cdp.Keep`, it
  writes only the part of the result the call keeps (:attr:`projections`).

A message's bytes are read straight into one buffer (a large reply: into a
buffer of its announced size) and transcoded from there, without copies.
A message whose CBOR is malformed fails the call it answers (when its ``id``
could be read) with a :class:`~kobrowser.ProtocolError` naming the byte
offset; a stream that loses its framing, or a message over ``max_message``
bytes, closes the transport (every waiting call fails at once).

On asyncio the read end is watched with ``loop.add_reader``; on other anyio
backends (trio) with :func:`anyio.wait_readable`. Chrome's end of the pipe
sees EOF when this process exits for any reason, even SIGKILL, and Chrome
then quits: a launched browser never outlives its Python process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import sys
from typing import Any

import anyio
import msgspec

from kobrowser._exceptions import ConnectionClosedError
from kobrowser.cdp._codec import cbor_codec, codec_trouble
from kobrowser.cdp._transport import on_asyncio
from kobrowser.cdp._wire import encode_call as json_encode_call

__all__ = ["MAX_MESSAGE", "PipeTransport"]

_log = logging.getLogger("kobrowser.cdp")

MAX_MESSAGE = 1 << 30
"""Largest message accepted from Chrome (bytes); a larger one closes the pipe."""
_CHUNK = 1 << 20
_ENVELOPE = b"\xd8\x18\x5a"
_HEADER = 7
_F_SETPIPE_SZ = 1031  # Linux: let each pipe hold a MiB, so a big reply takes fewer reads
_MALFORMED = -32700  # JSON-RPC "parse error", the code a malformed reply fails its call with


class _Framer:
    """Cuts the bytes read from Chrome into messages (JSON bytes), in order."""

    def __init__(self, fd: int, codec: Any, max_message: int) -> None:
        self.fd = fd
        self.codec = codec  # None: NUL-separated JSON
        # CBOR: call id -> projection of its answer (the codec takes an id out
        # as its answer goes by; see Connection.call and call_many).
        self.keeps: dict[int, Any] = {}
        self.max_message = max_message
        self.buf = bytearray(_CHUNK)
        self.start = 0  # first unconsumed byte of buf
        self.end = 0  # end of the data in buf
        self.scanned = 0  # JSON: no NUL in buf[start:scanned]
        self.big: bytearray | None = None  # CBOR: a message larger than buf
        self.big_fill = 0
        self.big_offset = 0  # stream offset of big's first byte
        self.offset = 0  # stream offset of buf[0] (for error messages)
        self.messages: collections.deque[bytes] = collections.deque()
        self.error: ConnectionClosedError | None = None

    def read(self) -> None:
        """Read what is there (non-blocking) and queue every complete message.

        Sets :attr:`error` at EOF, on an OS error, or when the stream is broken.
        """
        try:
            while self.error is None:
                big = self.big
                if big is not None:
                    want = len(big) - self.big_fill
                    got = os.readv(self.fd, [memoryview(big)[self.big_fill :]])
                    if got == 0:
                        self._eof()
                        return
                    self.big_fill += got
                    if self.big_fill == len(big):
                        self.big = None
                        self.offset = self.big_offset + len(big)
                        self._emit(big, self.big_offset)
                else:
                    if self.end == len(self.buf):
                        self._make_room()
                        if self.error is not None:
                            return
                    want = len(self.buf) - self.end
                    got = os.readv(self.fd, [memoryview(self.buf)[self.end :]])
                    if got == 0:
                        self._eof()
                        return
                    self.end += got
                    self._cut()
                if got < want:
                    return  # drained; the loop calls again when there is more
        except BlockingIOError:
            return
        except OSError as exc:
            self.error = ConnectionClosedError(f"the pipe to the browser failed: {exc}")
        except Exception as exc:  # a codec that fails otherwise (e.g. a build not matching)
            # Without this, asyncio would log it from its reader callback and
            # every call would wait out its deadline; now they all fail at once.
            _log.exception("reading the browser's messages failed")
            self.error = ConnectionClosedError(f"the browser's messages could not be read: {exc!r}")

    def _eof(self) -> None:
        self.error = ConnectionClosedError("the browser closed the pipe (Chrome exited)")

    def _make_room(self) -> None:
        """Move unconsumed bytes to the front of buf, or grow it (a long JSON message)."""
        if self.start:
            rest = self.end - self.start
            self.buf[:rest] = self.buf[self.start : self.end]
            self.offset += self.start
            self.scanned -= self.start
            self.start, self.end = 0, rest
        if self.end == len(self.buf):
            if len(self.buf) >= self.max_message:
                self.error = ConnectionClosedError(
                    f"a message from the browser exceeds {self.max_message} bytes "
                    f"(at stream offset {self.offset})"
                )
                return
            self.buf.extend(bytes(len(self.buf)))

    def _cut(self) -> None:
        buf = self.buf
        if self.codec is None:
            while True:
                nul = buf.find(0, max(self.scanned, self.start), self.end)
                if nul < 0:
                    self.scanned = self.end
                    break
                with memoryview(buf) as view:
                    self.messages.append(bytes(view[self.start : nul]))
                self.start = self.scanned = nul + 1
        else:
            with memoryview(buf) as view:
                self._cut_cbor(buf, view)
        if self.start == self.end:
            self.offset += self.start
            self.start = self.end = self.scanned = 0

    def _cut_cbor(self, buf: bytearray, view: memoryview) -> None:
        while self.end - self.start >= _HEADER:
            start = self.start
            if buf[start : start + 3] != _ENVELOPE:
                self.error = ConnectionClosedError(
                    "malformed CBOR from the browser: no message envelope at stream "
                    f"offset {self.offset + start} (got {bytes(buf[start : start + 7]).hex()})"
                )
                return
            size = _HEADER + int.from_bytes(buf[start + 3 : start + 7], "big")
            if size > self.max_message:
                self.error = ConnectionClosedError(
                    f"oversized CBOR from the browser: a message of {size} bytes at stream "
                    f"offset {self.offset + start} exceeds {self.max_message}"
                )
                return
            if self.end - start >= size:
                self.start = start + size
                self._emit(view[start : start + size], self.offset + start)
                continue
            if size > len(buf) - start:
                # Too big for the buffer: read the rest straight into its own.
                have = self.end - start
                big = bytearray(size)
                big[:have] = view[start : self.end]
                self.big, self.big_fill, self.big_offset = big, have, self.offset + start
                self.start = self.end = self.scanned = 0
            break

    def _emit(self, data: bytes | bytearray | memoryview, offset: int | None = None) -> None:
        if self.codec is None:
            self.messages.append(bytes(data))
            return
        try:
            self.messages.append(self.codec.to_json(data, self.keeps))
        except self.codec.CBORError as exc:
            where = "" if offset is None else f" (message at stream offset {offset})"
            if exc.call_id is None:
                _log.warning("dropped a malformed CBOR message from the browser: %s%s", exc, where)
                return
            # A projection's "unexpected answer: ..." says what it is; else the CBOR is bad.
            text = str(exc)
            if not text.startswith("unexpected answer"):
                text = f"malformed CBOR from the browser: {text}"
            error = {"code": _MALFORMED, "message": text}
            self.messages.append(msgspec.json.encode({"id": exc.call_id, "error": error}))


class PipeTransport:
    """The two pipe ends of a Chrome started with ``--remote-debugging-pipe``.

    Args:
        read_fd: where Chrome's replies and events arrive (its fd 4).
        write_fd: where commands go (its fd 3).
        cbor: the CBOR framing (needs the native codec), else NUL-separated JSON.
        max_message: the largest message accepted from Chrome, in bytes.

    The transport owns both descriptors and closes them in :meth:`aclose`.

    Attributes:
        kind: ``"pipe-cbor"`` or ``"pipe-json"``.
        projections: CBOR: call id -> compiled :class:`~kobrowser.cdp.Keep` of
            the calls whose answers the codec projects (it takes an id out as
            its answer goes by); JSON: None (answers arrive whole).
    """

    def __init__(
        self, read_fd: int, write_fd: int, *, cbor: bool, max_message: int = MAX_MESSAGE
    ) -> None:
        codec = cbor_codec() if cbor else None
        if cbor and codec is None:
            raise ValueError(f"the CBOR pipe needs kobrowser.cdp._cbor, which {codec_trouble()}")
        self.kind = "pipe-cbor" if cbor else "pipe-json"
        self._read_fd = read_fd
        self._write_fd = write_fd
        for fd in (read_fd, write_fd):
            os.set_blocking(fd, False)
            if sys.platform == "linux":
                with contextlib.suppress(OSError):
                    import fcntl

                    fcntl.fcntl(fd, _F_SETPIPE_SZ, _CHUNK)
        self._framer = _Framer(read_fd, codec, max_message)
        # Call id -> projection of its answer (kobrowser.cdp.Keep); CBOR only.
        self.projections: dict[int, Any] | None = self._framer.keeps if codec is not None else None
        self._encode = codec.encode_call if codec is not None else _json_call
        self._closed = False
        self._writers = 0  # senders in the slow path: later ones must queue behind them
        self._write_lock = anyio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiter: asyncio.Future[None] | None = None
        if on_asyncio():
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(read_fd, self._on_readable)

    def encode_call(
        self, call_id: int, method: str, params: dict[str, Any] | None, session_id: str | None
    ) -> bytes:
        """One call in this pipe's framing (CBOR envelope, or JSON and a NUL)."""
        data: bytes = self._encode(call_id, method, params, session_id)
        return data

    # -- reading -------------------------------------------------------------

    def _on_readable(self) -> None:
        framer = self._framer
        framer.read()
        if framer.error is not None and self._loop is not None:
            self._loop.remove_reader(self._read_fd)
        waiter = self._waiter
        if waiter is not None and (framer.messages or framer.error) and not waiter.done():
            waiter.set_result(None)

    async def receive(self) -> bytes:
        """The next message (as JSON bytes); ConnectionClosedError at the end."""
        framer = self._framer
        messages = framer.messages
        loop = self._loop
        while not messages:
            if framer.error is not None:
                raise framer.error
            if self._closed:
                raise ConnectionClosedError("the pipe to the browser is closed")
            if loop is not None:
                waiter = self._waiter = loop.create_future()
                try:
                    await waiter
                finally:
                    self._waiter = None
            else:
                try:
                    await anyio.wait_readable(self._read_fd)
                except (anyio.ClosedResourceError, OSError):
                    raise ConnectionClosedError("the pipe to the browser is closed") from None
                framer.read()
        return messages.popleft()

    # -- writing -------------------------------------------------------------

    async def send(self, data: bytes) -> None:
        """Write one message (already framed by :meth:`encode_call`)."""
        if self._closed:
            raise ConnectionClosedError("the pipe to the browser is closed")
        if not self._writers:
            try:
                written = os.write(self._write_fd, data)
            except BlockingIOError:
                written = 0
            except OSError as exc:
                raise ConnectionClosedError(f"the pipe to the browser failed: {exc}") from exc
            if written == len(data):
                return
            data = data[written:]
        # The pipe is full (Chrome is busy): wait for room, in order, and finish
        # even if the caller is cancelled, or the stream would lose its framing.
        self._writers += 1
        try:
            with anyio.CancelScope(shield=True):
                async with self._write_lock:
                    view = memoryview(data)
                    while view:
                        if self._closed:
                            raise ConnectionClosedError("the pipe to the browser is closed")
                        try:
                            await anyio.wait_writable(self._write_fd)
                            view = view[os.write(self._write_fd, view) :]
                        except BlockingIOError:
                            continue
                        except (OSError, anyio.ClosedResourceError) as exc:
                            raise ConnectionClosedError(
                                f"the pipe to the browser failed: {exc}"
                            ) from exc
        finally:
            self._writers -= 1

    # -- closing -------------------------------------------------------------

    async def aclose(self) -> None:
        """Close both ends; Chrome sees EOF on its fd 3 and quits. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._read_fd)
            waiter = self._waiter
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        for fd in (self._write_fd, self._read_fd):
            with contextlib.suppress(Exception):
                anyio.notify_closing(fd)
            with contextlib.suppress(OSError):
                os.close(fd)


def _json_call(
    call_id: int, method: str, params: dict[str, Any] | None, session_id: str | None
) -> bytes:
    return json_encode_call(call_id, method, params, session_id) + b"\0"
