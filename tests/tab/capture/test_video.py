"""Video of a tab against real Chromium, decoded back with PyAV: the frame count
fits the time recorded (constant rate), the size is the one asked, the frames
change when the page does; a context's videos; bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from _server import PageServer

from kobrowser import Browser, CaptureError, InvalidArgumentError, Tab

av = pytest.importorskip("av")

pytestmark = pytest.mark.anyio

# Red until clicked, then green; a counter in the corner changes with each click.
PAGE = (
    "<!doctype html><title>video</title>"
    "<body style='margin:0;height:100vh;background:rgb(220,20,20)' "
    "onclick=\"document.body.style.background='rgb(20,200,40)'\"></body>"
)
PAINTED = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def _decode(path: Path) -> tuple[list[object], object]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = [frame.to_image() for frame in container.decode(stream)]
        return frames, stream


def _colour(image: object) -> tuple[int, int, int]:
    width, height = image.size  # type: ignore[attr-defined]
    red, green, blue = image.convert("RGB").getpixel((width // 2, height // 2))  # type: ignore[attr-defined]
    return red, green, blue


async def _first_frame(recording: object) -> float:
    with anyio.fail_after(60):
        while recording.frames == 0:  # type: ignore[attr-defined]  # noqa: ASYNC110 (no event for it)
            await anyio.sleep(0.02)
    return anyio.current_time()


async def _tab(browser: Browser, server: PageServer) -> Tab:
    tab = await browser.new_tab(server.set_page("/video.html", PAGE))
    await tab.set_viewport(640, 360)
    await tab.evaluate(PAINTED)
    return tab


@pytest.mark.parametrize("suffix", [".webm", ".mp4"])
async def test_the_video_shows_the_page_at_a_constant_rate(
    browser: Browser, server: PageServer, tmp_path: Path, suffix: str
) -> None:
    tab = await _tab(browser, server)
    try:
        path = tmp_path / f"out{suffix}"
        before_start = anyio.current_time()
        recording = tab.start_video(path, fps=10)
        first = await _first_frame(recording)
        await anyio.sleep(0.8)
        await tab.evaluate("document.body.click()")
        await tab.evaluate(PAINTED)
        await anyio.sleep(0.8)
        before_stop = anyio.current_time()
        assert await recording.stop() == path
        after_stop = anyio.current_time()
        assert recording.done
    finally:
        await tab.close()
    frames, stream = _decode(path)
    assert stream.codec_context.name == ("vp8" if suffix == ".webm" else "h264")  # type: ignore[attr-defined]
    # Constant rate: one frame each 1/10 s from the first picture to the stop.
    assert len(frames) == recording.frames
    assert (before_stop - first) * 10 <= len(frames) <= (after_stop - before_start) * 10 + 1
    assert {image.size for image in frames} == {(640, 360)}  # type: ignore[attr-defined]
    # The page changed colour: red first, green last, and the change is in between.
    colours = [_colour(image) for image in frames]
    assert colours[0][0] > 150 and colours[0][1] < 100, colours[0]
    assert colours[-1][1] > 150 and colours[-1][0] < 100, colours[-1]
    switch = next(i for i, c in enumerate(colours) if c[1] > 150)
    assert 0 < switch < len(colours) - 1
    assert all(c[0] > 150 for c in colours[:switch])


async def test_a_size_scales_the_video(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    tab = await _tab(browser, server)
    try:
        recording = tab.start_video(tmp_path / "small.webm", size=(321, 181), fps=5)
        await _first_frame(recording)
        await recording.stop(tmp_path / "moved.webm")
    finally:
        await tab.close()
    assert recording.path == tmp_path / "moved.webm"
    assert not (tmp_path / "small.webm").exists()
    frames, _ = _decode(tmp_path / "moved.webm")
    assert frames and {image.size for image in frames} == {(320, 180)}  # type: ignore[attr-defined]


async def test_closing_the_tab_completes_its_video(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    tab = await _tab(browser, server)
    recording = tab.start_video(tmp_path / "closed.webm", fps=5)
    await _first_frame(recording)
    await tab.close()
    with anyio.fail_after(60):  # closing the tab alone finishes the file
        await recording._done.wait()
    frames, _ = _decode(recording.path)
    assert len(frames) == recording.frames >= 1
    assert await recording.stop() == recording.path  # already done: returns at once


async def test_a_context_records_each_tab(
    browser: Browser, server: PageServer, tmp_path: Path
) -> None:
    url = server.set_page("/video.html", PAGE)
    videos = tmp_path / "videos"  # made by new_context
    async with await browser.new_context(record_video=videos, record_video_size=(320, 180)) as ctx:
        first = await ctx.new_tab(url)
        second = await ctx.new_tab(url)
        # The newest tab is in front; Chrome paints no tab behind it.
        await second.evaluate("document.body.click()")
        await second.evaluate(PAINTED)
        await anyio.sleep(0.5)
        assert first.url == url
        assert len(ctx._recording.videos) == 2
        for video in ctx._recording.videos:
            await _first_frame(video)
    files = sorted(videos.iterdir())
    assert len(files) == 2 and all(f.suffix == ".webm" for f in files)
    last_colours = set()
    for file in files:
        frames, _ = _decode(file)
        assert frames and {image.size for image in frames} == {(320, 180)}  # type: ignore[attr-defined]
        red, green, _blue = _colour(frames[-1])
        last_colours.add("green" if green > red else "red")
    assert last_colours == {"green", "red"}  # each file is its own tab


async def test_bad_input(
    browser: Browser, server: PageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = await browser.new_tab()
    try:
        for path, argument in ((tmp_path / "out.avi", "path"), (42, "path")):
            with pytest.raises(InvalidArgumentError) as caught:
                tab.start_video(path)  # type: ignore[arg-type]
            assert caught.value.argument == argument
        with pytest.raises(InvalidArgumentError) as caught:
            tab.start_video(tmp_path / "x.webm", size=(10, 10))
        assert caught.value.argument == "size"
        with pytest.raises(InvalidArgumentError) as caught:
            tab.start_video(tmp_path / "x.webm", fps=0)
        assert caught.value.argument == "fps"
        with pytest.raises(CaptureError, match="cannot write the video to"):
            tab.start_video(tmp_path / "no" / "such" / "dir.webm")
        recording = tab.start_video(tmp_path / "ok.webm", fps=5)
        with pytest.raises(InvalidArgumentError) as caught:
            await recording.stop(tmp_path / "ok.mp4")  # another format than recorded
        assert caught.value.argument == "path"
        await recording.stop()
        with pytest.raises(InvalidArgumentError) as caught:
            await browser.new_context(record_video=tmp_path / "ok.webm")  # a file, not a directory
        assert caught.value.argument == "record_video"
        with pytest.raises(InvalidArgumentError) as caught:
            await browser.new_context(record_video=tmp_path, record_video_size=(0, 5))
        assert caught.value.argument == "record_video_size"
        monkeypatch.setitem(sys.modules, "av", None)  # PyAV not installed
        with pytest.raises(CaptureError, match=r"pip install 'ko-browser\[video\]'"):
            tab.start_video(tmp_path / "x.webm")
        with pytest.raises(CaptureError, match=r"pip install 'ko-browser\[video\]'"):
            await browser.new_context(record_video=tmp_path)
    finally:
        await tab.close()
