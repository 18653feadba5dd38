"""``snapshot="diff"`` (``ko-browser mcp --snapshot diff``): action replies carry the change."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from _server import PageServer
from mcp import Client

import kobrowser
from kobrowser import Browser
from kobrowser.mcp import build_server

from .conftest import call, find_id

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("tabs_closed")]

PAGE = """<!doctype html><title>Form</title>
<div id="top"></div>
<input aria-label="Name">
<button onclick="document.getElementById('top').insertAdjacentHTML('beforeend',
  '<button>Inserted</button>')">Insert above</button>
<button onclick="document.getElementById('more').hidden = false">Show more</button>
<a href="/diff-second.html">Next page</a>
<button id="more" hidden>More</button>
"""

SECOND = "<!doctype html><title>Second</title><button>Second button</button>"


@pytest.fixture
def pages(server: PageServer) -> PageServer:
    server.set_page("/diff-form.html", PAGE)
    server.set_page("/diff-second.html", SECOND)
    return server


@pytest.fixture
async def stable(anyio_backend: str) -> AsyncIterator[Browser]:
    async with kobrowser.launch(timeout=60, ids="stable") as b:
        yield b


def whole(reply: str) -> bool:
    return bool(re.search(r"^Page: \"", reply, re.M)) and "Changes on the page" not in reply


async def test_depth_first_replies_carry_the_change_when_ids_hold(
    browser: Browser, pages: PageServer
) -> None:
    async with Client(build_server(browser, snapshot="diff")) as client:
        page = await call(client, "open", url=pages.url("/diff-form.html"))
        assert whole(page)  # the first reply: the whole snapshot
        name = find_id(page, r'^textbox "Name"')
        reply = await call(client, "fill", id=name, text="Ana")
        assert "Changes on the page" in reply and "Page:" not in reply
        assert re.search(rf'^~ {name}: textbox "Name" value="Ana"', reply, re.M)
        more = find_id(page, r'^button "Show more"')
        reply = await call(client, "click", id=more)
        # "More" comes after every line shown: no id moved, a diff.
        assert re.search(r"^\+ \d+: button \"More\"", reply, re.M) and "Page:" not in reply, reply
        reply = await call(client, "hover", id=name)
        assert "No change on the page" in reply
        # A line inserted above renumbers what the model saw: the whole snapshot.
        reply = await call(client, "click", id=find_id(page, r'^button "Insert above"'))
        assert whole(reply) and 'button "Inserted"' in reply
        # Another snapshot taken meanwhile (find): the whole snapshot next.
        await call(client, "find", role="button")
        reply = await call(client, "hover", id=name)
        assert whole(reply)
        # After a navigation: the whole snapshot.
        clicked = await call(client, "click", id=find_id(reply, r'^link "Next page"'))
        waited = await call(client, "wait_for", text="Second button")
        shown = clicked if "Second button" in clicked else waited
        assert whole(shown) and 'Page: "Second"' in shown
        reply = await call(client, "hover", id=find_id(await call(client, "snapshot"), "Second"))
        assert "No change on the page" in reply  # the snapshot tool's reply was whole
        reply = await call(client, "open", url=pages.url("/diff-form.html"))
        assert whole(reply)


async def test_stable_ids_carry_insertions_as_a_change(stable: Browser, pages: PageServer) -> None:
    async with Client(build_server(stable, snapshot="diff")) as client:
        page = await call(client, "open", url=pages.url("/diff-form.html"))
        insert = find_id(page, r'^button "Insert above"')
        name = find_id(page, r'^textbox "Name"')
        reply = await call(client, "click", id=insert)
        assert "Changes on the page" in reply
        changes = [line for line in reply.splitlines() if line[:2] in ("+ ", "- ", "~ ")]
        assert len(changes) == 2 and re.match(r'\+ \d+: button "Inserted"', changes[0])
        assert changes[1].startswith(f'~ {insert}: button "Insert above" focused')
        # The ids shown before still act on their elements.
        reply = await call(client, "fill", id=name, text="Bo")
        assert re.search(rf'^~ {name}: textbox "Name" value="Bo"', reply, re.M)
    for tab in stable.tabs:
        await tab.close()


REPLACED = (
    """<!doctype html><title>Replaced</title>
<ul id="list">"""
    + "".join(f"<li><button>Old item {i}</button></li>" for i in range(6))
    + """</ul>
<button onclick="document.getElementById('list').innerHTML =
  [0, 1, 2, 3, 4, 5].map(i => '<li><button>New item ' + i + '</button></li>').join('')">Replace
</button>
"""
)


async def test_a_change_longer_than_the_page_comes_whole(
    stable: Browser, server: PageServer
) -> None:
    async with Client(build_server(stable, snapshot="diff")) as client:
        page = await call(client, "open", url=server.set_page("/diff-replaced.html", REPLACED))
        # Every item removed and added: more to read than the page itself.
        reply = await call(client, "click", id=find_id(page, r'^button "Replace"'))
        assert whole(reply) and 'button "New item 5"' in reply and "Old item" not in reply
        # A small change next is a diff again.
        reply = await call(client, "hover", id=find_id(reply, r'^button "New item 0"'))
        assert "Page:" not in reply
    for tab in stable.tabs:
        await tab.close()


async def test_the_instructions_say_which_rules_hold(stable: Browser, browser: Browser) -> None:
    from kobrowser.mcp import INSTRUCTIONS

    async with Client(build_server(stable, snapshot="diff")) as client:
        told = client.instructions or ""
        assert told.startswith(INSTRUCTIONS)
        assert "keeps its id" in told and "only what changed" in told
    async with Client(build_server(browser, snapshot="diff")) as client:
        told = client.instructions or ""
        assert "keeps its id" not in told and "only what changed" in told
