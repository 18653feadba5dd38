"""One browser per crawl and a pool of its tabs, on Scrapy's asyncio loop.

The browser is launched on the first page that needs it, by an owner task
that enters ``kobrowser.launch(...)`` with ``async with`` and leaves it in
that same task when :meth:`TabPool.close` asks it to (a :class:`kobrowser.Browser`
must be entered and left by one task; Scrapy runs each download in a task
of its own). The owner is no fire-and-forget task: :meth:`TabPool.close`
awaits it, and a browser that was lost (crashed, killed) has its owner
awaited before the next page launches a new one.

A semaphore holds the tabs loading at once to ``concurrency``; a tab whose
page loaded goes back to an idle list and is navigated by the next page, a
tab whose page failed or was cancelled is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import kobrowser

__all__ = ["TabPool"]

logger = logging.getLogger("kobrowser.scrapy")

Stat = Callable[[str, int], None]
"""``stat(key, value)``: count ``value`` more under ``kobrowser/<key>``."""


class TabPool:
    """Tabs of one lazily launched browser, at most ``concurrency`` in use at once.

    Args:
        launch_options: arguments of :func:`kobrowser.launch`.
        concurrency: tabs in use at once.
        stat: counts events (``browser_count``, ``tab_count``).
        max_stat: records a maximum (``tab_count/max_concurrent``).
    """

    def __init__(
        self,
        launch_options: Mapping[str, Any],
        concurrency: int,
        *,
        stat: Stat | None = None,
        max_stat: Stat | None = None,
    ) -> None:
        self._launch_options = dict(launch_options)
        self.concurrency = concurrency
        self._slots = asyncio.Semaphore(concurrency)
        self._lock = asyncio.Lock()
        self._idle: list[kobrowser.Tab] = []
        self._ready: asyncio.Future[kobrowser.Browser] | None = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._in_use = 0
        self._closed = False
        self._stat = stat or (lambda key, value: None)
        self._max_stat = max_stat or (lambda key, value: None)

    @property
    def browser(self) -> kobrowser.Browser | None:
        """The browser when it is up (for inspection; do not close it)."""
        ready = self._ready
        if ready is None or not ready.done() or ready.cancelled() or ready.exception():
            return None
        browser = ready.result()
        return None if browser.connection.closed else browser

    @contextlib.asynccontextmanager
    async def tab(self, remaining: Callable[[], float]) -> AsyncIterator[kobrowser.Tab]:
        """Lend a tab for one page; waits for a free slot first.

        The tab goes back to the pool when the block ends normally, and is
        closed when it raises or is cancelled (its page may still be loading).
        The caller bounds the whole block, waits included, with its deadline.

        Args:
            remaining: seconds left of the caller's deadline, for opening a
                new tab (the browser's launch has its own deadline, the
                ``timeout`` launch option).

        Raises:
            KoBrowserError: the pool is closed, the browser could not be
                launched (``LaunchError``) or the tab not opened.
        """
        async with self._slots:
            browser = await self._browser()
            tab = await self._take(browser, remaining)
            self._in_use += 1
            self._max_stat("tab_count/max_concurrent", self._in_use)
            done = False
            try:
                yield tab
                done = True
            finally:
                self._in_use -= 1
                if done and not tab.closed and not self._closed and browser is self.browser:
                    self._idle.append(tab)
                else:
                    await _close_tab(tab)

    async def _take(
        self, browser: kobrowser.Browser, remaining: Callable[[], float]
    ) -> kobrowser.Tab:
        while self._idle:
            tab = self._idle.pop()
            if not tab.closed:
                return tab
        tab = await browser.new_tab(timeout=remaining())
        self._stat("tab_count", 1)
        return tab

    async def _browser(self) -> kobrowser.Browser:
        """The browser, launched now when none is up (one launch at a time)."""
        async with self._lock:
            if self._closed:
                raise kobrowser.KoBrowserError("kobrowser.scrapy: the download handler is closed")
            if self.browser is None and (self._ready is None or self._ready.done()):
                await self._retire()  # a lost browser, or a failed launch
                self._start()
            ready = self._ready
        assert ready is not None
        # Shielded: a request cancelled while the browser starts leaves the
        # launch to finish for the next request instead of abandoning it.
        return await asyncio.shield(ready)

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._stop = asyncio.Event()
        self._idle.clear()
        self._owner = loop.create_task(
            self._own(self._ready, self._stop), name="kobrowser.scrapy browser"
        )

    async def _own(self, ready: asyncio.Future[kobrowser.Browser], stop: asyncio.Event) -> None:
        """Hold the browser open (``async with``) until ``stop`` is set."""
        try:
            async with kobrowser.launch(**self._launch_options) as browser:
                self._stat("browser_count", 1)
                logger.info("kobrowser.scrapy: browser started (pid %s)", browser.pid)
                if not ready.done():
                    ready.set_result(browser)
                await stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                logger.warning("kobrowser.scrapy: the browser did not close cleanly: %s", exc)
        finally:
            if not ready.done():  # cancelled while starting
                ready.cancel()

    async def _retire(self) -> None:
        """Stop the owner task of the current browser and wait for it."""
        owner, stop = self._owner, self._stop
        self._owner = self._stop = None
        self._idle.clear()
        if stop is not None:
            stop.set()
        if owner is not None:
            await owner
        ready = self._ready
        if ready is not None and ready.done() and not ready.cancelled():
            ready.exception()  # retrieved: a failed launch was reported to its requests

    async def close(self) -> None:
        """Close every tab and the browser; waits for a launch under way. Idempotent.

        Pages loading now fail with the browser's error. Cancelling the
        caller while the browser closes leaves the owner task to finish it.
        """
        async with self._lock:
            self._closed = True
            await asyncio.shield(self._retire())


async def _close_tab(tab: kobrowser.Tab) -> None:
    """Close a tab (shielded and bounded by Tab.close); a lost browser closes it anyway."""
    with contextlib.suppress(kobrowser.KoBrowserError):
        await tab.close()
