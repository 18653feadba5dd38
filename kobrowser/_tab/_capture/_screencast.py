"""A tab's screencast: the frames Chrome paints, as JPEG images, for whoever watches.

Chrome's ``Page.startScreencast`` sends a ``Page.screencastFrame`` event when
the page repaints; it keeps at most two frames unanswered, and each
``Page.screencastFrameAck`` lets the next one come. Chrome allows one
screencast per page, so a tab has one :class:`ScreencastHub` that shares it
between every watcher (a video recorder and a live view at once): the first
:meth:`ScreencastHub.watch` starts Chrome's screencast, the last one leaving
stops it.

No background task: the watchers' own tasks do the work. A watcher that
wants a frame and has none takes the hub's pump lock, answers the frame
Chrome is waiting on (after ``max_fps`` allows), reads the next event and
hands the frame to every watcher's buffer. A watcher that falls behind loses
its oldest frames (counted in :attr:`Screencast.dropped`) and never slows the
others; while nobody asks for frames nothing is answered, so Chrome pauses.
When the tab closes or crashes the event stream ends and so does every
watcher's iteration (no error: a recording of a tab ends with the tab).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final, Protocol

import anyio
import msgspec

from kobrowser import _validate as validate
from kobrowser._exceptions import (
    CaptureError,
    ConnectionClosedError,
    ProtocolError,
    TargetClosedError,
)

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession, EventStream

__all__ = ["Screencast", "ScreencastFrame", "ScreencastHub", "jpeg_size"]

_FRAME_EVENT: Final = "Page.screencastFrame"
_ACK_LIMIT: Final = 5.0  # seconds at most for one ack (shielded, so it must end)
_STOP_LIMIT: Final = 5.0
_BETWEEN_DOCUMENTS: Final = "Not attached to an active page"


class ScreencastFrame(msgspec.Struct, frozen=True, gc=False):
    """One frame of a tab's screencast: a JPEG image of the viewport.

    Attributes:
        data: the JPEG file's bytes.
        timestamp: when Chrome painted it, in seconds since the epoch
            (Chrome's frame swap time; the time it arrived when Chrome gives none).
        width: the image's width in pixels.
        height: the image's height in pixels.
        device_width: the viewport's width in CSS pixels.
        device_height: the viewport's height in CSS pixels.
        page_scale_factor: the page's zoom (pinch) factor.
        offset_top: the viewport's top in CSS pixels (below the browser's own UI, if any).
        scroll_x: the page's horizontal scroll offset in CSS pixels.
        scroll_y: the page's vertical scroll offset in CSS pixels.
    """

    data: bytes
    timestamp: float
    width: int
    height: int
    device_width: float
    device_height: float
    page_scale_factor: float = 1.0
    offset_top: float = 0.0
    scroll_x: float = 0.0
    scroll_y: float = 0.0


class _Metadata(msgspec.Struct):
    deviceWidth: float = 0.0  # CDP names the fields
    deviceHeight: float = 0.0
    pageScaleFactor: float = 1.0
    offsetTop: float = 0.0
    scrollOffsetX: float = 0.0
    scrollOffsetY: float = 0.0
    timestamp: float | None = None


class _FrameEvent(msgspec.Struct):
    data: bytes  # msgspec decodes the base64 string to bytes
    sessionId: int
    metadata: _Metadata = msgspec.field(default_factory=_Metadata)


_DECODE_FRAME: Final = msgspec.json.Decoder(_FrameEvent)


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a JPEG image from its frame header; (0, 0) when none is found."""
    if data[:2] != b"\xff\xd8":
        return 0, 0
    at, end = 2, len(data)
    while at + 4 <= end:
        if data[at] != 0xFF:
            return 0, 0
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == 0xD8 or 0xD0 <= marker <= 0xD7 or marker == 0x01:  # no length
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        # Start of frame (baseline, progressive...): not DHT (C4), JPG (C8), DAC (CC).
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if at + 9 > end:
                return 0, 0
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return width, height
        if marker == 0xDA:  # start of scan before any frame header
            return 0, 0
        at += 2 + length
    return 0, 0


def _frame(event: _FrameEvent) -> ScreencastFrame:
    meta = event.metadata
    width, height = jpeg_size(event.data)
    return ScreencastFrame(
        data=event.data,
        timestamp=meta.timestamp if meta.timestamp is not None else time.time(),
        width=width,
        height=height,
        device_width=meta.deviceWidth,
        device_height=meta.deviceHeight,
        page_scale_factor=meta.pageScaleFactor,
        offset_top=meta.offsetTop,
        scroll_x=meta.scrollOffsetX,
        scroll_y=meta.scrollOffsetY,
    )


class _TabLike(Protocol):
    """What a screencast needs of its tab."""

    cdp: CDPSession

    @property
    def closed(self) -> bool: ...
    @property
    def timeout(self) -> float: ...


class Screencast:
    """One watcher of a tab's screencast: iterate it for the frames, in order.

    Made by :meth:`Tab.screencast <kobrowser.Tab.screencast>`; ``async for
    frame in cast`` yields :class:`ScreencastFrame` objects until the watch
    ends (its ``async with`` block is left, or the tab closes or crashes:
    then iteration just stops). Frames come when the page repaints, so a
    still page yields few; :attr:`latest` is the last one seen.

    Attributes:
        quality: the JPEG quality asked for (frames may be better: another
            watcher of the tab may ask more).
        max_width: the widest frame asked for, in pixels (None: the viewport's).
        max_height: the tallest frame asked for, in pixels (None: the viewport's).
        max_fps: the most frames a second asked for (None: as many as Chrome paints).
    """

    def __init__(
        self,
        hub: ScreencastHub,
        quality: int,
        max_width: int | None,
        max_height: int | None,
        max_fps: float | None,
        buffer: int,
    ) -> None:
        self._hub = hub
        self.quality = quality
        self.max_width = max_width
        self.max_height = max_height
        self.max_fps = max_fps
        self._frames: deque[ScreencastFrame] = deque()
        self._buffer = buffer
        self._left = False
        self.latest: ScreencastFrame | None = None
        """The newest frame handed to this watcher (None before the first)."""
        self.dropped = 0
        """Frames this watcher lost because it fell more than its buffer behind."""

    @property
    def ended(self) -> bool:
        """True once the watch was left or the tab's screencast ended (tab closed or crashed)."""
        return self._left or self._hub.ended

    def _push(self, frame: ScreencastFrame) -> None:
        if len(self._frames) >= self._buffer:
            self._frames.popleft()
            self.dropped += 1
        self._frames.append(frame)
        self.latest = frame

    def __aiter__(self) -> Screencast:
        return self

    async def __anext__(self) -> ScreencastFrame:
        """The next frame; waits for Chrome to paint one.

        Raises:
            StopAsyncIteration: the watch was left, or the tab closed or crashed.
            CDPTimeoutError: Chrome did not answer the frame's acknowledgement in time.

        Cancellation: safe at any point; no frame Chrome sent is lost to
        the other watchers, and Chrome is not left waiting for an answer.
        """
        while not self._frames:
            if self.ended:
                raise StopAsyncIteration
            await self._hub._pump(self)
        return self._frames.popleft()


class ScreencastHub:
    """A tab's one Chrome screencast, shared by its watchers (see the module docstring)."""

    def __init__(self, tab: _TabLike) -> None:
        self._tab = tab
        self._watchers: list[Screencast] = []
        self._stream: EventStream | None = None
        self._lock = anyio.Lock()  # start and stop of Chrome's screencast
        self._pump_lock = anyio.Lock()  # one reader of the event stream at a time
        self._params: dict[str, Any] | None = None  # what Chrome was last started with
        self._unanswered: int | None = None  # the screencast session of the frame to ack
        self._last_ack = -math.inf
        self.ended = False
        """True once the tab's screencast ended for good (the tab closed or crashed)."""

    @property
    def watching(self) -> int:
        """How many watchers the tab's screencast has now."""
        return len(self._watchers)

    @contextlib.asynccontextmanager
    async def watch(
        self,
        *,
        quality: int = 80,
        max_width: int | None = None,
        max_height: int | None = None,
        max_fps: float | None = None,
        buffer: int = 4,
        timeout: float | None = None,
    ) -> AsyncIterator[Screencast]:
        """Watch the tab's screencast (see :meth:`Tab.screencast <kobrowser.Tab.screencast>`)."""
        validate.whole(quality, "quality", 0, 100)
        if max_width is not None:
            validate.whole(max_width, "max_width", 1, 10_000, "pixels")
        if max_height is not None:
            validate.whole(max_height, "max_height", 1, 10_000, "pixels")
        if max_fps is not None:
            validate.number(max_fps, "max_fps", 0.1, 120, "frames a second")
        validate.whole(buffer, "buffer", 1, 1000, "frames")
        validate.timeout(timeout)
        limit = self._tab.timeout if timeout is None else float(timeout)
        if self._tab.closed or self.ended:
            raise TargetClosedError("the tab is closed: it has no screencast")
        watcher = Screencast(self, quality, max_width, max_height, max_fps, buffer)
        async with self._lock:
            self._watchers.append(watcher)
            try:
                await self._apply(limit)
            except BaseException:
                self._watchers.remove(watcher)
                with anyio.CancelScope(shield=True):
                    await self._stop_if_unwatched()
                raise
        try:
            yield watcher
        finally:
            watcher._left = True
            watcher._frames.clear()
            with anyio.CancelScope(shield=True):
                async with self._lock:
                    self._watchers.remove(watcher)
                    await self._stop_if_unwatched()

    def _wanted(self) -> dict[str, Any]:
        """Chrome's screencast parameters that satisfy every watcher."""
        watchers = self._watchers
        params: dict[str, Any] = {
            "format": "jpeg",
            "quality": max(w.quality for w in watchers),
        }
        widths = [w.max_width for w in watchers]
        if None not in widths:
            params["maxWidth"] = max(w for w in widths if w is not None)
        heights = [w.max_height for w in watchers]
        if None not in heights:
            params["maxHeight"] = max(h for h in heights if h is not None)
        return params

    def _interval(self) -> float:
        """The least time between two answered frames (0: no limit)."""
        rates = [w.max_fps for w in self._watchers]
        if not rates or None in rates:
            return 0.0
        return 1.0 / max(r for r in rates if r is not None)

    async def _apply(self, limit: float) -> None:
        """Start Chrome's screencast, or restart it with what the watchers now need.

        A restart (stop, start) keeps the event stream: the watchers go on
        reading the frames of the new screencast from where they are.
        """
        wanted = self._wanted()
        if wanted == self._params:
            return
        session = self._tab.cdp
        if self._stream is None:
            # Subscribed before the start, so the first frame is not missed.
            self._stream = session.subscribe(_FRAME_EVENT, max_buffer=16)
        deadline = anyio.current_time() + limit
        try:
            if self._params is not None:  # Chrome refuses a second start: stop first
                self._params = None
                self._unanswered = None
                await session.send("Page.stopScreencast", timeout=limit)
            while True:
                try:
                    await session.send(
                        "Page.startScreencast",
                        wanted,
                        timeout=max(0.0, deadline - anyio.current_time()),
                    )
                    break
                except ProtocolError as error:
                    # Between two documents (a navigation commits) the page has
                    # no frame to cast for a moment: try again until the deadline.
                    if _BETWEEN_DOCUMENTS not in str(error) or anyio.current_time() >= deadline:
                        raise
                    await anyio.sleep(0.05)
        except ProtocolError as error:
            raise CaptureError(f"Chrome could not start the tab's screencast: {error}") from None
        self._params = wanted
        self._unanswered = None  # a restart starts a new screencast session

    async def _stop_if_unwatched(self) -> None:
        """Stop Chrome's screencast when nobody watches (called shielded, under the lock)."""
        if self._watchers or self._params is None:
            return
        stream, self._stream = self._stream, None
        self._params = None
        self._unanswered = None
        if stream is not None:
            stream.close()
        session = self._tab.cdp
        if session.closed or self.ended:
            return
        with (
            anyio.move_on_after(_STOP_LIMIT),
            contextlib.suppress(ProtocolError, TargetClosedError, ConnectionClosedError),
        ):
            await session.send("Page.stopScreencast", timeout=min(self._tab.timeout, _STOP_LIMIT))

    async def _pump(self, watcher: Screencast) -> None:
        """Bring the next frame to every watcher (or notice the end); for ``watcher``."""
        async with self._pump_lock:
            if watcher._frames or watcher.ended:
                return  # another watcher's pump brought one meanwhile
            stream = self._stream
            if stream is None:
                return
            await self._answer()
            try:
                event = await stream.__anext__()
            except StopAsyncIteration:
                # Closed by the last watcher leaving (then this watcher has left).
                return
            except (TargetClosedError, ConnectionClosedError):
                self.ended = True
                return
            try:
                decoded = _DECODE_FRAME.decode(event.raw)
            except (msgspec.ValidationError, msgspec.DecodeError):
                return  # not a frame Chrome documents: skip it
            if self._params is None:
                return
            self._unanswered = decoded.sessionId
            frame = _frame(decoded)
            for each in self._watchers:
                each._push(frame)

    async def _answer(self) -> None:
        """Acknowledge the frame Chrome waits on, once ``max_fps`` allows."""
        session_id = self._unanswered
        if session_id is None:
            return
        interval = self._interval()
        if interval > 0:
            # Not shielded: cancelled here, the frame stays unanswered for the next pump.
            await anyio.sleep(max(0.0, self._last_ack + interval - anyio.current_time()))
        self._unanswered = None
        self._last_ack = anyio.current_time()
        with anyio.CancelScope(shield=True):
            try:
                await self._tab.cdp.send(
                    "Page.screencastFrameAck",
                    {"sessionId": session_id},
                    timeout=min(self._tab.timeout, _ACK_LIMIT),
                )
            except (TargetClosedError, ConnectionClosedError):
                self.ended = True
            except ProtocolError:
                pass  # a screencast restarted meanwhile: nothing waits on this one
