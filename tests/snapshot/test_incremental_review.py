"""Adversarial cases of incremental builds (``BuildMemo`` with ``MirrorStore.take_dirty``).

Each test drives a :class:`~kobrowser._axmirror.MirrorStore` the way the
mirror does (whole nodes stored, missing children read again) and checks
that a build reusing the memo equals a full build of the same nodes.
"""

from __future__ import annotations

import msgspec

from kobrowser._axmirror._store import MirrorStore
from kobrowser.snapshot import AXNode, AXValue, FrameAX, Node, build_tree, format_snapshot
from kobrowser.snapshot._memo import BuildMemo


def _node(node_id: str, role: str, name: str = "", *children: str) -> AXNode:
    return AXNode(
        nodeId=node_id,
        ignored=False,
        role=AXValue("role", role),
        name=AXValue("computedString", name) if name else None,
        childIds=list(children),
        backendDOMNodeId=int(node_id) + 100,
    )


def _render(roots: list[Node]) -> tuple[str, list[object]]:
    text, nodes = format_snapshot(roots, title="t")
    return text, [msgspec.structs.astuple(n)[:6] for n in nodes]


def _step(store: MirrorStore, memo: BuildMemo) -> None:
    """Answer as the mirror does, build with the memo, compare with a full build."""
    nodes, lacking = store.current()
    assert not lacking
    _, dirty = store.take_dirty()
    top = FrameAX("MAIN", nodes)
    memo.update(dirty, top.clickable, nodes, store.parents)
    incremental = build_tree(top, memo=memo, index={n.nodeId: n for n in nodes})
    assert _render(incremental) == _render(build_tree(top))


def test_a_node_listed_twice_for_one_answer_then_kept_by_its_old_parent() -> None:
    # Q lists C; for one answer P lists C too (a move under way, or undone
    # before Q was reported); then P drops it again. Q never changes, yet
    # the build of the answer with C listed twice put C under P only.
    store = MirrorStore(_node("1", "RootWebArea", "t", "2", "3"))
    store.put(
        [
            _node("2", "group", "P"),
            _node("3", "group", "Q", "4"),
            _node("4", "button", "C"),
        ]
    )
    memo = BuildMemo("MAIN", {})
    _step(store, memo)
    store.put([_node("2", "group", "P", "4")])  # P lists C too
    _step(store, memo)
    assert store.twice
    store.put([_node("2", "group", "P")])  # P lets go of C: C is read again
    nodes, lacking = store.current()
    assert lacking == ["3"]
    store.put([_node("4", "button", "C")])  # Chrome's answer: Q's children
    nodes, lacking = store.current()
    assert not lacking and "4" in [n.nodeId for n in nodes]  # not pruned as unattached
    _step(store, memo)


def test_no_dirty_set_right_after_a_tree_with_a_node_listed_twice() -> None:
    store = MirrorStore(_node("1", "RootWebArea", "t", "2", "3"))
    store.put([_node("2", "group", "P", "4"), _node("3", "group", "Q", "4")])
    store.put([_node("4", "button", "C")])
    assert store.take_dirty() == (0, None)
    store.current()
    assert store.twice and store.take_dirty() == (1, None)
    store.put([_node("2", "group", "P")])
    store.current()
    assert not store.twice
    # Entries built from the tree with C under P only must not be reused.
    assert store.take_dirty() == (2, None)
    store.put([_node("2", "group", "P2")])
    store.current()
    assert store.take_dirty() == (3, {"1", "2"})


def test_entries_of_removed_nodes_do_not_pile_up() -> None:
    # A ticker replaces one item (new node ids) per answer: the memo keeps
    # at most one entry per node of the tree, not one per node ever seen.
    store = MirrorStore(_node("1", "RootWebArea", "t", "2", "3"))
    store.put([_node("2", "list", "", "10"), _node("3", "group", "Stay", "4")])
    store.put([_node("4", "button", "Go")])
    store.put([_node("10", "listitem", "", "11"), _node("11", "button", "item 10")])
    memo = BuildMemo("MAIN", {})
    _step(store, memo)
    for item in range(12, 400, 2):
        store.put([_node("2", "list", "", str(item))])
        store.put([_node(str(item), "listitem", "", str(item + 1))])
        store.put([_node(str(item + 1), "button", f"item {item}")])
        _step(store, memo)
        assert len(memo) <= 2 * len(store.nodes)
    assert memo.reused > 0  # the memo is still used
