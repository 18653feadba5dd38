"""The tab's screencast against real Chromium: frames are JPEG images of the
viewport that change when the page does, watchers share Chrome's one
screencast, and a watch ends cleanly when the tab closes; JPEG headers and bad
input without a browser."""

from __future__ import annotations

import io

import anyio
import pytest
from _server import PageServer
from PIL import Image

from kobrowser import Browser, InvalidArgumentError, ScreencastFrame, TargetClosedError
from kobrowser._tab._capture._screencast import jpeg_size

pytestmark = pytest.mark.anyio

# The page turns red, then green on each click; an animation runs while #spin exists.
COLOURS = (
    "<!doctype html><title>cast</title>"
    "<body style='margin:0;background:rgb(220,20,20)' "
    "onclick=\"document.body.style.background='rgb(20,200,40)'\">"
    "<p style='font-size:40px'>screencast</p></body>"
)
ANIMATED = (
    "<!doctype html><title>anim</title><body style='margin:0'><div id=spin></div><script>"
    "let n = 0; function tick() { n = (n + 7) % 255;"
    "document.body.style.background = `rgb(${n},${255 - n},90)`;"
    "requestAnimationFrame(tick); } requestAnimationFrame(tick);</script></body>"
)


PAINTED = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def _pixel(frame: ScreencastFrame) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(frame.data))
    assert image.format == "JPEG"
    assert image.size == (frame.width, frame.height)
    red, green, blue = image.convert("RGB").getpixel((frame.width // 2, frame.height - 5))
    return red, green, blue


def _jpeg(width: int, height: int, progressive: bool = False) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (1, 2, 3)).save(out, "JPEG", progressive=progressive)
    return out.getvalue()


def test_jpeg_size_reads_the_frame_header() -> None:
    assert jpeg_size(_jpeg(321, 123)) == (321, 123)
    assert jpeg_size(_jpeg(64, 48, progressive=True)) == (64, 48)
    assert jpeg_size(b"\x89PNG\r\n\x1a\n") == (0, 0)
    assert jpeg_size(_jpeg(10, 10)[:20]) == (0, 0)  # cut before the frame header
    assert jpeg_size(b"") == (0, 0)


async def test_frames_show_the_page_and_change_with_it(
    browser: Browser, server: PageServer
) -> None:
    tab = await browser.new_tab(server.set_page("/cast.html", COLOURS))
    try:
        await tab.set_viewport(640, 360)
        await tab.evaluate(PAINTED)  # Chrome's first frame is the last one painted
        async with tab.screencast(quality=90) as cast:
            first = await anext(cast)
            assert first.data.startswith(b"\xff\xd8")
            assert (first.width, first.height) == (640, 360)
            assert (first.device_width, first.device_height) == (640, 360)
            assert first.timestamp > 1_600_000_000  # seconds since the epoch
            red = _pixel(first)
            assert red[0] > 180 and red[1] < 80, red
            await tab.evaluate("document.body.click()")
            async for frame in cast:
                colour = _pixel(frame)
                if colour[1] > 150:
                    break
            assert colour[0] < 80, colour
            assert frame.timestamp >= first.timestamp
            assert cast.latest is frame
    finally:
        await tab.close()


async def test_the_screencast_goes_on_across_a_cross_site_navigation(
    browser: Browser, server: PageServer
) -> None:
    server.set_page("/cast.html", COLOURS)
    tab = await browser.new_tab(server.url("/cast.html"))
    try:
        async with tab.screencast() as cast:
            assert _pixel(await anext(cast))[0] > 180  # red
            await tab.open(server.cross_url("/cast.html"))  # another site: another renderer
            await tab.evaluate("document.body.click()")
            async for frame in cast:
                if _pixel(frame)[1] > 150:  # green: painted by the new page
                    break
            assert not cast.ended
    finally:
        await tab.close()


async def test_max_size_scales_the_frames(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/cast.html", COLOURS))
    try:
        await tab.set_viewport(800, 400)
        await tab.evaluate(PAINTED)
        async with tab.screencast(max_width=400, max_height=400) as cast:
            frame = await anext(cast)
            assert (frame.width, frame.height) == (400, 200)  # the aspect ratio kept
            assert (frame.device_width, frame.device_height) == (800, 400)
    finally:
        await tab.close()


async def test_watchers_share_one_screencast(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/anim.html", ANIMATED))
    hub = tab._screencast
    try:
        async with tab.screencast(max_width=200) as small:
            assert await anext(small)
            async with tab.screencast(max_width=400, buffer=2) as large:
                assert hub.watching == 2
                # The more demanding watcher's size wins, for both.
                for _ in range(10):
                    frame = await anext(large)
                    if frame.width == 400:
                        break
                assert frame.width == 400
                # `small` reads nothing meanwhile: it keeps the newest 4, loses the rest.
                dropped = small.dropped
                read = [await anext(large) for _ in range(8)]
                assert small.dropped >= dropped + 4
                assert [await anext(small) for _ in range(4)] == read[-4:]
                assert small.latest is read[-1]
            assert hub.watching == 1
            assert large.ended and not small.ended
            assert [f async for f in large] == []  # a left watch yields nothing
            before = small.latest
            assert await anext(small) is not before
        assert hub.watching == 0
        assert hub._params is None  # Chrome's screencast was stopped
        # A new watch starts it again.
        async with tab.screencast() as again:
            assert (await anext(again)).width > 0
    finally:
        await tab.close()


async def test_closing_the_tab_ends_the_watch(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/anim.html", ANIMATED))
    seen = 0
    async with tab.screencast() as cast:
        async for _ in cast:
            seen += 1
            if seen == 3:
                await tab.close()
        assert cast.ended
    assert seen >= 3
    with pytest.raises(TargetClosedError):
        async with tab.screencast():
            pass


async def test_max_fps_paces_the_frames(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/anim.html", ANIMATED))
    try:
        async with tab.screencast(max_fps=10) as cast:
            await anext(cast)
            start = anyio.current_time()
            for _ in range(8):
                await anext(cast)
            # Chrome keeps two frames in flight, so 8 frames need >= 6 answers 0.1 s apart.
            assert anyio.current_time() - start >= 0.55
    finally:
        await tab.close()


async def test_cancelled_reader_leaves_the_screencast_working(
    browser: Browser, server: PageServer
) -> None:
    tab = await browser.new_tab(server.set_page("/anim.html", ANIMATED))
    try:
        async with tab.screencast(max_fps=20) as cast:
            for _ in range(5):
                with anyio.move_on_after(0.01):
                    await anext(cast)
            # Still answered: frames keep coming.
            for _ in range(3):
                with anyio.fail_after(30):
                    await anext(cast)
    finally:
        await tab.close()


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        ({"quality": 101}, "quality"),
        ({"quality": True}, "quality"),
        ({"max_width": 0}, "max_width"),
        ({"max_height": 1.5}, "max_height"),
        ({"max_fps": 0}, "max_fps"),
        ({"buffer": 0}, "buffer"),
        ({"timeout": -1}, "timeout"),
    ],
)
async def test_bad_options_are_refused(
    browser: Browser, options: dict[str, object], argument: str
) -> None:
    tab = await browser.new_tab()
    try:
        with pytest.raises(InvalidArgumentError) as caught:
            async with tab.screencast(**options):  # type: ignore[arg-type]
                pass
        assert caught.value.argument == argument
        assert tab._screencast.watching == 0
    finally:
        await tab.close()
