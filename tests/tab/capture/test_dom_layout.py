"""decode_layout on built DOMSnapshot answers: boxes, clips, frames (no browser)."""

from __future__ import annotations

import json
from typing import Any

from kobrowser._tab._capture._layout import STYLES, decode_layout, intersect

STRINGS = [
    "F-top", "F-child", "HTML", "BODY", "DIV", "BUTTON", "IFRAME", "#text",
    "0px", "2px", "4px", "visible", "hidden", "auto", "static", "fixed",
]  # fmt: skip


def s(text: str) -> int:
    return STRINGS.index(text)


def styles(
    border: str = "0px", padding: str = "0px", overflow: str = "visible", position: str = "static"
) -> list[int]:
    out = [s(border)] * 4 + [s(padding)] * 4 + [s(overflow), s(overflow), s(position)]
    assert len(out) == len(STYLES)
    return out


def answer() -> bytes:
    # top: HTML > BODY > DIV(overflow hidden, 10..110 x 10..60) > BUTTON (inside),
    #      BUTTON (below the div's bottom: clipped away), BUTTON fixed (escapes),
    #      IFRAME (border 2, padding 4) owning the same-process document 1; text node.
    top: dict[str, Any] = {
        "frameId": s("F-top"),
        "scrollOffsetX": 0,
        "scrollOffsetY": 25,
        "nodes": {
            "parentIndex": [-1, 0, 1, 2, 2, 2, 1, 1, 7],
            "nodeName": [
                s(n)
                for n in (
                    "HTML",
                    "BODY",
                    "DIV",
                    "BUTTON",
                    "BUTTON",
                    "BUTTON",
                    "IFRAME",
                    "DIV",
                    "#text",
                )
            ],
            "backendNodeId": [1, 2, 3, 4, 5, 6, 7, 8, 9],
            "contentDocumentIndex": {"index": [6], "value": [1]},
        },
        "layout": {
            "nodeIndex": [0, 1, 2, 3, 4, 5, 6, 7, 8],
            "bounds": [
                [0, 0, 800, 2000],
                [0, 0, 800, 2000],
                [10, 10, 100, 50],
                [20, 20, 30, 10],
                [20, 70, 30, 10],
                [0, 0, 50, 20],
                [200, 100, 312, 212],
                [0, 400, 800, 100],
                [5, 405, 40, 15],
            ],
            "styles": [
                styles(overflow="hidden"),  # HTML's overflow is the viewport's: no clip
                styles(overflow="hidden"),  # BODY's too
                styles(overflow="hidden"),
                styles(),
                styles(),
                styles(position="fixed"),
                styles(border="2px", padding="4px"),
                styles(),
                [],  # a text node has no computed styles
            ],
        },
    }
    child: dict[str, Any] = {
        "frameId": s("F-child"),
        "scrollOffsetX": 3,
        "scrollOffsetY": 0,
        "nodes": {
            "parentIndex": [-1, 0],
            "nodeName": [s("HTML"), s("BUTTON")],
            "backendNodeId": [20, 21],
        },
        "layout": {
            "nodeIndex": [0, 1],
            "bounds": [[0, 0, 300, 200], [1, 2, 3, 4]],
            "styles": [styles(), styles()],
        },
    }
    return json.dumps({"documents": [top, child], "strings": STRINGS}).encode()


def test_documents_boxes_and_scroll() -> None:
    top, child = decode_layout(answer())
    assert (top.frame_id, child.frame_id) == ("F-top", "F-child")
    assert top.scroll == (0, 25) and child.scroll == (3, 0)
    assert top.boxes[4] == (20, 20, 50, 30)
    assert top.boxes[9] == (5, 405, 45, 420)  # text nodes have boxes too
    assert child.boxes[21] == (1, 2, 4, 6)


def test_overflow_clips_and_fixed_escapes() -> None:
    top, _ = decode_layout(answer())
    # HTML and BODY never clip: the DIV itself is not clipped.
    assert 3 not in top.clips
    assert top.clips[4] == (20, 20, 50, 30)  # inside the div
    assert top.clips[5] is None  # below the div's bottom edge
    assert 6 not in top.clips  # position: fixed escapes the div
    assert 9 not in top.clips


def test_iframe_content_box_and_child_document() -> None:
    top, _ = decode_layout(answer())
    # 2px border and 4px padding on every side of the 312 x 212 box.
    assert top.frame_boxes == {7: (206, 106, 506, 306)}
    assert top.children == {7: "F-child"}


def test_intersect() -> None:
    assert intersect((0, 0, 10, 10), (5, 5, 20, 20)) == (5, 5, 10, 10)
    assert intersect((0, 0, 10, 10), (10, 0, 20, 10)) is None
    assert intersect((0, 0, 10, 10), (0, 0, 10, 0)) is None
