"""Which elements appear, and how (docs/snapshot-format.md, full mode)."""

from __future__ import annotations

import pytest

from kobrowser.snapshot import AXNode, AXValue, FrameAX, build_tree

from ._ax_builders import el, frame, ignored, text, textbox
from ._helpers import lines, render


def test_spec_example_shape() -> None:
    top = frame(
        el(
            "banner",
            None,
            el("link", "Home", text("Home")),
            el("searchbox", "Search products", focused=True),
            el("button", "Search", text("Search")),
        ),
        el(
            "main",
            None,
            el("heading", "Your cart", text("Your cart"), level=2),
            el("paragraph", None, text("2 items, total $41.98")),
            textbox("Email", "ana@example.com", required=True),
            el("checkbox", "Keep me signed in", checked="true"),
            el("button", "Place order", text("Place order"), disabled=True),
        ),
        title="Checkout - Example Shop",
    )
    assert render(top, title="Checkout - Example Shop") == (
        'Page: "Checkout - Example Shop"\n'
        "\n"
        "1: banner\n"
        '  2: link "Home"\n'
        '  3: searchbox "Search products" focused\n'
        '  4: button "Search"\n'
        "5: main\n"
        '  6: heading "Your cart"\n'
        '  7: text "2 items, total $41.98"\n'
        '  8: textbox "Email" value="ana@example.com" required\n'
        '  9: checkbox "Keep me signed in" checked\n'
        '  10: button "Place order" disabled\n'
    )


@pytest.mark.parametrize(
    "role",
    [
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "slider",
        "spinbutton",
        "switch",
        "tab",
        "treeitem",
    ],
)
def test_interactive_roles_appear_unnamed(role: str) -> None:
    assert lines(frame(el("generic", None, el(role)))) == [f"1: {role}"]


@pytest.mark.parametrize("role", ["navigation", "list", "row", "group", "table", "dialog"])
def test_structure_roles_need_a_name_or_content(role: str) -> None:
    assert lines(frame(el(role))) == []
    assert lines(frame(el(role, "Named"))) == [f'1: {role} "Named"']
    assert lines(frame(el(role, None, el("button", "B")))) == [f"1: {role}", '  2: button "B"']
    assert lines(frame(el(role, None, el("paragraph", None, text("t"))))) == [
        f"1: {role}",
        '  2: text "t"',
    ]


def test_structure_whose_only_content_is_carried_text_disappears() -> None:
    # The list's text is carried by the link above: nothing printed below the list.
    top = frame(el("link", "Go", el("list", None, el("generic", None, text("Go")))))
    assert lines(top) == ['1: link "Go"', "  2: list", '    3: text "Go"']
    top = frame(el("link", "Go", el("list", None, el("generic", None, text("  ")))))
    assert lines(top) == ['1: link "Go"']


def test_img_only_when_named() -> None:
    assert lines(frame(el("img", None), el("image", "Logo"), el("img", "Cat"))) == [
        '1: img "Logo"',
        '2: img "Cat"',
    ]


@pytest.mark.parametrize("role", ["paragraph", "term", "definition", "blockquote", "code", "note"])
def test_other_roles_only_when_named(role: str) -> None:
    top = frame(el(role, None, el("button", "B")), el(role, "Named", el("button", "C")))
    assert lines(top) == ['1: button "B"', f'2: {role} "Named"', '  3: button "C"']


def test_never_printed_roles_and_their_children_move_up() -> None:
    top = frame(
        el("generic", None, el("button", "A")),
        el("none", None, el("button", "B")),
        el("presentation", None, el("button", "C")),
        ignored(el("button", "D")),
        el("MenuListPopup", None, el("option", "E")),
        el("LayoutTable", None, el("LayoutTableRow", None, el("LayoutTableCell", None, text("F")))),
        el("RootWebArea", "inner doc", el("button", "G")),
        el("LineBreak", "\n"),
        el("ListMarker", "• ", text("• ")),
    )
    assert lines(top) == [
        '1: button "A"',
        '2: button "B"',
        '3: button "C"',
        '4: button "D"',
        '5: option "E"',
        '6: text "F"',
        '7: button "G"',
    ]


def test_named_generic_is_printed() -> None:
    assert lines(frame(el("generic", "Toolbar area", el("button", "X")))) == [
        '1: generic "Toolbar area"',
        '  2: button "X"',
    ]


@pytest.mark.parametrize(
    ("internal", "printed"),
    [
        ("StaticText", None),
        ("LabelText", "label"),
        ("DescriptionListTerm", "term"),
        ("DescriptionListDetail", "definition"),
        ("DescriptionList", "list"),
        ("DisclosureTriangle", "button"),
        ("PopUpButton", "combobox"),
        ("ListBoxOption", "option"),
        ("MenuListOption", "option"),
        ("ToggleButton", "button"),
        ("RadioButton", "radio"),
        ("IframePresentational", "iframe"),
        ("Figcaption", "caption"),
        ("CheckBox", "checkbox"),
        ("doc-abstract", "docabstract"),
        ("graphics-document", "graphicsdocument"),
        ("Canvas", "canvas"),
    ],
)
def test_role_mapping(internal: str, printed: str | None) -> None:
    out = lines(frame(el(internal, "X")))
    expected = '1: text "X"' if printed is None else f'1: {printed} "X"'
    assert out == [expected]


def test_unmappable_role_is_transparent() -> None:
    assert lines(frame(el("1-2-3", "X", el("button", "B")))) == ['1: button "B"']


def test_summary_disclosure_triangle_is_a_button_with_expanded() -> None:
    top = frame(el("DisclosureTriangle", "More", text("More"), expanded=False))
    assert lines(top) == ['1: button "More" collapsed']


def test_ignored_nodes_children_move_up_to_nearest_printed_ancestor() -> None:
    top = frame(el("list", None, ignored(ignored(el("listitem", None, el("link", "L"))))))
    assert lines(top) == ["1: list", "  2: listitem", '    3: link "L"']


def test_ignored_node_with_a_printable_role_is_not_printed() -> None:
    top = frame(el("button", "Hidden", el("link", "Shown"), ignored=True))
    assert lines(top) == ['1: link "Shown"']


def test_inline_text_boxes_never_printed() -> None:
    top = frame(el("main", None, el("InlineTextBox", "ghost"), text("real")))
    assert lines(top) == ["1: main", '  2: text "real"']


def test_document_root_not_printed_and_title_is_caller_supplied() -> None:
    top = frame(el("button", "B"), title="Doc")
    assert render(top, title=None) == '1: button "B"\n'
    assert render(top, title="Doc") == 'Page: "Doc"\n\n1: button "B"\n'


def test_empty_frame_and_empty_nodes() -> None:
    assert build_tree(FrameAX("F", [])) == []
    assert render(frame()) == ""
    assert render(frame(), title="Only a title") == 'Page: "Only a title"\n\n'


# --- values -----------------------------------------------------------------


def test_value_only_when_different_from_name_and_nonempty() -> None:
    top = frame(
        el("combobox", "Red", value="Red"),
        el("combobox", "Color", value="Red"),
        el("textbox", "Empty", value="   "),
        el("textbox", "Spaces", value="a \n b"),
        el("textbox", "a  b", value="a b"),
    )
    assert lines(top) == [
        '1: combobox "Red"',
        '2: combobox "Color" value="Red"',
        '3: textbox "Empty"',
        '4: textbox "Spaces" value="a b"',
        '5: textbox "a b"',
    ]


@pytest.mark.parametrize(("raw", "shown"), [(5, "5"), (5.0, "5"), (0.25, "0.25"), (-3, "-3")])
def test_numeric_values(raw: float, shown: str) -> None:
    spec = el("slider", "Volume", value=raw)
    spec.value_type = "number"
    assert lines(frame(spec)) == [f'1: slider "Volume" value="{shown}"']


def test_non_string_name_is_converted() -> None:
    node = AXNode(
        "2", role=AXValue("role", "button"), name=AXValue("number", 3.0), backendDOMNodeId=5
    )
    root = AXNode("1", role=AXValue("role", "RootWebArea"), childIds=["2"])
    assert build_tree(FrameAX("F", [root, node]))[0].name == "3"


# --- states -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("properties", "states"),
    [
        ({"focused": True}, "focused"),
        ({"disabled": True}, "disabled"),
        ({"checked": "true"}, "checked"),
        ({"checked": "false"}, ""),
        ({"checked": "mixed"}, "mixed"),
        ({"pressed": "true"}, "pressed"),
        ({"pressed": "mixed"}, "mixed"),
        ({"pressed": "false"}, ""),
        ({"expanded": True}, "expanded"),
        ({"expanded": False}, "collapsed"),
        ({"selected": True}, "selected"),
        ({"selected": False}, ""),
        ({"required": True}, "required"),
        ({"readonly": True}, "readonly"),
        ({"multiline": True}, "multiline"),
        ({"focused": False, "disabled": False, "required": False}, ""),
        ({"focusable": True, "invalid": "false", "level": 2, "hasPopup": "menu"}, ""),
    ],
)
def test_each_state(properties: dict[str, object], states: str) -> None:
    line = lines(frame(el("button", "B", **properties)))[0]
    assert line == ('1: button "B"' + (f" {states}" if states else ""))


def test_states_in_grammar_order() -> None:
    every = {
        "pressed": "true",
        "multiline": True,
        "readonly": True,
        "required": True,
        "selected": True,
        "expanded": True,
        "checked": "true",
        "disabled": True,
        "focused": True,
    }
    line = lines(frame(el("button", "B", **every)))[0]
    assert line == (
        '1: button "B" focused disabled checked expanded selected'
        " required readonly multiline pressed"
    )
    line = lines(frame(el("button", "B", pressed="mixed", expanded=False, focused=True)))[0]
    assert line == '1: button "B" focused collapsed mixed'


def test_option_under_select_selected() -> None:
    select = el(
        "combobox",
        "Size",
        el(
            "MenuListPopup",
            None,
            el("option", "S", selected=False),
            el("option", "M", selected=True),
        ),
        value="M",
        expanded=False,
        hasPopup="menu",
    )
    assert lines(frame(select)) == [
        '1: combobox "Size" value="M" collapsed',
        '  2: option "S"',
        '  3: option "M" selected',
    ]


def test_label_with_nested_input() -> None:
    top = frame(el("LabelText", None, text("Lab "), el("textbox", "Lab", editable="plaintext")))
    assert lines(top) == ['1: textbox "Lab"']  # the label's text is the textbox's name


# --- robustness -------------------------------------------------------------


def test_deep_nesting_does_not_recurse() -> None:
    depth = 5000
    nodes = [AXNode("0", role=AXValue("role", "RootWebArea"), childIds=["1"])]
    for i in range(1, depth):
        nodes.append(
            AXNode(str(i), role=AXValue("role", "group"), childIds=[str(i + 1)], backendDOMNodeId=i)
        )
    nodes.append(
        AXNode(
            str(depth),
            role=AXValue("role", "button"),
            name=AXValue("s", "Deep"),
            backendDOMNodeId=depth,
        )
    )
    roots = build_tree(FrameAX("F", nodes))
    node = roots[0]
    count = 1
    while node.children:
        node = node.children[0]
        count += 1
    assert (count, node.role, node.name) == (depth, "button", "Deep")


def test_cycles_and_duplicate_child_ids_terminate() -> None:
    nodes = [
        AXNode("1", role=AXValue("role", "RootWebArea"), childIds=["2", "2", "1"]),
        AXNode(
            "2", role=AXValue("role", "group"), name=AXValue("s", "G"), childIds=["3", "missing"]
        ),
        AXNode("3", role=AXValue("role", "button"), name=AXValue("s", "B"), childIds=["2", "1"]),
    ]
    assert lines(FrameAX("F", nodes)) == ['1: group "G"', '  2: button "B"']


def test_missing_role_is_transparent() -> None:
    assert lines(frame(el(None, "x", el("button", "B")))) == ['1: button "B"']
