"""diff_snapshots / Snapshot.diff: matching without ids, the entries and the text.

Unit tests on built snapshot text; the real-browser tests change a page's DOM
between two snapshots and check the diff names exactly that change.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from _examples import examples
from _server import PageServer
from hypothesis import given, settings
from hypothesis import strategies as st

import kobrowser
from kobrowser import Browser, Tab
from kobrowser.snapshot import Node, SnapshotDiff, diff_snapshots, format_snapshot, parse_snapshot

from ._browser_helpers import page

BASE = (
    'Page: "Shop"\n'
    "\n"
    "1: banner\n"
    '  2: link "Home"\n'
    "3: main\n"
    '  4: heading "Your cart"\n'
    '  5: textbox "Email" value="ana@example.com" required\n'
    '  6: checkbox "Keep me signed in" checked\n'
    '  7: button "Place order"\n'
)


def _lines(diff: SnapshotDiff) -> list[str]:
    return str(diff).splitlines()


# -- matching without ids -----------------------------------------------------


def test_identical_snapshots_have_no_changes() -> None:
    diff = diff_snapshots(BASE, BASE)
    assert not diff
    assert diff.entries == ()
    assert str(diff) == ""


def test_an_element_inserted_at_the_top_is_the_only_change() -> None:
    after = (
        'Page: "Shop"\n'
        "\n"
        '1: alert "Sale today"\n'
        "2: banner\n"
        '  3: link "Home"\n'
        "4: main\n"
        '  5: heading "Your cart"\n'
        '  6: textbox "Email" value="ana@example.com" required\n'
        '  7: checkbox "Keep me signed in" checked\n'
        '  8: button "Place order"\n'
    )
    diff = diff_snapshots(BASE, after)
    assert [(e.kind, e.id, e.old_id, e.role, e.name) for e in diff.entries] == [
        ("added", 1, None, "alert", "Sale today")
    ]
    assert _lines(diff) == ['+ 1: alert "Sale today"']


def test_removed_added_and_changed_with_new_ids() -> None:
    after = (
        'Page: "Shop"\n'
        "\n"
        "1: banner\n"
        "2: main\n"
        '  3: heading "Your cart"\n'
        '  4: textbox "Email" value="bob@example.com" required\n'
        '  5: checkbox "Keep me signed in"\n'
        '  6: button "Place order"\n'
        '  7: text "Thank you"\n'
    )
    diff = diff_snapshots(BASE, after)
    assert [(e.kind, e.id, e.old_id) for e in diff.removed] == [("removed", None, 2)]
    assert diff.removed[0].name == "Home"
    changed = {e.name: e for e in diff.changed}
    assert set(changed) == {"Email", "Keep me signed in"}
    email = changed["Email"]
    assert (email.id, email.old_id, email.value, email.old_value) == (
        4,
        5,
        "bob@example.com",
        "ana@example.com",
    )
    assert email.states == email.old_states == ("required",)
    box = changed["Keep me signed in"]
    assert (box.id, box.old_id, box.states, box.old_states) == (5, 6, (), ("checked",))
    assert [(e.id, e.role, e.name) for e in diff.added] == [(7, "text", "Thank you")]
    assert _lines(diff) == [
        '- link "Home" (was 2)',
        '~ 4: textbox "Email" value="bob@example.com" required '
        '(was value="ana@example.com" required)',
        '~ 5: checkbox "Keep me signed in" (was checked)',
        '+ 7: text "Thank you"',
    ]


def test_ancestry_counts_a_move_is_a_removal_and_an_addition() -> None:
    before = "1: navigation\n" + '  2: link "Docs"\n' + "3: main\n"
    after = "1: navigation\n" + "2: main\n" + '  3: link "Docs"\n'
    diff = diff_snapshots(before, after)
    assert [(e.kind, e.id, e.old_id, e.depth) for e in diff.entries] == [
        ("removed", None, 2, 1),
        ("added", 3, None, 1),
    ]


def test_repeated_lines_are_matched_in_order() -> None:
    rows = "".join(f'{i}: button "Delete"\n' for i in range(1, 6))
    fewer = "".join(f'{i}: button "Delete"\n' for i in range(1, 5))
    diff = diff_snapshots(rows, fewer)
    assert [(e.kind, e.old_id) for e in diff.entries] == [("removed", 5)]
    # 250 identical lines: the matcher's junk heuristic would drop them all.
    many = "".join(f'{i}: button "Delete"\n' for i in range(1, 251))
    more = '1: heading "List"\n' + "".join(f'{i}: button "Delete"\n' for i in range(2, 252))
    diff = diff_snapshots(many, more)
    assert [(e.kind, e.id) for e in diff.entries] == [("added", 1)]


def test_an_item_added_to_a_list_is_its_own_subtree() -> None:
    before = '1: list\n  2: listitem\n    3: text "One"\n  4: listitem\n    5: text "Two"\n'
    after = (
        '1: list\n  2: listitem\n    3: text "Zero"\n  4: listitem\n    5: text "One"\n'
        '  6: listitem\n    7: text "Two"\n'
    )
    diff = diff_snapshots(before, after)
    # Not "One became Zero" nor a new item around "One": the new first item.
    assert _lines(diff) == ["+ 2: listitem", '+ 3: text "Zero"']
    # Its containers are not reported although what is below them changed.
    nested = (
        '1: main\n  2: region "R"\n    3: list\n      4: listitem\n        5: text "One"\n'
        '      6: listitem\n        7: text "Two"\n'
    )
    grown = nested + '      8: listitem\n        9: text "Three"\n'
    assert _lines(diff_snapshots(nested, grown)) == ["+ 8: listitem", '+ 9: text "Three"']


def test_swapped_siblings_are_a_removal_and_an_addition() -> None:
    diff = diff_snapshots('1: button "A"\n2: button "B"\n', '1: button "B"\n2: button "A"\n')
    moved = sorted((e.kind, e.name) for e in diff.entries)
    assert moved in ([("added", "A"), ("removed", "A")], [("added", "B"), ("removed", "B")])


def test_title_change_and_states_only_change() -> None:
    before = 'Page: "Old"\n\n1: button "Menu" collapsed\n'
    after = 'Page: "New"\n\n1: button "Menu" expanded\n'
    diff = diff_snapshots(before, after)
    assert diff.title == ("Old", "New")
    assert _lines(diff) == [
        '~ Page: "New" (was "Old")',
        '~ 1: button "Menu" expanded (was collapsed)',
    ]
    lost = diff_snapshots('1: textbox "Q" value="x"\n', '1: textbox "Q"\n')
    assert _lines(lost) == ['~ 1: textbox "Q" (was value="x")']
    gained = diff_snapshots('1: textbox "Q"\n', '1: textbox "Q" focused\n')
    assert _lines(gained) == ['~ 1: textbox "Q" focused (was no value or state)']


def test_no_line_of_the_text_parses_as_an_element_that_is_unchanged() -> None:
    after = '1: heading "A"\n2: link "B"\n'
    diff = diff_snapshots('1: heading "A"\n', after)
    text = str(diff)
    assert text == '+ 2: link "B"\n'
    assert "unchanged" not in text and "..." not in text


def test_long_names_from_text_match_the_full_names_of_a_live_snapshot() -> None:
    long_name = "word " * 30
    full = _live([Node("link", long_name.strip(), None, (), "F", 1, [])], title="T")
    text = full.text
    assert "..." in text
    assert not diff_snapshots(text, full)
    assert not diff_snapshots(full, text)
    # text_limit=None text carries the whole name: still the same element.
    whole, _ = format_snapshot(
        [Node("link", long_name.strip(), None, (), "F", 1, [])], title="T", text_limit=None
    )
    assert not diff_snapshots(whole, full)
    assert not diff_snapshots(parse_snapshot(text), full)


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="Snapshot, a ParsedSnapshot or snapshot text"):
        diff_snapshots(42, BASE)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="line 1"):
        diff_snapshots("not a snapshot\n", BASE)


def test_to_dict_is_json_ready() -> None:
    import json

    diff = diff_snapshots('1: button "A" pressed\n', '1: button "A"\n2: link "B"\n')
    data = json.loads(json.dumps(diff.to_dict()))
    assert data["title"] is None
    assert [e["kind"] for e in data["entries"]] == ["changed", "added"]
    assert data["entries"][0]["old_states"] == ["pressed"]


# -- properties -----------------------------------------------------------------

_roles = st.sampled_from(["button", "link", "text", "heading", "list", "listitem"])
_names = st.sampled_from(["", "A", "B", "Buy", "Delete"])


@st.composite
def _trees(draw: Any, max_depth: int = 3) -> list[Node]:
    def level(depth: int) -> list[Node]:
        count = draw(st.integers(0, 4 if depth < max_depth else 0))
        return [
            Node(draw(_roles), draw(_names), None, (), "F", None, level(depth + 1))
            for _ in range(count)
        ]

    return level(0)


def _text(roots: list[Node]) -> str:
    return format_snapshot(roots, title=None)[0]


@settings(max_examples=examples(150), deadline=None)
@given(_trees(), _trees())
def test_applying_the_diff_counts(before: list[Node], after: list[Node]) -> None:
    old, new = _text(before), _text(after)
    diff = diff_snapshots(old, new)
    old_lines = parse_snapshot(old).lines
    new_lines = parse_snapshot(new).lines
    # Every old line is kept or removed once, every new line is kept or added once.
    removed = {e.old_id for e in diff.removed} | {e.old_id for e in diff.changed}
    added = {e.id for e in diff.added} | {e.id for e in diff.changed}
    assert len(old_lines) - len(removed) == len(new_lines) - len(added)
    assert bool(diff) == (old != new)
    # Shifting every id (an element inserted at the top) adds exactly that element.
    shifted = _text([Node("alert", "New", None, (), "F", None, []), *after])
    top = diff_snapshots(new, shifted)
    assert [(e.kind, e.id, e.role) for e in top.entries] == [("added", 1, "alert")]


def _live(roots: list[Node], title: str) -> kobrowser.Snapshot:
    from kobrowser._tab._snapshot import Snapshot, number_snapshot

    text, elements, nodes = number_snapshot(roots, title=title, documents={})
    return Snapshot(text, elements, nodes, "about:blank", title)


# -- a real page ----------------------------------------------------------------


@pytest.fixture
async def tab(browser: Browser) -> AsyncIterator[Tab]:
    tab = await browser.new_tab()
    try:
        yield tab
    finally:
        await tab.close()


_PAGE = page(
    "<nav><a href='#a'>Home</a> <a href='#b'>Docs</a></nav>"
    "<main id=m><h1>Cart</h1><label>Email <input id=e value='ana'></label>"
    "<label><input type=checkbox id=c> Remember</label>"
    "<ul id=list><li>One</li><li>Two</li></ul><button>Order</button></main>",
    title="Cart page",
)


@pytest.mark.anyio
async def test_a_dom_change_is_exactly_that_change(server: PageServer, tab: Tab) -> None:
    await tab.open(server.set_page("/diff.html", _PAGE))
    before = await tab.snapshot()
    await tab.evaluate(
        "document.getElementById('list').insertAdjacentHTML('beforeend', '<li>Three</li>')"
    )
    after = await tab.snapshot()
    diff = after.diff(before)
    assert [(e.kind, e.role) for e in diff.entries] == [("added", "listitem"), ("added", "text")]
    item, text = diff.entries
    assert after.id_map[item.id].role == "listitem"
    assert after.id_map[text.id].name == "Three"
    assert text.id == item.id + 1
    assert diff_snapshots(before, after) == diff
    # The saved text of the earlier snapshot gives the same diff.
    assert diff_snapshots(before.text, after) == diff


@pytest.mark.anyio
async def test_value_and_state_changes_are_changed_elements(server: PageServer, tab: Tab) -> None:
    await tab.open(server.set_page("/diff-state.html", _PAGE))
    before = await tab.snapshot()
    await tab.evaluate(
        "document.getElementById('e').value = 'bob';document.getElementById('c').checked = true; 1"
    )
    after = await tab.snapshot()
    diff = after.diff(before)
    assert {(e.kind, e.role, e.value, e.old_value, e.states) for e in diff.entries} == {
        ("changed", "textbox", "bob", "ana", ()),
        ("changed", "checkbox", None, None, ("checked",)),
    }
    for entry in diff.entries:
        assert after.id_map[entry.id].role == entry.role
        assert before.id_map[entry.old_id].role == entry.role  # type: ignore[index]


@pytest.mark.anyio
async def test_renumbering_alone_is_no_change(server: PageServer, tab: Tab) -> None:
    await tab.open(server.set_page("/diff-top.html", _PAGE))
    before = await tab.snapshot()
    await tab.evaluate(
        "document.body.insertAdjacentHTML('afterbegin', '<button id=top>Top</button>')"
    )
    shifted = await tab.snapshot()
    assert len(shifted.id_map) == len(before.id_map) + 1
    diff = shifted.diff(before)
    assert [(e.kind, e.id, e.role, e.name) for e in diff.entries] == [("added", 1, "button", "Top")]
    # Every other id moved by one, and none of them is reported.
    await tab.evaluate("document.getElementById('top').remove()")
    again = await tab.snapshot()
    assert not again.diff(before)
    back = again.diff(shifted)
    assert [(e.kind, e.old_id, e.name) for e in back.entries] == [("removed", 1, "Top")]


def test_match_ids_reports_a_look_alike_with_a_new_id() -> None:
    before = 'button "A"\n'
    old = f'1: {before}2: button "B"\n'
    new = f'1: {before}3: button "B"\n'  # stable ids: B was replaced by a new element
    assert not diff_snapshots(old, new)
    diff = diff_snapshots(old, new, match_ids=True)
    assert [(e.kind, e.id, e.old_id) for e in diff.entries] == [
        ("removed", None, 2),
        ("added", 3, None),
    ]
    # Same ids: still only what changed.
    assert not diff_snapshots(old, old, match_ids=True)
    changed = diff_snapshots(old, f'1: {before}2: button "B" pressed\n', match_ids=True)
    assert [(e.kind, e.id, e.old_id) for e in changed.entries] == [("changed", 2, 2)]


def test_match_ids_reports_a_sorted_list_as_moves_never_as_gone() -> None:
    # Stable ids: a list sorted in place keeps its elements and their ids.
    rows = [(11, "Runner", 98), (13, "Lounger", 95), (15, "Socks", 16), (17, "Scarf", 48)]

    def text(order: list[tuple[int, str, int]]) -> str:
        lines = ['1: button "Sort by price"\n', "2: list\n"]
        for first, name, _price in order:
            lines.append(f'  {first}: link "{name}"\n  {first + 1}: button "Add {name}"\n')
        return "".join(lines) + '30: link "Terms"\n'

    before, after = text(rows), text(sorted(rows, key=lambda row: row[2]))
    diff = diff_snapshots(before, after, match_ids=True)
    assert not diff.removed and not diff.added
    ids_in_order = [int(line.split(":")[0]) for line in after.splitlines()[2:-1]]
    moved = [e.id for e in diff.moved]
    # Each moved line is named once, in its new order, with the line it now follows.
    assert moved == [i for i in ids_in_order if i in moved]
    assert len(set(moved)) == len(moved) and moved
    for entry in diff.moved:
        assert entry.old_id == entry.id
        index = ids_in_order.index(entry.id)
        assert entry.after == (ids_in_order[index - 1] if index else 2)
    first = diff.moved[0]
    where = f"now after {first.after}" if first.after is not None else "now first"
    assert _lines(diff)[0] == f'~ {first.id}: {first.role} "{first.name}" (moved, {where})'
    assert len(_lines(diff)) == len(moved)
    # Without stable ids a move stays a removal and an addition (the ids are positions).
    plain = diff_snapshots(before, after)
    assert plain.removed and plain.added and not plain.moved


def test_match_ids_reports_a_renamed_element_once_with_its_old_name() -> None:
    old = '1: button "Cart (0)"\n2: link "Help"\n'
    new = '1: button "Cart (1)" focused\n2: link "Help"\n'
    diff = diff_snapshots(old, new, match_ids=True)
    assert [(e.kind, e.id, e.old_id, e.old_name) for e in diff.entries] == [
        ("changed", 1, 1, "Cart (0)")
    ]
    assert _lines(diff) == ['~ 1: button "Cart (1)" focused (was "Cart (0)")']
    # A new element under a new id is still a removal and an addition.
    replaced = diff_snapshots(old, '3: button "Cart (1)"\n2: link "Help"\n', match_ids=True)
    assert [(e.kind, e.id, e.old_id) for e in replaced.entries] == [
        ("removed", None, 1),
        ("added", 3, None),
    ]


def test_touched_tells_a_rename_in_place_from_ids_that_moved() -> None:
    # Depth-first ids: a diff may stand for the page only when matching ids too
    # touches the same ids (mcp and the agent send the whole snapshot otherwise).
    old = '1: button "Cart (0)"\n2: link "Help"\n'
    renamed = '1: button "Cart (1)"\n2: link "Help"\n'
    plain, with_ids = diff_snapshots(old, renamed), diff_snapshots(old, renamed, match_ids=True)
    assert plain.touched() == with_ids.touched() == {("-", 1), ("+", 1)}
    swapped = '1: link "Help"\n2: button "Cart (0)"\n'
    plain, with_ids = diff_snapshots(old, swapped), diff_snapshots(old, swapped, match_ids=True)
    assert plain.touched() != with_ids.touched()
    inserted = '1: alert "New"\n2: button "Cart (0)"\n3: link "Help"\n'
    plain, with_ids = diff_snapshots(old, inserted), diff_snapshots(old, inserted, match_ids=True)
    assert plain.touched() == {("+", 1)} != with_ids.touched()
    changed = diff_snapshots(old, '1: button "Cart (0)" focused\n2: link "Help"\n')
    assert changed.touched() == {("~", 1)}
