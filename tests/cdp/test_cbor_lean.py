"""The flat getFullAXTree answer: the codec applying the snapshot's projection
(``to_json(data, {id: projection})`` with ``FLAT_AX_KEEP``, kobrowser/snapshot/_ax.py).

A flat answer is ``{"flatNodes": [...]}``: each node without the keys the
walk never reads, its role, name and value flat (the AXValue's ``value``),
only the properties the walk reads, as ``[name, value]``, and a shown text
piece without its children. Decoded by the walk's decoder, it must equal the
whole answer's nodes as ``tests/_flat_ax.py`` flattens them, whatever else
the nodes hold (hypothesis-generated AX-shaped nodes, Chrome's UTF-16
strings included).
"""

from __future__ import annotations

import re
from typing import Any, get_args

import msgspec
import pytest
from _examples import examples
from _flat_ax import flatten
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.cdp import Keep, cbor_codec
from kobrowser.snapshot._ax import (
    FLAT_AX_KEEP,
    FlatAXNode,
    LeanPropertyName,
    decode_snapshot_nodes,
)
from kobrowser.snapshot._states import READ_PROPERTIES

from ._cbor_ref import chrome_encode

codec = cbor_codec()
pytestmark = pytest.mark.skipif(codec is None, reason="kobrowser.cdp._cbor is not built")
FLAT = Keep(FLAT_AX_KEEP).compiled


def lean(*ids: int) -> dict[int, object]:
    """The ``keeps`` of to_json: these calls' answers flat."""
    return dict.fromkeys(ids, FLAT)


DROPPED = ("sources", "chromeRole", "parentId", "ignoredReasons", "frameId", "description")

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
plain = st.one_of(st.none(), st.booleans(), st.integers(-(2**31), 2**31 - 1), text)
anything = st.recursive(
    plain,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["sources", "value", "type", "x", *DROPPED]), inner, max_size=3
        ),
    ),
    max_leaves=8,
)
ax_value = st.fixed_dictionaries(
    {"type": st.sampled_from(["role", "computedString", "internalRole", "boolean"])},
    optional={
        "value": anything,
        "sources": st.lists(anything, max_size=3),
        "relatedNodes": anything,
    },
)
ax_node = st.fixed_dictionaries(
    {"nodeId": st.integers(1, 10**6).map(str)},
    optional={
        "ignored": st.booleans(),
        "ignoredReasons": st.lists(st.fixed_dictionaries({"name": text, "value": ax_value})),
        "role": ax_value | st.none(),
        "chromeRole": ax_value,
        "name": ax_value | st.none(),
        "description": ax_value,
        "value": ax_value | st.none(),
        "properties": st.lists(
            st.fixed_dictionaries(
                {"name": text | st.sampled_from(sorted(READ_PROPERTIES)), "value": ax_value}
            ),
            max_size=3,
        ),
        "parentId": st.integers(1, 10**6).map(str),
        "childIds": st.lists(st.integers(1, 10**6).map(str), max_size=4),
        "backendDOMNodeId": st.integers(1, 2**31 - 1),
        "frameId": text,
    },
)


def _message(call_id: int, nodes: list[dict[str, Any]], utf16: bool = True) -> bytes:
    reply = {"id": call_id, "result": {"nodes": nodes}, "sessionId": "S1"}
    return chrome_encode(reply, utf16=utf16)


def _shown_role(node: dict[str, Any]) -> Any:
    """The role value of a node the codec sees as shown: it says "ignored":
    false, then (after it) has a role; None for any other node."""
    keys = list(node)
    if node.get("ignored") is not False or "role" not in keys:
        return None
    if keys.index("ignored") > keys.index("role"):
        return None
    return (node["role"] or {}).get("value")


def _shown_text(node: dict[str, Any]) -> bool:
    """Whether the codec leaves out the node's children (a shown StaticText)."""
    return bool(_shown_role(node) == "StaticText")


def _expected(data: bytes, nodes: list[dict[str, Any]]) -> list[FlatAXNode]:
    """The nodes of the whole answer (as transcoded), less those a lean one
    leaves out, flattened as the lean answer should give them."""
    whole = msgspec.json.decode(codec.to_json(data))["result"]["nodes"]
    pairs = [
        (node, sent)
        for i, (node, sent) in enumerate(zip(whole, nodes, strict=True))
        if not _left_out(i, sent)
    ]
    decoded = decode_snapshot_nodes(msgspec.json.encode({"nodes": [node for node, _ in pairs]}))
    return [
        flatten(node, text_children=not _shown_text(sent))
        for node, (_, sent) in zip(decoded, pairs, strict=True)
    ]


def _lean_nodes(lean: bytes) -> list[Any]:
    result = msgspec.json.decode(lean)["result"]
    assert list(result) == ["flatNodes"]
    nodes = decode_snapshot_nodes(msgspec.json.encode(result))
    assert all(node.__class__ is FlatAXNode for node in nodes)
    return nodes


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ax_node, max_size=6), st.booleans())
def test_a_lean_answer_decodes_to_the_same_ax_tree(
    nodes: list[dict[str, Any]], utf16: bool
) -> None:
    data = _message(5, nodes, utf16)
    keeps = lean(5, 6)
    flat = msgspec.json.decode(codec.to_json(data, keeps))  # valid JSON, whatever was left out
    assert keeps == lean(6)  # the answered id is taken out
    assert flat["id"] == 5 and flat["sessionId"] == "S1"
    for node in flat["result"]["flatNodes"]:
        assert not set(node) & set(DROPPED)
        assert all(name in READ_PROPERTIES for name, _ in node.get("properties", ()))
    assert _lean_nodes(codec.to_json(data, lean(5))) == _expected(data, nodes)


def test_lean_leaves_out_only_the_nodes_unread_keys() -> None:
    node = {
        "nodeId": "1",
        "ignored": False,
        "role": {"type": "role", "value": "button"},
        "chromeRole": {"type": "internalRole", "value": 9},
        "name": {"type": "computedString", "value": "Go", "sources": [{"type": "contents"}]},
        "properties": [
            {"name": "invalid", "value": {"type": "token", "value": "false"}},
            {"name": "focusable", "value": {"type": "boolean", "value": True}},
            {"name": "url", "value": {"type": "string", "value": "http://x/"}},
            {"value": {"type": "tristate", "value": "mixed"}, "name": "checked"},
            {"name": "level", "value": {"type": "integer", "value": 2}},
        ],
        "parentId": "0",
        "childIds": ["2"],
        "backendDOMNodeId": 12,
    }
    text = {
        "nodeId": "2",
        "ignored": False,
        "role": {"type": "internalRole", "value": "StaticText"},
        "name": {"type": "computedString"},
        "value": {"type": "string", "value": 5, "relatedNodes": [1]},
        "description": None,
        "properties": [],
        "childIds": ["-3"],
    }
    other = {"parentId": "1", "nodeId": "4", "role": None, "childIds": ["5"]}
    data = _message(3, [node, text, other])
    assert codec.to_json(data, lean(3)) == (
        b'{"id":3,"result":{"flatNodes":[{"nodeId":"1","ignored":false,'
        b'"role":"button","name":"Go",'
        b'"properties":[["focusable",true],["checked","mixed"]],'
        b'"childIds":["2"],"backendDOMNodeId":12},'
        b'{"nodeId":"2","ignored":false,"role":"StaticText","name":null,"value":5,'
        b'"properties":[]},'
        b'{"nodeId":"4","role":null,"childIds":["5"]}]},"sessionId":"S1"}'
    )
    # Another call's answer, an empty dict or None: transcoded whole.
    whole = codec.to_json(data)
    assert b'"sources"' in whole and b'"parentId"' in whole
    assert (
        codec.to_json(data, lean(4))
        == codec.to_json(data, {})
        == codec.to_json(data, None)
        == whole
    )
    # Keys elsewhere in the message (an event's params) are never left out.
    event = chrome_encode({"method": "X.y", "params": {"nodes": [node]}})
    assert codec.to_json(event, lean(3)) == codec.to_json(event)


def test_lean_still_checks_the_input() -> None:
    data = _message(3, [{"chromeRole": {"type": "internalRole", "value": 1}, "nodeId": "Q"}], False)
    assert data.count(b"\x61Q") == 1
    bad = data.replace(b"\x61Q", b"\xc1Q")  # an unsupported tag, same length
    with pytest.raises(codec.CBORError, match="tag 1") as info:
        codec.to_json(bad, lean(3))
    assert info.value.call_id == 3 and info.value.offset == data.index(b"\x61Q")
    with pytest.raises(TypeError):
        codec.to_json(data, [3])
    with pytest.raises(TypeError):
        codec.to_json()
    with pytest.raises(ValueError, match="Capsule"):  # not a projection
        codec.to_json(data, {3: "flat"})


INLINE_BOX = {"type": "role", "value": "InlineTextBox"}


def _box(node_id: str, **fields: Any) -> dict[str, Any]:
    return {"nodeId": node_id, "ignored": False, "role": INLINE_BOX, **fields}


def _left_out(index: int, node: dict[str, Any]) -> bool:
    """Whether a flat answer leaves the node out (the drop case of FLAT_AX_KEEP)."""
    return index > 0 and bool(_shown_role(node) == "InlineTextBox")


def test_lean_leaves_out_inline_text_boxes_after_the_root() -> None:
    nodes = [
        _box("1"),  # the root stays, whatever its role
        {"nodeId": "2", "ignored": False, "role": {"type": "role", "value": "StaticText"}},
        _box("3", name={"type": "computedString", "value": "Hi"}, childIds=["9"]),
        _box("4"),
        {"nodeId": "5", "ignored": True, "role": INLINE_BOX},  # ignored: its children are walked
        {"nodeId": "6", "role": INLINE_BOX},  # not said to be shown
        {"nodeId": "7", "role": INLINE_BOX, "ignored": False},  # said after its role
        {"nodeId": "8", "ignored": False, "role": {"value": "InlineTextBox", "type": "role"}},
        _box("10", backendDOMNodeId=4),
    ]
    flat = codec.to_json(_message(3, nodes, False), lean(3))
    kept = msgspec.json.decode(flat)["result"]["flatNodes"]
    assert [node["nodeId"] for node in kept] == ["1", "2", "5", "6", "7"]
    assert flat.startswith(b'{"id":3,"result":{"flatNodes":[{"nodeId":"1",')
    assert b'"nodeId":"2","ignored":false,"role":"StaticText"},' in flat
    assert b'"nodeId":"4"' not in flat and b'"Hi"' not in flat
    # Only boxes: the root alone is left.
    only = codec.to_json(_message(4, [_box("1"), _box("2"), _box("3")]), lean(4))
    assert only == b'{"id":4,"result":{"flatNodes":[{"nodeId":"1","ignored":false,' + (
        b'"role":"InlineTextBox"}]},"sessionId":"S1"}'
    )
    # The whole answer keeps them all.
    whole = msgspec.json.decode(codec.to_json(_message(3, nodes, False)))
    assert len(whole["result"]["nodes"]) == len(nodes)


def test_the_rest_of_a_left_out_box_goes_unread() -> None:
    # A box whose name holds an unsupported tag inside its envelope: stepped
    # over (as any dropped key), so the lean answer reads; the whole one fails.
    nodes = [_box("1"), _box("2", name={"type": "computedString", "value": "QQ"})]
    data = _message(3, nodes, False)
    assert data.count(b"\x62QQ") == 1
    bad = data.replace(b"\x62QQ", b"\xc1\x61Q")  # same length
    flat = msgspec.json.decode(codec.to_json(bad, lean(3)))
    assert [node["nodeId"] for node in flat["result"]["flatNodes"]] == ["1"]
    with pytest.raises(codec.CBORError, match="tag 1"):
        codec.to_json(bad)


ax_or_box = st.one_of(
    ax_node,
    ax_node.map(lambda node: {**node, "role": INLINE_BOX}),
    ax_node.map(
        lambda node: {"nodeId": node["nodeId"], "ignored": False, **node, "role": INLINE_BOX}
    ),
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ax_or_box, max_size=6), st.booleans())
def test_a_lean_answer_is_the_whole_one_without_its_boxes(
    nodes: list[dict[str, Any]], utf16: bool
) -> None:
    data = _message(7, nodes, utf16)
    assert _lean_nodes(codec.to_json(data, lean(7))) == _expected(data, nodes)


def test_the_projection_keeps_the_properties_and_fields_the_walk_reads() -> None:
    nodes = FLAT_AX_KEEP["nodes"]
    assert set(nodes["$each"]["properties"]["$only"][1]) == READ_PROPERTIES
    # ... and the flat property's name is typed as exactly those (a name
    # outside them would fail the decode of every flat answer).
    assert set(get_args(LeanPropertyName)) == READ_PROPERTIES
    # Every field of a flat node is kept (a field added to the struct and not
    # kept would be silently missing on the CBOR pipe), and nothing else.
    assert set(nodes["$each"]) == set(FlatAXNode.__struct_fields__)
    assert FLAT_AX_KEEP["$rename"] == {"nodes": "flatNodes"}


def test_a_shown_text_piece_loses_only_its_children() -> None:
    def piece(node_id: str, **fields: Any) -> dict[str, Any]:
        return {"nodeId": node_id, **fields, "childIds": ["-1"]}

    static = {"type": "role", "value": "StaticText"}
    nodes = [
        piece("1", ignored=False, role=static),  # the root too: it prints nothing below
        piece("2", ignored=False, role=static),
        piece("3", ignored=True, role=static),  # ignored: its children are walked
        piece("4", role=static),  # not said to be shown
        piece("5", role=static, ignored=False),  # said after its role
        piece("6", ignored=False, role={"type": "role", "value": "generic"}),
        piece("7", ignored=False, role={"type": "role", "value": "statictext"}),
    ]
    flat = msgspec.json.decode(codec.to_json(_message(3, nodes), lean(3)))["result"]["flatNodes"]
    assert [node.get("childIds") for node in flat] == [
        None,
        None,
        ["-1"],
        ["-1"],
        ["-1"],
        ["-1"],
        ["-1"],
    ]


@pytest.mark.parametrize(
    ("node", "what"),
    [
        ({"nodeId": "1", "role": "button"}, "result.nodes[].role is not a map"),
        ({"nodeId": "1", "name": ["Go"]}, "result.nodes[].name is not a map"),
        ({"nodeId": "1", "properties": {"name": "x"}}, "result.nodes[].properties is not an array"),
        ({"nodeId": "1", "properties": ["focused"]}, "result.nodes[].properties[] is not a map"),
        (
            {"nodeId": "1", "properties": [{"name": "focused"}]},
            "result.nodes[].properties[] has no value",
        ),
        (
            {"nodeId": "1", "properties": [{"value": {"value": 1}}]},
            "result.nodes[].properties[] has no name",
        ),
        (
            {"nodeId": "1", "properties": [{"name": 5, "value": {"value": 1}}]},
            "result.nodes[].properties[].name is not a string",
        ),
        (
            {"nodeId": "1", "properties": [{"name": "focused", "value": True}]},
            "result.nodes[].properties[].value is not a map",
        ),
    ],
)
def test_a_flat_answer_of_another_shape_fails_its_call(node: dict[str, Any], what: str) -> None:
    data = _message(9, [node])
    with pytest.raises(codec.CBORError, match=f"unexpected answer: {re.escape(what)}") as info:
        codec.to_json(data, lean(9))
    assert info.value.call_id == 9 and 0 < info.value.offset < len(data)
    # The whole answer transcodes (its decoder refuses it, as the lean one is refused).
    assert msgspec.json.decode(codec.to_json(data))["id"] == 9


def test_a_dropped_value_is_stepped_over_unwritten() -> None:
    # A left-out key's text is not decoded: invalid UTF-8 there fails only
    # the whole answer. Its length still counts: a truncation fails both.
    data = _message(3, [{"nodeId": "1", "parentId": "PP", "frameId": "F"}], False)
    assert data.count(b"\x62PP") == 1
    bad = data.replace(b"\x62PP", b"\x62\xff\xfe")
    flat = msgspec.json.decode(codec.to_json(bad, lean(3)))
    assert flat["result"] == {"flatNodes": [{"nodeId": "1"}]}
    with pytest.raises(codec.CBORError, match="invalid UTF-8"):
        codec.to_json(bad)
    cut = data.replace(b"\x62PP", b"\x7a\x00\x00\x10\x00PP")  # 4,096 bytes said, 2 there
    for keeps in (lean(3), None):
        with pytest.raises(codec.CBORError, match=r"truncated|malformed"):
            codec.to_json(cut, keeps)
