"""Load: 32 tabs in 4 contexts over one browser, all looping open -> snapshot ->
fill -> click for 20 rounds at once. Every tab must see its own page and its
own result every round, and nothing may be left pending afterwards."""

from __future__ import annotations

import html

import anyio
import pytest
from _server import PageServer
from aiohttp import web

import kobrowser
from kobrowser import Tab

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(900),
    pytest.mark.slow,  # 32 tabs x 20 rounds: minutes; scripts/test.sh --fast skips it
]

CONTEXTS = 4
TABS_PER_CONTEXT = 8
ROUNDS = 20

_PAGE = """<!doctype html><title>{token}</title>
<h1>Page {token}</h1>
<label>Name <input id=name></label>
<button onclick="document.getElementById('out').textContent =
  'Got ' + document.getElementById('name').value + ' on {token}'">Submit</button>
<p id=out></p>
"""


async def _form(request: web.Request) -> web.Response:
    token = html.escape(f"{request.query['c']}-{request.query['t']}-{request.query['r']}")
    return web.Response(
        text=_PAGE.format(token=token),
        content_type="text/html",
        headers={"Cache-Control": "no-store"},
    )


async def _loop(tab: Tab, server: PageServer, context: int, index: int, done: list[str]) -> None:
    for round_ in range(ROUNDS):
        token = f"{context}-{index}-{round_}"
        response = await tab.open(server.url(f"/load-form?c={context}&t={index}&r={round_}"))
        assert response is not None and response.status == 200
        snap = await tab.snapshot()
        assert f"Page {token}" in snap.text, snap.text
        ids = {(e.role, e.name): e.id for e in snap.id_map.values()}
        value = f"value {token}"
        await tab.fill(ids[("textbox", "Name")], value)
        await tab.click(ids[("button", "Submit")])
        out = await tab.evaluate("document.getElementById('out').textContent")
        assert out == f"Got {value} on {token}"
        assert tab.url.endswith(f"r={round_}")
        done.append(token)


@pytest.mark.browser
async def test_many_tabs_in_many_contexts_at_once(server: PageServer) -> None:
    server.set_route("/load-form", _form)
    before = len(anyio.get_running_tasks())
    async with kobrowser.launch(timeout=120) as browser:
        contexts = [await browser.new_context() for _ in range(CONTEXTS)]
        tabs = [
            (c, i, await ctx.new_tab())
            for c, ctx in enumerate(contexts)
            for i in range(TABS_PER_CONTEXT)
        ]
        inside = len(anyio.get_running_tasks())
        done: list[str] = []
        async with anyio.create_task_group() as tg:
            for c, i, tab in tabs:
                tg.start_soon(_loop, tab, server, c, i, done)
        assert len(done) == CONTEXTS * TABS_PER_CONTEXT * ROUNDS
        assert len(set(done)) == len(done)

        assert browser.connection.pending_count == 0
        assert len(anyio.get_running_tasks()) <= inside  # no background work left behind
        for ctx in contexts:
            await ctx.close()
        assert browser.tabs == []
        assert browser.connection.pending_count == 0
    assert len(anyio.get_running_tasks()) == before
