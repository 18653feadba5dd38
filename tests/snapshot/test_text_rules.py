"""Text lines: carried text, merging, blocks, text fields, list markers."""

from __future__ import annotations

from kobrowser.snapshot import build_tree

from ._ax_builders import el, frame, ignored, text, textbox
from ._helpers import lines

# --- text ------------------------------------------------------------------


def test_link_button_heading_text_not_repeated() -> None:
    top = frame(
        el("link", "Home", text("Home")),
        el("button", "Save all", text("Save"), el("strong", None, text(" all"))),
        el("heading", "Intro", text("Intro")),
    )
    assert lines(top) == ['1: link "Home"', '2: button "Save all"', '3: heading "Intro"']


def test_text_split_inside_words_is_still_carried() -> None:
    # <h1>un<b>believ</b>able</h1>: pieces joined with spaces are not a substring
    # of the name, but every piece is.
    top = frame(
        el("heading", "unbelievable", text("un"), el("strong", None, text("believ")), text("able"))
    )
    assert lines(top) == ['1: heading "unbelievable"']


def test_text_not_in_name_is_printed_whole() -> None:
    top = frame(el("button", "Close", text("\u00d7"), text(" Close")))
    # The sign is not in the name, so the run is printed whole, " Close" included.
    assert lines(top) == ['1: button "Close"', '  2: text "\u00d7 Close"']


def test_adjacent_text_merges_same_parent_directly_other_parents_with_space() -> None:
    top = frame(
        el(
            "main",
            None,
            text("Hello "),
            text("wor"),
            text("ld"),
            ignored(text("second")),
            el("emphasis", None, text("third")),
            text("fourth"),
        )
    )
    # An ignored node does not end the run (its pieces join with a space: a
    # different parent); an inline role like emphasis neither, and its text
    # joins as if it were its parent's (``<em>third</em>fourth``).
    assert lines(top) == ["1: main", '  2: text "Hello world second thirdfourth"']


def test_every_kept_element_ends_text_runs() -> None:
    # <div>block one</div><div>block two</div>, a kept <span> (a listener, an
    # id) in a paragraph, a layout table cell: each its own line.
    top = frame(
        el(
            "main",
            None,
            el("generic", None, text("block one")),
            el("generic", None, text("block two")),
            el(
                "paragraph",
                None,
                text("Faucibus libero "),
                el("generic", None, text("massa")),
                text(" nec."),
            ),
            el("LayoutTableCell", None, text("cell")),
            text("after"),
            el("generic", None),  # empty: ends nothing
            text(" tail"),
        )
    )
    assert lines(top) == [
        "1: main",
        '  2: text "block one"',
        '  3: text "block two"',
        '  4: text "Faucibus libero"',
        '  5: text "massa"',
        '  6: text "nec."',
        '  7: text "cell"',
        '  8: text "after tail"',
    ]


def test_paragraph_like_blocks_end_text_runs() -> None:
    top = frame(
        el(
            "main",
            None,
            text("before"),
            el("paragraph", None, text("one "), el("strong", None, text("bold"))),
            el("paragraph", None, text("two")),
            el("blockquote", None, text("quoted")),
            text("after"),
            el("paragraph", None),
            el(
                "DescriptionList",
                None,
                el("term", None, text("Tea")),
                el("definition", None, text("Hot")),
            ),
        )
    )
    assert lines(top) == [
        "1: main",
        '  2: text "before"',
        '  3: text "one bold"',
        '  4: text "two"',
        '  5: text "quoted"',
        '  6: text "after"',
        "  7: list",
        '    8: text "Tea"',
        '    9: text "Hot"',
    ]


def test_empty_paragraph_does_not_keep_a_structure_alive() -> None:
    top = frame(
        el(
            "list",
            None,
            el("paragraph", None, el("LineBreak", "\n")),
            el("paragraph", None, text(" ")),
        )
    )
    assert lines(top) == []


def test_line_break_separates_pieces_with_a_space() -> None:
    top = frame(
        el("main", None, el("paragraph", None, text("one"), el("LineBreak", "\n"), text("two")))
    )
    assert lines(top) == ["1: main", '  2: text "one two"']


def test_printed_element_splits_text_runs() -> None:
    top = frame(
        el(
            "main",
            None,
            el(
                "paragraph",
                None,
                text("Read the "),
                el("link", "docs", text("docs")),
                text(" now."),
            ),
        )
    )
    assert lines(top) == [
        "1: main",
        '  2: text "Read the"',
        '  3: link "docs"',
        '  4: text "now."',
    ]


def test_whitespace_only_text_dropped_and_whitespace_normalized() -> None:
    top = frame(
        el("main", None, text(" \n\t "), text("a\u00a0\u00a0b\n\nc  ")),
    )
    assert lines(top) == ["1: main", '  2: text "a b c"']


def test_text_carried_only_by_nearest_printed_ancestor() -> None:
    # The cell carries its own text; the text in the nested list is under the
    # list (unnamed), so it is printed.
    top = frame(
        el("cell", "Total", text("Total"), el("list", None, el("listitem", None, text("Total"))))
    )
    assert lines(top) == [
        '1: cell "Total"',
        "  2: list",
        "    3: listitem",
        '      4: text "Total"',
    ]


def test_text_nodes_keep_frame_and_backend_of_first_piece() -> None:
    top = frame(el("main", None, text("a", backend=77), text("b", backend=78)))
    roots = build_tree(top)
    node = roots[0].children[0]
    assert (node.role, node.name, node.frame_id, node.backend_node_id) == ("text", "ab", "MAIN", 77)


# --- text fields -----------------------------------------------------------


def test_text_field_inner_text_not_printed() -> None:
    top = frame(textbox("Name", "abc"), textbox("Notes", "line1\nline2", multiline=True))
    assert lines(top) == [
        '1: textbox "Name" value="abc"',
        '2: textbox "Notes" value="line1 line2" multiline',
    ]


def test_contenteditable_keeps_elements_drops_text() -> None:
    editor = el(
        "textbox",
        "Body",
        el("paragraph", None, text("Hi "), el("link", "there", text("there"))),
        value="Hi there",
        editable="richtext",
        multiline=True,
    )
    assert lines(frame(editor)) == [
        '1: textbox "Body" value="Hi there" multiline',
        '  2: link "there"',
    ]


def test_non_editable_textbox_text_is_printed() -> None:
    assert lines(frame(el("textbox", "Fake", text("shown")))) == [
        '1: textbox "Fake"',
        '  2: text "shown"',
    ]


def test_password_value_hidden() -> None:
    top = frame(textbox("Password", "\u2022" * 7), textbox("Bullets", "\u2022 list"))
    assert lines(top) == ['1: textbox "Password"', '2: textbox "Bullets" value="\u2022 list"']


def test_marker_of_presentational_list_item_is_dropped() -> None:
    # <ul role=none><li role=none>: Chrome reports the ::marker as an ignored
    # node over a StaticText without a DOM node.
    top = frame(
        ignored(ignored(ignored(text("\u2022 ", backend=None)), el("link", "One", text("One")))),
        ignored(ignored(text("12. ", backend=None)), text("Twelfth")),
    )
    assert lines(top) == ['1: link "One"', '2: text "Twelfth"']


def test_generated_content_and_real_marker_like_text_are_kept() -> None:
    top = frame(
        el("LabelText", None, text("Email"), ignored(text(" *", backend=None))),
        el("generic", None, ignored(text("New ", backend=None)), text("Thing")),
        el("cell", None, text("1.")),
        el("generic", None, ignored(text("\u2022"))),
    )
    # (the label and the generics are kept elements: each a run of its own)
    assert lines(top) == [
        '1: text "Email *"',
        '2: text "New Thing"',
        "3: cell",
        '  4: text "1."',
        '5: text "\u2022"',
    ]
