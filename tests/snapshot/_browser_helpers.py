"""Helpers of the real-browser snapshot tests (see conftest.py)."""

from __future__ import annotations

import json
from typing import Any

from kobrowser._tab._snapshot import Element, Snapshot
from kobrowser.snapshot import parse_snapshot

__all__ = ["assert_consistent", "cut", "page"]


def cut(text: str, limit: int) -> str:
    """The spec's truncation: ``limit`` code points, else ``limit - 3`` and ``...``."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def page(body: str, title: str | None = "T", head: str = "") -> str:
    """A small HTML5 document (no ``<title>`` when ``title`` is None)."""
    title_tag = "" if title is None else f"<title>{title}</title>"
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{title_tag}{head}'
        f"</head><body>{body}</body></html>"
    )


def _preorder(nodes: list[Element]) -> list[Element]:
    out: list[Element] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def _preorder_dicts(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node["children"]))
    return out


def assert_consistent(snap: Snapshot) -> None:
    """Text, id map, printed tree and to_dict() all describe the same snapshot."""
    parsed = parse_snapshot(snap.text)
    assert parsed.title == (cut(snap.title, 80) if snap.title else None)
    n = len(parsed.lines)
    assert sorted(snap.id_map) == list(range(1, n + 1))
    for line in parsed.lines:
        element = snap.id_map[line.id]
        assert element.id == line.id
        assert element.depth == line.depth, line
        assert element.role == line.role, line
        assert (cut(element.name, 80) if element.name else None) == line.name, line
        assert (cut(element.value, 50) if element.value else None) == line.value, line
        assert element.states == line.states, line
        assert element.frame_id, line
        assert element.loader_id, line
        assert element.session is not None, line
        if element.role != "text":
            assert element.backend_node_id is not None, line
    ordered = _preorder(snap.nodes)
    assert [e.id for e in ordered] == list(range(1, n + 1))
    assert all(snap.id_map[e.id] is e for e in ordered)
    for element in ordered:
        for child in element.children:
            assert child.depth == element.depth + 1
    data = json.loads(json.dumps(snap.to_dict()))
    assert data["text"] == snap.text
    assert data["url"] == snap.url
    assert data["title"] == snap.title
    flat = _preorder_dicts(data["nodes"])
    assert [d["id"] for d in flat] == list(range(1, n + 1))
    for d in flat:
        element = snap.id_map[d["id"]]
        assert d["role"] == element.role
        assert d["name"] == element.name
        assert d["value"] == element.value
        assert d["states"] == list(element.states)
        assert d["frame_id"] == element.frame_id
        assert d["backend_node_id"] == element.backend_node_id
        assert d["loader_id"] == element.loader_id
