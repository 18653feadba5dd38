"""Tab.changes(): what changed since the latest snapshot the tab handed out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import kobrowser
from kobrowser import Browser

pytestmark = pytest.mark.anyio

PAGE = """<title>changes</title>
<div id="top"></div>
<button id="a">Alpha</button>
<input id="field" aria-label="Field">
<div id="slot"><button id="b">Beta</button></div>
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


async def test_changes_reports_added_changed_and_removed(
    browser: Browser, open_tab: Any, server: Any
) -> None:
    url = server.set_page("/changes.html", PAGE)
    async with open_tab(url) as tab:
        first = await tab.changes()  # no snapshot yet: every line is added
        assert tab.last_snapshot is not None
        assert [e.kind for e in first.entries] == ["added"] * len(tab.last_snapshot.id_map)
        assert first.title == ("", "changes")
        nothing = await tab.changes()
        assert not nothing and str(nothing) == ""
        await tab.evaluate(
            "add('top', 'New'); document.getElementById('field').value = 'typed';"
            "document.getElementById('a').remove()"
        )
        diff = await tab.changes()
        snapshot = tab.last_snapshot
        assert snapshot is not None
        kinds = {(e.kind, e.name) for e in diff.entries}
        assert kinds == {("added", "New"), ("changed", "Field"), ("removed", "Alpha")}
        (added,) = diff.added
        assert added.id is not None and snapshot.id_map[added.id].name == "New"
        (changed,) = diff.changed
        assert changed.value == "typed" and changed.old_value is None
        # The new snapshot is the latest: asked again, nothing changed.
        assert not await tab.changes()


async def test_browser_forwards_changes(browser: Browser, server: Any) -> None:
    url = server.set_page("/changes-forward.html", PAGE)
    tab = await browser.new_tab(url)
    try:
        assert browser.tab is tab
        await browser.snapshot(interactive=True)
        await tab.evaluate("add('top', 'Forwarded')")
        diff = await browser.changes(interactive=True)
        assert [(e.kind, e.role, e.name) for e in diff.entries] == [
            ("added", "button", "Forwarded")
        ]
    finally:
        await tab.close()


async def test_stable_changes_keep_old_ids_and_see_replacements(
    stable: Browser, server: Any
) -> None:
    url = server.set_page("/changes-stable.html", PAGE)
    tab = await stable.new_tab(url)
    try:
        before = await tab.snapshot()
        ids = {e.name: e.id for e in before.id_map.values()}
        await tab.evaluate("add('top', 'New'); document.getElementById('field').value = 'typed'")
        diff = await tab.changes()
        (changed,) = diff.changed
        assert changed.id == changed.old_id == ids["Field"]
        (added,) = diff.added
        assert added.id is not None and added.id > max(before.id_map)
        # A button replaced by a look-alike: same line, but a new element with
        # a new id, so the diff says so (matching without ids would not).
        await tab.evaluate("document.getElementById('b').remove(); add('slot', 'Beta')")
        diff = await tab.changes()
        assert [(e.kind, e.name) for e in diff.entries] == [
            ("removed", "Beta"),
            ("added", "Beta"),
        ]
        assert diff.removed[0].old_id == ids["Beta"]
        assert diff.added[0].id not in (None, ids["Beta"])
    finally:
        await tab.close()
