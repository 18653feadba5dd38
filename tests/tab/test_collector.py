"""A snapshot's CPU stretch runs with the cyclic collector paused, and restores it."""

from __future__ import annotations

import gc
from typing import Any

import pytest

import kobrowser._tab._snapshotter as snapshotter_module
from kobrowser import Browser

pytestmark = pytest.mark.anyio

ROWS = "".join(f"<li><a href='#r{i}'>Row {i}</a> <span>note {i}</span></li>" for i in range(400))


async def test_build_and_numbering_run_in_one_collector_pause(
    browser: Browser, open_tab: Any, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = server.set_page("/collector.html", f"<title>rows</title><ul>{ROWS}</ul>")
    seen: list[bool] = []
    number = snapshotter_module.number_snapshot

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return number(*args, **kwargs)

    monkeypatch.setattr(snapshotter_module, "number_snapshot", spy)
    assert gc.isenabled()
    async with open_tab(url) as tab:
        for fresh in (True, False):
            seen.clear()
            snapshot = await tab.snapshot(fresh=fresh)
            assert "Row 399" in snapshot.text
            # Numbering ran inside the pause (the build before it too), and
            # the collector is back on as soon as the snapshot is made.
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
