"""A snapshot's CPU stretch runs with the cyclic collector paused, and restores it."""

from __future__ import annotations

import gc
from typing import Any

import msgspec
import pytest

import kobrowser._tab._fetch as fetch_module
import kobrowser._tab._snapshotter as snapshotter_module
from kobrowser import Browser, KoBrowserError
from kobrowser._tab._fetch import FetchedFrames
from kobrowser.snapshot import FrameAX

pytestmark = pytest.mark.anyio

ROWS = "".join(f"<li><a href='#r{i}'>Row {i}</a> <span>note {i}</span></li>" for i in range(400))


async def test_build_and_numbering_run_in_one_collector_pause(
    browser: Browser, open_tab: Any, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = server.set_page("/collector.html", f"<title>rows</title><ul>{ROWS}</ul>")
    seen: list[bool] = []
    decoded: list[bool] = []
    number = getattr(snapshotter_module, "number_snapshot")  # noqa: B009
    decode = getattr(fetch_module, "decode_snapshot_nodes")  # noqa: B009

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return number(*args, **kwargs)

    def decode_spy(raw: Any) -> Any:
        decoded.append(gc.isenabled())
        return decode(raw)

    monkeypatch.setattr(snapshotter_module, "number_snapshot", spy)
    monkeypatch.setattr(fetch_module, "decode_snapshot_nodes", decode_spy)
    assert gc.isenabled()
    async with open_tab(url) as tab:
        for fresh in (True, False):
            seen.clear()
            decoded.clear()
            snapshot = await tab.snapshot(fresh=fresh)
            assert "Row 399" in snapshot.text
            # The top document was decoded and numbered inside the pause (the
            # build between them too), and the collector is back on as soon
            # as the snapshot is made.
            assert decoded == [False]
            assert seen == [False]
            assert gc.isenabled()


async def test_the_collector_is_restored_when_the_build_fails(
    browser: Browser, open_tab: Any, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = server.set_page("/collector-fail.html", "<title>t</title><button>Go</button>")

    def broken(*args: Any, **kwargs: Any) -> Any:
        assert not gc.isenabled()
        raise RuntimeError("numbering broke")

    async with open_tab(url) as tab:
        first = await tab.snapshot()
        monkeypatch.setattr(snapshotter_module, "number_snapshot", broken)
        with pytest.raises(RuntimeError, match="numbering broke"):
            await tab.snapshot(fresh=True)
        assert gc.isenabled()
        assert tab.last_snapshot is first


def test_a_top_answer_that_is_no_ax_tree_fails_as_a_refused_answer() -> None:
    fetched = FetchedFrames(
        root=FrameAX(frame_id="F", nodes=[]),
        documents={},
        url="",
        root_raw=msgspec.Raw(b'{"nodes": 3}'),
    )
    with pytest.raises(KoBrowserError, match=r"^Accessibility.getFullAXTree: unexpected answer"):
        fetched.decode_root()
    fetched.decode_root()  # once only: the answer is let go either way
    assert fetched.root.nodes == [] and fetched.root_raw is None


def test_the_top_answer_is_decoded_once() -> None:
    raw = b'{"nodes": [{"nodeId": "1", "ignored": false, "childIds": []}]}'
    fetched = FetchedFrames(
        root=FrameAX(frame_id="F", nodes=[]), documents={}, url="", root_raw=msgspec.Raw(raw)
    )
    fetched.decode_root()
    nodes = fetched.root.nodes
    assert [node.nodeId for node in nodes] == ["1"]
    fetched.decode_root()
    assert fetched.root.nodes is nodes
