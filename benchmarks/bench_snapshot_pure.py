"""Micro-benchmark of the pure snapshot path: decode + build + filter + format.

Builds a synthetic ``Accessibility.getFullAXTree`` result shaped like Chrome's
(about 40,000 nodes, ~19 MB of JSON with the name ``sources`` and other
fields the snapshot skips): a table of 2,400 rows, each with a link, a text
cell, a button and a text field. Prints the best and median time of each
stage over several runs.

Run: ``.venv/bin/python benchmarks/bench_snapshot_pure.py [rows]``
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec

from kobrowser.snapshot import FrameAX, build_tree, decode_ax_tree, filter_tree, format_snapshot


def _sources(name: str) -> list[dict[str, Any]]:
    return [
        {"type": "relatedElement", "attribute": "aria-labelledby"},
        {"type": "attribute", "attribute": "aria-label"},
        {"type": "relatedElement", "nativeSource": "label"},
        {
            "type": "contents",
            "value": {"type": "computedString", "value": name},
        },
    ]


class _Gen:
    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.next_id = 1

    def add(
        self,
        role: str,
        name: str | None = None,
        *,
        parent: str | None = None,
        value: Any = None,
        props: list[dict[str, Any]] | None = None,
        backend: bool = True,
    ) -> dict[str, Any]:
        node_id = str(self.next_id)
        self.next_id += 1
        node: dict[str, Any] = {
            "nodeId": node_id,
            "ignored": False,
            "role": {"type": "role", "value": role},
            "chromeRole": {"type": "internalRole", "value": 100 + len(role)},
            "childIds": [],
        }
        if name is not None:
            node["name"] = {"type": "computedString", "value": name, "sources": _sources(name)}
        if value is not None:
            node["value"] = {"type": "string", "value": value}
        node["properties"] = props or []
        if parent is not None:
            node["parentId"] = parent
        if backend:
            node["backendDOMNodeId"] = self.next_id + 100000
        self.nodes.append(node)
        return node

    def child(self, parent: dict[str, Any], role: str, name: str | None = None, **kw: Any) -> Any:
        node = self.add(role, name, parent=parent["nodeId"], **kw)
        parent["childIds"].append(node["nodeId"])
        return node

    def text(self, parent: dict[str, Any], text: str) -> None:
        st = self.child(parent, "StaticText", text)
        self.child(st, "InlineTextBox", text, backend=False)


_FOCUSABLE = [{"name": "focusable", "value": {"type": "booleanOrUndefined", "value": True}}]


def make_page(rows: int) -> bytes:
    """The JSON ``result`` of getFullAXTree for a table of ``rows`` rows."""
    g = _Gen()
    root = g.add("RootWebArea", "Inventory")
    main = g.child(root, "main")
    g.text(
        g.child(
            main,
            "heading",
            "Inventory",
            props=[{"name": "level", "value": {"type": "integer", "value": 1}}],
        ),
        "Inventory",
    )
    table = g.child(main, "table", "Items")
    for i in range(rows):
        label = f"Item {i}"
        desc = f"Description of item {i}, a thing with several words"
        row = g.child(table, "row", f"{label} {desc} Add 1")
        c1 = g.child(row, "cell", label)
        g.text(
            g.child(
                c1,
                "link",
                label,
                props=[
                    *_FOCUSABLE,
                    {
                        "name": "url",
                        "value": {"type": "string", "value": f"https://example.com/items/{i}"},
                    },
                ],
            ),
            label,
        )
        g.text(g.child(row, "cell", desc), desc)
        g.text(g.child(g.child(row, "cell", "Add"), "button", "Add", props=_FOCUSABLE), "Add")
        c4 = g.child(row, "cell", "")
        box = g.child(
            c4,
            "textbox",
            "Quantity",
            value="1",
            props=[
                *_FOCUSABLE,
                {"name": "editable", "value": {"type": "token", "value": "plaintext"}},
                {"name": "settable", "value": {"type": "booleanOrUndefined", "value": True}},
                {"name": "multiline", "value": {"type": "boolean", "value": False}},
                {"name": "readonly", "value": {"type": "boolean", "value": False}},
                {"name": "required", "value": {"type": "boolean", "value": False}},
            ],
        )
        inner = g.child(
            box,
            "generic",
            props=[{"name": "editable", "value": {"type": "token", "value": "plaintext"}}],
        )
        g.text(inner, "1")
    # BFS order, as Chrome returns it.
    by_id = {n["nodeId"]: n for n in g.nodes}
    order: list[dict[str, Any]] = []
    queue = [root]
    while queue:
        nxt: list[dict[str, Any]] = []
        for n in queue:
            order.append(n)
            nxt.extend(by_id[c] for c in n["childIds"])
        queue = nxt
    root["frameId"] = "MAINFRAME"
    return msgspec.json.encode({"nodes": order})


def _time(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), statistics.median(times), result


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2400
    repeat = 15
    payload = make_page(rows)
    tree = decode_ax_tree(payload)
    print(
        f"{len(tree.nodes):,} AX nodes, {len(payload) / 1e6:.1f} MB JSON, "
        f"{repeat} runs (ms: best / median)"
    )

    def full() -> Any:
        t = decode_ax_tree(payload)
        roots = build_tree(FrameAX("MAINFRAME", t.nodes))
        return format_snapshot(filter_tree(roots), title="Inventory")

    def interactive() -> Any:
        t = decode_ax_tree(payload)
        roots = build_tree(FrameAX("MAINFRAME", t.nodes))
        return format_snapshot(filter_tree(roots, interactive=True), title="Inventory")

    frame = FrameAX("MAINFRAME", tree.nodes)
    roots = build_tree(frame)
    filtered = filter_tree(roots)
    stages: list[tuple[str, Callable[[], Any]]] = [
        ("json.loads (baseline)", lambda: json.loads(payload)),
        ("decode", lambda: decode_ax_tree(payload)),
        ("build", lambda: build_tree(frame)),
        ("filter (full)", lambda: filter_tree(roots)),
        ("filter (interactive)", lambda: filter_tree(roots, interactive=True)),
        ("format", lambda: format_snapshot(filtered, title="Inventory")),
        ("total full", full),
        ("total interactive", interactive),
    ]
    for label, fn in stages:
        best, median, result = _time(fn, repeat)
        print(f"  {label:22s} {best:7.1f} / {median:7.1f}")
        if label == "total full":
            text, nodes = result
            print(f"  -> {len(nodes):,} printed elements, {len(text) / 1e3:.0f} kB text")


if __name__ == "__main__":
    main()
