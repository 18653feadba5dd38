"""Routes of a tab or context, and the per-tab network state that applies them.

Each tab has one :class:`TabNetwork`. It follows the page session and every
out-of-process frame's session (they are paused until their set-up is
sent, so no request escapes), and on each:

* enables ``Fetch`` with the union of the patterns of the tab's routes and
  its context's routes, so Chrome pauses only requests some route may want
  (see :mod:`._patterns`); with no route, ``Fetch`` stays disabled. While
  the context logs in to a proxy, every request is paused instead (Chrome
  hands a login challenge over only for a paused request; see
  :mod:`._auth`), and those no route wants go on at once;
* hands each paused request, in a task of the browser's task group (never on
  the reader), to the newest matching route: the tab's first, then the
  context's. A handler gets the tab's deadline to settle the request; if it
  raises or does not settle in time the request fails (logged) and nothing
  else is held up. A paused request no route matches goes on at once;
* feeds the request log and the console log.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio
import msgspec

from kobrowser._exceptions import InvalidArgumentError, KoBrowserError
from kobrowser._tab._network._auth import Credentials, ProxyAuth
from kobrowser._tab._network._console import ConsoleLog
from kobrowser._tab._network._log import RequestLog
from kobrowser._tab._network._patterns import RequestMatcher
from kobrowser._tab._network._requests import Request, Route

if TYPE_CHECKING:
    from kobrowser._tab._network._har import TabHar
    from kobrowser.cdp import CDPSession

__all__ = [
    "RouteEntry",
    "RouteHandler",
    "RouteTable",
    "TabNetwork",
    "block_entries",
    "guard_entry",
]

_log = logging.getLogger("kobrowser.network")

RouteHandler: TypeAlias = Callable[[Route], "Awaitable[None] | None"]
Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]
Call = tuple[str, "dict[str, Any] | None"]


class RouteEntry:
    """One registered route: which requests, and what to do with them."""

    __slots__ = ("blocking", "handler", "matcher")

    def __init__(self, matcher: RequestMatcher, handler: RouteHandler, blocking: bool) -> None:
        self.matcher = matcher
        self.handler = handler
        self.blocking = blocking


async def _block(route: Route) -> None:
    await route.abort("blockedbyclient")


def route_entry(pattern: Any, handler: RouteHandler) -> RouteEntry:
    """A checked route entry (raises InvalidArgumentError before anything changes)."""
    if not callable(handler):
        raise InvalidArgumentError(
            f"handler must be a callable taking a Route, not {type(handler).__name__}",
            argument="handler",
        )
    return RouteEntry(RequestMatcher(pattern), handler, blocking=False)


def guard_entry(refused: Callable[[str], bool]) -> RouteEntry:
    """A route that aborts every document request whose URL ``refused`` says no to."""
    matcher = RequestMatcher(lambda request: refused(request.url), ["document"])
    return RouteEntry(matcher, _block, blocking=True)


def block_entries(patterns: Any, types: str | Iterable[str] | None) -> list[RouteEntry]:
    """The checked entries that block ``patterns`` (URLs) and ``types`` (resource types)."""
    if patterns is None:
        patterns = []
    elif isinstance(patterns, str) or not isinstance(patterns, Iterable):
        patterns = [patterns]
    entries = [RouteEntry(RequestMatcher(p), _block, blocking=True) for p in patterns]
    if types is not None:
        matcher = RequestMatcher(None, types)
        if matcher.types:
            entries.append(RouteEntry(matcher, _block, blocking=True))
    if not entries:
        raise InvalidArgumentError("give URL patterns or resource types to block", argument="types")
    return entries


class RouteTable:
    """The routes of a tab or a context, newest last."""

    def __init__(self) -> None:
        self.entries: list[RouteEntry] = []
        #: Routes checked before every other, that unroute and unblock leave
        #: (a context's :class:`~kobrowser.Policy`).
        self.guards: list[RouteEntry] = []

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entries: Iterable[RouteEntry]) -> None:
        """Register routes (the newest wins when several match)."""
        self.entries.extend(entries)

    def remove(self, pattern: Any, handler: RouteHandler | None = None) -> int:
        """Drop the routes registered with ``pattern`` (and ``handler``); how many."""
        keep = [
            e
            for e in self.entries
            if not (
                e.matcher.pattern is not None
                and (e.matcher.pattern is pattern or e.matcher.pattern == pattern)
                and (handler is None or e.handler is handler)
            )
        ]
        removed = len(self.entries) - len(keep)
        self.entries = keep
        return removed

    def clear(self, *, blocking_only: bool = False) -> int:
        """Drop every route (or only those :meth:`block` added); how many."""
        keep = [e for e in self.entries if blocking_only and not e.blocking]
        removed = len(self.entries) - len(keep)
        self.entries = keep
        return removed


class _PausedRequest(msgspec.Struct):
    url: str
    method: str = "GET"
    headers: dict[str, str] = {}
    postData: str | None = None


class _Paused(msgspec.Struct):
    requestId: str
    request: _PausedRequest
    frameId: str = ""
    resourceType: str = "Other"


_PAUSED = msgspec.json.Decoder(_Paused)
#: What ``Fetch`` pauses while the context logs in to a proxy: every request.
_EVERY_REQUEST = [{"urlPattern": "*", "requestStage": "Request"}]


def fetch_patterns(tables: Iterable[RouteTable | None]) -> list[dict[str, str]]:
    """The union of the tables' Fetch patterns, deduplicated (``*`` swallows the rest)."""
    seen: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for table in tables:
        if table is None:
            continue
        for entry in [*table.guards, *table.entries]:
            for pattern in entry.matcher.fetch_patterns():
                seen.setdefault(tuple(sorted(pattern.items())), pattern)
    patterns = list(seen.values())
    if any(p["urlPattern"] == "*" and "resourceType" not in p for p in patterns):
        return [{"urlPattern": "*", "requestStage": "Request"}]
    return patterns


class TabNetwork:
    """A tab's routes, request log and console log over all its sessions.

    Args:
        page: the tab's page session.
        spawn: runs a coroutine function in the browser's task group.
        timeout: the tab's default deadline (a callable: it may change).
        context_routes: the routes of the tab's context (a callable: the
            context is known only after the tab was created).
        credentials: the proxy credentials of the tab's context (a callable,
            likewise; None: no proxy login).
    """

    def __init__(
        self,
        page: CDPSession,
        spawn: Spawn,
        timeout: Callable[[], float],
        context_routes: Callable[[], RouteTable | None],
        credentials: Credentials = lambda: None,
    ) -> None:
        self.page = page
        self._spawn = spawn
        self._timeout = timeout
        self._context_routes = context_routes
        self.routes = RouteTable()
        self.log = RequestLog()
        self.console = ConsoleLog(spawn)
        self.auth = ProxyAuth(credentials, spawn, timeout)
        self.har: TabHar | None = None  # the HAR recorder, while the context records
        self._sessions: list[CDPSession] = []
        self._enabled: dict[CDPSession, dict[str, Any]] = {}
        self.watch(page)

    def watch(self, session: CDPSession) -> None:
        """Follow a session's network, console and paused requests (before enabling)."""
        self._sessions.append(session)
        self.log.watch(session)
        self.console.watch(session)
        self.auth.watch(session)
        if self.har is not None:
            self.har.watch(session, page=session is self.page)
        session.add_listener("Fetch.requestPaused", lambda raw: self._on_paused(session, raw))

    def record(self, har: TabHar) -> None:
        """Record HAR entries from now on, on every live session and those to come."""
        self.har = har
        for session in self._sessions:
            if not session.closed:
                har.watch(session, page=session is self.page)

    def close(self, reason: str) -> None:
        """The tab went away: waits fail, callbacks stop."""
        self.log.close(reason)
        self.console.close()

    def patterns(self) -> list[dict[str, str]]:
        """The Fetch patterns of the tab's and its context's routes."""
        return fetch_patterns((self.routes, self._context_routes()))

    def _fetch_params(self) -> dict[str, Any] | None:
        """``Fetch.enable``'s parameters now (None: Fetch off)."""
        if self.auth.wanted:
            return {"patterns": _EVERY_REQUEST, "handleAuthRequests": True}
        patterns = self.patterns()
        return {"patterns": patterns} if patterns else None

    def _fetch_call(self, session: CDPSession) -> Call | None:
        params = self._fetch_params()
        previous = self._enabled.get(session)
        if previous == params:
            return None
        if params is not None:
            self._enabled[session] = params
            return ("Fetch.enable", params)
        self._enabled.pop(session, None)
        return ("Fetch.disable", None)

    def frame_setup(self, session: CDPSession) -> list[Call]:
        """Follow a new out-of-process frame; the calls to send before it runs."""
        self.watch(session)
        calls: list[Call] = [("Network.enable", None), ("Runtime.enable", None)]
        fetch = self._fetch_call(session)
        if fetch is not None:
            calls.append(fetch)
        return calls

    async def prepare_page(self) -> None:
        """Before a new tab runs: pause what its routes (or its opener's) cover."""
        fetch = self._fetch_call(self.page)
        if fetch is not None:
            await self.page.send(fetch[0], fetch[1], timeout=self._timeout())

    async def start_page(self) -> None:
        """Enable console and errors on the page session (replays earlier messages)."""
        await self.page.send("Runtime.enable", timeout=self._timeout())

    async def sync(self) -> None:
        """Send every live session the current Fetch patterns (after routes changed)."""
        self._sessions = [s for s in self._sessions if not s.closed]
        for gone in [s for s in self._enabled if s.closed]:
            del self._enabled[gone]
        calls = []
        for session in self._sessions:
            fetch = self._fetch_call(session)
            if fetch is not None:
                calls.append((session, fetch[0], fetch[1], None))
        if not calls:
            return
        results = await self.page.connection.call_many(calls, timeout=self._timeout())
        for (session, *_), result in zip(calls, results, strict=True):
            if isinstance(result, KoBrowserError) and not session.closed:
                if session is self.page:
                    raise result
                _log.warning("routes not updated in frame session %s: %s", session.id, result)

    # -- paused requests -----------------------------------------------------

    def _on_paused(self, session: CDPSession, raw: msgspec.Raw) -> None:
        event = _PAUSED.decode(raw)
        context_routes = self._context_routes()
        if not self.routes.entries and not (
            context_routes is not None and (context_routes.entries or context_routes.guards)
        ):
            # Paused only for the proxy's login: let it go on, no Route made.
            self._spawn(lambda: self._go_on(session, event.requestId))
            return
        self._spawn(lambda: self._handle(session, event))

    async def _go_on(self, session: CDPSession, request_id: str) -> None:
        try:
            await session.send(
                "Fetch.continueRequest", {"requestId": request_id}, timeout=self._timeout()
            )
        except KoBrowserError as exc:  # the page navigated away or closed
            _log.debug("continuing request %s: %s", request_id, exc)

    def _find(self, request: Request) -> RouteEntry | None:
        context = self._context_routes()
        ordered: list[Iterable[RouteEntry]] = [reversed(self.routes.entries)]
        if context is not None:  # the context's guards first, its routes after the tab's
            ordered = [context.guards, *ordered, reversed(context.entries)]
        for entries in ordered:
            for entry in entries:
                try:
                    if entry.matcher.matches(request):
                        return entry
                except Exception:
                    _log.exception("route predicate failed on %s; route skipped", request.url)
        return None

    async def _handle(self, session: CDPSession, event: _Paused) -> None:
        http = event.request
        request = Request(
            http.url,
            http.method,
            http.headers,
            event.resourceType.lower(),
            event.frameId,
            http.postData,
        )
        deadline = self._timeout()
        route = Route(session, event.requestId, request, deadline)
        entry = self._find(request)
        if entry is None:
            await route._go_on()
            return
        with anyio.move_on_after(deadline) as scope:
            try:
                result = entry.handler(route)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                _log.exception("route handler for %s raised", request.url)
                await route._fail_unsettled("raised")
                return
            await route._settled.wait()
        if scope.cancelled_caught:
            await route._fail_unsettled(f"did not settle it within {deadline:g} s")
