"""One numbering pass: ``format_snapshot(..., element=...)`` makes the id map's
elements while it numbers the lines.

Each id must name the node printed with it (role, name, value, states, frame,
backend node, depth, children), each element must carry its own frame's
document (loader id, session), and the text must be byte for byte the text
of the plain ``format_snapshot`` in every mode, frames included.
"""

from __future__ import annotations

from typing import Any

import pytest
from _examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from kobrowser._tab._fetch import FrameDocument
from kobrowser._tab._snapshot import Element, element_factory, number_snapshot
from kobrowser.snapshot import (
    FrameAX,
    Node,
    build_tree,
    filter_tree,
    format_snapshot,
    parse_snapshot,
)

from ._ax_builders import el, frame, frame_spec, iframe, text, textbox
from ._helpers import walk
from .test_properties import MODES, TEXT_LIMITS, TREES


class _Session:
    """Stands in for a frame's CDP session (only its identity matters here)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<session {self.name}>"


def _documents(top: FrameAX) -> dict[str, FrameDocument]:
    """A document for every frame of ``top``: loader ``L-<frame>``, its own session."""
    out: dict[str, FrameDocument] = {}
    todo = [(top, None)]
    while todo:
        current, parent = todo.pop()
        session: Any = _Session(current.frame_id)
        out[current.frame_id] = FrameDocument(
            current.frame_id, session, f"L-{current.frame_id}", "about:blank", parent
        )
        todo.extend((child, current.frame_id) for child in current.children.values() if child)
    return out


def _nested_frames() -> FrameAX:
    """A page, a cross-origin frame in it, and a frame in that one, with content after each."""
    inner = frame_spec(
        el("button", "Pay"),
        textbox("Card", "4242"),
        title="Inner",
        frame_id="GRANDCHILD",
    )
    child = frame_spec(
        el("heading", "Checkout", level=2),
        iframe("Payment", inner),
        el("link", "Terms"),
        title="Child",
        frame_id="CHILD",
    )
    return frame(
        el("navigation", "Top", el("link", "Home"), el("link", "Cart")),
        iframe("Shop", child),
        el("button", "Next", focused=True),
        text("Footer"),
        title="Top page",
    )


def _check(roots: list[Node], documents: dict[str, FrameDocument], **format_args: Any) -> None:
    """Every invariant of the one-pass numbering on one printed tree."""
    plain, nodes = format_snapshot(roots, **format_args)
    text_out, id_map, top = number_snapshot(roots, documents=documents, **format_args)
    # The same text, byte for byte.
    assert text_out == plain
    # Ids 1..n, each naming the node printed with that number.
    assert list(id_map) == list(range(1, len(nodes) + 1))
    walked = walk(roots)
    assert [node for _, node in walked] == nodes
    limit = format_args.get("text_limit", 80)
    parsed = parse_snapshot(text_out, text_limit=limit).lines
    assert [line.id for line in parsed] == list(id_map)
    for (depth, node), line in zip(walked, parsed, strict=True):
        element = id_map[line.id]
        assert isinstance(element, Element)
        assert (element.id, element.depth) == (line.id, line.depth) == (line.id, depth)
        assert (
            (element.role, element.states) == (node.role, node.states) == (line.role, line.states)
        )
        assert (element.name, element.value) == (node.name, node.value)
        assert (element.frame_id, element.backend_node_id) == (node.frame_id, node.backend_node_id)
        document = documents.get(node.frame_id)
        if document is None:
            assert (element.loader_id, element.session) == ("", None)
        else:
            assert element.loader_id == document.loader_id
            assert element.session is document.session
    # The element tree mirrors the printed tree, and its roots are the top level.
    assert [e.id for e in top] == [id_map[i + 1].id for i, (d, _) in enumerate(walked) if d == 0]

    def same_shape(elements: list[Element], printed: list[Node]) -> None:
        assert len(elements) == len(printed)
        for element, node in zip(elements, printed, strict=True):
            assert id_map[element.id] is element
            assert nodes[element.id - 1] is node
            same_shape(element.children, node.children)

    same_shape(top, roots)


@pytest.mark.parametrize(
    "modes",
    [
        {},
        {"interactive": True},
        {"compact": True},
        {"depth": 2},
        {"interactive": True, "depth": 3},
    ],
    ids=repr,
)
def test_nested_frames_ids_name_their_elements(modes: dict[str, Any]) -> None:
    top = _nested_frames()
    roots = filter_tree(build_tree(top), **modes) if modes else build_tree(top)
    _check(roots, _documents(top), title="Top page")


def test_frame_elements_carry_their_frames_documents() -> None:
    top = _nested_frames()
    documents = _documents(top)
    text_out, id_map, _ = number_snapshot(build_tree(top), title=None, documents=documents)
    by_name = {(e.role, e.name): e for e in id_map.values()}
    assert by_name[("button", "Pay")].frame_id == "GRANDCHILD"
    assert by_name[("button", "Pay")].session is documents["GRANDCHILD"].session
    assert by_name[("link", "Terms")].loader_id == "L-CHILD"
    assert by_name[("button", "Next")].loader_id == "L-MAIN"
    # Content after a frame goes back to the parent's document.
    assert by_name[("iframe", "Payment")].frame_id == "CHILD"
    assert text_out.splitlines()[by_name[("button", "Pay")].id - 1].endswith('button "Pay"')


def test_unknown_frame_gets_no_document() -> None:
    top = _nested_frames()
    documents = _documents(top)
    del documents["CHILD"]
    _check(build_tree(top), documents, title=None)


def test_empty_tree() -> None:
    assert number_snapshot([], title="   ", documents={}) == ("", {}, [])
    assert format_snapshot([], title=None, element=element_factory({})) == ("", [], [])


def test_factory_is_called_once_per_line_in_id_order() -> None:
    top = _nested_frames()
    roots = build_tree(top)
    calls: list[tuple[int, str, int]] = []

    def element(number: int, node: Node, depth: int, children: list[str]) -> str:
        assert children == []  # filled by the formatter after this call
        calls.append((number, node.role, depth))
        return f"{number}:{node.role}"

    text_out, entries, top_level = format_snapshot(roots, title=None, element=element)
    assert [number for number, _, _ in calls] == list(range(1, len(calls) + 1))
    assert entries == [f"{n}:{role}" for n, role, _ in calls]
    assert top_level == [entries[n - 1] for n, _, depth in calls if depth == 0]
    assert len(text_out.splitlines()) == len(calls)


@settings(max_examples=examples(120), deadline=None)
@given(children=st.lists(TREES, max_size=6), modes=MODES, text_limit=TEXT_LIMITS, data=st.data())
def test_random_trees_number_in_one_pass(
    children: list[Any], modes: dict[str, Any], text_limit: int | None, data: st.DataObject
) -> None:
    top = frame(*children)
    documents = _documents(top)
    # Some frames without a document (a frame that went away while fetching).
    for frame_id in data.draw(st.sets(st.sampled_from(sorted(documents)))):
        del documents[frame_id]
    roots = filter_tree(build_tree(top), **modes)
    _check(
        roots, documents, title=data.draw(st.none() | st.text(max_size=20)), text_limit=text_limit
    )
