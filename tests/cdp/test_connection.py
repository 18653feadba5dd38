"""Connection + CDPSession against a scripted fake transport (no browser)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
import msgspec
import pytest

from kobrowser import (
    CDPTimeoutError,
    ConnectionClosedError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser.cdp import CDPSession, Connection

from ._fake import FakeTransport

pytestmark = pytest.mark.anyio

LONG = 60.0  # a call's own deadline: never reached when the failure comes at once
SOON = 10.0  # the test's deadline for "at once"


@asynccontextmanager
async def open_conn(timeout: float = LONG) -> AsyncIterator[tuple[Connection, FakeTransport]]:
    fake = FakeTransport()
    try:
        async with Connection(fake, timeout=timeout) as conn:
            yield conn, fake
    finally:
        fake.close_streams()


class Outcome:
    """The result or error of a call run in the background."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    async def wait(self) -> Outcome:
        with anyio.fail_after(SOON):
            await self.done.wait()
        return self

    async def result(self) -> Any:
        await self.wait()
        if self.error is not None:
            raise self.error
        return self.value


def spawn(tg: anyio.abc.TaskGroup, fn: Callable[[], Awaitable[Any]]) -> Outcome:
    outcome = Outcome()

    async def run() -> None:
        try:
            outcome.value = await fn()
        except Exception as exc:
            outcome.error = exc
        finally:
            outcome.done.set()

    tg.start_soon(run)
    return outcome


def call(
    tg: anyio.abc.TaskGroup,
    session: CDPSession,
    method: str,
    params: dict[str, Any] | None = None,
    timeout: float | None = None,
) -> Outcome:
    return spawn(tg, lambda: session.send(method, params, timeout=timeout))


async def attached(
    conn: Connection, fake: FakeTransport, sid: str, target: str, parent: str | None = None
) -> CDPSession:
    """Announce session ``sid`` and wait until the reader has registered it."""
    fake.attach(sid, target, parent=parent)
    with anyio.fail_after(SOON):
        while True:
            session = conn.session(sid)
            if session.target_id == target:
                return session
            await anyio.sleep(0.001)


async def barrier(conn: Connection, fake: FakeTransport) -> None:
    """Return once the reader has handled every message fed so far (the inbox is FIFO)."""
    async with anyio.create_task_group() as tg:
        out = call(tg, conn.root, "Barrier.sync")
        while (sent := await fake.next_sent())["method"] != "Barrier.sync":
            pass
        fake.reply(sent["id"])
        await out.result()


async def sent_by_session(fake: FakeTransport, count: int) -> dict[str | None, int]:
    """Wait for ``count`` sent calls; map each one's sessionId to its call id."""
    messages = [await fake.next_sent() for _ in range(count)]
    return {message.get("sessionId"): message["id"] for message in messages}


# -- replies ---------------------------------------------------------------


async def test_reply_resolves_call_and_message_shape() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        out = call(tg, conn.root, "Browser.getVersion")
        sent = await fake.next_sent()
        assert sent == {"id": sent["id"], "method": "Browser.getVersion"}
        fake.reply(sent["id"], {"product": "Fake/1"})
        assert await out.result() == {"product": "Fake/1"}

        session = await attached(conn, fake, "S1", "T1")
        out = call(tg, session, "Runtime.evaluate", {"expression": "1"})
        sent = await fake.next_sent()
        assert sent["sessionId"] == "S1"
        assert sent["params"] == {"expression": "1"}
        fake.reply(sent["id"], {"result": {"value": 1}}, sessionId="S1")
        assert await out.result() == {"result": {"value": 1}}
        assert conn.pending_count == 0


async def test_send_raw_and_send_typed() -> None:
    class Version(msgspec.Struct):
        product: str

    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        raw = spawn(tg, lambda: conn.root.send_raw("Browser.getVersion"))
        fake.reply((await fake.next_sent())["id"], {"product": "X"})
        assert msgspec.json.decode(await raw.result()) == {"product": "X"}

        decoder = msgspec.json.Decoder(Version)
        typed = spawn(tg, lambda: conn.root.send_typed("Browser.getVersion", None, decoder))
        fake.reply((await fake.next_sent())["id"], {"product": "Y"})
        assert await typed.result() == Version(product="Y")


async def test_out_of_order_replies() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        outs = [call(tg, conn.root, "Runtime.evaluate", {"expression": str(i)}) for i in range(5)]
        sent = [await fake.next_sent() for _ in range(5)]
        for message in reversed(sent):
            fake.reply(message["id"], {"echo": message["params"]["expression"]})
        for i, out in enumerate(outs):
            assert await out.result() == {"echo": str(i)}
        assert conn.pending_count == 0


async def test_unknown_ids_are_ignored() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        out = call(tg, conn.root, "Browser.getVersion")
        sent = await fake.next_sent()
        fake.reply(sent["id"] + 1000, {"wrong": True})
        fake.fail(sent["id"] + 1001, -32000, "nobody asked")
        fake.reply(sent["id"], {"right": True})
        assert await out.result() == {"right": True}
        assert conn.pending_count == 0
        assert not conn.closed


async def test_error_reply_raises_protocol_error() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        out = call(tg, conn.root, "DOM.describeNode")
        sent = await fake.next_sent()
        fake.fail(sent["id"], -32000, "No node with given id found", data="nodeId 7")
        with pytest.raises(ProtocolError) as info:
            await out.result()
        assert info.value.code == -32000
        assert info.value.message == "No node with given id found"
        assert info.value.method == "DOM.describeNode"
        assert info.value.data == "nodeId 7"
        assert "DOM.describeNode" in str(info.value)
        assert conn.pending_count == 0


# -- deadlines and cancellation ---------------------------------------------


async def test_timeout_names_method_and_late_reply_is_dropped() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        with anyio.fail_after(SOON), pytest.raises(CDPTimeoutError) as info:
            await conn.root.send("Page.neverAnswers", timeout=0.05)
        assert info.value.method == "Page.neverAnswers"
        assert "Page.neverAnswers" in str(info.value)
        assert isinstance(info.value, TimeoutError)
        assert conn.pending_count == 0
        late_id = fake.sent[-1]["id"]

        out = call(tg, conn.root, "Browser.getVersion")
        sent = await fake.next_sent()  # the timed-out call's message
        assert sent["id"] == late_id
        sent = await fake.next_sent()
        fake.reply(late_id, {"late": True})  # must not reach anybody
        fake.reply(sent["id"], {"fresh": True})
        assert await out.result() == {"fresh": True}
        assert conn.pending_count == 0


async def test_default_deadline_comes_from_connection() -> None:
    async with open_conn(timeout=0.05) as (conn, _fake):
        with anyio.fail_after(SOON), pytest.raises(CDPTimeoutError) as info:
            await conn.root.send("Page.neverAnswers")
        assert info.value.timeout == 0.05
        assert conn.pending_count == 0


async def test_cancelled_caller_leaves_nothing_behind() -> None:
    async with open_conn() as (conn, fake):
        async with anyio.create_task_group() as tg:
            call(tg, conn.root, "Runtime.evaluate")
            call(tg, conn.root, "Runtime.evaluate")
            first = await fake.next_sent()
            await fake.next_sent()
            assert conn.pending_count == 2
            tg.cancel_scope.cancel()
        assert conn.pending_count == 0

        fake.reply(first["id"], {"late": True})
        async with anyio.create_task_group() as tg:
            out = call(tg, conn.root, "Browser.getVersion")
            sent = await fake.next_sent()
            fake.reply(sent["id"], {"ok": 1})
            assert await out.result() == {"ok": 1}
        assert conn.pending_count == 0
        assert not conn.closed


async def test_outer_deadline_is_the_callers_not_a_cdp_timeout() -> None:
    async with open_conn() as (conn, _fake):
        with pytest.raises(TimeoutError) as info, anyio.fail_after(0.05):
            await conn.root.send("Page.neverAnswers", timeout=LONG)
        assert not isinstance(info.value, CDPTimeoutError)
        assert conn.pending_count == 0
        with anyio.move_on_after(0.05) as scope:
            await conn.root.send("Page.neverAnswers", timeout=LONG)
        assert scope.cancelled_caught
        assert conn.pending_count == 0


async def test_ids_are_never_reused() -> None:
    async with open_conn() as (conn, fake):
        for _ in range(3):
            with pytest.raises(CDPTimeoutError):
                await conn.root.send("A.timesOut", timeout=0.01)
        async with anyio.create_task_group() as tg:
            call(tg, conn.root, "B.cancelled")
            await fake.next_sent()
            tg.cancel_scope.cancel()
        async with anyio.create_task_group() as tg:
            outs = [call(tg, conn.root, "C.answered") for _ in range(50)]
            for _ in range(50):
                while (sent := await fake.next_sent())["method"] != "C.answered":
                    pass
                fake.reply(sent["id"])
            for out in outs:
                await out.result()
        ids = [message["id"] for message in fake.sent]
        assert len(ids) == 54
        assert len(set(ids)) == len(ids)
        assert ids == sorted(ids)


# -- target lifecycle -------------------------------------------------------


async def test_detach_fails_only_that_sessions_calls() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        a = await attached(conn, fake, "SA", "TA")
        b = await attached(conn, fake, "SB", "TB")
        out_a = call(tg, a, "Runtime.evaluate")
        out_b = call(tg, b, "Runtime.evaluate")
        out_root = call(tg, conn.root, "Browser.getVersion")
        by_session = await sent_by_session(fake, 3)
        fake.event("Target.detachedFromTarget", {"sessionId": "SA", "targetId": "TA"})
        with pytest.raises(TargetClosedError, match=r"Runtime\.evaluate"):
            await out_a.result()  # long before its 60 s deadline
        assert a.closed
        assert not b.closed
        assert not out_b.done.is_set()
        assert not out_root.done.is_set()
        fake.reply(by_session["SB"], {"b": 1}, sessionId="SB")
        fake.reply(by_session[None], {"root": 1})
        assert await out_b.result() == {"b": 1}
        assert await out_root.result() == {"root": 1}

        with anyio.fail_after(SOON), pytest.raises(TargetClosedError):
            await a.send("Runtime.evaluate")  # fails before sending anything
        assert conn.pending_count == 0
        assert all(message.get("sessionId") != "SA" for message in fake.sent[3:])


async def test_detach_closes_child_sessions() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        parent = await attached(conn, fake, "SP", "TP")
        child = await attached(conn, fake, "SC", "TC", parent="SP")  # an OOPIF of the page
        assert child.parent_id == "SP"
        out = call(tg, child, "Runtime.evaluate")
        await fake.next_sent()
        fake.event("Target.detachedFromTarget", {"sessionId": "SP"})
        with pytest.raises(TargetClosedError):
            await out.result()
        assert parent.closed and child.closed


async def test_inspector_target_crashed() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        a = await attached(conn, fake, "SA", "TA")
        b = await attached(conn, fake, "SB", "TB")
        out_a = call(tg, a, "Runtime.evaluate")
        out_b = call(tg, b, "Runtime.evaluate")
        ids = await sent_by_session(fake, 2)
        fake.event("Inspector.targetCrashed", {}, session_id="SA")
        with pytest.raises(TargetClosedError, match="crashed"):
            await out_a.result()
        assert not b.closed
        fake.reply(ids["SB"], sessionId="SB")
        assert await out_b.result() == {}


@pytest.mark.parametrize(
    ("method", "reason"),
    [("Target.targetDestroyed", "closed"), ("Target.targetCrashed", "crashed")],
)
async def test_target_gone_by_target_id(method: str, reason: str) -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        a = await attached(conn, fake, "SA", "TA")
        b = await attached(conn, fake, "SB", "TB")
        out_a = call(tg, a, "Runtime.evaluate")
        out_b = call(tg, b, "Runtime.evaluate")
        ids = await sent_by_session(fake, 2)
        fake.event(method, {"targetId": "TA", "status": "crashed", "errorCode": 5})
        with pytest.raises(TargetClosedError, match=reason):
            await out_a.result()
        assert a.closed and not b.closed
        fake.reply(ids["SB"], {"still": "here"}, sessionId="SB")
        assert await out_b.result() == {"still": "here"}


async def test_event_stream_raises_after_target_goes() -> None:
    async with open_conn() as (conn, fake):
        a = await attached(conn, fake, "SA", "TA")
        with a.subscribe() as events:
            fake.event("Page.loadEventFired", {"timestamp": 1.5}, session_id="SA")
            fake.event("Target.detachedFromTarget", {"sessionId": "SA"})
            first = await events.next(timeout=SOON)
            assert first.method == "Page.loadEventFired"
            assert first.params == {"timestamp": 1.5}
            assert first.session_id == "SA"
            with anyio.fail_after(SOON), pytest.raises(TargetClosedError):
                await events.next()
        with a.subscribe() as late, pytest.raises(TargetClosedError):
            await late.next(timeout=SOON)


# -- connection end ----------------------------------------------------------


async def test_close_with_calls_in_flight() -> None:
    async with open_conn() as (conn, fake):
        async with anyio.create_task_group() as tg:
            a = await attached(conn, fake, "SA", "TA")
            outs = [call(tg, conn.root, "Browser.getVersion"), call(tg, a, "Runtime.evaluate")]
            await fake.next_sent()
            await fake.next_sent()
            await conn.aclose()
            for out in outs:
                with pytest.raises(ConnectionClosedError):
                    await out.result()
        assert conn.closed
        assert fake.closed
        assert conn.pending_count == 0


async def test_transport_end_fails_every_waiting_call() -> None:
    async with open_conn() as (conn, fake):
        async with anyio.create_task_group() as tg:
            a = await attached(conn, fake, "SA", "TA")
            outs = [
                call(tg, conn.root, "Browser.getVersion"),
                call(tg, a, "Runtime.evaluate"),
                call(tg, a, "Page.navigate"),
            ]
            for _ in outs:
                await fake.next_sent()
            with a.subscribe() as events:
                fake.end()
                for out in outs:
                    with pytest.raises(ConnectionClosedError):
                        await out.result()
                with anyio.fail_after(SOON), pytest.raises(ConnectionClosedError):
                    await events.next()
        assert conn.closed
        assert conn.pending_count == 0
        with pytest.raises(ConnectionClosedError):
            await a.send("Runtime.evaluate")


async def test_close_twice_is_a_noop_and_code_after_close_runs() -> None:
    reached = False
    async with open_conn() as (conn, fake):
        await conn.aclose()
        await conn.aclose()
        await anyio.lowlevel.checkpoint()  # closing must not cancel the caller's block
        reached = True
    assert reached
    assert conn.closed
    assert fake.closed
    await conn.aclose()


async def test_exception_from_the_block_propagates_unchanged() -> None:
    with pytest.raises(KeyError, match="from the body"):
        async with open_conn() as (conn, _fake):
            raise KeyError("from the body")
    assert conn.closed


async def test_calls_after_close_fail_immediately() -> None:
    async with open_conn() as (conn, fake):
        a = await attached(conn, fake, "SA", "TA")
        await conn.aclose()
        sent_before = len(fake.sent)
        with anyio.fail_after(SOON):
            with pytest.raises(ConnectionClosedError):
                await conn.root.send("Browser.getVersion")
            with pytest.raises(ConnectionClosedError):
                await a.send("Runtime.evaluate")
            with pytest.raises(ConnectionClosedError):
                conn.session("SNEW")
            with a.subscribe() as events, pytest.raises(ConnectionClosedError):
                await events.next()
        assert len(fake.sent) == sent_before


async def test_send_failure_propagates_and_clears_pending() -> None:
    async with open_conn() as (conn, fake):
        fake.closed = True  # the socket died under us; the reader has not noticed yet
        with anyio.fail_after(SOON), pytest.raises(ConnectionClosedError):
            await conn.root.send("Browser.getVersion")
        assert conn.pending_count == 0


# -- events ------------------------------------------------------------------


async def test_slow_subscriber_never_delays_replies() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        a = await attached(conn, fake, "SA", "TA")
        with a.subscribe(max_buffer=4) as never_read, conn.root.subscribe(max_buffer=1) as other:
            out = call(tg, a, "Runtime.evaluate")
            sent = await fake.next_sent()
            for i in range(100):
                fake.event("Network.dataReceived", {"i": i}, session_id="SA")
            fake.reply(sent["id"], {"answered": True}, sessionId="SA")
            assert await out.result() == {"answered": True}
            assert never_read.dropped == 96
            assert [(await never_read.next(timeout=SOON)).params["i"] for _ in range(4)] == [
                0,
                1,
                2,
                3,
            ]
            assert other.dropped == 0  # events of another session never reach it


async def test_subscribe_filters_by_method_and_routes_by_session() -> None:
    async with open_conn() as (conn, fake):
        a = await attached(conn, fake, "SA", "TA")
        b = await attached(conn, fake, "SB", "TB")
        with a.subscribe("Page.loadEventFired") as loads, b.subscribe() as all_b:
            fake.event("Page.frameNavigated", {"n": 1}, session_id="SA")
            fake.event("Page.loadEventFired", {"n": 2}, session_id="SB")
            fake.event("Page.loadEventFired", {"n": 3}, session_id="SA")
            event = await loads.next(timeout=SOON)
            assert (event.method, event.params, event.session_id) == (
                "Page.loadEventFired",
                {"n": 3},
                "SA",
            )
            event = await all_b.next(timeout=SOON)
            assert (event.method, event.params) == ("Page.loadEventFired", {"n": 2})
        # a closed stream gets nothing more, and never blocks the reader
        fake.event("Page.loadEventFired", {"n": 4}, session_id="SA")
        await barrier(conn, fake)
        with a.subscribe() as again:
            fake.event("Page.loadEventFired", {"n": 5}, session_id="SA")
            assert (await again.next(timeout=SOON)).params == {"n": 5}


async def test_listener_runs_inline_and_errors_are_contained(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[bytes] = []

    def broken(params: msgspec.Raw) -> None:
        raise RuntimeError("listener bug")

    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        a = await attached(conn, fake, "SA", "TA")
        remove = a.add_listener("Page.lifecycleEvent", lambda raw: seen.append(bytes(raw)))
        a.add_listener("Page.lifecycleEvent", broken)
        with caplog.at_level(logging.ERROR, logger="kobrowser.cdp"):
            fake.event("Page.lifecycleEvent", {"name": "load"}, session_id="SA")
            out = call(tg, a, "Runtime.evaluate")
            sent = await fake.next_sent()
            fake.reply(sent["id"], sessionId="SA")
            await out.result()  # the reader survived the broken listener
        assert [msgspec.json.decode(raw) for raw in seen] == [{"name": "load"}]
        assert "listener bug" in caplog.text
        remove()
        fake.event("Page.lifecycleEvent", {"name": "again"}, session_id="SA")
        out = call(tg, a, "Runtime.evaluate")
        sent = await fake.next_sent()
        fake.reply(sent["id"], sessionId="SA")
        await out.result()
        assert len(seen) == 1


async def test_malformed_messages_are_ignored() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        out = call(tg, conn.root, "Browser.getVersion")
        sent = await fake.next_sent()
        for junk in [
            b"not json",
            b"[1, 2, 3]",
            "\u00e9t\u00e9",
            b'{"id": "seven"}',
            b'{"method": 5}',
            b"{}",
            b'{"method": "Target.attachedToTarget", "params": {"nope": 1}}',
            b'{"method": "Target.detachedFromTarget", "params": []}',
            b'{"method": "Target.targetDestroyed", "params": {}}',
            b"\xff\xfe",
        ]:
            fake.feed(junk)
        fake.reply(sent["id"], {"fine": True})
        assert await out.result() == {"fine": True}
        assert not conn.closed
