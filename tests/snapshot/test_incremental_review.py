"""Adversarial cases of incremental builds (``BuildMemo`` with ``MirrorStore.take_dirty``).

Each test drives a :class:`~kobrowser._tab._axmirror.MirrorStore` the way the
mirror does (whole nodes stored, missing children read again) and checks
that a build reusing the memo equals a full build of the same nodes.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from kobrowser._tab._axmirror import MirrorAnswer
from kobrowser._tab._axmirror._store import MirrorStore
from kobrowser._tab._incremental import IncrementalBuilder
from kobrowser.snapshot import AXNode, AXValue, FrameAX, Node, build_tree, format_snapshot
from kobrowser.snapshot._format import FormatCache
from kobrowser.snapshot._memo import BuildMemo

from .test_incremental import _Model, _numbered


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


def test_a_new_node_listed_by_two_parents_is_seen_once_it_is_read() -> None:
    # One batch: P and Q both list a new node X (a move reported as the
    # new parent's update before the old one's). The whole walk that asks
    # for X cannot count it twice; the walk after X is read must.
    store = MirrorStore(_node("1", "RootWebArea", "t", "2", "3"))
    store.put([_node("2", "group", "P"), _node("3", "group", "Q")])
    memo = BuildMemo("MAIN", {})
    _step(store, memo)
    store.put([_node("2", "group", "P", "4"), _node("3", "group", "Q", "4")])
    nodes, lacking = store.current()
    assert sorted(lacking) == ["2", "3"]
    store.put([_node("4", "button", "X")])  # getChildAXNodes of P (and Q)
    store.prune()
    _step(store, memo)
    assert store.twice
    store.put([_node("3", "group", "Q")])  # Q's own update comes: X is under P
    nodes, lacking = store.current()
    assert lacking == ["2"]  # X went with Q's list: read again under P
    store.put([_node("4", "button", "X")])
    store.prune()
    nodes, lacking = store.current()
    assert not lacking and "4" in [n.nodeId for n in nodes]
    _step(store, memo)


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


class _Ids:
    """Node ids: new ones, or (often) ids of nodes removed before."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.next = 2
        self.free: list[str] = []

    def __iter__(self) -> _Ids:
        return self

    def __next__(self) -> int:
        if self.free and self.rng.random() < 0.5:
            return int(self.free.pop(self.rng.randrange(len(self.free))))
        self.next += 1
        return self.next


def _mirror_answer(store: MirrorStore, model: _Model) -> list[AXNode] | None:
    """Bring the store up to date the way the mirror's barrier does (None: give up)."""
    current = {n.nodeId: n for n in model.nodes()}
    for _ in range(50):
        nodes, lacking = store.current()
        if not lacking:
            return nodes
        gone = []
        for parent in lacking:  # Accessibility.getChildAXNodes(parent)
            node = current.get(parent)
            if node is None:
                gone.append(parent)
            else:
                store.put([current[c] for c in node.childIds])
        store.discard(gone)
        store.prune()
    return None  # a parent read before its late event: the mirror fetches in full


def _change(
    rng: random.Random, model: _Model, ids: _Ids, store: MirrorStore, late: list[AXNode]
) -> None:
    """Change the model; report the changed nodes, some of them late."""
    before = {n.nodeId: n for n in model.nodes()}
    for _ in range(rng.randint(1, 4)):
        model.change()
    after = {n.nodeId: n for n in model.nodes()}
    ids.free.extend(k for k in before if k not in after and k not in ids.free)
    new = [n for k, n in after.items() if before.get(k) != n]
    rng.shuffle(new)  # in any order within a batch, but after the older events
    events = late + new
    cut = rng.randint(0, len(events)) if rng.random() < 0.3 else len(events)
    store.put(events[:cut])
    late[:] = events[cut:]
    for flipped in store.flipped:  # as the mirror's drain: read its subtree again
        store.forget_below(flipped)
    store.flipped.clear()
    store.prune()


def _run_events(seed: int, steps: int) -> int:
    """Random changes reported as events, some late (after the next snapshot).

    Each answer goes through the tab's builder (the store's own index,
    ``proper``, the backend map); some snapshots take no answer (a full
    fetch) or a selector scope (built in full; the memo follows). The tree
    and its numbering (with a cache) equal a full build's.
    """
    rng = random.Random(seed)
    model = _Model(rng)
    ids = _Ids(rng)
    ids.next = max(int(k) for k in model.fields)
    model.ids = ids  # type: ignore[assignment]
    nodes = model.nodes()
    store = MirrorStore(nodes[0])
    store.put(nodes[1:])
    store.prune()
    builder = IncrementalBuilder()
    cache = FormatCache()
    late: list[AXNode] = []
    for step in range(steps):
        if step:
            _change(rng, model, ids, store, late)
        if rng.random() < 0.1:
            continue  # fresh=True: no answer taken, the changes add up
        nodes = _mirror_answer(store, model)
        if nodes is None:
            continue
        answer = MirrorAnswer(nodes, store, *store.take_dirty())
        top = model.frame(nodes)
        scope = {("MAIN", 100)} if rng.random() < 0.1 else None
        tree, _ = builder.build(top, answer, scope=scope)
        full = build_tree(top, scope=scope)
        assert _render(tree) == _render(full), f"seed {seed}, step {step}"
        if scope is None:
            numbered = _numbered(tree, cache)
            assert numbered == _numbered(full), f"seed {seed}, step {step}"
    return builder.stats["reused"]


@pytest.mark.parametrize("seed", range(40))
def test_incremental_equals_full_with_late_events_and_reused_ids(seed: int) -> None:
    assert _run_events(seed, steps=40) > 0


def _builder_step(store: MirrorStore, builder: IncrementalBuilder) -> MirrorAnswer:
    """A mirrored snapshot through the tab's builder; equal to a full build of the nodes."""
    nodes, lacking = store.current()
    assert not lacking
    answer = MirrorAnswer(nodes, store, *store.take_dirty())
    top = FrameAX("MAIN", nodes)
    tree, _ = builder.build(top, answer, scope=None)
    assert _render(tree) == _render(build_tree(top))
    return answer


def test_a_node_listing_one_child_twice_is_not_a_proper_tree() -> None:
    store = MirrorStore(_node("1", "RootWebArea", "t", "2"))
    store.put([_node("2", "group", "P", "3"), _node("3", "button", "X")])
    builder = IncrementalBuilder()
    _builder_step(store, builder)
    store.put([_node("2", "group", "P", "3", "3")])
    assert not _builder_step(store, builder).proper


def test_a_node_listing_the_root_does_not_hang_the_build() -> None:
    store = MirrorStore(_node("1", "RootWebArea", "t", "2"))
    store.put([_node("2", "group", "P", "3"), _node("3", "button", "X")])
    builder = IncrementalBuilder()
    _builder_step(store, builder)
    store.put([_node("3", "button", "X", "1")])  # a cycle through the root
    assert not _builder_step(store, builder).proper


def test_a_map_change_under_a_cycle_of_parent_entries_ends() -> None:
    # parents naming each other (a malformed tree's leftovers): the walk up ends.
    memo = BuildMemo("MAIN", {1: 1})
    memo.entries = {"2": (("", False, 0), [], 0), "3": (("", False, 0), [], 0)}
    nodes = [_node("1", "RootWebArea"), _node("2", "group", "A", "3"), _node("3", "group", "B")]
    memo.update(set(), {1: 1, 102: 102}, nodes, {"2": "3", "3": "2"})
    assert len(memo) == 0


def test_a_node_listed_twice_is_told_though_nodes_below_text_pieces_were_given() -> None:
    # The store is given every node of a page, those below a list marker and
    # text pieces too (the walk never reads them). A move reported by the
    # new parent first lists a button under two parents: the tree is not
    # proper, though the store's walk reaches fewer nodes than it was given
    # (held, they hid the node met twice, and the build printed it twice).
    store = MirrorStore(_node("1", "RootWebArea", "t", "2", "3", "5"))
    store.put(
        [
            _node("2", "group", "P", "4"),
            _node("3", "group", "Q"),
            _node("4", "button", "C"),
            _node("5", "listitem", "", "6", "8"),
            _node("6", "ListMarker", "", "7"),
            _node("7", "StaticText", "\u2022", "70"),
            _node("70", "InlineTextBox", "\u2022"),
            _node("8", "StaticText", "item", "80"),
            _node("80", "InlineTextBox", "item"),
        ]
    )
    builder = IncrementalBuilder()
    _builder_step(store, builder)
    assert not {"7", "70", "80"} & store.nodes.keys()  # not part of the tree held
    store.put([_node("3", "group", "Q", "4")])  # C moves to Q; P's update comes later
    assert not _builder_step(store, builder).proper
    assert store.twice
    store.put([_node("2", "group", "P")])
    assert store.current()[1] == ["3"]
    store.put([_node("4", "button", "C")])
    _builder_step(store, builder)
    assert not store.twice


def test_a_change_below_a_node_also_listed_by_a_list_marker_is_seen() -> None:
    # A list marker lists the button (a move under way: the old parent's
    # update comes later). The walk shows the button under its group only,
    # so a change of the button must make the group dirty, not the marker.
    store = MirrorStore(_node("1", "RootWebArea", "t", "2", "5"))
    store.put(
        [
            _node("2", "group", "P", "4"),
            _node("4", "button", "C"),
            _node("5", "listitem", "", "6"),
            _node("6", "ListMarker"),
        ]
    )
    builder = IncrementalBuilder()
    _builder_step(store, builder)
    store.put([_node("6", "ListMarker", "", "4")])
    _builder_step(store, builder)
    assert store.parents["4"] == "2"
    store.put([_node("4", "button", "D")])
    _builder_step(store, builder)
    # The marker becomes a group: the walk reads its children now, the
    # button is listed twice (no proper tree), and no longer once it is back.
    store.put([_node("6", "group", "M", "4")])
    assert not _builder_step(store, builder).proper
    store.put([_node("6", "ListMarker", "", "4")])
    assert store.current()[1] == ["2"]  # it went with the marker's children: read again
    store.put([_node("4", "button", "D")])
    assert _builder_step(store, builder).proper
    assert store.parents["4"] == "2"


def test_the_children_of_a_node_that_becomes_a_text_piece_are_dropped() -> None:
    store = MirrorStore(_node("1", "RootWebArea", "t", "2"))
    store.put([_node("2", "generic", "", "3"), _node("3", "button", "B", "4")])
    store.put([_node("4", "generic", "x")])
    builder = IncrementalBuilder()
    _builder_step(store, builder)
    store.put([_node("2", "ListMarker", "", "3")])  # no flip handling by the owner here
    assert not {"3", "4"} & store.nodes.keys() and "3" not in store.parents
    _builder_step(store, builder)
    store.put([_node("2", "generic", "", "3")])
    assert store.current()[1] == ["2"]
