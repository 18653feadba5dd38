"""Scraper: many URLs through a pool of tabs on one or many browsers.

``async with Scraper(...) as scraper`` owns a task group: the browser pool's
keepers, and the workers of each :meth:`Scraper.run`. ``run`` is an async
generator that only reads a memory object stream (it holds no task group or
cancel scope across its ``yield``), so breaking out of it, closing it or
cancelling its consumer is safe on asyncio and trio: the run's workers are
cancelled, and leaving the ``async with`` block closes every tab and browser.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Mapping
from contextlib import AsyncExitStack, aclosing
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectSendStream

from kobrowser._browser._proxy import Proxy, ProxySetting, to_proxy
from kobrowser._concurrency import exit_unwrapped
from kobrowser._exceptions import InvalidArgumentError, KoBrowserError
from kobrowser._validate import check, fail, seconds, whole
from kobrowser._validate._resources import check_resource_types
from kobrowser.scrape._attempt import Extract, Loader
from kobrowser.scrape._pool import BrowserPool
from kobrowser.scrape._queue import Job, Scheduler
from kobrowser.scrape._ray import RayEngine, check_ray
from kobrowser.scrape._result import ScrapeResult, check_url, host_key

if TYPE_CHECKING:
    from types import TracebackType

    from kobrowser._browser._browser import Browser

__all__ = ["TEXT_LIMIT", "Extract", "Scraper"]

#: The snapshot's own default text limit (code points of names and text lines).
TEXT_LIMIT = 80
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
        ray: run the browsers on a Ray cluster (extra ``ko-browser[ray]``):
            ``"auto"`` joins the cluster of ``RAY_ADDRESS`` when it is set,
            else starts a local Ray; or a cluster address (``HOST:PORT``,
            ``ray://HOST:PORT``). Each unit of the nodes' custom resource
            ``browser_slots`` runs one browser actor with its own
            ``browsers`` Chrome(s) (or ``endpoints``, as each node reaches
            them) and ``concurrency`` tabs; this process hands the URLs out
            as actors free up, keeps ``per_host`` across the cluster, and
            makes every record. An actor lost with its node, or one that
            stops answering, is replaced and its pages are loaded elsewhere
            without being charged to their retries. Runs on asyncio only.
            Default None: everything in this process.

    Raises:
        ValueError: an option is out of range, a proxy or resource type is
            not valid, or ``text_limit`` is not supported by the installed
            kobrowser.
        KoBrowserError: (on entering) ``ray`` is given but Ray is not
            installed, cannot be started or joined, or its cluster has no
            ``browser_slots``.
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
        ray: str | None = None,
    ) -> None:
        self.ray = check_ray(ray)
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
        # What builds the browsers and loads the pages: here, or in each Ray actor.
        self._pool_options: dict[str, Any] = {
            "addresses": addresses,
            "browsers": count,
            "timeout": self.timeout,
            "max_idle": self.concurrency,
            "launch_options": launch,
            "proxies": self.proxies,
            "block_resources": self.block_resources,
        }
        self._loader_options: dict[str, Any] = {
            "wait_until": self.wait_until,
            "timeout": self.timeout,
            "retries": self.retries,
            "snapshot_options": self._snapshot_options,
            "extract": self.extract,
        }
        self._pool = BrowserPool(**self._pool_options)
        self._loader = Loader(self._pool, **self._loader_options)
        self._engine: RayEngine | None = None
        if self.ray is not None:
            self._engine = RayEngine(
                self.ray,
                {"pool": self._pool_options, "loader": self._loader_options},
                self.concurrency,
                self.timeout,
            )
        self._stack: AsyncExitStack | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        self._closed = False

    def __repr__(self) -> str:
        endpoints = ", ".join(ep.label for ep in self._pool.endpoints)
        on = "" if self.ray is None else f" ray={self.ray} (each actor:"
        return f"<Scraper concurrency={self.concurrency}{on} [{endpoints}]{')' if on else ''}>"

    @property
    def browsers(self) -> list[Browser]:
        """The browsers that are up now (for inspection; do not close them).

        Empty with ``ray``: the browsers are in the cluster's actors.
        """
        return self._pool.browsers

    @property
    def ray_status(self) -> dict[str, int] | None:
        """With ``ray``: counts of the cluster's browser actors; None without.

        Keys: ``nodes`` (Ray nodes with a live browser actor), ``actors``
        (live), ``actors_started`` (replacements included), ``visits``
        (page loads sent to actors: one message there and one back each),
        ``lost`` (attempts lost with an actor, loaded again elsewhere).
        """
        return None if self._engine is None else self._engine.status()

    # -- lifecycle ---------------------------------------------------------------

    async def __aenter__(self) -> Scraper:
        if self._stack is not None:
            raise KoBrowserError("a Scraper can be entered only once")
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            task_group = await stack.enter_async_context(anyio.create_task_group())
            keeper = self._pool.run if self._engine is None else self._engine.run
            await task_group.start(keeper)
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

    async def run(
        self, urls: Iterable[str] | AsyncIterable[str]
    ) -> AsyncGenerator[ScrapeResult, None]:
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
                    if self._engine is not None:
                        tg.start_soon(self._engine.dispatch, scheduler, send)
                    else:
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
        ahead = max(1000, 16 * self.concurrency * (1 if self._engine is None else 8))
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
            result, retry_in = await self._loader.attempt(job)
            scheduler.finish(job, retry_in=retry_in)
            if result is not None:
                try:
                    await send.send(result)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return


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
