"""Issue 10's shapes in a real Chromium: every element Chrome keeps ends a text
run, clickable and focusable elements get a line (docs/snapshot-format.md).

Each shape is checked top-level and inside a cross-origin (out-of-process)
iframe: the exact snapshot, then an action on each of its ids, which must
reach the element's handler. Handlers write ``fired <what>`` into the page's
log paragraph, so the effect is read back from a new snapshot (in a
cross-origin frame too).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser._tab._snapshot import Snapshot

from ._browser_helpers import assert_consistent, page
from .conftest import OpenTab

pytestmark = pytest.mark.anyio

LOG = (
    "<p id=log></p><script>function log(what) {"
    " document.getElementById('log').textContent += ' fired ' + what; }</script>"
)


@dataclass(frozen=True)
class Shape:
    body: str
    expected: str  # the numbered lines, relative indent, without ids
    # (line as printed without its id, how: "click" or a key to press after focus,
    #  what the handler logs)
    acts: tuple[tuple[str, str, str], ...] = ()


SHAPES = {
    "inline span with a listener": Shape(
        "<div>Intro text of an unrelated div.</div>"
        "<p>Faucibus libero <span class=alink id=s>massa</span> nec.</p>"
        "<script>document.getElementById('s').addEventListener('click', () => log('massa'))"
        "</script>",
        """
        text "Intro text of an unrelated div."
        text "Faucibus libero"
        generic "massa" clickable
        text "nec."
        """,
        (('generic "massa" clickable', "click", "massa"),),
    ),
    "cursor pointer rows with a delegated handler": Shape(
        "<style>.row, .tag { cursor: pointer }</style>"
        "<ul id=list><li><div class=row>Row one</div></li><li><div class=row>Row two</div></li>"
        "</ul><p id=tags>Tags: <span class=tag>alpha</span> <span class=tag>beta</span></p>"
        "<script>for (const id of ['list', 'tags']) document.getElementById(id)"
        ".addEventListener('click', (e) => log(e.target.textContent))</script>",
        """
        list
          listitem
            generic "Row one" clickable
          listitem
            generic "Row two" clickable
        text "Tags:"
        text "alpha" clickable
        text "beta" clickable
        """,
        (
            ('generic "Row one" clickable', "click", "Row one"),
            ('generic "Row two" clickable', "click", "Row two"),
            ('text "alpha" clickable', "click", "alpha"),
            ('text "beta" clickable', "click", "beta"),
        ),
    ),
    "block divs": Shape(
        "<div>block one</div><div>block two</div><div onclick=\"log('div')\">div clickable</div>",
        """
        text "block one"
        text "block two"
        generic "div clickable" clickable
        """,
        (('generic "div clickable" clickable', "click", "div"),),
    ),
    "feed of div rows": Shape(
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
    "empty clickable div": Shape(
        "<div id=sw style='width: 20px; height: 20px; background: red'></div>"
        "<script>document.getElementById('sw').addEventListener('click', () => log('swatch'))"
        "</script>",
        """
        generic "id:sw" clickable
        """,
        (('generic "id:sw" clickable', "click", "swatch"),),
    ),
    "tabindex span driven by arrow keys": Shape(
        "<p>Volume <span tabindex=0 id=knob>5</span></p>"
        "<script>document.getElementById('knob').addEventListener('keydown', (e) => {"
        " if (e.key === 'ArrowRight') { e.target.textContent = +e.target.textContent + 1;"
        " log('right'); } })</script>",
        """
        text "Volume"
        generic "5" focusable
        """,
        (('generic "5" focusable', "ArrowRight", "right"),),
    ),
    "bold stays in the line": Shape(
        "<p>Hello <b>world</b>!</p><p>Hello <em>again</em>, <strong>twice</strong>.</p>",
        """
        text "Hello world!"
        text "Hello again, twice."
        """,
    ),
    "link and button text not repeated": Shape(
        "<a href='#h' onclick=\"log('link')\">Home <b>page</b></a>"
        "<button onclick=\"log('button')\"><span>Add</span> to cart</button>"
        "<h2><a href='#s'>Section</a></h2><h3>Plain <span id=x>heading</span></h3>",
        """
        link "Home page"
        button "Add to cart"
        heading "Section"
          link "Section"
        heading "Plain heading"
        """,
        (('link "Home page"', "click", "link"), ('button "Add to cart"', "click", "button")),
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


def line_id(snap: Snapshot, printed: str) -> int:
    """The id of the one line printed ``printed`` (after ``N: ``)."""
    found = [
        int(line.split(":", 1)[0])
        for line in (raw.strip() for raw in snap.text.splitlines())
        if line[:1].isdigit() and line.split(": ", 1)[1] == printed
    ]
    assert len(found) == 1, (printed, snap.text)
    return found[0]


async def act_on_each(tab: Tab, shape: Shape) -> None:
    """Each act reaches its handler: the log shows it in a new snapshot."""
    fired: list[str] = []
    for printed, how, what in shape.acts:
        snap = await tab.snapshot()
        element = line_id(snap, printed)
        if how == "click":
            await tab.click(element)
        else:
            await tab.focus(element)
            await tab.press(how)
        fired.append(f"fired {what}")
        found = await tab.find(role="text", text=" ".join(fired))
        assert [e.name for e in found] == [" ".join(fired)], (await tab.snapshot()).text


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_shape_top_level(server: PageServer, open_tab: OpenTab, shape: str) -> None:
    case = SHAPES[shape]
    url = server.set_page(f"/runs-{list(SHAPES).index(shape)}.html", page(case.body + LOG))
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert_consistent(snap)
        assert snap.text == 'Page: "T"\n\n' + numbered(case.expected)
        await act_on_each(tab, case)


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_shape_in_a_cross_origin_frame(
    server: PageServer, open_tab: OpenTab, shape: str
) -> None:
    case = SHAPES[shape]
    inner = f"/runs-inner-{list(SHAPES).index(shape)}.html"
    server.set_page(inner, page(case.body + LOG, title="Inner"))
    url = server.set_page(
        f"/runs-outer-{list(SHAPES).index(shape)}.html",
        page(f'<iframe title="Inner" src="{server.cross_url(inner)}"></iframe>', title="Outer"),
    )
    expected = 'Page: "Outer"\n\n1: iframe "Inner"\n' + numbered(case.expected, 2, 1)
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        for _ in range(300):  # the frame's document may still be arriving (loaded machine)
            if snap.text == expected:
                break
            await tab.wait(100)
            snap = await tab.snapshot()
        assert [f.frame_id for f in tab._frames.frames()] != []  # out of process
        assert_consistent(snap)
        assert snap.text == expected
        await act_on_each(tab, case)


async def test_without_the_clickable_map(server: PageServer, open_tab: OpenTab) -> None:
    """``clickable=False``: the text rule and focusable marks only."""
    body = "".join(SHAPES[name].body for name in ("inline span with a listener", "block divs"))
    url = server.set_page("/runs-no-map.html", page(body + LOG + "<p tabindex=0>Focus me</p>"))
    async with open_tab(url) as tab:
        snap = await tab.snapshot(clickable=False)
    assert_consistent(snap)
    assert snap.text == 'Page: "T"\n\n' + numbered(
        """
        text "Intro text of an unrelated div."
        text "Faucibus libero"
        text "massa"
        text "nec."
        text "block one"
        text "block two"
        text "div clickable"
        paragraph "Focus me" focusable
        """
    )
