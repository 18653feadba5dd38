"""Tab: the public tab class, assembled from its parts."""

from __future__ import annotations

import os

from . import _capture
from ._actions import ActionsMixin
from ._navigation import NavigationMixin
from ._validate import check
from .actions import Action, Outcome, execute, to_action

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
