"""Snapshots back to back (a polling agent, a monitoring loop): the mirror takes over.

The crawl that builds a mirror used to get a batch or two between snapshots
that kept coming, so it never ended and every snapshot fetched in full. A
snapshot that comes while it runs now waits for it (``join_crawl``) and is
served by the mirror; from then on a page that did not change costs a
barrier, not a fetch. Counted in CDP calls and the mirror's stats, never in
time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Browser, Tab

from ._mutations import MUTATE_JS, mutation_page
from .test_tab import mirror_of, mirror_settings

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], Any]


@contextmanager
def counting_calls(tab: Tab) -> Iterator[Counter[str]]:
    """Counts the CDP calls the tab's connection sends, by method, while open."""
    connection: Any = tab.cdp.connection
    encode = connection._encode_call
    sent: Counter[str] = Counter()

    def counted(call_id: int, method: str, params: Any, session_id: Any) -> bytes:
        sent[method] += 1
        result: bytes = encode(call_id, method, params, session_id)
        return result

    connection._encode_call = counted
    try:
        yield sent
    finally:
        connection._encode_call = encode


def ax_calls(sent: Counter[str]) -> dict[str, int]:
    return {method: n for method, n in sent.items() if method.startswith("Accessibility.")}


async def test_back_to_back_snapshots_are_served_by_the_mirror(
    browser: Browser, server: PageServer, open_tab: OpenTab
) -> None:
    url = server.set_page("/back-to-back.html", mutation_page(60))
    async with (
        mirror_settings(browser, min_nodes=0, check_every=0),
        open_tab(url) as tab,
    ):
        served: list[int] = []
        per_call: list[dict[str, int]] = []
        with counting_calls(tab) as sent:
            for _ in range(6):
                sent.clear()
                last = await tab.snapshot()
                mirror = mirror_of(tab)
                assert mirror is not None
                served.append(mirror.stats["served"])
                per_call.append(ax_calls(sent))
        # The first fetches in full and starts the crawl; the second, right
        # after it, waits for the crawl and is the mirror's; so are the rest.
        assert served == [0, 1, 2, 3, 4, 5], (served, mirror.stats)
        assert mirror.stats["joined"] == 1 and mirror.stats["fallbacks"] == 0, mirror.stats
        assert per_call[0]["Accessibility.getFullAXTree"] == 1
        assert "Accessibility.getFullAXTree" not in per_call[1]
        # The crawl it waited for: the parents the first snapshot's fetch
        # listed, each asked once (nothing changed, nothing more to find).
        assert per_call[1]["Accessibility.getChildAXNodes"] == mirror._planned > 100
        # Nothing changed: one barrier each, no fetch, no child read.
        for calls in per_call[2:]:
            assert calls == {"Accessibility.getRootAXNode": 1}, per_call
        assert last.text == (await tab.snapshot(fresh=True)).text


async def test_changes_between_back_to_back_snapshots_are_all_seen(
    browser: Browser, server: PageServer, open_tab: OpenTab
) -> None:
    """Random changes with no pause, from the first snapshot on: the one that
    waits for the crawl and every one after it equal a full fetch (verify
    mode) and a ``fresh=True`` snapshot."""
    url = server.set_page("/back-to-back-changes.html", mutation_page(40))
    async with (
        mirror_settings(browser, min_nodes=0, check_every=0, max_update_share=1.0, verify=True),
        open_tab(url) as tab,
    ):
        await tab.evaluate(MUTATE_JS)
        await tab.snapshot()
        rounds = 15
        for seed in range(1, rounds + 1):
            await tab.evaluate(f"window.__mutate({seed * 7919}, 4)")
            mirrored = await tab.snapshot()
            mirror = mirror_of(tab)
            assert mirror is not None
            assert mirror.stats["served"] == seed, f"round {seed}: {mirror.stats}"
            assert mirrored.text == (await tab.snapshot(fresh=True)).text, f"round {seed}"
        assert mirror.stats["joined"] == 1 and mirror.stats["checks"] == rounds, mirror.stats


async def test_a_smaller_page_snapshotted_again_and_again_gets_a_mirror(
    browser: Browser, server: PageServer, open_tab: OpenTab
) -> None:
    """Below ``min_nodes``, the third full fetch in a row of one document
    starts the crawl; the next snapshot is the mirror's, and so are the rest
    (one barrier each while nothing changes)."""
    url = server.set_page("/repeated.html", mutation_page(100))
    async with (
        mirror_settings(browser, min_nodes=100_000, repeat_min_nodes=1_000, check_every=0),
        open_tab(url) as tab,
    ):
        for _ in range(3):
            await tab.snapshot(fresh=True)  # one-off reads: never counted
        assert mirror_of(tab) is None
        await tab.snapshot()
        await tab.snapshot()
        assert mirror_of(tab) is None  # two reads in a row: not yet
        first = await tab.snapshot()
        mirror = mirror_of(tab)
        assert mirror is not None and mirror.stats["served"] == 0
        with counting_calls(tab) as sent:
            for served in range(1, 4):
                sent.clear()
                assert (await tab.snapshot()).text == first.text
                assert mirror.stats["served"] == served, mirror.stats
                if served > 1:
                    assert ax_calls(sent) == {"Accessibility.getRootAXNode": 1}
        assert mirror.stats["joined"] == 1
        # Another document starts the count again (its mirror is built anew).
        await tab.open(server.set_page("/repeated-2.html", mutation_page(90)))
        await tab.snapshot()
        await tab.snapshot()
        assert mirror.state == "idle" and mirror.stats["served"] == 3, mirror.stats
        await tab.snapshot()
        assert mirror.state in ("crawling", "ready") and mirror.stats["served"] == 3


async def test_a_page_below_repeat_min_nodes_never_gets_one(
    browser: Browser, server: PageServer, open_tab: OpenTab
) -> None:
    url = server.set_page("/tiny.html", mutation_page(5))
    async with (
        mirror_settings(browser, min_nodes=100_000, repeat_min_nodes=1_000),
        open_tab(url) as tab,
    ):
        for _ in range(5):
            await tab.snapshot()
        assert mirror_of(tab) is None
