"""The shape of Tab: one class, listeners before any call, each domain enabled once."""

from __future__ import annotations

import inspect
from collections import Counter
from typing import Any

import pytest

from kobrowser import Browser, Tab
from kobrowser.cdp import Connection

_FORWARDED_IN_BROWSER = ("open", "snapshot", "click", "fill", "wait_for_text", "evaluate")


def test_tab_is_one_class() -> None:
    assert Tab.__mro__ == (Tab, object)


def test_public_methods_are_written_out_on_tab() -> None:
    # Each public method is defined in Tab's own body (help(Tab) is the API).
    for name, _member in inspect.getmembers(Tab):
        if name.startswith("_"):
            continue
        assert name in vars(Tab), f"Tab.{name} comes from elsewhere"
    for name in _FORWARDED_IN_BROWSER:
        assert inspect.iscoroutinefunction(getattr(Tab, name)), name


class _FakeSession:
    """Records what a Tab does to its session while it is constructed."""

    id = "S1"

    def __init__(self) -> None:
        self.listeners: list[str] = []
        self.sent: list[str] = []

    def add_listener(self, method: str, listener: Any) -> Any:
        self.listeners.append(method)
        return lambda: None

    async def send(self, method: str, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        self.sent.append(method)
        raise AssertionError("a Tab must not send anything while it is constructed")


class _FakeBrowser:
    timeout = 5.0

    def _spawn(self, func: Any) -> None:  # pragma: no cover - no event arrives
        raise AssertionError("nothing to spawn")


def test_listeners_are_attached_before_any_call() -> None:
    session = _FakeSession()
    Tab(_FakeBrowser(), session, "T1")  # type: ignore[arg-type]
    assert session.sent == []
    for method in (
        "Page.javascriptDialogOpening",  # a popup may alert during its set-up
        "Page.frameNavigated",
        "Page.lifecycleEvent",
        "Network.requestWillBeSent",
        "Target.attachedToTarget",
    ):
        assert method in session.listeners, method


@pytest.mark.anyio
async def test_start_up_enables_each_domain_once(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str | None, str]] = []
    call, call_many = Connection.call, Connection.call_many

    async def recording_call(
        self: Connection, method: str, params: Any, session: Any, timeout: Any
    ) -> Any:
        sent.append((session.id, method))
        return await call(self, method, params, session, timeout)

    async def recording_call_many(self: Connection, requests: Any, **kwargs: Any) -> Any:
        sent.extend((request[0].id, request[1]) for request in requests)
        return await call_many(self, requests, **kwargs)

    monkeypatch.setattr(Connection, "call", recording_call)
    monkeypatch.setattr(Connection, "call_many", recording_call_many)
    tab = await browser.new_tab()
    try:
        counts = Counter(method for sid, method in sent if sid == tab.cdp.id)
        for method in (
            "Page.enable",
            "Network.enable",
            "Page.setLifecycleEventsEnabled",
            "Target.setAutoAttach",
        ):
            assert counts[method] == 1, (method, counts)
    finally:
        await tab.close()
