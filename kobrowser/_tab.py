"""Tab: the public tab class, assembled from its parts."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from . import _capture
from ._actions import ActionsMixin
from ._navigation import NavigationMixin
from ._network import block_entries, route_entry
from ._validate import check
from .actions import Action, Outcome, execute, to_action

if TYPE_CHECKING:
    from ._network import ConsoleMessage, PageError, RequestRecord, RouteHandler, RoutePattern

__all__ = ["Tab"]


class Tab(NavigationMixin, ActionsMixin):
    """One browser tab (a page target) with its own CDP session and state.

    Each tab has its own snapshot, id map, frame registry and event streams;
    tabs never share state, so ``asyncio.gather`` over many tabs is safe.

    Attributes:
        cdp: the tab's raw :class:`~kobrowser.cdp.CDPSession` (send + subscribe).
        target_id: Chrome's id of the page target.
    """

    async def do(self, action: Action | str, *, timeout: float | None = None) -> Outcome:
        """Run one action of the grammar (``click 5``, ``fill 3 "hi"``) on this tab.

        The action runs through this tab's own methods (``click 5`` is
        ``await tab.click(5)``); see :func:`kobrowser.parse_action` for the
        grammar. ``tab N`` switches a browser's current tab, so it needs
        :meth:`Browser.do` (here it fails in the outcome); ``done "answer"``
        does nothing and carries the answer.

        Args:
            action: an :class:`~kobrowser.Action`, or one action line (or
                JSON object) as a str.
            timeout: deadline in seconds of the method the action runs
                (default: the browser's).

        Returns:
            The :class:`~kobrowser.Outcome`. The action's own errors (a stale
            or unknown id, an element that is not interactable, a navigation
            error, a timeout, an unknown key or option) are in it
            (``ok=False``), not raised.

        Raises:
            ActionSyntaxError: ``action`` is a str that is not exactly one action.
            InvalidArgumentError: ``action`` is neither an Action nor a str,
                or ``timeout`` is not a number of seconds >= 0.

        Cancelling the caller cancels the action's method; input already
        sent is not undone.
        """
        check(timeout=timeout)
        return await execute(self, to_action(action), timeout=timeout)

    async def screenshot(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        full_page: bool = False,
        id: int | None = None,
        annotate: bool = False,
        format: str | None = None,
        quality: int | None = None,
        timeout: float | None = None,
    ) -> bytes:
        """Capture the page as an image; optionally draw the snapshot's ids on it.

        The page is left exactly as it was: nothing scrolls (full pages and
        elements below the fold are captured beyond the viewport), no node
        is added, focus stays where it is.

        Args:
            path: also write the image there.
            full_page: the whole page, not only the viewport.
            id: only this element of the last snapshot (its visible part;
                checked like an action's id, so a stale id raises).
            annotate: draw every id of the last snapshot that shows in the
                captured area at its element: an outline and a numbered label
                (inside cross-origin iframes too). Needs Pillow
                (``pip install 'ko-browser[screenshot]'``).
            format: ``"png"``, ``"jpeg"`` or ``"webp"``; default: from the
                suffix of ``path``, else PNG.
            quality: 0-100, for JPEG and WebP.
            timeout: deadline of each CDP call (default: the browser's).

        Returns:
            The encoded image.

        Raises:
            InvalidArgumentError: a bad format, quality, or ``full_page`` with ``id``.
            NoSnapshotError: ``id`` or ``annotate`` without a snapshot.
            UnknownElementError, StaleElementError: ``id`` is not valid now.
            CaptureError: nothing to capture (element not rendered or scrolled
                out of its container's view), Pillow missing, file not writable.

        Cancelling the caller abandons the capture; the page is unchanged.
        """
        return await _capture.screenshot(
            self,
            path,
            full_page=full_page,
            element_id=id,
            annotate=annotate,
            image_format=format,
            quality=quality,
            timeout=timeout,
        )

    async def pdf(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        landscape: bool = False,
        print_background: bool = True,
        scale: float = 1.0,
        paper: str = "A4",
        timeout: float | None = None,
    ) -> bytes:
        """Print the page to PDF (headless Chrome only).

        Args:
            path: also write the PDF there.
            landscape: landscape orientation.
            print_background: print background colours and images.
            scale: 0.1 to 2.
            paper: ``"A4"`` or ``"Letter"``.
            timeout: deadline of the call (default: the browser's).

        Returns:
            The PDF document (starts with ``%PDF``).

        Raises:
            InvalidArgumentError: a bad paper or scale.
            CaptureError: the browser has a window (headed), or Chrome failed.

        Cancelling the caller abandons the print.
        """
        process = getattr(self._browser, "_process", None)
        return await _capture.pdf(
            self,
            path,
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper=paper,
            headless=getattr(process, "headless", None),
            timeout=timeout,
        )

    async def set_viewport(self, width: int, height: int) -> None:
        """Resize this tab's page area to ``width`` x ``height`` CSS pixels.

        Kept across navigations, over its context's viewport; the context's
        scale and mobile settings stay.

        Raises:
            InvalidArgumentError: not whole numbers > 0.
        """
        context = self.context or self._browser.default_context
        await context._emulation.set_tab_viewport(self, width, height)

    # -- network routing ---------------------------------------------------

    async def route(self, pattern: RoutePattern, handler: RouteHandler) -> None:
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
