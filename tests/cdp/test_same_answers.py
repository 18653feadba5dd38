"""Same answers over the CBOR pipe, the JSON pipe and the WebSocket.

One Chrome serves the CBOR pipe and a WebSocket at once, so the codec's JSON
is compared with Chrome's own JSON for the very same documents (AX tree, DOM,
values of every JSON kind, names in CJK and emoji that Chrome sends as
UTF-16). Then a snapshot of a page with a cross-origin frame is taken in a
browser launched on each transport: same text, same id map.
"""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from _server import PageServer

import kobrowser
from kobrowser._tab import _clickable
from kobrowser.cdp import ChromeProcess, Connection, cbor_codec, find_chrome, open_transport
from kobrowser.cdp._launcher import _DEVTOOLS_LINE

pytestmark = pytest.mark.anyio

NAMES = '名前 漢字 😀🚀 é ß "quoted" back\\slash tab\tnew\nline \u2028 \x7f'

PAGE = f"""<!doctype html><html><head><meta charset=utf-8><title>同じ 😀</title></head>
<body><h1>{NAMES}</h1><button aria-label="{NAMES.replace('"', "&quot;")}">x</button>
<input aria-label="名前" value="値 🚀"><a href="/x">リンク é</a>
<div onclick="void 0">クリック行 😀</div><span style="cursor:pointer">指 pointer</span>
<iframe title="外 frame" src="CROSS"></iframe><p>{"長い文 " * 400}</p></body></html>"""
CHILD = """<!doctype html><meta charset=utf-8><title>子</title>
<h2>子フレーム 🧒</h2><button>押す é</button>"""

VALUES = (
    "[1, -1, 2**31, -(2**31) - 1, 2**53, 0.1, 1/3, -0, 1e300, 5e-324, 1.5, true, false, null,"
    " '', 'ascii', 'é', '日本', '😀', '\\u0000\\u001f\"\\\\', {a: {b: [[], {}]}}]"
)


async def _devtools_url(chrome: ChromeProcess) -> str:
    for line in chrome.stderr_tail.splitlines():
        if match := _DEVTOOLS_LINE.search(line):
            return match.group(1)
    with anyio.fail_after(60):
        while True:
            line = await chrome._read_line()
            assert line is not None, chrome.stderr_tail
            if match := _DEVTOOLS_LINE.search(line):
                return match.group(1)


@pytest.mark.browser
async def test_cbor_pipe_and_websocket_read_the_same_json(server: PageServer) -> None:
    if cbor_codec() is None:
        pytest.skip("kobrowser.cdp._cbor is not built")
    server.set_page("/child.html", CHILD)
    url = server.set_page("/same.html", PAGE.replace("CROSS", server.cross_url("/child.html")))
    chrome = ChromeProcess(find_chrome(), transport="pipe-cbor", args=["--remote-debugging-port=0"])
    try:
        pipe = await chrome.open(timeout=60)
        ws = await open_transport(await _devtools_url(chrome), timeout=60)
        async with (
            anyio.create_task_group() as tg,
            Connection(pipe, timeout=60) as over_pipe,
            Connection(ws, timeout=60) as over_ws,
        ):
            tg.start_soon(chrome.drain_stderr)
            assert over_pipe.transport_kind == "pipe-cbor"
            assert over_ws.transport_kind == "websocket"
            target = await over_pipe.root.send("Target.createTarget", {"url": url})
            sessions = []
            for conn in (over_pipe, over_ws):
                attached = await conn.root.send(
                    "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
                )
                sessions.append(conn.session(attached["sessionId"]))
            page_pipe, page_ws = sessions
            with anyio.fail_after(60):
                while True:
                    state = await page_pipe.send(
                        "Runtime.evaluate",
                        {
                            "expression": "location.href + ' ' + document.readyState",
                            "returnByValue": True,
                        },
                    )
                    if state["result"].get("value") == f"{url} complete":
                        break
                    await anyio.sleep(0.1)
            await anyio.sleep(1)  # the cross-origin frame settles
            calls: list[tuple[str, dict[str, Any]]] = [
                ("Accessibility.getFullAXTree", {}),
                ("DOM.getDocument", {"depth": -1, "pierce": True}),
                ("Page.getFrameTree", {}),
                ("Runtime.evaluate", {"expression": VALUES, "returnByValue": True}),
                ("Runtime.evaluate", {"expression": "NaN", "returnByValue": True}),
                ("Runtime.evaluate", {"expression": "location.href + ' ' + document.title"}),
            ]
            for method, params in calls:
                raw_pipe = await page_pipe.send_raw(method, params)
                raw_ws = await page_ws.send_raw(method, params)
                assert msgspec.json.decode(raw_pipe) == msgspec.json.decode(raw_ws), method
            # The clickable map's projected answer on the pipe reads as Chrome's whole one.
            [lean] = await over_pipe.call_many(
                [
                    (
                        page_pipe,
                        "DOMSnapshot.captureSnapshot",
                        _clickable.PARAMS,
                        _clickable.CAPTURE_KEEP.decoder(bytes),
                    )
                ]
            )
            whole = bytes(await page_ws.send_raw("DOMSnapshot.captureSnapshot", _clickable.PARAMS))
            assert b'"bounds"' in whole and b'"bounds"' not in lean
            assert _clickable._DECODER.decode(lean) == _clickable._DECODER.decode(whole)
            found = _clickable.clickable_from_snapshot(lean)
            assert len(found) >= 3 and found == _clickable.clickable_from_snapshot(whole)
            # And it is that same map in the same order (one rule reads either).
            whole_map = _clickable.clickable_from_snapshot(whole)
            assert list(whole_map.items()) == list(found.items())
            # send_raw with the same keep: projected on the pipe; the WebSocket
            # projects nothing and returns the whole answer.
            kept = await page_pipe.send_raw(
                "DOMSnapshot.captureSnapshot", _clickable.PARAMS, keep=_clickable.CAPTURE_KEEP
            )
            unkept = await page_ws.send_raw(
                "DOMSnapshot.captureSnapshot", _clickable.PARAMS, keep=_clickable.CAPTURE_KEEP
            )
            assert b'"bounds"' not in bytes(kept) and b'"bounds"' in bytes(unkept)
            assert _clickable.clickable_from_snapshot(kept) == found
            tree = msgspec.json.decode(await page_pipe.send_raw("Accessibility.getFullAXTree"))
            names = [str(n.get("name", {}).get("value")) for n in tree["nodes"]]
            assert any("名前 漢字 😀🚀 é ß" in name for name in names), names[:20]
            tg.cancel_scope.cancel()
    finally:
        await chrome.aclose()


def _id_map(snap: Any) -> list[tuple[Any, ...]]:
    frames: dict[str, int] = {}
    return [
        (
            e.id,
            e.role,
            e.name,
            e.value,
            e.states,
            e.depth,
            frames.setdefault(e.frame_id, len(frames)),
        )
        for e in snap.id_map.values()
    ]


@pytest.mark.browser
async def test_snapshots_and_id_maps_are_the_same_on_every_transport(server: PageServer) -> None:
    kinds = ["pipe-json", "websocket"] + (["pipe-cbor"] if cbor_codec() is not None else [])
    server.set_page("/child.html", CHILD)
    url = server.set_page("/same.html", PAGE.replace("CROSS", server.cross_url("/child.html")))
    results = {}
    for kind in kinds:
        async with kobrowser.launch(transport=kind, timeout=60) as browser:
            assert browser.connection.transport_kind == kind
            tab = await browser.new_tab(url)
            await tab.wait_for_load("networkidle")
            snap = await tab.snapshot()
            assert "子フレーム 🧒" in snap.text and "😀🚀" in snap.text
            # The clickable map reached the snapshot (projected on the CBOR pipe).
            assert ': generic "クリック行 😀" clickable\n' in snap.text, snap.text
            assert ': text "指 pointer" clickable\n' in snap.text, snap.text
            results[kind] = (snap.text, _id_map(snap))
    first = results[kinds[0]]
    for kind in kinds[1:]:
        assert results[kind][0] == first[0], kind
        assert results[kind][1] == first[1], kind
