"""Network: the public face of one tab's routes and request log (``tab.network``).

The work is :class:`~._routing.TabNetwork`'s (which requests Chrome pauses,
in which sessions) and :class:`~._log.RequestLog`'s; this class only writes
the API out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kobrowser._tab._network._routing import block_entries, route_entry

if TYPE_CHECKING:
    from kobrowser._tab._network._log import RequestRecord
    from kobrowser._tab._network._patterns import RoutePattern
    from kobrowser._tab._network._routing import RouteHandler, TabNetwork

__all__ = ["Network"]


class Network:
    """A tab's network: routes and blocks of its requests, and its request log.

    Routes and blocks apply to the page, its out-of-process iframes and,
    from their start, the popups it opens later. A context's routes
    (:meth:`BrowserContext.route <kobrowser.BrowserContext.route>`) apply
    after the tab's own.
    """

    def __init__(self, net: TabNetwork, timeout: Callable[[], float]) -> None:
        self._net = net
        self._timeout = timeout

    def __repr__(self) -> str:
        return f"<Network {len(self._net.routes)} routes>"

    # -- routing -------------------------------------------------------------

    async def route(self, pattern: RoutePattern, handler: RouteHandler) -> None:
        """Hand the requests matching ``pattern`` to ``handler``, in every frame.

        Only the requests the pattern may match are paused (a glob or a regex
        with literal text is turned into Chrome's own pattern); a predicate
        pauses every request to check it. When several routes match, the
        newest wins; the tab's routes before its context's.

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

        Returns once Chrome pauses the new route's requests. Cancelling the
        caller may leave the route registered but not yet sent to Chrome.
        """
        entry = route_entry(pattern, handler)
        self._net.routes.add([entry])
        await self._net.sync()

    async def unroute(self, pattern: RoutePattern, handler: RouteHandler | None = None) -> int:
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
        patterns: RoutePattern | Iterable[RoutePattern] | None = None,
        *,
        types: str | Iterable[str] | None = None,
    ) -> None:
        """Fail the requests matching any of ``patterns`` or of resource ``types``.

        Blocked requests fail with ``net::ERR_BLOCKED_BY_CLIENT``; only they
        are paused. For example
        ``await tab.network.block(types=["image", "font", "media"])``.

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

    # -- the request log -----------------------------------------------------

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
        self,
        pattern: RoutePattern | Callable[[RequestRecord], bool],
        *,
        timeout: float | None = None,
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
            pattern, self._timeout() if timeout is None else timeout
        )
