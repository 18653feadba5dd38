"""Clickable maps kept between snapshots (kobrowser/_tab/_clickkeep.py), in a real Chromium.

After random changes to the page and to a cross-origin frame, each
snapshot must equal one whose maps were all captured afresh, and every
kept map must equal a fresh capture; the tests also check that kept maps
were used and that changes were captured late (a test whose every map was
captured would prove nothing). Navigation (a new document, so a new world
for the watcher) is covered for the page and for the frame.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser._tab._clickable import clickable_nodes
from kobrowser._tab._clickwatch import FULL_EVERY
from kobrowser.cdp import CDPSession, Connection

from .axmirror._clickpage import CLICK_MUTATE_JS, click_page

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]

ICONS = (
    "<div id=icons><img id=i1 src='/icons/a.png' onclick='1' style='width:9px;height:9px'>"
    "<span id=i2 title='Pin' style='display:inline-block;width:9px;height:9px;cursor:pointer'>"
    "</span><span id=i3 style='display:inline-block;width:9px;height:9px'></span></div>"
)
ICON_MUTATE_JS = """window.__iconMutate = (seed) => {
  const icons = [...document.querySelectorAll('#icons > *')];
  const el = icons[seed % icons.length];
  switch (seed % 5) {
    case 0: if (el.src !== undefined) el.src = '/icons/n' + seed + '.png'; break;
    case 1: el.title = 'Title ' + seed; break;
    case 2: el.id = el.id + 'x'; break;
    case 3: el.style.cursor = el.style.cursor ? '' : 'pointer'; break;
    default: el.style.backgroundImage = 'url(/bg' + seed + '.png)';
  }
};"""


def record(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the CDP methods sent from now on."""
    sent: Counter[str] = Counter()
    call_many = Connection.call_many

    async def recording_call_many(self: Connection, requests: Any, **kwargs: Any) -> Any:
        sent.update(request[1] for request in requests)
        return await call_many(self, requests, **kwargs)

    monkeypatch.setattr(Connection, "call_many", recording_call_many)
    return sent


def kept_maps(tab: Tab) -> dict[CDPSession, Any]:
    keep = tab._snapshotter.clickkeep
    return {s: kept.found for s, kept in keep._kept.items() if kept.found is not None}


async def frame_session(tab: Tab, marker: str) -> CDPSession:
    for _ in range(100):  # until the frame's document is in
        if marker in (await tab.snapshot()).text and tab._frames.frames():
            break
        await tab.wait(100)
    [frame] = tab._frames.frames()
    return frame.session


async def evaluate(session: CDPSession, expression: str) -> Any:
    found = await session.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=10
    )
    assert "exceptionDetails" not in found, found
    return found["result"].get("value")


async def test_kept_maps_equal_fresh_captures_after_random_changes(
    server: PageServer, open_tab: OpenTab
) -> None:
    server.set_page("/keep-inner.html", click_page(6).replace("<footer>", ICONS + "<footer>"))
    inner = server.cross_url("/keep-inner.html")
    page = click_page(12).replace(
        "<footer>", f"{ICONS}<iframe title=Inner src='{inner}'></iframe><footer>"
    )
    async with open_tab(server.set_page("/keep-outer.html", page)) as tab:
        frame = await frame_session(tab, "Inner")
        sessions = [tab.cdp, frame]
        for session in sessions:
            await evaluate(session, CLICK_MUTATE_JS + ";" + ICON_MUTATE_JS + ";1")
        keep = tab._snapshotter.clickkeep
        for seed in range(1, 41):
            target = sessions[seed % 2]
            if seed % 3:
                done = await evaluate(target, f"window.__clickMutate({seed * 7919}, 1, false)")
            elif seed % 4:
                done = await evaluate(target, f"window.__iconMutate({seed})")
            else:
                done = "nothing"
            snap = await tab.snapshot()
            for session, found in kept_maps(tab).items():
                assert found == await clickable_nodes(session, timeout=30), (seed, done)
            fresh = await tab.snapshot(fresh=True)
            assert snap.text == fresh.text, (seed, done)
        assert keep.stats["reused"] >= 20, keep.stats  # unchanged sessions and "nothing"
        assert keep.stats["late"] >= 10, keep.stats  # the changes, captured after the batch


async def test_an_unchanged_page_is_not_captured_again(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = server.set_page(
        "/keep-static.html", click_page(5).replace("<footer>", ICONS + "<footer>")
    )
    async with open_tab(url) as tab:
        first = await tab.snapshot()  # installs the watcher, captures
        sent = record(monkeypatch)
        for _ in range(FULL_EVERY - 1):
            assert (await tab.snapshot()).text == first.text
        assert sent["DOMSnapshot.captureSnapshot"] == 0, sent
        assert sent["Runtime.evaluate"] == FULL_EVERY - 1  # one read per snapshot
        assert sent["DOM.resolveNode"] == 0  # the derived names were kept with the map
        assert 'generic "id:i2" clickable' in first.text
        await tab.snapshot()  # the period: captured whatever the watcher says
        assert sent["DOMSnapshot.captureSnapshot"] == 1, sent
        # A change: read, then captured after the batch. Changes are now
        # expected: the next is captured in the batch (the watcher read first,
        # seeing none), and the one after is kept again.
        keep = tab._snapshotter.clickkeep
        await tab.evaluate("document.getElementById('i2').id = 'pin'")
        assert 'generic "id:pin" clickable' in (await tab.snapshot()).text
        assert sent["DOMSnapshot.captureSnapshot"] == 2, sent
        assert keep.stats["late"] == 1
        await tab.snapshot()
        assert sent["DOMSnapshot.captureSnapshot"] == 3, sent
        await tab.snapshot()
        assert sent["DOMSnapshot.captureSnapshot"] == 3, sent
        # An action by id: the next snapshot captures in the batch (no late capture).
        snap = await tab.snapshot()
        button = next(e.id for e in snap.id_map.values() if e.role == "button")
        await tab.click(button)
        await tab.evaluate("document.getElementById('pin').id = 'pinned'")
        assert 'generic "id:pinned" clickable' in (await tab.snapshot()).text
        assert sent["DOMSnapshot.captureSnapshot"] == 4, sent
        assert keep.stats["late"] == 1


async def test_navigation_of_the_page_and_of_a_frame(server: PageServer, open_tab: OpenTab) -> None:
    server.set_page("/nav-inner-a.html", "<!doctype html><title>A</title>" + ICONS)
    server.set_page(
        "/nav-inner-b.html",
        "<!doctype html><title>B</title><span id=b1 style='cursor:pointer'>Bee</span>",
    )
    inner = server.cross_url("/nav-inner-a.html")
    first = server.set_page(
        "/nav-1.html",
        f"<!doctype html><title>One</title>{ICONS}<iframe title=Inner src='{inner}'></iframe>",
    )
    second = server.set_page(
        "/nav-2.html",
        "<!doctype html><title>Two</title><div style='cursor:pointer'>Go</div>"
        "<img src='/icons/z.png' onclick=1 style='width:9px;height:9px'>",
    )
    async with open_tab(first) as tab:
        frame = await frame_session(tab, "id:i2")
        for _ in range(3):
            snap = await tab.snapshot()
            assert snap.text == (await tab.snapshot(fresh=True)).text
        # The frame navigates (a new document in the frame's session).
        await evaluate(frame, f"location.href = {server.cross_url('/nav-inner-b.html')!r}")
        for _ in range(100):
            snap = await tab.snapshot()
            if "Bee" in snap.text:
                break
            await tab.wait(50)
        assert snap.text == (await tab.snapshot(fresh=True)).text
        assert 'generic "Bee" clickable' in snap.text or "Bee" in snap.text
        for _ in range(3):
            assert (await tab.snapshot()).text == (await tab.snapshot(fresh=True)).text
        # The page navigates: a new document, its watcher in a new world.
        await tab.open(second)
        snap = await tab.snapshot()
        assert snap.text == (await tab.snapshot(fresh=True)).text
        assert 'img "file:z.png" clickable' in snap.text
        await tab.evaluate("document.querySelector('div').style.cursor = ''")
        snap = await tab.snapshot()
        assert snap.text == (await tab.snapshot(fresh=True)).text
        assert "clickable" not in snap.text.split("\n")[2], snap.text
        for _ in range(3):
            assert (await tab.snapshot()).text == (await tab.snapshot(fresh=True)).text
        assert tab._snapshotter.clickkeep.stats["reused"] > 0
