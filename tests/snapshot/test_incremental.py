"""Incremental builds (``BuildMemo``) equal full builds, step after step of random changes.

A random AX tree (the shapes whose rules cross element edges: text runs,
unprinted labels next to controls, list markers, text fields, inline roles,
clickable and focusable candidates, wrappers, carried text, iframes) is
changed a few nodes at a time (names, roles, ignored flags, properties,
insertions, removals, moves, clickable map entries). The changed nodes are
given to a :class:`~kobrowser._tab._axmirror.MirrorStore` as the mirror would
(whole nodes, moved subtrees read again), whose :meth:`take_dirty` says what
the memo forgets; every incremental build must equal a full build of the
same nodes, text and tree.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import msgspec
import pytest

from kobrowser._tab._axmirror._follow import reads_children
from kobrowser._tab._axmirror._store import MirrorStore
from kobrowser.snapshot import (
    AXNode,
    AXValue,
    FrameAX,
    Node,
    build_tree,
    filter_tree,
    format_snapshot,
)
from kobrowser.snapshot._filter import FilterCache
from kobrowser.snapshot._format import KEEP, FormatCache
from kobrowser.snapshot._memo import BuildMemo, map_changes

from ._ax_builders import el as spec_el
from ._ax_builders import frame, props, text

_ROLES = [
    "generic",
    "generic",
    "generic",
    "paragraph",
    "button",
    "link",
    "heading",
    "list",
    "listitem",
    "ListMarker",
    "LabelText",
    "textbox",
    "emphasis",
    "strong",
    "LineBreak",
    "table",
    "row",
    "cell",
    "none",
    "image",
    "group",
    "Iframe",
    "checkbox",
    "StaticText",
    "StaticText",
    "StaticText",
]
_WORDS = ["a", "b", "a b", "Save", "Save all", "-", "1.", "x y", "  ", "\u2022"]


class _Model:
    """A mutable AX tree: node id -> fields, with a clickable map."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids = itertools.count(2)
        self.backends = itertools.count(100)
        self.fields: dict[str, dict[str, Any]] = {}
        self.root = "1"
        self.fields["1"] = {"role": "RootWebArea", "name": "t", "children": [], "backend": 1}
        self.clickable: dict[int, int] = {}
        # One child frame, always the same content (the mirror never holds it).
        self.frame_content = frame(spec_el("button", "inner"), text("inside"), frame_id="CHILD")
        for _ in range(6):
            self.fields["1"]["children"].append(self.subtree(4))

    def subtree(self, depth: int) -> str:
        rng = self.rng
        node_id = str(next(self.ids))
        role = rng.choice(_ROLES)
        fields: dict[str, Any] = {
            "role": role,
            "name": rng.choice([*_WORDS, None, None]),
            "ignored": rng.random() < 0.15,
            "children": [],
            "backend": None if rng.random() < 0.05 else next(self.backends),
            "props": self.random_props(role),
            "value": rng.choice([None, None, "a", "v"]),
        }
        self.fields[node_id] = fields
        if role == "StaticText":
            fields["name"] = rng.choice(_WORDS)
        elif role not in ("LineBreak", "Iframe") and depth > 0:
            for _ in range(rng.choice([0, 1, 2, 3, 4])):
                fields["children"].append(self.subtree(depth - 1))
        return node_id

    def random_props(self, role: str) -> dict[str, Any]:
        rng = self.rng
        out: dict[str, Any] = {}
        if rng.random() < 0.15:
            out["focusable"] = True
        if role == "textbox" or rng.random() < 0.05:
            out["editable"] = "plaintext"
        if rng.random() < 0.1:
            out["checked"] = rng.choice(["true", "false"])
        return out

    def parent_of(self) -> dict[str, str]:
        return {c: p for p, f in self.fields.items() for c in f["children"]}

    def subtree_ids(self, node_id: str) -> list[str]:
        out, stack = [], [node_id]
        while stack:
            nid = stack.pop()
            out.append(nid)
            stack.extend(self.fields[nid]["children"])
        return out

    def nodes(self) -> list[AXNode]:
        """The tree in BFS order, root first (what the mirror answers)."""
        out: list[AXNode] = []
        queue = [self.root]
        while queue:
            nxt: list[str] = []
            for nid in queue:
                f = self.fields[nid]
                out.append(
                    AXNode(
                        nodeId=nid,
                        ignored=f.get("ignored", False),
                        role=AXValue("role", f["role"]),
                        name=None
                        if f.get("name") is None
                        else AXValue("computedString", f["name"]),
                        value=None if f.get("value") is None else AXValue("string", f["value"]),
                        properties=props(**f.get("props", {})),
                        childIds=list(f["children"]),
                        backendDOMNodeId=f["backend"],
                    )
                )
                nxt.extend(f["children"])
            queue = nxt
        return out

    def frame(self, nodes: list[AXNode]) -> FrameAX:
        children: dict[int, FrameAX | None] = {}
        for node in nodes:
            if node.role is not None and node.role.value == "Iframe" and node.backendDOMNodeId:
                children[node.backendDOMNodeId] = self.frame_content
        return FrameAX("MAIN", nodes, children, clickable=dict(self.clickable))

    def change(self) -> None:
        """One random change."""
        rng = self.rng
        ids = [nid for nid in self.fields if nid != self.root]
        if not ids:
            return
        nid = rng.choice(ids)
        f = self.fields[nid]
        kind = rng.randrange(10)
        if kind == 0:
            f["name"] = rng.choice([*_WORDS, None])
        elif kind == 1 and f["role"] != "StaticText":
            f["role"] = rng.choice([r for r in _ROLES if r != "StaticText"])
            f["props"] = self.random_props(f["role"])
        elif kind == 2:
            f["ignored"] = not f.get("ignored", False)
        elif kind == 3:
            f["props"] = self.random_props(f["role"])
        elif kind == 4 and f["role"] != "StaticText":
            f["children"].insert(rng.randint(0, len(f["children"])), self.subtree(2))
        elif kind == 5:
            parent = self.parent_of()[nid]
            self.fields[parent]["children"].remove(nid)
            for gone in self.subtree_ids(nid):
                del self.fields[gone]
        elif kind == 6:
            # Move nid under another node that is not inside it.
            inside = set(self.subtree_ids(nid))
            targets = [
                t for t in self.fields if t not in inside and self.fields[t]["role"] != "StaticText"
            ]
            parent = self.parent_of()[nid]
            self.fields[parent]["children"].remove(nid)
            target = rng.choice(targets)
            kids = self.fields[target]["children"]
            kids.insert(rng.randint(0, len(kids)), nid)
        elif kind == 7:
            f["value"] = rng.choice([None, "a", "v", "Save"])
        else:
            self.change_map()

    def change_map(self) -> None:
        """Make an element clickable (or not), or give a text an owner (or none)."""
        rng = self.rng
        parents = self.parent_of()
        nid = rng.choice([n for n in self.fields if n != self.root])
        backend = self.fields[nid]["backend"]
        if backend is None:
            return
        if backend in self.clickable:
            del self.clickable[backend]
        elif self.fields[nid]["role"] == "StaticText":
            above = parents.get(nid)
            while above is not None and rng.random() < 0.5:
                above = parents.get(above)
            owner = self.fields[above]["backend"] if above is not None else None
            if owner:
                self.clickable[backend] = owner
        else:
            self.clickable[backend] = backend


def _render(roots: list[Node]) -> tuple[str, list[Any]]:
    text_out, nodes = format_snapshot(roots, title="t")
    return text_out, [msgspec.structs.astuple(n)[:6] for n in nodes]


def _entry(number: int, node: Node, depth: int, children: list[Any]) -> Any:
    return (number, node.role, node.name, node.value, node.states, node.frame_id, depth, children)


def _numbered(roots: list[Node], cache: FormatCache | None = None) -> Any:
    return format_snapshot(roots, title="t", text_limit=12, element=_entry, cache=cache)


def _walked(nodes: list[AXNode]) -> dict[str, AXNode]:
    """The nodes the snapshot's walk can reach: children followed where it reads them."""
    by_id = {n.nodeId: n for n in nodes}
    out: dict[str, AXNode] = {}
    stack = [nodes[0]]
    while stack:
        node = stack.pop()
        out[node.nodeId] = node
        if reads_children(node):
            stack.extend(by_id[c] for c in node.childIds)
    return out


def _feed(store: MirrorStore, previous: dict[str, AXNode], nodes: list[AXNode]) -> list[AXNode]:
    """Give the store what the mirror would read: changed nodes, then any it lacks.

    It holds every node the walk can reach, and no other (the children of a
    shown text piece, line break or list marker are never read): its answer.
    """
    store.put([n for n in nodes if previous.get(n.nodeId) != n])
    for node in nodes:  # moved subtrees were dropped: read again (BFS: parents first)
        if node.nodeId not in store.nodes:
            store.put([node])
    store.prune()
    held, lacking = store.current()
    assert not lacking
    assert {n.nodeId: n for n in held} == _walked(nodes)
    assert len(store.nodes) == len(held)
    return held


def run_steps(seed: int, steps: int, per_step: int) -> tuple[int, int, int]:
    """Random changes, each step's incremental build and numbering checked.

    Returns the totals of subtrees reused, walked and numbered from the cache.
    """
    rng = random.Random(seed)
    model = _Model(rng)
    nodes = model.nodes()
    store = MirrorStore(nodes[0])
    held = _feed(store, {}, nodes)
    top = model.frame(held)
    memo = BuildMemo(top.frame_id, top.clickable)
    serial, dirty = store.take_dirty()
    assert serial == 0 and dirty is None
    first = build_tree(top, memo=memo)
    assert _render(first) == _render(build_tree(model.frame(nodes)))
    cache = FormatCache()
    assert _numbered(first, cache) == _numbered(first)
    reused = walked = hits = 0
    modes: list[dict[str, Any]] = [
        {"interactive": True},
        {"compact": True},
        {"depth": 3},
        {"compact": True, "depth": 2},
    ]
    filtered = [(FilterCache(), FormatCache()) for _ in modes]
    for step in range(steps):
        previous = {n.nodeId: n for n in nodes}
        for _ in range(rng.randint(1, per_step)):
            model.change()
        nodes = model.nodes()
        held = _feed(store, previous, nodes)
        serial, dirty = store.take_dirty()
        assert serial == step + 1 and dirty is not None
        # The mirror's answer (the nodes held) built with the memo; the
        # fresh capture (every node, those below text pieces too) in full.
        top = model.frame(held)
        by_backend = None if store.shared_backend or step % 2 else store.by_backend
        memo.update(dirty, top.clickable, held, store.parents, by_backend)
        incremental = build_tree(top, memo=memo, index=store.nodes, proper=not store.twice)
        full = build_tree(model.frame(nodes))
        assert _render(incremental) == _render(full), f"seed {seed}, step {step}"
        # Numbered with the cache: text, entries in id order and the tree of
        # entries equal to numbering the full build's tree afresh.
        assert _numbered(incremental, cache) == _numbered(full), f"seed {seed}, step {step}"
        # The modes, through their own caches (each mode every other step).
        for m, (options, (subtrees, lines)) in enumerate(zip(modes, filtered, strict=True)):
            if (step + m) % 2:
                continue
            mine = filter_tree(incremental, cache=subtrees, **options)
            theirs = filter_tree(full, **options)
            assert _numbered(mine, lines) == _numbered(theirs), (
                f"seed {seed}, step {step}, {options}"
            )
            hits += subtrees.hits
        reused += memo.reused
        walked += memo.walked
        hits += cache.hits
        # Only the last few formats' outputs are held (each pins its lines).
        assert len(cache.outputs) <= 2 * KEEP
        assert all(span[5] in cache.outputs for span in cache.spans.values())
    return reused, walked, hits


@pytest.mark.parametrize("seed", range(60))
def test_incremental_builds_equal_full_builds(seed: int) -> None:
    reused, walked, hits = run_steps(seed, steps=40, per_step=3)
    # The memo and the cache were used, not merely kept.
    assert reused > 0 and walked > 0 and hits > 0


def test_single_changes_reuse_almost_everything() -> None:
    reused, walked, hits = run_steps(99, steps=60, per_step=1)
    assert reused > 3 * walked and hits > 60


def test_the_memo_is_not_used_with_a_scope_or_for_another_frame() -> None:
    model = _Model(random.Random(5))
    top = model.frame(model.nodes())
    memo = BuildMemo("OTHER", top.clickable)
    build_tree(top, memo=memo)
    assert len(memo) == 0
    memo = BuildMemo(top.frame_id, top.clickable)
    build_tree(top, memo=memo, scope={("MAIN", 100)})
    assert len(memo) == 0
    build_tree(top, memo=memo)
    assert len(memo) > 0


def test_map_changes_and_unknown_changes() -> None:
    assert map_changes({1: 1, 2: 1}, {1: 1, 2: 2, 3: 3}) == {2, 3}
    same = {1: 1}
    assert map_changes(same, same) == set()
    model = _Model(random.Random(6))
    nodes = model.nodes()
    top = model.frame(nodes)
    memo = BuildMemo(top.frame_id, top.clickable)
    build_tree(top, memo=memo)
    assert len(memo) > 0
    memo.update(None, top.clickable, nodes, {})
    assert len(memo) == 0


def test_a_changed_map_value_forgets_the_node_and_its_ancestors() -> None:
    inner = text("go", backend=7)
    tree = frame(
        spec_el("heading", "Title", spec_el("group", "box", spec_el("button", "b"), inner)),
        frame_id="MAIN",
    )
    tree.clickable = {}
    memo = BuildMemo("MAIN", tree.clickable)
    build_tree(tree, memo=memo)
    known = set(memo.entries)
    parents = {c: n.nodeId for n in tree.nodes for c in n.childIds}
    changed = dict.fromkeys([7], 3)  # the text now belongs to another clickable element
    memo.update(set(), {**changed, 3: 3}, tree.nodes, parents)
    text_id = next(n.nodeId for n in tree.nodes if n.backendDOMNodeId == 7)
    chain = set()
    node_id: str | None = text_id
    while node_id is not None:
        chain.add(node_id)
        node_id = parents.get(node_id)
    assert known & chain and not set(memo.entries) & chain


def _items_page(extra: bool, label: str) -> list[AXNode]:
    """A root over an optional heading and a list of 30 groups of 4 buttons (ids stay put)."""

    def ax(node_id: str, role: str, name: str | None, *children: str) -> AXNode:
        return AXNode(
            nodeId=node_id,
            role=AXValue("role", role),
            name=None if name is None else AXValue("computedString", name),
            childIds=list(children),
            backendDOMNodeId=int(node_id),
        )

    groups = [str(100 + 10 * g) for g in range(30)]
    top = ["2"] if extra else []
    nodes = [ax("1", "RootWebArea", "t", *top, "3"), ax("3", "list", "L", *groups)]
    if extra:
        nodes.append(ax("2", "heading", "New"))
    for g, group in enumerate(groups):
        buttons = [str(int(group) + b) for b in range(1, 5)]
        nodes.append(ax(group, "group", f"g{g}", *buttons))
        for b, button in enumerate(buttons):
            name = label if (g, b) == (29, 3) else f"b{g}.{b}"
            nodes.append(ax(button, "button", name))
    return nodes


def test_numbering_after_lines_were_added_takes_the_moved_subtrees_next_time() -> None:
    memo = BuildMemo("MAIN", {})
    cache = FormatCache()
    steps = [(False, "x"), (True, "x"), (True, "y"), (False, "y"), (False, "z")]
    previous: dict[str, AXNode] = {}
    hits = []
    for extra, label in steps:
        nodes = _items_page(extra, label)
        parents = {c: n.nodeId for n in nodes for c in n.childIds}
        dirty = set()
        for node in nodes:
            if previous.get(node.nodeId) != node:
                node_id: str | None = node.nodeId
                while node_id is not None and node_id not in dirty:
                    dirty.add(node_id)
                    node_id = parents.get(node_id)
        memo.update(dirty if previous else None, {}, nodes, parents)
        top = FrameAX("MAIN", nodes)
        tree = build_tree(top, memo=memo)
        assert _numbered(tree, cache) == _numbered(build_tree(top))
        hits.append(cache.hits)
        previous = {n.nodeId: n for n in nodes}
    # First: nothing known. A line added at the top moves the list and every
    # group in it: formatted afresh, the groups' spans kept at their new ids, so
    # the next change (a rename in the last group) takes the 29 others whole;
    # likewise after the line goes again.
    assert hits == [0, 0, 29, 0, 29]
