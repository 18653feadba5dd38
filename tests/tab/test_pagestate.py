"""PageState fed the Page/Network events Chromium sent for a few navigations, no browser.

``fixtures/pagestate.json`` (``fixtures/record_pagestate.py``) holds what a
tab's page session got: opening a 200 page with an image, a same-document
(hash) navigation, then opening a 404 page. Each test replays it in order
through the listeners PageState registers on a stand-in session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kobrowser._tab._pagestate import PageState

pytestmark = pytest.mark.anyio

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "fixtures" / "pagestate.json").read_text()
)
TARGET: str = RECORDED["target"]


class _Session:
    """Holds the listeners PageState adds, as a page CDPSession would."""

    id = "PAGE-SESSION"

    def __init__(self) -> None:
        self.listeners: dict[str, list[Callable[[msgspec.Raw], None]]] = {}

    def add_listener(self, method: str, listener: Callable[[msgspec.Raw], None]) -> None:
        self.listeners.setdefault(method, []).append(listener)

    def emit(self, method: str, params: dict[str, Any]) -> None:
        for listener in self.listeners.get(method, []):
            listener(msgspec.Raw(msgspec.json.encode(params)))


def _events(step: str) -> Iterator[dict[str, Any]]:
    """The events recorded during ``step``, in order."""
    current = None
    for entry in RECORDED["log"]:
        if "step" in entry:
            current = entry["step"]
        elif current == step:
            yield entry


def _documents(step: str) -> list[dict[str, Any]]:
    return [
        e["params"]["frame"]
        for e in _events(step)
        if e["method"] == "Page.frameNavigated" and e["params"]["frame"]["id"] == TARGET
    ]


def _new_state() -> tuple[PageState, _Session]:
    frames: list[object] = []
    state = PageState(TARGET, frames.append)
    session = _Session()
    state.watch_page(session)  # type: ignore[arg-type]
    return state, session


def _play(session: _Session, step: str, until: str | None = None) -> None:
    """Replay ``step``'s events (stopping before the first ``until`` one)."""
    for entry in _events(step):
        if entry["method"] == until:
            return
        session.emit(entry["method"], entry["params"])


def test_the_fixture_has_what_the_tests_replay() -> None:
    assert [len(_documents(s)) for s in ("open_a", "hash", "open_missing")] == [1, 0, 1]
    assert any(e["method"] == "Page.navigatedWithinDocument" for e in _events("hash"))


async def test_opening_a_page_follows_url_document_states_and_response() -> None:
    state, session = _new_state()
    [doc] = _documents("open_a")
    changed = state.changed
    _play(session, "open_a")
    assert changed.is_set()
    assert state.url == doc["url"] and state.url.endswith("/a")
    assert state.loader_id == doc["loaderId"] == state.latest_document()
    assert state.navigations == 1 and not state.navigating
    for load_state in ("commit", "domcontentloaded", "load"):
        assert state.reached(doc["loaderId"], load_state)
    response = state.response(doc["loaderId"])
    assert response is not None and response.status == 200 and response.ok
    assert response.url == doc["url"]
    # The document, its image and the browser's favicon fetch all ended.
    assert state.inflight == 0 and state.idle_for() >= 0


async def test_a_document_is_committed_at_init_before_frame_navigated() -> None:
    state, session = _new_state()
    [doc] = _documents("open_a")
    _play(session, "open_a", until="Page.frameNavigated")
    assert state.navigating  # frameStartedLoading, no commit yet
    assert state.reached(doc["loaderId"], "commit")
    assert not state.reached(doc["loaderId"], "domcontentloaded")
    assert state.url == "about:blank" and state.navigations == 0
    assert state.inflight == 1  # the document request, not finished yet
    assert state.idle_for() == 0.0


async def test_requests_in_flight_counted_until_they_finish() -> None:
    state, session = _new_state()
    after: dict[str, int] = {}  # request url -> in flight right after it was sent
    for entry in _events("open_a"):
        session.emit(entry["method"], entry["params"])
        if entry["method"] == "Network.requestWillBeSent":
            after[entry["params"]["request"]["url"].rsplit("/", 1)[-1]] = state.inflight
    # The document and its image were counted; the browser's favicon fetch is not.
    assert after["a"] == 1 and after["img.png"] >= 1
    assert after["favicon.ico"] == 0
    assert state.inflight == 0


async def test_a_hash_change_moves_the_url_but_keeps_the_document() -> None:
    state, session = _new_state()
    _play(session, "open_a")
    loader = state.loader_id
    changed = state.changed
    _play(session, "hash")
    assert changed.is_set()
    assert state.url.endswith("/a#two")
    assert state.loader_id == loader and state.navigations == 2
    assert not state.navigating


async def test_a_404_page_is_a_response_not_ok_and_a_new_document() -> None:
    state, session = _new_state()
    _play(session, "open_a")
    first = state.loader_id
    _play(session, "hash")
    _play(session, "open_missing")
    [doc] = _documents("open_missing")
    assert state.url == doc["url"] and state.url.endswith("/missing")
    assert state.loader_id == doc["loaderId"] != first
    assert state.latest_document() == doc["loaderId"]
    assert state.navigations == 3
    response = state.response(doc["loaderId"])
    assert response is not None and response.status == 404 and not response.ok
    assert state.reached(doc["loaderId"], "load")
    assert state.reached(first, "load")  # the old document's record stays
    assert state.inflight == 0


async def test_close_wakes_waiters_once_with_the_first_reason() -> None:
    state, _ = _new_state()
    changed = state.changed
    state.close("crashed")
    assert changed.is_set() and state.gone == "crashed"
    again = state.changed
    state.close("closed")
    assert state.gone == "crashed" and not again.is_set()


async def test_a_frame_tree_answer_older_than_the_events_is_not_taken() -> None:
    # A popup runs while its tab is set up: Page.getFrameTree answered with the
    # initial empty document, then the events of the real one were handled
    # before the answer was used. Taking it made wait_for_load wait for the
    # empty document's load, which never comes (seen 1 in 8 runs).
    state, session = _new_state()
    [doc] = _documents("open_a")
    when_answered = state.documents()
    _play(session, "open_a")
    state.seed({"loaderId": "EMPTY-INITIAL", "url": ""}, when_answered)
    assert state.loader_id == doc["loaderId"] == state.latest_document()
    assert state.url == doc["url"] and state.reached(doc["loaderId"], "load")


async def test_a_frame_tree_answer_newer_than_the_events_is_taken() -> None:
    state, session = _new_state()
    [doc] = _documents("open_a")
    _play(session, "open_a", until="Page.frameNavigated")
    state.seed(doc, state.documents())  # nothing happened since the answer
    assert state.loader_id == doc["loaderId"] and state.url == doc["url"]
    other = {"loaderId": "LATER", "url": "http://example.test/later"}
    state.seed(other, state.documents())
    assert state.loader_id == "LATER" == state.latest_document()
    assert state.url == "http://example.test/later"
