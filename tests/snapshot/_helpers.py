"""Shared helpers for the snapshot tests."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kobrowser.snapshot import FrameAX, Node, build_tree, filter_tree, format_snapshot


def render(
    top: FrameAX,
    *,
    title: str | None = None,
    scope: Collection[tuple[str, int]] | None = None,
    **modes: Any,
) -> str:
    """Build, filter and format: the exact snapshot text."""
    roots = filter_tree(build_tree(top, scope=scope), **modes)
    return format_snapshot(roots, title=title)[0]


def lines(top: FrameAX, **kwargs: Any) -> list[str]:
    """The element lines of :func:`render` (no Page line)."""
    return render(top, **kwargs).splitlines()


def backend_of(top: FrameAX, role: str, name: str | None = None) -> int:
    """backendDOMNodeId of the first node of ``role`` (and ``name``) in ``top``."""
    for node in top.nodes:
        if (
            node.role is not None
            and node.role.value == role
            and (name is None or (node.name is not None and node.name.value == name))
        ):
            assert node.backendDOMNodeId is not None
            return node.backendDOMNodeId
    raise AssertionError(f"no {role} {name!r}")


def walk(roots: list[Node]) -> list[tuple[int, Node]]:
    """(depth, node) in pre-order."""
    out: list[tuple[int, Node]] = []
    stack = [(0, n) for n in reversed(roots)]
    while stack:
        depth, node = stack.pop()
        out.append((depth, node))
        stack.extend((depth + 1, c) for c in reversed(node.children))
    return out
