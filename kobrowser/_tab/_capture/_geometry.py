"""Where every element of a snapshot is, in top-page coordinates, in one batch.

One ``DOMSnapshot.captureSnapshot`` per frame session (the page, which also
answers for its same-process frames, and each out-of-process frame), all at
once, plus the page's layout metrics: a few calls whatever the number of
elements, never one per element. Nothing runs in the page and nothing in it
changes (no node, no scroll, no focus).

Each frame's document is placed through every frame above it: a frame's
origin is its ``<iframe>``'s content box (border and padding inside the
element's box) in the parent's placement, less the frame's own scroll; what
of it can be seen is that content box cut by everything that clips the
``<iframe>`` in its parent, recursively up to the top document. An
element's visible part is its box cut by its own clipping ancestors and by
its frame's visible area.

Coordinates here are *top-document* CSS pixels (from the top-left of the
top page, whatever its scroll); :class:`Box` gives users top-viewport
coordinates, like :meth:`Tab.box`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Final, Protocol

import anyio
import msgspec

from kobrowser._concurrency import gather
from kobrowser._exceptions import KoBrowserError
from kobrowser._tab._capture._layout import PARAMS, DocumentLayout, Rect, decode_layout, intersect

if TYPE_CHECKING:
    from kobrowser._tab._fetch import FrameDocument
    from kobrowser.cdp import CDPSession

__all__ = ["Box", "Measured", "Placed", "measure"]

_NO_CLIP: Final[Rect] = (-float("inf"), -float("inf"), float("inf"), float("inf"))


class Box(msgspec.Struct, frozen=True, kw_only=True):
    """Where an element of a snapshot is (see :meth:`Snapshot.boxes`).

    Coordinates are CSS pixels from the top-left of the top page's viewport,
    as for :meth:`Tab.box` (an element above the scrolled-to part has a
    negative ``y``); elements inside iframes are placed through every frame
    above them.

    Attributes:
        id: The element's id in the snapshot.
        x, y, width, height: Its whole border box.
        visible: ``(x, y, width, height)`` of the part that is on screen:
            inside the viewport and not cut away by a scrolled container
            or by the iframes around it; ``None`` when no part is.
    """

    id: int
    x: float
    y: float
    width: float
    height: float
    visible: tuple[float, float, float, float] | None


class Placed(msgspec.Struct, frozen=True):
    """An element's box and visible part in top-document coordinates (ltrb).

    ``visible`` is cut by clipping ancestors and frames, not by a viewport
    (a full-page capture sees below the fold).
    """

    rect: Rect
    visible: Rect | None


class _Metrics(msgspec.Struct):
    pageX: float = 0.0
    pageY: float = 0.0
    clientWidth: float = 0.0
    clientHeight: float = 0.0


class _Size(msgspec.Struct):
    width: float = 0.0
    height: float = 0.0


class _LayoutMetrics(msgspec.Struct):
    cssVisualViewport: _Metrics
    cssContentSize: _Size


_METRICS: Final = msgspec.json.Decoder(_LayoutMetrics)


class Measured(msgspec.Struct):
    """The page's viewport and the placed elements (see :func:`measure`).

    Attributes:
        viewport: ``(left, top, right, bottom)`` of the visible part of the
            top document, in its coordinates.
        content: ``(width, height)`` of the top document.
        boxes: Element id -> its placement (ids without a layout box, or in
            a frame that could not be read, are left out).
    """

    viewport: Rect
    content: tuple[float, float]
    boxes: dict[int, Placed]

    def box(self, element_id: int) -> Box | None:
        """The user-facing :class:`Box` of one id, in viewport coordinates."""
        placed = self.boxes.get(element_id)
        if placed is None:
            return None
        dx, dy = self.viewport[0], self.viewport[1]
        left, top, right, bottom = placed.rect
        seen = intersect(placed.visible, self.viewport) if placed.visible else None
        return Box(
            id=element_id,
            x=left - dx,
            y=top - dy,
            width=right - left,
            height=bottom - top,
            visible=None
            if seen is None
            else (seen[0] - dx, seen[1] - dy, seen[2] - seen[0], seen[3] - seen[1]),
        )


class Placeable(Protocol):
    """What :func:`measure` reads of an element: where its node lives."""

    @property
    def frame_id(self) -> str: ...

    @property
    def backend_node_id(self) -> int | None: ...


async def measure(
    documents: Mapping[str, FrameDocument],
    owners: Mapping[str, int],
    elements: Mapping[int, Placeable],
    *,
    timeout: float | None,
    ids: Collection[int] | None = None,
) -> Measured:
    """Place ``elements`` (all, or ``ids``) in top-document coordinates.

    ``documents`` are a snapshot's frame documents by frame id, ``owners``
    the backend node of each child frame's ``<iframe>`` element, and
    ``elements`` its id map.

    Frames that went away since the snapshot (closed session, failed or
    late answer) leave their elements out; only the top page's failure
    raises.

    Raises:
        TargetClosedError: the tab was closed or crashed.
        CDPTimeoutError: the top page did not answer in time.
        KoBrowserError: the snapshot has no top document (an empty snapshot).

    Cancelling the caller abandons the calls.
    """
    top = next((d for d in documents.values() if d.parent_id is None), None)
    if top is None:
        raise KoBrowserError("the snapshot has no top document to place elements in")
    wanted = list(elements) if ids is None else [i for i in ids if i in elements]
    # The frames the wanted elements live in, and every frame above them.
    frames: set[str] = set()
    for element_id in wanted:
        frame: str | None = elements[element_id].frame_id
        while frame is not None and frame not in frames:
            frames.add(frame)
            document = documents.get(frame)
            frame = document.parent_id if document is not None else None
    frames.add(top.frame_id)
    sessions: dict[CDPSession, None] = {top.session: None}
    for frame in frames:
        document = documents.get(frame)
        if document is not None and not document.session.closed:
            sessions.setdefault(document.session, None)

    async def capture(session: CDPSession) -> list[DocumentLayout]:
        if session is top.session:
            raw = await session.send_raw("DOMSnapshot.captureSnapshot", PARAMS, timeout=timeout)
            return decode_layout(raw)
        # A frame that cannot answer leaves its elements out.
        with anyio.move_on_after(timeout):
            try:
                raw = await session.send_raw("DOMSnapshot.captureSnapshot", PARAMS, timeout=timeout)
            except KoBrowserError:
                return []
            return decode_layout(raw)
        return []

    async def metrics() -> _LayoutMetrics:
        return await top.session.send_typed(
            "Page.getLayoutMetrics", None, _METRICS, timeout=timeout
        )

    results = await gather(metrics, *(lambda s=s: capture(s) for s in sessions))
    page: _LayoutMetrics = results[0]
    layouts: dict[str, DocumentLayout] = {}
    for found in results[1:]:
        for layout in found:
            layouts.setdefault(layout.frame_id, layout)
    places = _place_frames(top.frame_id, layouts, documents, owners)
    boxes: dict[int, Placed] = {}
    for element_id in wanted:
        element = elements[element_id]
        backend = element.backend_node_id
        where = places.get(element.frame_id)
        layout = layouts.get(element.frame_id)
        if backend is None or where is None or layout is None:
            continue
        rect = layout.boxes.get(backend)
        if rect is None:
            continue
        (dx, dy), frame_clip = where
        placed = (rect[0] + dx, rect[1] + dy, rect[2] + dx, rect[3] + dy)
        visible = intersect(placed, _NO_CLIP if frame_clip is None else frame_clip)
        if backend in layout.clips and visible is not None:
            own = layout.clips[backend]
            visible = None if own is None else intersect(visible, _shift(own, dx, dy))
        boxes[element_id] = Placed(placed, visible)
    view = page.cssVisualViewport
    return Measured(
        viewport=(
            view.pageX,
            view.pageY,
            view.pageX + view.clientWidth,
            view.pageY + view.clientHeight,
        ),
        content=(page.cssContentSize.width, page.cssContentSize.height),
        boxes=boxes,
    )


def _shift(rect: Rect, dx: float, dy: float) -> Rect:
    return (rect[0] + dx, rect[1] + dy, rect[2] + dx, rect[3] + dy)


_Place = tuple[tuple[float, float], Rect | None]
"""(document origin in top-document coordinates, visible area; None: no clip)."""


def _place_frames(
    top: str,
    layouts: Mapping[str, DocumentLayout],
    documents: Mapping[str, FrameDocument],
    owners: Mapping[str, int],
) -> dict[str, _Place]:
    """Frame id -> placement, for every frame reachable from the top one."""
    places: dict[str, _Place] = {}
    top_layout = layouts.get(top)
    if top_layout is None:
        return places
    places[top] = ((0.0, 0.0), None)
    children: dict[str, list[tuple[str, int]]] = {}
    # Same-process children as the layout says; out-of-process ones (and
    # any the layout missed) through the snapshot's frame owners.
    for layout in layouts.values():
        for owner, child in layout.children.items():
            children.setdefault(layout.frame_id, []).append((child, owner))
    known = {child for pairs in children.values() for child, _ in pairs}
    for frame, document in documents.items():
        if document.parent_id is not None and frame not in known and frame in owners:
            children.setdefault(document.parent_id, []).append((frame, owners[frame]))
    queue = [top]
    while queue:
        parent = queue.pop()
        parent_layout = layouts[parent]
        (px, py), parent_clip = places[parent]
        for child, owner in children.get(parent, ()):
            child_layout = layouts.get(child)
            content = parent_layout.frame_boxes.get(owner)
            if child_layout is None or content is None or child in places:
                continue
            box = _shift(content, px, py)
            clip: Rect | None = box if parent_clip is None else intersect(box, parent_clip)
            if owner in parent_layout.clips and clip is not None:
                own = parent_layout.clips[owner]
                clip = None if own is None else intersect(clip, _shift(own, px, py))
            if clip is None:
                clip = (box[0], box[1], box[0], box[1])  # nothing of it shows
            sx, sy = child_layout.scroll
            places[child] = ((box[0] - sx, box[1] - sy), clip)
            queue.append(child)
    return places
