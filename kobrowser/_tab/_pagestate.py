"""What a tab knows about its page from CDP events: URL, load states, network.

One :class:`PageState` per tab follows, through synchronous listeners on the
reader (never dropped, never blocking):

* the main frame's URL and current document (``Page.frameNavigated``,
  ``Page.navigatedWithinDocument``);
* the lifecycle states each main-frame document reached
  (``Page.lifecycleEvent``: ``commit`` is implied by the navigation,
  ``DOMContentLoaded``, ``load``);
* the requests in flight across the page and all its out-of-process frames
  (``Network.*`` on the page session and every frame session it
  auto-attaches, recursively), and when the last one ended;
* the HTTP response of each main-frame document (status, URL).

Every change sets :attr:`PageState.changed` (then replaces it), so waits
re-check their condition when, and only when, something happened.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import anyio
import msgspec

from kobrowser._tab._network._har import is_browser_favicon
from kobrowser.cdp._events import ATTACHED, DETACHED

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["LOAD_STATES", "NETWORK_IDLE_S", "LoadState", "PageState", "Response"]

LoadState = Literal["commit", "domcontentloaded", "load", "networkidle"]
LOAD_STATES: tuple[str, ...] = ("commit", "domcontentloaded", "load", "networkidle")
NETWORK_IDLE_S = 0.5
_KEEP_DOCUMENTS = 8


class Response(msgspec.Struct, frozen=True):
    """The HTTP response of a navigated document.

    HTTP error pages (404, 500...) are responses, not errors: check
    :attr:`ok` or :attr:`status`.

    Attributes:
        url: the final URL (after redirects).
        status: the HTTP status code (0 when none, e.g. ``data:`` URLs).
        status_text: the reason phrase, when the server sent one.
    """

    url: str
    status: int
    status_text: str = ""

    @property
    def ok(self) -> bool:
        """True for status 200-399 (and for documents without HTTP status)."""
        return self.status == 0 or 200 <= self.status < 400


# -- event params: only the fields used --------------------------------------


class _Frame(msgspec.Struct):
    id: str
    loaderId: str = ""
    url: str = ""
    urlFragment: str = ""
    unreachableUrl: str = ""
    parentId: str | None = None


class _FrameNavigated(msgspec.Struct):
    frame: _Frame
    type: str = "Navigation"


class _WithinDocument(msgspec.Struct):
    frameId: str
    url: str


class _FrameId(msgspec.Struct):
    frameId: str


class _Lifecycle(msgspec.Struct):
    frameId: str
    loaderId: str
    name: str


class _Request(msgspec.Struct):
    url: str = ""


class _RequestWillBeSent(msgspec.Struct):
    requestId: str
    loaderId: str = ""
    frameId: str = ""
    type: str | None = None
    request: _Request = msgspec.field(default_factory=_Request)


class _RequestDone(msgspec.Struct):
    requestId: str


class _HTTPResponse(msgspec.Struct):
    url: str = ""
    status: int = 0
    statusText: str = ""


class _ResponseReceived(msgspec.Struct):
    requestId: str
    loaderId: str = ""
    frameId: str | None = None
    type: str | None = None
    response: _HTTPResponse = msgspec.field(default_factory=_HTTPResponse)


_FRAME_NAVIGATED = msgspec.json.Decoder(_FrameNavigated)
_WITHIN_DOCUMENT = msgspec.json.Decoder(_WithinDocument)
_LIFECYCLE = msgspec.json.Decoder(_Lifecycle)
_FRAME_ID = msgspec.json.Decoder(_FrameId)
_REQUEST = msgspec.json.Decoder(_RequestWillBeSent)
_DONE = msgspec.json.Decoder(_RequestDone)
_RESPONSE = msgspec.json.Decoder(_ResponseReceived)

_LIFECYCLE_NAMES = {"DOMContentLoaded": "domcontentloaded", "load": "load"}


class PageState:
    """The event-fed state of one tab's page (see the module docstring).

    Attributes:
        main_frame_id: the top frame's id (== the page target's id).
        url: the top document's URL.
        loader_id: the top document's loader id ("" before the first commit).
        navigations: how many times the top frame navigated (incl. same-document).
    """

    def __init__(self, main_frame_id: str, on_frame: Callable[[CDPSession], None]) -> None:
        self.main_frame_id = main_frame_id
        self._on_frame = on_frame
        self.url = "about:blank"
        self.loader_id = ""
        self.navigations = 0
        self.changed = anyio.Event()
        self._states: OrderedDict[str, set[str]] = OrderedDict()
        self._responses: OrderedDict[str, Response] = OrderedDict()
        # request id -> (session it started on, loader id of the document that
        # made it, the frame id when it is a frame's document request). Ids
        # are unique browser-wide; a frame's document request starts on its
        # parent's session and may end on the frame's own.
        self._inflight: dict[str, tuple[str | None, str, str]] = {}
        self._page_session: str | None = None
        self._idle_since = time.monotonic()
        self._sessions: set[str | None] = set()
        self.gone: str | None = None
        self.navigating = False  # a top-frame navigation started and has not committed

    # -- queries -----------------------------------------------------------

    def reached(self, loader_id: str, state: str) -> bool:
        """Whether the document ``loader_id`` reached ``state`` (not networkidle)."""
        if state == "commit":
            return loader_id in self._states
        return state in self._states.get(loader_id, ())

    def latest_document(self) -> str:
        """The loader id of the newest top-frame document that committed."""
        return next(reversed(self._states), "") if self._states else ""

    def response(self, loader_id: str) -> Response | None:
        """The HTTP response of the top-frame document ``loader_id``, if seen."""
        return self._responses.get(loader_id)

    @property
    def inflight(self) -> int:
        """Requests in flight across the page and its out-of-process frames."""
        return len(self._inflight)

    def idle_for(self) -> float:
        """Seconds since the last request ended (0 while any is in flight)."""
        if self._inflight:
            return 0.0
        return time.monotonic() - self._idle_since

    def close(self, reason: str) -> None:
        """The tab went away: wake every wait so it can fail."""
        if self.gone is None:
            self.gone = reason
            self._notify()

    def _notify(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    # -- wiring ------------------------------------------------------------

    def watch_page(self, session: CDPSession) -> None:
        """Follow the page session (call before enabling its domains)."""
        self._page_session = session.id
        session.add_listener("Page.frameNavigated", self._on_frame_navigated)
        session.add_listener("Page.navigatedWithinDocument", self._on_within_document)
        session.add_listener("Page.lifecycleEvent", self._on_lifecycle)
        session.add_listener("Page.frameStartedLoading", self._on_started_loading)
        session.add_listener("Page.frameStoppedLoading", self._on_stopped_loading)
        self._watch_network(session)

    def _watch_network(self, session: CDPSession) -> None:
        sid = session.id
        self._sessions.add(sid)
        session.add_listener("Network.requestWillBeSent", lambda raw: self._on_request(sid, raw))
        session.add_listener("Network.loadingFinished", self._on_done)
        session.add_listener("Network.loadingFailed", self._on_done)
        session.add_listener("Network.responseReceived", self._on_response)
        session.add_listener("Target.attachedToTarget", lambda raw: self._on_attached(session, raw))
        session.add_listener("Target.detachedFromTarget", self._on_detached)

    # -- listeners (run inline on the connection's reader) -----------------

    def _on_frame_navigated(self, raw: msgspec.Raw) -> None:
        event = _FRAME_NAVIGATED.decode(raw)
        frame = event.frame
        if frame.parentId is not None or frame.id != self.main_frame_id:
            return
        # An error page's URL is chrome-error://...; report the one that failed.
        self.url = frame.unreachableUrl or frame.url + frame.urlFragment
        self.loader_id = frame.loaderId
        self.navigations += 1
        self.navigating = False
        states = self._states.pop(frame.loaderId, set())
        if event.type == "BackForwardCacheRestore":
            states |= {"domcontentloaded", "load"}  # restored whole: no load events follow
        self._states[frame.loaderId] = states
        # Chrome does not always report the end of the old document's
        # requests (e.g. its favicon) once a new one replaced it.
        stale = [
            key
            for key, (sid, loader, _) in self._inflight.items()
            if sid == self._page_session and loader != frame.loaderId
        ]
        for key in stale:
            del self._inflight[key]
        if stale and not self._inflight:
            self._idle_since = time.monotonic()
        while len(self._states) > _KEEP_DOCUMENTS:
            self._states.popitem(last=False)
        self._notify()

    def documents(self) -> tuple[str, ...]:
        """The documents recorded so far, oldest first (see :meth:`seed`)."""
        return tuple(self._states)

    def seed(self, frame: dict[str, Any], documents: tuple[str, ...] | None = None) -> None:
        """Take the top frame's URL and document from ``Page.getFrameTree``.

        For a tab set up after its page already navigated (a popup).
        ``documents`` is :meth:`documents` when the answer arrived: events
        handled between the answer and this call are newer than it (a popup
        that runs while its tab is set up), so when they recorded another
        document, the answer is stale and is not taken.
        """
        loader = frame.get("loaderId", "")
        if not loader or loader == self.loader_id:
            return
        if documents is not None and self.documents() != documents:
            newest = next(reversed(self._states))
            if newest != loader:
                return
        self.url = frame.get("unreachableUrl") or frame.get("url", "") + frame.get(
            "urlFragment", ""
        )
        self.loader_id = loader
        self._states[loader] = self._states.pop(loader, set())
        self._notify()

    def mark(self, loader_id: str, state: str) -> None:
        """Record that document ``loader_id`` reached ``state`` (and the states before)."""
        states = self._states.setdefault(loader_id, set())
        states.add("domcontentloaded")
        if state == "load":
            states.add("load")
        self._notify()

    def _on_started_loading(self, raw: msgspec.Raw) -> None:
        if _FRAME_ID.decode(raw).frameId == self.main_frame_id:
            self.navigating = True
            self._notify()

    def _on_stopped_loading(self, raw: msgspec.Raw) -> None:
        if _FRAME_ID.decode(raw).frameId == self.main_frame_id and self.navigating:
            self.navigating = False
            self._notify()

    def _on_within_document(self, raw: msgspec.Raw) -> None:
        event = _WITHIN_DOCUMENT.decode(raw)
        if event.frameId != self.main_frame_id:
            return
        self.url = event.url
        self.navigations += 1
        self._notify()

    def _on_lifecycle(self, raw: msgspec.Raw) -> None:
        event = _LIFECYCLE.decode(raw)
        if event.frameId != self.main_frame_id:
            return
        if event.name == "init":
            # A new document starts; record it so "commit" can be seen even
            # before frameNavigated (which follows).
            self._states.setdefault(event.loaderId, set())
            return
        state = _LIFECYCLE_NAMES.get(event.name)
        if state is None:
            return
        self._states.setdefault(event.loaderId, set()).add(state)
        if state == "load":
            # Chrome fires DOMContentLoaded before load; make sure both count.
            self._states[event.loaderId].add("domcontentloaded")
        self._notify()

    def _on_request(self, sid: str | None, raw: msgspec.Raw) -> None:
        request = _REQUEST.decode(raw)
        key = request.requestId
        if key in self._inflight:
            return  # a redirect of a request already counted
        if is_browser_favicon(request.type or "", request.request.url):
            return
        document = request.frameId if request.type == "Document" else ""
        self._inflight[key] = (sid, request.loaderId, document)
        self._notify()

    def _on_done(self, raw: msgspec.Raw) -> None:
        if self._inflight.pop(_DONE.decode(raw).requestId, None) is None:
            return
        if not self._inflight:
            self._idle_since = time.monotonic()
        self._notify()

    def _on_response(self, raw: msgspec.Raw) -> None:
        event = _RESPONSE.decode(raw)
        if event.type != "Document" or event.frameId != self.main_frame_id:
            return
        http = event.response
        self._responses[event.loaderId or event.requestId] = Response(
            http.url, http.status, http.statusText
        )
        while len(self._responses) > _KEEP_DOCUMENTS:
            self._responses.popitem(last=False)

    def _on_attached(self, parent: CDPSession, raw: msgspec.Raw) -> None:
        attached = ATTACHED.decode(raw)
        if attached.targetInfo.type != "iframe":
            return
        session = parent.connection.session(attached.sessionId)
        if session.id in self._sessions:
            return
        self._watch_network(session)
        self._on_frame(session)
        # The frame's document request started on the parent; its end is
        # reported on the new session, maybe before Network is enabled there.
        frame_id = attached.targetInfo.targetId
        done = [key for key, entry in self._inflight.items() if entry[2] == frame_id]
        for key in done:
            del self._inflight[key]
        if done and not self._inflight:
            self._idle_since = time.monotonic()

    def _on_detached(self, raw: msgspec.Raw) -> None:
        sid = DETACHED.decode(raw).sessionId
        self._sessions.discard(sid)
        gone = [key for key, (owner, _, _) in self._inflight.items() if owner == sid]
        if gone:
            for key in gone:
                del self._inflight[key]
            if not self._inflight:
                self._idle_since = time.monotonic()
            self._notify()
