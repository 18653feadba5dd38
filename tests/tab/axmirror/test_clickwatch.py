"""The page's clickable map kept between snapshots (kobrowser/_tab/_clickwatch.py), in Chromium.

Every kept map is compared with a fresh ``DOMSnapshot`` read of the page
after random changes; the tests also check that the kept path was taken
(a test whose every map was read afresh would prove nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import anyio
import pytest
from _server import PageServer

from kobrowser import ProtocolError, Tab
from kobrowser._tab._clickable import ClickableMaps, clickable_nodes
from kobrowser._tab._clickwatch import FULL_EVERY, ClickWatch
from kobrowser.cdp import CDPSession

from ._clickpage import CLICK_MUTATE_JS, click_page, in_worlds, watchers
from ._mutations import mutation_page

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], Any]


async def kept_map(
    watch: ClickWatch, page: CDPSession, *, verify: bool = False
) -> Mapping[int, int]:
    """What a snapshot does: the kept map, or a fresh read whose index is kept."""
    maps = ClickableMaps()
    await watch.prepare(maps, timeout=30, verify=verify)
    if not maps.has(page):
        [result] = await page.connection.call_many([maps.call(page)], timeout=30)
        assert not isinstance(result, BaseException), result
    watch.after(maps)
    found = maps.get(page)
    assert found is not None
    return found


def differences(kept: Mapping[int, int], fresh: Mapping[int, int]) -> list[str]:
    out = [
        f"{k}: kept {kept.get(k)} fresh {fresh.get(k)}"
        for k in kept.keys() | fresh.keys()
        if kept.get(k) != fresh.get(k)
    ]
    return sorted(out)[:5]


async def backend_id(tab: Tab, expression: str) -> int:
    found = await tab.cdp.send("Runtime.evaluate", {"expression": expression}, timeout=10)
    described = await tab.cdp.send(
        "DOM.describeNode", {"objectId": found["result"]["objectId"]}, timeout=10
    )
    backend: int = described["node"]["backendNodeId"]
    return backend


async def test_kept_maps_equal_fresh_ones_after_random_changes(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(server.set_page("/click-random.html", click_page())) as tab:
        await tab.evaluate(CLICK_MUTATE_JS)
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        for seed in range(1, 61):
            done = await tab.evaluate(f"window.__clickMutate({seed * 7919}, {1 + seed % 3}, false)")
            kept = await kept_map(watch, tab.cdp)
            fresh = await clickable_nodes(tab.cdp, timeout=30)
            assert kept == fresh, (seed, done, differences(kept, fresh))
        # Both kept paths were taken, and fresh reads followed the other changes.
        assert watch.stats["texts"] >= 20, watch.stats
        assert watch.stats["fresh"] >= 10, watch.stats


async def test_text_changes_keep_the_map_without_reading_it(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(server.set_page("/click-text.html", click_page(10))) as tab:
        await tab.evaluate(CLICK_MUTATE_JS)
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        for seed in range(1, FULL_EVERY - 1):
            await tab.evaluate(f"window.__clickMutate({seed}, 3, true)")
            kept = await kept_map(watch, tab.cdp)
            assert kept == await clickable_nodes(tab.cdp, timeout=30), seed
        assert await kept_map(watch, tab.cdp) == await clickable_nodes(tab.cdp, timeout=30)
        assert watch.stats == {"fresh": 1, "same": 1, "texts": FULL_EVERY - 2}
        # The period: the next one is read afresh whatever changed.
        await kept_map(watch, tab.cdp)
        assert watch.stats["fresh"] == 2


async def test_a_listener_added_by_script_is_seen_at_the_latest_after_the_period(
    server: PageServer, open_tab: OpenTab
) -> None:
    # The limit the module names: a listener changes no node, so the kept map
    # is stale until it is read afresh; verify mode catches it.
    async with open_tab(server.set_page("/click-listener.html", click_page(5))) as tab:
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        await tab.evaluate("document.querySelector('.plain').addEventListener('click', () => {})")
        plain = await backend_id(tab, "document.querySelector('.plain')")
        assert plain in await clickable_nodes(tab.cdp, timeout=30)
        assert plain not in await kept_map(watch, tab.cdp)  # stale, as documented
        with pytest.raises(AssertionError, match="stale"):
            await kept_map(watch, tab.cdp, verify=True)
        assert plain in await kept_map(watch, tab.cdp)  # read afresh after the failed check
        await tab.evaluate("document.querySelectorAll('.plain')[1].onclick = () => {}")
        second = await backend_id(tab, "document.querySelectorAll('.plain')[1]")
        seen = [second in await kept_map(watch, tab.cdp) for _ in range(FULL_EVERY)]
        assert seen[-1] and not seen[0], seen


async def test_state_dependent_cursor_rules_read_the_map_afresh(
    server: PageServer, open_tab: OpenTab
) -> None:
    head = "<style>li:hover > .plain { cursor: pointer }</style>"
    async with open_tab(server.set_page("/click-hover.html", click_page(5, head=head))) as tab:
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        for row in range(4):
            box = await tab.evaluate(
                f"(() => {{ const r = document.getElementById('r{row}').getBoundingClientRect();"
                "return [r.x + 2, r.y + r.height / 2]; })()"
            )
            await tab.cdp.send(
                "Input.dispatchMouseEvent",
                {"type": "mouseMoved", "x": box[0], "y": box[1]},
                timeout=10,
            )
            kept = await kept_map(watch, tab.cdp)
            assert kept == await clickable_nodes(tab.cdp, timeout=30), row
        assert watch.stats["same"] == watch.stats["texts"] == 0, watch.stats


async def test_a_hover_without_such_rules_keeps_the_map(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(server.set_page("/click-nohover.html", click_page(5))) as tab:
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        await tab.cdp.send(
            "Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 30, "y": 80}, timeout=10
        )
        assert await kept_map(watch, tab.cdp) == await clickable_nodes(tab.cdp, timeout=30)
        assert watch.stats["same"] == 1, watch.stats


async def test_shadow_roots_and_new_documents_read_the_map_afresh(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(server.set_page("/click-shadow.html", mutation_page(5))) as tab:
        watch = ClickWatch(tab.cdp)
        for _ in range(3):
            await kept_map(watch, tab.cdp)
        assert watch.stats == {"fresh": 3, "same": 0, "texts": 0}  # a shadow root: no index
        await tab.open(server.set_page("/click-after.html", click_page(5)))
        first = await kept_map(watch, tab.cdp)
        assert first == await clickable_nodes(tab.cdp, timeout=30)
        assert await kept_map(watch, tab.cdp) == first
        assert watch.stats == {"fresh": 4, "same": 1, "texts": 0}


async def test_the_watcher_changes_neither_the_tree_nor_the_map(
    server: PageServer, open_tab: OpenTab
) -> None:
    # Its listeners are on window, in its own world: no element gains a listener.
    async with open_tab(server.set_page("/click-side.html", click_page(10))) as tab:
        before = (await tab.snapshot(fresh=True)).text
        found = await clickable_nodes(tab.cdp, timeout=30)
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        assert watch.active
        assert await tab.evaluate("typeof globalThis.__kbClickWatch") == "undefined"
        assert (await tab.snapshot(fresh=True)).text == before
        assert await clickable_nodes(tab.cdp, timeout=30) == found


async def test_aria_and_data_attributes_keep_the_map_unless_a_selector_names_them(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(server.set_page("/click-attrs.html", click_page(5))) as tab:
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        changes = {
            "document.querySelector('#list button').setAttribute('aria-pressed', 'true')": "same",
            "document.querySelector('.plain').dataset.state = 'open'": "same",
            "document.querySelector('.plain').setAttribute('data-hot', '')": "fresh",
            "document.querySelector('.plain').setAttribute('title', 'x')": "fresh",
        }
        for script, path in changes.items():
            before = dict(watch.stats)
            await tab.evaluate(script)
            kept = await kept_map(watch, tab.cdp)
            assert kept == await clickable_nodes(tab.cdp, timeout=30), script
            assert watch.stats[path] == before[path] + 1, (script, watch.stats)
        # attr() in a sheet: no attribute is quiet any more.
        await tab.evaluate(
            "document.getElementById('css').sheet.insertRule("
            "'.plain[title] { --c: attr(title) }', 0)"
        )
        await kept_map(watch, tab.cdp)
        await tab.evaluate("document.querySelector('.plain').dataset.state = 'shut'")
        fresh = watch.stats["fresh"]
        await kept_map(watch, tab.cdp)
        assert watch.stats["fresh"] == fresh + 1


async def test_nodes_handed_over_for_a_map_read_afresh_are_let_go(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A text-only change hands over remote objects of DOM nodes; when the map
    # is read afresh anyway (the period), they must still be released, or each
    # such snapshot pins more nodes in the page.
    async with open_tab(server.set_page("/click-release.html", click_page(5))) as tab:
        await tab.evaluate(CLICK_MUTATE_JS)
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        answers: list[Any] = []
        read = watch._read

        async def spy(timeout: float) -> Any:
            answers.append(await read(timeout))
            return answers[-1]

        monkeypatch.setattr(watch, "_read", spy)
        for seed in range(1, FULL_EVERY + 1):
            await tab.evaluate(f"window.__clickMutate({seed}, 3, true)")
            await kept_map(watch, tab.cdp)
        assert watch.stats["fresh"] == 2, watch.stats  # the first read and the period
        handed = answers[-1]
        assert isinstance(handed, list) and handed, handed
        for object_id in [o for o in handed if o is not None]:
            with pytest.raises(ProtocolError):
                await tab.cdp.send("Runtime.getProperties", {"objectId": object_id}, timeout=10)


async def test_a_map_read_afresh_anyway_does_not_ask_the_watcher(
    server: PageServer, open_tab: OpenTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fresh=True (a snapshot not served by the mirror): no round trip to the
    # watcher; what it saw meanwhile is still reported at the next read.
    async with open_tab(server.set_page("/click-fresh.html", click_page(5))) as tab:
        await tab.evaluate(CLICK_MUTATE_JS)
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        await tab.evaluate("window.__clickMutate(3, 2, true)")
        reads: list[float] = []
        read = watch._read

        async def counted(timeout: float) -> Any:
            reads.append(timeout)
            return await read(timeout)

        monkeypatch.setattr(watch, "_read", counted)
        maps = ClickableMaps()
        await watch.prepare(maps, timeout=30, fresh=True)
        assert not maps.has(tab.cdp) and reads == []
        [result] = await tab.cdp.connection.call_many([maps.call(tab.cdp)], timeout=30)
        assert not isinstance(result, BaseException), result
        watch.after(maps)
        await tab.evaluate("window.__clickMutate(4, 2, true)")
        kept = await kept_map(watch, tab.cdp)
        assert kept == await clickable_nodes(tab.cdp, timeout=30)
        assert watch.stats == {"fresh": 2, "same": 0, "texts": 1}, watch.stats
        assert reads == [30]


def framed_click_page(server: PageServer, name: str) -> str:
    """:func:`click_page` with a same-origin child frame (it gets a watcher of its own)."""
    inner = server.set_page(f"/{name}-inner.html", click_page(2))
    page = click_page(5).replace("<footer>", f"<iframe src='{inner}'></iframe><footer>")
    return server.set_page(f"/{name}.html", page)


_SEEN = "globalThis.__kept ? [__kept.changes, __kept.events] : null"
_POKE = (
    "document.body.append(document.createElement('p'));"
    "document.body.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))"
)


async def test_removing_the_watcher_stops_it_and_keeps_it_out_of_new_documents(
    server: PageServer, open_tab: OpenTab
) -> None:
    async with open_tab(framed_click_page(server, "click-remove")) as tab:
        watch = ClickWatch(tab.cdp)
        await watch.remove(timeout=30)  # never installed: nothing to do
        await kept_map(watch, tab.cdp)
        assert watch.active and await watchers(tab) == ["object", "object"]
        # Hold on to the top watcher: it sees a change and an event...
        await in_worlds(tab, "globalThis.__kept = globalThis.__kbClickWatch; 0")
        await tab.evaluate(_POKE)
        seen = (await in_worlds(tab, _SEEN))[0]
        assert seen[0] >= 1 and seen[1] >= 1, seen
        await watch.remove(timeout=30)
        assert not watch.active
        assert await watchers(tab) == ["undefined", "undefined"]
        # ... and, stopped, no more of either.
        await tab.evaluate(_POKE)
        assert (await in_worlds(tab, _SEEN))[0] == seen
        await watch.remove(timeout=30)  # idempotent
        await tab.open(framed_click_page(server, "click-removed"))
        assert await watchers(tab) == ["undefined", "undefined"]
        # Used again, it installs itself again (a page with a child frame
        # always reads its map afresh: see the module).
        first = await kept_map(watch, tab.cdp)
        assert watch.active and await watchers(tab) == ["object", "object"]
        assert first == await clickable_nodes(tab.cdp, timeout=30)
        await tab.open(framed_click_page(server, "click-again"))
        assert await watchers(tab) == ["object", "object"]


@pytest.mark.parametrize("detached", [False, True], ids=["closing", "closed"])
async def test_removing_the_watcher_of_a_closed_tab_neither_hangs_nor_raises(
    server: PageServer, open_tab: OpenTab, detached: bool
) -> None:
    async with open_tab(server.set_page("/click-closed.html", click_page(5))) as tab:
        watch = ClickWatch(tab.cdp)
        await kept_map(watch, tab.cdp)
        await tab.close()
        if detached:  # else: Chrome may not have said so yet
            with anyio.fail_after(20):
                while not tab.cdp.closed:  # noqa: ASYNC110 - no event for this
                    await anyio.sleep(0.01)
        with anyio.fail_after(20):  # the calls fail at once: far below their deadline
            await watch.remove(timeout=60)
        assert not watch.active
        await watch.remove(timeout=60)
