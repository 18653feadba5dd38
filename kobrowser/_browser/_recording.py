"""What a context records of its tabs: HAR of their requests, a video of each.

:class:`ContextRecording` belongs to a :class:`~kobrowser.BrowserContext`;
the context's methods (``start_har``, ``save_har``) and ``new_context``'s
``record_har`` / ``record_video`` options hand over to it. The HAR log lives
in the tab layer (:mod:`kobrowser._tab._network._har`), each tab's video in
:mod:`kobrowser._tab._capture._video`; this module decides when they start
and writes the files when the context closes.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from kobrowser import _validate as validate
from kobrowser._exceptions import CaptureError, KoBrowserError
from kobrowser._tab._capture._video import VideoOptions, VideoRecording, check_video_options
from kobrowser._tab._network._har import HAR_CONTENT, HarContent, HarLog

if TYPE_CHECKING:
    from kobrowser._tab._tab import Tab

__all__ = ["ContextRecording", "check_har_path", "har_content"]


def har_content(value: Any, argument: str = "record_har_content") -> HarContent:
    """``"omit"`` or ``"embed"``, checked."""
    if value not in HAR_CONTENT:
        raise validate.fail(argument, value, "'omit' (no bodies) or 'embed' (bodies in the HAR)")
    found: HarContent = value
    return found


def check_har_path(value: Any, argument: str) -> Path:
    """A file path whose directory exists and can be written (checked now, not at the end)."""
    if not isinstance(value, str | os.PathLike):
        raise validate.fail(argument, value, "a file path (str or os.PathLike)")
    text = os.fspath(value)
    if not isinstance(text, str) or not text or "\0" in text:
        raise validate.fail(argument, value, "a file path (str or os.PathLike)")
    validate.no_surrogates(text, argument)
    path = Path(text)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise validate.fail(argument, value, "a file path, not a directory")
    if not parent.is_dir():
        raise validate.fail(argument, value, "a file path in a directory that exists")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise validate.fail(argument, value, "a file path in a directory this process can write")
    return path


async def write_json(path: Path, document: dict[str, Any], what: str) -> None:
    """Write ``document`` as JSON (in a worker thread); CaptureError when it cannot."""
    data = json.dumps(document, ensure_ascii=False, indent=1).encode()
    try:
        await anyio.to_thread.run_sync(path.write_bytes, data)
    except OSError as error:
        raise CaptureError(f"cannot write the {what} to {str(path)!r}: {error}") from None


class ContextRecording:
    """The HAR log and the video recordings of one context."""

    def __init__(self) -> None:
        self.har: HarLog | None = None
        self.har_path: Path | None = None
        self.video: VideoOptions | None = None
        self.videos: list[VideoRecording] = []
        self._count = 0

    def start_har(self, content: HarContent, tabs: list[Tab]) -> HarLog:
        """Record HAR from now on (in ``tabs`` and every tab to come)."""
        if self.har is None:
            self.har = HarLog(content)
        elif self.har.content != content:
            raise validate.fail(
                "content", content, f"{self.har.content!r}: the context records so already"
            )
        for tab in tabs:
            tab._record_har(self.har)
        return self.har

    async def save_har(self, path: Path, browser_version: str, timeout: float) -> dict[str, Any]:
        """Write the HAR of everything recorded so far; returns the document."""
        if self.har is None:
            raise CaptureError(
                "this context records no HAR: make it with new_context(record_har=...) "
                "or call start_har() first"
            )
        await self.har.settle(timeout)
        document = self.har.to_har(browser_version)
        await write_json(path, document, "HAR")
        return document

    def start_video(self, options: VideoOptions) -> None:
        """Record a video of every tab the context opens from now on."""
        self.video = options

    def tab_started(self, tab: Tab) -> None:
        """A tab of the context is ready: start its video, if the context records them."""
        options = self.video
        if options is None or options.directory is None:
            return
        self._count += 1
        suffix = ".mp4" if options.format == "mp4" else ".webm"
        path = options.directory / f"{tab.target_id[:8].lower()}-{self._count}{suffix}"
        with contextlib.suppress(KoBrowserError):  # a tab closed already: no video
            self.videos.append(tab._start_video(path, options))

    async def finish(self, browser_version: str, timeout: float) -> None:
        """The context closes: end the videos and write the HAR file (shield the caller).

        Raises:
            CaptureError: a file could not be written (every one is tried first).
        """
        errors: list[KoBrowserError] = []
        for video in self.videos:
            try:
                await video.stop(timeout=timeout)
            except KoBrowserError as error:
                errors.append(error)
        if self.har_path is not None:
            path, self.har_path = self.har_path, None
            try:
                await self.save_har(path, browser_version, timeout)
            except KoBrowserError as error:
                errors.append(error)
        if errors:
            raise errors[0]


def video_options(record_video: Any, size: Any, fps: Any, video_format: Any) -> VideoOptions | None:
    """``new_context``'s video options, checked (None: no video)."""
    if record_video is None:
        return None
    return check_video_options(
        directory=record_video, size=size, fps=fps, video_format=video_format
    )
