"""Draw snapshot ids on a screenshot: an outline and a numbered label per element.

The drawing is done on the image with Pillow (the ``screenshot`` extra), never
in the page, so the page is left exactly as it was.

Placement (:func:`place_labels`, pure): each element visible in the
captured area gets an outline along its visible part and a label with its
id, inside the element where it fits. Smaller elements are placed first, so
a control keeps the natural spot (its top-left corner) and the container
around it moves its label to another corner or along its edge. A label goes
where it covers no label placed before; only when no spot is free (a dense
cluster of tiny elements) may it overlap one.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

import msgspec

from kobrowser._exceptions import CaptureError
from kobrowser._tab._capture._layout import Rect, intersect

if TYPE_CHECKING:
    from kobrowser._tab._capture._geometry import Placed

__all__ = ["Label", "draw_labels", "load_font", "place_labels"]

PixelRect = tuple[int, int, int, int]
"""``(left, top, right, bottom)`` in image pixels (right and bottom exclusive)."""

# Distinct, saturated colours that stay readable with white text.
_PALETTE: Final = (
    (230, 25, 75),
    (0, 130, 200),
    (60, 150, 40),
    (145, 30, 180),
    (245, 110, 0),
    (0, 128, 128),
    (200, 20, 170),
    (120, 90, 30),
    (70, 70, 200),
    (170, 40, 40),
)
_GRID: Final = 48  # pixels per cell of the collision grid


class Label(msgspec.Struct, frozen=True):
    """One drawn id: the element's outline and its label, in image pixels.

    Attributes:
        id: The element's id.
        outline: The element's visible part in the captured area.
        rect: Where the label (background and number) is drawn.
        color: The RGB colour of both.
    """

    id: int
    outline: PixelRect
    rect: PixelRect
    color: tuple[int, int, int]


def color_of(element_id: int) -> tuple[int, int, int]:
    """The colour of an id's outline and label."""
    return _PALETTE[element_id % len(_PALETTE)]


def place_labels(
    boxes: dict[int, Placed],
    capture: Rect,
    scale: float,
    size: tuple[int, int],
    measure_text: Callable[[str], tuple[int, int]],
) -> list[Label]:
    """Where to draw each id that shows in the captured area.

    Args:
        boxes: Element id -> placement (top-document CSS pixels).
        capture: The captured area in the same coordinates.
        scale: Image pixels per CSS pixel.
        size: The image's ``(width, height)``.
        measure_text: ``(width, height)`` in pixels of a label's text.

    Returns:
        One label per element whose visible part meets the captured area,
        in id order.
    """
    width, height = size
    shown: list[tuple[int, PixelRect, PixelRect]] = []
    for element_id, placed in boxes.items():
        if placed.visible is None:
            continue
        seen = intersect(placed.visible, capture)
        if seen is None:
            continue
        outline = (
            max(0, math.floor((seen[0] - capture[0]) * scale)),
            max(0, math.floor((seen[1] - capture[1]) * scale)),
            min(width, math.ceil((seen[2] - capture[0]) * scale)),
            min(height, math.ceil((seen[3] - capture[1]) * scale)),
        )
        # Labels go on the whole pixels inside the element (rounded inwards).
        inner = (
            min(width, math.ceil((seen[0] - capture[0]) * scale)),
            min(height, math.ceil((seen[1] - capture[1]) * scale)),
            max(0, math.floor((seen[2] - capture[0]) * scale)),
            max(0, math.floor((seen[3] - capture[1]) * scale)),
        )
        if inner[2] <= inner[0] or inner[3] <= inner[1]:
            inner = outline
        if outline[2] > outline[0] and outline[3] > outline[1]:
            shown.append((element_id, outline, inner))
    shown.sort(key=lambda item: ((item[2][2] - item[2][0]) * (item[2][3] - item[2][1]), item[0]))
    grid: dict[tuple[int, int], list[PixelRect]] = {}
    labels: list[Label] = []
    pad_x = max(2, round(2 * scale))
    pad_y = max(1, round(scale))
    for element_id, outline, inner in shown:
        text_w, text_h = measure_text(str(element_id))
        label_w, label_h = text_w + 2 * pad_x, text_h + 2 * pad_y
        rect = _free_spot(inner, label_w, label_h, size, grid)
        _remember(rect, grid)
        labels.append(Label(element_id, outline, rect, color_of(element_id)))
    labels.sort(key=lambda label: label.id)
    return labels


def _candidates(outline: PixelRect, w: int, h: int) -> Iterable[tuple[int, int]]:
    left, top, right, bottom = outline
    # Inside, at the corners, then along the top and bottom edges.
    yield left, top
    yield right - w, top
    yield left, bottom - h
    yield right - w, bottom - h
    if right - left >= 2 * w:
        for x in range(left + w, right - w, w):
            yield x, top
            yield x, bottom - h
    if bottom - top >= 2 * h:
        for y in range(top + h, bottom - h, h):
            yield left, y
            yield right - w, y
    # Outside: above, then below the element.
    yield left, top - h
    yield left, bottom


def _free_spot(
    outline: PixelRect,
    w: int,
    h: int,
    size: tuple[int, int],
    grid: dict[tuple[int, int], list[PixelRect]],
) -> PixelRect:
    first: PixelRect | None = None
    for x, y in _candidates(outline, w, h):
        x = min(max(0, x), max(0, size[0] - w))
        y = min(max(0, y), max(0, size[1] - h))
        rect = (x, y, x + w, y + h)
        if first is None:
            first = rect
        if not _collides(rect, grid):
            return rect
    assert first is not None
    return first


def _cells(rect: PixelRect) -> Iterable[tuple[int, int]]:
    for cx in range(rect[0] // _GRID, (rect[2] - 1) // _GRID + 1):
        for cy in range(rect[1] // _GRID, (rect[3] - 1) // _GRID + 1):
            yield cx, cy


def _collides(rect: PixelRect, grid: dict[tuple[int, int], list[PixelRect]]) -> bool:
    for cell in _cells(rect):
        for other in grid.get(cell, ()):
            if (
                rect[0] < other[2]
                and other[0] < rect[2]
                and rect[1] < other[3]
                and other[1] < rect[3]
            ):
                return True
    return False


def _remember(rect: PixelRect, grid: dict[tuple[int, int], list[PixelRect]]) -> None:
    for cell in _cells(rect):
        grid.setdefault(cell, []).append(rect)


def _pillow() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise CaptureError(
            "annotated screenshots need Pillow: pip install 'ko-browser[screenshot]'"
        ) from None
    return Image, ImageDraw, ImageFont


def load_font(scale: float) -> Any:
    """Pillow's built-in font at a size that suits ``scale`` image pixels per CSS pixel."""
    _image, _draw, font = _pillow()
    size = max(10, round(11 * scale))
    try:
        return font.load_default(size=size)
    except (TypeError, ImportError, OSError):  # pragma: no cover - Pillow without FreeType
        return font.load_default()


def text_size(font: Any) -> Callable[[str], tuple[int, int]]:
    """A ``measure_text`` for :func:`place_labels` with ``font``."""

    def measure(text: str) -> tuple[int, int]:
        left, top, right, bottom = font.getbbox(text)
        return math.ceil(right - left), math.ceil(bottom - top)

    return measure


def draw_labels(
    png: bytes,
    labels_for: Callable[[tuple[int, int], Callable[[str], tuple[int, int]]], list[Label]],
    *,
    scale: float,
    image_format: str,
    quality: int | None,
) -> bytes:
    """Decode ``png``, draw the labels ``labels_for(size, measure_text)`` gives, encode.

    Args:
        png: The captured image.
        labels_for: Places the labels once the image size is known.
        scale: Image pixels per CSS pixel (sets line width and font size).
        image_format: ``"png"``, ``"jpeg"`` or ``"webp"``.
        quality: JPEG/WebP quality (0-100), ``None`` for the default.

    Raises:
        CaptureError: Pillow is not installed, or cannot read the image.
    """
    image_mod, draw_mod, _font = _pillow()
    try:
        image = image_mod.open(io.BytesIO(png))
        image.load()
    except Exception as error:  # Pillow raises several unrelated types
        raise CaptureError(f"the screenshot could not be decoded: {error}") from None
    image = image.convert("RGB")
    font = load_font(scale)
    labels = labels_for(image.size, text_size(font))
    draw = draw_mod.Draw(image)
    line = max(1, round(2 * scale))
    for label in labels:
        left, top, right, bottom = label.outline
        draw.rectangle((left, top, right - 1, bottom - 1), outline=label.color, width=line)
    pad_x = max(2, round(2 * scale))
    pad_y = max(1, round(scale))
    for label in labels:
        left, top, right, bottom = label.rect
        draw.rectangle((left, top, right - 1, bottom - 1), fill=label.color)
        text = str(label.id)
        bbox = font.getbbox(text)
        draw.text(
            (left + pad_x - bbox[0], top + pad_y - bbox[1]),
            text,
            fill=(255, 255, 255),
            font=font,
        )
    out = io.BytesIO()
    # Fast PNG compression: the drawing is for looking at now, not for archiving.
    options: dict[str, Any] = {"compress_level": 1} if image_format == "png" else {}
    if quality is not None and image_format in ("jpeg", "webp"):
        options["quality"] = quality
    try:
        image.save(out, format=image_format.upper(), **options)
    except (OSError, KeyError, ValueError) as error:  # a format this Pillow cannot write
        raise CaptureError(f"Pillow cannot write {image_format.upper()}: {error!r}") from None
    return out.getvalue()
