"""Layout boxes of every node a frame session renders, from one DOMSnapshot call.

``DOMSnapshot.captureSnapshot`` answers, for every document the session
renders (its own and every same-process child frame's), the layout box of
every node that has one, keyed by backend node id, in that document's
coordinates (CSS pixels from the document's top-left, so independent of
its scroll position, which comes along). It reads the page and changes
nothing in it: no script runs in the page, nothing scrolls, focus stays.

This module decodes the answer into what the geometry needs
(:class:`DocumentLayout` per document):

* the border box of each node, and the part of it not cut away by an
  ancestor that clips its overflow (``overflow`` other than ``visible``);
  ``position: fixed`` escapes every such ancestor;
* for each ``<iframe>``/``<frame>``, its content box (inside border and
  padding), where its document's viewport is drawn;
* the same-process child document of each ``<iframe>`` (out-of-process ones
  are found through the snapshot's frame owners).

Pure: bytes in, structs out (recorded answers test it without a browser).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

import msgspec

from kobrowser.snapshot._ax import gc_paused

__all__ = ["PARAMS", "DocumentLayout", "Rect", "decode_layout", "intersect"]

STYLES: Final = (
    "border-left-width",
    "border-top-width",
    "border-right-width",
    "border-bottom-width",
    "padding-left",
    "padding-top",
    "padding-right",
    "padding-bottom",
    "overflow-x",
    "overflow-y",
    "position",
)
PARAMS: Final = {
    "computedStyles": list(STYLES),
    "includeDOMRects": False,
    "includePaintOrder": False,
    "includeBlendedBackgroundColors": False,
    "includeTextColorOpacities": False,
}
"""The ``DOMSnapshot.captureSnapshot`` parameters :func:`decode_layout` expects."""

_INF: Final = math.inf
_NO_CLIP: Final = (-_INF, -_INF, _INF, _INF)
_ROOTS: Final = frozenset({"HTML", "BODY"})  # their overflow is the viewport's
_FRAMES: Final = frozenset({"IFRAME", "FRAME"})

Rect = tuple[float, float, float, float]
"""``(left, top, right, bottom)`` in CSS pixels."""


def intersect(a: Rect, b: Rect) -> Rect | None:
    """The overlap of two rects, ``None`` when it has no area."""
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[2], b[2]), min(a[3], b[3])
    if right <= left or bottom <= top:
        return None
    return (left, top, right, bottom)


class DocumentLayout(msgspec.Struct):
    """The layout of one document, in its own document coordinates.

    Attributes:
        frame_id: The frame that holds the document.
        scroll: ``(x, y)``: how far the document is scrolled.
        boxes: Backend node id -> border box.
        clips: Backend node id -> the part of its box no ancestor clips away
            (absent: nothing clips it; ``None``: clipped away entirely).
        frame_boxes: Backend id of each ``<iframe>`` -> its content box.
        children: Backend id of an ``<iframe>`` -> frame id of its
            same-process document.
    """

    frame_id: str
    scroll: tuple[float, float]
    boxes: dict[int, Rect]
    clips: dict[int, Rect | None]
    frame_boxes: dict[int, Rect]
    children: dict[int, str]


class _Rare(msgspec.Struct, gc=False):
    index: list[int] = []
    value: list[int] = []


class _Nodes(msgspec.Struct, gc=False):
    parentIndex: list[int] = []
    nodeName: list[int] = []
    backendNodeId: list[int] = []
    contentDocumentIndex: _Rare | None = None


class _Layout(msgspec.Struct, gc=False):
    nodeIndex: list[int] = []
    bounds: list[list[float]] = []
    styles: list[list[int]] = []


class _Document(msgspec.Struct, gc=False):
    frameId: int
    nodes: _Nodes
    layout: _Layout
    scrollOffsetX: float = 0.0
    scrollOffsetY: float = 0.0


class _Captured(msgspec.Struct, gc=False):
    documents: list[_Document]
    strings: list[str]


_DECODER: Final = msgspec.json.Decoder(_Captured)


def decode_layout(raw: bytes | msgspec.Raw) -> list[DocumentLayout]:
    """The documents of a ``DOMSnapshot.captureSnapshot`` answer (taken with :data:`PARAMS`)."""
    with gc_paused():
        captured = _DECODER.decode(raw)
        strings = captured.strings
        pixels: dict[int, float] = {}

        def px(index: int) -> float:
            value = pixels.get(index)
            if value is None:
                text = strings[index] if 0 <= index < len(strings) else ""
                try:
                    value = float(text.removesuffix("px"))
                except ValueError:
                    value = 0.0
                pixels[index] = value
            return value

        clipping = {
            i for i, s in enumerate(strings) if s in ("hidden", "scroll", "auto", "clip", "overlay")
        }
        fixed = strings.index("fixed") if "fixed" in strings else -2
        roots = {i for i, s in enumerate(strings) if s in _ROOTS}
        frames = {i for i, s in enumerate(strings) if s in _FRAMES}
        frame_ids = [strings[d.frameId] for d in captured.documents]
        return [
            _document(d, own, frame_ids, px, clipping, fixed, roots, frames)
            for d, own in zip(captured.documents, frame_ids, strict=True)
        ]


def _document(
    document: _Document,
    frame_id: str,
    frame_ids: list[str],
    px: Callable[[int], float],
    clipping: set[int],
    fixed: int,
    roots: set[int],
    frames: set[int],
) -> DocumentLayout:
    nodes = document.nodes
    backends = nodes.backendNodeId
    names = nodes.nodeName
    parents = nodes.parentIndex
    count = len(backends)
    layout = document.layout
    # Node index -> (border box, styles) for nodes with a layout box.
    box_of: dict[int, tuple[Rect, list[int]]] = {}
    for index, bounds, styles in zip(layout.nodeIndex, layout.bounds, layout.styles, strict=False):
        if index < count and len(bounds) == 4 and index not in box_of:
            x, y, w, h = bounds
            box_of[index] = ((x, y, x + w, y + h), styles)
    boxes: dict[int, Rect] = {}
    clips: dict[int, Rect | None] = {}
    frame_boxes: dict[int, Rect] = {}
    # The clip each node passes to its children (_NO_CLIP: none; None: all cut).
    passed: list[Rect | None] = [_NO_CLIP] * count
    for i in range(count):
        parent = parents[i] if i < len(parents) else -1
        inherited = passed[parent] if 0 <= parent < i else _NO_CLIP
        entry = box_of.get(i)
        if entry is None:
            passed[i] = inherited
            continue
        rect, styles = entry
        if len(styles) == len(STYLES) and styles[10] == fixed:
            inherited = _NO_CLIP
        backend = backends[i]
        boxes[backend] = rect
        if inherited is not _NO_CLIP:
            clips[backend] = None if inherited is None else intersect(rect, inherited)
        own = inherited
        if len(styles) == len(STYLES):
            name = names[i] if i < len(names) else -1
            is_frame = name in frames
            clip_x = styles[8] in clipping and name not in roots
            clip_y = styles[9] in clipping and name not in roots
            if is_frame or clip_x or clip_y:
                left, top, right, bottom = (px(s) for s in styles[:4])
                padding = rect[0] + left, rect[1] + top, rect[2] - right, rect[3] - bottom
                if is_frame:
                    pl, pt, pr, pb = (px(s) for s in styles[4:8])
                    frame_boxes[backend] = (
                        padding[0] + pl,
                        padding[1] + pt,
                        padding[2] - pr,
                        padding[3] - pb,
                    )
                if clip_x or clip_y:
                    # Only the clipped axis is cut.
                    cut = (
                        padding[0] if clip_x else -_INF,
                        padding[1] if clip_y else -_INF,
                        padding[2] if clip_x else _INF,
                        padding[3] if clip_y else _INF,
                    )
                    own = None if inherited is None else intersect(cut, inherited)
        passed[i] = own
    children: dict[int, str] = {}
    rare = nodes.contentDocumentIndex
    if rare is not None:
        for index, doc in zip(rare.index, rare.value, strict=False):
            if 0 <= index < count and 0 <= doc < len(frame_ids):
                children[backends[index]] = frame_ids[doc]
    return DocumentLayout(
        frame_id=frame_id,
        scroll=(document.scrollOffsetX, document.scrollOffsetY),
        boxes=boxes,
        clips=clips,
        frame_boxes=frame_boxes,
        children=children,
    )
