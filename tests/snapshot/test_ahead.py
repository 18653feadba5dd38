"""A top document built ahead of its clickable map (``snapshot._ahead``), on built AX trees.

The tree built ahead is kept only when the real map gives the same tree: on
random trees and random maps, every map that :meth:`Ahead.holds` accepts
builds exactly the tree built ahead, and every map that changes the tree is
refused.
"""

from __future__ import annotations

import random

from kobrowser.snapshot import FrameAX, build_tree
from kobrowser.snapshot._ahead import build_ahead
from kobrowser.snapshot._hidden import ClickableMap, HiddenClickable

from ._ax_builders import el, frame, iframe, text
from .test_incremental import _Model


def _model(seed: int) -> _Model:
    model = _Model(random.Random(seed))
    for fields in model.fields.values():
        if fields["role"] == "Iframe":
            fields["role"] = "group"  # a frame that embeds none (the only kind built ahead)
    return model


def test_random_maps_are_held_only_when_they_give_the_tree_built_ahead() -> None:
    held = refused = changed = 0
    for seed in range(40):
        model = _model(seed)
        nodes = model.nodes()
        ahead = build_ahead("MAIN", nodes)
        assert ahead is not None
        assert ahead.tree == build_tree(FrameAX("MAIN", nodes))
        rng = random.Random(seed)
        for _ in range(25):
            model.clickable = {}
            for _ in range(rng.choice([1, 1, 2, 3])):
                model.change_map()
            clickable = dict(model.clickable)
            full = build_tree(FrameAX("MAIN", nodes, clickable=clickable))
            if full != ahead.tree:
                changed += 1
            if ahead.holds(clickable):
                assert full == ahead.tree, (seed, clickable)
                held += 1
            else:
                refused += 1
    # Both outcomes are exercised, and maps that change the tree are common.
    assert held > 100
    assert refused > 100
    assert changed > 100


def test_a_clickable_generic_refuses_the_tree_a_link_in_the_map_does_not() -> None:
    top = frame(
        el("generic", None, text("Open", backend=11), backend=10),
        el("link", "Home", text("Home", backend=21), backend=20),
    )
    ahead = build_ahead("MAIN", top.nodes)
    assert ahead is not None
    link_only = {20: 20, 21: 20}  # Chrome marks a link clickable; it is interactive anyway
    assert ahead.holds(link_only)
    assert ahead.tree == build_tree(FrameAX("MAIN", top.nodes, clickable=link_only))
    generic = {10: 10, 11: 10}
    assert not ahead.holds(generic)
    assert build_tree(FrameAX("MAIN", top.nodes, clickable=generic)) != ahead.tree
    assert ahead.holds({}) and ahead.holds(ClickableMap())
    assert ahead.holds({999: 999})  # an element the tree does not have


def test_a_map_with_a_hidden_element_to_graft_refuses_the_tree() -> None:
    top = frame(el("SvgRoot", "", el("generic", None, text("A", backend=9), backend=8), backend=4))
    ahead = build_ahead("MAIN", top.nodes)
    assert ahead is not None
    root = top.nodes[0].backendDOMNodeId
    assert root is not None
    found = ClickableMap({5: 5})
    found.hidden[5] = HiddenClickable("graphics-symbol", (4, root), 20)
    found.positions = {root: 0, 4: 4, 8: 8, 9: 9}
    assert not ahead.holds(found)
    assert build_tree(FrameAX("MAIN", top.nodes, clickable=found)) != ahead.tree


def test_a_frame_that_embeds_a_frame_or_has_no_nodes_is_not_built_ahead() -> None:
    top = frame(el("button", "Go"), iframe("child", None))
    assert build_ahead("MAIN", top.nodes) is None
    assert build_ahead("MAIN", []) is None
