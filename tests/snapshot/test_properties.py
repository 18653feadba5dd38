"""Property tests: random AX trees (roles, names, states, ignored nodes, frames,
clickable maps) in every mode and text limit.

Every snapshot must follow the line grammar of docs/snapshot-format.md, number
1..n in pre-order of the returned nodes and tree, indent by tree depth, and
parse back (``parse_snapshot``) to the same ids, depths, roles, printed names,
values and states, with names and values cut at the text limit (or whole).
"""

from __future__ import annotations

import re
from typing import Any, get_args

import msgspec
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.snapshot import (
    AX_TREE_DECODER,
    INTERACTIVE_ROLES,
    STATE_ORDER,
    STRUCTURE_ROLES,
    AXTree,
    FrameAX,
    Node,
    build_tree,
    filter_tree,
    format_snapshot,
    parse_snapshot,
    prebuild_frame,
)
from kobrowser.snapshot._ax import LeanPropertyName, decode_snapshot_nodes

from ._ax_builders import MISSING, FrameSpec, Spec, frame
from ._helpers import walk

_STATE = "(?:" + "|".join(STATE_ORDER) + ")"
_MARKS = frozenset({"clickable", "focusable"})


def _limits(text_limit: int | None) -> tuple[str, str]:
    """Regex repeat bounds for names and values at ``text_limit``."""
    if text_limit is None:
        return "*", "*"
    return f"{{0,{text_limit}}}", f"{{0,{max(4, text_limit * 5 // 8)}}}"


def element_line(text_limit: int | None = 80) -> re.Pattern[str]:
    name, value = _limits(text_limit)
    return re.compile(
        r"(?:  )*[1-9][0-9]*: [a-z]+"  # indent, id, role
        rf'(?: "[^\n]{name}")?'  # quoted name, text-N
        rf'(?: value="[^\n]{value}")?'  # value, text-5N/8
        rf"(?: {_STATE}(?: {_STATE})*)?"
    )


def page_line(text_limit: int | None = 80) -> re.Pattern[str]:
    return re.compile(rf'Page: "[^\n]{_limits(text_limit)[0]}"')


ELEMENT_LINE = element_line()
PAGE_LINE = page_line()
TEXT_LIMITS = st.sampled_from([80, 80, None, 4, 11, 200])

ROLES = [
    *sorted(INTERACTIVE_ROLES - {"iframe"}),
    *sorted(STRUCTURE_ROLES),
    "img",
    "image",
    "generic",
    "paragraph",
    "term",
    "definition",
    "blockquote",
    "strong",
    "LabelText",
    "DescriptionList",
    "DisclosureTriangle",
    "PopUpButton",
    "MenuListPopup",
    "LayoutTableCell",
    "none",
    "presentation",
    "RootWebArea",
    "doc-abstract",
    "Weird-Role_9",
    "",
]
LEAF_ROLES = ["StaticText", "StaticText", "StaticText", "LineBreak", "ListMarker", "InlineTextBox"]

_ALPHABET = st.sampled_from(
    [
        *"abcXYZ019 ",
        *['"', '"', "=", "\n", "\t", "\r", "\u00a0", "\u2028", "\u3000", "  "],
        *["\u4e2d", "\u6587", "\U0001f600", "\U0001f468\u200d\U0001f469"],
        *["\u00e9", "\u2022", "..."],
        *["value=", " focused", " checked", ":", "\u200b"],
    ]
)
RAW_TEXT = st.lists(_ALPHABET, max_size=40).map("".join) | st.text(max_size=120)


def _safe(text: str) -> str:
    """Names and values the grammar round-trips: no `value=` (see _parse docstring)."""
    return text.replace("value=", "value:")


NAMES = st.none() | RAW_TEXT.map(_safe) | st.builds(lambda n: "x" * n, st.integers(75, 90))
VALUES = (
    st.none()
    | RAW_TEXT.map(_safe)
    | st.integers(-5, 500)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
)
PROPS = st.dictionaries(
    # The properties the walk reads, and one it does not.
    st.sampled_from([*get_args(LeanPropertyName), "level"]),
    st.sampled_from([True, False, "true", "false", "mixed", "plaintext", 2]),
    max_size=5,
)


def _leaf() -> st.SearchStrategy[Spec]:
    return st.builds(
        lambda role, name, ignored: Spec(role, name, [], ignored=ignored),
        st.sampled_from(LEAF_ROLES),
        RAW_TEXT,  # text lines never carry a value, so any text round-trips
        st.sampled_from([False, False, False, True]),
    )


def _node(children: st.SearchStrategy[list[Spec]]) -> st.SearchStrategy[Spec]:
    return st.builds(
        lambda role, name, kids, value, props, ignored: Spec(
            role, name, kids, value=value, properties=props, ignored=ignored
        ),
        st.sampled_from(ROLES),
        NAMES,
        children,
        VALUES,
        PROPS,
        st.sampled_from([False, False, False, False, True]),
    )


def _iframe(children: st.SearchStrategy[list[Spec]]) -> st.SearchStrategy[Spec]:
    def make(name: str | None, content: Any, frame_id: int) -> Spec:
        spec = Spec("Iframe", name, [])
        spec.frame = (
            content if content in (None, MISSING) else FrameSpec(content, None, f"F{frame_id}")
        )
        return spec

    return st.builds(
        make,
        NAMES,
        st.none() | st.just(MISSING) | children,
        st.integers(1, 10**6),
    )


TREES = st.recursive(
    _leaf(),
    lambda inner: _node(st.lists(inner, max_size=5)) | _iframe(st.lists(inner, max_size=4)),
    max_leaves=40,
)
MODES = st.fixed_dictionaries(
    {
        "interactive": st.booleans(),
        "compact": st.booleans(),
        "depth": st.none() | st.integers(0, 6),
    }
)


def _walk_frames(top: FrameAX) -> list[FrameAX]:
    out = [top]
    for child in top.children.values():
        if child is not None:
            out.extend(_walk_frames(child))
    return out


def _draw_clickable(top: FrameAX, data: st.DataObject) -> None:
    """Give every frame a random clickable map: elements that own themselves,
    nodes owned by another node of the frame or by an element not in the tree."""
    for one in _walk_frames(top):
        ids = sorted({n.backendDOMNodeId for n in one.nodes if n.backendDOMNodeId is not None})
        if not ids:
            continue
        chosen = data.draw(st.lists(st.sampled_from(ids), max_size=8, unique=True))
        owners = st.sampled_from(ids) | st.just(-7) | st.integers(1, 10**6)
        one.clickable = {
            backend: backend if data.draw(st.booleans()) else data.draw(owners)
            for backend in chosen
        }


def _cut(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def _expected_line(
    node: Node, text_limit: int | None = 80
) -> tuple[str, str | None, str | None, tuple[str, ...]]:
    value_limit = None if text_limit is None else max(4, text_limit * 5 // 8)
    return (
        node.role,
        _cut(node.name, text_limit) if node.name else None,
        _cut(node.value, value_limit) if node.value else None,
        node.states,
    )


def _marked(node: Node) -> bool:
    return not _MARKS.isdisjoint(node.states)


def _check_node_invariants(node: Node) -> None:
    assert re.fullmatch("[a-z]+", node.role), node.role
    assert (
        node.role not in {"generic", "none", "presentation", "inlinetextbox", "statictext"}
        or node.name
        or _marked(node)
    )
    assert node.name == " ".join(node.name.split())
    if node.value is not None:
        assert node.value and node.value == " ".join(node.value.split())
        assert node.value != node.name
        assert node.value.strip("\u2022")
    assert list(node.states) == [s for s in STATE_ORDER if s in node.states]
    if node.role in INTERACTIVE_ROLES:
        assert not _marked(node)  # an interactive role needs no mark
    if node.role == "text":
        assert node.name and not node.children and node.value is None
        assert node.states in ((), ("clickable",))
    elif node.role not in INTERACTIVE_ROLES and node.role not in STRUCTURE_ROLES:
        assert node.name or _marked(node)  # other roles print only with a name or a mark
    elif node.role in STRUCTURE_ROLES:
        assert node.name or node.children or _marked(node)
    if _marked(node):
        # Innermost wins: nothing acted on is printed inside a marked element.
        for _, inner in walk(node.children):
            assert inner.role not in INTERACTIVE_ROLES and not _marked(inner), node


# 200 examples: nearly all of an example's cost is Hypothesis drawing it
# (~220 draws: six recursive trees of up to 40 leaves, names, properties,
# clickable maps; the code under test is under a tenth), ~35 ms of CPU each.
# 400 took 15 s of CPU, over the 120 s pytest timeout on a loaded 2-core CI
# box; each example already holds up to ~240 nodes in every mode.
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    children=st.lists(TREES, max_size=6),
    title=st.none() | RAW_TEXT,
    modes=MODES,
    text_limit=TEXT_LIMITS,
    data=st.data(),
)
def test_random_trees_follow_the_format(
    children: list[Spec],
    title: str | None,
    modes: dict[str, Any],
    text_limit: int | None,
    data: st.DataObject,
) -> None:
    top = frame(*children)
    _draw_clickable(top, data)
    full = build_tree(top)
    for _, node in walk(full):
        _check_node_invariants(node)

    roots = filter_tree(full, **modes)
    text, nodes = format_snapshot(roots, title=title, text_limit=text_limit)
    line_re, page_re = element_line(text_limit), page_line(text_limit)

    # Structure of the text: [Page line, blank line] then one line per element.
    body = text
    norm_title = " ".join((title or "").split())
    if norm_title:
        page, blank, body = text.split("\n", 2)
        assert blank == ""
        assert page_re.fullmatch(page), page
    else:
        assert not text.startswith("Page:")
    assert body == "" or body.endswith("\n")
    body_lines = body.split("\n")[:-1] if body else []
    for line in body_lines:
        assert line_re.fullmatch(line), line

    # Ids 1..n in pre-order of the tree; indent is the tree depth.
    ordered = walk(roots)
    assert [n for _, n in ordered] == nodes
    assert len(body_lines) == len(nodes)
    parsed = parse_snapshot(text, text_limit=text_limit)
    assert parsed.title == _cut(norm_title, text_limit) or (not norm_title and parsed.title is None)
    assert [line.id for line in parsed.lines] == list(range(1, len(nodes) + 1))
    assert [line.depth for line in parsed.lines] == [d for d, _ in ordered]
    for line, node in zip(parsed.lines, nodes, strict=True):
        assert (line.role, line.name, line.value, line.states) == _expected_line(node, text_limit)
    if text_limit is None:
        assert all(
            line.name == (node.name or None) for line, node in zip(parsed.lines, nodes, strict=True)
        )

    # Modes.
    if modes["interactive"]:
        assert all(n.role in INTERACTIVE_ROLES or _marked(n) for n in nodes)
    elif modes["compact"]:
        assert all(
            n.name or n.role == "text" or n.role in INTERACTIVE_ROLES or _marked(n) for n in nodes
        )
    if modes["depth"] is not None:
        assert all(d < modes["depth"] for d, _ in ordered)
    if not modes["interactive"] and not modes["compact"] and modes["depth"] is None:
        assert nodes == [n for _, n in walk(full)]


@settings(max_examples=examples(100), deadline=None)
@given(children=st.lists(TREES, max_size=5))
def test_json_decode_gives_the_same_snapshot(children: list[Spec]) -> None:
    top = frame(*children)
    decoded = AX_TREE_DECODER.decode(msgspec.json.encode(AXTree(top.nodes)))
    again = FrameAX(top.frame_id, decoded.nodes, top.children)
    assert format_snapshot(build_tree(again), title=None) == format_snapshot(
        build_tree(top), title=None
    )


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(TREES, max_size=5), data=st.data())
def test_the_walks_decoder_gives_the_same_snapshot(
    children: list[Spec], data: st.DataObject
) -> None:
    # decode_snapshot_nodes (tuples for childIds and properties, what the
    # tab's fetch uses) against the public AXNode (lists), every frame
    # decoded, with clickable maps, in every mode.
    top = frame(*children)
    _draw_clickable(top, data)

    def redecode(one: FrameAX, decode: Any) -> FrameAX:
        nodes = decode(msgspec.json.encode(AXTree(one.nodes)))
        children = {
            owner: None if child is None else redecode(child, decode)
            for owner, child in one.children.items()
        }
        return FrameAX(one.frame_id, nodes, children, clickable=one.clickable)

    public = redecode(top, lambda raw: AX_TREE_DECODER.decode(raw).nodes)
    walked = redecode(top, decode_snapshot_nodes)
    assert all(
        isinstance(node.childIds, tuple) and isinstance(node.properties, tuple)
        for one in _walk_frames(walked)
        for node in one.nodes
    )
    modes: dict[str, Any] = data.draw(MODES)
    assert format_snapshot(filter_tree(build_tree(walked), **modes), title=None) == format_snapshot(
        filter_tree(build_tree(public), **modes), title=None
    )


@settings(max_examples=examples(100), deadline=None)
@given(children=st.lists(TREES, max_size=5), data=st.data())
def test_scope_output_is_part_of_full_output(children: list[Spec], data: st.DataObject) -> None:
    top = frame(*children)
    _draw_clickable(top, data)
    candidates = sorted(
        (top.frame_id, n.backendDOMNodeId) for n in top.nodes[1:] if n.backendDOMNodeId is not None
    )
    scope = data.draw(st.sets(st.sampled_from(candidates), max_size=3)) if candidates else set()
    full = {
        (n.frame_id, n.backend_node_id, n.role, n.name)
        for _, n in walk(build_tree(top))
        if n.role != "text"
    }
    scoped = build_tree(top, scope=scope)
    text, nodes = format_snapshot(scoped, title=None)
    assert [line.id for line in parse_snapshot(text).lines] == list(range(1, len(nodes) + 1))
    for node in nodes:
        if node.role != "text":
            assert (node.frame_id, node.backend_node_id, node.role, node.name) in full
    if not scope:
        assert nodes == []


def _prebuilt(frame: FrameAX) -> FrameAX:
    """``frame`` with every embedded frame replaced by its prebuilt form."""
    children = {
        owner: None if child is None else _prebuilt(child)
        for owner, child in frame.children.items()
    }
    again = prebuild_frame(frame.frame_id, frame.nodes, frame.clickable)
    again.children = children
    return again


# 200 examples, as test_random_trees_follow_the_format (same trees, same cost
# per example, nearly all of it drawing): 300 took 11 s of CPU, ~55 s at load 15.
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(TREES, max_size=6), data=st.data())
def test_prebuilt_frames_give_the_same_snapshot(children: list[Spec], data: st.DataObject) -> None:
    # Frames built ahead of time (as the fetch does when a frame's AX tree
    # arrives) must print exactly what walking them inside the page prints:
    # nested frames, frames inside editable fields, labels, text runs, scope,
    # clickable maps.
    top = frame(*children)
    _draw_clickable(top, data)
    ahead = _prebuilt(top)
    assert format_snapshot(build_tree(ahead), title=None) == format_snapshot(
        build_tree(top), title=None
    )
    candidates = sorted(
        (top.frame_id, n.backendDOMNodeId) for n in top.nodes[1:] if n.backendDOMNodeId is not None
    )
    if candidates:
        scope = data.draw(st.sets(st.sampled_from(candidates), max_size=3))
        assert format_snapshot(build_tree(ahead, scope=scope), title=None) == format_snapshot(
            build_tree(top, scope=scope), title=None
        )


def test_prebuild_frame_leaves_frames_with_iframes_to_the_walk() -> None:
    leaf = frame(Spec("button", "Inner", []))
    assert prebuild_frame(leaf.frame_id, leaf.nodes).built == build_tree(leaf)
    outer_spec = Spec("Iframe", "Inner frame", [])
    outer_spec.frame = FrameSpec([Spec("button", "Deep", [])], None, "F9")
    outer = frame(Spec("button", "Outer", []), outer_spec)
    assert prebuild_frame(outer.frame_id, outer.nodes).built is None
    other_spec = Spec("IframePresentational", "Other kind", [])
    other_spec.frame = FrameSpec([Spec("button", "Deep", [])], None, "F8")
    other = frame(other_spec)
    assert prebuild_frame(other.frame_id, other.nodes).built is None
    assert prebuild_frame("F0", []).built is None


def test_prebuilt_frame_inside_an_editable_field_is_walked() -> None:
    # Text inside an editable field is not printed (the value carries it),
    # even inside a frame embedded there: the prebuilt content (built outside
    # any field) must not be used in that context.
    inner = Spec("Iframe", "Embedded", [])
    inner.frame = FrameSpec(
        [Spec("StaticText", "Frame text", []), Spec("button", "B", [])], None, "F7"
    )
    field_spec = Spec("textbox", "Editor", [inner], properties={"editable": "richtext"})
    top = frame(field_spec, Spec("StaticText", "After", []))
    expected = format_snapshot(build_tree(top), title=None)
    assert "Frame text" not in expected[0]
    assert format_snapshot(build_tree(_prebuilt(top)), title=None) == expected
