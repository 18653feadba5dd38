"""Scraping at scale: many URLs, many tabs, many browsers; one record per URL.

A face over the public API (``kobrowser.launch``/``connect``, ``Tab.open``,
``Tab.snapshot``...): nothing here reaches into the library's internals.

* :func:`scrape` -- ``async with kobrowser.scrape(urls) as results:
  async for result in results: ...``
* :class:`Scraper` -- the same with a pool of browsers kept open across runs.
* :class:`ScrapeResult` -- one record (a msgspec Struct, JSON as is).
* ``ko-browser scrape`` -- the command (:mod:`kobrowser.cli._scrape`).
"""

from __future__ import annotations

import sys
import types
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from kobrowser.scrape._result import ScrapeResult
from kobrowser.scrape._scraper import Extract, Scraper

if TYPE_CHECKING:
    from types import TracebackType

    from kobrowser._browser._proxy import ProxySetting

__all__ = ["Extract", "ScrapeResult", "Scraper", "scrape"]

_USE_ASYNC_WITH = (
    "kobrowser.scrape() starts browsers and tasks that must be closed by the task that "
    "started them, so it is used with `async with`:\n\n"
    "    async with kobrowser.scrape(urls) as results:\n"
    "        async for result in results:\n"
    "            ...\n"
)


class Scrape:
    """What :func:`scrape` returns: an async context manager giving the results.

    ``async with`` starts the browsers and gives an async iterator of
    :class:`ScrapeResult`; leaving the block (after the last result, on
    ``break``, on an exception or on cancellation) closes every tab and
    browser. It cannot be iterated without ``async with``: a plain async
    generator holding a task group cannot be closed safely when the loop is
    left early.
    """

    def __init__(self, urls: Iterable[str] | AsyncIterable[str], options: dict[str, Any]) -> None:
        self._scraper = Scraper(**options)
        self._urls = urls
        self._results: AsyncIterator[ScrapeResult] | None = None

    async def __aenter__(self) -> AsyncIterator[ScrapeResult]:
        await self._scraper.__aenter__()
        self._results = self._scraper.run(self._urls)
        return self._results

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        results = self._results
        if results is not None and hasattr(results, "aclose"):
            await results.aclose()  # same task: the run's workers are cancelled here
        return await self._scraper.__aexit__(exc_type, exc, tb)

    def __aiter__(self) -> AsyncIterator[ScrapeResult]:
        raise TypeError(_USE_ASYNC_WITH)


def scrape(
    urls: Iterable[str] | AsyncIterable[str],
    *,
    concurrency: int = 8,
    endpoints: Iterable[str] | None = None,
    browsers: int | None = None,
    per_host: int | None = 2,
    wait_until: str = "load",
    timeout: float = 30.0,
    retries: int = 2,
    interactive: bool = False,
    compact: bool = False,
    depth: int | None = None,
    selector: str | None = None,
    text_limit: int | None = 80,
    extract: Extract | None = None,
    executable_path: str | None = None,
    headless: bool = True,
    args: Iterable[str] = (),
    proxies: Iterable[ProxySetting] | ProxySetting | None = None,
    block_resources: str | Iterable[str] | None = None,
    ray: str | None = None,
) -> Scrape:
    """Scrape ``urls``: one :class:`ScrapeResult` per distinct URL, as each finishes.

    ::

        async with kobrowser.scrape(urls, concurrency=8) as results:
            async for result in results:
                print(result.url, result.ok, result.title)

    Tabs are reused; a crashed tab or a lost browser is replaced. The
    options are those of :class:`Scraper` (see there); the records and
    errors those of :meth:`Scraper.run`. With ``ray="auto"`` (or a cluster
    address) the browsers run in actors on a Ray cluster and this process
    hands out the URLs and makes the records (extra ``ko-browser[ray]``).

    Raises:
        ValueError: an option is out of range.
        TypeError: the result is iterated without ``async with``.

    Leaving the ``async with`` block, or cancelling it, cancels the pages
    still loading and closes every tab and browser.
    """
    options = {
        "concurrency": concurrency,
        "endpoints": endpoints,
        "browsers": browsers,
        "per_host": per_host,
        "wait_until": wait_until,
        "timeout": timeout,
        "retries": retries,
        "interactive": interactive,
        "compact": compact,
        "depth": depth,
        "selector": selector,
        "text_limit": text_limit,
        "extract": extract,
        "executable_path": executable_path,
        "headless": headless,
        "args": args,
        "proxies": proxies,
        "block_resources": block_resources,
        "ray": ray,
    }
    return Scrape(urls, options)


class _CallableModule(types.ModuleType):
    """``kobrowser.scrape`` names both this package and :func:`scrape`.

    Python binds ``kobrowser.scrape`` to the package once anything imports
    it (``from kobrowser.scrape import Scraper``); calling the package then
    calls :func:`scrape`, so ``kobrowser.scrape(urls)`` works either way.
    """

    def __call__(self, urls: Iterable[str] | AsyncIterable[str], **options: Any) -> Scrape:
        return scrape(urls, **options)


sys.modules[__name__].__class__ = _CallableModule
