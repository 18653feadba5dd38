"""Snapshot modes alone and combined (docs/snapshot-format.md, "Modes")."""

from __future__ import annotations

import msgspec
import pytest

from kobrowser.snapshot import FrameAX, Node, build_tree, filter_tree, format_snapshot

from ._ax_builders import el, frame, frame_spec, iframe, text
from ._helpers import backend_of, lines, render


def _page() -> FrameAX:
    return frame(
        el(
            "navigation",
            "Main",
            el(
                "list",
                None,
                el("listitem", None, el("link", "Home", text("Home"))),
                el("listitem", None, el("link", "Shop")),
            ),
        ),
        el(
            "main",
            None,
            el("heading", "Cart", text("Cart")),
            el("paragraph", None, text("Two items")),
            el(
                "table",
                None,
                el(
                    "row",
                    None,
                    el("cell", "Tea", text("Tea")),
                    el("cell", None, el("button", "Remove")),
                ),
            ),
            el("group", None, el("checkbox", "Gift"), el("generic", None, text("wrap it"))),
            iframe("Pay", frame_spec(el("form", None, el("textbox", "Card"), el("button", "Pay")))),
        ),
    )


FULL = [
    '1: navigation "Main"',
    "  2: list",
    "    3: listitem",
    '      4: link "Home"',
    "    5: listitem",
    '      6: link "Shop"',
    "7: main",
    '  8: heading "Cart"',
    '  9: text "Two items"',
    "  10: table",
    "    11: row",
    '      12: cell "Tea"',
    "      13: cell",
    '        14: button "Remove"',
    "  15: group",
    '    16: checkbox "Gift"',
    '    17: text "wrap it"',
    '  18: iframe "Pay"',
    "    19: form",
    '      20: textbox "Card"',
    '      21: button "Pay"',
]


def test_full() -> None:
    assert lines(_page()) == FULL


def test_interactive() -> None:
    assert lines(_page(), interactive=True) == [
        '1: link "Home"',
        '2: link "Shop"',
        '3: button "Remove"',
        '4: checkbox "Gift"',
        '5: iframe "Pay"',
        '  6: textbox "Card"',
        '  7: button "Pay"',
    ]


def test_interactive_nests_under_nearest_interactive_ancestor() -> None:
    top = frame(el("combobox", "C", el("group", None, el("listbox", None, el("option", "A")))))
    assert lines(top, interactive=True) == ['1: combobox "C"', "  2: listbox", '    3: option "A"']


def test_compact() -> None:
    assert lines(_page(), compact=True) == [
        '1: navigation "Main"',
        '  2: link "Home"',
        '  3: link "Shop"',
        '4: heading "Cart"',
        '5: text "Two items"',
        '6: cell "Tea"',
        '7: button "Remove"',
        '8: checkbox "Gift"',
        '9: text "wrap it"',
        '10: iframe "Pay"',
        '  11: textbox "Card"',
        '  12: button "Pay"',
    ]


def test_compact_keeps_neighbouring_texts_apart() -> None:
    top = frame(el("list", None, el("listitem", None, text("a")), el("listitem", None, text("b"))))
    assert lines(top, compact=True) == ['1: text "a"', '2: text "b"']


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (0, []),
        (1, ['1: navigation "Main"', "2: main"]),
        (
            2,
            [
                '1: navigation "Main"',
                "  2: list",
                "3: main",
                '  4: heading "Cart"',
                '  5: text "Two items"',
                "  6: table",
                "  7: group",
                '  8: iframe "Pay"',
            ],
        ),
        (99, FULL),
    ],
)
def test_depth(depth: int, expected: list[str]) -> None:
    assert lines(_page(), depth=depth) == expected


def test_negative_depth_rejected() -> None:
    with pytest.raises(ValueError, match="depth"):
        filter_tree([], depth=-1)


def test_interactive_and_depth() -> None:
    assert lines(_page(), interactive=True, depth=1) == [
        '1: link "Home"',
        '2: link "Shop"',
        '3: button "Remove"',
        '4: checkbox "Gift"',
        '5: iframe "Pay"',
    ]


def test_compact_and_depth() -> None:
    assert lines(_page(), compact=True, depth=1) == [
        '1: navigation "Main"',
        '2: heading "Cart"',
        '3: text "Two items"',
        '4: cell "Tea"',
        '5: button "Remove"',
        '6: checkbox "Gift"',
        '7: text "wrap it"',
        '8: iframe "Pay"',
    ]


def test_scope_printed_element_becomes_root() -> None:
    top = _page()
    scope = {("MAIN", backend_of(top, "table"))}
    assert lines(top, scope=scope) == [
        "1: table",
        "  2: row",
        '    3: cell "Tea"',
        "    4: cell",
        '      5: button "Remove"',
    ]


def test_scope_unprinted_element_contributes_its_printed_descendants() -> None:
    top = _page()
    scope = {("MAIN", backend_of(top, "paragraph")), ("MAIN", backend_of(top, "group"))}
    assert lines(top, scope=scope) == [
        '1: text "Two items"',
        "2: group",
        '  3: checkbox "Gift"',
        '  4: text "wrap it"',
    ]


def test_scope_nested_match_not_duplicated_and_inside_frames() -> None:
    top = _page()
    child = next(iter(c for c in top.children.values() if c is not None))
    scope = [
        ("MAIN", backend_of(top, "main")),
        ("MAIN", backend_of(top, "heading")),
        ("CHILD", backend_of(child, "button", "Pay")),
    ]
    assert lines(top, scope=scope) == [
        "1: main",
        '  2: heading "Cart"',
        '  3: text "Two items"',
        "  4: table",
        "    5: row",
        '      6: cell "Tea"',
        "      7: cell",
        '        8: button "Remove"',
        "  9: group",
        '    10: checkbox "Gift"',
        '    11: text "wrap it"',
        '  12: iframe "Pay"',
        "    13: form",
        '      14: textbox "Card"',
        '      15: button "Pay"',
    ]
    assert lines(top, scope=[("CHILD", backend_of(child, "form"))]) == [
        "1: form",
        '  2: textbox "Card"',
        '  3: button "Pay"',
    ]


def test_scope_keeps_text_carried_by_an_ancestor_out_of_scope_hidden() -> None:
    top = frame(el("link", "Home", el("generic", None, text("Home"))))
    scope = {("MAIN", backend_of(top, "generic"))}
    assert lines(top, scope=scope) == []


def test_scope_texts_of_two_matches_do_not_merge() -> None:
    top = frame(el("main", None, el("generic", None, text("a")), el("generic", None, text("b"))))
    scope = {("MAIN", top.nodes[i].backendDOMNodeId or 0) for i in (2, 3)}
    assert [n.role.value for n in (top.nodes[2], top.nodes[3]) if n.role] == ["generic", "generic"]
    assert lines(top, scope=scope) == ['1: text "a"', '2: text "b"']
    assert lines(top) == ["1: main", '  2: text "a"', '  3: text "b"']


def test_scope_matching_nothing_or_empty() -> None:
    assert lines(_page(), scope=set()) == []
    assert lines(_page(), scope={("MAIN", 424242)}) == []
    assert lines(_page(), scope={("OTHER", backend_of(_page(), "table"))}) == []


def test_scope_with_interactive_compact_depth_renumbers() -> None:
    top = _page()
    scope = {("MAIN", backend_of(top, "main"))}
    assert render(top, scope=scope, interactive=True, depth=1, title="T") == (
        'Page: "T"\n\n1: button "Remove"\n2: checkbox "Gift"\n3: iframe "Pay"\n'
    )
    assert lines(top, scope=scope, compact=True, depth=1) == [
        '1: heading "Cart"',
        '2: text "Two items"',
        '3: cell "Tea"',
        '4: button "Remove"',
        '5: checkbox "Gift"',
        '6: text "wrap it"',
        '7: iframe "Pay"',
    ]


def test_filter_does_not_mutate_input() -> None:
    roots = build_tree(_page())
    before = msgspec.json.encode(roots)
    for kwargs in ({}, {"interactive": True}, {"compact": True}, {"depth": 1}):
        out = filter_tree(roots, **kwargs)  # type: ignore[arg-type]
        assert out is not roots
        assert all(a is not b for a, b in zip(out, roots, strict=False))
    assert msgspec.json.encode(roots) == before


def test_ids_are_gapless_in_every_mode() -> None:
    roots = build_tree(_page())
    for kwargs in ({}, {"interactive": True}, {"compact": True}, {"depth": 2}):
        text_out, nodes = format_snapshot(filter_tree(roots, **kwargs), title=None)  # type: ignore[arg-type]
        ids = [int(line.strip().split(":")[0]) for line in text_out.splitlines()]
        assert ids == list(range(1, len(nodes) + 1))
        assert all(isinstance(n, Node) for n in nodes)
