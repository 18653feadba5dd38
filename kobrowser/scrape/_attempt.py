"""One attempt at one page: lease a tab, load, snapshot, extract, and judge the outcome.

:class:`Loader` is what a :class:`~kobrowser.scrape.Scraper`'s workers call
for each job, in one process; a Ray browser actor
(:mod:`kobrowser.scrape._ray_node`) calls the same on its node. It only reads
and updates the :class:`~kobrowser.scrape._queue.Job` it is given; the queue,
the limits and the records belong to its caller.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import msgspec

from kobrowser._exceptions import (
    CDPTimeoutError,
    InvalidSelectorError,
    NavigationError,
    WaitTimeoutError,
)
from kobrowser._tab._snapshot import Snapshot
from kobrowser._tab._tab import Tab
from kobrowser.scrape._pool import BrowserPool, Lease, NoBrowserError, backoff
from kobrowser.scrape._queue import Job
from kobrowser.scrape._result import (
    RETRY_STATUSES,
    Failure,
    ScrapeResult,
    navigation_failure,
)

__all__ = ["MAX_LOST", "Extract", "Loader"]

Extract = Callable[[Tab, Snapshot], Awaitable[Mapping[str, Any]]]
"""``async def extract(tab, snapshot) -> dict``: what goes into :attr:`ScrapeResult.data`."""

#: Times a page may be lost with its browser before it is given up.
MAX_LOST = 3


class Loader:
    """Loads one job at a time in a tab of ``pool`` (see the module docstring).

    Args:
        pool: the browsers (started by the caller).
        wait_until: the load state each page must reach.
        timeout: seconds for each page's load, snapshot calls and ``extract``.
        retries: further attempts for a page whose failure may pass.
        snapshot_options: keyword arguments of ``Tab.snapshot``.
        extract: run on every loaded page (its result is the record's ``data``).
    """

    def __init__(
        self,
        pool: BrowserPool,
        *,
        wait_until: Any,
        timeout: float,
        retries: int,
        snapshot_options: dict[str, Any],
        extract: Extract | None,
    ) -> None:
        self._pool = pool
        self.wait_until = wait_until
        self.timeout = timeout
        self.retries = retries
        self._snapshot_options = snapshot_options
        self.extract = extract

    async def attempt(self, job: Job) -> tuple[ScrapeResult | None, float | None]:
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
