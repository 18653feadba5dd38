"""Navigation of a tab: open, back, forward, reload.

Each returns once the requested load state is reached (see
``Tab.wait_for_load``), with the document's HTTP :class:`~kobrowser.Response`;
HTTP error pages are responses, not errors. Network-level failures raise
:class:`~kobrowser.NavigationError`, and so does a proxy that refused the
credentials (its 407 answer is not the page); a deadline raises
:class:`~kobrowser.WaitTimeoutError` naming the state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from kobrowser._exceptions import NavigationError, ProtocolError
from kobrowser._tab._network._auth import refused_message
from kobrowser._tab._pagestate import LoadState, PageState, Response

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline
    from kobrowser._tab._waits import Waiter
    from kobrowser.cdp import CDPSession

__all__ = ["Navigator"]

# Chrome reports an HTTP error status with an empty body as a failed load;
# for us it is a response like any other.
_HTTP_ERROR = "net::ERR_HTTP_RESPONSE_CODE_FAILURE"
# The status of a proxy's login challenge: an error when it refused the credentials.
_PROXY_AUTH = 407
# A call inside the deadline's scope: the scope ends it first (a WaitTimeoutError
# naming the state); the call's own timeout only backs it up.
_BACKUP_S = 1.0


class Navigator:
    """Navigates one tab's top frame and waits for the load state asked for."""

    def __init__(
        self,
        page: CDPSession,
        state: PageState,
        waits: Waiter,
        proxy_refused: Callable[[str], bool] = lambda url: False,
    ) -> None:
        self._page = page
        self._state = state
        self._waits = waits
        self._proxy_refused = proxy_refused

    async def open(
        self, url: str, wait_until: LoadState, deadline: Deadline, referrer: str | None
    ) -> Response | None:
        """See ``Tab.open``."""
        params: dict[str, Any] = {"url": url}
        if referrer:
            params["referrer"] = referrer
        state = self._state

        async def navigate() -> str | None:
            before = state.navigations
            try:
                result = await self._page.send(
                    "Page.navigate", params, timeout=deadline.remaining() + _BACKUP_S
                )
            except ProtocolError as exc:
                raise NavigationError(f"cannot open {url!r}: {exc.message}") from None
            error = result.get("errorText")
            if error and error != _HTTP_ERROR:
                if self._proxy_refused(url):  # a tunnel (https) the proxy did not open
                    raise NavigationError(refused_message(url))
                raise NavigationError(f"cannot open {url!r}: {error}")
            loader: str | None = result.get("loaderId")
            if loader is None and state.url != url:
                # Same-document: Chrome may answer before it reports the new URL.
                while state.navigations == before:
                    await self._waits.changed()
            return loader

        return await self._navigation(navigate, wait_until, deadline, f"{url!r}")

    async def reload(self, wait_until: LoadState, deadline: Deadline) -> Response | None:
        """See ``Tab.reload``."""
        return await self._by_event(
            lambda: self._page.send("Page.reload", timeout=deadline.remaining() + _BACKUP_S),
            wait_until,
            deadline,
            "reload",
        )

    async def history(
        self, delta: int, wait_until: LoadState, deadline: Deadline
    ) -> Response | None:
        """Go ``delta`` entries through history (see ``Tab.back``, ``Tab.forward``)."""
        history = await self._page.send("Page.getNavigationHistory", timeout=deadline.remaining())
        index = history["currentIndex"] + delta
        entries = history["entries"]
        if not 0 <= index < len(entries):
            return None
        entry_id = entries[index]["id"]
        what = "back" if delta < 0 else "forward"
        return await self._by_event(
            lambda: self._page.send(
                "Page.navigateToHistoryEntry",
                {"entryId": entry_id},
                timeout=deadline.remaining() + _BACKUP_S,
            ),
            wait_until,
            deadline,
            what,
        )

    async def _by_event(
        self,
        call: Callable[[], Awaitable[Any]],
        wait_until: LoadState,
        deadline: Deadline,
        what: str,
    ) -> Response | None:
        """Navigate by ``call`` (no loader id in its answer): the next top-frame navigation."""
        state = self._state

        async def navigate() -> str | None:
            before = state.navigations
            latest = state.latest_document()
            await call()
            while state.navigations == before:
                await self._waits.changed()
            new = state.latest_document()
            return new if new != latest else None

        return await self._navigation(navigate, wait_until, deadline, what)

    async def _navigation(
        self,
        navigate: Callable[[], Awaitable[str | None]],
        wait_until: LoadState,
        deadline: Deadline,
        what: str,
    ) -> Response | None:
        with deadline.scope():
            loader = await navigate()
            if loader is None:
                return None  # same document: nothing loads
            loader = await self._waits.until_document(loader, wait_until)
            response = self._state.response(loader)
            if response is None:
                return Response(self._state.url, 0)
            if response.status == _PROXY_AUTH and self._proxy_refused(response.url):
                raise NavigationError(refused_message(response.url))
            return response
        raise deadline.error(f"{what} did not reach {wait_until!r}")
