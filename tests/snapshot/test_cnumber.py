"""The C numbering (``_cwalk.number``, ``_cnumber.h``) against ``_format._format_elements``.

The Python numbering is the reference: on every random printed tree (names
and values of every Unicode kind, lone surrogates, ones just over and far
over the limits, states, deep and wide trees) the C numbering must give the
same text (equal, so of the same string kind too), make the same entries in
the same order with the same arguments, and never give up (``None``) on
well-formed trees, which would silently test nothing. On a tree it does not
read it gives up, and ``format_snapshot`` answers through Python.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.snapshot import Node, _format, _tree, format_snapshot
from kobrowser.snapshot._text import limits

CNUMBER = _format._CNUMBER
pytestmark = pytest.mark.skipif(CNUMBER is None, reason="kobrowser.snapshot._cwalk is not built")

TEXT = st.text(
    st.one_of(
        st.characters(max_codepoint=0x7F),
        st.characters(min_codepoint=0x80, max_codepoint=0xFF),
        st.characters(min_codepoint=0x100, max_codepoint=0xFFFF),
        st.characters(min_codepoint=0x10000),
        st.sampled_from(['"', "\\", "\n", "\ud800"]),  # quotes, escapes and a lone surrogate
    ),
    max_size=120,
)
STATES = st.lists(st.sampled_from(["clickable", "focused", "checked", "disabled", "ü", "選択"]))


def _node(children: st.SearchStrategy[list[Node]]) -> st.SearchStrategy[Node]:
    return st.builds(
        lambda role, name, value, states, kids: Node(
            role, name, value, tuple(states), "F", 7, kids
        ),
        st.sampled_from(["button", "text", "link", "generic", "heading", "列"]),
        st.one_of(st.just(""), TEXT),
        st.one_of(st.none(), st.just(""), TEXT),
        STATES,
        children,
    )


TREES = st.recursive(
    _node(st.just([])).map(lambda n: [n]),
    lambda inner: st.lists(_node(inner), max_size=4),
    max_leaves=60,
)


def _factory(calls: list[tuple[Any, ...]]) -> Any:
    def element(number: int, node: Node, depth: int, children: list[Any]) -> Any:
        entry = (number, depth, children)
        calls.append((number, id(node), depth, id(children)))
        return entry

    return element


def _both(roots: list[Node], title: str | None, text_limit: int | None) -> tuple[Any, Any]:
    name_max, value_max = limits(text_limit)
    results = []
    for use_c in (True, False):
        calls: list[tuple[Any, ...]] = []
        _tree.USE_CWALK = use_c
        try:
            text, entries, top = _format._format_elements(
                roots, title, name_max, value_max, _factory(calls)
            )
        finally:
            _tree.USE_CWALK = True
        # Entries as nested (number, depth, children) values; calls with the
        # children lists named by their position among the calls.
        lists = {c[3]: i for i, c in enumerate(calls)}
        named = [(n, node, depth, lists[kids]) for n, node, depth, kids in calls]
        results.append((text, entries, top, named))
    return results[0], results[1]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    TREES,
    st.one_of(st.none(), TEXT),
    st.one_of(st.none(), st.integers(4, 60)),
)
def test_the_c_numbering_gives_what_python_gives(
    roots: list[Node], title: str | None, text_limit: int | None
) -> None:
    assert CNUMBER is not None
    name_max, value_max = limits(text_limit)
    assert CNUMBER(roots, "", name_max, value_max, _factory([])) is not None  # never gives up
    c, py = _both(roots, title, text_limit)
    assert c[0] == py[0]
    assert c[1:] == py[1:]


def test_cut_names_values_and_indents() -> None:
    long = "ü" * 30 + "😀" * 30
    tree = [
        Node(
            "heading",
            "Title",
            None,
            (),
            "F",
            1,
            [
                Node("link", long, None, ("clickable",), "F", 2, []),
                Node(
                    "textbox",
                    "",
                    long,
                    ("focused", "editable"),
                    "F",
                    3,
                    [
                        Node("text", "x", "", (), "F", 4, []),
                    ],
                ),
            ],
        ),
        Node("button", "OK", None, (), "F", 5, []),
    ]
    text, nodes = format_snapshot(tree, title="Page", text_limit=20)
    assert text == (
        'Page: "Page"\n\n'
        '1: heading "Title"\n'
        f'  2: link "{"ü" * 17}..." clickable\n'
        f'  3: textbox value="{"ü" * 9}..." focused editable\n'
        '    4: text "x"\n'
        '5: button "OK"\n'
    )
    assert [n.backend_node_id for n in nodes] == [1, 2, 3, 4, 5]
    c, py = _both(tree, "Page", 20)
    assert c == py


class _Odd(msgspec.Struct):
    role: str
    name: str
    value: str | None
    states: tuple[str, ...]
    children: list[Any] = []


@pytest.mark.parametrize(
    "bad",
    [
        Node("button", 5, None, (), "F", 1, []),  # type: ignore[arg-type]
        Node("button", "a", 5, (), "F", 1, []),  # type: ignore[arg-type]
        Node("button", "a", None, ["x"], "F", 1, []),  # type: ignore[arg-type]
        Node("button", "a", None, (5,), "F", 1, []),  # type: ignore[arg-type]
        Node("button", "a", None, (), "F", 1, ()),  # type: ignore[arg-type]
        _Odd("button", "a", None, ()),
    ],
)
def test_the_c_numbering_gives_up_on_what_it_does_not_read(bad: Any) -> None:
    assert CNUMBER is not None
    roots = [Node("main", "", None, (), "F", 1, [bad])]
    assert CNUMBER(roots, "", 80, 50, _factory([])) is None
    try:
        expected: Any = _both(roots, None, 80)[1][0]
    except (TypeError, AttributeError) as exc:
        expected = type(exc)
    # format_snapshot answers (or fails) exactly as the Python numbering does.
    try:
        got: Any = format_snapshot(roots, title=None)[0]
    except (TypeError, AttributeError) as exc:
        got = type(exc)
    assert got == expected
