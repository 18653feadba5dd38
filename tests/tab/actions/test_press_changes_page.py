"""Clicks whose press makes the page cover or move the element (the repro pages).

The page received the click: it is never reported failed, never sent again,
and its release goes where a real mouse's would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _server import PageServer

from kobrowser import Browser

pytestmark = pytest.mark.anyio

REPROS = Path(__file__).parent.parent.parent / "pages" / "repros"

LOG = """<script>
window.__log = [];
for (const t of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'focus'])
  addEventListener(t, (e) => { if (e.isTrusted) __log.push(t + ':' + (e.target.id || '')); },
    true);
</script>"""


async def test_a_press_that_covers_the_field_is_one_click(
    browser: Browser, server: PageServer
) -> None:
    page = (REPROS / "cover_on_press.html").read_text() + LOG
    tab = await browser.new_tab(server.set_page("/cover-on-press.html", page))
    try:
        # The window's own focus event (logged as "focus:") is the new tab
        # gaining the page focus, which Chrome hands to a freshly navigated
        # tab on its own schedule: usually before the page's scripts run, on
        # a loaded machine after its load. It is not part of the click: wait
        # until the page has the focus (the event has fired by then) and
        # start the log afresh, so the log below holds the click's events only.
        await tab.wait_for_function("document.hasFocus()")
        await tab.evaluate("__log.length = 0")
        snap = await tab.snapshot()
        assert snap.text == 'Page: "cover on press"\n\n1: textbox "Name"\n'
        await tab.click(1)  # no error: the page received the click
        assert await tab.evaluate("[document.activeElement.id, cover.style.display]") == [
            "t",
            "block",
        ]
        assert await tab.evaluate("__log") == [
            "pointerdown:t",
            "mousedown:t",
            "focus:t",
            "pointerup:cover",
            "mouseup:cover",
            "click:",
        ]
    finally:
        await tab.close()


async def test_a_label_that_moves_on_press_gets_its_release(
    browser: Browser, server: PageServer
) -> None:
    page = (REPROS / "move_on_press.html").read_text() + LOG
    tab = await browser.new_tab(server.set_page("/move-on-press.html", page))
    try:
        snap = await tab.snapshot()
        label = next(e for e in snap.id_map.values() if e.name == "Pick me")
        await tab.click(label.id)
        assert await tab.evaluate("out.textContent") == "picked"
        assert await tab.evaluate("__log.filter((e) => !e.startsWith('focus'))") == [
            "pointerdown:label",
            "mousedown:label",
            "pointerup:slice",
            "mouseup:slice",
            "click:item",
        ]
    finally:
        await tab.close()
