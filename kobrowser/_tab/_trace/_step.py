"""One recorded step of a trace, as kept and as written."""

from __future__ import annotations

import msgspec

from kobrowser._tab._network._console import ConsoleMessage, PageError
from kobrowser._tab._network._log import RequestRecord

__all__ = ["TraceStep"]


class TraceStep(msgspec.Struct, kw_only=True):
    """One recorded action of a :class:`Trace`.

    Attributes:
        index: 1-based position in the trace.
        line: the action in the action grammar (``click 5``).
        ok: False when the action failed.
        error: the error's class and message when it failed.
        started: wall-clock start, seconds since the epoch.
        duration: seconds the action took.
        tab: the target id of the tab it acted on.
        url: the tab's URL after the action.
        element_id: the snapshot id it acted on, if any.
        note: the model's reply that asked for it (agent loop), if any.
        snapshot: the text of the snapshot the action acted on; None when it
            is the same snapshot as the previous step's.
        changes: that snapshot's change from the previous step's (diff text),
            None for the first step or the same snapshot.
        screenshot: a JPEG of the viewport after the action (None: the tab
            was gone or could not be captured).
        viewport: ``(width, height)`` of the viewport in CSS pixels.
        outline: ``(x, y, width, height)`` of the acted-on element after the
            action, in viewport CSS pixels (None: no element, or it is gone).
        requests: the requests the tab started during the action.
        console: the console messages logged during it.
        errors: the page errors thrown during it.
        cost: CPU seconds the trace itself spent on this step.
    """

    index: int
    line: str
    ok: bool
    error: str | None
    started: float
    duration: float
    tab: str
    url: str
    element_id: int | None = None
    note: str | None = None
    snapshot: str | None = None
    changes: str | None = None
    screenshot: bytes | None = None
    viewport: tuple[float, float] | None = None
    outline: tuple[float, float, float, float] | None = None
    requests: list[RequestRecord] = msgspec.field(default_factory=list)
    console: list[ConsoleMessage] = msgspec.field(default_factory=list)
    errors: list[PageError] = msgspec.field(default_factory=list)
    cost: float = 0.0
