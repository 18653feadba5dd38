"""Many snapshots at once over one browser connection (asyncio and trio).

Each tab has its own page (own text, own same-origin and out-of-process
frames), so a response routed to the wrong tab or frame would show up as a
text difference.
"""

from __future__ import annotations

import textwrap

import anyio
import pytest
from _server import PageServer

from kobrowser import Browser, Tab

from ._browser_helpers import assert_consistent, page

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

TABS = 16


def _pages(server: PageServer) -> list[str]:
    urls = []
    for i in range(TABS):
        server.set_page(f"/c{i}-same.html", page(f"<h2>Same {i}</h2><button>Same {i}</button>"))
        server.set_page(
            f"/c{i}-cross.html",
            page(
                f"<input aria-label='Cross field {i}' value='v{i}'>"
                f"<iframe title='Deep {i}' src='{server.url(f'/c{i}-deep.html')}'></iframe>"
            ),
        )
        server.set_page(f"/c{i}-deep.html", page(f"<a href='#d'>Deep link {i}</a>"))
        rows = "".join(f"<li><a href='#r{j}'>Tab {i} row {j}</a></li>" for j in range(i + 1))
        body = (
            f"<h1>Tab {i}</h1><ul>{rows}</ul>"
            f"<iframe title='Same {i}' src='/c{i}-same.html'></iframe>"
            f"<iframe title='Cross {i}' src='{server.cross_url(f'/c{i}-cross.html')}'></iframe>"
            f"<button>End {i}</button>"
        )
        urls.append(server.set_page(f"/c{i}.html", page(body, title=f"Tab {i}")))
    return urls


def _expected(i: int) -> str:
    rows = "".join(
        f'  {3 + 2 * j}: listitem\n    {4 + 2 * j}: link "Tab {i} row {j}"\n' for j in range(i + 1)
    )
    n = 3 + 2 * (i + 1)
    return (
        f'Page: "Tab {i}"\n\n'
        f'1: heading "Tab {i}"\n'
        "2: list\n"
        + rows
        + textwrap.dedent(
            f"""\
            {n}: iframe "Same {i}"
              {n + 1}: heading "Same {i}"
              {n + 2}: button "Same {i}"
            {n + 3}: iframe "Cross {i}"
              {n + 4}: textbox "Cross field {i}" value="v{i}"
              {n + 5}: iframe "Deep {i}"
                {n + 6}: link "Deep link {i}"
            {n + 7}: button "End {i}"
            """
        )
    )


async def _open_all(browser: Browser, urls: list[str]) -> list[Tab]:
    tabs: list[Tab | None] = [None] * len(urls)

    async def open_one(i: int) -> None:
        tabs[i] = await browser.new_tab(urls[i])

    async with anyio.create_task_group() as tg:
        for i in range(len(urls)):
            tg.start_soon(open_one, i)
    return [tab for tab in tabs if tab is not None]


@pytest.mark.slow  # load: 16 tabs at once; scripts/test.sh --fast skips it
async def test_sixteen_tabs_at_once_match_one_at_a_time(
    server: PageServer, browser: Browser
) -> None:
    urls = _pages(server)
    tabs = await _open_all(browser, urls)
    try:
        assert len(tabs) == TABS
        sequential = []
        for i, tab in enumerate(tabs):
            snap = await tab.snapshot()
            assert_consistent(snap)
            assert snap.text == _expected(i)
            sequential.append(snap.text)

        async def take(i: int, results: list[str | None]) -> None:
            snap = await tabs[i].snapshot()
            assert_consistent(snap)
            results[i] = snap.text

        for _round in range(3):
            results: list[str | None] = [None] * TABS

            async with anyio.create_task_group() as tg:
                for i in range(TABS):
                    tg.start_soon(take, i, results)
            assert results == sequential

        # Every element of a tab's snapshot belongs to that tab's sessions.
        for tab in tabs:
            snap = tab.last_snapshot
            assert snap is not None
            own = {id(tab.cdp)} | {id(f.session) for f in tab._frames.frames()}
            assert len(own) == 3  # page, cross frame, deep frame inside it
            assert all(id(e.session) in own for e in snap.id_map.values())
    finally:
        with anyio.CancelScope(shield=True):
            for tab in tabs:
                await tab.close()


async def test_concurrent_snapshots_of_one_tab_in_all_modes(
    server: PageServer, browser: Browser
) -> None:
    urls = _pages(server)
    tab = await browser.new_tab(urls[3])
    try:
        options: list[dict[str, object]] = [
            {},
            {"interactive": True},
            {"compact": True},
            {"depth": 2},
            {"selector": "ul"},
            {"selector": "iframe", "interactive": True},
        ]
        alone = []
        for opts in options:
            snap = await tab.snapshot(**opts)
            assert_consistent(snap)
            alone.append(snap.text)
        assert alone[0] == _expected(3)
        results: list[str | None] = [None] * (2 * len(options))

        async def take(k: int) -> None:
            snap = await tab.snapshot(**options[k % len(options)])
            assert_consistent(snap)
            results[k] = snap.text

        async with anyio.create_task_group() as tg:
            for k in range(len(results)):
                tg.start_soon(take, k)
        assert results == alone + alone
    finally:
        with anyio.CancelScope(shield=True):
            await tab.close()
