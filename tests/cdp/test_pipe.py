"""The pipe transport against a scripted Chrome on two OS pipes (asyncio and trio).

The test holds Chrome's ends: it reads the commands the transport wrote and
writes replies in Chrome's framing (CBOR envelopes, or JSON and a NUL), in
pieces of any size.
"""

from __future__ import annotations

import json
import logging
import os
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
import msgspec
import pytest

from kobrowser import CDPTimeoutError, ConnectionClosedError, KoBrowserError, ProtocolError
from kobrowser.cdp import Connection, Keep, PipeTransport, cbor_codec

from ._cbor_ref import chrome_encode

pytestmark = pytest.mark.anyio

MODES = ["cbor", "json"] if cbor_codec() is not None else ["json"]
SOON = 30  # generous: the machine is shared


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``, a duplicate this call owns and closes.

    A write abandoned by a cancelled test may still be blocked here when the
    test closes its pipes; writing to its own duplicate keeps it from writing
    into a pipe of a later test that got the same descriptor number.
    """
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


class FakeChrome:
    """Chrome's ends of the two pipes, played by the test."""

    def __init__(self, cbor: bool, **options: Any) -> None:
        self.cbor = cbor
        self.cmd_read, cmd_write = os.pipe()
        reply_read, self.reply_write = os.pipe()
        self.transport = PipeTransport(reply_read, cmd_write, cbor=cbor, **options)
        self._commands = b""

    def frame(self, message: dict[str, Any]) -> bytes:
        if self.cbor:
            return chrome_encode(message)
        return json.dumps(message, separators=(",", ":")).encode() + b"\0"

    async def write(self, data: bytes, *, pieces: int = 1) -> None:
        """Write ``data`` in ``pieces`` random pieces, letting the reader run between."""
        cuts = sorted(random.sample(range(1, len(data)), min(pieces - 1, len(data) - 1)))
        for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
            await anyio.to_thread.run_sync(
                _write_all, os.dup(self.reply_write), data[start:end], abandon_on_cancel=True
            )
            await anyio.lowlevel.checkpoint()

    async def send(self, message: dict[str, Any], *, pieces: int = 1) -> None:
        await self.write(self.frame(message), pieces=pieces)

    async def next_command(self) -> tuple[dict[str, Any], bytes]:
        """The next command the transport wrote: decoded, and its exact bytes."""
        while True:
            size = self._frame_size()
            if size is not None:
                raw, self._commands = self._commands[:size], self._commands[size:]
                if self.cbor:
                    codec = cbor_codec()
                    return json.loads(codec.to_json(raw)), raw
                return json.loads(raw[:-1]), raw
            chunk = await anyio.to_thread.run_sync(
                os.read, self.cmd_read, 1 << 20, abandon_on_cancel=True
            )
            if not chunk:
                raise EOFError
            self._commands += chunk

    def _frame_size(self) -> int | None:
        data = self._commands
        if not self.cbor:
            end = data.find(b"\0")
            return None if end < 0 else end + 1
        if len(data) < 7:
            return None
        size = 7 + int.from_bytes(data[3:7], "big")
        return size if len(data) >= size else None

    async def read_eof(self) -> bool:
        """Whether the transport's end was closed (Chrome would quit now)."""
        while True:
            chunk = await anyio.to_thread.run_sync(
                os.read, self.cmd_read, 1 << 20, abandon_on_cancel=True
            )
            if not chunk:
                return True
            self._commands += chunk

    def close(self) -> None:
        for fd in (self.cmd_read, self.reply_write):
            if fd >= 0:
                os.close(fd)
        self.cmd_read = self.reply_write = -1


@asynccontextmanager
async def chrome_and_connection(
    mode: str, **options: Any
) -> AsyncIterator[tuple[FakeChrome, Connection]]:
    chrome = FakeChrome(mode == "cbor", **options)
    try:
        async with Connection(chrome.transport, timeout=SOON) as conn:
            yield chrome, conn
    finally:
        chrome.close()


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


async def answer_next(chrome: FakeChrome, result: Any, *, pieces: int = 1, **extra: Any) -> None:
    command, _ = await chrome.next_command()
    await chrome.send({"id": command["id"], "result": result, **extra}, pieces=pieces)


async def test_call_round_trip_in_chromes_framing(mode: str) -> None:
    async with chrome_and_connection(mode) as (chrome, conn):
        assert conn.transport_kind == f"pipe-{mode}"
        async with anyio.create_task_group() as tg:
            results: list[Any] = []

            async def call() -> None:
                results.append(await conn.root.send("Runtime.evaluate", {"expression": "日本😀"}))

            tg.start_soon(call)
            with anyio.fail_after(SOON):
                command, raw = await chrome.next_command()
                expected = {
                    "id": command["id"],
                    "method": "Runtime.evaluate",
                    "params": {"expression": "日本😀"},
                }
                assert command == expected
                if mode == "cbor":  # every map enveloped, text as UTF-8
                    assert raw == chrome_encode(expected, utf16=False)
                else:
                    assert raw.endswith(b"\0")
                reply = {"id": command["id"], "result": {"value": "名前 🚀 é", "n": 3}}
                await chrome.send(reply, pieces=40)  # byte by byte, nearly
        assert results == [{"value": "名前 🚀 é", "n": 3}]


async def test_many_messages_split_anywhere(mode: str) -> None:
    async with chrome_and_connection(mode) as (chrome, conn):
        seen: list[int] = []
        conn.root.add_listener("Test.tick", lambda raw: seen.append(msgspec.json.decode(raw)["n"]))
        blob = b"".join(
            chrome.frame({"method": "Test.tick", "params": {"n": n}}) for n in range(300)
        )
        async with anyio.create_task_group() as tg:
            got: list[Any] = []

            async def call() -> None:
                got.append(await conn.root.send("Test.last"))

            tg.start_soon(call)
            with anyio.fail_after(SOON):
                command, _ = await chrome.next_command()
                blob += chrome.frame({"id": command["id"], "result": {"done": True}})
                await chrome.write(blob, pieces=97)
        assert got == [{"done": True}]
        assert seen == list(range(300))


async def test_big_reply_larger_than_the_read_buffer(mode: str) -> None:
    nodes = [
        {"nodeId": str(i), "name": {"value": f'Zeile {i} 日本語 😀 "q"\n'}} for i in range(60000)
    ]
    async with chrome_and_connection(mode) as (chrome, conn):
        session = conn.session("A1B2C3")
        async with anyio.create_task_group() as tg:
            got: list[Any] = []

            async def call() -> None:
                got.append(await session.send("Accessibility.getFullAXTree"))

            tg.start_soon(call)
            with anyio.fail_after(SOON):
                await answer_next(chrome, {"nodes": nodes}, pieces=7, sessionId="A1B2C3")
        assert got[0]["nodes"] == nodes


async def test_malformed_reply_fails_its_call_naming_the_offset() -> None:
    if cbor_codec() is None:
        pytest.skip("needs the codec")
    async with chrome_and_connection("cbor") as (chrome, conn):
        async with anyio.create_task_group() as tg:
            errors: list[BaseException] = []

            async def call() -> None:
                try:
                    await conn.root.send("DOM.getDocument")
                except ProtocolError as exc:
                    errors.append(exc)

            tg.start_soon(call)
            with anyio.fail_after(SOON):
                command, _ = await chrome.next_command()
                frame = chrome.frame({"id": command["id"], "result": {"name": "ab"}})
                bad = frame.replace(b"\x62ab", b"\x62\xc3\x28")  # invalid UTF-8
                await chrome.write(bad)
        assert len(errors) == 1
        assert errors[0].code == -32700
        assert "DOM.getDocument" in str(errors[0])
        assert "invalid UTF-8" in str(errors[0])
        assert "byte offset" in str(errors[0])
        # the stream is still in step: the next call works
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_next, chrome, {"ok": 1})
            with anyio.fail_after(SOON):
                assert await conn.root.send("Browser.getVersion") == {"ok": 1}


async def test_malformed_event_is_dropped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    if cbor_codec() is None:
        pytest.skip("needs the codec")
    async with chrome_and_connection("cbor") as (chrome, conn):
        with caplog.at_level(logging.WARNING, logger="kobrowser.cdp"):
            frame = chrome.frame({"method": "Test.bad", "params": {"s": "ab"}})
            await chrome.write(frame.replace(b"\x62ab", b"\x62\xff\xfe"))
            async with anyio.create_task_group() as tg:
                tg.start_soon(answer_next, chrome, {"ok": 2})
                with anyio.fail_after(SOON):
                    assert await conn.root.send("Browser.getVersion") == {"ok": 2}
        assert "malformed CBOR" in caplog.text
        assert "stream offset 0" in caplog.text


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\xd8\x18\x59\x00\x03\xbf\xff\x00", "no message envelope at stream offset 0"),
        (b"\xd8\x18\x5a\x7f\xff\xff\xff", "oversized CBOR"),
    ],
)
async def test_lost_framing_fails_every_waiting_call(data: bytes, words: str) -> None:
    if cbor_codec() is None:
        pytest.skip("needs the codec")
    async with chrome_and_connection("cbor", max_message=1 << 20) as (chrome, conn):
        await call_while(chrome, conn, chrome.write(data), words)
        assert conn.closed


async def call_while(chrome: FakeChrome, conn: Connection, chrome_does: Any, words: str) -> None:
    """A call fails with ConnectionClosedError matching ``words`` while Chrome does something."""
    async with anyio.create_task_group() as tg:

        async def play() -> None:
            await chrome.next_command()
            await chrome_does

        tg.start_soon(play)
        with anyio.fail_after(SOON), pytest.raises(ConnectionClosedError, match=words):
            await conn.root.send("Browser.getVersion")
        tg.cancel_scope.cancel()


async def test_json_message_over_the_limit_closes() -> None:
    async with chrome_and_connection("json", max_message=1 << 21) as (chrome, conn):
        data = b'{"method":"x","params":"' + b"a" * (3 << 20)
        await call_while(chrome, conn, chrome.write(data), "exceeds")


async def test_a_codec_failure_fails_waiting_calls_at_once() -> None:
    # Any other error of the codec (a build that does not match this code
    # raised TypeError) ends the connection: no call waits out its deadline.
    if cbor_codec() is None:
        pytest.skip("needs the codec")
    async with chrome_and_connection("cbor") as (chrome, conn):
        real = chrome.transport._framer.codec

        class Broken:
            CBORError = real.CBORError

            @staticmethod
            def to_json(data: Any, keeps: Any = None) -> bytes:
                raise TypeError("to_json() takes exactly one argument (2 given)")

        chrome.transport._framer.codec = Broken
        words = r"could not be read: TypeError\('to_json\(\) takes"
        await call_while(chrome, conn, chrome.send({"method": "Page.x", "params": {}}), words)
        assert conn.closed


async def test_an_answer_nested_too_deeply_fails_its_call_only() -> None:
    # A page's value returned by value can nest ~1,000 deep: the envelope's
    # decoder hit the recursion limit in the reader, which ended the connection.
    async with chrome_and_connection("json") as (chrome, conn):
        deep = b"[" * 5000 + b"1" + b"]" * 5000
        async with anyio.create_task_group() as tg:

            async def play() -> None:
                command, _ = await chrome.next_command()
                await chrome.write(b'{"id":%d,"result":{"value":%s}}\0' % (command["id"], deep))
                await answer_next(chrome, {"product": "Chrome"})

            tg.start_soon(play)
            with anyio.fail_after(SOON):
                with pytest.raises(KoBrowserError, match="nested too deeply to read"):
                    await conn.root.send("Runtime.evaluate")
                assert await conn.root.send("Browser.getVersion") == {"product": "Chrome"}
        assert not conn.closed


async def test_chrome_exiting_fails_waiting_calls(mode: str) -> None:
    async with chrome_and_connection(mode) as (chrome, conn):

        async def exit_now() -> None:
            os.close(chrome.reply_write)
            chrome.reply_write = -1

        await call_while(chrome, conn, exit_now(), "Chrome exited")


async def test_send_waits_for_room_and_keeps_the_order(mode: str) -> None:
    # A command bigger than the pipe holds, while "Chrome" does not read yet.
    big = "x" * (3 << 20)
    async with chrome_and_connection(mode) as (chrome, conn), anyio.create_task_group() as tg:
        tg.start_soon(conn.root.send, "Runtime.evaluate", {"expression": big})
        with anyio.fail_after(SOON):
            while not chrome.transport._writers:  # noqa: ASYNC110 - the big one waits for room
                await anyio.sleep(0.01)
        tg.start_soon(conn.root.send, "Browser.getVersion")
        await anyio.sleep(0.1)
        with anyio.fail_after(SOON):
            first, _ = await chrome.next_command()
            second, _ = await chrome.next_command()
            assert first["params"]["expression"] == big
            assert second["method"] == "Browser.getVersion"
            for command in (first, second):
                await chrome.send({"id": command["id"], "result": {}})


async def test_close_is_eof_for_chrome(mode: str) -> None:
    chrome = FakeChrome(mode == "cbor")
    try:
        await chrome.transport.aclose()
        await chrome.transport.aclose()  # twice: a no-op
        with anyio.fail_after(SOON):
            assert await chrome.read_eof()
        with pytest.raises(ConnectionClosedError):
            await chrome.transport.receive()
        with pytest.raises(ConnectionClosedError):
            await chrome.transport.send(b"{}")
    finally:
        chrome.close()


# What the test keeps of an AX tree: its nodes' ids, roles and names, flat.
FLAT = Keep(
    {
        "$rename": {"nodes": "flatNodes"},
        "nodes": {
            "$each": {
                "nodeId": None,
                "role": {"$unwrap": "value"},
                "name": {"$unwrap": "value"},
            }
        },
    }
)


async def test_projected_answers_on_the_cbor_pipe_only(mode: str) -> None:
    node = {
        "nodeId": "1",
        "role": {"type": "role", "value": "button"},
        "chromeRole": {"type": "internalRole", "value": 9},
        "name": {"type": "computedString", "value": "Go", "sources": [{"type": "contents"}]},
        "parentId": "0",
    }
    async with chrome_and_connection(mode) as (chrome, conn):
        got: list[bytes] = []
        results: list[Any] = []

        def keep(raw: msgspec.Raw) -> str:
            got.append(bytes(raw))
            return "lean"

        async def batch() -> None:
            lean = FLAT.decoder(keep)
            results.extend(
                await conn.call_many(
                    [
                        (conn.root, "Accessibility.getFullAXTree", None, lean),
                        (conn.root, "Accessibility.getFullAXTree", None, bytes),
                        (conn.root, "Accessibility.getFullAXTree", None, lean),
                    ],
                    # the fake answers the first two at once (same process);
                    # the third is waited out, so keep this short
                    timeout=0.5,
                )
            )

        async with anyio.create_task_group() as tg:
            tg.start_soon(batch)
            with anyio.fail_after(SOON):
                ids = [(await chrome.next_command())[0]["id"] for _ in range(3)]
                if mode == "cbor":
                    assert chrome.transport.projections == {
                        ids[0]: FLAT.compiled,
                        ids[2]: FLAT.compiled,
                    }
                else:
                    assert chrome.transport.projections is None
                for call_id in ids[:2]:
                    await chrome.send({"id": call_id, "result": {"nodes": [node]}})
                # The third is never answered: the batch times out.
        lean_json = got[0]
        whole = results[1]
        assert isinstance(results[2], CDPTimeoutError)
        assert b'"sources"' in whole and b'"chromeRole"' in whole and b'"parentId"' in whole
        if mode == "cbor":
            assert lean_json == b'{"flatNodes":[{"nodeId":"1","role":"button","name":"Go"}]}'
        else:
            assert lean_json == whole
        if mode == "cbor":
            assert chrome.transport.projections == {}  # the unanswered call's id too


async def test_a_single_call_keeps_its_part_and_is_forgotten(mode: str) -> None:
    node = {"nodeId": "7", "role": {"type": "role", "value": "link"}, "parentId": "1"}
    async with chrome_and_connection(mode) as (chrome, conn):
        async with anyio.create_task_group() as tg:
            got: list[Any] = []

            async def call() -> None:
                raw = await conn.root.send_raw("Accessibility.getFullAXTree", keep=FLAT)
                got.append(bytes(raw))
                with pytest.raises(ProtocolError, match="no tree"):
                    await conn.root.send_raw("Accessibility.getFullAXTree", keep=FLAT)

            tg.start_soon(call)
            with anyio.fail_after(SOON):
                command, _ = await chrome.next_command()
                if mode == "cbor":
                    assert chrome.transport.projections == {command["id"]: FLAT.compiled}
                await chrome.send({"id": command["id"], "result": {"nodes": [node]}})
                command, _ = await chrome.next_command()
                error = {"code": -32000, "message": "no tree"}
                await chrome.send({"id": command["id"], "error": error})
        if mode == "cbor":
            assert got == [b'{"flatNodes":[{"nodeId":"7","role":"link"}]}']
            assert chrome.transport.projections == {}  # the failed call's entry too
        else:
            assert msgspec.json.decode(got[0]) == {"nodes": [node]}


async def test_an_answer_its_projection_cannot_read_fails_its_call_only() -> None:
    if cbor_codec() is None:
        pytest.skip("needs the codec")
    async with chrome_and_connection("cbor") as (chrome, conn):
        async with anyio.create_task_group() as tg:
            errors: list[BaseException] = []

            async def call() -> None:
                try:
                    await conn.root.send_raw("Accessibility.getFullAXTree", keep=FLAT)
                except ProtocolError as exc:
                    errors.append(exc)

            tg.start_soon(call)
            with anyio.fail_after(SOON):
                await answer_next(chrome, {"nodes": [{"nodeId": "1", "role": "button"}]})
        assert len(errors) == 1
        assert errors[0].code == -32700
        assert "Accessibility.getFullAXTree" in str(errors[0])
        assert "unexpected answer: result.nodes[].role is not a map" in str(errors[0])
        assert "byte offset" in str(errors[0]) and "malformed" not in str(errors[0])
        assert chrome.transport.projections == {}
        # the stream is still in step: the next call works
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_next, chrome, {"ok": 1})
            with anyio.fail_after(SOON):
                assert await conn.root.send("Browser.getVersion") == {"ok": 1}
