"""The shape of Tab: one class, listeners before any call, each domain enabled once."""

from __future__ import annotations

import inspect
from collections import Counter
from typing import Any

import pytest

from kobrowser import Browser, Console, Dialogs, Network, Tab
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


#: The families with state of their own: an object on the tab each, not Tab methods.
_FAMILIES = {"network": Network, "console": Console, "dialogs": Dialogs}


def test_families_are_objects_on_the_tab_with_their_whole_api() -> None:
    for name, cls in _FAMILIES.items():
        reached = inspect.getattr_static(Tab, name)
        assert isinstance(reached, property) and reached.fget and not reached.fset, name
        assert inspect.signature(reached.fget).return_annotation == cls.__name__, name
        assert cls.__mro__ == (cls, object), cls
        public = {m for m in dir(cls) if not m.startswith("_")}
        assert public, cls
        for member in public:
            assert member in vars(cls), f"{cls.__name__}.{member} comes from elsewhere"
            assert inspect.getdoc(getattr(cls, member)), f"{cls.__name__}.{member} has no docstring"
    assert {m for m in dir(Network) if not m.startswith("_")} == {
        "route",
        "unroute",
        "unroute_all",
        "block",
        "unblock",
        "requests",
        "clear_requests",
        "wait_for_response",
    }
    assert {m for m in dir(Console) if not m.startswith("_")} == {
        "messages",
        "errors",
        "clear",
        "on_message",
    }
    assert {m for m in dir(Dialogs) if not m.startswith("_")} == {"opened", "handle", "wait"}


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
    ids = "depth-first"

    def _spawn(self, func: Any) -> None:  # pragma: no cover - no event arrives
        raise AssertionError("nothing to spawn")


class _FakeContext:
    id = None
    _har = None  # not recording HAR

    def note_origin(self, origin: str) -> None:  # pragma: no cover - no event arrives
        raise AssertionError("no document navigated")


def test_listeners_are_attached_before_any_call() -> None:
    session = _FakeSession()
    tab = Tab(_FakeBrowser(), _FakeContext(), session, "T1")  # type: ignore[arg-type]
    assert session.sent == []
    for name, cls in _FAMILIES.items():
        assert isinstance(getattr(tab, name), cls) and getattr(tab, name) is getattr(tab, name)
    assert tab.context is None  # the default context
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
