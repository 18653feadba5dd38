"""Stable ids (``launch(ids="stable")``): an element keeps its id while it exists in its tab."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import kobrowser
from kobrowser import Browser, InvalidArgumentError, StaleElementError, parse_snapshot

pytestmark = pytest.mark.anyio

PAGE = """<title>stable</title>
<div id="top"></div>
<ul id="list"><li><button id="a" onclick="document.title='A clicked'">Alpha</button></li>
<li><button id="b">Beta</button></li></ul>
<div id="far"><button id="c">Gamma</button></div>
<input id="field" aria-label="Field">
<script>
function add(where, label) {
  const b = document.createElement('button');
  b.textContent = label;
  document.getElementById(where).append(b);
}
</script>"""


@pytest.fixture(scope="module")
async def stable(anyio_backend: str) -> AsyncIterator[Browser]:
    async with kobrowser.launch(timeout=60, ids="stable") as b:
        yield b


def ids_by_name(snapshot: kobrowser.Snapshot) -> dict[str, int]:
    return {e.name: e.id for e in snapshot.id_map.values() if e.role == "button"}


async def test_ids_survive_insertions_above_and_new_ones_are_new(
    stable: Browser, server: Any
) -> None:
    url = server.set_page("/stable-insert.html", PAGE)
    assert stable.ids == "stable"
    tab = await stable.new_tab(url)
    try:
        first = await tab.snapshot()
        before = ids_by_name(first)
        highest = max(first.id_map)
        await tab.evaluate("add('top', 'New one'); add('top', 'New two')")
        second = await tab.snapshot()
        after = ids_by_name(second)
        for name in ("Alpha", "Beta", "Gamma"):
            assert after[name] == before[name]
        assert after["New one"] > highest and after["New two"] > highest
        assert after["New one"] != after["New two"]
        # Lines print in document order: the new buttons come first, with higher ids.
        order = [e.id for e in second.id_map.values()]
        assert order != sorted(order)
        assert second.text.index('"New one"') < second.text.index('"Alpha"')
        # The old id still acts on its element.
        await tab.click(before["Alpha"])
        await tab.wait_for_function("document.title === 'A clicked'")
    finally:
        await tab.close()


async def test_a_removed_elements_id_is_stale_and_never_reused(
    stable: Browser, server: Any
) -> None:
    url = server.set_page("/stable-remove.html", PAGE)
    tab = await stable.new_tab(url)
    try:
        before = ids_by_name(await tab.snapshot())
        await tab.evaluate("document.getElementById('b').remove()")
        # Acting on it with the snapshot that showed it: stale, as with any ids.
        with pytest.raises(StaleElementError):
            await tab.click(before["Beta"])
        second = await tab.snapshot()
        assert before["Beta"] not in second.id_map
        # Acting on it after a snapshot that no longer shows it: stale too.
        with pytest.raises(StaleElementError) as info:
            await tab.click(before["Beta"])
        assert info.value.element_id == before["Beta"]
        # A new element with the same text gets a new id, never the removed one's.
        await tab.evaluate("add('top', 'Beta')")
        third = await tab.snapshot()
        new_beta = ids_by_name(third)["Beta"]
        assert new_beta != before["Beta"] and new_beta > max(second.id_map)
        assert ids_by_name(third)["Alpha"] == before["Alpha"]
    finally:
        await tab.close()


async def test_a_moved_element_keeps_its_id(stable: Browser, server: Any) -> None:
    url = server.set_page("/stable-move.html", PAGE)
    tab = await stable.new_tab(url)
    try:
        before = ids_by_name(await tab.snapshot())
        await tab.evaluate("document.getElementById('top').append(document.getElementById('c'))")
        snapshot = await tab.snapshot()
        assert ids_by_name(snapshot) == before
        assert snapshot.text.index('"Gamma"') < snapshot.text.index('"Alpha"')
    finally:
        await tab.close()


async def test_ids_are_shared_by_filtered_snapshots_and_scrolls(
    stable: Browser, server: Any
) -> None:
    filler = "".join(f"<p>Paragraph {i}</p>" for i in range(200))
    url = server.set_page("/stable-scroll.html", PAGE + filler + "<button>Bottom</button>")
    tab = await stable.new_tab(url)
    try:
        full = ids_by_name(await tab.snapshot())
        interactive = await tab.snapshot(interactive=True)
        assert ids_by_name(interactive) == full
        await tab.scroll("down", 3000)
        assert ids_by_name(await tab.snapshot()) == full
        # The element the filtered snapshot left out is not an unknown id.
        text_ids = [e.id for e in (await tab.snapshot()).id_map.values() if e.role == "text"]
        await tab.snapshot(interactive=True)
        with pytest.raises(StaleElementError):
            await tab.text(text_ids[0])
    finally:
        await tab.close()


async def test_a_new_document_continues_the_counter(stable: Browser, server: Any) -> None:
    url = server.set_page("/stable-nav.html", PAGE)
    tab = await stable.new_tab(url)
    try:
        first = await tab.snapshot()
        highest = max(first.id_map)
        await tab.reload()
        second = await tab.snapshot()
        assert min(second.id_map) > highest  # a new document: no id reused
        with pytest.raises(StaleElementError):
            await tab.click(ids_by_name(first)["Alpha"])
    finally:
        await tab.close()


async def test_the_text_of_a_stable_snapshot_parses_back(stable: Browser, server: Any) -> None:
    url = server.set_page("/stable-parse.html", PAGE)
    tab = await stable.new_tab(url)
    try:
        await tab.snapshot()
        await tab.evaluate("add('top', 'Inserted')")
        snapshot = await tab.snapshot()
        parsed = parse_snapshot(snapshot.text, ids="stable")
        assert [line.id for line in parsed.lines] == list(snapshot.id_map)
        assert [line.id for line in parsed.lines] != sorted(snapshot.id_map)
        assert not snapshot.diff(parsed)
    finally:
        await tab.close()


async def test_the_default_stays_depth_first(browser: Browser, server: Any) -> None:
    url = server.set_page("/stable-default.html", PAGE)
    assert browser.ids == "depth-first"
    tab = await browser.new_tab(url)
    try:
        await tab.snapshot()
        await tab.evaluate("add('top', 'Inserted')")
        snapshot = await tab.snapshot()
        assert list(snapshot.id_map) == list(range(1, len(snapshot.id_map) + 1))
    finally:
        await tab.close()


def test_a_bad_id_mode_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="ids"):
        kobrowser.launch(ids="random")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="ids"):
        kobrowser.connect("localhost:9222", ids="stable-ish")  # type: ignore[arg-type]
