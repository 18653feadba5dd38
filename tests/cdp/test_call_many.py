"""Connection.call_many: a batch of calls sent at once, against the fake transport."""

from __future__ import annotations

import anyio
import msgspec
import pytest

from kobrowser import (
    CDPTimeoutError,
    ConnectionClosedError,
    KoBrowserError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser.cdp import BatchCall, Connection

from ._fake import FakeTransport
from .test_connection import LONG, attached, barrier, open_conn, spawn

pytestmark = pytest.mark.anyio


class _Value(msgspec.Struct):
    value: int


_VALUE = msgspec.json.Decoder(_Value)


def _value(raw: msgspec.Raw) -> int:
    return _VALUE.decode(raw).value


async def test_results_in_request_order_decoded_or_raw() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        s1 = await attached(conn, fake, "S1", "T1")
        requests: list[BatchCall] = [
            (conn.root, "A.one", None, _value),
            (s1, "B.two", {"x": 2}, None),
            (s1, "C.three", None, _value),
        ]
        out = spawn(tg, lambda: conn.call_many(requests))
        sent = [await fake.next_sent() for _ in range(3)]
        # Sent back to back, in order, each on its session.
        assert [m["method"] for m in sent] == ["A.one", "B.two", "C.three"]
        assert [m.get("sessionId") for m in sent] == [None, "S1", "S1"]
        assert sent[1]["params"] == {"x": 2}
        assert len({m["id"] for m in sent}) == 3
        # Answered out of order.
        fake.reply(sent[2]["id"], {"value": 3}, sessionId="S1")
        fake.reply(sent[0]["id"], {"value": 1})
        fake.reply(sent[1]["id"], {"echo": True}, sessionId="S1")
        one, two, three = await out.result()
        assert one == 1
        assert three == 3
        assert isinstance(two, msgspec.Raw)
        assert msgspec.json.decode(two) == {"echo": True}
        assert conn.pending_count == 0


async def test_failures_stay_in_their_slot() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        requests: list[BatchCall] = [
            (conn.root, "Good.call", None, _value),
            (conn.root, "Bad.call", None, _value),
            (conn.root, "Odd.answer", None, _value),
        ]
        out = spawn(tg, lambda: conn.call_many(requests))
        sent = [await fake.next_sent() for _ in range(3)]
        fake.reply(sent[0]["id"], {"value": 7})
        fake.fail(sent[1]["id"], -32000, "no such thing")
        fake.reply(sent[2]["id"], {"value": "not a number"})
        good, bad, odd = await out.result()
        assert good == 7
        assert isinstance(bad, ProtocolError)
        assert bad.method == "Bad.call"
        assert isinstance(odd, KoBrowserError)
        assert "Odd.answer" in str(odd)
        assert "unexpected answer" in str(odd)
        assert conn.pending_count == 0


async def test_empty_batch() -> None:
    async with open_conn() as (conn, _fake):
        assert await conn.call_many([]) == []


async def test_one_deadline_for_the_batch() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        requests: list[BatchCall] = [
            (conn.root, "Quick.call", None, _value),
            (conn.root, "Never.answers", None, None),
        ]
        out = spawn(tg, lambda: conn.call_many(requests, timeout=0.2))
        sent = [await fake.next_sent() for _ in range(2)]
        fake.reply(sent[0]["id"], {"value": 1})
        quick, never = await out.result()
        assert quick == 1
        assert isinstance(never, CDPTimeoutError)
        assert never.method == "Never.answers"
        assert conn.pending_count == 0
        # A late answer is dropped.
        fake.reply(sent[1]["id"], {})
        assert not conn.closed


async def test_closed_session_fails_its_slot_without_sending() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        gone = await attached(conn, fake, "S1", "T1")
        fake.event("Target.detachedFromTarget", {"sessionId": "S1", "targetId": "T1"})
        await barrier(conn, fake)
        assert gone.closed
        requests: list[BatchCall] = [
            (gone, "Page.getFrameTree", None, None),
            (conn.root, "Browser.getVersion", None, None),
        ]
        out = spawn(tg, lambda: conn.call_many(requests))
        sent = await fake.next_sent()
        assert sent["method"] == "Browser.getVersion"
        fake.reply(sent["id"], {"product": "Fake"})
        closed, version = await out.result()
        assert isinstance(closed, TargetClosedError)
        assert "Page.getFrameTree" in str(closed)
        assert msgspec.json.decode(version) == {"product": "Fake"}
        assert "Page.getFrameTree" not in [m["method"] for m in fake.sent]


async def test_detach_while_waiting_fails_that_sessions_calls() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        s1 = await attached(conn, fake, "S1", "T1")
        requests: list[BatchCall] = [
            (s1, "Slow.call", None, None),
            (conn.root, "Other", None, None),
        ]
        out = spawn(tg, lambda: conn.call_many(requests, timeout=LONG))
        sent = [await fake.next_sent() for _ in range(2)]
        fake.reply(sent[1]["id"], {})
        fake.event("Target.detachedFromTarget", {"sessionId": "S1", "targetId": "T1"})
        slow, other = await out.result()
        assert isinstance(slow, TargetClosedError)
        assert isinstance(other, msgspec.Raw)
        assert conn.pending_count == 0


async def test_lost_connection_fails_every_waiting_call() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        requests: list[BatchCall] = [(conn.root, f"M.{i}", None, None) for i in range(3)]
        out = spawn(tg, lambda: conn.call_many(requests, timeout=LONG))
        for _ in range(3):
            await fake.next_sent()
        fake.end()
        results = await out.result()
        assert all(isinstance(r, ConnectionClosedError) for r in results)
        with pytest.raises(ConnectionClosedError):
            await conn.call_many(requests)


async def test_cancelled_batch_leaves_nothing_behind() -> None:
    async with open_conn() as (conn, fake):
        requests: list[BatchCall] = [(conn.root, f"M.{i}", None, None) for i in range(3)]
        with anyio.move_on_after(0.1) as scope:
            await conn.call_many(requests, timeout=LONG)
        assert scope.cancelled_caught
        assert conn.pending_count == 0
        # Late answers are dropped; the connection is fine.
        for message in list(fake.sent):
            fake.reply(message["id"], {})
        assert await conn.call_many([]) == []
        assert not conn.closed


class _AnswersWhileSending(FakeTransport):
    """Answers the first call at once and lets the reader handle it before
    ``send`` returns, so the answer lands while the batch is still sending."""

    async def send(self, data: bytes) -> None:
        await super().send(data)
        if len(self.sent) == 1:
            self.reply(self.sent[0]["id"], {"value": 1})
            await anyio.sleep(0.05)


async def test_an_early_answer_does_not_end_the_batch() -> None:
    fake = _AnswersWhileSending()
    try:
        async with Connection(fake, timeout=LONG) as conn, anyio.create_task_group() as tg:
            requests: list[BatchCall] = [
                (conn.root, "First", None, _value),
                (conn.root, "Second", None, _value),
            ]
            out = spawn(tg, lambda: conn.call_many(requests))
            await fake.next_sent()
            second = await fake.next_sent()
            await anyio.sleep(0.05)
            assert not out.done.is_set()  # still waiting for the second answer
            fake.reply(second["id"], {"value": 2})
            assert await out.result() == [1, 2]
    finally:
        fake.close_streams()


async def test_answer_after_its_target_went_away_is_counted_once() -> None:
    # The call already failed when its session detached; Chrome's answer may
    # still come. It must not count as a second completion and end the batch
    # while another call is still waiting.
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        s1 = await attached(conn, fake, "S1", "T1")
        requests: list[BatchCall] = [
            (s1, "Gone.call", None, None),
            (conn.root, "Still.waiting", None, None),
            (conn.root, "Third", None, None),
        ]
        out = spawn(tg, lambda: conn.call_many(requests, timeout=LONG))
        sent = [await fake.next_sent() for _ in range(3)]
        fake.event("Target.detachedFromTarget", {"sessionId": "S1", "targetId": "T1"})
        fake.reply(sent[0]["id"], {}, sessionId="S1")
        fake.reply(sent[2]["id"], {"third": True})
        await barrier(conn, fake)
        assert not out.done.is_set()
        fake.reply(sent[1]["id"], {"second": True})
        gone, second, third = await out.result()
        assert isinstance(gone, TargetClosedError)
        assert msgspec.json.decode(second) == {"second": True}
        assert msgspec.json.decode(third) == {"third": True}
        assert conn.pending_count == 0


async def test_a_failing_decoder_fails_its_slot_and_the_reader_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(raw: msgspec.Raw) -> int:
        raise RuntimeError("decoder bug")

    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        requests: list[BatchCall] = [
            (conn.root, "Broken.decode", None, broken),
            (conn.root, "Fine.decode", None, _value),
        ]
        out = spawn(tg, lambda: conn.call_many(requests))
        sent = [await fake.next_sent() for _ in range(2)]
        fake.reply(sent[0]["id"], {"value": 1})
        fake.reply(sent[1]["id"], {"value": 2})
        bad, fine = await out.result()
        assert isinstance(bad, KoBrowserError)
        assert "Broken.decode" in str(bad) and "decoder bug" in str(bad)
        assert fine == 2
        assert "Broken.decode" in caplog.text
        await barrier(conn, fake)  # the reader still answers
        assert not conn.closed
