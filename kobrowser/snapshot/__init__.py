"""Snapshots: kobrowser's numbered text view of a page (docs/snapshot-format.md).

The pure part (no browser, no I/O) lives here: decoding structs for
``Accessibility.getFullAXTree`` (``_ax``), the role table (``_roles``), tree
building with frame merging (``_tree``, with the printed ``Node`` in ``_node``,
text runs in ``_runs``, label text in ``_labels``, states in ``_states`` and
clickable/focusable elements in ``_promote``), the modes (``_filter``),
numbering and text (``_format``), a parser for the text (``_parse``) and
the diff of two snapshots (``_diff``).

Pipeline::

    tree = decode_ax_tree(raw_result)                  # per frame
    top = FrameAX(frame_id, tree.nodes, children={...}, clickable={...})
    roots = build_tree(top)
    roots = filter_tree(roots, interactive=..., compact=..., depth=...)
    text, nodes = format_snapshot(roots, title=title, text_limit=80)
    # nodes[i] has id i + 1; parse_snapshot(text, text_limit=80) reads it back

``clickable`` is a frame's clickable map (``kobrowser._tab._clickable``); without
it only focusable elements are marked.
"""

from __future__ import annotations

from kobrowser.snapshot._ax import (
    AX_TREE_DECODER,
    AXNode,
    AXProperty,
    AXTree,
    AXValue,
    decode_ax_tree,
)
from kobrowser.snapshot._diff import DiffEntry, SnapshotDiff, diff_snapshots
from kobrowser.snapshot._filter import filter_tree
from kobrowser.snapshot._format import ElementFactory, format_snapshot
from kobrowser.snapshot._parse import ParsedSnapshot, SnapshotLine, parse_snapshot
from kobrowser.snapshot._roles import INTERACTIVE_ROLES, STRUCTURE_ROLES
from kobrowser.snapshot._tree import STATE_ORDER, FrameAX, Node, build_tree, prebuild_frame

__all__ = [
    "AX_TREE_DECODER",
    "INTERACTIVE_ROLES",
    "STATE_ORDER",
    "STRUCTURE_ROLES",
    "AXNode",
    "AXProperty",
    "AXTree",
    "AXValue",
    "DiffEntry",
    "ElementFactory",
    "FrameAX",
    "Node",
    "ParsedSnapshot",
    "SnapshotDiff",
    "SnapshotLine",
    "build_tree",
    "decode_ax_tree",
    "diff_snapshots",
    "filter_tree",
    "format_snapshot",
    "parse_snapshot",
    "prebuild_frame",
]
