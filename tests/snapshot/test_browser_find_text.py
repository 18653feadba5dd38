"""Tab.find, text(id) of merged lines and text_limit in a real Chromium.

Top level and inside a cross-origin (out-of-process) iframe.
"""

from __future__ import annotations

import pytest
from _server import PageServer

from kobrowser import Browser, InvalidArgumentError
from kobrowser.snapshot import parse_snapshot

from ._browser_helpers import assert_consistent, page
from .conftest import OpenTab

pytestmark = pytest.mark.anyio

LONG = (
    "Solve for x in the equation below, then enter the answer in the field that follows "
    "and press the button to check it"
)
assert len(LONG) > 80

BODY = (
    "<p>Solve for <b>x</b> in the equation below, then enter the answer in the field that "
    "follows and press the button to check it</p>"
    "<p>Hello <b>world</b>!</p>"
    "<button onclick=\"this.textContent = 'Checked'\">Check the answer</button>"
    "<button>check later</button>"
    "<a href='#more'>More about equations</a>"
    "<input aria-label='Answer' value='forty-two'>"
)


async def test_text_of_a_merged_line_is_the_whole_line(
    server: PageServer, open_tab: OpenTab
) -> None:
    url = server.set_page("/find-text.html", page(BODY))
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        assert f'text "{LONG[:77]}..."' in snap.text
        [line] = [e for e in snap.id_map.values() if e.role == "text" and "Solve" in e.name]
        assert line.name == LONG  # the id map holds it whole
        assert await tab.text(line.id) == LONG  # every piece, not 'Solve for '
        [hello] = [e for e in snap.id_map.values() if e.name == "Hello world!"]
        assert await tab.text(hello.id) == "Hello world!"
        # An element's text is its rendered text.
        [button] = await tab.find(role="button", name="check the answer")
        assert await tab.text(button.id) == "Check the answer"
        assert await tab.browser.text(button.id) == "Check the answer"


async def test_text_of_a_line_in_a_cross_origin_frame(
    server: PageServer, open_tab: OpenTab
) -> None:
    server.set_page("/find-inner.html", page(BODY, title="Inner"))
    url = server.set_page(
        "/find-outer.html",
        page(
            f'<iframe title="Inner" src="{server.cross_url("/find-inner.html")}"></iframe>',
            title="Outer",
        ),
    )
    async with open_tab(url) as tab:
        for _ in range(300):  # the frame may still be loading (loaded machine)
            found = await tab.find(text="solve for x")
            if found:
                break
            await tab.wait(100)
        [line] = found
        assert line.name == LONG and line.depth == 1
        assert line.frame_id != tab.last_snapshot.nodes[0].frame_id  # type: ignore[union-attr]
        assert await tab.text(line.id) == LONG
        [button] = await tab.find(role="button", name="Check the answer", exact=True)
        await tab.click(button.id)
        [checked] = await tab.find(role="button", name="checked")
        assert checked.name == "Checked" and checked.frame_id == line.frame_id


async def test_find(server: PageServer, open_tab: OpenTab) -> None:
    url = server.set_page("/find.html", page(BODY))
    async with open_tab(url) as tab:
        buttons = await tab.find(role="button")
        assert [b.name for b in buttons] == ["Check the answer", "check later"]
        # A fresh snapshot each time, its ids the ones actions use.
        snap = tab.last_snapshot
        assert snap is not None
        assert all(snap.id_map[b.id] is b for b in buttons)
        assert [b.name for b in await tab.find(role="button", name="CHECK")] == [
            "Check the answer",
            "check later",
        ]
        # A text line's name is its text.
        assert [b.role for b in await tab.find(name="CHECK")] == ["text", "button", "button"]
        assert [b.name for b in await tab.find(name="check later", exact=True)] == ["check later"]
        assert await tab.find(name="Check Later", exact=True) == []
        # Whole names, not the printed ones (cut at 80).
        [line] = await tab.find(text="press the button to check it")
        assert line.role == "text" and line.name == LONG
        # text= is the text a line shows: its name or its value.
        [answer] = await tab.find(text="forty-two")
        assert answer.role == "textbox" and answer.name == "Answer"
        [link] = await tab.find(role="link", text="equations")
        assert link.name == "More about equations"
        assert await tab.find(role="link", name="nothing like this") == []
        before = tab.last_snapshot
        with pytest.raises(ValueError, match="at least one of role, name or text"):
            await tab.find()
        assert tab.last_snapshot is before  # checked before any snapshot
        await tab.click(buttons[0].id)
        [checked] = await tab.browser.find(role="button", name="checked")
        assert checked.name == "Checked"


async def test_text_limit(server: PageServer, open_tab: OpenTab) -> None:
    url = server.set_page("/find-limit.html", page(BODY, title=LONG))
    async with open_tab(url) as tab:
        whole = await tab.snapshot(text_limit=None)
        assert f'Page: "{LONG}"' in whole.text
        assert f'text "{LONG}"' in whole.text
        parsed = parse_snapshot(whole.text, text_limit=None)
        assert [line.name for line in parsed.lines] == [
            e.name or None for e in whole.id_map.values()
        ]
        with pytest.raises(ValueError):
            parse_snapshot(whole.text)  # longer than 80: not the default grammar
        short = await tab.snapshot(text_limit=12)
        assert 'text "Solve for..."' in short.text
        assert 'textbox "Answer" value="forty-"' not in short.text
        assert 'textbox "Answer" value="fort..."' in short.text  # 12 * 5 // 8 = 7
        assert parse_snapshot(short.text, text_limit=12).lines
        # The limit changes no line and no id; the id map holds whole names.
        assert [(e.id, e.role, e.name) for e in short.id_map.values()] == [
            (e.id, e.role, e.name) for e in whole.id_map.values()
        ]
        default = await tab.snapshot()
        assert_consistent(default)
        assert f'text "{LONG[:77]}..."' in default.text
        for bad in (3, 0, -1, 4.0, "80", True):
            with pytest.raises(InvalidArgumentError, match="text_limit: got"):
                await tab.snapshot(text_limit=bad)  # type: ignore[arg-type]
        assert tab.last_snapshot is default


async def test_browser_methods_reach_the_current_tab(
    browser: Browser, server: PageServer, open_tab: OpenTab
) -> None:
    url = server.set_page("/find-browser.html", page(BODY))
    async with open_tab(url) as tab:
        await browser.switch_to(tab)
        snap = await browser.snapshot(text_limit=None, clickable=False)
        assert f'text "{LONG}"' in snap.text
        [button] = await browser.find(role="button", name="later")
        assert tab.last_snapshot is not None and tab.last_snapshot.id_map[button.id] is button
