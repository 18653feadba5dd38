"""Large replies take a fast path that slices ``result`` out of the message.

The connection must give exactly what the envelope decoder would: same
result, same routing, and everything that is not a plain success reply
(errors, events, odd shapes) must still go through the envelope decoder.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import msgspec
import pytest

from kobrowser import ProtocolError
from kobrowser.cdp import BatchCall

from .test_connection import attached, call, open_conn, spawn

pytestmark = pytest.mark.anyio

SESSION = "3C8137667AF307F437EF3C249EFD1792"


def _big_result(tag: str) -> dict[str, Any]:
    # Over the fast path's threshold, with braces, quotes and a tail that
    # looks like the envelope's inside strings.
    nodes = [
        {"nodeId": str(i), "name": {"value": f'{tag} "q" }},"sessionId":"{SESSION}"}}'}}
        for i in range(6000)
    ]
    return {"nodes": nodes}


@pytest.mark.parametrize("as_text", [True, False], ids=["str", "bytes"])
async def test_big_reply_on_a_session_and_on_the_browser(as_text: bool) -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        session = await attached(conn, fake, SESSION, "T1")
        for target, session_id in ((session, SESSION), (conn.root, None)):
            result = _big_result("n")
            out = call(tg, target, "Accessibility.getFullAXTree")
            sent = await fake.next_sent()
            message: dict[str, Any] = {"id": sent["id"], "result": result}
            if session_id is not None:
                message["sessionId"] = session_id
            text = json.dumps(message, separators=(",", ":"))
            assert len(text) > 1 << 18
            fake.feed(text if as_text else text.encode())
            assert await out.result() == result
        assert conn.pending_count == 0


async def test_big_reply_through_a_batch_decoder() -> None:
    class Tree(msgspec.Struct):
        nodes: list[dict[str, Any]]

    decoder = msgspec.json.Decoder(Tree)
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        session = await attached(conn, fake, SESSION, "T1")
        requests: list[BatchCall] = [(session, "Accessibility.getFullAXTree", None, decoder.decode)]
        out = spawn(tg, lambda: conn.call_many(requests))
        sent = await fake.next_sent()
        result = _big_result("b")
        fake.feed(
            json.dumps(
                {"id": sent["id"], "result": result, "sessionId": SESSION}, separators=(",", ":")
            )
        )
        [tree] = await out.result()
        assert tree == Tree(nodes=result["nodes"])


async def test_big_error_reply_and_big_event_take_the_envelope_path() -> None:
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        session = await attached(conn, fake, SESSION, "T1")
        with session.subscribe("Big.event") as events:
            fake.feed(
                json.dumps(
                    {"method": "Big.event", "params": _big_result("e"), "sessionId": SESSION},
                    separators=(",", ":"),
                )
            )
            event = await events.next(timeout=10)
            assert event.params == _big_result("e")
        out = call(tg, session, "DOM.describeNode")
        sent = await fake.next_sent()
        fake.feed(
            json.dumps(
                {
                    "id": sent["id"],
                    "error": {"code": -32000, "message": "x" * (1 << 18)},
                    "sessionId": SESSION,
                },
                separators=(",", ":"),
            )
        )
        with pytest.raises(ProtocolError) as info:
            await out.result()
        assert info.value.method == "DOM.describeNode"


async def test_big_reply_with_spaces_takes_the_envelope_path() -> None:
    # Not Chrome's compact shape: the slice is not attempted, the envelope
    # decoder reads it as any JSON.
    async with open_conn() as (conn, fake), anyio.create_task_group() as tg:
        out = call(tg, conn.root, "Accessibility.getFullAXTree")
        sent = await fake.next_sent()
        result = _big_result("s")
        fake.feed(json.dumps({"id": sent["id"], "result": result}))
        assert await out.result() == result


@pytest.mark.parametrize("as_text", [True, False], ids=["str", "bytes"])
def test_split_reply_takes_only_compact_success_replies(as_text: bool) -> None:
    from kobrowser.cdp._wire import split_reply as _split_reply

    def split(message: dict[str, Any], **dumps: Any) -> tuple[int, Any] | None:
        text = json.dumps(message, **({"separators": (",", ":")} | dumps))
        got = _split_reply(text if as_text else text.encode())
        return None if got is None else (got[0], msgspec.json.decode(got[1]))

    result = {"a": {"b": [1, "}}"]}}
    assert split({"id": 7, "result": result, "sessionId": SESSION}) == (7, result)
    assert split({"id": 8, "result": result}) == (8, result)
    assert split({"id": 9, "result": {}}) == (9, {})
    assert split({"id": 9, "error": {"code": 1, "message": "m"}}) is None
    assert split({"method": "X.y", "params": result, "sessionId": SESSION}) is None
    assert split({"id": 7, "result": result}, separators=(", ", ": ")) is None
