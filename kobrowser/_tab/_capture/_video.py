"""A video of a tab: its screencast encoded into a WebM (VP8) or MP4 (H.264) file.

:meth:`Tab.start_video <kobrowser.Tab.start_video>` (and a context made with
``record_video``) opens the file at once, so a path that cannot be written
or a missing PyAV fails the call, then records in a job of the browser's
task group: one task takes the screencast's frames (:mod:`._screencast`,
paced at the video's rate), another writes a frame every ``1/fps`` seconds,
the newest one again while the page shows no change, so the file plays at a
constant rate and lasts as long as the recording. Decoding the JPEG and
encoding run in a worker thread. The recording ends when
:meth:`VideoRecording.stop` is called or the tab closes or crashes; then the
encoder is flushed and the file closed, and only then is it complete.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
from collections.abc import Callable, Coroutine
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import anyio
import msgspec

from kobrowser import _validate as validate
from kobrowser._concurrency import unwrapping
from kobrowser._exceptions import CaptureError, KoBrowserError, TargetClosedError
from kobrowser._validate._values import directory as check_directory

if TYPE_CHECKING:
    from kobrowser._tab._capture._screencast import Screencast, ScreencastFrame

__all__ = [
    "VideoFormat",
    "VideoOptions",
    "VideoRecording",
    "check_video_options",
    "check_video_path",
    "import_av",
    "video_fps",
    "video_size",
]

VideoFormat = Literal["webm", "mp4"]
_CODECS: Final = {"webm": "libvpx", "mp4": "libx264"}
_SUFFIXES: Final[dict[str, str]] = {".webm": "webm", ".mp4": "mp4"}
DEFAULT_FPS: Final = 25
DEFAULT_FIT: Final = 800  # without a size: the viewport scaled to fit 800 x 800
INSTALL: Final = "pip install 'ko-browser[video]'"

Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class VideoOptions(msgspec.Struct, frozen=True):
    """How a context records its tabs (``new_context(record_video=...)``)."""

    directory: Path | None
    size: tuple[int, int] | None = None
    fps: int = DEFAULT_FPS
    format: VideoFormat = "webm"


def import_av() -> Any:
    """The ``av`` module (PyAV), or a CaptureError that says how to install it."""
    try:
        import av
    except ImportError:
        raise CaptureError(f"recording video needs PyAV: {INSTALL}") from None
    return av


def video_size(value: Any, argument: str) -> tuple[int, int] | None:
    """A video's ``(width, height)``: 16 to 4096 pixels each (made even), or None."""
    if value is None:
        return None
    if (
        not isinstance(value, tuple | list)
        or len(value) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
        or not all(16 <= v <= 4096 for v in value)
    ):
        raise validate.fail(argument, value, "(width, height) in pixels, each 16 to 4096, or None")
    return int(value[0]) // 2 * 2, int(value[1]) // 2 * 2  # the encoders want even sizes


def video_fps(value: Any, argument: str) -> int:
    """Frames a second of a video: 1 to 60."""
    return validate.whole(value, argument, 1, 60, "frames a second")


def _format(value: Any, argument: str) -> VideoFormat:
    if value not in _CODECS:
        raise validate.fail(argument, value, "'webm' or 'mp4'")
    found: VideoFormat = value
    return found


def check_video_options(*, directory: Any, size: Any, fps: Any, video_format: Any) -> VideoOptions:
    """A context's video options, checked; the directory is made if missing."""
    check_directory(directory, "record_video")
    path = Path(os.fspath(directory))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise validate.fail(
            "record_video", directory, f"a directory that can be made ({error.strerror})"
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise validate.fail("record_video", directory, "a directory this process can write")
    return VideoOptions(
        directory=path,
        size=video_size(size, "record_video_size"),
        fps=video_fps(fps, "record_video_fps"),
        format=_format(video_format, "record_video_format"),
    )


def check_video_path(value: Any, argument: str = "path") -> tuple[Path, VideoFormat]:
    """A video file path and its format (from the suffix: ``.webm`` or ``.mp4``)."""
    if not isinstance(value, str | os.PathLike):
        raise validate.fail(argument, value, "a .webm or .mp4 file path (str or os.PathLike)")
    text = os.fspath(value)
    if not isinstance(text, str) or not text or "\0" in text:
        raise validate.fail(argument, value, "a .webm or .mp4 file path (str or os.PathLike)")
    validate.no_surrogates(text, argument)
    path = Path(text)
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise validate.fail(argument, value, "a file path ending in .webm or .mp4")
    return path, _format(found, argument)


class _TabLike(Protocol):
    """What a video needs of its tab."""

    @property
    def closed(self) -> bool: ...
    @property
    def timeout(self) -> float: ...
    def screencast(
        self,
        *,
        quality: int = 80,
        max_width: int | None = None,
        max_height: int | None = None,
        max_fps: float | None = None,
        buffer: int = 4,
        timeout: float | None = None,
    ) -> contextlib.AbstractAsyncContextManager[Screencast]: ...


class _Encoder:
    """The file, its stream and the frame being repeated (used from a worker thread)."""

    def __init__(self, av: Any, path: Path, video_format: VideoFormat, fps: int) -> None:
        self._av = av
        try:
            path.open("wb").close()  # av.open makes the file only at the first write
            self.container = av.open(str(path), mode="w")
        except (OSError, av.FFmpegError) as error:
            raise CaptureError(f"cannot write the video to {str(path)!r}: {error}") from None
        self.stream: Any = None
        self.fps = fps
        self._time_base = Fraction(1, fps)
        self.format = video_format
        self.size: tuple[int, int] | None = None
        self.written = 0
        self._decoder = av.CodecContext.create("mjpeg", "r")
        self._frame: Any = None  # the newest picture, in the video's size and pixel format
        self._source: object = None  # the ScreencastFrame it was made from

    def _open_stream(self, size: tuple[int, int]) -> None:
        stream = self.container.add_stream(_CODECS[self.format], rate=self.fps)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        # One thread: FFmpeg's default (one per core) costs 30-40 times the CPU
        # time per frame at these sizes (measured: 36 ms against 1 ms at 640 x 360).
        stream.codec_context.thread_count = 1
        if self.format == "webm":
            # Real-time VP8: the speed a recorder wants (quality comes from the bit rate).
            stream.options = {"deadline": "realtime", "cpu-used": "8", "lag-in-frames": "0"}
            stream.bit_rate = 2_000_000
        else:
            stream.options = {"preset": "ultrafast", "tune": "zerolatency"}
        stream.codec_context.time_base = self._time_base
        self.stream = stream
        self.size = size

    def picture(self, frame: ScreencastFrame) -> None:
        """Make ``frame`` the picture to write (decoded once, however often written)."""
        if frame is self._source:
            return
        decoded = self._decoder.decode(self._av.Packet(frame.data))
        if not decoded:
            return
        if self.stream is None:
            assert self.size is not None
            self._open_stream(self.size)
        width, height = self.size or (0, 0)
        self._frame = decoded[-1].reformat(width=width, height=height, format="yuv420p")
        self._source = frame

    def write(self, count: int) -> None:
        """Write the current picture ``count`` times (the next ``count`` frame times)."""
        if self._frame is None or self.stream is None:
            return
        for _ in range(count):
            self._frame.pts = self.written
            self._frame.time_base = self._time_base
            for packet in self.stream.encode(self._frame):
                self.container.mux(packet)
            self.written += 1

    def close(self) -> None:
        """Flush the encoder and close the file (an empty recording leaves an empty file)."""
        try:
            if self.stream is not None:
                for packet in self.stream.encode(None):
                    self.container.mux(packet)
        finally:
            self.container.close()


def _fit(width: int, height: int, box: int) -> tuple[int, int]:
    scale = min(1.0, box / max(width, height, 1))
    return max(16, int(width * scale) // 2 * 2), max(16, int(height * scale) // 2 * 2)


class VideoRecording:
    """A video being recorded of one tab (see :meth:`Tab.start_video <kobrowser.Tab.start_video>`).

    Attributes:
        path: the file being written (complete once :attr:`done`).
        fps: frames a second of the video.
    """

    def __init__(
        self, tab: _TabLike, path: Path, video_format: VideoFormat, size: Any, fps: int
    ) -> None:
        self._tab = tab
        self.path = path
        self.fps = fps
        self._format: VideoFormat = video_format
        self._size: tuple[int, int] | None = size
        self._stop = anyio.Event()
        self._done = anyio.Event()
        self._error: KoBrowserError | None = None
        self._encoder: _Encoder | None = None

    def __repr__(self) -> str:
        state = "done" if self.done else "recording"
        return f"<VideoRecording {str(self.path)!r} {state}>"

    @property
    def done(self) -> bool:
        """True once the file is complete (stopped, or the tab closed)."""
        return self._done.is_set()

    @property
    def frames(self) -> int:
        """Frames written so far."""
        return self._encoder.written if self._encoder is not None else 0

    @classmethod
    def start(
        cls, tab: _TabLike, spawn: Spawn, path: Path, video_format: VideoFormat, size: Any, fps: int
    ) -> VideoRecording:
        """Open the file and start recording in the browser's task group."""
        av = import_av()
        if tab.closed:
            raise TargetClosedError("the tab is closed: there is nothing to record")
        recording = cls(tab, path, video_format, size, fps)
        recording._encoder = _Encoder(av, path, video_format, fps)
        spawn(recording._run)
        return recording

    async def _run(self) -> None:
        encoder = self._encoder
        assert encoder is not None
        try:
            async with unwrapping():
                await self._record(encoder)
        except KoBrowserError as error:
            self._error = CaptureError(f"the video {str(self.path)!r} failed: {error}")
        except Exception as error:
            self._error = CaptureError(f"the video {str(self.path)!r} failed: {error!r}")
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    await anyio.to_thread.run_sync(encoder.close)
                except Exception as error:
                    self._error = self._error or CaptureError(
                        f"cannot finish the video {str(self.path)!r}: {error!r}"
                    )
            self._done.set()

    async def _record(self, encoder: _Encoder) -> None:
        fit = self._size
        limits: dict[str, Any] = {}
        if fit is not None:
            limits = {"max_width": fit[0], "max_height": fit[1]}
        else:
            limits = {"max_width": DEFAULT_FIT, "max_height": DEFAULT_FIT}
        with contextlib.suppress(TargetClosedError):
            async with (
                self._tab.screencast(quality=80, max_fps=self.fps, buffer=1, **limits) as cast,
                anyio.create_task_group() as tasks,
            ):
                first = anyio.Event()

                async def take() -> None:
                    async for frame in cast:
                        if encoder.size is None:
                            encoder.size = fit or _fit(frame.width, frame.height, DEFAULT_FIT)
                        first.set()
                    tasks.cancel_scope.cancel()  # the tab closed: the video ends

                async def stop() -> None:
                    await self._stop.wait()
                    tasks.cancel_scope.cancel()

                tasks.start_soon(take)
                tasks.start_soon(stop)
                await first.wait()
                await self._write(cast, encoder)

    async def _write(self, cast: Screencast, encoder: _Encoder) -> None:
        """Write a frame every 1/fps s from the first one on (until cancelled)."""
        start = anyio.current_time()
        try:
            while True:
                latest = cast.latest
                due = math.floor((anyio.current_time() - start) * self.fps) + 1
                count = due - encoder.written
                if latest is not None and count > 0:
                    await anyio.to_thread.run_sync(self._put, encoder, latest, count)
                await anyio.sleep(
                    max(0.0, start + (encoder.written / self.fps) - anyio.current_time())
                )
        finally:
            # Up to the moment it ended: the video lasts as long as the recording.
            with anyio.CancelScope(shield=True):
                latest = cast.latest
                due = math.floor((anyio.current_time() - start) * self.fps) + 1
                if latest is not None and due > encoder.written:
                    await anyio.to_thread.run_sync(
                        self._put, encoder, latest, due - encoder.written
                    )

    @staticmethod
    def _put(encoder: _Encoder, frame: ScreencastFrame, count: int) -> None:
        encoder.picture(frame)
        encoder.write(count)

    async def stop(
        self, path: str | os.PathLike[str] | None = None, *, timeout: float | None = None
    ) -> Path:
        """End the recording and wait until the file is complete.

        Args:
            path: move the finished file there (same format: ``.webm`` or ``.mp4``
                as it was started); default: leave it where it is.
            timeout: seconds to wait for the file to be finished (default: the tab's).

        Returns:
            The path of the complete file.

        Raises:
            InvalidArgumentError: ``path`` is not a file path of the same format.
            CaptureError: recording or writing failed, or the file could not be moved.

        Cancellation: the recording is stopped either way and the file
        finished in the background (it is complete once :attr:`done`).
        """
        target = None
        if path is not None:
            target, found = check_video_path(path)
            if found != self._format:
                raise validate.fail(
                    "path", path, f"a .{self._format} file path (the recording is {self._format})"
                )
        validate.timeout(timeout)
        self._stop.set()
        limit = self._tab.timeout if timeout is None else float(timeout)
        with anyio.move_on_after(limit):
            await self._done.wait()
        if not self.done:
            raise CaptureError(f"the video {str(self.path)!r} was not finished in {limit:g} s")
        if self._error is not None:
            raise self._error
        if target is not None and target != self.path:
            try:
                moved = await anyio.to_thread.run_sync(shutil.move, self.path, target)
            except OSError as error:
                raise CaptureError(f"cannot move the video to {str(target)!r}: {error}") from None
            self.path = Path(moved)
        return self.path
