"""Text runs in a real Chromium: every element Chrome keeps ends a run (docs/snapshot-format.md).

Each shape top-level and inside a cross-origin (out-of-process) iframe.
Clickable marks need the clickable map, which the tab's fetch does not pass
yet; these tests show what the text rule alone makes visible, and that
clicking a block's own line reaches the block's handler.
"""

from __future__ import annotations

import textwrap

import pytest
from _server import PageServer

from ._browser_helpers import assert_consistent, page
from .conftest import OpenTab

pytestmark = pytest.mark.anyio

SHAPES = {
    "block divs": (
        "<div>block one</div><div>block two</div>"
        "<div id=go onclick=\"document.title = 'clicked'\">div clickable</div>",
        """
        text "block one"
        text "block two"
        text "div clickable"
        """,
    ),
    "feed of div rows": (
        "<div class=feed>"
        "<div class=post><div><b>Katharyn</b></div><div>Ac. Enim, nisl, no.</div></div>"
        "<div class=post><div><b>Daloris</b></div><div>Tortor sed lorem.</div></div>"
        "</div>",
        """
        text "Katharyn"
        text "Ac. Enim, nisl, no."
        text "Daloris"
        text "Tortor sed lorem."
        """,
    ),
    "bold and emphasis stay in the line": (
        "<p>Hello <b>world</b>!</p><p>Hello <em>again</em>, <strong>twice</strong>.</p>",
        """
        text "Hello world!"
        text "Hello again, twice."
        """,
    ),
    "link and button text not repeated": (
        "<a href='#h'>Home <b>page</b></a><button><span>Add</span> to cart</button>"
        "<h2><a href='#s'>Section</a></h2><h3>Plain <span id=x>heading</span></h3>",
        """
        link "Home page"
        button "Add to cart"
        heading "Section"
          link "Section"
        heading "Plain heading"
        """,
    ),
    "span with a listener in a paragraph": (
        "<p>Faucibus libero <span id=s>massa</span> nec.</p>"
        "<script>document.getElementById('s').addEventListener('click', () => {})</script>",
        """
        text "Faucibus libero"
        text "massa"
        text "nec."
        """,
    ),
}


def numbered(lines: str, start: int = 1, indent: int = 0) -> str:
    """Number ``lines`` (``role ...`` with their relative indent) from ``start``."""
    out = []
    for number, line in enumerate(textwrap.dedent(lines).strip("\n").splitlines(), start):
        body = line.lstrip(" ")
        depth = (len(line) - len(body)) // 2 + indent
        out.append(f"{'  ' * depth}{number}: {body}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_shape_top_level(server: PageServer, open_tab: OpenTab, shape: str) -> None:
    body, expected = SHAPES[shape]
    url = server.set_page(f"/runs-{list(SHAPES).index(shape)}.html", page(body))
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
    assert_consistent(snap)
    assert snap.text == 'Page: "T"\n\n' + numbered(expected)


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_shape_in_a_cross_origin_frame(
    server: PageServer, open_tab: OpenTab, shape: str
) -> None:
    body, expected = SHAPES[shape]
    inner = f"/runs-inner-{list(SHAPES).index(shape)}.html"
    server.set_page(inner, page(body, title="Inner"))
    url = server.set_page(
        f"/runs-outer-{list(SHAPES).index(shape)}.html",
        page(f'<iframe title="Inner" src="{server.cross_url(inner)}"></iframe>', title="Outer"),
    )
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        for _ in range(50):  # the frame's document may still be arriving
            if len(snap.id_map) > 1:
                break
            await tab.wait(100)
            snap = await tab.snapshot()
        assert [f.frame_id for f in tab._frames.frames()] != []  # out of process
    assert_consistent(snap)
    assert snap.text == 'Page: "Outer"\n\n1: iframe "Inner"\n' + numbered(expected, 2, 1)


async def test_clicking_a_blocks_own_line_reaches_its_handler(
    server: PageServer, open_tab: OpenTab
) -> None:
    body, _ = SHAPES["block divs"]
    url = server.set_page("/runs-click.html", page(body))
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        [line] = [e for e in snap.id_map.values() if e.name == "div clickable"]
        await tab.click(line.id)
        assert await tab.evaluate("document.title") == "clicked"
