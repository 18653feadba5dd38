"""The mirror against real Chromium: equal to a fresh full tree after random changes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import anyio
import msgspec
import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser._tab._axmirror import AXMirrorSettings, DocumentMirror, MirrorAnswer, diff_nodes
from kobrowser._tab._axmirror import _mirror as mirror_module
from kobrowser._tab._axmirror._follow import crawl_parents
from kobrowser._tab._clickable import clickable_nodes
from kobrowser._tab._incremental import IncrementalBuilder
from kobrowser.snapshot import AXNode, FrameAX, build_tree, decode_ax_tree, format_snapshot

from ._mutations import MUTATE_JS, mutation_page
from .test_back_to_back import counting_calls

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], Any]


@asynccontextmanager
async def mirrored(
    tab: Tab, *, read: list[AXNode] | None = None, hurry: bool = False, **settings: Any
) -> AsyncIterator[DocumentMirror]:
    """A built mirror of the tab's document (its crawl ran in a task group).

    ``read``: the full fetch the crawl is seeded with; ``hurry``: the crawl
    runs as when a snapshot waits for it.
    """
    options: dict[str, Any] = {"min_nodes": 0, "check_every": 0, "max_update_share": 1.0}
    options.update(settings)
    async with anyio.create_task_group() as tg:

        def spawn(func: Callable[[], Coroutine[Any, Any, None]]) -> None:
            tg.start_soon(func)

        mirror = DocumentMirror(tab.cdp, AXMirrorSettings(**options), spawn)
        mirror.start_crawl(30, read)
        mirror._hurry = hurry
        await wait_ready(mirror)
        try:
            yield mirror
        finally:
            mirror.close()


async def wait_ready(mirror: DocumentMirror) -> None:
    with anyio.fail_after(60):
        assert await mirror.wait_ready(), mirror.state
    assert mirror.state == "ready"


async def full_nodes(tab: Tab) -> list[AXNode]:
    raw = await tab.cdp.send_raw("Accessibility.getFullAXTree")
    return decode_ax_tree(raw).nodes


async def mutate(tab: Tab, seed: int, count: int) -> list[str]:
    done = await tab.evaluate(f"window.__mutate({seed}, {count})")
    assert isinstance(done, list) and len(done) == count
    return done


class IncrementalCheck:
    """Builds each answer incrementally (as ``Tab.snapshot`` does), compares with a full build."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.builder = IncrementalBuilder()

    async def check(self, answer: MirrorAnswer) -> None:
        clickable = await clickable_nodes(self.tab.cdp, timeout=30)
        top = FrameAX("top", answer.nodes, clickable=clickable)
        tree, _ = self.builder.build(top, answer, scope=None)
        full = build_tree(FrameAX("top", answer.nodes, clickable=clickable))
        assert format_snapshot(tree, title=None) == format_snapshot(full, title=None)


async def run_changes(tab: Tab, mirror: DocumentMirror, rounds: int, per_round: int) -> set[str]:
    await tab.evaluate(MUTATE_JS)
    kinds: set[str] = set()
    incremental = IncrementalCheck(tab)
    for seed in range(1, rounds + 1):
        kinds.update(await mutate(tab, seed * 7919, per_round))
        answer = await mirror.answer(timeout=30)
        assert answer is not None, f"round {seed}: the mirror gave up"
        assert diff_nodes(answer.nodes, await full_nodes(tab)) == [], f"round {seed}"
        await incremental.check(answer)
    # Built from the previous build in (almost) every round, never in full.
    stats = incremental.builder.stats
    assert stats["incremental"] >= rounds - 2 and stats["reused"] > stats["walked"], stats
    return kinds


async def test_the_mirror_equals_a_full_tree_after_random_changes(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(server.set_page("/mirror.html", mutation_page())) as tab:
        first = await full_nodes(tab)
        async with mirrored(tab) as mirror:
            start = await mirror.nodes(timeout=30)
            assert start is not None and diff_nodes(start, first) == []
            kinds = await run_changes(tab, mirror, rounds=40, per_round=5)
            assert mirror.stats["served"] == 41
    # The 200 changes covered every kind the mutator knows.
    assert len(kinds) == 21


@pytest.mark.parametrize("hurry", [False, True], ids=["batches", "pipelined"])
async def test_a_seed_read_before_changes_still_gives_an_exact_mirror(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch, hurry: bool
) -> None:
    """The crawl asks for the children the full fetch listed (no round trip
    to find them); changes made after that fetch, before and while it
    crawls, still end in an exact mirror, batch by batch or two in flight."""
    monkeypatch.setattr(mirror_module, "HURRY_BATCH", 16)  # several batches in flight
    async with open_tab(server.set_page("/seeded.html", mutation_page())) as tab:
        await tab.evaluate(MUTATE_JS)
        seed = await full_nodes(tab)
        await mutate(tab, 4242, 20)  # the seed is stale now
        with counting_calls(tab) as sent:
            async with mirrored(tab, read=seed, hurry=hurry) as mirror:
                crawled = sent["Accessibility.getChildAXNodes"]
                assert mirror._asked == crawled >= len(crawl_parents(seed)) > 100
                nodes = await mirror.nodes(timeout=30)
                assert nodes is not None and diff_nodes(nodes, await full_nodes(tab)) == []
                await run_changes(tab, mirror, rounds=10, per_round=5)


async def test_changes_right_after_each_other_are_all_seen(
    server: PageServer, open_tab: OpenTab
) -> None:
    """No event is held back: a change made just after a snapshot shows at once."""
    async with (
        open_tab(server.set_page("/rapid.html", mutation_page(10))) as tab,
        mirrored(tab) as mirror,
    ):
        await tab.evaluate(MUTATE_JS)
        for i in range(30):
            await tab.evaluate(f"document.querySelector('h1 b').textContent = 'rapid{i}'")
            nodes = await mirror.nodes(timeout=30)
            assert nodes is not None
            names = {n.name.value for n in nodes if n.name is not None}
            assert f"rapid{i}" in names and f"rapid{i - 1}" not in names
            assert diff_nodes(nodes, await full_nodes(tab)) == []


@pytest.mark.slow
async def test_soak_of_a_thousand_changes(server: PageServer, open_tab: OpenTab) -> None:
    async with (
        open_tab(server.set_page("/soak.html", mutation_page(80))) as tab,
        mirrored(tab) as mirror,
    ):
        await run_changes(tab, mirror, rounds=200, per_round=5)


async def test_navigation_drops_the_mirror_and_it_is_built_again(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with (
        open_tab(server.set_page("/nav1.html", mutation_page(5))) as tab,
        mirrored(tab) as mirror,
    ):
        await tab.open(server.set_page("/nav2.html", mutation_page(7)))
        # loadComplete (or the new root, whichever comes first) drops it.
        with anyio.fail_after(30):
            while mirror.state == "ready":
                if await mirror.nodes(timeout=30) is None:
                    break
                await anyio.sleep(0.02)
        assert await mirror.nodes(timeout=30) is None
        assert mirror.state == "idle" and mirror.stats["resets"] >= 1
        mirror.start_crawl(30)
        await wait_ready(mirror)
        nodes = await mirror.nodes(timeout=30)
        assert nodes is not None and diff_nodes(nodes, await full_nodes(tab)) == []
        assert any(n.name is not None and n.name.value == "link 6" for n in nodes)


async def test_verify_mode_raises_on_a_difference(server: PageServer, open_tab: OpenTab) -> None:
    async with (
        open_tab(server.set_page("/verify.html", mutation_page(5))) as tab,
        mirrored(tab, verify=True) as mirror,
    ):
        assert await mirror.nodes(timeout=30) is not None  # equal: no error
        _tamper(mirror)
        with pytest.raises(AssertionError, match="differs from a full fetch"):
            await mirror.nodes(timeout=30)


async def test_the_periodic_check_rebuilds_a_wrong_mirror(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with (
        open_tab(server.set_page("/check.html", mutation_page(5))) as tab,
        mirrored(tab, check_every=2) as mirror,
    ):
        assert await mirror.nodes(timeout=30) is not None
        _tamper(mirror)
        nodes = await mirror.nodes(timeout=30)  # the second: checked
        assert nodes is not None and diff_nodes(nodes, await full_nodes(tab)) == []
        assert mirror.state == "idle" and mirror.stats["checks"] == 1


async def test_too_large_an_update_falls_back(server: PageServer, open_tab: OpenTab) -> None:
    async with (
        open_tab(server.set_page("/large.html", mutation_page(20))) as tab,
        mirrored(tab, max_update_share=0.01) as mirror,
    ):
        await tab.evaluate(
            "document.querySelectorAll('li button')"
            ".forEach(b => b.setAttribute('aria-pressed', 'true'))"
        )
        assert await mirror.nodes(timeout=30) is None
        # The update was applied all the same: the next one is exact.
        nodes = await mirror.nodes(timeout=30)
        assert nodes is not None and diff_nodes(nodes, await full_nodes(tab)) == []


def _tamper(mirror: DocumentMirror) -> None:
    store = mirror._store
    assert store is not None
    victim = next(
        n
        for n in store.nodes.values()
        if n.name is not None and n.name.value and n.nodeId != store.root_id
    )
    store.nodes[victim.nodeId] = msgspec.structs.replace(victim, name=None)
