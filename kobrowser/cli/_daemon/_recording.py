"""Daemon side of ``ko-browser record``: a video of the current tab.

``record start`` starts :meth:`Tab.start_video <kobrowser.Tab.start_video>`
into a temporary file; ``record stop FILE`` finishes it and moves it to
FILE. One recording per session at a time; it ends by itself when its tab
closes (``record stop`` still writes what was recorded).
"""

from __future__ import annotations

import contextlib
import os
import tempfile

import kobrowser
from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._errors import CommandError

__all__ = ["COMMANDS"]

#: The session's recording (the daemon serves one browser), by browser.
_RECORDINGS: dict[int, kobrowser.VideoRecording] = {}


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise kobrowser.InvalidArgumentError(
            f"size: got {text!r}; expected WIDTHxHEIGHT in pixels, e.g. 800x600", argument="size"
        )
    return int(width), int(height)


async def start(ctx: Context, args: Args) -> Result:
    key = id(ctx.browser)
    current = _RECORDINGS.get(key)
    if current is not None and not current.done:
        raise CommandError(
            "a recording is running already", "run `ko-browser record stop FILE` first"
        )
    video_format = args.text("format")
    size = _size(args.optional_text("size"))
    fps = args.optional_whole("fps") or 25
    handle, name = tempfile.mkstemp(prefix="ko-browser-record-", suffix=f".{video_format}")
    os.close(handle)
    try:
        recording = ctx.tab().start_video(name, size=size, fps=fps)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    _RECORDINGS[key] = recording
    return {
        "recording": True,
        "format": video_format,
    }, f"recording the current tab ({video_format})"


async def stop(ctx: Context, args: Args) -> Result:
    recording = _RECORDINGS.get(id(ctx.browser))
    if recording is None:
        raise CommandError("no recording to stop", "run `ko-browser record start` first")
    path = await recording.stop(args.text("path"), timeout=ctx.timeout)
    del _RECORDINGS[id(ctx.browser)]
    frames = recording.frames
    seconds = frames / recording.fps
    return (
        {"path": str(path), "frames": frames, "seconds": round(seconds, 2)},
        f"wrote {path} ({frames} frames, {seconds:.1f} s)",
    )


COMMANDS: dict[str, Command] = {
    "record.start": Command(start, serialized=True),
    "record.stop": Command(stop, serialized=True),
}
