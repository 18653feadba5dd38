"""The browser actor of a Ray scrape: one per ``browser_slots`` unit of a node.

:class:`BrowserNode` is a plain class; the driver (:mod:`kobrowser.scrape._ray`)
makes it a Ray async actor with ``ray.remote`` when it starts one, so this
module never imports Ray at import time. The actor owns a browser pool (the
node's own Chrome(s), or the CDP endpoints given) and loads one page per
:meth:`BrowserNode.visit` call with the same :class:`Loader` as a Scraper.
The driver owns the queue, the ``per_host`` limits, the retries' counts and
the records, so a lost actor loses nothing but the attempts it was running.

Lifetime: :meth:`BrowserNode.serve` starts the pool and holds it until
:meth:`BrowserNode.stop` (its task owns the pool's task group, as anyio
wants); the driver keeps the ``serve`` call's reference, which also fails
when the actor or its node dies.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import msgspec

from kobrowser.scrape._attempt import Loader
from kobrowser.scrape._pool import BrowserPool
from kobrowser.scrape._queue import Job

__all__ = ["BrowserNode", "Visit"]


class Visit(msgspec.Struct, array_like=True):
    """What one :meth:`BrowserNode.visit` gives back to the driver.

    Attributes:
        record: the page's :class:`ScrapeResult` as JSON, or None to try again.
        retry_in: seconds to wait before trying again (with ``record`` None).
        attempts: the job's attempts after this one.
        failures: the job's failures charged to its retries.
        lost: the job's attempts lost with a browser (inside the actor).
        error: the latest failure's message.
    """

    record: bytes | None
    retry_in: float | None
    attempts: int
    failures: int
    lost: int
    error: str


class BrowserNode:
    """The browsers of one Ray actor and the scraper that loads pages in them.

    Args:
        options: ``{"pool": BrowserPool keyword arguments, "loader": Loader
            keyword arguments}``, as the driver's Scraper checked them.
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self._options = options
        self._loader: Loader | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._error: str | None = None

    async def serve(self) -> None:
        """Open the browsers and keep them open until :meth:`stop`."""
        try:
            pool = BrowserPool(**self._options["pool"])
            async with anyio.create_task_group() as tg:
                await tg.start(pool.run)
                self._loader = Loader(pool, **self._options["loader"])
                self._ready.set()
                await self._stop.wait()
                tg.cancel_scope.cancel()  # the keepers close the browsers on the way out
        except Exception as exc:
            self._error = f"{type(exc).__name__}: {exc}"
            self._ready.set()
            raise
        finally:
            self._loader = None

    async def ready(self) -> str:
        """Wait for the browsers; the id of the Ray node this actor runs on.

        Raises:
            RuntimeError: the Scraper could not start.
        """
        await self._ready.wait()
        if self._error is not None:
            raise RuntimeError(self._error)
        import ray  # only ever called inside a Ray worker

        node: str = ray.get_runtime_context().get_node_id()
        return node

    async def visit(self, url: str, host: str, attempts: int, failures: int, lost: int) -> bytes:
        """Load ``url`` once; a :class:`Visit` as msgpack.

        The counts are the job's so far (the driver's); the page is judged
        as :class:`Scraper` judges it (retries, back-off, lost browsers).
        """
        await self._ready.wait()
        loader = self._loader
        if loader is None:
            raise RuntimeError(self._error or "the actor's browsers are closed")
        job = Job(url, host)
        job.attempts, job.failures, job.lost = attempts, failures, lost
        result, retry_in = await loader.attempt(job)
        record = None if result is None else msgspec.json.encode(result)
        visit = Visit(record, retry_in, job.attempts, job.failures, job.lost, job.last_error)
        return msgspec.msgpack.encode(visit)

    async def stop(self) -> None:
        """Close the browsers (``serve`` returns); pages still loading are cancelled."""
        self._stop.set()
