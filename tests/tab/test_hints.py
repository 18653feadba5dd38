"""Derived names of icon-only controls (kobrowser/_tab/_hints.py), in a real Chromium.

The page is asked only about clickable leaves whose line would print
unnamed, in one batch per snapshot: one ``DOM.resolveNode`` per element and
one in-page call per frame session (the page's and a cross-origin frame's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser.cdp import Connection

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]

FIELDS = (
    "<label>Email <input type=email></label><label>Pass <input type=password></label>"
    "<label><input type=checkbox> Keep</label><img src=/logo.png alt=Logo onclick=1"
    " style='width:9px;height:9px'>"
)
ICON = "<img src='/icons/{name}.png' onclick='1' style='width:9px;height:9px'>"


def record(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the CDP methods sent from now on."""
    sent: Counter[str] = Counter()
    call, call_many = Connection.call, Connection.call_many

    async def recording_call(self: Connection, method: str, *args: Any, **kwargs: Any) -> Any:
        sent[method] += 1
        return await call(self, method, *args, **kwargs)

    async def recording_call_many(self: Connection, requests: Any, **kwargs: Any) -> Any:
        sent.update(request[1] for request in requests)
        return await call_many(self, requests, **kwargs)

    monkeypatch.setattr(Connection, "call", recording_call)
    monkeypatch.setattr(Connection, "call_many", recording_call_many)
    return sent


async def test_named_fields_are_not_asked_about(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = server.set_page("/fields.html", f"<!doctype html><title>F</title>{FIELDS}")
    async with open_tab(url) as tab:
        await tab.snapshot()
        sent = record(monkeypatch)
        snap = await tab.snapshot()
        assert 'textbox "Email"' in snap.text
        assert 'img "Logo" clickable' in snap.text
        assert sent["DOM.resolveNode"] == 0
        assert sent["Runtime.callFunctionOn"] == 0


async def test_icons_in_two_sessions_take_one_in_page_call_each(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    icons = ICON.format(name="star") + ICON.format(name="trash")
    server.set_page("/icons.html", f"<!doctype html><title>I</title>{FIELDS}{icons}")
    url = server.set_page(
        "/host.html",
        f"<!doctype html><title>H</title>{FIELDS}{ICON.format(name='home')}"
        f"<iframe title=Child src='{server.cross_url('/icons.html')}'></iframe>",
    )
    async with open_tab(url) as tab:
        for _ in range(100):  # until the frame's document is in
            if "file:trash.png" in (await tab.snapshot()).text:
                break
            await tab.wait(100)
        assert len(tab._frames.frames()) == 1  # out of process: a session of its own
        sent = record(monkeypatch)
        snap = await tab.snapshot(fresh=True)  # every map captured again: asked again
        lines = [line.split(": ", 1)[1] for line in snap.text.splitlines() if ": img" in line]
        assert lines == [
            'img "Logo" clickable',
            'img "file:home.png" clickable',
            'img "Logo" clickable',
            'img "file:star.png" clickable',
            'img "file:trash.png" clickable',
        ]
        assert sent["DOM.resolveNode"] == 3  # the icons only
        assert sent["Runtime.callFunctionOn"] == 2  # one per frame session
        assert sent["Runtime.releaseObjectGroup"] == 2
        # Kept maps (nothing changed) keep their names: nothing is asked.
        assert (await tab.snapshot()).text == snap.text
        assert sent["DOM.resolveNode"] == 3
