"""The snapshot reuses each session's frame tree while no frame-tree event came.

A session's frame tree (its frames, their documents and URLs) is asked for
again only after a Page event that can change it; these tests check that it
is reused when nothing happened, and that every kind of change is seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser.cdp import BatchCall, CDPSession, Connection

from ._browser_helpers import assert_consistent, page
from .conftest import OpenTab

pytestmark = pytest.mark.anyio


@contextmanager
def recorded_batches(
    monkeypatch: pytest.MonkeyPatch, after: Callable[[int], None] | None = None
) -> Iterator[list[list[tuple[Any, str]]]]:
    """Record ``(session, method)`` of every call of every batch.

    ``after(n)`` runs once the n-th batch (from 1) is answered, before the
    snapshot sees the answers.
    """
    original = Connection.call_many
    batches: list[list[tuple[Any, str]]] = []

    async def call_many(
        self: Connection, requests: Sequence[BatchCall], *, timeout: float | None = None
    ) -> list[Any]:
        batches.append([(r[0], r[1]) for r in requests])
        results = await original(self, requests, timeout=timeout)
        if after is not None:
            after(len(batches))
        return results

    with monkeypatch.context() as patch:
        patch.setattr(Connection, "call_many", call_many)
        yield batches


def tree_asks(batches: list[list[tuple[Any, str]]]) -> list[Any]:
    """The sessions whose frame tree was asked for, over all batches."""
    return [
        session for batch in batches for session, method in batch if method == "Page.getFrameTree"
    ]


def _nested_cross_page(server: PageServer) -> str:
    """Top (127.0.0.1) > cross-origin frame (localhost) > its same-process child."""
    server.set_page("/leaf-a.html", page("<button>Leaf A</button>"))
    server.set_page("/leaf-b.html", page("<button>Leaf B</button>"))
    server.set_page(
        "/middle.html",
        page('<button>Middle</button><iframe id="leaf" title="Leaf" src="/leaf-a.html"></iframe>'),
    )
    body = (
        f'<button>Top</button><iframe title="Cross" src="{server.cross_url("/middle.html")}">'
        "</iframe>"
    )
    return server.set_page("/top.html", page(body, title="Top"))


async def _current_loader(session: CDPSession, frame_id: str) -> str:
    tree = (await session.send("Page.getFrameTree"))["frameTree"]
    stack = [tree]
    while stack:
        node = stack.pop()
        if node["frame"]["id"] == frame_id:
            loader: str = node["frame"]["loaderId"]
            return loader
        stack.extend(node.get("childFrames", []))
    raise AssertionError(f"frame {frame_id} not in the frame tree")


async def _run(session: CDPSession, script: str) -> None:
    """Run ``script`` in the document of ``session``, awaiting a promise it gives."""
    await session.send("Runtime.evaluate", {"expression": script, "awaitPromise": True})


def _cross_session(tab: Tab) -> CDPSession:
    [cross] = tab._frames.frames()
    return cross.session


async def test_frame_trees_are_reused_while_nothing_changes(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _nested_cross_page(server)
    async with open_tab(url) as tab:
        first = await tab.snapshot()
        assert_consistent(first)
        with recorded_batches(monkeypatch) as batches:
            again = await tab.snapshot()
        assert again.text == first.text
        assert tree_asks(batches) == []
        assert len(batches) == 1
        # The documents (and so the loader ids actions check) are the current ones.
        cross = _cross_session(tab)
        leaf = again.id_map[5]
        assert leaf.name == "Leaf A"
        assert leaf.loader_id == await _current_loader(cross, leaf.frame_id)


async def test_navigation_inside_an_out_of_process_frame_is_seen(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _nested_cross_page(server)
    async with open_tab(url) as tab:
        before = await tab.snapshot()
        old_leaf = before.id_map[5]
        cross = _cross_session(tab)
        # Navigate the same-process child of the cross-origin frame.
        await _run(
            cross,
            "new Promise(r => { const f = document.getElementById('leaf');"
            " f.onload = () => r(true); f.src = '/leaf-b.html'; })",
        )
        with recorded_batches(monkeypatch) as batches:
            after = await tab.snapshot()
        assert_consistent(after)
        assert cross in tree_asks(batches)
        leaf = after.id_map[5]
        assert leaf.name == "Leaf B"
        assert leaf.frame_id == old_leaf.frame_id
        assert leaf.loader_id != old_leaf.loader_id
        assert leaf.loader_id == await _current_loader(cross, leaf.frame_id)


async def test_frames_added_and_removed_inside_an_out_of_process_frame(
    server: PageServer, open_tab: OpenTab
) -> None:
    url = _nested_cross_page(server)
    async with open_tab(url) as tab:
        await tab.snapshot()
        cross = _cross_session(tab)
        await _run(
            cross,
            "new Promise(r => { const f = document.createElement('iframe');"
            " f.title = 'Added'; f.onload = () => r(true); f.src = '/leaf-b.html';"
            " document.body.append(f); })",
        )
        snap = await tab.snapshot()
        assert_consistent(snap)
        names = [(e.role, e.name) for e in snap.id_map.values()]
        assert ("iframe", "Added") in names
        assert names[-1] == ("button", "Leaf B")
        await _run(cross, "document.getElementById('leaf').remove()")
        snap = await tab.snapshot()
        assert_consistent(snap)
        names = [(e.role, e.name) for e in snap.id_map.values()]
        assert ("button", "Leaf A") not in names
        assert ("iframe", "Leaf") not in names


async def test_url_change_within_the_top_document_is_seen(
    server: PageServer, open_tab: OpenTab
) -> None:
    url = _nested_cross_page(server)
    async with open_tab(url) as tab:
        assert (await tab.snapshot()).url == url
        await tab.evaluate("history.pushState({}, '', '/moved.html')")
        assert (await tab.snapshot()).url == server.url("/moved.html")


async def test_a_change_while_the_ax_trees_are_read_fetches_again(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _nested_cross_page(server)
    async with open_tab(url) as tab:
        first = await tab.snapshot()
        cross = _cross_session(tab)

        def changed(batch: int) -> None:
            if batch == 1:
                # As if a frame-tree event of the cross-origin frame's session
                # arrived before its AX tree did.
                tab._frames._changes[cross] = tab._frames._changes.get(cross, 0) + 1

        with recorded_batches(monkeypatch, changed) as batches:
            snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == first.text
        assert len(batches) == 2
        assert tree_asks(batches[:1]) == []  # the first batch reused every frame tree
        assert set(tree_asks(batches[1:])) == {tab.cdp, cross}  # the retry asked for all
