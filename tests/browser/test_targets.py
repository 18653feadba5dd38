"""The target tracker, fed the Target events Chrome sent in a recorded session.

``fixtures/targets.json`` (``fixtures/record_targets.py``) holds what a
Browser's root session got while a start-up tab was auto-attached, a tab was
created, it opened a popup, the popup was closed, a tab opened in a new
context and crashed, and the first tab was closed. Here the events are
replayed into a :class:`TargetTracker` over fake tabs, with no browser: the
tabs' set-up is a hook the test runs (or fails) itself.

The replay does what the connection does before the tracker sees an event
(``kobrowser/cdp/_connection.py``): ``detachedFromTarget`` closes that
session, ``targetDestroyed``/``targetCrashed`` close the target's sessions.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from kobrowser import KoBrowserError, TargetClosedError, WaitTimeoutError
from kobrowser._browser._targets import TargetTracker
from kobrowser.cdp._events import TargetInfo

pytestmark = pytest.mark.anyio

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "fixtures" / "targets.json").read_text()
)
LOG: list[dict[str, Any]] = RECORDED["log"]


def _step(name: str) -> dict[str, Any]:
    return next(entry for entry in LOG if entry.get("step") == name)


STARTUP = next(e for e in LOG if e.get("method") == "Target.attachedToTarget")
TAB = _step("new_tab")["targetId"]
POPUP = _step("popup")["targetId"]
IN_CONTEXT = _step("context_tab")["targetId"]
CONTEXT = _step("context_tab")["browserContextId"]


class FakeTab:
    """A tab as the tracker sees it: an id, and closed once its session or itself is."""

    def __init__(self, session_id: str, info: TargetInfo) -> None:
        self.session_id = session_id
        self.target_id = info.targetId
        self.info = info
        self.session_closed = False
        self.closed_with: str | None = None

    @property
    def closed(self) -> bool:
        return self.session_closed or self.closed_with is not None

    def __repr__(self) -> str:
        return f"<FakeTab {self.target_id[:8]}>"


class Replay:
    """A tracker over fake tabs, and the recorded events to feed it."""

    def __init__(self, *, keep_existing: bool = False, failing: set[str] = frozenset()) -> None:
        self.tabs: list[FakeTab] = []
        self.released: list[str] = []
        self.spawned: list[Callable[[], Awaitable[None]]] = []
        self.failing = failing
        self.set_up_done: list[str] = []
        self.tracker: TargetTracker[FakeTab] = TargetTracker(
            make_tab=self._make_tab,
            set_up=self._set_up,
            release=self.released.append,
            close_tab=self._close_tab,
            spawn=self.spawned.append,
            keep_existing=keep_existing,
        )
        self._log: Iterator[dict[str, Any]] = iter(LOG)
        self._existing: Any = None

    def _make_tab(self, session_id: str, info: TargetInfo) -> FakeTab:
        tab = FakeTab(session_id, info)
        self.tabs.append(tab)
        return tab

    async def _set_up(self, tab: FakeTab) -> None:
        if tab.target_id in self.failing:
            raise KoBrowserError(f"set-up of {tab.target_id} failed")
        self.set_up_done.append(tab.target_id)

    @staticmethod
    def _close_tab(tab: FakeTab, reason: str) -> None:
        tab.closed_with = reason

    def tab(self, target_id: str) -> FakeTab:
        return next(tab for tab in self.tabs if tab.target_id == target_id)

    def deliver(self, method: str, params: dict[str, Any]) -> None:
        """One event, as the connection hands it to the root session's listeners."""
        if method == "Target.detachedFromTarget":
            for tab in self.tabs:
                if tab.session_id == params.get("sessionId"):
                    tab.session_closed = True
        elif method in ("Target.targetDestroyed", "Target.targetCrashed"):
            for tab in self.tabs:
                if tab.target_id == params["targetId"]:
                    tab.session_closed = True
        raw = msgspec.Raw(msgspec.json.encode(params))
        if method == "Target.attachedToTarget":
            self.tracker.on_attached(raw)
        else:
            self.tracker.on_gone(raw)

    def until(self, step: str) -> None:
        """Deliver the recorded events up to the marker ``step`` (set-ups not run)."""
        for entry in self._log:
            name = entry.get("step")
            if name == "auto_attach_start":
                self._existing = self.tracker.attaching_existing()
                self._existing.__enter__()
            elif name == "auto_attach_end":
                self._existing.__exit__(None, None, None)
            elif name is None:
                self.deliver(entry["method"], entry["params"])
            if name == step:
                return
        raise AssertionError(f"no step {step!r} in the recording")

    async def run_set_ups(self) -> None:
        while self.spawned:
            await self.spawned.pop(0)()


async def _opened_tab(replay: Replay) -> FakeTab:
    """Up to new_tab, as Browser.new_tab sees it: the attach comes before createTarget's answer."""
    replay.until("auto_attach_end")
    replay.until("new_tab")
    assert replay.tracker.get(TAB) is not None  # attached before the reply
    replay.tracker.expect(TAB)
    await replay.run_set_ups()
    tab = await replay.tracker.wait_ready(TAB, 60)
    replay.tracker.expected(TAB)
    replay.tracker.current = tab
    return tab


def test_the_recording_has_every_step() -> None:
    methods = [entry.get("method") for entry in LOG]
    assert methods.count("Target.attachedToTarget") == 4
    for name in ("Target.detachedFromTarget", "Target.targetDestroyed", "Target.targetCrashed"):
        assert name in methods
    # Chrome announces a created tab before it answers createTarget.
    names = [
        entry.get("step") or entry["params"].get("targetInfo", {}).get("targetId") for entry in LOG
    ]
    assert names.index(TAB) < names.index("new_tab")


async def test_a_launched_chromes_start_up_tab_is_released() -> None:
    replay = Replay(keep_existing=False)
    replay.until("auto_attach_end")
    assert replay.released == [STARTUP["params"]["sessionId"]]
    assert replay.tabs == [] and replay.tracker.ready() == [] and replay.tracker.current is None


async def test_a_connected_browsers_existing_tab_is_kept_but_not_handed_out() -> None:
    replay = Replay(keep_existing=True)
    replay.until("auto_attach_end")
    assert replay.released == []
    startup = replay.tab(STARTUP["params"]["targetInfo"]["targetId"])
    assert replay.tracker.ready() == []  # not set up yet
    await replay.run_set_ups()
    assert replay.tracker.ready() == [startup]
    assert replay.tracker.current is startup
    assert not replay.tracker.owned(startup.target_id)  # connect mode never closes it
    with pytest.raises(WaitTimeoutError, match="no new tab"):
        await replay.tracker.next_opened(0)


async def test_new_tab_is_ready_owned_current_and_not_handed_out_as_opened() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    assert tab is replay.tab(TAB) and replay.set_up_done == [TAB]
    assert replay.tracker.ready() == [tab]
    assert replay.tracker.owned(TAB)
    assert replay.tracker.current is tab
    with pytest.raises(WaitTimeoutError):
        await replay.tracker.next_opened(0)


async def test_popup_is_handed_out_once_and_owned_like_its_opener() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    replay.until("popup")
    await replay.run_set_ups()
    popup = replay.tab(POPUP)
    assert popup.info.openerId == tab.target_id
    assert replay.tracker.owned(POPUP)
    assert replay.tracker.ready() == [tab, popup]
    assert await replay.tracker.next_opened(60) is popup
    with pytest.raises(WaitTimeoutError):
        await replay.tracker.next_opened(0)


async def test_a_waiter_gets_the_popup_that_opens_later() -> None:
    replay = Replay()
    await _opened_tab(replay)
    got: list[FakeTab] = []
    async with anyio.create_task_group() as group:

        async def wait() -> None:
            got.append(await replay.tracker.next_opened(60))

        group.start_soon(wait)
        await anyio.wait_all_tasks_blocked()
        replay.until("popup")
        await replay.run_set_ups()
    assert got == [replay.tab(POPUP)]


async def test_closed_popup_is_forgotten() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    replay.until("popup")
    await replay.run_set_ups()
    replay.tracker.current = replay.tab(POPUP)
    replay.until("context_tab")  # close_popup's detach and destroy, then the context tab
    popup = replay.tab(POPUP)
    assert popup.closed_with == "the tab was closed"
    assert replay.tracker.get(POPUP) is None and not replay.tracker.owned(POPUP)
    assert replay.tracker.current is tab  # the current tab falls back to the newest open
    with pytest.raises(WaitTimeoutError):
        await replay.tracker.next_opened(0)  # a closed popup is never handed out


async def test_context_tab_and_its_crash() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    replay.until("context_tab")
    replay.tracker.expect(IN_CONTEXT)
    await replay.run_set_ups()
    in_context = await replay.tracker.wait_ready(IN_CONTEXT, 60)
    replay.tracker.expected(IN_CONTEXT)
    assert in_context.info.browserContextId == CONTEXT
    replay.tracker.current = in_context
    replay.until("crash_call_failed")
    assert in_context.closed_with == "the tab was closed"
    assert replay.tracker.get(IN_CONTEXT) is None
    assert replay.tracker.ready() == [tab] and replay.tracker.current is tab


async def test_closing_the_last_tab_leaves_none() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    replay.until("end")
    await replay.run_set_ups()
    assert tab.closed_with == "the tab was closed"
    assert replay.tracker.ready() == [] and replay.tracker.all() == []
    assert replay.tracker.current is None


async def test_a_failed_set_up_reaches_new_tab_at_once() -> None:
    replay = Replay(failing={TAB})
    replay.until("new_tab")
    replay.tracker.expect(TAB)
    await replay.run_set_ups()
    with pytest.raises(KoBrowserError, match=r"set-up of .* failed") as caught:
        await replay.tracker.wait_ready(TAB, 60)
    assert not isinstance(caught.value, WaitTimeoutError)
    tab = replay.tab(TAB)
    assert tab.closed_with is not None and "could not be set up" in tab.closed_with
    assert replay.tracker.ready() == [] and replay.tracker.get(TAB) is None
    replay.tracker.expected(TAB)
    with pytest.raises(WaitTimeoutError):  # once new_tab is done, nothing is remembered
        await replay.tracker.wait_ready(TAB, 0)


async def test_a_tab_closed_while_opening_reaches_new_tab_at_once() -> None:
    replay = Replay()
    replay.until("new_tab")
    replay.tracker.expect(TAB)
    session = replay.tab(TAB).session_id
    replay.deliver("Target.detachedFromTarget", {"sessionId": session, "targetId": TAB})
    await replay.run_set_ups()
    with pytest.raises(TargetClosedError, match="the tab was closed"):
        await replay.tracker.wait_ready(TAB, 60)


async def test_not_a_page_and_a_second_attach_are_released() -> None:
    replay = Replay()
    await _opened_tab(replay)
    # The recorded attach of the tab, again, and as a worker (hand-made from the recording).
    again = copy.deepcopy(
        next(
            e
            for e in LOG
            if e.get("method") == "Target.attachedToTarget"
            and e["params"]["targetInfo"]["targetId"] == TAB
        )
    )
    replay.deliver(again["method"], again["params"])
    worker = copy.deepcopy(again)
    worker["params"]["sessionId"] = "WORKER-SESSION"
    worker["params"]["targetInfo"].update(targetId="WORKER", type="service_worker")
    replay.deliver(worker["method"], worker["params"])
    assert replay.released == [
        STARTUP["params"]["sessionId"],
        again["params"]["sessionId"],
        "WORKER-SESSION",
    ]
    assert [tab.target_id for tab in replay.tracker.all()] == [TAB]


async def test_lost_connection_closes_every_tab() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    replay.until("popup")
    await replay.run_set_ups()
    replay.tracker.on_connection_closed("the connection was lost")
    assert tab.closed_with == replay.tab(POPUP).closed_with == "the connection was lost"
    assert replay.tracker.ready() == [] and replay.tracker.current is None


async def test_forget_is_idempotent_and_current_can_be_chosen() -> None:
    replay = Replay()
    tab = await _opened_tab(replay)
    replay.until("popup")
    await replay.run_set_ups()
    popup = replay.tab(POPUP)
    assert replay.tracker.current is tab  # new_tab's choice stays; the Browser sets it
    replay.tracker.current = popup
    assert replay.tracker.current is popup
    replay.tracker.forget(popup)
    replay.tracker.forget(popup)
    assert replay.tracker.current is tab and replay.tracker.all() == [tab]
