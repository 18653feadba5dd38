"""Navigation of a tab: open, back, forward, reload.

Each returns once the requested load state is reached (see
:meth:`~kobrowser._waits.WaitsMixin.wait_for_load`), with the document's
HTTP :class:`~kobrowser.Response`; HTTP error pages are responses, not
errors. Network-level failures raise :class:`~kobrowser.NavigationError`;
a deadline raises :class:`~kobrowser.WaitTimeoutError` naming the state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from ._dialogs import DialogsMixin
from ._exceptions import NavigationError, ProtocolError, WaitTimeoutError
from ._pagestate import LoadState, Response
from ._validate import check
from ._waits import WaitsMixin, _check_state

__all__ = ["NavigationMixin"]

# Chrome reports an HTTP error status with an empty body as a failed load;
# for us it is a response like any other.
_HTTP_ERROR = "net::ERR_HTTP_RESPONSE_CODE_FAILURE"


class NavigationMixin(WaitsMixin, DialogsMixin):
    """Navigation (open, back, forward, reload), waits, dialogs and the page URL."""

    async def open(
        self,
        url: str,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
        referrer: str | None = None,
    ) -> Response | None:
        """Navigate the tab to ``url`` and wait until the page reaches ``wait_until``.

        Args:
            url: an absolute URL.
            wait_until: ``"commit"`` (the response arrived and the new document
                replaced the old), ``"domcontentloaded"``, ``"load"`` (the
                default: every resource incl. frames) or ``"networkidle"``
                (load, then no request in flight for 500 ms across the page
                and all its frames).
            timeout: seconds for the whole navigation (default: the browser's).
            referrer: the Referer header to send.

        Returns:
            The document's :class:`Response` (check ``status``: 404 and 500
            pages are responses, not errors), or None for a same-document
            navigation (``#fragment``).

        Raises:
            NavigationError: invalid URL, DNS failure, refused connection,
                aborted load (e.g. the URL is a download).
            WaitTimeoutError: ``wait_until`` not reached in time (the message
                names the state).
            TargetClosedError: the tab closed meanwhile.

        Cancelling the caller stops waiting; the navigation itself goes on.
        """
        check(url=url, wait_until=wait_until, timeout=timeout, referrer=referrer)
        params: dict[str, Any] = {"url": url}
        if referrer:
            params["referrer"] = referrer

        async def navigate() -> str | None:
            before = self._page.navigations
            try:
                result = await self.cdp.send("Page.navigate", params, timeout=deadline)
            except ProtocolError as exc:
                raise NavigationError(f"cannot open {url!r}: {exc.message}") from None
            error = result.get("errorText")
            if error and error != _HTTP_ERROR:
                raise NavigationError(f"cannot open {url!r}: {error}")
            loader: str | None = result.get("loaderId")
            if loader is None and self._page.url != url:
                # Same-document: Chrome may answer before it reports the new URL.
                while self._page.navigations == before:
                    await self._changed()
            return loader

        deadline = self._deadline(timeout)
        return await self._navigation(navigate, wait_until, deadline, f"{url!r}")

    async def reload(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Reload the page and wait for ``wait_until``; arguments and errors as :meth:`open`."""
        _check_state(wait_until)
        return await self._by_event(
            lambda: self.cdp.send("Page.reload"), wait_until, self._deadline(timeout), "reload"
        )

    async def back(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Go back in history and wait for ``wait_until``.

        Returns None when there is no previous entry or it is in the same
        document; otherwise as :meth:`open`.
        """
        return await self._history(-1, wait_until, timeout)

    async def forward(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Go forward in history and wait for ``wait_until``; see :meth:`back`."""
        return await self._history(1, wait_until, timeout)

    # -- internals -----------------------------------------------------------

    async def _history(
        self, delta: int, wait_until: LoadState, timeout: float | None
    ) -> Response | None:
        _check_state(wait_until)
        deadline = self._deadline(timeout)
        history = await self.cdp.send("Page.getNavigationHistory", timeout=deadline)
        index = history["currentIndex"] + delta
        entries = history["entries"]
        if not 0 <= index < len(entries):
            return None
        entry_id = entries[index]["id"]
        what = "back" if delta < 0 else "forward"
        return await self._by_event(
            lambda: self.cdp.send(
                "Page.navigateToHistoryEntry", {"entryId": entry_id}, timeout=deadline
            ),
            wait_until,
            deadline,
            what,
        )

    async def _by_event(
        self,
        call: Callable[[], Awaitable[Any]],
        wait_until: LoadState,
        deadline: float,
        what: str,
    ) -> Response | None:
        """Navigate by ``call`` (no loader id in its answer): the next top-frame navigation."""
        page = self._page

        async def navigate() -> str | None:
            before = page.navigations
            latest = page.latest_document()
            await call()
            while page.navigations == before:
                await self._changed()
            new = page.latest_document()
            return new if new != latest else None

        return await self._navigation(navigate, wait_until, deadline, what)

    async def _navigation(
        self,
        navigate: Callable[[], Awaitable[str | None]],
        wait_until: LoadState,
        deadline: float,
        what: str,
    ) -> Response | None:
        with anyio.move_on_after(deadline):
            loader = await navigate()
            if loader is None:
                return None  # same document: nothing loads
            loader = await self._until_document(loader, wait_until)
            response = self._page.response(loader)
            return response if response is not None else Response(self._page.url, 0)
        raise WaitTimeoutError(f"{what} did not reach {wait_until!r} within {deadline:g} s")
