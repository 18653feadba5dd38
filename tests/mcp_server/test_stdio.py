"""FdLines: the stdin reader of the stdio transport (no thread, cancellable)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from kobrowser.mcp._stdio import FdLines

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]


async def _lines(fd: int) -> list[str]:
    return [line async for line in FdLines(fd)]


async def test_lines_across_writes_with_split_characters() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    data = '{"a": "é"}\n{"b": 2}\nlast without newline'.encode()
    split = data.index("é".encode()) + 1  # inside the two bytes of é
    lines = FdLines(read_fd)
    try:
        os.write(write_fd, data[:split])
        async with anyio.create_task_group() as tg:

            async def write_rest() -> None:
                await anyio.sleep(0.01)
                os.write(write_fd, data[split:])
                os.close(write_fd)

            tg.start_soon(write_rest)
            got = [line async for line in lines]
    finally:
        os.close(read_fd)
    assert got == ['{"a": "é"}\n', '{"b": 2}\n', "last without newline"]


async def test_a_blocked_read_is_cancelled_at_once() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    try:
        with anyio.move_on_after(0.2) as scope:
            await _lines(read_fd)  # nothing is ever written: waits until cancelled
        assert scope.cancelled_caught
    finally:
        os.close(read_fd)
        os.close(write_fd)


async def test_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"one\ntwo\n")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert await _lines(fd) == ["one\n", "two\n"]
    finally:
        os.close(fd)
