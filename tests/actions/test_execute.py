"""The executor on real Chromium: every verb through Tab/Browser, failures as outcomes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from _server import PageServer

import kobrowser
from kobrowser import Browser, Tab
from kobrowser import actions as A
from kobrowser._tab._execute import execute

pytestmark = pytest.mark.anyio

FORM = """<!doctype html><title>Exec</title>
<label>Name <input id="name"></label>
<label>Notes <input id="notes"></label>
<label><input type="checkbox" id="agree"> Agree</label>
<label>Color <select id="color"><option>Red</option><option>Blue</option></select></label>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked ' +
  (++window.clicks)">Go</button>
<button id="twice" ondblclick="document.getElementById('out').textContent = 'double'">Twice</button>
<button id="hov" onmouseover="document.getElementById('out').textContent = 'hovered'">Hov</button>
<p id="out">nothing</p>
<a href="/exec-next.html">Next page</a>
<div style="height: 3000px"></div>
<script>window.clicks = 0;
document.addEventListener('keydown', (e) => { if (e.key === 'Enter') window.entered = true; });
</script>
"""
NEXT = "<!doctype html><title>Next</title><h1>Second page</h1>"


def find_id(snapshot: str, pattern: str) -> int:
    for line in snapshot.splitlines():
        match = re.match(r"\s*(\d+): (.*)", line)
        if match and re.search(pattern, match.group(2)):
            return int(match.group(1))
    raise AssertionError(f"no line matching {pattern!r} in:\n{snapshot}")


async def state(tab: Tab) -> dict[str, Any]:
    raw = await tab.evaluate(
        "JSON.stringify({name: document.getElementById('name').value,"
        " notes: document.getElementById('notes').value,"
        " agree: document.getElementById('agree').checked,"
        " color: document.getElementById('color').value,"
        " out: document.getElementById('out').textContent, entered: !!window.entered,"
        " scrollY: window.scrollY, focused: document.activeElement.id})"
    )
    result: dict[str, Any] = json.loads(raw)
    return result


async def run(target: Tab | Browser, line: str) -> A.Outcome:
    outcome = await target.do(kobrowser.parse_action(line))
    return outcome


async def test_every_verb_on_a_tab(open_tab: Any, server: PageServer) -> None:
    server.set_page("/exec-next.html", NEXT)
    async with open_tab(server.set_page("/exec.html", FORM)) as tab:
        snap = (await tab.snapshot()).text
        name, notes = find_id(snap, 'textbox "Name"'), find_id(snap, 'textbox "Notes"')
        agree, color = find_id(snap, 'checkbox "Agree"'), find_id(snap, "combobox")
        go, twice, hov = (find_id(snap, f'button "{n}"') for n in ("Go", "Twice", "Hov"))
        lines = [
            f'fill {name} "Ada \\"the\\" Countess"',
            f'type {notes} "hi"',
            f"check {agree}",
            f'select {color} "Blue"',
            f"click {go}",
        ]
        for line in lines:
            outcome = await run(tab, line)
            assert outcome.ok, outcome
        after = await state(tab)
        assert after["name"] == 'Ada "the" Countess' and after["notes"] == "hi"
        assert after["agree"] is True and after["color"] == "Blue"
        assert after["out"] == "clicked 1"
        assert (await run(tab, f"uncheck {agree}")).ok
        assert (await run(tab, f"dblclick {twice}")).ok
        assert (await state(tab))["out"] == "double"
        assert (await run(tab, f"hover {hov}")).ok
        assert (await state(tab))["out"] == "hovered"
        assert (await run(tab, f"focus {name}")).ok
        assert (await state(tab))["focused"] == "name"
        assert (await run(tab, "press Enter")).ok
        assert (await run(tab, "scroll down 400")).ok
        after = await state(tab)
        assert after["entered"] is True and after["agree"] is False and after["scrollY"] > 0
        assert (await run(tab, "wait 10")).message == "waited 10 ms"

        opened = await run(tab, f"open {server.url('/exec-next.html')}")
        assert opened.ok and await tab.title() == "Next"
        assert (await run(tab, "back")).ok and await tab.title() == "Exec"
        assert (await run(tab, "forward")).ok and await tab.title() == "Next"
        assert (await run(tab, "reload")).ok and await tab.title() == "Next"
        done = await run(tab, 'done "the answer"')
        assert done.ok and done.answer == "the answer"


async def test_failures_are_outcomes(open_tab: Any, server: PageServer) -> None:
    server.set_page("/exec-next.html", NEXT)
    async with open_tab(server.set_page("/exec.html", FORM)) as tab:
        no_snapshot = await run(tab, "click 1")
        assert not no_snapshot.ok and no_snapshot.error == "NoSnapshotError"
        snap = (await tab.snapshot()).text
        button = find_id(snap, 'button "Go"')
        unknown = await run(tab, "click 999")
        assert unknown.error == "UnknownElementError" and "999" in unknown.message
        assert (await run(tab, f'fill {button} "x"')).error == "WrongElementKindError"
        assert (await run(tab, "press NoSuchKey")).error == "InvalidArgumentError"
        missing = await run(tab, f'select {find_id(snap, "combobox")} "Green"')
        assert not missing.ok and "Green" in missing.message
        await tab.evaluate("document.getElementById('go').remove()")
        stale = await run(tab, f"click {button}")
        assert stale.error == "StaleElementError", stale
        bad = await run(tab, "open http://127.0.0.1:1/")
        assert bad.error == "NavigationError"
        not_here = await run(tab, "tab 1")
        assert not_here.error == "KoBrowserError" and "browser.do()" in not_here.message
        assert str(stale).startswith(f"click {button}: StaleElementError: ")
        assert stale.to_dict()["action"] == f"click {button}"
        with pytest.raises(kobrowser.InvalidArgumentError):
            await execute(lambda: tab, "click 1")  # type: ignore[arg-type]


async def test_browser_target_follows_the_current_tab(browser: Browser, server: PageServer) -> None:
    first = await browser.new_tab(server.set_page("/exec.html", FORM))
    second = await browser.new_tab(server.set_page("/exec-next.html", NEXT))
    try:
        index = browser.tabs.index(first) + 1
        switched = await run(browser, f"tab {index}")
        assert switched.ok and browser.tab is first
        snap = (await browser.snapshot()).text
        go = find_id(snap, 'button "Go"')
        assert (await run(browser, f"click {go}")).ok
        assert (await state(first))["out"] == "clicked 1"
        missing = await run(browser, f"tab {len(browser.tabs) + 1}")
        assert not missing.ok and "no tab" in missing.message
    finally:
        await second.close()
        await first.close()
