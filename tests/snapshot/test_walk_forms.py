"""The walk reads every form of the AX nodes alike.

On random trees (frames, unprinted labels, clickable and focusable
candidates, list markers, values of every type, malformed trees listing a
node twice), the printed tree built from the CBOR pipe's flat nodes, from
the walk's lean decode and from a given node index is the one built from the
public AXNode structs.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import msgspec
from _examples import examples
from _flat_ax import flatten
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.snapshot import AXTree, FrameAX, _tree
from kobrowser.snapshot._ax import AX_TREE_DECODER, decode_snapshot_nodes

from ._ax_builders import MISSING, FrameSpec, Spec, frame, text
from .test_properties import LEAF_ROLES, NAMES, PROPS, RAW_TEXT, ROLES, VALUES, _draw_clickable

# What reads like a list marker, and what does not quite.
MARKERS = st.sampled_from(
    ["1.", " a) ", "\u2022", "- ", "iv.", "1234567.", "x", "10", "\u25e6 ", ""]
)
ANY_NAMES = NAMES | st.integers(-3, 10**6) | st.floats(width=32) | st.booleans()


def _leaf() -> st.SearchStrategy[Spec]:
    return st.one_of(
        st.builds(
            lambda role, name, ignored: Spec(role, name, [], ignored=ignored),
            st.sampled_from(LEAF_ROLES),
            RAW_TEXT,
            st.sampled_from([False, False, False, True]),
        ),
        # A generated text (::marker, ::before): no DOM node.
        st.builds(lambda name: Spec("StaticText", name, [], backend=None), MARKERS | RAW_TEXT),
        st.builds(lambda name: text(name), RAW_TEXT),
    )


def _node(children: st.SearchStrategy[list[Spec]]) -> st.SearchStrategy[Spec]:
    return st.builds(
        lambda role, name, kids, value, props, ignored, backend: Spec(
            role, name, kids, value=value, properties=props, ignored=ignored, backend=backend
        ),
        st.sampled_from([*ROLES, None, 7, "ListMarker", "LineBreak", "StaticText", "Iframe"]),
        ANY_NAMES,
        children,
        VALUES | st.booleans(),
        PROPS,
        st.sampled_from([False, False, False, True]),
        st.just(MISSING) | st.none(),
    )


def _iframe(children: st.SearchStrategy[list[Spec]]) -> st.SearchStrategy[Spec]:
    def make(name: Any, content: Any, frame_id: int) -> Spec:
        spec = Spec("Iframe", name, [])
        spec.frame = (
            content if content in (None, MISSING) else FrameSpec(content, None, f"F{frame_id}")
        )
        return spec

    return st.builds(make, NAMES, st.none() | st.just(MISSING) | children, st.integers(1, 10**6))


TREES = st.recursive(
    _leaf(),
    lambda inner: _node(st.lists(inner, max_size=5)) | _iframe(st.lists(inner, max_size=4)),
    max_leaves=40,
)


def _frames(top: FrameAX) -> list[FrameAX]:
    out = [top]
    for child in top.children.values():
        if child is not None:
            out.extend(_frames(child))
    return out


def _malform(top: FrameAX, data: st.DataObject) -> None:
    """List some nodes twice (under another parent, even an ancestor: a cycle)."""
    for one in _frames(top):
        ids = [n.nodeId for n in one.nodes]
        for _ in range(data.draw(st.integers(0, 3))):
            node = data.draw(st.sampled_from(one.nodes))
            extra = data.draw(st.sampled_from(ids) | st.just("nope"))
            node.childIds = [*node.childIds, extra]


def _embed_twice(top: FrameAX, data: st.DataObject) -> None:
    """Let iframes embed a frame already embedded, or the top frame (a cycle)."""
    frames = _frames(top)
    for one in frames:
        if one.children and data.draw(st.booleans()):
            owner = data.draw(st.sampled_from(sorted(one.children)))
            one.children[owner] = data.draw(st.sampled_from(frames))


def _proxy_maps(top: FrameAX) -> None:
    """Clickable maps that are mappings but not dicts (read through .get)."""
    for one in _frames(top):
        one.clickable = MappingProxyType(dict(one.clickable))


def _redecode(one: FrameAX, lean: bool) -> FrameAX:
    raw = msgspec.json.encode(AXTree(one.nodes))
    nodes = decode_snapshot_nodes(raw) if lean else AX_TREE_DECODER.decode(raw).nodes
    children = {
        owner: None if child is None else _redecode(child, lean)
        for owner, child in one.children.items()
    }
    return FrameAX(one.frame_id, nodes, children, clickable=one.clickable)


def _flat(one: FrameAX) -> FrameAX:
    """``one`` with every node as the CBOR pipe's lean answer gives it (FlatAXNode)."""
    children = {
        owner: None if child is None else _flat(child) for owner, child in one.children.items()
    }
    nodes: list[Any] = [flatten(node) for node in one.nodes]
    return FrameAX(one.frame_id, nodes, children, clickable=one.clickable)


def _built(top: FrameAX, index: dict[str, Any] | None = None, proper: bool = False) -> Any:
    return _tree._build(top, (), True, None, index, proper)


# 150 examples of up to four trees: nearly all the time is Hypothesis drawing them.
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(TREES, max_size=4), data=st.data())
def test_every_form_of_the_nodes_builds_the_same_tree(
    children: list[Spec], data: st.DataObject
) -> None:
    top = frame(*children)
    if data.draw(st.booleans()):
        _draw_clickable(top, data)
    malformed = data.draw(st.booleans())
    if malformed:
        _malform(top, data)
    expected = _built(top)
    # The CBOR pipe's flat nodes: the same tree as the AXNodes they come from.
    assert _built(_flat(top)) == expected
    # The walk's lean decode (tuples, values without type), as the tab fetches,
    # builds what the full decode of the same JSON answer builds (JSON has no
    # NaN or infinity, so both are compared after the same round trip).
    assert _built(_redecode(top, lean=True)) == _built(_redecode(top, lean=False))
    # A given index, read as a copy; read in place for a proper tree.
    index = {n.nodeId: n for n in top.nodes}
    assert _built(top, index) == expected
    if not malformed:
        assert _built(top, index, proper=True) == expected
    # Clickable maps that are mappings but not dicts.
    _proxy_maps(top)
    assert _built(top) == expected
    # Embedding a frame twice (or the top one) ends, as any malformed tree does.
    _embed_twice(top, data)
    _built(top)
