"""Flat AX nodes: what the CBOR pipe's lean answer decodes to (``FlatAXNode``).

The walk reads them as it reads the AXNodes they stand for (test_walk_forms
compares whole trees); here, the pieces: the properties the
walk reads, the readers of role and name, and the decode of either form.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from _flat_ax import flatten
from hypothesis import given
from hypothesis import strategies as st

from kobrowser.snapshot._ax import (
    AXNode,
    AXProperty,
    AXValue,
    FlatAXNode,
    FlatAXProperty,
    counted_nodes,
    decode_snapshot_nodes,
    raw_name,
    raw_role,
)
from kobrowser.snapshot._states import _PROP_BITS, READ_PROPERTIES, read_props

NAMES = st.sampled_from(
    [*sorted(READ_PROPERTIES), "level", "invalid", "url", "settable", "hasPopup", ""]
)
VALUES = st.sampled_from([True, False, None, "true", "false", "mixed", "plaintext", 2, 0.5])
PROPERTIES = st.lists(st.builds(lambda n, v: AXProperty(n, AXValue("t", v)), NAMES, VALUES))


def test_read_properties_are_the_state_rules_editable_and_focusable() -> None:
    assert {name for name, _ in _PROP_BITS} | {"editable", "focusable"} == READ_PROPERTIES


@given(PROPERTIES)
def test_read_props_reads_only_the_read_properties(props: list[AXProperty]) -> None:
    kept = [prop for prop in props if prop.name in READ_PROPERTIES]
    assert read_props(props) == read_props(kept)


@given(PROPERTIES)
def test_flat_properties_read_as_the_ones_they_stand_for(props: list[AXProperty]) -> None:
    flat = [FlatAXProperty(prop.name, prop.value.value) for prop in props]
    assert read_props(flat, flat=True) == read_props(props)


def test_a_flat_property_is_a_pair() -> None:
    assert msgspec.json.decode(b'["focused",true]', type=FlatAXProperty) == FlatAXProperty(
        "focused", True
    )
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'["focused"]', type=FlatAXProperty)


@pytest.mark.parametrize("value", ["Title", 5, None, ["x"]])
def test_raw_role_and_name_read_both_kinds(value: Any) -> None:
    node = AXNode("1", role=AXValue("role", value), name=AXValue("computedString", value))
    for one in (node, flatten(node)):
        assert raw_role(one) == value
        assert raw_name(one) == value
    bare = AXNode("2")
    for one in (bare, flatten(bare)):
        assert raw_role(one) is None and raw_name(one) is None


def test_the_decode_gives_flat_nodes_for_a_lean_answer() -> None:
    lean = (
        b'{"flatNodes":[{"nodeId":"1","ignored":false,"role":"button","name":"Go",'
        b'"properties":[["focusable",true]],"childIds":["2"],"backendDOMNodeId":7},'
        b'{"nodeId":"2","role":"StaticText","name":"Go"}]}'
    )
    nodes = decode_snapshot_nodes(lean)
    assert [node.__class__ for node in nodes] == [FlatAXNode, FlatAXNode]
    assert nodes[0] == FlatAXNode(
        "1",
        role="button",
        name="Go",
        properties=(FlatAXProperty("focusable", True),),
        childIds=("2",),
        backendDOMNodeId=7,
    )
    whole = b'{"nodes":[{"nodeId":"1","role":{"type":"role","value":"button"}}]}'
    (node,) = decode_snapshot_nodes(whole)
    assert node.__class__ is not FlatAXNode and raw_role(node) == "button"
    assert decode_snapshot_nodes(b'{"nodes":[]}') == []
    with pytest.raises(msgspec.ValidationError, match="nodes"):
        decode_snapshot_nodes(b"{}")
    with pytest.raises(msgspec.ValidationError):
        decode_snapshot_nodes(b'{"flatNodes":[{"nodeId":"1","properties":[["x"]]}]}')


def test_counted_nodes_reads_flat_roles() -> None:
    def nodes(role: str) -> list[AXNode]:
        return [AXNode(str(i), role=AXValue("role", role)) for i in range(4)]

    for one in (nodes("InlineTextBox"), nodes("StaticText")):
        flat: list[Any] = [flatten(node) for node in one]
        assert counted_nodes(flat) == counted_nodes(one)
    assert counted_nodes(nodes("InlineTextBox")) == 1
