"""Tab: the public tab class, assembled from its parts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._actions import ActionsMixin
from ._navigation import NavigationMixin
from ._network import block_entries, route_entry

if TYPE_CHECKING:
    from ._network import (
        ConsoleMessage,
        PageError,
        RequestRecord,
        RouteHandler,
        URLPattern,
    )

__all__ = ["Tab"]


class Tab(NavigationMixin, ActionsMixin):
    """One browser tab (a page target) with its own CDP session and state.

    Each tab has its own snapshot, id map, frame registry and event streams;
    tabs never share state, so ``asyncio.gather`` over many tabs is safe.

    Attributes:
        cdp: the tab's raw :class:`~kobrowser.cdp.CDPSession` (send + subscribe).
        target_id: Chrome's id of the page target.
    """

    # -- network routing ---------------------------------------------------

    async def route(self, pattern: URLPattern, handler: RouteHandler) -> None:
        """Hand the requests matching ``pattern`` to ``handler``, in every frame.

        Applies to the page, its out-of-process iframes and, from their
        start, popups it opens later. Only the requests the pattern may match
        are paused (a glob or a regex with literal text is turned into
        Chrome's own pattern); a predicate pauses every request to check it.
        When several routes match, the newest wins; the tab's routes before
        its context's.

        Args:
            pattern: a URL glob (``"**/api/*"``: ``**`` any characters, ``*``
                any but ``/``, ``{a,b}`` alternatives; the whole URL must
                match), a compiled regex (``search``) or a predicate taking a
                :class:`~kobrowser.Request`.
            handler: called with a :class:`~kobrowser.Route` (sync or async)
                that must settle it: ``continue_``, ``fulfill`` or ``abort``.
                One that raises, or does not settle within the tab's deadline,
                fails that request only (logged).

        Raises:
            InvalidArgumentError: a bad pattern or handler (nothing changed).

        Returns once Chrome pauses the new route's requests.
        """
        entry = route_entry(pattern, handler)
        self._net.routes.add([entry])
        await self._net.sync()

    async def unroute(self, pattern: URLPattern, handler: RouteHandler | None = None) -> int:
        """Remove the routes registered with ``pattern`` (and ``handler``, if given).

        Returns:
            How many routes were removed.
        """
        removed = self._net.routes.remove(pattern, handler)
        await self._net.sync()
        return removed

    async def unroute_all(self) -> int:
        """Remove every route and block of this tab; returns how many."""
        removed = self._net.routes.clear()
        await self._net.sync()
        return removed

    async def block(
        self,
        patterns: URLPattern | Iterable[URLPattern] | None = None,
        *,
        types: str | Iterable[str] | None = None,
    ) -> None:
        """Fail the requests matching any of ``patterns`` or of resource ``types``.

        Blocked requests fail with ``net::ERR_BLOCKED_BY_CLIENT``; only they
        are paused. For example ``await tab.block(types=["image", "font", "media"])``.

        Args:
            patterns: URL patterns as for :meth:`route`.
            types: resource types: ``document``, ``stylesheet``, ``image``,
                ``media``, ``font``, ``script``, ``texttrack``, ``xhr``,
                ``fetch``, ``prefetch``, ``eventsource``, ``websocket``,
                ``manifest``, ``signedexchange``, ``ping``,
                ``cspviolationreport``, ``preflight``, ``other`` (or one
                comma-separated string). Chrome pauses ``fetch()`` requests
                as XHRs, so ``xhr`` and ``fetch`` each block both.

        Raises:
            InvalidArgumentError: an unknown type, a bad pattern, or nothing
                to block (nothing changed).
        """
        self._net.routes.add(block_entries(patterns, types))
        await self._net.sync()

    async def unblock(self) -> int:
        """Remove every block of :meth:`block`; returns how many."""
        removed = self._net.routes.clear(blocking_only=True)
        await self._net.sync()
        return removed

    # -- request log -------------------------------------------------------

    @property
    def requests(self) -> list[RequestRecord]:
        """The tab's recent requests, oldest first, across all its frames.

        Bounded (the oldest of more than 1000 are dropped); each record is
        a snapshot taken when read.
        """
        return self._net.log.records()

    def clear_requests(self) -> None:
        """Empty the request log."""
        self._net.log.clear()

    async def wait_for_response(
        self, pattern: URLPattern | Callable[[RequestRecord], bool], *, timeout: float | None = None
    ) -> RequestRecord:
        """Wait for the next response (after this call) whose URL matches ``pattern``.

        Args:
            pattern: a URL glob, a compiled regex, or a predicate taking a
                :class:`~kobrowser.RequestRecord` (it runs in this task).
            timeout: seconds (default: the browser's).

        Returns:
            The request's record, with its ``status``.

        Raises:
            InvalidArgumentError: a bad pattern or timeout.
            WaitTimeoutError: no such response in time.
            TargetClosedError: the tab closed meanwhile.

        Cancelling the caller stops waiting.
        """
        return await self._net.log.wait_for_response(
            pattern, self.timeout if timeout is None else timeout
        )

    # -- console and errors ------------------------------------------------

    def console_messages(self) -> list[ConsoleMessage]:
        """The console messages of the page and all its frames, oldest first (bounded)."""
        return list(self._net.console.messages)

    def page_errors(self) -> list[PageError]:
        """The uncaught exceptions of the page and all its frames, oldest first (bounded)."""
        return list(self._net.console.errors)

    def clear_console(self) -> None:
        """Forget the console messages and page errors seen so far."""
        self._net.console.clear()

    def on_console(self, callback: Callable[[ConsoleMessage], Any]) -> Callable[[], None]:
        """Call ``callback(message)`` (sync or async) for each new console message.

        Callbacks run in order in one task of the browser, never on the
        connection's reader; one that raises is logged and stays registered.

        Returns:
            A function that removes the callback.
        """
        return self._net.console.on_console(callback)
