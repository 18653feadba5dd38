"""Stable ids on mirrored, incrementally built snapshots (real Chromium).

A mirrored snapshot and a fresh full fetch of the same page number the same
DOM nodes alike, so their texts are equal; elements the mutations leave keep
their ids from round to round.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from _server import PageServer

import kobrowser
from kobrowser import Browser

from ._clickpage import CLICK_MUTATE_JS, click_page
from .test_tab import mirror_settings, wait_ready

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def stable(anyio_backend: str) -> AsyncIterator[Browser]:
    async with kobrowser.launch(timeout=60, ids="stable") as b:
        yield b


async def test_mirrored_stable_ids_match_a_fresh_fetch_and_persist(
    stable: Browser, server: PageServer
) -> None:
    url = server.set_page("/stable-mirror.html", click_page(40))
    async with mirror_settings(
        stable, min_nodes=0, check_every=0, max_update_share=1.0, verify=True
    ):
        tab = await stable.new_tab(url)
        try:
            await tab.evaluate(CLICK_MUTATE_JS)
            first = await tab.snapshot()
            await wait_ready(tab)
            seen: dict[tuple[str, int | None], int] = {
                (e.frame_id, e.backend_node_id): e.id for e in first.id_map.values()
            }
            issued = max(first.id_map)
            kept = 0
            for seed in range(1, 11):
                await tab.evaluate(f"window.__clickMutate({seed * 7919}, {1 + seed % 3}, false)")
                mirrored = await tab.snapshot()
                fresh = await tab.snapshot(fresh=True)
                assert mirrored.text == fresh.text, f"round {seed}"
                for element in mirrored.id_map.values():
                    key = (element.frame_id, element.backend_node_id)
                    if key in seen:
                        assert element.id == seen[key], f"round {seed}: {element}"
                        kept += 1
                    else:
                        assert element.id > issued, f"round {seed}: a reused id {element}"
                        seen[key] = element.id
                issued = max(issued, *mirrored.id_map)
            assert kept > 0
            assert tab._snapshotter.incremental.stats["incremental"] >= 5  # type: ignore[attr-defined]
        finally:
            await tab.close()
