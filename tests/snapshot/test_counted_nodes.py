"""counted_nodes: the AX mirror's node count is the same on every transport."""

from __future__ import annotations

from kobrowser.snapshot import AXNode, AXValue
from kobrowser.snapshot._ax import counted_nodes


def test_the_mirror_counts_nodes_without_shown_inline_text_boxes() -> None:
    def node(node_id: str, role: str, ignored: bool = False) -> AXNode:
        return AXNode(nodeId=node_id, ignored=ignored, role=AXValue(type="role", value=role))

    nodes = [
        node("1", "InlineTextBox"),  # the root always counts
        node("2", "StaticText"),
        node("3", "InlineTextBox"),
        node("4", "InlineTextBox", ignored=True),
        AXNode(nodeId="5"),
    ]
    assert counted_nodes(nodes) == 4
    assert counted_nodes([]) == 0
