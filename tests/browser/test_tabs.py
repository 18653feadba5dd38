"""Tabs, popups, dialogs and downloads over one browser."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import anyio
import pytest
from _server import PageServer
from aiohttp import web

import kobrowser
from kobrowser import Browser, Dialog, DownloadError, Tab, WaitTimeoutError

# Not about the backend: `scripts/test.sh --fast` runs these on trio only (CI: both).
pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]


@pytest.fixture(scope="module")
async def browser(
    anyio_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Browser]:
    downloads = tmp_path_factory.mktemp("downloads")
    async with kobrowser.launch(timeout=60, download_dir=downloads) as b:
        yield b


async def _gesture(tab: Tab, expression: str) -> None:
    """Evaluate with a user gesture (popups need one, like a real click)."""
    await tab.cdp.send("Runtime.evaluate", {"expression": expression, "userGesture": True})


# -- tabs -------------------------------------------------------------------------


async def test_tabs_current_switch_and_close(browser: Browser, server: PageServer) -> None:
    one = await browser.new_tab(server.set_page("/one.html", "<title>One</title>"))
    two = await browser.new_tab(server.set_page("/two.html", "<title>Two</title>"))
    try:
        assert browser.tabs[-2:] == [one, two]
        assert browser.tab is two
        await browser.switch_to(one)
        assert browser.tab is one
        assert browser.current_tab is one  # the alias names the same tab
        assert await one.evaluate("document.visibilityState") == "visible"

        await one.close()
        assert one.closed and one not in browser.tabs
        assert browser.tab is not one
        # The other tab is untouched.
        assert await two.title() == "Two"
        await two.open(server.set_page("/two-b.html", "<title>Two B</title>"))
        assert await two.title() == "Two B"
        with pytest.raises(kobrowser.TargetClosedError):
            await browser.switch_to(one)
    finally:
        await one.close()
        await two.close()


async def test_tabs_have_their_own_state(browser: Browser, server: PageServer) -> None:
    a = await browser.new_tab(server.set_page("/sa.html", "<title>A</title><button>Alpha</button>"))
    b = await browser.new_tab(server.set_page("/sb.html", "<title>B</title><button>Beta</button>"))
    try:
        snap_a, snap_b = await a.snapshot(), await b.snapshot()
        assert "Alpha" in snap_a.text and "Beta" not in snap_a.text
        assert "Beta" in snap_b.text and "Alpha" not in snap_b.text
        assert a.last_snapshot is snap_a and b.last_snapshot is snap_b
        assert (a.url, b.url) == (server.url("/sa.html"), server.url("/sb.html"))
    finally:
        await a.close()
        await b.close()


# -- popups -----------------------------------------------------------------------


async def test_window_open_popup_becomes_a_tab(browser: Browser, server: PageServer) -> None:
    server.set_page("/popup.html", "<title>Popup</title><p>in the popup</p>")
    opener = await browser.new_tab(server.set_page("/opener.html", "<title>Opener</title>"))
    try:
        await _gesture(opener, "window.open('/popup.html'), 1")
        popup = await browser.wait_for_tab()
        await popup.wait_for_load()
        assert popup in browser.tabs
        assert popup.opener is opener
        assert popup.url == server.url("/popup.html")
        assert await popup.title() == "Popup"
        assert browser.tab is opener  # a popup does not steal the current tab
        await popup.close()
        assert await opener.title() == "Opener"
    finally:
        await opener.close()


async def test_target_blank_popup_with_a_cross_site_frame(
    browser: Browser, server: PageServer
) -> None:
    server.set_page("/blank-frame.html", "<button>Inside the frame</button>")
    server.set_page(
        "/blank-target.html",
        f"<title>Target</title><iframe src='{server.cross_url('/blank-frame.html')}'></iframe>",
    )
    opener = await browser.new_tab(
        server.set_page("/blank.html", "<a href='/blank-target.html' target=_blank>go</a>")
    )
    try:
        await _gesture(opener, "document.querySelector('a').click()")
        popup = await browser.wait_for_tab()
        await popup.wait_for_load()
        assert await popup.title() == "Target"
        # The popup's frame registry follows its out-of-process frame.
        assert len(popup._frames.frames()) == 1
        assert "Inside the frame" in (await popup.snapshot()).text
        await popup.close()
    finally:
        await opener.close()


async def test_wait_for_tab_times_out(browser: Browser) -> None:
    with pytest.raises(WaitTimeoutError):
        await browser.wait_for_tab(timeout=0.3)


# -- dialogs ----------------------------------------------------------------------


async def test_dialogs_are_accepted_and_recorded(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/dialogs.html", "<p>x</p>"))
    try:
        assert await tab.evaluate("alert('hi'), 'after'") == "after"
        assert await tab.evaluate("confirm('sure?')") is True
        assert await tab.evaluate("prompt('name?', 'default')") == ""
        kinds = [(d.type, d.message, d.accepted) for d in tab.dialogs.opened]
        assert kinds == [
            ("alert", "hi", True),
            ("confirm", "sure?", True),
            ("prompt", "name?", True),
        ]
        assert tab.dialogs.opened[2].default_prompt == "default"
    finally:
        await tab.close()


async def test_dialogs_of_a_cross_origin_frame_are_handled(
    browser: Browser, server: PageServer
) -> None:
    # The frame's own session has Page events enabled (for the snapshot's
    # frame-tree cache); its dialogs must still reach the tab and never block.
    server.set_page("/dialog-frame.html", "<title>F</title><p>frame</p>")
    frame_url = server.cross_url("/dialog-frame.html")
    tab = await browser.new_tab(
        server.set_page("/dialog-top.html", f"<title>T</title><iframe src='{frame_url}'></iframe>")
    )
    try:
        await tab.snapshot()
        [frame] = tab._frames.frames()
        assert tab._frames.frame_tree_version(frame.session) is not None
        answer = await frame.session.send(
            "Runtime.evaluate",
            {"expression": "[alert('from the frame'), confirm('ok?'), prompt('name?')]"},
            timeout=30,
        )
        assert answer["result"]["type"] == "object"
        kinds = [(d.type, d.message, d.accepted) for d in tab.dialogs.opened]
        assert kinds == [
            ("alert", "from the frame", True),
            ("confirm", "ok?", True),
            ("prompt", "name?", True),
        ]
    finally:
        await tab.close()


async def test_beforeunload_is_accepted(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(
        server.set_page(
            "/unload.html",
            "<script>addEventListener('beforeunload', (e) => { e.preventDefault();"
            " e.returnValue = 'stay'; });</script><p>x</p>",
        )
    )
    try:
        leave = server.set_page("/left.html", "<title>Left</title>")
        # A gesture arms beforeunload; the navigation it starts asks first.
        await _gesture(tab, "1")
        await _gesture(tab, f"location.href = {leave!r}")
        await tab.wait_for_url(leave)
        assert [d.type for d in tab.dialogs.opened] == ["beforeunload"]
        assert await tab.title() == "Left"
    finally:
        await tab.close()


async def test_on_dialog_handler_decides(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/handler.html", "<p>x</p>"))
    seen: list[str] = []

    async def handler(dialog: Dialog) -> None:
        seen.append(dialog.message)
        if dialog.type == "prompt":
            await dialog.accept("Ada")
        elif dialog.type == "confirm":
            await dialog.dismiss()

    try:
        tab.dialogs.handle(handler)
        assert await tab.evaluate("prompt('name?')") == "Ada"
        assert await tab.evaluate("confirm('delete?')") is False
        assert await tab.evaluate("alert('left open'), 1") == 1  # accepted by default
        assert seen == ["name?", "delete?", "left open"]
        assert [d.accepted for d in tab.dialogs.opened] == [True, False, True]

        def broken(dialog: Dialog) -> None:
            raise RuntimeError("handler bug")

        tab.dialogs.handle(broken)
        assert await tab.evaluate("confirm('still?')") is True  # never blocks
        tab.dialogs.handle(None)
        assert await tab.evaluate("confirm('default?')") is True
    finally:
        await tab.close()


async def test_dialogs_wait_returns_the_next_dialog_once_handled(
    browser: Browser, server: PageServer
) -> None:
    tab = await browser.new_tab(server.set_page("/wait-dialog.html", "<p>x</p>"))
    try:
        await tab.evaluate("alert('before')")  # an earlier dialog is not the next one
        tab.dialogs.handle(lambda dialog: dialog.dismiss())
        async with anyio.create_task_group() as group:
            waited: list[Dialog] = []

            async def wait() -> None:
                waited.append(await tab.dialogs.wait(timeout=30))

            group.start_soon(wait)  # it starts before the dialog opens (Chrome answers later)
            assert await tab.evaluate("confirm('next?')") is False
        [dialog] = waited
        assert (dialog.message, dialog.handled, dialog.accepted) == ("next?", True, False)
        assert [d.message for d in tab.dialogs.opened] == ["before", "next?"]
        with pytest.raises(WaitTimeoutError, match=r"no dialog opened within 0\.2 s"):
            await tab.dialogs.wait(timeout=0.2)
    finally:
        await tab.close()


# -- downloads --------------------------------------------------------------------


async def test_download_completes(browser: Browser, server: PageServer) -> None:
    server.set_page(
        "/report.csv",
        "a,b\n1,2\n",
        content_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="report.csv"'},
    )
    tab = await browser.new_tab(
        server.set_page("/dl.html", "<a href='/report.csv' download>get</a>")
    )
    try:
        await tab.evaluate("document.querySelector('a').click()")
        download = await browser.wait_for_download(tab=tab)
        assert download.url == server.url("/report.csv")
        path = await download.wait()
        assert path.name == "report.csv"
        assert await anyio.Path(path).read_text() == "a,b\n1,2\n"
        assert download.state == "completed" and download in browser.downloads

        # A second one with the same name gets a free name.
        await tab.evaluate("document.querySelector('a').click()")
        again = await (await browser.wait_for_download()).wait()
        assert again != path and again.parent == path.parent
        assert await anyio.Path(again).read_text() == "a,b\n1,2\n"
    finally:
        await tab.close()


async def test_canceled_download_raises_download_error(
    browser: Browser, server: PageServer
) -> None:
    async def endless(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "application/octet-stream",
                "Content-Disposition": 'attachment; filename="big.bin"',
                "Content-Length": str(100 * 1024 * 1024),
            }
        )
        await response.prepare(request)
        try:
            for _ in range(600):  # stops when Chrome drops the connection
                await response.write(b"x" * 1024)
                await asyncio.sleep(0.05)
        except ConnectionError:
            pass
        return response

    server.set_route("/big.bin", endless)
    tab = await browser.new_tab(server.set_page("/big.html", "<a href='/big.bin'>get</a>"))
    try:
        await tab.evaluate("document.querySelector('a').click()")
        download = await browser.wait_for_download(tab=tab)
        assert download.state == "in_progress"
        await browser.cdp.send("Browser.cancelDownload", {"guid": download.guid})
        with pytest.raises(DownloadError, match="canceled") as caught:
            await download.wait(timeout=30)
        assert caught.value.url == server.url("/big.bin") == download.url
        assert caught.value.state == "canceled" == download.state
        assert download.path is None
    finally:
        await tab.close()
