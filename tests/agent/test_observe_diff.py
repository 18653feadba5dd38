"""Agent(observe="diff", ids=...): prompts carry the change since the previous step."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from _server import PageServer

import kobrowser
from kobrowser import Browser
from kobrowser.agent import Agent, Message, ScriptedModel

pytestmark = pytest.mark.anyio

PAGE = (
    """<!doctype html><title>Todo</title>
<div id="top"></div>
<input aria-label="Task">
<button onclick="document.getElementById('top').insertAdjacentHTML('beforeend',
  '<p>Added ' + document.querySelector('input').value + '</p>')">Add</button>
<ul>"""
    + "".join(f"<li>Earlier task number {i}</li>" for i in range(30))
    + "</ul>"
)


@pytest.fixture(scope="module")
async def stable(anyio_backend: str) -> AsyncIterator[Browser]:
    async with kobrowser.launch(timeout=60, ids="stable") as b:
        yield b


def page_of(messages: list[Message]) -> str:
    prompt = messages[-1]["content"]
    return prompt[prompt.index("URL: ") :]


def id_of(text: str, pattern: str) -> int:
    match = re.search(rf"(\d+): {pattern}", text)
    assert match, text
    return int(match.group(1))


async def test_stable_ids_with_diffs(stable: Browser, server: PageServer) -> None:
    url = server.set_page("/agent-diff.html", PAGE)
    tab = await stable.new_tab(url)
    pages: list[str] = []
    known: dict[str, int] = {}

    def reply(messages: list[Message]) -> str:
        page = page_of(messages)
        pages.append(page)
        if len(pages) == 1:
            known["task"] = id_of(page, 'textbox "Task"')
            known["add"] = id_of(page, 'button "Add"')
            return f'fill {known["task"]} "milk"\nclick {known["add"]}'
        if len(pages) == 2:
            return f"click {known['add']}"  # an id from the first, whole page
        return 'done "added"'

    try:
        agent = Agent(stable, ScriptedModel(reply), ids="stable", observe="diff")
        result = await agent.run("Add milk twice")
        assert result.done, "\n".join(map(str, result.steps))
        assert 'Page: "Todo"' in pages[0]  # the first step: the whole snapshot
        for page in pages[1:]:
            assert "Page:" not in page and "Only what changed" in page
        assert re.search(r'\+ \d+: text "Added milk"', pages[1])
        assert f'~ {known["task"]}: textbox "Task" value="milk"' in pages[1]
        assert re.search(r'\+ \d+: text "Added milk"', pages[2])
        # The prompts' page parts cost less than whole snapshots would.
        steps = result.steps
        assert steps[1].snapshot_tokens < steps[0].snapshot_tokens
    finally:
        await tab.close()


async def test_depth_first_diffs_fall_back_when_ids_move(
    browser: Browser, server: PageServer
) -> None:
    url = server.set_page("/agent-diff-df.html", PAGE)
    tab = await browser.new_tab(url)
    pages: list[str] = []

    def reply(messages: list[Message]) -> str:
        page = page_of(messages)
        pages.append(page)
        if len(pages) == 1:
            return f'fill {id_of(page, chr(116) + "extbox")} "tea"'
        if len(pages) == 2:
            return f"click {id_of(pages[0], 'button')}"
        return 'done "ok"'

    try:
        result = await Agent(browser, ScriptedModel(reply), observe="diff").run("Add tea")
        assert result.done, "\n".join(map(str, result.steps))
        # Filling changed one line and moved no id: a diff.
        assert "Only what changed" in pages[1] and 'value="tea"' in pages[1]
        # "Added tea" printed above renumbers the lines: the whole snapshot.
        assert 'Page: "Todo"' in pages[2] and 'text "Added tea"' in pages[2]
    finally:
        await tab.close()


async def test_a_change_longer_than_the_page_comes_whole(
    stable: Browser, server: PageServer
) -> None:
    items = "".join(f"<li><button>Old item {i}</button></li>" for i in range(6))
    replace = (
        '<button onclick="l.innerHTML = [0,1,2,3,4,5].map(i => '
        "'<li><button>New ' + i + '</button></li>').join('')\">Replace</button>"
    )
    page = f"<title>L</title><ul id=l>{items}</ul>{replace}"
    url = server.set_page("/agent-diff-long.html", page)
    tab = await stable.new_tab(url)
    pages: list[str] = []

    def reply(messages: list[Message]) -> str:
        pages.append(page_of(messages))
        if len(pages) == 1:
            return "click " + str(id_of(pages[0], 'button "Replace"'))
        return 'done "ok"'

    try:
        result = await Agent(stable, ScriptedModel(reply), ids="stable", observe="diff").run("go")
        assert result.done, "\n".join(map(str, result.steps))
        # Every item removed and added: the whole page costs less than the change.
        assert 'Page: "L"' in pages[1] and 'button "New 5"' in pages[1]
        assert "Only what changed" not in pages[1]
    finally:
        await tab.close()


async def test_bad_ids_and_observe_are_refused(browser: Browser, stable: Browser) -> None:
    model = ScriptedModel(['done ""'])
    with pytest.raises(ValueError, match="launch it with"):
        Agent(browser, model, ids="stable")
    Agent(stable, model, ids="stable")
    with pytest.raises(ValueError, match="observe"):
        Agent(browser, model, observe="delta")  # type: ignore[arg-type]
