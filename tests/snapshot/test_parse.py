"""parse_snapshot: the grammar, the checks and the documented ambiguity."""

from __future__ import annotations

import pytest

from kobrowser.snapshot import Node, ParsedSnapshot, SnapshotLine, format_snapshot, parse_snapshot


def test_parse_spec_example() -> None:
    text = (
        'Page: "Checkout - Example Shop"\n'
        "\n"
        "1: banner\n"
        '  2: searchbox "Search products" focused\n'
        '  3: textbox "Email" value="ana@example.com" required\n'
        '  4: iframe "Payment"\n'
        '    5: textbox value="x" focused disabled\n'
        "6: button pressed\n"
    )
    assert parse_snapshot(text) == ParsedSnapshot(
        "Checkout - Example Shop",
        (
            SnapshotLine(1, 0, "banner", None, None, ()),
            SnapshotLine(2, 1, "searchbox", "Search products", None, ("focused",)),
            SnapshotLine(3, 1, "textbox", "Email", "ana@example.com", ("required",)),
            SnapshotLine(4, 1, "iframe", "Payment", None, ()),
            SnapshotLine(5, 2, "textbox", None, "x", ("focused", "disabled")),
            SnapshotLine(6, 0, "button", None, None, ("pressed",)),
        ),
    )


def test_parse_empty_and_title_only() -> None:
    assert parse_snapshot("") == ParsedSnapshot(None, ())
    assert parse_snapshot('Page: "a "b" c"\n\n') == ParsedSnapshot('a "b" c', ())


def test_quotes_and_state_words_inside_names() -> None:
    text = '1: button "Mark as "checked" focused" focused\n2: link "say "hi""\n3: link """\n'
    lines = parse_snapshot(text).lines
    assert lines[0].name == 'Mark as "checked" focused' and lines[0].states == ("focused",)
    assert lines[1].name == 'say "hi"'
    assert lines[2].name == '"'


def test_misspelt_value_is_part_of_the_name() -> None:
    # Names keep their quotes, so this is a name, not a malformed value.
    line = parse_snapshot('1: button "b" valu="x"\n').lines[0]
    assert (line.name, line.value) == ('b" valu="x', None)


def test_value_with_quotes() -> None:
    line = parse_snapshot('1: textbox "n"" value="v" x"" required\n').lines[0]
    assert (line.name, line.value, line.states) == ('n"', 'v" x"', ("required",))


def test_known_ambiguity_is_deterministic() -> None:
    # A name containing `" value="` on a line without value: split at the last marker.
    roots = [Node("link", 'x" value="y', None, (), "F", None, [])]
    text, _ = format_snapshot(roots, title=None)
    assert text == '1: link "x" value="y"\n'
    line = parse_snapshot(text).lines[0]
    assert (line.name, line.value) == ("x", "y")
    # A value containing the marker: the name takes everything up to its last occurrence.
    line = parse_snapshot('1: textbox "n" value="a" value="b"\n').lines[0]
    assert (line.name, line.value) == ('n" value="a', "b")
    # text lines never carry a value, so HTML shown as text parses back exactly.
    line = parse_snapshot('1: text "<input type="text" value="hello">"\n').lines[0]
    assert (line.name, line.value) == ('<input type="text" value="hello">', None)


@pytest.mark.parametrize(
    ("text", "lineno"),
    [
        ("1: button", 1),
        ("0: button\n", 1),
        ("01: button\n", 1),
        ("1: Button\n", 1),
        ("1: butt0n\n", 1),
        ("1:button\n", 1),
        ("1: button\n3: link\n", 2),
        ("1: button\n   2: link\n", 2),
        ("1: button\n    2: link\n", 2),
        ("  1: button\n", 1),
        ("1: button focused focused\n", 1),
        ("1: button disabled focused\n", 1),
        ("1: button hovered\n", 1),
        ('1: button "b"focused\n', 1),
        ("1: button  focused\n", 1),
        ('1: button name"\n', 1),
        (f'1: button "{"a" * 81}"\n', 1),
        (f'1: textbox "a" value="{"v" * 51}"\n', 1),
        ('Page: "t"\n1: button\n', 2),
        ("Page: t\n\n1: button\n", 1),
        (f'Page: "{"t" * 81}"\n\n', 1),
        ("\n", 1),
    ],
)
def test_rejects_text_off_the_format(text: str, lineno: int) -> None:
    with pytest.raises(ValueError, match=rf"^line {lineno}:"):
        parse_snapshot(text)


def test_unicode_and_truncated_forms_parse() -> None:
    name = "\u4e2d" * 77 + "..."
    value = "\U0001f600" * 50
    text = f'1: link "{name}" value="{value}"\n'
    line = parse_snapshot(text).lines[0]
    assert (line.name, line.value) == (name, value)


def test_text_limit_none_reads_back_whole_names_with_quotes() -> None:
    long_name = 'He said "stop" and ' + "x" * 200 + ' "quoted end"'
    nodes = [
        Node("text", long_name, None, ("clickable",), "F", 1, []),
        Node("textbox", 'a "b"', "v" * 120, ("focused", "focusable"), "F", 2, []),
        Node("generic", "", None, ("clickable", "focusable"), "F", 3, []),
    ]
    text, _ = format_snapshot(nodes, title="T" * 120, text_limit=None)
    parsed = parse_snapshot(text, text_limit=None)
    assert parsed.title == "T" * 120
    assert [(line.role, line.name, line.value, line.states) for line in parsed.lines] == [
        ("text", long_name, None, ("clickable",)),
        ("textbox", 'a "b"', "v" * 120, ("focused", "focusable")),
        ("generic", None, None, ("clickable", "focusable")),
    ]
    with pytest.raises(ValueError, match="line 1: title longer than 80"):
        parse_snapshot(text)


def test_parse_checks_lengths_at_the_given_text_limit() -> None:
    node = Node("button", "n" * 150, "v" * 90, (), "F", 1, [])
    text, _ = format_snapshot([node], title=None, text_limit=150)
    assert parse_snapshot(text, text_limit=150).lines[0].name == "n" * 150
    with pytest.raises(ValueError, match="line 1: name longer than 80"):
        parse_snapshot(text)
    with pytest.raises(ValueError, match="line 1: value longer than 50"):
        parse_snapshot('1: button value="' + "v" * 51 + '"\n')


def test_kobrowser_states_come_after_the_seed_states() -> None:
    assert parse_snapshot("1: generic collapsed clickable focusable\n").lines[0].states == (
        "collapsed",
        "clickable",
        "focusable",
    )
    with pytest.raises(ValueError, match="out of order"):
        parse_snapshot("1: generic clickable focused\n")


def test_ids_in_any_order_parse_but_not_twice() -> None:
    # Stable ids (launch(ids="stable")) print in document order, not ascending.
    parsed = parse_snapshot('7: button "New"\n2: list\n  3: listitem\n', ids="stable")
    assert [line.id for line in parsed.lines] == [7, 2, 3]
    assert [line.depth for line in parsed.lines] == [0, 0, 1]
    with pytest.raises(ValueError, match="line 2: id 7 again"):
        parse_snapshot('7: button "New"\n7: list\n', ids="stable")
    with pytest.raises(ValueError, match="line 1: id 7, expected 1"):
        parse_snapshot('7: button "New"\n2: list\n')  # the default numbering checks order
    with pytest.raises(ValueError, match="ids"):
        parse_snapshot("1: button\n", ids="random")
