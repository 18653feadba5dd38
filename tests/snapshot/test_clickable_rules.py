"""Clickable and focusable elements without an interactive role (docs/snapshot-format.md).

Built AX trees with a frame's ``clickable`` map (backend id -> owner backend
id); recorded Chromium trees are in test_recorded_shapes.py.
"""

from __future__ import annotations

from kobrowser.snapshot import build_tree, filter_tree

from ._ax_builders import el, frame, frame_spec, iframe, ignored, text
from ._helpers import lines


def test_listener_span_in_a_paragraph_is_its_own_clickable_line() -> None:
    top = frame(
        el(
            "paragraph",
            None,
            text("Faucibus libero "),
            el("generic", None, text("massa", backend=11), backend=10),
            text(" nec."),
        )
    )
    top.clickable = {10: 10, 11: 10}
    assert lines(top) == [
        '1: text "Faucibus libero"',
        '2: generic "massa" clickable',
        '3: text "nec."',
    ]
    node = build_tree(top)[1]
    assert node.backend_node_id == 10  # the span itself: a click reaches its listener


def test_without_the_clickable_map_the_kept_span_is_a_text_line() -> None:
    top = frame(
        el(
            "paragraph",
            None,
            text("Faucibus libero "),
            el("generic", None, text("massa", backend=11), backend=10),
            text(" nec."),
        )
    )
    assert lines(top) == ['1: text "Faucibus libero"', '2: text "massa"', '3: text "nec."']
    assert build_tree(top)[1].backend_node_id == 11  # its first text node


def test_empty_clickable_and_focusable_elements_appear() -> None:
    top = frame(
        el("generic", None, backend=20),  # <div onclick> board cell
        el("generic", None, text("handle"), focusable=True),  # <span tabindex=0>
        el("generic", None, focusable=True),
        el("generic", None, text("both"), backend=21, focusable=True),
        el("generic", None, text("plain")),
    )
    top.clickable = {20: 20, 21: 21}
    assert lines(top) == [
        "1: generic clickable",
        '2: generic "handle" focusable',
        "3: generic focusable",
        '4: generic "both" clickable focusable',
        '5: text "plain"',
    ]


def test_marks_come_after_the_other_states() -> None:
    top = frame(el("generic", "Menu", backend=30, expanded=False, focusable=True))
    top.clickable = {30: 30}
    assert lines(top) == ['1: generic "Menu" collapsed clickable focusable']


def test_wrapper_around_something_acted_on_is_not_marked() -> None:
    # A card with a listener around its buttons; an app root with a listener;
    # a feed whose container listens and whose rows show a pointer.
    top = frame(
        el(
            "generic",
            None,
            el("generic", None, text("Title")),
            el("button", "Like", text("Like")),
            backend=40,
        ),
        el(
            "generic",
            None,
            el("generic", None, text("Row one"), backend=42),
            el("generic", None, text("Row two"), backend=43),
            text("footer"),
            backend=41,
        ),
    )
    top.clickable = {40: 40, 41: 41, 42: 42, 43: 43}
    assert lines(top) == [
        '1: text "Title"',
        '2: button "Like"',
        '3: generic "Row one" clickable',
        '4: generic "Row two" clickable',
        '5: text "footer"',
    ]


def test_printed_wrapper_keeps_its_line_but_loses_the_mark() -> None:
    top = frame(
        el("listitem", None, el("link", "Open", text("Open")), backend=50),
        el("listitem", None, text("Item"), backend=51),
        el("img", "Logo", backend=52),
    )
    top.clickable = {50: 50, 51: 51, 52: 52}
    assert lines(top) == [
        "1: listitem",
        '  2: link "Open"',
        '3: listitem "Item" clickable',
        '4: img "Logo" clickable',
    ]


def test_nothing_inside_an_interactive_element_or_a_label_is_marked() -> None:
    top = frame(
        el("link", "Home", el("generic", None, text("Home"), backend=61), backend=60),
        el("button", "Go", el("generic", None, text("Go"), focusable=True)),
        el("LabelText", None, text("Agree"), backend=62),
        el("checkbox", "Agree"),
        el("LabelText", "Menu", backend=63, focusable=True),  # named: printed, not marked
    )
    top.clickable = {60: 60, 61: 61, 62: 62, 63: 63}
    assert lines(top) == [
        '1: link "Home"',
        '2: button "Go"',
        '3: checkbox "Agree"',  # (the label's text is carried by its checkbox)
        '4: label "Menu"',
    ]


def test_text_carried_by_a_heading_is_not_repeated_by_a_clickable_part() -> None:
    top = frame(
        el(
            "heading",
            "Comments edit",
            text("Comments "),
            el("generic", None, text("edit"), backend=70),
        )
    )
    top.clickable = {70: 70}
    assert lines(top) == ['1: heading "Comments edit"', "  2: generic clickable"]


def test_long_text_stays_as_text_lines_under_the_element() -> None:
    long = "word " * 20  # 99 code points once normalized
    top = frame(
        el("generic", None, text("x" * 80), backend=80),
        el("generic", None, text(long), backend=81),
        el(
            "generic",
            None,
            el("generic", None, text("a")),
            el("generic", None, text("b")),
            backend=82,
        ),
    )
    top.clickable = {80: 80, 81: 81, 82: 82}
    assert lines(top) == [
        f'1: generic "{"x" * 80}" clickable',
        "2: generic clickable",
        f'  3: text "{" ".join(long.split())[:77]}..."',
        '4: generic "a b" clickable',
    ]
    assert build_tree(top)[0].name == "x" * 80


def test_text_of_a_clickable_element_left_out_of_the_tree() -> None:
    # <p>Tags: <span class=tag>alpha</span>, <span class=tag>beta</span> end</p>
    # with cursor:pointer on the spans: Chrome keeps no node for them.
    top = frame(
        el(
            "paragraph",
            None,
            text("Tags: "),
            text("alpha", backend=91),
            text(", "),
            text("beta", backend=92),
            text("gamma", backend=93),
            text(" end"),
        )
    )
    top.clickable = {91: 901, 92: 902, 93: 902}
    assert lines(top) == [
        '1: text "Tags:"',
        '2: text "alpha" clickable',
        '3: text ","',
        '4: text "betagamma" clickable',
        '5: text "end"',
    ]
    nodes = build_tree(top)
    assert (nodes[1].backend_node_id, nodes[3].backend_node_id) == (91, 92)


def test_text_of_the_element_the_walk_is_in_is_not_clickable_text() -> None:
    top = frame(
        el(
            "generic",
            None,
            text("Row", backend=101),
            ignored(text(" one", backend=102)),
            backend=100,
        )
    )
    top.clickable = {100: 100, 101: 100, 102: 100}
    assert lines(top) == ['1: generic "Row one" clickable']


def test_interactive_and_compact_modes_keep_marked_elements() -> None:
    top = frame(
        el(
            "list",
            None,
            el("listitem", None, el("generic", None, text("Row"), backend=111)),
            el("listitem", None, el("button", "B", text("B"))),
        ),
        el("paragraph", None, text("alpha", backend=112)),
        el("generic", None, focusable=True),
    )
    top.clickable = {111: 111, 112: 900}
    full = build_tree(top)
    assert lines(top, interactive=True) == [
        '1: generic "Row" clickable',
        '2: button "B"',
        '3: text "alpha" clickable',
        "4: generic focusable",
    ]
    assert lines(top, compact=True) == [
        '1: generic "Row" clickable',
        '2: button "B"',
        '3: text "alpha" clickable',
        "4: generic focusable",
    ]
    assert filter_tree(full, interactive=True)[0].backend_node_id == 111


def test_frame_content_is_marked_from_its_own_map_only() -> None:
    inner = frame_spec(el("generic", None, text("inside"), backend=121), frame_id="CHILD")
    top = frame(el("link", "Out", iframe("Embed", inner)))
    top.clickable = {121: 121}  # the top frame's map: not the child's
    assert lines(top) == ['1: link "Out"', '  2: iframe "Embed"', '    3: text "inside"']
    child = next(iter(top.children.values()))
    assert child is not None
    child.clickable = {121: 121}
    assert lines(top) == [
        '1: link "Out"',
        '  2: iframe "Embed"',
        '    3: generic "inside" clickable',
    ]


def test_a_frame_inside_a_clickable_wrapper_makes_it_a_wrapper() -> None:
    top = frame(el("generic", None, iframe("Embed", frame_spec(text("x"))), backend=130))
    top.clickable = {130: 130}
    assert lines(top) == ['1: iframe "Embed"', '  2: text "x"']
