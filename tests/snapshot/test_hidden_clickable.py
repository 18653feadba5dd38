"""Clickable elements Chrome leaves out of its tree (``snapshot._hidden``), on built AX trees.

The clickable map is a :class:`ClickableMap` whose ``hidden`` lists the
clickable elements with no child node, as the tab reads them from the DOM
(docs/snapshot-format.md, "Clickable and focusable elements").
"""

from __future__ import annotations

from kobrowser.snapshot import FrameAX, build_tree
from kobrowser.snapshot._hidden import ClickableMap, HiddenClickable, unnamed_candidates

from ._ax_builders import el, frame, text
from ._helpers import lines


def _map(top: FrameAX, hidden: dict[int, tuple[str, tuple[int, ...], int]]) -> ClickableMap:
    """A clickable map of ``hidden`` (backend -> role, ancestors, position)."""
    found = ClickableMap({backend: backend for backend in hidden})
    for backend, (role, ancestors, position) in hidden.items():
        found.hidden[backend] = HiddenClickable(role, ancestors, position)
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    found.positions = {root: 0}
    return found


def test_svg_shapes_absent_from_the_tree_get_lines_in_document_order() -> None:
    top = frame(
        el("paragraph", None, text("Shapes:", backend=2), backend=1),
        el("SvgRoot", "", el("generic", None, text("A", backend=9), backend=8), backend=4),
    )
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(
        top,
        {
            5: ("graphics-symbol", (4, root), 5),
            6: ("graphics-symbol", (4, root), 6),
            7: ("graphics-symbol", (4, root), 7),
        },
    )
    top.clickable.positions.update({1: 1, 2: 2, 4: 4, 8: 8, 9: 9})
    assert lines(top) == [
        '1: text "Shapes:"',
        "2: graphicssymbol clickable",
        "3: graphicssymbol clickable",
        "4: graphicssymbol clickable",
        '5: text "A"',
    ]
    shapes = build_tree(top)[1:4]
    assert [node.backend_node_id for node in shapes] == [5, 6, 7]  # a click reaches each shape


def test_a_shape_after_the_listed_children_goes_last() -> None:
    top = frame(el("SvgRoot", "", el("generic", None, text("A", backend=9), backend=8), backend=4))
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(top, {5: ("graphics-symbol", (4, root), 20)})
    top.clickable.positions.update({4: 4, 8: 8, 9: 9})
    assert lines(top) == ['1: text "A"', "2: graphicssymbol clickable"]


def test_an_ignored_empty_pointer_box_is_a_generic_clickable_line() -> None:
    top = frame(
        el("paragraph", None, text("Pick a colour", backend=2), backend=1),
        el("none", None, backend=3, ignored=True),
    )
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(top, {3: ("generic", (root,), 3)})
    assert lines(top) == ['1: text "Pick a colour"', "2: generic clickable"]


def test_a_hidden_shape_makes_its_clickable_wrapper_a_wrapper() -> None:
    top = frame(el("generic", None, el("SvgRoot", "", backend=11), backend=10))
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(top, {12: ("graphics-symbol", (11, 10, root), 12)})
    top.clickable[10] = 10  # the card has a listener too: innermost wins
    assert lines(top) == ["1: graphicssymbol clickable"]


def test_a_shape_inside_a_button_is_the_button() -> None:
    top = frame(el("button", "Delete", el("SvgRoot", "", backend=11), backend=10))
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(top, {12: ("graphics-symbol", (11, 10, root), 12)})
    assert lines(top) == ['1: button "Delete"']


def test_a_hidden_element_whose_map_entry_is_gone_gets_no_line() -> None:
    top = frame(el("SvgRoot", "", backend=4))
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(top, {5: ("graphics-symbol", (4, root), 5)})
    del top.clickable[5]
    assert lines(top) == []


def test_grafting_leaves_the_frame_unchanged() -> None:
    top = frame(el("SvgRoot", "", backend=4))
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(top, {5: ("graphics-symbol", (4, root), 5)})
    before = [(node.nodeId, tuple(node.childIds)) for node in top.nodes]
    assert lines(top) == ["1: graphicssymbol clickable"]
    assert [(node.nodeId, tuple(node.childIds)) for node in top.nodes] == before
    assert lines(top) == ["1: graphicssymbol clickable"]  # a second build, same answer


def test_an_unnamed_icon_takes_its_derived_name() -> None:
    top = frame(
        el("generic", None, text("Katrina", backend=2), backend=1),
        el("image", None, backend=3),
        el("image", None, backend=4),
        el("image", "Archive", backend=5),
    )
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    top.clickable = _map(
        top,
        {3: ("generic", (root,), 3), 4: ("generic", (root,), 4), 5: ("generic", (root,), 5)},
    )
    top.clickable.names = {3: "file:delete.png", 4: "id:star", 5: "file:archive.png"}
    assert lines(top) == [
        '1: text "Katrina"',
        '2: img "file:delete.png" clickable',
        '3: img "id:star" clickable',
        '4: img "Archive" clickable',  # Chrome's name wins
    ]


def test_only_candidates_that_would_print_unnamed_are_asked_about() -> None:
    top = frame(
        el("textbox", "Email", backend=10),  # a form field: named by Chrome, interactive
        el("checkbox", "", backend=11),  # interactive: never takes a derived name
        el("image", "Logo", backend=12),  # named by its alt text
        el("image", "", backend=13),  # an unnamed icon
        el("generic", None, backend=14),  # an empty pointer box in the tree
        el("generic", None, backend=15, ignored=True),  # ignored: grafted
        el("image", "  ", backend=18),  # a name of white space prints as none
    )
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    found = _map(
        top,
        {
            b: ("generic", (root,), position)
            for b, position in ((10, 1), (11, 2), (12, 3), (13, 9), (14, 5), (15, 4), (16, 8))
        }
        | {18: ("generic", (root,), 7), 17: ("generic", (root,), 6)},
    )
    found[17] = 99  # a candidate mapped to another element is not one of its own
    # 16 is absent from the tree (grafted); in document (position) order.
    assert unnamed_candidates(found, [("MAIN", top.nodes)]) == [15, 14, 18, 16, 13]
    assert unnamed_candidates(ClickableMap({1: 1}), [("MAIN", top.nodes)]) == []
