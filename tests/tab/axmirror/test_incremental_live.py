"""Incremental mirrored snapshots mixed with snapshots of other options (real Chromium).

Between two mirrored snapshots the agent may take one with a selector, no
clickable map, a filter, another text limit, or a fresh full fetch; the memo
and the numbering cache must follow (verify mode compares every incremental
build with a full one) and the next default snapshot equal a fresh one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Browser

from ._clickpage import CLICK_MUTATE_JS, click_page
from .test_tab import mirror_settings, wait_ready

pytestmark = pytest.mark.anyio

_OTHER: list[dict[str, Any]] = [
    {"selector": "#list"},
    {"clickable": False},
    {"interactive": True},
    {"compact": True, "depth": 4},
    {"text_limit": None},
    {"text_limit": 20},
    {"fresh": True},
]


async def test_other_options_between_mirrored_snapshots(
    browser: Browser, server: PageServer, open_tab: Any
) -> None:
    url = server.set_page("/mixed-tab.html", click_page(40))
    rng = random.Random(19)
    async with (
        mirror_settings(browser, min_nodes=0, check_every=0, max_update_share=1.0, verify=True),
        open_tab(url) as tab,
    ):
        await tab.evaluate(CLICK_MUTATE_JS)
        await tab.snapshot()
        mirror = await wait_ready(tab)
        for seed in range(1, 31):
            await tab.evaluate(f"window.__clickMutate({seed * 7919}, {1 + seed % 3}, false)")
            other = rng.choice(_OTHER)
            await tab.snapshot(**other)
            if rng.random() < 0.5:
                await tab.evaluate(f"window.__clickMutate({seed * 104729}, 1, false)")
            mirrored = await tab.snapshot()
            fresh = await tab.snapshot(fresh=True)
            assert mirrored.text == fresh.text, f"round {seed} after {other}"
            assert [e.name for e in mirrored.id_map.values()] == [
                e.name for e in fresh.id_map.values()
            ]
        assert mirror.stats["served"] >= 30
        assert tab._snapshotter.incremental.stats["incremental"] >= 10  # type: ignore[attr-defined]
