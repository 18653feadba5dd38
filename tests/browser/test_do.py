"""``tab.do(action)`` and ``browser.do(action)`` on real Chromium.

One parsed :class:`~kobrowser.Action` (or one action line) runs through the
tab's own methods; the action's errors come back in the Outcome, bad
arguments raise.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from _server import PageServer

import kobrowser
from kobrowser import ActionSyntaxError, Browser, InvalidArgumentError, Tab
from kobrowser import actions as A

pytestmark = pytest.mark.anyio

FORM = """<!doctype html><title>Do</title>
<label>Name <input id="name"></label>
<label><input type="checkbox" id="agree"> Agree</label>
<label>Color <select id="color"><option>Red</option><option>Blue</option></select></label>
<button onclick="document.getElementById('out').textContent = 'clicked ' + (++window.n)">Go</button>
<button id="gone" onclick="this.remove()">Vanish</button>
<p id="out">nothing</p>
<a href="/do-next.html">Next page</a>
<script>window.n = 0</script>
"""
NEXT = "<!doctype html><title>Next</title><h1>Second page</h1>"


def find_id(snapshot: str, pattern: str) -> int:
    for line in snapshot.splitlines():
        match = re.match(r"\s*(\d+): (.*)", line)
        if match and re.search(pattern, match.group(2)):
            return int(match.group(1))
    raise AssertionError(f"no line matching {pattern!r} in:\n{snapshot}")


async def test_tab_do_runs_actions_and_lines(open_tab: Any, server: PageServer) -> None:
    server.set_page("/do-next.html", NEXT)
    async with open_tab(server.set_page("/do.html", FORM)) as tab:
        snap = (await tab.snapshot()).text
        name, agree = find_id(snap, 'textbox "Name"'), find_id(snap, 'checkbox "Agree"')
        color, go = find_id(snap, "combobox"), find_id(snap, 'button "Go"')

        outcome = await tab.do(A.Fill(id=name, text='Ada "the" Countess'))
        assert outcome.ok and outcome.action == A.Fill(id=name, text='Ada "the" Countess')
        assert await tab.evaluate("document.getElementById('name').value") == 'Ada "the" Countess'

        # A line, with the sloppiness models produce, and a JSON object.
        assert (await tab.do(f"  CLICK [{go}]. ")).ok
        assert (await tab.do(f"check @{agree}")).ok
        assert (await tab.do(f'{{"action": "select", "id": {color}, "text": "Blue"}}')).ok
        assert await tab.evaluate(
            "[document.getElementById('out').textContent,"
            " document.getElementById('agree').checked, document.getElementById('color').value]"
        ) == ["clicked 1", True, "Blue"]

        outcome = await tab.do(kobrowser.parse_action(f"click {go}"), timeout=20)
        assert (outcome.ok, outcome.message, outcome.error) == (True, f"clicked {go}", None)
        assert str(outcome) == f"click {go}: clicked {go}"

        done = await tab.do('done "the answer"')
        assert done.ok and done.answer == "the answer"

        opened = await tab.do("open " + server.url("/do-next.html"))
        assert opened.ok and tab.url.endswith("/do-next.html")
        assert (await tab.do("back")).ok and tab.url.endswith("/do.html")


async def test_tab_do_reports_the_actions_errors(open_tab: Any, server: PageServer) -> None:
    async with open_tab(server.set_page("/do.html", FORM)) as tab:
        snap = (await tab.snapshot()).text
        gone = find_id(snap, 'button "Vanish"')
        assert (await tab.do(f"click {gone}")).ok  # the button removes itself
        stale = await tab.do(f"click {gone}")
        assert not stale.ok and stale.error == "StaleElementError"
        unknown = await tab.do("click 999")
        assert not unknown.ok and unknown.error == "UnknownElementError"
        assert "snapshot" in unknown.message
        switch = await tab.do("tab 1")
        assert not switch.ok and "browser.do()" in switch.message


async def test_tab_do_rejects_bad_arguments(open_tab: Any, server: PageServer) -> None:
    async with open_tab(server.set_page("/do.html", FORM)) as tab:
        await tab.snapshot()
        with pytest.raises(ActionSyntaxError) as caught:
            await tab.do("tap 5")
        assert (caught.value.line, caught.value.column) == (1, 1)
        with pytest.raises(ActionSyntaxError, match="expected one action, found 2 actions"):
            await tab.do("click 1\nclick 2")
        with pytest.raises(ActionSyntaxError, match="found no action"):
            await tab.do("")
        with pytest.raises(InvalidArgumentError, match="action: got 42"):
            await tab.do(42)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="timeout"):
            await tab.do("click 1", timeout=-1)
        assert await tab.evaluate("window.n") == 0  # nothing ran


async def test_browser_do_acts_on_the_current_tab_and_switches_tabs(
    browser: Browser, server: PageServer
) -> None:
    first = await browser.new_tab(server.set_page("/do.html", FORM))
    second = await browser.new_tab(server.set_page("/do-next.html", NEXT))
    try:
        assert browser.tab is second
        index = browser.tabs.index(first) + 1
        switched = await browser.do(f"tab {index}")
        assert switched.ok and switched.message == f"switched to tab {index}"
        assert browser.tab is first
        snap = (await browser.snapshot()).text
        go = find_id(snap, 'button "Go"')
        assert (await browser.do(A.Click(id=go))).ok
        assert await first.evaluate("window.n") == 1
        assert await second.evaluate("typeof window.n") == "undefined"
        missing = await browser.do(f"tab {len(browser.tabs) + 1}")
        assert not missing.ok and "there are" in missing.message
        with pytest.raises(ActionSyntaxError):
            await browser.do("goto https://example.com")
    finally:
        await first.close()
        await second.close()


@pytest.mark.browser
async def test_browser_do_without_a_tab_is_an_outcome(server: PageServer) -> None:
    async with kobrowser.launch(timeout=60) as fresh:
        outcome = await fresh.do("click 1")
        assert not outcome.ok and "no open tab" in outcome.message
        assert (await fresh.do('done "ok"')).answer == "ok"


def test_tab_do_is_documented_like_the_other_methods() -> None:
    for method in (Tab.do, Browser.do):
        assert method.__doc__ and "Outcome" in method.__doc__ and "Cancelling" in method.__doc__
