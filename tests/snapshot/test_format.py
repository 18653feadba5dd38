"""Numbering, indentation, names, values, truncation (docs/snapshot-format.md, grammar)."""

from __future__ import annotations

import pytest

from kobrowser.snapshot import Node, format_snapshot

from ._ax_builders import el, frame, text
from ._helpers import lines, render


def _node(
    role: str,
    name: str = "",
    value: str | None = None,
    *children: Node,
    states: tuple[str, ...] = (),
) -> Node:
    return Node(role, name, value, states, "F", None, list(children))


def test_numbering_pre_order_and_indent() -> None:
    roots = [
        _node(
            "main",
            "",
            None,
            _node("list", "", None, _node("link", "a"), _node("link", "b")),
            _node("button", "c"),
        ),
        _node("link", "d"),
    ]
    out, nodes = format_snapshot(roots, title=None)
    assert out == (
        '1: main\n  2: list\n    3: link "a"\n    4: link "b"\n  5: button "c"\n6: link "d"\n'
    )
    assert [n.name for n in nodes] == ["", "", "a", "b", "c", "d"]
    assert nodes[0] is roots[0] and nodes[5] is roots[1]


def test_empty() -> None:
    assert format_snapshot([], title=None) == ("", [])
    assert format_snapshot([], title="   \n ") == ("", [])


def test_title_rules() -> None:
    roots = [_node("button", "b")]
    assert (
        format_snapshot(roots, title=' My\n"Shop"\t ')[0] == 'Page: "My "Shop""\n\n1: button "b"\n'
    )
    long_title = "t" * 81
    assert format_snapshot(roots, title=long_title)[0].startswith(f'Page: "{"t" * 77}..."\n\n')
    assert format_snapshot(roots, title="t" * 80)[0].startswith(f'Page: "{"t" * 80}"\n\n')


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("a" * 80, "a" * 80),
        ("a" * 81, "a" * 77 + "..."),
        ("\u4e2d" * 81, "\u4e2d" * 77 + "..."),  # CJK: one code point each
        ("\U0001f600" * 80, "\U0001f600" * 80),  # emoji outside the BMP: one each
        ("\U0001f600" * 81, "\U0001f600" * 77 + "..."),
        ("x" * 76 + "\U0001f680" * 5, "x" * 76 + "\U0001f680" + "..."),
    ],
)
def test_name_truncation_by_code_points(name: str, printed: str) -> None:
    assert lines(frame(el("button", name))) == [f'1: button "{printed}"']


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        ("v" * 50, "v" * 50),
        ("v" * 51, "v" * 47 + "..."),
        ("\u00e9" * 60, "\u00e9" * 47 + "..."),
        ("\U0001f44d" * 51, "\U0001f44d" * 47 + "..."),
    ],
)
def test_value_truncation_by_code_points(value: str, printed: str) -> None:
    assert lines(frame(el("textbox", "T", value=value))) == [f'1: textbox "T" value="{printed}"']


def test_name_kept_whole_in_node_and_truncated_only_in_text() -> None:
    out, nodes = format_snapshot([_node("link", "n" * 100, "v" * 60)], title=None)
    assert nodes[0].name == "n" * 100 and nodes[0].value == "v" * 60
    assert out == f'1: link "{"n" * 77}..." value="{"v" * 47}..."\n'


def test_truncation_happens_after_whitespace_normalization() -> None:
    name = "word " * 20  # 100 chars raw, 99 normalized
    printed = " ".join(["word"] * 20)[:77] + "..."
    assert lines(frame(el("link", name))) == [f'1: link "{printed}"']


def test_quotes_and_newlines_in_names() -> None:
    top = frame(
        el("button", 'Say "hi"'),
        el("link", "two\nlines\r\nhere"),
        el("textbox", 'a "q"', value='b "v"'),
        el("main", None, text('He said "no"')),
    )
    assert lines(top) == [
        '1: button "Say "hi""',
        '2: link "two lines here"',
        '3: textbox "a "q"" value="b "v""',
        "4: main",
        '  5: text "He said "no""',
    ]


def test_value_without_name() -> None:
    assert lines(frame(el("textbox", None, value="typed"))) == ['1: textbox value="typed"']


def test_states_without_name() -> None:
    assert lines(frame(el("checkbox", None, checked="true", focused=True))) == [
        "1: checkbox focused checked"
    ]


def test_every_line_ends_with_newline_and_page_line_has_blank_line() -> None:
    out = render(frame(el("button", "b"), el("link", "l")), title="T")
    assert out == 'Page: "T"\n\n1: button "b"\n2: link "l"\n'


# --- text_limit ----------------------------------------------------------------


def _one(name: str, value: str | None = None, title: str | None = None, **kw: object) -> str:
    node = Node("textbox", name, value, (), "F", 1, [])
    return format_snapshot([node], title=title, **kw)[0]  # type: ignore[arg-type]


def test_text_limit_default_is_80_and_50() -> None:
    assert _one("n" * 81, "v" * 51) == f'1: textbox "{"n" * 77}..." value="{"v" * 47}..."\n'
    assert _one("n" * 81, "v" * 51, text_limit=80) == _one("n" * 81, "v" * 51)


def test_text_limit_scales_values_to_five_eighths() -> None:
    assert _one("n" * 201, "v" * 126, text_limit=200) == (
        f'1: textbox "{"n" * 197}..." value="{"v" * 122}..."\n'
    )
    assert _one("n" * 200, "v" * 125, text_limit=200) == (
        f'1: textbox "{"n" * 200}" value="{"v" * 125}"\n'
    )
    # 5/8 of 10 is 6 (rounded down); never below 4.
    assert (
        _one("abcdefghijk", "uvwxyz1", text_limit=10) == '1: textbox "abcdefg..." value="uvw..."\n'
    )
    assert _one("abcde", "uvwxy", text_limit=4) == '1: textbox "a..." value="u..."\n'


def test_text_limit_none_prints_names_values_and_title_whole() -> None:
    name, value, title = "n" * 500, "v" * 300, "t " * 100
    text = _one(name, value, title=title, text_limit=None)
    assert text == f'Page: "{" ".join(title.split())}"\n\n1: textbox "{name}" value="{value}"\n'
    assert _one("n" * 90, title="t" * 90, text_limit=20).startswith(f'Page: "{"t" * 17}..."')


@pytest.mark.parametrize("bad", [0, 3, -1, 2.5, "80", True])
def test_text_limit_rejects_bad_values(bad: object) -> None:
    with pytest.raises(ValueError, match="text_limit"):
        _one("x", text_limit=bad)
