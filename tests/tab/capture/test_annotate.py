"""Label placement and drawing on built boxes (no browser)."""

from __future__ import annotations

import io
import itertools

from PIL import Image

from kobrowser._tab._capture._annotate import Label, color_of, draw_labels, place_labels
from kobrowser._tab._capture._geometry import Placed


def measure(text: str) -> tuple[int, int]:
    return 7 * len(text), 10


def overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return (
        outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )  # fmt: skip


def box(left: float, top: float, right: float, bottom: float) -> Placed:
    rect = (left, top, right, bottom)
    return Placed(rect, rect)


def test_nested_elements_get_separate_labels_inside_their_boxes() -> None:
    boxes = {
        1: box(0, 0, 400, 300),  # a container
        2: box(0, 0, 200, 40),  # a toolbar at its top-left
        3: box(0, 0, 60, 40),  # a button at the toolbar's top-left
        4: box(100, 100, 300, 140),
    }
    labels = place_labels(boxes, (0, 0, 800, 600), 1.0, (800, 600), measure)
    assert [label.id for label in labels] == [1, 2, 3, 4]
    for a, b in itertools.combinations(labels, 2):
        assert not overlap(a.rect, b.rect), (a, b)
    for label in labels:
        assert inside(label.rect, label.outline), label
        assert label.color == color_of(label.id)
    # The smallest keeps the natural spot: its top-left corner.
    assert labels[2].rect[:2] == (0, 0)


def test_only_what_shows_in_the_captured_area_is_labelled() -> None:
    boxes = {
        1: box(10, 10, 50, 30),
        2: box(10, 900, 50, 930),  # below the captured area
        3: Placed((10, 40, 50, 60), None),  # clipped away (scrolled container)
        4: box(790, 10, 850, 30),  # half out on the right: its visible half
    }
    labels = place_labels(boxes, (0, 0, 800, 600), 1.0, (800, 600), measure)
    assert [label.id for label in labels] == [1, 4]
    assert labels[1].outline == (790, 10, 800, 30)


def test_capture_offset_and_scale() -> None:
    # A capture of the document from y=500, at two image pixels per CSS pixel.
    boxes = {7: box(100, 520.5, 200, 560)}
    labels = place_labels(boxes, (0, 500, 400, 800), 2.0, (800, 600), measure)
    (label,) = labels
    assert label.outline == (200, 41, 400, 120)
    # Placed on whole pixels inside (41 rounds up to 42 only when it is not whole).
    assert label.rect[0] == 200 and label.rect[1] == 41
    assert inside(label.rect, label.outline)


def test_crowded_labels_still_appear() -> None:
    boxes = {i: box(0, 0, 5, 5) for i in range(1, 4)}  # three tiny boxes in one spot
    labels = place_labels(boxes, (0, 0, 100, 100), 1.0, (100, 100), measure)
    assert [label.id for label in labels] == [1, 2, 3]
    for label in labels:
        assert label.rect[0] >= 0 and label.rect[2] <= 100
        assert label.rect[1] >= 0 and label.rect[3] <= 100


def _png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (255, 255, 255)).save(out, format="PNG")
    return out.getvalue()


def test_draw_labels_draws_outline_and_label() -> None:
    labels = [Label(3, (10, 10, 110, 60), (10, 10, 30, 24), color_of(3))]
    data = draw_labels(
        _png((200, 100)), lambda size, text: labels, scale=1.0, image_format="png", quality=None
    )
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (200, 100)
    assert image.getpixel((12, 22)) == color_of(3)  # inside the label, below the digit
    assert image.getpixel((109, 59)) == color_of(3)  # the outline's corner
    assert image.getpixel((60, 40)) == (255, 255, 255)  # inside the element: untouched
    jpeg = draw_labels(
        _png((200, 100)), lambda size, text: labels, scale=1.0, image_format="jpeg", quality=70
    )
    assert jpeg[:3] == b"\xff\xd8\xff"
