"""``DownloadHandler``: Scrapy requests with ``meta={"kobrowser": True}`` loaded in Chrome tabs."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.exceptions import NotConfigured, NotSupported
from scrapy.http import HtmlResponse
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import build_from_crawler

import kobrowser
from kobrowser.scrapy._config import Config, PageOptions, page_options
from kobrowser.scrapy._tabs import TabPool

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

__all__ = ["DownloadHandler"]

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
#: The rendered document: its doctype (when it has one), then ``<html>...</html>``.
HTML_SCRIPT = (
    "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
    " + document.documentElement.outerHTML"
)
#: Seconds past a page's deadline after which the handler gives up on it
#: itself; kobrowser's own deadlines (which name what timed out) come first.
GRACE = 1.0

_T = TypeVar("_T")


class _Shared:
    """What the handlers of one crawler share (Scrapy builds one per scheme)."""

    def __init__(self, pool: TabPool) -> None:
        self.pool = pool
        self.users = 0


_SHARED: weakref.WeakKeyDictionary[Crawler, _Shared] = weakref.WeakKeyDictionary()


class DownloadHandler:
    """A Scrapy download handler that loads pages in Chrome tabs, in the style of scrapy-playwright.

    Enable it for ``http`` and ``https`` in the project's settings, with
    Scrapy's asyncio reactor::

        DOWNLOAD_HANDLERS = {
            "http": "kobrowser.scrapy.DownloadHandler",
            "https": "kobrowser.scrapy.DownloadHandler",
        }
        TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

    A request with ``meta={"kobrowser": True}`` is loaded in a tab of one
    Chrome the handler launches on first use (both schemes share it) and
    closes when the crawl ends. Its response is an ``HtmlResponse`` of the
    rendered document (doctype and ``document.documentElement.outerHTML``
    once the load state is reached), whose ``url`` is the tab's final URL
    (after redirects) and ``status`` the HTTP status of the main document;
    ``response.meta["kobrowser_snapshot"]`` holds the snapshot text (None when
    snapshots are off). The tab sends Chrome's own headers and cookies, not
    the request's; only GET requests can be loaded. Other requests go
    through Scrapy's own HTTP handler (``HTTP11DownloadHandler``).

    Settings: ``KOBROWSER_CONCURRENCY`` (tabs at once; default
    ``CONCURRENT_REQUESTS``), ``KOBROWSER_TEXT_LIMIT`` (snapshot text limit;
    default 80, None: whole texts), ``KOBROWSER_WAIT_UNTIL`` (``commit``,
    ``domcontentloaded``, ``load`` (default) or ``networkidle``),
    ``KOBROWSER_SNAPSHOT`` (default True), ``KOBROWSER_PROXY`` (Chrome's
    ``--proxy-server``), ``KOBROWSER_LAUNCH_OPTIONS`` (a dict of
    :func:`kobrowser.launch` arguments, e.g. ``executable_path``,
    ``headless``). A bad one raises :class:`~kobrowser.InvalidArgumentError`
    naming it when the handler is built, at start-up (Scrapy logs it, and
    every request of that scheme then fails with ``NotSupported``).

    Request meta: ``kobrowser_wait_until`` (a load state),
    ``kobrowser_snapshot_options`` (a dict of :meth:`kobrowser.Tab.snapshot`
    arguments over the settings', or False for no snapshot), and Scrapy's
    ``download_timeout``.

    Every page has a deadline: its ``download_timeout`` (``DOWNLOAD_TIMEOUT``),
    counted from when the handler gets the request, waits for a free tab and
    for the browser's launch included. A page that fails (refused, timed
    out, crashed) fails its request with the kobrowser error, which the
    request's errback receives. Cancelling a request closes its tab.

    Raises:
        InvalidArgumentError: (when built) a bad setting, or a reactor other
            than Scrapy's asyncio one (``TWISTED_REACTOR``).
        LaunchError: (when built) no Chrome found for ``KOBROWSER_LAUNCH_OPTIONS``.
    """

    lazy = False
    """Built at start-up, so a bad setting is reported before the first request."""

    def __init__(self, crawler: Crawler) -> None:
        _require_asyncio()
        self._crawler = crawler
        self.config = Config.from_settings(crawler.settings)
        shared = _SHARED.get(crawler)
        if shared is None:
            stats = crawler.stats
            pool = TabPool(
                self.config.launch_options,
                self.config.concurrency,
                stat=lambda key, value: stats.inc_value(f"kobrowser/{key}", value),
                max_stat=lambda key, value: stats.max_value(f"kobrowser/{key}", value),
            )
            shared = _SHARED[crawler] = _Shared(pool)
        shared.users += 1
        self._shared: _Shared | None = shared
        self._fallback: HTTP11DownloadHandler | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DownloadHandler:
        """Build the handler for ``crawler`` (Scrapy calls this once per scheme)."""
        return cls(crawler)

    @property
    def pool(self) -> TabPool:
        """The tabs and browser shared by this crawler's handlers."""
        if self._shared is None:
            raise kobrowser.KoBrowserError("kobrowser.scrapy: the download handler is closed")
        return self._shared.pool

    async def download_request(self, request: Request) -> Response:
        """Load ``request`` in a tab (``meta["kobrowser"]``) or with Scrapy's HTTP handler.

        Raises:
            KoBrowserError: the page failed (``NavigationError``: refused, DNS...;
                ``WaitTimeoutError``: not loaded by its ``download_timeout``;
                ``InvalidArgumentError``: a bad meta value or a method other than GET).

        Cancelling it closes the request's tab.
        """
        if not request.meta.get("kobrowser"):
            return await self._http().download_request(request)
        return await _in_task(self._load(request))

    async def close(self) -> None:
        """Close the browser (when this is the crawler's last handler) and Scrapy's handler.

        Scrapy calls it when the engine stops. Idempotent. Cancelling the
        caller leaves the browser's owner task to finish closing it.
        """
        await _in_task(self._close())

    async def _close(self) -> None:
        shared, self._shared = self._shared, None
        fallback, self._fallback = self._fallback, None
        if shared is not None:
            shared.users -= 1
            if shared.users == 0:
                if _SHARED.get(self._crawler) is shared:
                    del _SHARED[self._crawler]
                await shared.pool.close()
        if fallback is not None:
            await fallback.close()

    # -- kobrowser pages ---------------------------------------------------------

    async def _load(self, request: Request) -> Response:
        options = page_options(self.config, request.meta)
        if request.method != "GET":
            raise kobrowser.InvalidArgumentError(
                f"kobrowser.scrapy: only GET requests load in a tab; got {request.method} "
                f"{request.url} with meta kobrowser",
                argument="method",
            )
        stats = self._crawler.stats
        loop = asyncio.get_running_loop()
        deadline = loop.time() + options.timeout
        net = asyncio.timeout_at(deadline + GRACE)
        try:
            async with net:
                response = await self._render(request, options, deadline)
        except TimeoutError as exc:
            stats.inc_value("kobrowser/page_count/failed")
            if net.expired():
                raise kobrowser.WaitTimeoutError(
                    f"kobrowser.scrapy: {request.url} was not loaded within "
                    f"{options.timeout:g} s (download_timeout)"
                ) from exc
            raise
        except Exception:
            stats.inc_value("kobrowser/page_count/failed")
            raise
        stats.inc_value("kobrowser/page_count")
        stats.inc_value(f"kobrowser/response_status_count/{response.status}")
        return response

    async def _render(self, request: Request, options: PageOptions, deadline: float) -> Response:
        loop = asyncio.get_running_loop()

        def remaining() -> float:
            left = deadline - loop.time()
            if left <= 0:
                raise kobrowser.WaitTimeoutError(
                    f"kobrowser.scrapy: {request.url} was not loaded within "
                    f"{options.timeout:g} s (download_timeout)"
                )
            return left

        wait_until: Any = options.wait_until
        referrer = request.headers.get("Referer")
        async with self.pool.tab(remaining) as tab:
            loaded = await tab.open(
                request.url,
                wait_until=wait_until,
                timeout=remaining(),
                referrer=referrer.decode("latin-1") if referrer else None,
            )
            if loaded is None:  # same document as the tab's last page (a #fragment apart)
                loaded = await tab.reload(wait_until=wait_until, timeout=remaining())
            html = await tab.evaluate(HTML_SCRIPT, timeout=remaining())
            snapshot = None
            if options.snapshot is not None:
                snapshot = await tab.snapshot(**options.snapshot, timeout=remaining())
            url = tab.url
        request.meta["kobrowser_snapshot"] = snapshot.text if snapshot is not None else None
        status = loaded.status if loaded is not None and loaded.status else 200
        return HtmlResponse(
            url=url,
            status=status,
            headers={"Content-Type": "text/html; charset=utf-8"},
            body=str(html).encode("utf-8"),
            encoding="utf-8",
            request=request,
            flags=["kobrowser"],
        )

    # -- everything else ---------------------------------------------------------

    def _http(self) -> HTTP11DownloadHandler:
        """Scrapy's own HTTP handler, built on the first request without ``kobrowser`` meta."""
        if self._fallback is None:
            try:
                self._fallback = build_from_crawler(HTTP11DownloadHandler, self._crawler)
            except NotConfigured as exc:
                raise NotSupported(
                    "kobrowser.scrapy: requests without meta 'kobrowser' go through Scrapy's "
                    f"HTTP11DownloadHandler, which is not available: {exc}"
                ) from exc
        return self._fallback


async def _in_task(coro: Coroutine[Any, Any, _T]) -> _T:
    """Await ``coro`` in an asyncio task.

    Scrapy runs handlers in asyncio tasks; code driven by Twisted instead
    (``Deferred.fromCoroutine``) gets ``coro`` run as a task of the reactor's
    asyncio loop, bridged back through a Deferred.
    """
    if asyncio.current_task() is not None:
        return await coro
    result: _T = await deferred_from_coro(coro)
    return result


def _require_asyncio() -> None:
    """Raise unless Scrapy runs on asyncio (its asyncio reactor, or no reactor)."""
    from scrapy.utils.asyncio import is_asyncio_available

    try:
        available = is_asyncio_available()
    except RuntimeError:  # no reactor installed and no loop running
        available = False
    if available:
        return
    import sys

    reactor = sys.modules.get("twisted.internet.reactor")
    installed = f"{type(reactor).__module__}.{type(reactor).__qualname__}" if reactor else "none"
    raise kobrowser.InvalidArgumentError(
        "TWISTED_REACTOR: kobrowser.scrapy.DownloadHandler runs on Scrapy's asyncio reactor, "
        f"but the installed reactor is {installed}; set TWISTED_REACTOR = {ASYNCIO_REACTOR!r}",
        argument="TWISTED_REACTOR",
    )
