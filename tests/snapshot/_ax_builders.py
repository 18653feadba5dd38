"""Tiny builders of AX trees shaped like Chrome's getFullAXTree output.

``el(role, name, *children, ...)`` describes one AX node; ``frame(...)``
turns a list of them into a :class:`FrameAX` whose ``nodes`` are in BFS order
with a ``RootWebArea`` first, exactly as Chrome returns them. ``iframe(...)``
is an ``Iframe`` node whose content is another ``frame`` (or ``None`` for an
unreadable frame, or ``MISSING`` for no entry at all).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from kobrowser.snapshot import AXNode, AXProperty, AXValue, FrameAX

__all__ = [
    "MISSING",
    "FrameSpec",
    "Spec",
    "el",
    "frame",
    "frame_spec",
    "iframe",
    "ignored",
    "props",
    "text",
    "textbox",
]

MISSING: Any = object()
_backend_ids = itertools.count(1000)


@dataclass
class Spec:
    """One AX node to build."""

    role: str | None
    name: Any = None
    children: list[Spec] = field(default_factory=list)
    value: Any = None
    properties: dict[str, Any] = field(default_factory=dict)
    ignored: bool = False
    backend: int | Any | None = MISSING  # MISSING: allocate one
    frame: Any = MISSING  # for Iframe specs: FrameSpec, None or MISSING
    value_type: str = "string"


@dataclass
class FrameSpec:
    """A child frame to build (see :func:`frame`)."""

    children: list[Spec]
    title: str | None
    frame_id: str


def el(
    role: str | None,
    name: Any = None,
    *children: Spec,
    value: Any = None,
    backend: int | Any | None = MISSING,
    ignored: bool = False,
    **properties: Any,
) -> Spec:
    """An AX node. Keyword arguments other than the named ones are properties."""
    return Spec(
        role,
        name,
        list(children),
        value=value,
        properties=properties,
        ignored=ignored,
        backend=backend,
    )


def text(content: str, *, backend: int | Any | None = MISSING) -> Spec:
    """A ``StaticText`` with its ``InlineTextBox`` child, as Chrome emits it."""
    return Spec(
        "StaticText",
        content,
        [Spec("InlineTextBox", content, backend=None)],
        backend=backend,
    )


def ignored(*children: Spec) -> Spec:
    """An ignored node (role ``none``) whose children move up."""
    return Spec("none", None, list(children), ignored=True)


def textbox(name: str, value: str, *, multiline: bool = False, **properties: Any) -> Spec:
    """An ``<input>``/``<textarea>``: textbox with an editable inner text."""
    inner = el("generic", None, text(value), editable="plaintext")
    return el(
        "textbox",
        name,
        inner,
        value=value,
        editable="plaintext",
        multiline=multiline,
        **properties,
    )


def iframe(name: str | None, content: FrameSpec | Any | None = MISSING, **properties: Any) -> Spec:
    """An ``Iframe`` node; ``content`` is a :func:`frame_spec`, ``None`` or ``MISSING``."""
    spec = el("Iframe", name, **properties)
    spec.frame = content
    return spec


def frame_spec(*children: Spec, title: str | None = None, frame_id: str = "CHILD") -> FrameSpec:
    """A child frame's content, for :func:`iframe`."""
    return FrameSpec(list(children), title, frame_id)


def props(**properties: Any) -> list[AXProperty]:
    """AX properties as Chrome types them."""
    out = []
    for key, val in properties.items():
        if isinstance(val, bool):
            kind = "boolean"
        elif isinstance(val, int | float):
            kind = "number"
        elif key in ("checked", "pressed"):
            kind = "tristate"
        else:
            kind = "token"
        out.append(AXProperty(key, AXValue(kind, val)))
    return out


def frame(*children: Spec, title: str | None = None, frame_id: str = "MAIN") -> FrameAX:
    """Build a frame: a ``RootWebArea`` (named ``title``) over ``children``, BFS order."""
    root = Spec("RootWebArea", title, list(children))
    nodes: list[AXNode] = []
    sub: dict[int, FrameAX | None] = {}
    ids = itertools.count(1)
    queue: list[Spec] = [root]
    assigned: dict[int, str] = {id(root): str(next(ids))}
    while queue:
        nxt: list[Spec] = []
        for spec in queue:
            child_ids = []
            for child in spec.children:
                assigned[id(child)] = str(next(ids))
                child_ids.append(assigned[id(child)])
                nxt.append(child)
            backend = next(_backend_ids) if spec.backend is MISSING else spec.backend
            node = AXNode(
                nodeId=assigned[id(spec)],
                ignored=spec.ignored,
                role=None if spec.role is None else AXValue("role", spec.role),
                name=None if spec.name is None else AXValue("computedString", spec.name),
                value=None if spec.value is None else AXValue(spec.value_type, spec.value),
                properties=props(**spec.properties),
                childIds=child_ids,
                backendDOMNodeId=backend,
            )
            nodes.append(node)
            if spec.frame is not MISSING and backend is not None:
                content = spec.frame
                sub[backend] = (
                    None
                    if content is None
                    else frame(*content.children, title=content.title, frame_id=content.frame_id)
                )
        queue = nxt
    return FrameAX(frame_id, nodes, sub)
