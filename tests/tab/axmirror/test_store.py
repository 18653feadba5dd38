"""Unit tests of the mirror's node store, settings and diff (no browser)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from kobrowser import InvalidArgumentError
from kobrowser._tab._axmirror import (
    AXMirrorSettings,
    DocumentMirror,
    MirrorStore,
    UpdateVerdict,
    decode_nodes,
    diff_nodes,
    settings_from_env,
)
from kobrowser._tab._axmirror._follow import crawl_calls, crawl_parents, reads_children
from kobrowser._tab._axmirror._mirror import CALL_COST
from kobrowser.snapshot import AXNode, AXValue, FrameAX, build_tree, format_snapshot
from kobrowser.snapshot._ax import FlatAXNode


def node(node_id: str, role: str = "generic", *children: str, name: str = "") -> AXNode:
    return AXNode(
        nodeId=node_id,
        role=AXValue(type="role", value=role),
        name=AXValue(type="computedString", value=name),
        childIds=list(children),
    )


def tree() -> MirrorStore:
    store = MirrorStore(node("1", "RootWebArea", "2", "3"))
    store.put([node("2", "button", "4", name="Go"), node("3", "list", "5", "6")])
    store.put([node("4", "StaticText", name="Go"), node("5", "listitem"), node("6", "listitem")])
    return store


def ids(nodes: list[AXNode]) -> list[str]:
    return [n.nodeId for n in nodes]


def test_collect_gives_root_first_and_every_reachable_node() -> None:
    nodes, parents = tree().collect()
    assert nodes[0].nodeId == "1"
    assert sorted(ids(nodes)) == ["1", "2", "3", "4", "5", "6"]
    assert parents == []


def test_unknown_children_name_their_parent() -> None:
    store = tree()
    verdict = UpdateVerdict()
    store.update([node("3", "list", "5", "7", "6")], verdict)
    nodes, parents = store.collect()
    assert parents == ["3"]
    assert "7" not in ids(nodes)
    assert verdict.nodes == 1 and verdict.suspects == []
    store.put([node("7", "listitem", "8")])
    assert store.collect()[1] == ["7"]
    store.put([node("8", "StaticText", name="new")])
    nodes, parents = store.collect()
    assert parents == [] and "8" in ids(nodes)


def test_removed_children_are_dropped_and_never_reused() -> None:
    store = tree()
    store.update([node("3", "list", "6")], UpdateVerdict())
    nodes, _ = store.collect()
    assert "5" not in ids(nodes)
    assert "5" not in store.nodes  # pruned: a node coming back is read again
    store.update([node("3", "list", "5", "6")], UpdateVerdict())
    assert store.collect()[1] == ["3"]


def test_a_moved_node_is_read_again_under_its_new_parent() -> None:
    store = tree()
    store.lacking()
    # 4 moves from the button to the list in one event (either order).
    store.update(
        [node("3", "list", "5", "6", "4"), node("2", "button", name="Go")], UpdateVerdict()
    )
    assert "4" not in store.nodes  # Chrome does not report a moved node's subtree
    assert store.lacking() == ["3"]
    store.put([node("4", "StaticText", name="Go")])
    nodes, parents = store.collect()
    assert parents == [] and "4" in ids(nodes)


def test_lacking_looks_only_at_touched_nodes() -> None:
    store = tree()
    store.collect()
    assert store.lacking() == []
    store.put([node("6", "listitem", "9")])
    assert store.lacking() == ["6"]
    assert store.lacking() == []  # looked at: forgotten until touched again
    assert store.collect()[1] == ["6"]  # the whole walk still finds it
    store.discard(["6", "1"])  # the root is never dropped
    assert "6" not in store.nodes and "1" in store.nodes
    assert store.collect()[1] == ["3"]


def test_an_update_replaces_the_whole_node() -> None:
    store = tree()
    store.update([node("2", "button", "4", name="Stop")], UpdateVerdict())
    assert store.nodes["2"].name == AXValue(type="computedString", value="Stop")


def test_select_like_roles_are_suspects() -> None:
    store = tree()
    verdict = UpdateVerdict()
    store.update(
        [node("5", "option"), node("3", "listbox", "5", "6"), node("2", "button")], verdict
    )
    assert sorted(verdict.suspects) == ["3", "5"]
    assert verdict.nodes == 3


def test_forget_below_drops_the_subtree_only() -> None:
    store = tree()
    assert store.forget_below("3")
    assert "5" not in store.nodes and "6" not in store.nodes and "3" in store.nodes
    assert store.collect()[1] == ["3"]
    assert not store.forget_below("99")
    assert store.parent_of("3") == "1"
    assert store.parent_of("99") is None


def test_a_cycle_or_repeated_child_is_walked_once() -> None:
    store = MirrorStore(node("1", "RootWebArea", "2", "2"))
    store.put([node("2", "generic", "1", "2")])
    nodes, parents = store.collect()
    assert ids(nodes) == ["1", "2"] and parents == []


def test_random_edits_match_a_rebuilt_tree() -> None:
    """Applying random whole-node updates equals building the final tree anew."""
    rng = random.Random(19)
    truth: dict[str, AXNode] = {"1": node("1", "RootWebArea")}
    store = MirrorStore(truth["1"])
    next_id = 2
    for _ in range(300):
        parent_id = rng.choice(sorted(_reachable(truth)))
        parent = truth[parent_id]
        children = list(parent.childIds)
        if children and rng.random() < 0.4:
            children.remove(rng.choice(children))
        else:
            new = str(next_id)
            next_id += 1
            truth[new] = node(new, "generic", name=f"n{new}")
            children.insert(rng.randrange(len(children) + 1), new)
        truth[parent_id] = msgspec.structs.replace(parent, childIds=children)
        store.update([truth[parent_id]], UpdateVerdict())
        # The client reads unknown children as the mirror does.
        while True:
            parents = store.collect()[1]
            if not parents:
                break
            for p in parents:
                store.put(truth[c] for c in truth[p].childIds)
    mirrored, _ = store.collect()
    expected = [truth[i] for i in _reachable(truth)]
    assert diff_nodes(mirrored, [truth["1"], *expected]) == []


def _reachable(nodes: dict[str, AXNode]) -> list[str]:
    out, stack = [], ["1"]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(nodes[current].childIds)
    return out


def test_diff_names_what_differs() -> None:
    a = tree().collect()[0]
    b = [*a[:-1], node(a[-1].nodeId, "listitem", name="changed")]
    assert diff_nodes(a, a) == []
    found = diff_nodes(a, b)
    assert len(found) == 1 and a[-1].nodeId in found[0]
    assert diff_nodes(a, [node("9", "RootWebArea")])[0].startswith("root")


def test_decode_nodes_reads_event_and_answer_shapes() -> None:
    raw = (
        b'{"nodes":[{"nodeId":"5","ignored":false,"role":{"type":"role","value":"button"},'
        b'"childIds":["6"],"backendDOMNodeId":12,"parentId":"1"}]}'
    )
    (decoded,) = decode_nodes(raw)
    assert decoded.nodeId == "5" and decoded.childIds == ["6"] and decoded.backendDOMNodeId == 12


def test_settings_reject_bad_values_and_read_the_environment() -> None:
    with pytest.raises(ValueError, match="min_nodes"):
        AXMirrorSettings(min_nodes=-1)
    with pytest.raises(ValueError, match="max_update_share"):
        AXMirrorSettings(max_update_share=0)
    with pytest.raises(ValueError, match="crawl_batch"):
        AXMirrorSettings(crawl_batch=0)
    with pytest.raises(ValueError, match="check_every"):
        AXMirrorSettings(check_every=-2)
    with pytest.raises(InvalidArgumentError, match=r"min_nodes: got 1\.5"):
        AXMirrorSettings(min_nodes=1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="enabled"):
        AXMirrorSettings(enabled="yes")  # type: ignore[arg-type]
    assert settings_from_env(environ={}) == AXMirrorSettings()
    assert not settings_from_env(environ={"KOBROWSER_AX_MIRROR": "off"}).enabled
    assert settings_from_env(environ={"KOBROWSER_AX_MIRROR": "always"}).min_nodes == 0
    verify = settings_from_env(environ={"KOBROWSER_AX_MIRROR": " Verify "})
    assert verify.verify and verify.min_nodes == 0
    base = AXMirrorSettings(min_nodes=5)
    assert settings_from_env(base, environ={"KOBROWSER_AX_MIRROR": "on"}) == base
    with pytest.raises(ValueError, match="KOBROWSER_AX_MIRROR"):
        settings_from_env(environ={"KOBROWSER_AX_MIRROR": "maybe"})


def test_browser_ax_mirror_reads_the_environment_and_checks_what_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kobrowser import AXMirrorSettings as Public
    from kobrowser import Browser

    assert Public is AXMirrorSettings
    monkeypatch.setenv("KOBROWSER_AX_MIRROR", "off")
    browser = Browser(endpoint="127.0.0.1:9")
    assert browser.ax_mirror == AXMirrorSettings(enabled=False)
    browser.ax_mirror = AXMirrorSettings(min_nodes=5)
    assert browser.ax_mirror.min_nodes == 5
    with pytest.raises(InvalidArgumentError, match="ax_mirror") as caught:
        browser.ax_mirror = "off"  # type: ignore[assignment]
    assert caught.value.argument == "ax_mirror"
    monkeypatch.setenv("KOBROWSER_AX_MIRROR", "sometimes")
    with pytest.raises(InvalidArgumentError, match="KOBROWSER_AX_MIRROR"):
        Browser(endpoint="127.0.0.1:9")


def test_current_equals_the_tree_after_random_moves_and_stale_messages() -> None:
    """current() (no walk) holds exactly the tree, whatever order messages come in."""
    rng = random.Random(1919)
    truth: dict[str, AXNode] = {"1": node("1", "RootWebArea")}
    store = MirrorStore(truth["1"])
    next_id = 2
    walks = 0
    removed: list[str] = []

    def subtree(node_id: str) -> set[str]:
        out, stack = set(), [node_id]
        while stack:
            current = stack.pop()
            out.add(current)
            stack.extend(truth[current].childIds)
        return out

    def set_children(parent_id: str, children: list[str]) -> AXNode:
        truth[parent_id] = msgspec.structs.replace(truth[parent_id], childIds=children)
        return truth[parent_id]

    for step in range(600):
        reachable = _reachable(truth)
        parent_id = rng.choice(reachable)
        children = list(truth[parent_id].childIds)
        kind = rng.random()
        event: list[AXNode] = []
        if kind < 0.35 or len(reachable) < 4:
            new = str(next_id)
            next_id += 1
            truth[new] = node(new, "generic", name=f"n{new}")
            children.insert(rng.randrange(len(children) + 1), new)
            event.append(set_children(parent_id, children))
        elif kind < 0.55 and children:
            gone = rng.choice(children)
            children.remove(gone)
            removed.append(gone)
            event.append(set_children(parent_id, children))
        elif kind < 0.8:
            moved = rng.choice([n for n in reachable if n != "1"])
            old_parent = next(n for n in reachable if moved in truth[n].childIds)
            targets = [n for n in reachable if n not in subtree(moved) and n != old_parent]
            if not targets:
                continue
            target = rng.choice(targets)
            event.append(
                set_children(old_parent, [c for c in truth[old_parent].childIds if c != moved])
            )
            listed = list(truth[target].childIds)
            listed.insert(rng.randrange(len(listed) + 1), moved)
            event.append(set_children(target, listed))
            rng.shuffle(event)
        else:
            # Stale messages: an answer for a removed parent, an event about an unlisted node.
            if removed:
                gone = rng.choice(removed)
                store.put([truth[c] for c in truth[gone].childIds] or [truth[gone]])
            stray = str(next_id)
            next_id += 1
            truth[stray] = node(stray, "generic", name="stray")
            event.append(truth[stray])
        store.update(event, UpdateVerdict())
        store.prune()
        for _ in range(50):
            nodes, parents = store.current()
            if not parents:
                break
            for p in parents:
                store.put(truth[c] for c in truth[p].childIds)
            store.prune()
        if store._since_walk == 0:  # the whole walk ran
            walks += 1
        expected = _reachable(truth)
        assert nodes[0].nodeId == "1", step
        assert sorted(ids(nodes)) == sorted(expected), step
        assert diff_nodes(nodes, [truth[i] for i in expected]) == [], step
        assert len(store.nodes) == len(expected), step  # no stray node kept
    assert walks < 300, walks  # most answers came without the whole walk


def test_take_dirty_names_changed_nodes_with_their_ancestors() -> None:
    store = tree()
    assert store.take_dirty() == (0, None)  # the first answer: everything is new
    assert store.take_dirty() == (1, set())
    store.put([node("5", "listitem"), node("4", "StaticText", name="Go")])
    assert store.take_dirty() == (2, set())  # equal content: nothing changed
    store.put([node("5", "listitem", name="renamed")])
    assert store.take_dirty() == (3, {"5", "3", "1"})
    # Children cut below a node (read again later) make it dirty.
    assert store.forget_below("2")
    assert store.take_dirty()[1] == {"2", "1"}
    store.put([node("4", "StaticText", name="Go")])
    assert store.take_dirty()[1] == {"4", "2", "1"}  # read again: new to the store
    # A node Chrome no longer has: its parent.
    store.discard(["6"])
    assert store.take_dirty()[1] == {"3", "1"}
    # A node listed by two parents: no proper tree, so nothing is known.
    store.put([node("2", "button", "4", "5", name="Go")])
    store.current()
    assert store.twice
    assert store.take_dirty()[1] is None
    store.put([node("3", "list")])
    store.current()
    assert not store.twice
    # Not right after it either: a build of that tree put "5" under one parent only.
    assert store.take_dirty()[1] is None
    store.put([node("3", "list", name="renamed")])
    assert store.take_dirty()[1] == {"3", "1"}


def test_the_children_of_shown_text_pieces_are_neither_asked_for_nor_followed() -> None:
    """The walk never reads below a shown StaticText (its InlineTextBox): nor does the mirror."""
    text = node("4", "StaticText", "40", name="Go")
    assert not reads_children(text)
    assert reads_children(msgspec.structs.replace(text, ignored=True))
    assert not reads_children(node("9", "LineBreak", "90"))
    assert not reads_children(node("9", "ListMarker", "90"))
    assert reads_children(node("2", "button", "4"))
    store = MirrorStore(node("1", "RootWebArea", "2"))
    store.put([node("2", "button", "4", name="Go")])
    store.put([text])
    assert store.lacking() == []  # "40" is not asked for
    nodes, parents = store.collect()
    assert sorted(ids(nodes)) == ["1", "2", "4"] and parents == []
    assert store.current() == (nodes, [])
    # An update of the text piece does not read its children again either.
    verdict = UpdateVerdict()
    store.update([node("4", "StaticText", "41", name="Gone")], verdict)
    assert verdict.nodes == 1 and verdict.parents == []
    # Hidden (ignored), its children are read like any ignored node's.
    store.update([msgspec.structs.replace(text, ignored=True)], verdict)
    assert store.flipped == ["4"]
    assert store.lacking() == ["4"]
    # A full tree with the inline box differs from the mirror's in nothing the walk reads.
    box = node("40", "InlineTextBox", name="Go")
    assert diff_nodes(nodes, [*nodes, box]) == []
    assert diff_nodes(nodes, [node("1", "RootWebArea", "2"), node("2", "button", "4")]) != []


@pytest.mark.parametrize("ignored", [False, True])
@pytest.mark.parametrize(
    "role",
    [
        "StaticText",
        "LineBreak",
        "InlineTextBox",
        "ListMarker",
        "none",
        "RootWebArea",
        "generic",
        "paragraph",
        "LabelText",
        "emphasis",
        "list",
        "listitem",
        "button",
        "textbox",
        "Iframe",
        "",
    ],
)
def test_the_mirror_follows_every_child_the_walk_reads(role: str, ignored: bool) -> None:
    """reads_children and crawl_parents agree with the walk, for every kind of role.

    A node of the role, named, over a button: the button is printed exactly
    when the mirror follows the node's children. An ``iframe``'s AX
    children are the one exception: followed, never printed (its content
    is the child frame's tree).
    """
    parent = AXNode(
        nodeId="2",
        ignored=ignored,
        role=AXValue(type="role", value=role),
        name=AXValue(type="computedString", value="x"),
        childIds=["3"],
        backendDOMNodeId=20,
    )
    nodes = [node("1", "RootWebArea", "2"), parent, node("3", "button", name="probe")]
    printed = "probe" in format_snapshot(build_tree(FrameAX("MAIN", nodes)), title="t")[0]
    follows = reads_children(parent)
    assert follows == (printed or (role == "Iframe" and not ignored)), (role, ignored)
    assert ("2" in crawl_parents(nodes)) == (follows and not ignored)
    store = MirrorStore(nodes[0])
    store.put(nodes[1:])
    held, lacking = store.current()
    assert not lacking and ("3" in ids(held)) == follows


def test_crawl_calls_counts_the_shown_parents_the_walk_reads() -> None:
    flat_text = FlatAXNode(nodeId="5", role="StaticText", childIds=("50",))
    nodes: list[AXNode | FlatAXNode] = [
        node("1", "RootWebArea", "2", "3"),
        node("2", "button", "4"),
        node("4", "StaticText", "40"),  # its inline box is never asked for
        node("40", "InlineTextBox"),
        msgspec.structs.replace(node("3", "none", "5"), ignored=True),  # comes with "1"
        flat_text,
        FlatAXNode(nodeId="6", role="list", childIds=("7",)),
        FlatAXNode(nodeId="7", role="listitem"),
    ]
    assert crawl_calls(nodes) == 3  # "1", "2" and "6"


def test_a_snapshot_waits_for_the_crawl_when_the_rest_costs_few_full_fetches() -> None:
    spawned: list[object] = []
    session: Any = object()
    read = [node(str(i), "listitem", f"t{i}") for i in range(1, 101)]  # 100 calls, 100 nodes
    cost = CALL_COST * 100 / 100  # full fetches the whole crawl costs

    def mirror(join: float, seed: list[AXNode] | None = read) -> DocumentMirror:
        made = DocumentMirror(session, AXMirrorSettings(join_crawl=join), spawned.append)
        made.start_crawl(30, seed)
        assert made.state == "crawling"
        return made

    assert mirror(cost)._joins()
    assert not mirror(cost - 0.5)._joins()
    assert not mirror(0)._joins()
    assert not mirror(100, None)._joins()  # nothing known of the document
    half = mirror(cost / 2)
    assert not half._joins()
    half._asked = 50  # half of the crawl is done
    assert half._joins()
    # A crawl that asked twice its plan (and a batch) is chasing a page that
    # keeps changing: no snapshot waits for it.
    half._asked = 2 * 100 + AXMirrorSettings().crawl_batch + 1
    assert not half._joins()
    half.reset()
    assert not half._joins()  # no crawl under way
    assert len(spawned) == 5


def test_join_crawl_is_checked() -> None:
    assert AXMirrorSettings(join_crawl=0).join_crawl == 0
    for bad in (-1, True, "6", float("nan")):
        with pytest.raises(InvalidArgumentError, match="join_crawl"):
            AXMirrorSettings(join_crawl=bad)  # type: ignore[arg-type]
