"""Scraper: many URLs through a pool of tabs on one or many browsers.

``async with Scraper(...) as scraper`` owns a task group: the browser pool's
keepers, and the workers of each :meth:`Scraper.run`. ``run`` is an async
generator that only reads a memory object stream (it holds no task group or
cancel scope across its ``yield``), so breaking out of it, closing it or
cancelling its consumer is safe on asyncio and trio: the run's workers are
cancelled, and leaving the ``async with`` block closes every tab and browser.
"""

from __future__ import annotations

import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
)
from contextlib import AsyncExitStack, aclosing
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import msgspec
from anyio.streams.memory import MemoryObjectSendStream

from kobrowser._browser._proxy import Proxy, ProxySetting, to_proxy
from kobrowser._concurrency import exit_unwrapped
from kobrowser._exceptions import (
    CDPTimeoutError,
    InvalidArgumentError,
    InvalidSelectorError,
    KoBrowserError,
    NavigationError,
    WaitTimeoutError,
)
from kobrowser._tab._snapshot import Snapshot
from kobrowser._tab._tab import Tab
from kobrowser._validate import check, fail, seconds, whole
from kobrowser._validate._resources import check_resource_types
from kobrowser.scrape._pool import BrowserPool, Lease, NoBrowserError, backoff
from kobrowser.scrape._queue import Job, Scheduler
from kobrowser.scrape._result import (
    RETRY_STATUSES,
    Failure,
    ScrapeResult,
    check_url,
    host_key,
    navigation_failure,
)

if TYPE_CHECKING:
    from types import TracebackType

    from kobrowser._browser._browser import Browser

__all__ = ["TEXT_LIMIT", "Extract", "Scraper"]

Extract = Callable[[Tab, Snapshot], Awaitable[Mapping[str, Any]]]
"""``async def extract(tab, snapshot) -> dict``: what goes into :attr:`ScrapeResult.data`."""

#: The snapshot's own default text limit (code points of names and text lines).
TEXT_LIMIT = 80
#: Times a page may be lost with its browser before it is given up.
MAX_LOST = 3
_LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")


class Scraper:
    """Scrape many URLs with a pool of reused tabs on one or many browsers.

    Use as an async context manager and iterate :meth:`run`::

        async with kobrowser.Scraper(concurrency=8) as scraper:
            async for result in scraper.run(urls):
                print(result.url, result.ok, result.title)

    Browsers start when the block is entered. Leaving the block (also by an
    exception or cancellation) cancels every run and closes every tab and
    browser (remote browsers are disconnected, never closed).

    Args:
        concurrency: pages loading at once in each run (one tab each).
        endpoints: CDP endpoints to spread the tabs over (``ws://...``,
            ``http://host:port`` or ``host:port``), the least loaded first.
            An endpoint that refuses or is lost gets its pages retried on the
            others and is itself retried with back-off. Default: local Chrome.
        browsers: local Chromes to launch when ``endpoints`` is not given (default 1).
        per_host: pages of one host loading at once (None: no limit).
        wait_until: the load state each page must reach (see :meth:`Tab.open`).
        timeout: seconds for each page's load, and the deadline of each
            snapshot call and of ``extract``.
        retries: further attempts for a page that failed in a way that may
            pass (time-outs, connection errors, a crashed tab, HTTP 408, 429,
            5xx). Attempts lost with their browser are not counted (up to 3).
        interactive: snapshot option (see :meth:`Tab.snapshot`).
        compact: snapshot option (see :meth:`Tab.snapshot`).
        depth: snapshot option (see :meth:`Tab.snapshot`).
        selector: snapshot option (see :meth:`Tab.snapshot`).
        text_limit: snapshot text limit (see :meth:`Tab.snapshot`): ``80``
            (the snapshot's default), a whole number >= 4, or ``None`` for
            whole names and texts.
        extract: ``async def extract(tab, snapshot) -> dict`` run on every
            loaded page; its result is the record's ``data``. If it raises,
            the page's record is ``ok: false`` with the error (not retried).
        executable_path: how local Chromes are launched (see :func:`kobrowser.launch`).
        headless: how local Chromes are launched (see :func:`kobrowser.launch`).
        args: how local Chromes are launched (see :func:`kobrowser.launch`).
        proxies: proxies to spread the pages over: each browser gets one
            context per proxy and the pages take them in turn (round-robin).
            Each is a URL (``"http://user:pass@host:3128"``,
            ``"socks5://host:1080"``), a :class:`~kobrowser.Proxy` or a dict
            with its keys (see :meth:`Browser.new_context
            <kobrowser.Browser.new_context>`). A proxy that refuses its
            credentials gives its pages an ``ok: false`` record saying so
            (not retried). Default: no proxy.
        block_resources: resource types the pages never load, e.g.
            ``("image", "font", "media")`` (or ``"image,font"``); the names
            are :meth:`kobrowser.Network.block`'s. Pages load faster and
            use less bandwidth; what they show without them is what is
            snapshotted.

    Raises:
        ValueError: an option is out of range, a proxy or resource type is
            not valid, or ``text_limit`` is not supported by the installed
            kobrowser.
    """

    def __init__(
        self,
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
        text_limit: int | None = TEXT_LIMIT,
        extract: Extract | None = None,
        executable_path: str | None = None,
        headless: bool = True,
        args: Iterable[str] = (),
        proxies: Iterable[ProxySetting] | ProxySetting | None = None,
        block_resources: str | Iterable[str] | None = None,
    ) -> None:
        self.concurrency = whole(concurrency, "concurrency", 1)
        self.proxies = _proxies(proxies)
        self.block_resources = (
            ()
            if block_resources is None
            else tuple(sorted(check_resource_types(block_resources, "block_resources")))
        )
        addresses = [endpoints] if isinstance(endpoints, str) else list(endpoints or [])
        if endpoints is not None and not addresses:
            raise fail("endpoints", endpoints, "at least one endpoint, or None for local Chrome")
        if addresses and browsers is not None:
            raise InvalidArgumentError(
                "browsers: give endpoints or browsers, not both", argument="browsers"
            )
        count = whole(1 if browsers is None else browsers, "browsers", 1)
        self.per_host = None if per_host is None else whole(per_host, "per_host", 1)
        check(wait_until=wait_until)
        self.wait_until: Any = wait_until
        self.timeout = seconds(timeout, positive=True)
        self.retries = whole(retries, "retries", 0)
        if extract is not None and not callable(extract):
            raise fail("extract", extract, "an async function (tab, snapshot) -> dict, or None")
        self.extract = extract
        # One snapshot per page: read in full, and no mirror started (its
        # background crawl would only compete with the other pages).
        self._snapshot_options: dict[str, Any] = {
            "fresh": True,
            "interactive": interactive,
            "compact": compact,
            "depth": depth,
            "selector": selector,
            "text_limit": text_limit,
            "timeout": self.timeout,
        }
        check(text_limit=text_limit)  # now, not on every page
        launch: dict[str, Any] = {"headless": headless, "args": tuple(args)}
        if executable_path is not None:
            launch["executable_path"] = executable_path
        self._pool = BrowserPool(
            addresses,
            count,
            timeout=self.timeout,
            max_idle=self.concurrency,
            launch_options=launch,
            proxies=self.proxies,
            block_resources=self.block_resources,
        )
        self._stack: AsyncExitStack | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        self._closed = False

    def __repr__(self) -> str:
        endpoints = ", ".join(ep.label for ep in self._pool.endpoints)
        return f"<Scraper concurrency={self.concurrency} [{endpoints}]>"

    @property
    def browsers(self) -> list[Browser]:
        """The browsers that are up now (for inspection; do not close them)."""
        return self._pool.browsers

    # -- lifecycle ---------------------------------------------------------------

    async def __aenter__(self) -> Scraper:
        if self._stack is not None:
            raise KoBrowserError("a Scraper can be entered only once")
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            task_group = await stack.enter_async_context(anyio.create_task_group())
            await task_group.start(self._pool.run)
        except BaseException as exc:
            if not await exit_unwrapped(stack, type(exc), exc, exc.__traceback__):
                raise
            raise  # pragma: no cover - the stack never swallows
        self._stack = stack
        self._task_group = task_group
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._stack is not None and self._task_group is not None
        self._closed = True
        self._task_group.cancel_scope.cancel()  # runs and keepers; browsers close on the way out
        return await exit_unwrapped(self._stack, exc_type, exc, tb)

    # -- runs --------------------------------------------------------------------

    async def run(self, urls: Iterable[str] | AsyncIterable[str]) -> AsyncIterator[ScrapeResult]:
        """Scrape ``urls``; yield one :class:`ScrapeResult` per distinct URL as each finishes.

        URLs are taken in order (a repeated URL is scraped once); pages of one
        host take turns with other hosts' within ``per_host``. A malformed
        URL, a DNS failure, a page that never loads, a download, an HTTP
        error or a failing ``extract`` each give an ``ok: false`` record; none
        stops the run. Popups the pages open are closed (not scraped); the
        opener's record is unaffected.

        Args:
            urls: an iterable or async iterable of URL strings (read as the
                run goes, never more than a few thousand ahead).

        Raises:
            KoBrowserError: the Scraper is not entered.
            TypeError: ``urls`` is a single string, or yields a non-string.
                An error of ``urls`` itself (it yields a non-string, or its
                iteration raises) stops the run: the pages still loading are
                cancelled, and the error is raised here after the records
                already made.

        Breaking out of the loop, ``aclose()`` or cancelling the consumer
        cancels the run's pages (their tabs are closed); the Scraper and its
        browsers stay open for other runs until its block is left.
        """
        if self._task_group is None or self._closed:
            raise KoBrowserError("use the Scraper in `async with` before calling run()")
        if isinstance(urls, str | bytes):
            raise TypeError("urls must be an iterable of URLs, not a single string")
        send, receive = anyio.create_memory_object_stream[ScrapeResult](self.concurrency)
        scope = anyio.CancelScope()
        errors: list[BaseException] = []
        self._task_group.start_soon(self._run, urls, send, scope, errors)
        try:
            with receive:
                async for result in receive:
                    yield result
            if errors:
                raise errors[0]
        finally:
            scope.cancel()

    async def _run(
        self,
        urls: Iterable[str] | AsyncIterable[str],
        send: MemoryObjectSendStream[ScrapeResult],
        scope: anyio.CancelScope,
        errors: list[BaseException],
    ) -> None:
        with scope, send:
            scheduler = Scheduler(self.per_host)
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._feed, urls, scheduler, send, scope, errors)
                    for _ in range(self.concurrency):
                        tg.start_soon(self._work, scheduler, send)
            except Exception as exc:  # a bug: the consumer sees it, the Scraper lives on
                errors.append(exc)

    async def _feed(
        self,
        urls: Iterable[str] | AsyncIterable[str],
        scheduler: Scheduler,
        send: MemoryObjectSendStream[ScrapeResult],
        scope: anyio.CancelScope,
        errors: list[BaseException],
    ) -> None:
        seen: set[str] = set()
        ahead = max(1000, 16 * self.concurrency)
        try:
            async with aclosing(_each(urls)) as each:
                async for url in each:
                    if not isinstance(url, str):
                        raise TypeError(
                            f"urls must give strings, not {type(url).__name__}: {url!r}"
                        )
                    url = url.strip()
                    if url in seen:
                        continue
                    seen.add(url)
                    problem = check_url(url)
                    if problem is not None:
                        await send.send(ScrapeResult(url=url, ok=False, error=problem))
                        continue
                    await scheduler.wait_for_room(ahead)
                    scheduler.add(Job(url, host_key(url)))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            scope.cancel()  # the consumer is gone
        except Exception as exc:  # the caller's iterable failed: stop the run, tell them
            errors.append(exc)
            scope.cancel()
        finally:
            scheduler.input_done()

    async def _work(self, scheduler: Scheduler, send: MemoryObjectSendStream[ScrapeResult]) -> None:
        while (job := await scheduler.take()) is not None:
            result, retry_in = await self._attempt(job)
            scheduler.finish(job, retry_in=retry_in)
            if result is not None:
                try:
                    await send.send(result)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return

    # -- one attempt -------------------------------------------------------------

    async def _attempt(self, job: Job) -> tuple[ScrapeResult | None, float | None]:
        """Load ``job`` once: its record, or None and the back-off before the next try."""
        try:
            lease = await self._pool.lease()
        except NoBrowserError as exc:
            return self._record(job, ok=False, error=str(exc)), None
        if job.started is None:
            job.started = time.monotonic()
        job.attempts += 1
        retire = True
        try:
            fields = await self._visit(lease, job)
            retire = False
            return self._record(job, ok=True, **fields), None
        except Failure as failure:
            retire = failure.retire
            return self._judge(job, failure)
        except Exception as exc:
            judged = self._classify(exc, lease)
            retire = judged.retire
            return self._judge(job, judged)
        finally:
            await self._pool.release(lease, retire=retire)

    def _judge(self, job: Job, failure: Failure) -> tuple[ScrapeResult | None, float | None]:
        job.last_error = failure.message
        if failure.lost:
            job.lost += 1
            if job.lost <= MAX_LOST:
                return None, backoff(job.lost, base=0.25, cap=5.0)
            message = f"{failure.message} (lost {job.lost} times while loading this page)"
            return self._record(job, ok=False, error=message), None
        if failure.retry and job.failures < self.retries:
            job.failures += 1
            return None, backoff(job.failures, cap=10.0)
        job.failures += 1
        return self._record(job, ok=False, error=failure.message, **failure.partial), None

    def _record(self, job: Job, **fields: Any) -> ScrapeResult:
        started = job.started if job.started is not None else time.monotonic()
        elapsed = round(time.monotonic() - started, 3)
        return ScrapeResult(url=job.url, attempts=job.attempts, elapsed=elapsed, **fields)

    def _classify(self, exc: Exception, lease: Lease) -> Failure:
        """A failed attempt's exception (other than a navigation error) as a Failure."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        if lease.browser_lost:
            return Failure(
                f"lost the browser {lease.endpoint.label}: {text}",
                retry=True,
                retire=True,
                lost=True,
            )
        if lease.tab.closed:
            return Failure(f"the tab crashed or was closed: {text}", retry=True, retire=True)
        if isinstance(exc, WaitTimeoutError):
            return Failure(f"the page did not finish loading: {text}", retry=True, retire=True)
        if isinstance(exc, CDPTimeoutError):
            return Failure(f"the browser did not answer in time: {text}", retry=True, retire=True)
        if isinstance(exc, InvalidSelectorError):
            return Failure(text)
        return Failure(f"{type(exc).__name__}: {text}", retry=True, retire=True)

    async def _visit(self, lease: Lease, job: Job) -> dict[str, Any]:
        """Load, snapshot and extract one page; its record's fields, or raise Failure."""
        deadline = self.timeout * 3 + 10  # a safety net over the load, snapshot and extract
        with anyio.move_on_after(deadline):
            return await self._load(lease, job)
        raise Failure(
            f"the page did not finish within {deadline:g} s (load, snapshot and extract)",
            retry=True,
            retire=True,
        )

    async def _load(self, lease: Lease, job: Job) -> dict[str, Any]:
        tab = lease.tab
        try:
            response = await tab.open(job.url, wait_until=self.wait_until, timeout=self.timeout)
        except NavigationError as exc:
            if tab.closed or lease.browser_lost:
                raise
            download = await self._download_of(lease) if "ERR_ABORTED" in str(exc) else None
            context = lease.slot.context
            proxy = context.proxy if context is not None else None
            raise navigation_failure(
                str(exc), download=download, proxy=proxy.server if proxy is not None else None
            ) from None
        status = response.status if response is not None and response.status else None
        fields: dict[str, Any] = {"final_url": tab.url, "status": status}
        http_error = ""
        if status is not None and status >= 400:
            reason = response.status_text if response is not None else ""
            http_error = f"HTTP {status}" + (f" {reason}" if reason else "")
            if status in RETRY_STATUSES and job.failures < self.retries:
                raise Failure(http_error, retry=True, partial=fields)
        snapshot = await tab.snapshot(**self._snapshot_options)
        fields.update(final_url=tab.url, title=snapshot.title, snapshot=snapshot.text)
        if http_error:
            raise Failure(http_error, partial=fields)
        if self.extract is not None:
            fields["data"] = await self._extract(lease, snapshot, fields)
        return fields

    async def _download_of(self, lease: Lease) -> str | None:
        """The download an aborted navigation turned into, if any (denied, never saved)."""
        try:
            download = await lease.browser.wait_for_download(tab=lease.tab, timeout=1.0)
        except WaitTimeoutError:
            return None
        return f"{download.suggested_filename!r} from {download.url}"

    async def _extract(
        self, lease: Lease, snapshot: Snapshot, fields: dict[str, Any]
    ) -> dict[str, Any]:
        assert self.extract is not None
        tab = lease.tab
        with anyio.move_on_after(self.timeout) as scope:
            try:
                value = await self.extract(tab, snapshot)
            except Exception as exc:
                if tab.closed or lease.browser_lost:
                    raise  # the tab or browser died under it: judged as such, retried
                text = " ".join(str(exc).split())
                raise Failure(
                    f"extract failed: {type(exc).__name__}" + (f": {text}" if text else ""),
                    partial=fields,
                ) from exc
        if scope.cancelled_caught:
            raise Failure(f"extract did not finish within {self.timeout:g} s", partial=fields)
        if not isinstance(value, Mapping):
            raise Failure(f"extract must return a dict, not {type(value).__name__}", partial=fields)
        try:  # plain JSON values from here on (a set becomes a list, a datetime a string)
            data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(dict(value)))
        except (TypeError, msgspec.EncodeError) as exc:
            message = f"extract returned a value that is not JSON: {exc}"
            raise Failure(message, partial=fields) from None
        return data


def _proxies(value: Any) -> tuple[Proxy, ...]:
    """The ``proxies`` option checked: one proxy or many (None: none)."""
    if value is None:
        return ()
    if isinstance(value, str | Proxy | Mapping):
        value = [value]
    elif not isinstance(value, Iterable):
        raise fail("proxies", value, "proxy URLs, kobrowser.Proxy or dicts (a list), or None")
    proxies = []
    for item in value:
        proxy = to_proxy(item, "proxies")
        assert proxy is not None
        proxies.append(proxy)
    if not proxies:
        raise fail("proxies", value, "at least one proxy, or None for none")
    return tuple(proxies)


async def _each(urls: Iterable[str] | AsyncIterable[str]) -> AsyncGenerator[str, None]:
    """Iterate a sync or async iterable, yielding control now and then."""
    if isinstance(urls, AsyncIterable):
        async for url in urls:
            yield url
        return
    for count, url in enumerate(urls):
        if count % 64 == 63:
            await anyio.lowlevel.checkpoint()
        yield url
