"""Label text: an unprinted ``<label>`` does not repeat its control's name.

The AX trees are shaped like Chrome's (checked against Chrome 1xx): a
``<label>`` is an unnamed ``LabelText`` whose text is ``StaticText``; the
control it labels is its child (wrapping) or a sibling (``for=``).
"""

from __future__ import annotations

from kobrowser.snapshot import build_tree

from ._ax_builders import Spec, el, frame, frame_spec, iframe, ignored, text, textbox
from ._helpers import backend_of, lines


def label(*children: Spec) -> Spec:
    """An unprinted ``<label>`` as Chrome reports it: unnamed ``LabelText``."""
    return el("LabelText", "", *children)


def test_label_for_a_textbox_before_it() -> None:
    # <label for=e>Email</label><input id=e value=ana@example.com required>
    top = frame(
        el(
            "main",
            None,
            label(text("Email")),
            textbox("Email", "ana@example.com", required=True),
        )
    )
    assert lines(top) == ["1: main", '  2: textbox "Email" value="ana@example.com" required']


def test_label_for_a_checkbox_after_it() -> None:
    # <input type=checkbox id=c><label for=c>Subscribe</label>
    top = frame(el("checkbox", "Subscribe", checked="false"), label(text("Subscribe")))
    assert lines(top) == ['1: checkbox "Subscribe"']


def test_label_wrapping_an_input() -> None:
    # <label>Lab <input></label>
    top = frame(label(text("Lab "), textbox("Lab", "")), text("after"))
    assert lines(top) == ['1: textbox "Lab"', '2: text "after"']


def test_label_wrapping_a_checkbox_with_trailing_text() -> None:
    # <label><input type=checkbox> Agree to the <a>terms</a></label>
    top = frame(
        label(
            el("checkbox", "Agree to the terms", checked="true"),
            text(" Agree to the "),
            el("link", "terms", text("terms")),
        )
    )
    assert lines(top) == ['1: checkbox "Agree to the terms" checked', '2: link "terms"']


def test_label_text_split_over_pieces_around_a_nested_control() -> None:
    # <label>Send me <input type=number value=3> emails</label>
    spin = el("spinbutton", "Send me emails", value=3)
    spin.value_type = "number"
    top = frame(label(text("Send me "), spin, text(" emails")))
    assert lines(top) == ['1: spinbutton "Send me emails" value="3"']


def test_label_text_that_differs_from_the_name_is_kept() -> None:
    # <label for=h>Name (as on card)</label><input id=h aria-label="Full name">
    top = frame(label(text("Name (as on card)")), textbox("Full name", ""))
    assert lines(top) == ['1: text "Name (as on card)"', '2: textbox "Full name"']


def test_label_with_help_text_is_kept_whole() -> None:
    # <label for=p>Password <small>8+ chars</small></label><input aria-label=Password>
    # (Chrome ignores the <small>.)
    top = frame(
        label(text("Password "), ignored(text("8+ chars"))),
        textbox("Password", ""),
    )
    assert lines(top) == ['1: text "Password 8+ chars"', '2: textbox "Password"']


def test_label_with_no_control_is_kept() -> None:
    top = frame(el("main", None, el("heading", "Email"), label(text("Email"))))
    assert lines(top) == ["1: main", '  2: heading "Email"', '  3: text "Email"']


def test_label_not_next_to_its_control_is_kept() -> None:
    # Another text (or label) between the label and the control: no association.
    top = frame(
        label(text("City")),
        text("(required)"),
        textbox("City", ""),
        label(text("Zip")),
        label(text("Code")),
        textbox("Zip", ""),
    )
    # (A label is an element Chrome keeps: its text is a run of its own.)
    assert lines(top) == [
        '1: text "City"',
        '2: text "(required)"',
        '3: textbox "City"',
        '4: text "Zip"',
        '5: text "Code"',
        '6: textbox "Zip"',
    ]


def test_link_and_iframe_are_not_labelable() -> None:
    top = frame(
        label(text("Docs")),
        el("link", "Docs"),
        label(text("Map")),
        iframe("Map", frame_spec(el("button", "Zoom"))),
    )
    assert lines(top) == [
        '1: text "Docs"',
        '2: link "Docs"',
        '3: text "Map"',
        '4: iframe "Map"',
        '  5: button "Zoom"',
    ]


def test_whitespace_line_breaks_and_blocks_between_label_and_control() -> None:
    # <label for=a>Phone</label><br><input id=a>, <label for=b>Town</label> <input id=b>,
    # <p><label for=c>City</label></p><p><input id=c></p>
    top = frame(
        el(
            "main",
            None,
            label(text("Phone")),
            el("LineBreak", "\n"),
            textbox("Phone", ""),
            label(text("Town")),
            text(" "),
            textbox("Town", ""),
            el("paragraph", None, label(text("City"))),
            el("paragraph", None, textbox("City", "")),
        )
    )
    assert lines(top) == [
        "1: main",
        '  2: textbox "Phone"',
        '  3: textbox "Town"',
        '  4: textbox "City"',
    ]


def test_dropped_label_leaves_surrounding_text_alone() -> None:
    top = frame(
        el(
            "form",
            "Signup",
            text("Hello"),
            label(text("Email")),
            textbox("Email", ""),
            text("We never share it."),
            el("checkbox", "Agree"),
            label(text("Agree")),
            text("Thanks"),
        )
    )
    assert lines(top) == [
        '1: form "Signup"',
        '  2: text "Hello"',
        '  3: textbox "Email"',
        '  4: text "We never share it."',
        '  5: checkbox "Agree"',
        '  6: text "Thanks"',
    ]


def test_control_in_another_printed_parent_is_not_associated() -> None:
    top = frame(
        el("listitem", None, label(text("Email"))),
        el("listitem", None, textbox("Email", "")),
    )
    assert lines(top) == [
        "1: listitem",
        '  2: text "Email"',
        "3: listitem",
        '  4: textbox "Email"',
    ]


def test_named_label_is_a_carrier_not_affected() -> None:
    # <label aria-label="Field label">Label text <input aria-label="Inner field"></label>
    top = frame(el("LabelText", "Field label", text("Label text "), textbox("Inner field", "")))
    assert lines(top) == [
        '1: label "Field label"',
        '  2: text "Label text"',
        '  3: textbox "Inner field"',
    ]


def test_label_inside_a_printed_parent_and_in_a_child_frame() -> None:
    top = frame(
        el("group", "Delivery", label(text("Fast")), el("radio", "Fast")),
        iframe("Pay", frame_spec(label(text("Card"), textbox("Card", "")))),
    )
    assert lines(top) == [
        '1: group "Delivery"',
        '  2: radio "Fast"',
        '3: iframe "Pay"',
        '  4: textbox "Card"',
    ]


def test_scope_on_the_label_and_its_control() -> None:
    top = frame(label(text("Email")), textbox("Email", ""), label(text("Other")))
    scope = {
        ("MAIN", backend_of(top, "LabelText")),
        ("MAIN", backend_of(top, "textbox", "Email")),
    }
    assert lines(top, scope=scope) == ['1: textbox "Email"']
    only_label = {("MAIN", backend_of(top, "LabelText"))}
    assert lines(top, scope=only_label) == ['1: text "Email"']


def test_nested_labels() -> None:
    top = frame(label(text("Outer "), label(text("Inner "), el("checkbox", "Inner"))))
    assert lines(top) == ['1: text "Outer"', '2: checkbox "Inner"']


def test_built_tree_has_no_marker_left() -> None:
    top = frame(
        label(text("A ")),
        label(text("B"), el("checkbox", "B")),
        label(),
        label(el("LineBreak", "\n"), el("checkbox", "C")),
        label(text("  "), el("checkbox", "D")),
    )
    roots = build_tree(top)
    assert [(n.role, n.name) for n in roots] == [
        ("text", "A"),
        ("checkbox", "B"),
        ("checkbox", "C"),
        ("checkbox", "D"),
    ]
