"""A big top document built while its clickable map is captured (kobrowser/_tab/_ahead.py).

In a real Chromium: a snapshot built ahead must equal one built after the
map arrived, in every mode, and act on the same elements; a page whose map
changes the tree must be built again (and the test checks which path ran,
so that it cannot pass by never building ahead).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from _server import PageServer

import kobrowser
from kobrowser import AXMirrorSettings, Snapshot, Tab

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]

ROWS = "".join(
    f"<tr><td>Row {i}</td><td>{i * 7}</td><td>item {i} of the order</td><td>note {i}</td></tr>"
    for i in range(1300)
)
PLAIN = (
    "<title>Orders</title><h1>Orders</h1><a href='#top'>Top</a>"
    f"<table>{ROWS}</table><button onclick='document.title=\"placed\"'>Place order</button>"
)
CLICKY = PLAIN + "<div onclick='1' id=go>Go there</div>"


async def both(tab: Tab, **kwargs: Any) -> tuple[Snapshot, Snapshot]:
    """A fresh snapshot built ahead, then one built after the map."""
    snapshotter = tab._snapshotter
    snapshotter.build_ahead = True
    ahead = await tab.snapshot(fresh=True, **kwargs)
    snapshotter.build_ahead = False
    try:
        after = await tab.snapshot(fresh=True, **kwargs)
    finally:
        snapshotter.build_ahead = True
    return ahead, after


def shape(snapshot: Snapshot) -> list[tuple[Any, ...]]:
    return [
        (number, e.role, e.name, e.states, e.backend_node_id, e.frame_id)
        for number, e in snapshot.id_map.items()
    ]


@pytest.mark.parametrize(
    "kwargs", [{}, {"interactive": True}, {"compact": True, "text_limit": 20}, {"depth": 3}]
)
async def test_a_big_page_built_ahead_equals_one_built_after(
    open_tab: OpenTab, server: PageServer, kwargs: dict[str, Any]
) -> None:
    url = server.set_page("/ahead.html", PLAIN)
    async with open_tab(url) as tab:
        stats = tab._snapshotter.stats
        before = dict(stats)
        ahead, after = await both(tab, **kwargs)
        assert stats["ahead"] == before["ahead"] + 1
        assert stats["numbered ahead"] == before["numbered ahead"] + 1
        assert stats["ahead refused"] == before["ahead refused"]
        assert ahead.text == after.text
        assert shape(ahead) == shape(after)
        assert "Place order" in ahead.text
        [button] = [n for n, e in ahead.id_map.items() if e.name == "Place order"]
        await tab.click(button)
        await tab.wait_for_function("document.title === 'placed'", timeout=10)


async def test_a_map_that_changes_the_tree_builds_it_again(
    open_tab: OpenTab, server: PageServer
) -> None:
    url = server.set_page("/ahead-clicky.html", CLICKY)
    async with open_tab(url) as tab:
        stats = tab._snapshotter.stats
        before = dict(stats)
        ahead, after = await both(tab)
        assert stats["ahead refused"] == before["ahead refused"] + 1
        assert stats["ahead"] == before["ahead"]
        assert ahead.text == after.text
        assert 'generic "Go there" clickable' in ahead.text


async def test_a_small_page_or_no_clickable_map_builds_after(
    open_tab: OpenTab, server: PageServer
) -> None:
    url = server.set_page("/ahead-small.html", "<h1>Hi</h1><div onclick='1'>Go</div>")
    async with open_tab(url) as tab:
        stats = tab._snapshotter.stats
        before = dict(stats)
        await tab.snapshot(fresh=True)
        big = server.set_page("/ahead.html", PLAIN)
        await tab.open(big)
        await tab.snapshot(fresh=True, clickable=False)
        assert stats == before


async def test_verify_mode_checks_a_tree_built_ahead(
    browser: kobrowser.Browser,
    open_tab: OpenTab,
    server: PageServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kobrowser._tab import _incremental, _snapshotter

    compared: list[int] = []
    compare = _incremental.compare_numbered

    def counting(*args: Any) -> None:
        compared.append(1)
        compare(*args)

    monkeypatch.setattr(_snapshotter, "compare_numbered", counting)
    url = server.set_page("/ahead.html", PLAIN)
    saved = browser.ax_mirror
    browser.ax_mirror = AXMirrorSettings(verify=True)
    try:
        async with open_tab(url) as tab:
            await tab.snapshot(fresh=True)
            assert tab._snapshotter.stats["ahead"] == 1
            assert compared == [1]
    finally:
        browser.ax_mirror = saved


async def test_stable_ids_build_ahead_and_number_after(server: PageServer) -> None:
    url = server.set_page("/ahead.html", PLAIN)
    async with kobrowser.launch(timeout=60, ids="stable") as browser:
        tab = await browser.new_tab(url)
        stats = tab._snapshotter.stats
        ahead, after = await both(tab)
        assert stats["ahead"] == 1
        assert stats["numbered ahead"] == 0
        assert ahead.text == after.text


async def test_what_was_built_ahead_is_promoted_unwalked(
    open_tab: OpenTab, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The map is due as the build ends: no collection of the youngest
    # generations may then walk the tens of thousands of objects just built,
    # so they go straight to the oldest one.
    from kobrowser._tab import _ahead

    young_after: list[int] = []
    run = _ahead.TopAhead.run

    async def spying(self: _ahead.TopAhead) -> None:
        await run(self)
        if self.numbered is not None:
            young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}
            elements = list(self.numbered[1].values())
            young_after.append(sum(id(e) in young for e in elements))
            assert len(elements) > 1000

    monkeypatch.setattr(_ahead.TopAhead, "run", spying)
    url = server.set_page("/ahead.html", PLAIN)
    async with open_tab(url) as tab:
        await tab.snapshot(fresh=True)
        assert tab._snapshotter.stats["numbered ahead"] == 1
    assert young_after == [0]
