"""HAR recording: every request of a context's tabs and their frames, in detail.

Opt-in (a context made with ``record_har``, or :meth:`BrowserContext.start_har
<kobrowser.BrowserContext.start_har>`): a :class:`HarLog` belongs to the
context and gives each of its tabs a :class:`TabHar`, which follows the tab's
page session and every out-of-process frame's session with synchronous
listeners on the reader (like the request log: never blocking, never
dropped). The plain request log keeps a few fields per request for every
tab; this keeps what HAR 1.2 needs (headers, timings, sizes, bodies), so
only contexts that ask pay for it.

One request is one entry, whichever sessions report it: Chrome reports an
out-of-process iframe's document on its parent's session and its end on the
frame's own, under one request id, so entries are keyed by that id across
the tab's sessions. Each redirect hop is an entry of its own (HAR's
``redirectURL`` names the next). Bodies (``content="embed"``) are asked
of Chrome as each response finishes, in a job of the browser's task group
with the tab's deadline; :meth:`HarLog.settle` waits for those in flight
before a save. The HAR document itself is built by :mod:`._harformat`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, Literal

import anyio
import msgspec

from kobrowser._exceptions import KoBrowserError
from kobrowser._tab._network._harformat import Entry, Page, build_har

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["HAR_CONTENT", "HarContent", "HarLog", "TabHar", "is_browser_favicon"]

HarContent = Literal["omit", "embed"]
HAR_CONTENT: Final = ("omit", "embed")
MAX_ENTRIES: Final = 20_000  # per tab; the oldest go first
MAX_BODY: Final = 10 * 1024 * 1024  # bodies larger than this are left out
Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]

_DECODE = msgspec.json.Decoder(dict[str, Any])


def is_browser_favicon(resource_type: str, url: str) -> bool:
    """Whether a request is Chrome's own favicon fetch, not the page's traffic.

    Chrome asks for ``/favicon.ico`` of a shown page on its own, reported (when
    at all) as type ``Other``, and at a moment no page event orders; the
    request log's counters and the HAR leave it out.
    """
    return resource_type == "Other" and url.endswith("/favicon.ico")


class TabHar:
    """The HAR entries of one tab, fed by its sessions' Network events."""

    def __init__(
        self, log: HarLog, target_id: str, spawn: Spawn, timeout: Callable[[], float]
    ) -> None:
        self._log = log
        self._target_id = target_id  # the tab's main frame id
        self._spawn = spawn
        self._timeout = timeout
        self.entries: dict[str, Entry] = {}  # request id (or id#hop) -> entry, in order
        self.pages: list[Page] = []
        self._extra_request: dict[str, list[dict[str, Any]]] = {}
        self._extra_response: dict[str, dict[str, Any]] = {}
        self._hops = 0

    def watch(self, session: CDPSession, *, page: bool) -> None:
        """Follow ``session``'s Network events (before Network is enabled on it).

        ``page``: it is the tab's page session (its load events time the pages).
        """
        on = session.add_listener
        on("Network.requestWillBeSent", self._on_request)
        on("Network.requestWillBeSentExtraInfo", self._on_request_extra)
        on("Network.responseReceived", self._on_response)
        on("Network.responseReceivedExtraInfo", self._on_response_extra)
        on("Network.dataReceived", self._on_data)
        on("Network.requestServedFromCache", self._on_cached)
        on("Network.loadingFinished", lambda raw: self._on_finished(session, raw))
        on("Network.loadingFailed", self._on_failed)
        if page:
            on("Page.domContentEventFired", self._on_content_loaded)
            on("Page.loadEventFired", self._on_load)

    # -- listeners (inline on the reader) -----------------------------------

    def _put(self, key: str, entry: Entry) -> None:
        self.entries[key] = entry
        if len(self.entries) > MAX_ENTRIES:
            del self.entries[next(iter(self.entries))]

    def _on_request(self, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        key = event.get("requestId", "")
        request = event.get("request") or {}
        previous = self.entries.get(key)
        redirect = event.get("redirectResponse")
        if previous is not None:
            if redirect is None:
                return  # the same request, reported by a second session
            # A redirect: the hop ends here, the same id goes on with the new URL.
            self._hops += 1
            del self.entries[key]
            previous.respond(redirect, event.get("timestamp"))
            previous.redirect_url = request.get("url", "")
            previous.finish(event.get("timestamp"), None)
            self._put(f"{key}#{self._hops}", previous)
        frame_id = event.get("frameId", "")
        resource_type = str(event.get("type", "Other"))
        if is_browser_favicon(resource_type, request.get("url", "")):
            self._extra_request.pop(key, None)
            self._extra_response.pop(key, None)
            return
        if resource_type == "Document" and frame_id == self._target_id:
            self.pages.append(
                Page(
                    id=f"page_{self._log.next_page()}",
                    started=float(event.get("wallTime", 0.0)),
                    monotonic=float(event.get("timestamp", 0.0)),
                    title=request.get("url", ""),
                )
            )
        entry = Entry.from_request(event, self.pages[-1].id if self.pages else None)
        extra = self._extra_request.pop(key, None)
        if extra:
            entry.raw_request_headers = extra[-1].get("headers")
        response_extra = self._extra_response.pop(key, None)
        if response_extra is not None:
            entry.response_extra = response_extra
        self._put(key, entry)

    def _on_request_extra(self, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        key = event.get("requestId", "")
        entry = self.entries.get(key)
        if entry is not None and entry.status is None:
            entry.raw_request_headers = event.get("headers")
        else:  # it may come before requestWillBeSent
            self._extra_request.setdefault(key, []).append(event)
            if len(self._extra_request) > 1000:
                del self._extra_request[next(iter(self._extra_request))]

    def _on_response(self, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        entry = self.entries.get(event.get("requestId", ""))
        if entry is not None:
            entry.respond(event.get("response") or {}, event.get("timestamp"))

    def _on_response_extra(self, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        key = event.get("requestId", "")
        entry = self.entries.get(key)
        if entry is not None and entry.finished_at is None:
            entry.response_extra = event
        else:
            self._extra_response[key] = event
            if len(self._extra_response) > 1000:
                del self._extra_response[next(iter(self._extra_response))]

    def _on_data(self, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        entry = self.entries.get(event.get("requestId", ""))
        if entry is not None:
            entry.decoded_size += int(event.get("dataLength", 0))
            entry.encoded_data += int(event.get("encodedDataLength", 0))

    def _on_cached(self, raw: msgspec.Raw) -> None:
        entry = self.entries.get(_DECODE.decode(raw).get("requestId", ""))
        if entry is not None:
            entry.from_cache = True

    def _on_finished(self, session: CDPSession, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        key = event.get("requestId", "")
        entry = self.entries.get(key)
        if entry is None or entry.finished_at is not None:
            return
        entry.encoded_length = int(event.get("encodedDataLength", 0))
        entry.finish(event.get("timestamp"), None)
        if self._log.content == "embed" and entry.status is not None:
            self._log.fetch_body(session, key, entry, self._spawn, self._timeout())

    def _on_failed(self, raw: msgspec.Raw) -> None:
        event = _DECODE.decode(raw)
        entry = self.entries.get(event.get("requestId", ""))
        if entry is None or entry.finished_at is not None:
            return
        failure = event.get("errorText") or ("canceled" if event.get("canceled") else "failed")
        blocked = event.get("blockedReason")
        if blocked and str(blocked).lower() not in failure.lower():
            failure = f"{failure} ({blocked})"
        entry.finish(event.get("timestamp"), failure)

    def _on_content_loaded(self, raw: msgspec.Raw) -> None:
        if self.pages:
            self.pages[-1].content_loaded = _DECODE.decode(raw).get("timestamp")

    def _on_load(self, raw: msgspec.Raw) -> None:
        if self.pages:
            self.pages[-1].loaded = _DECODE.decode(raw).get("timestamp")


class HarLog:
    """What a context records for HAR: one :class:`TabHar` per tab, closed ones included.

    Args:
        content: ``"omit"`` (no bodies) or ``"embed"`` (each response's body,
            text as it is, binary in base64).
    """

    def __init__(self, content: HarContent = "omit") -> None:
        self.content: HarContent = content
        self.tabs: list[TabHar] = []
        self._pages = 0
        self._fetching = 0
        self._idle = anyio.Event()
        self._idle.set()

    def next_page(self) -> int:
        """A new page number (pages are numbered across the context's tabs)."""
        self._pages += 1
        return self._pages

    def tab(self, target_id: str, spawn: Spawn, timeout: Callable[[], float]) -> TabHar:
        """A new tab's recorder (it must then watch the tab's sessions)."""
        recorder = TabHar(self, target_id, spawn, timeout)
        self.tabs.append(recorder)
        return recorder

    def fetch_body(
        self, session: CDPSession, key: str, entry: Entry, spawn: Spawn, timeout: float
    ) -> None:
        """Ask Chrome for a finished response's body, in the background."""
        if self._fetching == 0:
            self._idle = anyio.Event()
        self._fetching += 1

        async def fetch() -> None:
            try:
                with contextlib.suppress(KoBrowserError):
                    result = await session.send(
                        "Network.getResponseBody", {"requestId": key}, timeout=timeout
                    )
                    body = result.get("body")
                    if isinstance(body, str) and len(body) <= MAX_BODY:
                        entry.body = body
                        entry.body_base64 = bool(result.get("base64Encoded"))
            finally:
                self._fetching -= 1
                if self._fetching == 0:
                    self._idle.set()

        spawn(fetch)

    async def settle(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the bodies being fetched; the rest stay out."""
        with anyio.move_on_after(timeout):
            await self._idle.wait()

    def to_har(self, browser_version: str = "") -> dict[str, Any]:
        """The HAR 1.2 document of everything recorded so far."""
        pages = [page for tab in self.tabs for page in tab.pages]
        entries = [entry for tab in self.tabs for entry in tab.entries.values()]
        return build_har(pages, entries, self.content, browser_version)
