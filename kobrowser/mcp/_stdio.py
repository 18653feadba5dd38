"""The stdio transport with a stdin that cancels at once.

The SDK's ``stdio_server()`` reads stdin in a worker thread; a thread blocked
in ``readline`` cannot be cancelled, so a SIGTERM while the host still holds
stdin open would leave the server (and its browser) waiting. Here stdin is
read without a thread (non-blocking reads after the event loop says the
descriptor is readable), so stopping the server is immediate. Stdout is the
SDK's own.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import anyio.lowlevel
from mcp.server.stdio import stdio_server

__all__ = ["FdLines", "stdio_streams"]

_CHUNK = 1 << 16


class FdLines:
    """Async iterator over the text lines of a non-blocking file descriptor."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._eof = False
        self._pollable = True

    def __aiter__(self) -> FdLines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line.decode("utf-8", errors="replace")
            if self._eof:
                if self._buffer:
                    rest = bytes(self._buffer)
                    self._buffer.clear()
                    return rest.decode("utf-8", errors="replace")
                raise StopAsyncIteration
            await self._fill()

    async def _fill(self) -> None:
        if self._pollable:
            try:
                await anyio.wait_readable(self._fd)
            except PermissionError:
                # A regular file (stdin redirected from one) cannot be polled;
                # reading it never blocks, so plain reads will do.
                self._pollable = False
        if not self._pollable:
            await anyio.lowlevel.checkpoint()
        try:
            chunk = os.read(self._fd, _CHUNK)
        except BlockingIOError:
            return
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio read/write streams, reading stdin through :class:`FdLines`."""
    fd = os.dup(0)
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    try:
        stdin = cast("anyio.AsyncFile[str]", FdLines(fd))
        async with stdio_server(stdin=stdin) as streams:
            yield streams
    finally:
        # Non-blocking mode belongs to the open file, which fd 0 shares.
        os.set_blocking(fd, blocking)
        os.close(fd)
