"""BrowserContext: an isolated set of tabs with its own cookies, storage and cache."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from ._downloads import download_behavior
from ._exceptions import KoBrowserError, ProtocolError

if TYPE_CHECKING:
    from types import TracebackType

    from ._browser import Browser
    from ._tab import Tab
    from ._tab._pagestate import LoadState

__all__ = ["BrowserContext"]


class BrowserContext:
    """An isolated browser context (like an incognito profile) on the same browser.

    Tabs opened in it (and the popups they open) share its cookies, storage
    and cache, and nothing with other contexts. Create with
    :meth:`Browser.new_context`; use as an async context manager or call
    :meth:`close`, which closes its tabs.

    Attributes:
        id: Chrome's browser context id.
    """

    def __init__(self, browser: Browser, context_id: str, download_dir: Path | None) -> None:
        self._browser = browser
        self.id = context_id
        self.download_dir = download_dir
        self._closed = False

    def __repr__(self) -> str:
        return f"<BrowserContext {self.id}{' closed' if self._closed else ''}>"

    @property
    def browser(self) -> Browser:
        """The browser this context lives in."""
        return self._browser

    @property
    def closed(self) -> bool:
        """True once closed (or the browser closed)."""
        return self._closed or self._browser._closed

    @property
    def tabs(self) -> list[Tab]:
        """The context's open tabs, oldest first (popups included)."""
        return [tab for tab in self._browser.tabs if tab._context_id == self.id]

    async def new_tab(
        self,
        url: str = "about:blank",
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> Tab:
        """Open a tab in this context; see :meth:`Browser.new_tab`."""
        if self._closed:
            raise KoBrowserError("this browser context is closed")
        return await self._browser._new_tab(url, self.id, wait_until, timeout)

    async def set_download_dir(self, path: str | os.PathLike[str]) -> None:
        """Save this context's downloads in ``path`` (created if missing)."""
        directory = Path(await anyio.Path(path).resolve())
        await anyio.Path(directory).mkdir(parents=True, exist_ok=True)
        await self._browser.cdp.send(
            "Browser.setDownloadBehavior", download_behavior(directory, self.id)
        )
        self.download_dir = directory

    async def cookies(self) -> list[dict[str, Any]]:
        """Every cookie of this context (CDP ``Network.Cookie`` objects)."""
        result = await self._browser.cdp.send("Storage.getCookies", {"browserContextId": self.id})
        cookies: list[dict[str, Any]] = result.get("cookies", [])
        return cookies

    async def close(self) -> None:
        """Close the context and all its tabs. Idempotent.

        Shielded from cancellation, so the context never outlives a cancelled caller.
        """
        if self._closed:
            return
        self._closed = True
        tabs = self.tabs
        with anyio.CancelScope(shield=True):
            connection = self._browser._connection
            if connection is not None and not connection.closed:
                with anyio.move_on_after(10), contextlib.suppress(ProtocolError):
                    await connection.root.send(
                        "Target.disposeBrowserContext", {"browserContextId": self.id}
                    )
        for tab in tabs:
            tab._closed = True
            self._browser._forget(tab)
        self._browser._contexts.pop(self.id, None)

    async def __aenter__(self) -> BrowserContext:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
