"""Clickable elements with no text and no role, in a real Chromium (the repro pages).

SVG shapes (absent from Chrome's tree) and empty boxes (ignored there)
whose only signal is ``cursor: pointer`` get a ``clickable`` line
(docs/snapshot-format.md, "Clickable and focusable elements").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _server import PageServer

from .conftest import OpenTab, SnapHtml

pytestmark = pytest.mark.anyio

REPROS = Path(__file__).parent.parent / "pages" / "repros"


def repro(name: str) -> str:
    return (REPROS / name).read_text(encoding="utf-8")


async def test_svg_shapes_and_a_pointer_box_get_lines(snap_html: SnapHtml) -> None:
    snap = await snap_html(repro("svg_pointer.html"))
    assert snap.text == (
        'Page: "svg pointer"\n\n'
        '1: text "Shapes:"\n'
        "2: graphicssymbol clickable\n"
        "3: graphicssymbol clickable\n"
        "4: graphicssymbol clickable\n"
        '5: generic "A" clickable\n'
        "6: generic clickable\n"
        '7: generic "id:swatch" clickable\n'
    )


async def test_an_empty_pointer_div_gets_a_line(snap_html: SnapHtml) -> None:
    snap = await snap_html(repro("div_pointer.html"))
    assert snap.text == 'Page: "div pointer"\n\n1: generic clickable\n'


async def test_a_shape_with_a_listener_is_named_by_its_id(snap_html: SnapHtml) -> None:
    snap = await snap_html(repro("svg_listener.html"))
    assert snap.text == 'Page: "svg listener"\n\n1: graphicssymbol "id:r" clickable\n'


async def test_clicking_a_grafted_shape_reaches_it(server: PageServer, open_tab: OpenTab) -> None:
    url = server.set_page(
        "/hidden-shapes.html",
        "<!doctype html><title>T</title><p>Pick</p>"
        '<svg width="80" height="30" onclick="event.target.dataset.hit = 1">'
        '<rect id="a" x="0" y="0" width="20" height="20" style="cursor:pointer"></rect>'
        '<circle id="b" cx="50" cy="10" r="10" style="cursor:pointer"></circle></svg>',
    )
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert snap.text == (
            'Page: "T"\n\n'
            '1: text "Pick"\n'
            '2: graphicssymbol "id:a" clickable\n'
            '3: graphicssymbol "id:b" clickable\n'
        )
        await tab.click(3)
        hits = await tab.evaluate("[...document.querySelectorAll('[data-hit]')].map(e => e.id)")
        assert hits == ["b"]


async def test_icon_only_controls_are_named_by_file_name(snap_html: SnapHtml) -> None:
    snap = await snap_html(repro("icon_only.html"))
    assert snap.text == (
        'Page: "icon only"\n\n'
        '1: text "Katrina"\n'
        '2: img "file:delete.png" clickable\n'
        '3: img "file:star.png" clickable\n'
    )


async def test_derived_names_fall_back_to_id_then_title(snap_html: SnapHtml) -> None:
    snap = await snap_html(
        "<!doctype html><title>T</title>"
        '<img src="/icons/trash.svg?v=2" onclick="1" style="width:9px;height:9px">'
        '<span id="swatch" style="display:inline-block;width:9px;height:9px;cursor:pointer">'
        "</span>"
        '<span style="display:inline-block;width:9px;height:9px;cursor:pointer"'
        ' data-x="1" onclick="1" title="Pin  this"></span>'
    )
    assert snap.text == (
        'Page: "T"\n\n'
        '1: img "file:trash.svg" clickable\n'
        '2: generic "id:swatch" clickable\n'
        '3: generic "title:Pin this" clickable\n'
    )
