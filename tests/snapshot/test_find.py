"""find_nodes (Tab.find's pure part) and numbered_lines on built printed trees."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kobrowser.snapshot import Node, format_snapshot
from kobrowser.snapshot._find import find_nodes, numbered_lines

LONG = "Terms and conditions of the yearly plan, renewed each year unless cancelled before"


def n(role: str, name: str = "", *children: Node, value: str | None = None) -> Node:
    return Node(role, name, value, (), "F", 1, list(children))


def tree() -> list[Node]:
    return [
        n("heading", "Section", n("link", "Section")),
        n("navigation", "", n("link", "Home"), n("link", "Home page")),
        n("text", "Faucibus libero"),
        n("generic", "massa", n("text", "unused child")),
        n("text", LONG),
        n("textbox", "Email", value="ana@example.com"),
        n("button", "Place order"),
        n("button", "place ORDER now"),
    ]


def names(found: list[Node]) -> list[str]:
    return [f"{node.role}:{node.name}" for node in found]


def test_role_is_case_insensitive_and_exact() -> None:
    assert names(find_nodes(tree(), role="Button")) == [
        "button:Place order",
        "button:place ORDER now",
    ]
    assert names(find_nodes(tree(), role=" link ")) == [
        "link:Section",
        "link:Home",
        "link:Home page",
    ]
    assert find_nodes(tree(), role="butto") == []


def test_name_contained_case_insensitive_or_exact() -> None:
    assert names(find_nodes(tree(), name="place order")) == [
        "button:Place order",
        "button:place ORDER now",
    ]
    assert names(find_nodes(tree(), name="Place order", exact=True)) == ["button:Place order"]
    assert find_nodes(tree(), name="place order", exact=True) == []
    # Whitespace in the query is normalized like the names are.
    assert names(find_nodes(tree(), name="  Home\n page ", exact=True)) == ["link:Home page"]


def test_whole_names_not_truncated_ones() -> None:
    # The printed line cuts this text at 80 code points; find sees all of it.
    assert len(LONG) > 80
    text, _ = format_snapshot(tree(), title=None)
    assert "cancelled before" not in text
    assert names(find_nodes(tree(), text="cancelled before")) == [f"text:{LONG}"]
    assert names(find_nodes(tree(), name=LONG, exact=True)) == [f"text:{LONG}"]


def test_text_matches_name_or_value_innermost_only() -> None:
    # The heading and its link both show "Section": the link is returned.
    assert names(find_nodes(tree(), text="section")) == ["link:Section"]
    # With a role only the heading matches, and it is returned.
    assert names(find_nodes(tree(), role="heading", text="section")) == ["heading:Section"]
    # name= has no innermost rule: both.
    assert names(find_nodes(tree(), name="section")) == ["heading:Section", "link:Section"]
    # A value is text the line shows.
    assert names(find_nodes(tree(), text="ana@example")) == ["textbox:Email"]
    assert find_nodes(tree(), name="ana@example") == []


def test_criteria_combine() -> None:
    assert names(find_nodes(tree(), role="link", name="home")) == ["link:Home", "link:Home page"]
    assert names(find_nodes(tree(), role="link", name="home", text="page")) == ["link:Home page"]
    assert find_nodes(tree(), role="button", name="home") == []


def test_results_are_in_id_order() -> None:
    roots = tree()
    _, ordered = format_snapshot(roots, title=None)
    found = find_nodes(roots, role="link")
    positions = [next(i for i, node in enumerate(ordered) if node is f) for f in found]
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "at least one of role, name or text"),
        ({"exact": True}, "at least one of role, name or text"),
        ({"role": 3}, "role must be a string"),
        ({"name": b"x"}, "name must be a string"),
    ],
)
def test_bad_criteria(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_nodes(tree(), **options)  # type: ignore[arg-type]


def test_numbered_lines() -> None:
    text, _ = format_snapshot(tree(), title="T")
    lines = numbered_lines(text)
    assert lines[1] == '1: heading "Section"'
    assert lines[2] == '2: link "Section"'
    assert lines[len(lines)] == '12: button "place ORDER now"'
    assert sorted(lines) == list(range(1, 13))


NAMES = st.text(alphabet="abcAB ", max_size=6)


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> list[Node]:
    count = draw(st.integers(0, 3 if depth < 3 else 0))
    return [
        n(
            draw(st.sampled_from(["button", "text", "generic"])),
            " ".join(draw(NAMES).split()),
            *draw(trees(depth + 1)),
        )
        for _ in range(count)
    ]


@given(trees(), NAMES, st.booleans())
def test_text_keeps_exactly_the_innermost_matches(
    roots: list[Node], query: str, exact: bool
) -> None:
    found = find_nodes(roots, text=query, exact=exact)
    wanted = " ".join(query.split())

    def hit(node: Node) -> bool:
        return node.name == wanted if exact else wanted.casefold() in node.name.casefold()

    def below(node: Node) -> bool:
        return any(hit(child) or below(child) for child in node.children)

    _, ordered = format_snapshot(roots, title=None)
    assert [id(f) for f in found] == [id(node) for node in ordered if hit(node) and not below(node)]
