"""Every tool maps onto the library: navigation, element actions, waits, tabs, notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _server import PageServer
from mcp import Client

from kobrowser import Browser
from kobrowser.mcp import build_server

from .conftest import call, find_id

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("tabs_closed")]

CONTROLS = """<!doctype html><title>Controls</title>
<h1>Controls</h1>
<p id="about">Everything a tool can do, on one page.</p>
<select aria-label="Size"><option>Small</option><option value="l">Large</option></select>
<label><input type="checkbox"> Gift wrap</label>
<input aria-label="Search"
  onkeydown="if (event.key === 'Enter') document.title = 'searched ' + this.value">
<button ondblclick="this.textContent = 'Double clicked'">Double me</button>
<button onmouseenter="this.textContent = 'Hovered'">Hover me</button>
<button onmousedown="window.dragging = true">Drag me</button>
<button onmouseup="if (window.dragging) this.textContent = 'Dropped'">Drop here</button>
<button onclick="alert('Saved')">Save</button>
<button onclick="window.open('/second.html')">Pop up</button>
<input type="file" aria-label="Attachment" onchange="document.title = this.files[0].name">
<div style="height: 3000px"></div>
<button>Far away</button>
"""

SECOND = """<!doctype html><title>Second</title>
<h1>Second page</h1><a href="/controls.html">Back home</a>"""


@pytest.fixture
def pages(server: PageServer) -> PageServer:
    server.set_page("/controls.html", CONTROLS)
    server.set_page("/second.html", SECOND)
    return server


async def test_element_actions(browser: Browser, pages: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        page = await call(client, "open", url=pages.url("/controls.html"))

        size = find_id(page, r'^combobox "Size"')
        page = await call(client, "select", id=size, values=["Large"])
        assert page.startswith(f"Selected in {size}.\n")
        assert find_id(page, r'^combobox "Size" value="Large"') == size

        wrap = find_id(page, r'^checkbox "Gift wrap"$')
        page = await call(client, "check", id=wrap)
        assert find_id(page, r'^checkbox "Gift wrap" .*checked') == wrap
        page = await call(client, "uncheck", id=wrap)
        assert find_id(page, r'^checkbox "Gift wrap"( focused)?$') == wrap

        search = find_id(page, r'^textbox "Search"')
        await call(client, "type", id=search, text="shoes")
        page = await call(client, "press", key="Enter")
        assert page.startswith("Pressed Enter.\n") and 'Page: "searched shoes"' in page

        page = await call(client, "dblclick", id=find_id(page, r'^button "Double me"'))
        assert 'button "Double clicked"' in page
        page = await call(client, "hover", id=find_id(page, r'^button "Hover me"'))
        assert 'button "Hovered"' in page
        source, target = find_id(page, r'^button "Drag me"'), find_id(page, r'^button "Drop here"')
        page = await call(client, "drag", source=source, target=target)
        assert page.startswith(f"Dragged {source} to {target}.\n") and 'button "Dropped"' in page


async def test_reading_and_scrolling(browser: Browser, pages: PageServer) -> None:
    async with Client(build_server(browser, snapshot="full", allow_evaluate=True)) as client:
        page = await call(client, "open", url=pages.url("/controls.html"))
        about = find_id(page, r"^text \"Everything a tool")
        assert await call(client, "text", id=about) == "Everything a tool can do, on one page."
        assert await call(client, "evaluate", expression="[1, 'a', null]") == '[1, "a", null]'
        assert json.loads(await call(client, "evaluate", expression="window.scrollY")) == 0
        thrown = await call(client, "evaluate", expression="nope.nope", error=True)
        assert "nope is not defined" in thrown

        page = await call(client, "scroll", direction="down", pixels=700)
        assert page.startswith("Scrolled down 700 px.\n")
        assert json.loads(await call(client, "evaluate", expression="window.scrollY")) > 0
        await call(client, "scroll", direction="up", pixels=5000)
        assert json.loads(await call(client, "evaluate", expression="window.scrollY")) == 0
        far = find_id(page, r'^button "Far away"')
        page = await call(client, "scroll", id=far)
        assert page.startswith(f"Scrolled {far} into view.\n")
        assert json.loads(await call(client, "evaluate", expression="window.scrollY")) > 1000


async def test_waits(browser: Browser, pages: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=pages.url("/controls.html"))
        text = await call(client, "wait_for", text="on one page")
        assert text.startswith("Text 'on one page' is on the page.\nURL: ")
        assert (await call(client, "wait_for", selector="h1")).startswith("'h1' is visible.")
        assert (await call(client, "wait_for", url="**/controls.html")).startswith("Reached ")
        assert (await call(client, "wait_for", time=0.05)).startswith("Waited 0.05 s.")
        assert await call(client, "wait_for", text="x", time=1, error=True) == (
            "wait_for needs exactly one of text, selector, url, time"
        )


async def test_history(browser: Browser, pages: PageServer) -> None:
    first, second = pages.url("/controls.html"), pages.url("/second.html")
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=first)
        assert (await call(client, "open", url=second)).startswith(f"Opened {second}.")
        page = await call(client, "back")
        assert page.startswith(f"Went back to {first}.\nURL: {first}\n")
        assert (await call(client, "forward")).startswith(f"Went forward to {second}.")
        assert (await call(client, "forward")).startswith("There is no page to go forward to.")
        missing = await call(client, "open", url=pages.url("/missing.html"))
        assert missing.startswith(f"Opened {pages.url('/missing.html')} (HTTP 404")


async def test_tabs(browser: Browser, pages: PageServer) -> None:
    first, second = pages.url("/controls.html"), pages.url("/second.html")
    async with Client(build_server(browser)) as client:
        assert await call(client, "tabs") == "No tab is open."
        await call(client, "open", url=first)
        page = await call(client, "tabs", action="new", url=second)
        assert page.startswith(f"Opened tab 2.\nURL: {second}\n")
        assert await call(client, "tabs", action="list") == (
            f'  1: {first} "Controls"\n* 2: {second} "Second"'
        )
        page = await call(client, "tabs", action="switch", index=1)
        assert page.startswith(f"Switched to tab 1.\nURL: {first}\n")
        assert browser.tab.url == first
        assert await call(client, "tabs", action="switch", index=3, error=True) == (
            "there is no tab 3: 2 open"
        )
        page = await call(client, "tabs", action="close")
        assert page.startswith(f"Closed tab 1; tab 1 is current.\nURL: {second}\n")
        assert (
            await call(client, "tabs", action="close", index=1) == "Closed tab 1.\nNo tab is open."
        )
        assert browser.tabs == []


async def test_popups_and_dialogs_are_reported(browser: Browser, pages: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        page = await call(client, "open", url=pages.url("/controls.html"))
        page = await call(client, "click", id=find_id(page, r'^button "Save"'))
        assert 'The page showed a dialog (alert, accepted): "Saved"' in page.splitlines()[1]
        clicked = await call(client, "click", id=find_id(page, r'^button "Pop up"'))
        assert 'Page: "Controls"' in clicked  # still the current tab
        # The popup is set up in the background: told of now or in the next reply.
        await browser.wait_for_tab()
        later = await call(client, "wait_for", time=0)
        assert (clicked + later).count("The page opened tab") == 1
        [note] = [
            line
            for line in clicked.splitlines()[1:2] + later.splitlines()[1:2]
            if line.startswith("The page opened tab 2: ")
        ]
        assert note.endswith(" (tabs switch to use it)")
        assert "The page opened" not in await call(client, "wait_for", time=0)


async def test_upload_only_from_the_allowed_directory(
    browser: Browser, pages: PageServer, tmp_path: Path
) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "report.txt").write_text("hello")
    (tmp_path / "secret.txt").write_text("no")
    (allowed / "link.txt").symlink_to(tmp_path / "secret.txt")
    async with Client(build_server(browser)) as client:
        page = await call(client, "open", url=pages.url("/controls.html"))
        field = find_id(page, r'^button "Attachment"')
        off = await call(
            client, "upload", id=field, paths=[str(allowed / "report.txt")], error=True
        )
        assert off.startswith("file upload is off: the server must be started with")
    async with Client(build_server(browser, upload_dir=allowed)) as client:
        page = await call(client, "snapshot")
        field = find_id(page, r'^button "Attachment"')
        for path in (str(tmp_path / "secret.txt"), "link.txt", "../secret.txt"):
            refused = await call(client, "upload", id=field, paths=[path], error=True)
            assert refused.startswith(f"upload refused: {path} is outside the directory"), refused
        page = await call(client, "upload", id=field, paths=["report.txt"])
        assert page.startswith(f"Uploaded 1 file(s) to {field}.\n")
        assert 'Page: "report.txt"' in page
