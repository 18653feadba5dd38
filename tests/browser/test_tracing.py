"""Tracing: every action through the library and the agent loop, written as one HTML page.

The page is then opened offline (file://) in Chromium with kobrowser itself
and read through its snapshot: all steps listed, a step's picture and
snapshot shown.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Browser, InvalidArgumentError, Trace
from kobrowser.agent import Agent, Message, ScriptedModel

pytestmark = pytest.mark.anyio

TODO = """<!doctype html><title>Todo</title>
<style>body{font:16px sans-serif} li{margin:4px}</style>
<h1>Todo</h1>
<input aria-label="New item"> <button id=add>Add</button>
<ul id=list></ul>
<script>
document.getElementById('add').onclick = async () => {
  const input = document.querySelector('input');
  const li = document.createElement('li');
  li.textContent = input.value;
  document.getElementById('list').append(li);
  console.log('added ' + input.value);
  await fetch('/todo-api?item=' + encodeURIComponent(input.value));
  input.value = '';
};
</script>"""


def _id(prompt: str, pattern: str) -> str:
    found = re.search(pattern, prompt)
    assert found is not None, prompt
    return found.group(1)


async def _open_offline(browser: Browser, path: Path, fragment: str = "") -> Any:
    """A tab of a fresh context (no policy) on the trace file."""
    context = await browser.new_context()
    tab = await context.new_tab(path.as_uri() + fragment)
    return context, tab


async def test_a_20_step_agent_run_is_traced_and_the_trace_opens_offline(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    server.set_page("/todo-api", "{}", content_type="application/json")
    url = server.set_page("/todo.html", TODO)
    tab = await browser.new_tab(url)
    try:
        calls = 0

        def reply(messages: list[Message]) -> str:
            nonlocal calls
            calls += 1
            prompt = messages[-1]["content"]
            if calls == 20:
                return 'done "added nine items"'
            if calls % 2:
                box = _id(prompt, r"(\d+): textbox \"New item\"")
                return f'fill {box} "item {calls // 2 + 1}"'
            return "click " + _id(prompt, r"(\d+): button \"Add\"")

        path = tmp_path / "run.html"
        async with browser.tracing(path, title="todo run") as trace:
            result = await Agent(
                browser, ScriptedModel(reply), max_steps=25, max_actions_per_step=1
            ).run("add nine items")
        assert result.done, result
        assert isinstance(trace, Trace)
        steps = trace.steps
        assert [s.line.split()[0] for s in steps] == ["fill", "click"] * 9 + ["fill", "done"]
        assert all(s.ok for s in steps), [s.error for s in steps if not s.ok]
        # The model's reply rides with the step it asked for.
        assert steps[0].note is not None and steps[0].note.startswith("fill ")
        assert steps[-1].note == 'done "added nine items"'
        # Every step has a picture; an element's step has its outline.
        assert all(s.screenshot is not None and s.screenshot[:2] == b"\xff\xd8" for s in steps)
        clicks = steps[1::2][:9]
        assert all(s.outline is not None and s.element_id is not None for s in clicks)
        # A click's step holds what the page did during it: the request, the log.
        assert any("/todo-api?item=item%201" in r.url for r in clicks[0].requests)
        # Written at the end, a request still in flight when its step ended has its answer.
        assert [r.status for r in clicks[0].requests if "todo-api" in r.url] == [200]
        assert [m.text for m in clicks[0].console] == ["added item 1"]
        assert steps[0].snapshot is not None and 'button "Add"' in steps[0].snapshot
        assert steps[2].changes is not None and "item 1" in steps[2].changes
        size = path.stat().st_size
        assert size < 5 * 1024 * 1024, size

        context, viewer = await _open_offline(browser, path)
        try:
            snap = await viewer.snapshot(text_limit=None)
            nav = [e for e in snap.nodes if e.role == "navigation"]
            assert len(nav) == 1, snap.text
            links = [e.name for e in snap.id_map.values() if e.role == "link"]
            listed = [link for link in links if re.match(r"\d+\. ", link)]
            assert len(listed) == 20, listed
            assert listed[0].startswith("1. fill ") and listed[19].startswith('20. done "added')
            # Step 6 (by its link): its picture and the snapshot it acted on render.
            await viewer.click(next(e.id for e in snap.id_map.values() if e.name == listed[5]))
            await viewer.wait_for_url("**#step-6")
            # The viewer shows a step on `hashchange`, a task that may run after
            # the URL's change is reported: wait for the step itself.
            await viewer.wait_for_function(
                "!document.getElementById('step-6').hidden"
                " && document.getElementById('step-1').hidden"
            )
            shown = await viewer.snapshot(text_limit=None)
            assert "Step 6: click" in shown.text
            assert 'img "Screenshot after step 6"' in shown.text
            assert "Step 5:" not in shown.text  # one step at a time
            drawn = await viewer.evaluate(
                "(() => { const img = document.querySelector('#step-6 img');"
                " return [img.complete, img.naturalWidth,"
                " document.querySelector('#step-6 .outline') !== null]; })()"
            )
            assert drawn[0] is True and drawn[1] > 100 and drawn[2] is True
            assert 'button "Add"' in (await viewer.text(_pre_id(shown)))
            # Nothing was fetched: the file holds everything.
            fetched = [r.url for r in viewer.network.requests]
            assert all(u.startswith(("file:", "data:")) for u in fetched), fetched
        finally:
            await context.close()
    finally:
        await tab.close()


def _pre_id(snap: Any) -> int:
    for element in snap.id_map.values():
        if "textbox" not in element.role and 'button "Add"' in element.name:
            return int(element.id)
    raise AssertionError(snap.text)


async def test_tab_tracing_records_library_calls_and_only_that_tab(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    url = server.set_page("/todo.html", TODO)
    tab = await browser.new_tab(url)
    other = await browser.new_tab(url)
    try:
        async with tab.tracing() as trace:
            snap = await tab.snapshot()
            box = next(e.id for e in snap.id_map.values() if e.role == "textbox")
            await tab.fill(box, "milk")
            outcome = await tab.do("press Enter")
            await tab.evaluate("1 + 1")
            await tab.text(box)  # a reader: not a step
            await other.snapshot()
            await other.do("scroll down")  # another tab: not in this trace
            with pytest.raises(InvalidArgumentError):
                await tab.click(0)
        assert outcome.ok
        lines = [s.line for s in trace.steps]
        assert lines == [f'fill {box} "milk"', "press Enter", 'evaluate "1 + 1"', "click 0"]
        assert trace.steps[-1].ok is False and "InvalidArgumentError" in (
            trace.steps[-1].error or ""
        )
        await tab.fill(box, "after")  # detached: not recorded
        assert len(trace.steps) == 4
        # The file is written from the kept trace too.
        path = tmp_path / "tab.html"
        await trace.save(path)
        assert path.read_text().count('class="step"') == 4
    finally:
        await other.close()
        await tab.close()


async def test_tracing_off_attaches_nothing(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/todo.html", TODO))
    try:
        assert browser._recorders == () and tab._recorders == ()
        async with browser.tracing():
            assert len(browser._recorders) == 1
        async with tab.tracing():
            assert browser._recorders == () and len(tab._recorders) == 1
        assert browser._recorders == () and tab._recorders == ()
        with pytest.raises(InvalidArgumentError):
            async with browser.tracing(42):  # type: ignore[arg-type]
                pass
    finally:
        await tab.close()
