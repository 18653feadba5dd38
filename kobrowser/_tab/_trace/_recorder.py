"""Trace: what each recorded action saw, did and caused, kept for one HTML file.

A :class:`Trace` is a recorder of the action hook (``_recording``). Per step
it keeps the line, outcome and timing, the text of the snapshot the action
acted on (the tab's latest, which is what the agent saw: no new snapshot is
taken, so ids never move under the action) and its change from the previous
step's, then after the action a JPEG of the viewport with the acted-on
element's box (drawn as an outline by the HTML), and the requests, console
messages and page errors the tab logged during it. Secret values of the
context's :class:`~kobrowser.Policy` are shown as ``{{name}}`` in every
text.

After each step: three CDP calls at once (the capture, the layout metrics,
the element's quads) and the diff of two snapshots' texts; nothing runs in
the page.
"""

from __future__ import annotations

import base64
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import msgspec

from kobrowser._concurrency import gather
from kobrowser._exceptions import InvalidArgumentError, KoBrowserError
from kobrowser._tab._recording import Step
from kobrowser._tab._trace._html import render
from kobrowser._tab._trace._step import TraceStep
from kobrowser.snapshot import diff_snapshots

__all__ = ["Trace", "TraceStep", "tracing"]

#: JPEG quality of the step pictures (a 20-step run stays far under 5 MB).
JPEG_QUALITY = 55


class _Marks(msgspec.Struct):
    snapshot: Any
    requests: int
    messages: int
    errors: int
    cpu: float


class _Metrics(msgspec.Struct):
    clientWidth: float = 0.0
    clientHeight: float = 0.0


class _LayoutMetrics(msgspec.Struct):
    cssVisualViewport: _Metrics = msgspec.field(default_factory=_Metrics)


class Trace:
    """The recorded steps of a run; made by ``browser.tracing()`` / ``tab.tracing()``.

    Attributes:
        steps: the steps so far, oldest first.
        title: the heading of the HTML page.
    """

    def __init__(self, title: str = "kobrowser trace") -> None:
        self.steps: list[TraceStep] = []
        self.title = title
        self._last_snapshot: dict[str, Any] = {}  # tab target id -> its previous step's
        # Requests still in flight when their step ended: read again when written.
        self._in_flight: list[tuple[TraceStep, Any, list[str]]] = []

    def __repr__(self) -> str:
        return f"<Trace {len(self.steps)} steps>"

    # -- the recorder (see kobrowser._tab._recording.Recorder) ---------------

    async def begin(self, step: Step) -> None:
        """Mark what the tab logged so far and the snapshot the step acts on."""
        cpu = time.process_time()
        tab = step.tab
        net = tab._net
        step.state[self] = _Marks(
            tab.last_snapshot,
            net.log.added,
            net.console.message_count,
            net.console.error_count,
            time.process_time() - cpu,
        )

    async def end(self, step: Step) -> None:
        """Capture the page after the step and keep the step."""
        marks = step.state.pop(self, None)
        if not isinstance(marks, _Marks):
            return  # attached while the step ran
        cpu = time.process_time()
        tab = step.tab
        mask: Callable[[str], str] = tab._context._mask_text
        snap = marks.snapshot
        text = changes = None
        previous = self._last_snapshot.get(tab.target_id)
        if snap is not None and snap is not previous:
            text = mask(snap.text)
            if previous is not None:
                changes = mask(str(diff_snapshots(previous, snap)))
            self._last_snapshot[tab.target_id] = snap
        net = tab._net
        logged = net.log.since(marks.requests)
        record = TraceStep(
            index=len(self.steps) + 1,
            line=mask(step.line),
            ok=step.ok,
            error=None if step.error is None else mask(step.error),
            started=step.started,
            duration=step.duration,
            tab=tab.target_id,
            url=tab.url,
            element_id=step.element_id,
            note=None if step.note is None else mask(step.note),
            snapshot=text,
            changes=changes,
            requests=[req for _, req in logged],
            console=[
                msgspec.structs.replace(m, text=mask(m.text))
                for m in net.console.messages_since(marks.messages)
            ],
            errors=net.console.errors_since(marks.errors),
        )
        self.steps.append(record)
        if any(not req.finished for _, req in logged):
            self._in_flight.append((record, net.log, [key for key, _ in logged]))
        spent = time.process_time() - cpu
        if not tab.closed:
            waited = time.process_time()
            await self._capture(tab, step, record)
            spent += time.process_time() - waited
        record.cost = marks.cpu + spent

    async def _capture(self, tab: Any, step: Step, record: TraceStep) -> None:
        session = tab.cdp
        limit = min(tab.timeout, 10.0)
        element = None
        snap = tab.last_snapshot
        if step.element_id is not None and snap is not None:
            element = snap.id_map.get(step.element_id)

        async def shot() -> Any:
            return await session.send(
                "Page.captureScreenshot",
                {"format": "jpeg", "quality": JPEG_QUALITY},
                timeout=limit,
            )

        async def metrics() -> Any:
            return await session.send("Page.getLayoutMetrics", timeout=limit)

        async def quads() -> Any:
            if element is None or element.backend_node_id is None:
                return None
            if element.session is not None and element.session is not session:
                return None  # an out-of-process frame: its quads are in its own viewport
            return await session.send(
                "DOM.getContentQuads", {"backendNodeId": element.backend_node_id}, timeout=limit
            )

        results = await gather(_quiet(shot), _quiet(metrics), _quiet(quads))
        picture, layout, found = results
        if isinstance(picture, dict) and picture.get("data"):
            record.screenshot = base64.b64decode(picture["data"])
        if isinstance(layout, dict):
            view = msgspec.convert(layout, _LayoutMetrics).cssVisualViewport
            record.viewport = (view.clientWidth, view.clientHeight)
        if isinstance(found, dict) and found.get("quads"):
            quad = found["quads"][0]
            xs, ys = quad[0::2], quad[1::2]
            record.outline = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))

    # -- output ---------------------------------------------------------------

    def _settle(self) -> None:
        """Read again the requests that were in flight when their step ended."""
        still: list[tuple[TraceStep, Any, list[str]]] = []
        for record, log, keys in self._in_flight:
            now = [log.get(key) for key in keys]
            record.requests = [
                new if new is not None and new.url == old.url else old
                for new, old in zip(now, record.requests, strict=True)
            ]
            if any(not r.finished for r in record.requests):
                still.append((record, log, keys))
        self._in_flight = still

    def html(self) -> str:
        """The trace as one self-contained HTML page (images embedded)."""
        self._settle()
        return render(self.title, self.steps)

    async def save(self, path: str | os.PathLike[str]) -> int:
        """Write :meth:`html` to ``path`` (in a worker thread); return its size in bytes.

        Raises:
            InvalidArgumentError: ``path`` is not a path.
            KoBrowserError: the file could not be written.

        Cancelling the caller abandons the write (the file may be partial).
        """
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise InvalidArgumentError(f"path: got {path!r}; expected a file path", argument="path")
        page = self.html().encode()

        def write() -> None:
            with open(path, "wb") as out:
                out.write(page)

        try:
            await anyio.to_thread.run_sync(write)
            return len(page)
        except OSError as exc:
            raise KoBrowserError(f"cannot write the trace to {os.fspath(path)!r}: {exc}") from exc


async def _quiet_call(function: Callable[[], Any]) -> Any:
    try:
        return await function()
    except KoBrowserError:
        return None


def _quiet(function: Callable[[], Any]) -> Callable[[], Any]:
    return lambda: _quiet_call(function)


@contextlib.asynccontextmanager
async def tracing(
    attach: Callable[[Trace], None],
    detach: Callable[[Trace], None],
    path: str | os.PathLike[str] | None,
    title: str,
) -> AsyncIterator[Trace]:
    """Attach a new :class:`Trace` for the block; write it to ``path`` at the end."""
    if path is not None and (not isinstance(path, (str, os.PathLike)) or not os.fspath(path)):
        raise InvalidArgumentError(f"path: got {path!r}; expected a file path", argument="path")
    trace = Trace(title)
    attach(trace)
    try:
        yield trace
    finally:
        detach(trace)
        if path is not None:
            with anyio.CancelScope(shield=True):
                await trace.save(path)
