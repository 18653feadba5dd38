"""The C walk (``kobrowser.snapshot._cwalk``) against the Python walk it transliterates.

``_tree._build`` is the reference: on every random tree (frames, unprinted
labels, clickable and focusable candidates, list markers, values of every
type, malformed trees listing a node twice) the C walk must return the same
printed tree, node for node, on the public structs and on the walk's lean
decode, with and without a given index. The C walk must never give up
(``None``) on these: that would silently test nothing.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
import pytest
from _examples import examples
from _flat_ax import flatten
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.snapshot import AXTree, FrameAX, Node, _native, _tree, build_tree, prebuild_frame
from kobrowser.snapshot._ax import AX_TREE_DECODER, decode_snapshot_nodes

from ._ax_builders import MISSING, FrameSpec, Spec, el, frame, iframe, text
from .test_properties import LEAF_ROLES, NAMES, PROPS, RAW_TEXT, ROLES, VALUES, _draw_clickable

CBUILD = _tree._CWALK
try:
    from kobrowser.snapshot import _cwalk as CWALK
except ImportError:  # not built: the tests that need it are skipped
    CWALK = None
needs_cwalk = pytest.mark.skipif(CBUILD is None, reason="kobrowser.snapshot._cwalk is not built")

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


def _prebuilt(one: FrameAX, use_c: bool) -> FrameAX:
    children = {
        owner: None if child is None else _prebuilt(child, use_c)
        for owner, child in one.children.items()
    }
    again = FrameAX(one.frame_id, one.nodes, clickable=one.clickable)
    if one.nodes and not _tree._embeds_frames(one.nodes):
        built = CBUILD(again, None, False) if use_c and CBUILD is not None else None
        assert not use_c or built is not None
        again.built = built if built is not None else _tree._build(again, (), True)
    again.children = children
    return again


def _both(top: FrameAX, index: dict[str, Any] | None = None, proper: bool = False) -> None:
    assert CBUILD is not None
    expected = _tree._build(top, (), True, None, index, proper)
    got = CBUILD(top, index, proper)
    assert got is not None, "the C walk gave up on a tree the structs describe"
    assert got == expected


@needs_cwalk
# 150 examples of up to four trees: nearly all the time is Hypothesis drawing
# them (~40 ms each); the slow test below draws thousands.
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(TREES, max_size=4), data=st.data())
def test_the_c_walk_builds_what_the_python_walk_builds(
    children: list[Spec], data: st.DataObject
) -> None:
    top = frame(*children)
    if data.draw(st.booleans()):
        _draw_clickable(top, data)
    malformed = data.draw(st.booleans())
    if malformed:
        _malform(top, data)
    _both(top)
    # The walk's lean decode (tuples, values without type), as the tab fetches.
    lean = _redecode(top, lean=True)
    _both(lean)
    # The CBOR pipe's flat nodes: the same tree as the AXNodes they come from.
    flat = _flat(top)
    _both(flat)
    assert _tree._build(flat, (), True) == _tree._build(top, (), True)
    _both(_prebuilt(flat, use_c=True))
    # Child frames built ahead of time (by the C walk, or by the Python walk).
    _both(_prebuilt(lean, use_c=True))
    _both(_prebuilt(top, use_c=False))
    # A given index, read as a copy; read in place for a proper tree.
    index = {n.nodeId: n for n in top.nodes}
    _both(top, index)
    if not malformed:
        _both(top, index, proper=True)
    _proxy_maps(top)
    _both(top)
    _embed_twice(top, data)
    _both(top)


@needs_cwalk
@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(TREES, max_size=8), data=st.data())
def test_the_c_walk_builds_what_the_python_walk_builds_many(
    children: list[Spec], data: st.DataObject
) -> None:
    top = frame(*children)
    _draw_clickable(top, data)
    if data.draw(st.booleans()):
        _malform(top, data)
    _both(top)
    _both(_redecode(top, lean=True))
    flat = _flat(top)
    _both(flat)
    assert _tree._build(flat, (), True) == _tree._build(top, (), True)
    _embed_twice(top, data)
    _both(top)


def _renumber(top: FrameAX, data: st.DataObject) -> str:
    """Give the top document's nodes other ids, as Chrome might or might not.

    Chrome's ids are canonical decimal numbers: the C walk then finds nodes
    in an array by number instead of a dict (``last_index() == "positions"``);
    the other kinds of ids keep the dict. Also: nodes sharing an id (the later
    one wins, as in the dict), a child listing the root's id, and child ids
    that read as a listed number but are not it ("07", "+7", "7 ", "\uff17").
    Returns the index the C walk must use.
    """
    kind = data.draw(st.sampled_from(["spread", "spread", "above", "digits", "words"]))
    scale, offset = data.draw(st.sampled_from([(1, 0), (3, 7), (997, 1), (1, 40_000)]))

    def new_id(old: str) -> str:
        number = int(old) * scale + offset
        if kind == "above":
            return str(number + 10**6)  # far above the node count: an array would be large
        if kind == "digits":
            return str(number + 10**9)  # ten digits: more than the walk reads as a number
        return f"n{number}" if kind == "words" else str(number)

    nodes = top.nodes
    ids = {n.nodeId: new_id(n.nodeId) for n in nodes}
    for node in nodes:
        node.nodeId = ids[node.nodeId]
        node.childIds = [ids.get(c, c) for c in node.childIds]
    for _ in range(data.draw(st.integers(0, 3))):
        node = data.draw(st.sampled_from(nodes))
        node.nodeId = data.draw(st.sampled_from([n.nodeId for n in nodes]))  # shared
    for _ in range(data.draw(st.integers(0, 4))):
        node = data.draw(st.sampled_from(nodes))
        listed = data.draw(st.sampled_from([n.nodeId for n in nodes]))
        odd = data.draw(
            st.sampled_from(
                [
                    listed,
                    nodes[0].nodeId,
                    f"0{listed}",
                    f"+{listed}",
                    f"{listed} ",
                    f"-{listed}",
                    "",
                ]
            )
            | st.just(listed.translate({ord(d): 0xFF10 + int(d) for d in "0123456789"}))
        )
        at = data.draw(st.integers(0, len(node.childIds)))
        node.childIds = [*node.childIds[:at], odd, *node.childIds[at:]]
    # The walk's array holds ids below 8 per node + 65,536 (POS_LIMIT in _cwalk.c).
    small = kind == "spread" and max(int(n.nodeId) for n in nodes) < 8 * len(nodes) + 65_536
    return "positions" if small else "dict"


@needs_cwalk
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(TREES, max_size=4), data=st.data())
def test_the_c_walk_finds_nodes_by_any_ids_as_the_python_walk(
    children: list[Spec], data: st.DataObject
) -> None:
    top = frame(*children)
    if data.draw(st.booleans()):
        _draw_clickable(top, data)
    index = _renumber(top, data)
    _both(top)
    assert CWALK is not None and CWALK.last_index() == index
    flat = _flat(top)
    _both(flat)
    assert CWALK.last_index() == index
    _both(top, {n.nodeId: n for n in top.nodes})
    assert CWALK.last_index() == "given"


@needs_cwalk
def test_a_child_id_of_another_type_is_read_as_the_python_walk_reads_it() -> None:
    # Chrome's ids are strings; a number or None names no node (the dict's
    # answer), and an unhashable one raises what the dict raises.
    for odd in (3, 3.0, True, None):
        top = _sample()
        top.nodes[0].childIds = [*top.nodes[0].childIds, odd]  # type: ignore[list-item]
        _both(top)
        assert CWALK is not None and CWALK.last_index() == "positions"


def _sample() -> FrameAX:
    return frame(
        el("heading", "Title", text("Title")),
        el("link", "Home", text("Home")),
        el("generic", None, text("clickable row"), backend=77),
        el("LabelText", None, text("Email"), ignored=False),
        el("textbox", "Email", value="a@b.c", editable="plaintext"),
        el("list", None, el("listitem", None, Spec("StaticText", "1.", [], backend=None))),
        iframe("ad", None),
    )


@needs_cwalk
def test_build_tree_uses_the_c_walk_for_full_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    def spy(frame: FrameAX, index: Any, proper: bool) -> list[Node] | None:
        built = CBUILD(frame, index, proper)  # type: ignore[misc]
        calls.append(built)
        return built

    monkeypatch.setattr(_tree, "_CWALK", spy)
    top = _sample()
    top.clickable = {77: 77}
    lean = _redecode(top, lean=True)
    full = build_tree(lean)
    assert len(calls) == 1 and calls[0] is full
    monkeypatch.setattr(_tree, "USE_CWALK", False)
    assert build_tree(lean) == full  # the Python walk, same tree
    assert len(calls) == 1
    monkeypatch.setattr(_tree, "USE_CWALK", True)
    child = _redecode(frame(el("link", "x", text("x"))), lean=True)
    assert prebuild_frame("MAIN", child.nodes).built == _tree._build(child, (), True)
    assert len(calls) == 2 and calls[1] is not None
    # Scoped builds stay on the Python walk.
    build_tree(lean, scope={("MAIN", 77)})
    assert len(calls) == 2


def _installed_by_setup_sh() -> bool:
    """Whether scripts/setup.sh installed this checkout's current C sources (its stamp)."""
    root = Path(__file__).resolve().parents[2]
    stamp = Path(sys.prefix) / ".kobrowser-setup-stamp"
    sources = [
        "pyproject.toml",
        "setup.py",
        "kobrowser/cdp/_cbor.c",
        "kobrowser/snapshot/_cwalk.c",
        "kobrowser/snapshot/_cnumber.h",
    ]
    try:
        digest = hashlib.sha256(b"".join((root / s).read_bytes() for s in sources)).hexdigest()
        return stamp.read_text().split("\n", 1)[0] == digest
    except OSError:
        return False


def test_the_c_walk_is_built_by_the_dev_install() -> None:
    # scripts/setup.sh installs with gcc and the Python headers: a setup.py
    # that stops building the walk (it is optional) must not pass CI, or a
    # dev install made from these sources, unseen.
    if os.environ.get("KOBROWSER_NO_EXTENSION") == "1":
        pytest.skip("KOBROWSER_NO_EXTENSION=1")
    if not os.environ.get("CI") and not _installed_by_setup_sh():
        pytest.skip("not under CI, and not installed by scripts/setup.sh from these sources")
    assert CBUILD is not None, "kobrowser.snapshot._cwalk is not built (or is stale)"


@needs_cwalk
def test_the_c_walk_hands_unknown_objects_to_the_python_walk() -> None:
    class Odd(msgspec.Struct):
        nodeId: str
        childIds: list[str] = []

    top = _sample()
    top.nodes[1] = Odd(top.nodes[1].nodeId)  # type: ignore[call-arg]
    assert CBUILD is not None
    assert CBUILD(top, None, False) is None
    with pytest.raises(AttributeError):
        build_tree(top)  # the Python walk says what is wrong


def test_a_stale_or_missing_extension_falls_back_to_python(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import sys
    import types

    monkeypatch.setitem(sys.modules, "kobrowser.snapshot._cwalk", None)
    with caplog.at_level("DEBUG", logger="kobrowser.snapshot"):
        assert _native.load_cwalk(_tree._MARKER.fullmatch) is None
    assert "_cwalk is not built" in caplog.text
    stale = types.ModuleType("kobrowser.snapshot._cwalk")
    stale.ABI = _native.CWALK_ABI + 1  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "kobrowser.snapshot._cwalk", stale)
    with caplog.at_level("DEBUG", logger="kobrowser.snapshot"):
        assert _native.load_cwalk(_tree._MARKER.fullmatch) is None
    assert "_cwalk is stale" in caplog.text


@needs_cwalk
@pytest.mark.parametrize("where", [0, 1, 2])
def test_a_malformed_tree_raises_what_the_python_walk_raises(where: int) -> None:
    # An unhashable child id (a list), found part way through the walk: the C
    # walk stops with Python's error and lets go of what it built.
    top = _sample()
    node = top.nodes[where]
    node.childIds = [*node.childIds, ["not", "an", "id"]]  # type: ignore[list-item]
    assert CBUILD is not None
    with pytest.raises(TypeError) as python:
        _tree._build(top, (), True)
    with pytest.raises(TypeError) as c:
        CBUILD(top, None, False)
    assert str(c.value) == str(python.value)


@needs_cwalk
def test_properties_that_are_not_structs_go_to_the_python_walk() -> None:
    top = _sample()
    top.nodes[2].properties = [{"name": "focused"}]  # type: ignore[list-item]
    assert CBUILD is not None
    assert CBUILD(top, None, False) is None
    with pytest.raises(AttributeError):
        build_tree(top)
