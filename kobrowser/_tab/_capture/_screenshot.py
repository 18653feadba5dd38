"""Screenshots (plain, full page, one element, annotated with snapshot ids) and PDF.

What :meth:`Tab.screenshot` and :meth:`Tab.pdf` do; the tab's methods only
hand their arguments over. Nothing here changes the page: the capture uses
``Page.captureScreenshot`` with a clip in document coordinates for full
pages and elements, so nothing scrolls (``captureBeyondViewport`` only for
a clip that leaves the viewport: Chrome then lays the page out taller for a
moment, which the page sees as ``resize`` events; scroll, DOM and focus stay
as they were),
element boxes come from :mod:`._geometry` (``DOMSnapshot``, no script in the
page) and labels are drawn on the image (:mod:`._annotate`), not in the page.
"""

from __future__ import annotations

import base64
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

import anyio

from kobrowser import _validate as validate
from kobrowser._concurrency import gather
from kobrowser._exceptions import CaptureError, InvalidArgumentError, NoSnapshotError, ProtocolError
from kobrowser._tab._capture._annotate import Label, draw_labels, place_labels
from kobrowser._tab._capture._layout import Rect, intersect

if TYPE_CHECKING:
    from collections.abc import Callable

    from kobrowser._tab._snapshot import Snapshot
    from kobrowser.cdp import CDPSession

__all__ = ["PAPER_SIZES", "pdf", "screenshot"]

_FORMATS: Final = {"png": "png", "jpeg": "jpeg", "jpg": "jpeg", "webp": "webp"}
_SUFFIXES: Final = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}
PAPER_SIZES: Final = {"a4": (210 / 25.4, 297 / 25.4), "letter": (8.5, 11.0)}
"""Paper name (any case) -> (width, height) in inches."""


class _TabLike(Protocol):
    """What capturing needs of a tab."""

    cdp: CDPSession

    @property
    def last_snapshot(self) -> Snapshot | None: ...
    @property
    def timeout(self) -> float: ...


def _flag(value: Any, argument: str) -> bool:
    if not isinstance(value, bool):
        raise validate.fail(argument, value, "True or False")
    return value


def _file_path(value: Any, argument: str = "path") -> None:
    if value is None:
        return
    path = os.fspath(value) if isinstance(value, str | os.PathLike) else None
    if not isinstance(path, str) or not path or "\0" in path:
        raise validate.fail(argument, value, "a file path (str or os.PathLike), or None")
    validate.no_surrogates(path, argument)


def _image_format(image_format: Any, path: str | os.PathLike[str] | None) -> str:
    if image_format is None:
        suffix = Path(path).suffix.lower() if path is not None else ""
        return _SUFFIXES.get(suffix, "png")
    found = _FORMATS.get(image_format.lower()) if isinstance(image_format, str) else None
    if found is None:
        raise validate.fail(
            "format", image_format, "'png', 'jpeg' or 'webp', or None (from the path's suffix)"
        )
    return found


def _check_quality(quality: Any, image_format: str) -> None:
    if quality is None:
        return
    if isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 100:
        raise validate.fail("quality", quality, "a whole number from 0 to 100, or None")
    if image_format == "png":
        raise validate.fail(
            "quality", quality, "None for a PNG (quality applies to JPEG and WebP only)"
        )


async def screenshot(
    tab: _TabLike,
    path: str | os.PathLike[str] | None = None,
    *,
    full_page: bool = False,
    element_id: int | None = None,
    annotate: bool = False,
    image_format: str | None = None,
    quality: int | None = None,
    timeout: float | None = None,
    labels_out: list[Label] | None = None,
) -> bytes:
    """Capture the tab (see :meth:`Tab.screenshot` for the whole contract).

    ``labels_out`` receives the drawn labels (for tests and tools).
    """
    _file_path(path)
    _flag(full_page, "full_page")
    _flag(annotate, "annotate")
    if element_id is not None:
        validate.element_id(element_id, "id")
    validate.timeout(timeout)
    fmt = _image_format(image_format, path)
    _check_quality(quality, fmt)
    if full_page and element_id is not None:
        raise InvalidArgumentError(
            "full_page and id cannot be combined: capture the whole page or one element",
            argument="full_page",
        )
    limit = tab.timeout if timeout is None else timeout
    snapshot = tab.last_snapshot
    session = tab.cdp
    labels_from: Any = None
    early: dict[str, Any] | None = None
    if element_id is not None:
        # Same checks as an action: a stale id is an error, never another element.
        from kobrowser._tab._resolve import resolve

        target = await resolve(snapshot, element_id, timeout=limit)
        assert snapshot is not None
        measured = await snapshot._measure(timeout=limit, ids=None if annotate else [element_id])
        placed = measured.boxes.get(element_id)
        what = f"element {element_id} ({target.element.role})"
        if placed is None:
            raise CaptureError(f"{what} has no box to capture: it is not rendered")
        area = placed.visible
        if area is not None:
            area = intersect(area, (0.0, 0.0, *measured.content))
        if area is None:
            raise CaptureError(
                f"{what} is not visible: it is scrolled out of view inside its container "
                f"or frame, or has no size (tab.scroll_into_view({element_id}) first)"
            )
        capture: Rect = area
        clip: Rect | None = area
        viewport: Rect = measured.viewport
        labels_from = measured.boxes
    elif annotate:
        if snapshot is None:
            raise NoSnapshotError(
                "annotate=True draws the ids of the last snapshot, and there is none: "
                "take a snapshot first",
                None,
            )
        if full_page:
            measured = await snapshot._measure(timeout=limit)
        else:
            # The viewport capture needs nothing measured: both at once.
            measured, early = await gather(
                lambda: snapshot._measure(timeout=limit),
                lambda: _capture(session, {"format": "png"}, limit),
            )
        labels_from = measured.boxes
        viewport = measured.viewport
        if full_page:
            capture = (0.0, 0.0, *measured.content)
            clip = capture
        else:
            capture = measured.viewport
            clip = None
    elif full_page:
        metrics = await session.send("Page.getLayoutMetrics", timeout=limit)
        size = metrics.get("cssContentSize") or {}
        view = metrics.get("cssVisualViewport") or {}
        capture = (0.0, 0.0, float(size.get("width", 0)), float(size.get("height", 0)))
        clip = capture
        left, top = float(view.get("pageX", 0)), float(view.get("pageY", 0))
        viewport = (
            left,
            top,
            left + float(view.get("clientWidth", 0)),
            top + float(view.get("clientHeight", 0)),
        )
    else:
        capture = viewport = (0.0, 0.0, 0.0, 0.0)  # unused: the plain viewport
        clip = None

    if clip is not None and (clip[2] - clip[0] < 1 or clip[3] - clip[1] < 1):
        raise CaptureError("there is nothing to capture: the area has no size")
    params: dict[str, Any] = {"format": "png" if annotate else fmt}
    if quality is not None and not annotate:
        params["quality"] = quality
    if clip is not None:
        params["clip"] = {
            "x": clip[0],
            "y": clip[1],
            "width": clip[2] - clip[0],
            "height": clip[3] - clip[1],
            "scale": 1,
        }
        # Beyond the viewport Chrome renders a taller page for a moment (the
        # page sees resize events; scroll, DOM and focus stay): only then.
        inside = (
            viewport[0] <= clip[0]
            and viewport[1] <= clip[1]
            and clip[2] <= viewport[2]
            and clip[3] <= viewport[3]
        )
        params["captureBeyondViewport"] = not inside
    result = await _capture(session, params, limit) if early is None else early
    data = base64.b64decode(result.get("data", ""))
    if annotate:
        boxes = labels_from
        css_width = capture[2] - capture[0]

        def labels_for(
            size: tuple[int, int], measure_text: Callable[[str], tuple[int, int]]
        ) -> list[Label]:
            scale = size[0] / css_width if css_width > 0 else 1.0
            placed = place_labels(boxes, capture, scale, size, measure_text)
            if labels_out is not None:
                labels_out.extend(placed)
            return placed

        css = capture[2] - capture[0]
        probe_scale = _png_width(data) / css if css > 0 else 1.0
        data = await anyio.to_thread.run_sync(
            lambda: draw_labels(
                data, labels_for, scale=probe_scale, image_format=fmt, quality=quality
            )
        )
    if path is not None:
        await _write(path, data, "screenshot")
    return data


async def _capture(session: CDPSession, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    try:
        return await session.send("Page.captureScreenshot", params, timeout=timeout)
    except ProtocolError as error:
        raise CaptureError(f"Chrome could not capture the page: {error}") from None


def _png_width(data: bytes) -> int:
    """The width of a PNG from its header (0 when it is not one)."""
    if len(data) >= 24 and data[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(data[16:20], "big")
    return 0


async def _write(path: str | os.PathLike[str], data: bytes, what: str) -> None:
    target = Path(path)
    try:
        await anyio.to_thread.run_sync(target.write_bytes, data)
    except OSError as error:
        raise CaptureError(f"cannot write the {what} to {str(target)!r}: {error}") from None


async def pdf(
    tab: _TabLike,
    path: str | os.PathLike[str] | None = None,
    *,
    landscape: bool = False,
    print_background: bool = True,
    scale: float = 1.0,
    paper: str = "A4",
    headless: bool | None = None,
    timeout: float | None = None,
) -> bytes:
    """Print the tab to PDF (see :meth:`Tab.pdf` for the whole contract)."""
    _file_path(path)
    _flag(landscape, "landscape")
    _flag(print_background, "print_background")
    validate.timeout(timeout)
    size = PAPER_SIZES.get(paper.lower()) if isinstance(paper, str) else None
    if size is None:
        raise validate.fail("paper", paper, "'A4' or 'Letter'")
    if (
        isinstance(scale, bool)
        or not isinstance(scale, int | float)
        or not math.isfinite(scale)
        or not 0.1 <= scale <= 2.0
    ):
        raise validate.fail("scale", scale, "a number from 0.1 to 2")
    if headless is False:
        raise CaptureError(
            "PDF needs a headless Chrome: this one has a window "
            "(launch(headless=True), or ko-browser without --headed)"
        )
    params = {
        "landscape": bool(landscape),
        "printBackground": bool(print_background),
        "scale": float(scale),
        "paperWidth": size[0],
        "paperHeight": size[1],
    }
    limit = tab.timeout if timeout is None else timeout
    try:
        result = await tab.cdp.send("Page.printToPDF", params, timeout=limit)
    except ProtocolError as error:
        message = str(error)
        if "not implemented" in message.lower() or "headless" in message.lower():
            raise CaptureError(f"PDF needs a headless Chrome (Chrome said: {message})") from None
        raise CaptureError(f"Chrome could not print the page: {message}") from None
    data = base64.b64decode(result.get("data", ""))
    if not data.startswith(b"%PDF"):
        raise CaptureError("Chrome's answer to printToPDF is not a PDF")
    if path is not None:
        await _write(path, data, "PDF")
    return data
