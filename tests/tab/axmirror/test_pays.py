"""Which documents read in full get a mirror: counted nodes at least ``min_nodes``."""

from __future__ import annotations

from typing import Any

from kobrowser._tab._axmirror._policy import _pays
from kobrowser.snapshot import AXNode, AXValue


def _node(role: str) -> AXNode:
    return AXNode(nodeId=role, ignored=False, role=AXValue(type="role", value=role))


class _Unread(list[AXNode]):
    """Nodes that must not be walked (only their number is read)."""

    def __getitem__(self, at: Any) -> Any:
        raise AssertionError("walked a document too small for a mirror")

    def __iter__(self) -> Any:
        raise AssertionError("walked a document too small for a mirror")


def test_a_document_pays_by_its_counted_nodes() -> None:
    texts = [_node("StaticText")] * 4
    boxes = [_node("InlineTextBox")] * 3  # shown inline text boxes do not count
    assert _pays([_node("RootWebArea"), *texts], 5)
    assert not _pays([_node("RootWebArea"), *texts, *boxes], 6)  # 8 nodes, 5 counted
    assert _pays([_node("RootWebArea"), *texts, _node("generic"), *boxes], 6)


def test_a_document_with_fewer_nodes_is_not_walked() -> None:
    small = _Unread([_node("StaticText")] * 9)
    assert not _pays(small, 10)
    assert not _pays(_Unread(), 1)
