"""Lean transcoding of getFullAXTree answers (``to_json(data, lean)``, LeanAXDecode).

A lean answer leaves out the node keys kobrowser's AX structs never read;
decoded with ``AX_TREE_DECODER`` it must equal the whole answer, whatever
else the nodes hold (hypothesis-generated AX-shaped nodes, Chrome's UTF-16
strings included).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.cdp import cbor_codec
from kobrowser.snapshot import AX_TREE_DECODER

from ._cbor_ref import chrome_encode

codec = cbor_codec()
pytestmark = pytest.mark.skipif(codec is None, reason="kobrowser.cdp._cbor is not built")

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
        "role": ax_value,
        "chromeRole": ax_value,
        "name": ax_value,
        "description": ax_value,
        "value": ax_value,
        "properties": st.lists(
            st.fixed_dictionaries({"name": text, "value": ax_value}), max_size=3
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


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ax_node, max_size=6), st.booleans())
def test_a_lean_answer_decodes_to_the_same_ax_tree(
    nodes: list[dict[str, Any]], utf16: bool
) -> None:
    data = _message(5, nodes, utf16)
    whole = msgspec.json.decode(codec.to_json(data))
    lean_ids = {5, 6}
    lean = msgspec.json.decode(codec.to_json(data, lean_ids))  # valid JSON, whatever was left out
    assert lean_ids == {6}  # the answered id is taken out
    assert lean["id"] == 5 and lean["sessionId"] == "S1"
    for node in lean["result"]["nodes"]:
        assert not set(node) & set(DROPPED)
        for field in ("role", "name", "value"):
            if isinstance(node.get(field), dict):
                assert "sources" not in node[field]
    as_tree = AX_TREE_DECODER.decode
    assert as_tree(msgspec.json.encode(lean["result"])) == as_tree(
        msgspec.json.encode(whole["result"])
    )


def test_lean_leaves_out_only_the_nodes_unread_keys() -> None:
    node = {
        "nodeId": "1",
        "ignored": False,
        "role": {"type": "role", "value": "button"},
        "chromeRole": {"type": "internalRole", "value": 9},
        "name": {"type": "computedString", "value": "Go", "sources": [{"type": "contents"}]},
        "properties": [{"name": "focusable", "value": {"type": "boolean", "value": True}}],
        "parentId": "0",
        "childIds": ["2"],
        "backendDOMNodeId": 12,
    }
    data = _message(3, [node, {"parentId": "1", "nodeId": "2"}])
    assert codec.to_json(data, {3}) == (
        b'{"id":3,"result":{"nodes":[{"nodeId":"1","ignored":false,'
        b'"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Go"},'
        b'"properties":[{"name":"focusable","value":{"type":"boolean","value":true}}],'
        b'"childIds":["2"],"backendDOMNodeId":12},{"nodeId":"2"}]},"sessionId":"S1"}'
    )
    # Another call's answer, an empty set or None: transcoded whole.
    whole = codec.to_json(data)
    assert b'"sources"' in whole and b'"parentId"' in whole
    assert (
        codec.to_json(data, {4}) == codec.to_json(data, set()) == codec.to_json(data, None) == whole
    )
    # Keys elsewhere in the message (an event's params) are never left out.
    event = chrome_encode({"method": "X.y", "params": {"nodes": [node]}})
    assert codec.to_json(event, {3}) == codec.to_json(event)


def test_lean_still_checks_the_input() -> None:
    data = _message(3, [{"chromeRole": {"type": "internalRole", "value": 1}, "nodeId": "Q"}], False)
    assert data.count(b"\x61Q") == 1
    bad = data.replace(b"\x61Q", b"\xc1Q")  # an unsupported tag, same length
    with pytest.raises(codec.CBORError, match="tag 1") as info:
        codec.to_json(bad, {3})
    assert info.value.call_id == 3 and info.value.offset == data.index(b"\x61Q")
    with pytest.raises(TypeError):
        codec.to_json(data, [3])
    with pytest.raises(TypeError):
        codec.to_json()


INLINE_BOX = {"type": "role", "value": "InlineTextBox"}


def _box(node_id: str, **fields: Any) -> dict[str, Any]:
    return {"nodeId": node_id, "ignored": False, "role": INLINE_BOX, **fields}


def _left_out(index: int, node: dict[str, Any]) -> bool:
    """Whether a lean answer leaves the node out (see ``to_json`` in _cbor.c)."""
    if index == 0 or node.get("ignored") is not False:
        return False
    keys = list(node)
    if "role" not in keys or keys.index("ignored") > keys.index("role"):
        return False
    role = {k: v for k, v in node["role"].items() if k != "sources"}
    return list(role)[-1:] == ["value"] and role["value"] == "InlineTextBox"


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
    lean = codec.to_json(_message(3, nodes, False), {3})
    kept = msgspec.json.decode(lean)["result"]["nodes"]
    assert [node["nodeId"] for node in kept] == ["1", "2", "5", "6", "7", "8"]
    assert lean.startswith(b'{"id":3,"result":{"nodes":[{"nodeId":"1",')
    assert b'"nodeId":"2","ignored":false,"role":{"type":"role","value":"StaticText"}},' in lean
    assert b'"nodeId":"4"' not in lean and b'"Hi"' not in lean
    # Only boxes: the root alone is left.
    only = codec.to_json(_message(4, [_box("1"), _box("2"), _box("3")]), {4})
    assert only == b'{"id":4,"result":{"nodes":[{"nodeId":"1","ignored":false,' + (
        b'"role":{"type":"role","value":"InlineTextBox"}}]},"sessionId":"S1"}'
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
    lean = msgspec.json.decode(codec.to_json(bad, {3}))
    assert [node["nodeId"] for node in lean["result"]["nodes"]] == ["1"]
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
    whole = msgspec.json.decode(codec.to_json(data))["result"]
    lean = msgspec.json.decode(codec.to_json(data, {7}))["result"]
    kept = [node for i, node in enumerate(whole["nodes"]) if not _left_out(i, node)]
    as_tree = AX_TREE_DECODER.decode
    assert as_tree(msgspec.json.encode(lean)) == as_tree(msgspec.json.encode({"nodes": kept}))
