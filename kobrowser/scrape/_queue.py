"""The pages of one scrape run waiting for a worker: per-host limits and retries.

Pure bookkeeping on anyio primitives (no browser): jobs wait in one queue
per host; :meth:`Scheduler.take` hands out the next job of a host that has a
free slot, hosts taking turns, so a host at its ``per_host`` limit never
holds back the others. A job to try again waits out its back-off before it
is handed out again.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque

import anyio

__all__ = ["Job", "Scheduler"]


class Job:
    """One URL's way through the run.

    Attributes:
        url: as given.
        host: the ``per_host`` key.
        attempts: loads started so far.
        failures: attempts that failed through the page (charged to its retries).
        lost: attempts lost with their browser (not charged).
        started: ``time.monotonic()`` of the first attempt (None before).
        last_error: the latest failure's message.
    """

    __slots__ = ("attempts", "failures", "host", "last_error", "lost", "started", "url")

    def __init__(self, url: str, host: str) -> None:
        self.url = url
        self.host = host
        self.attempts = 0
        self.failures = 0
        self.lost = 0
        self.started: float | None = None
        self.last_error = ""

    def __repr__(self) -> str:
        return f"<Job {self.url!r} attempts={self.attempts}>"


class Scheduler:
    """Jobs by host, handed out fairly within ``per_host`` (None: no limit)."""

    def __init__(self, per_host: int | None) -> None:
        self.per_host = per_host
        self._queues: dict[str, deque[Job]] = {}
        self._turns: deque[str] = deque()  # hosts with queued jobs, in turn order
        self._active: dict[str, int] = {}
        self._delayed: list[tuple[float, int, Job]] = []
        self._counter = itertools.count()
        self._queued = 0
        self._running = 0
        self._input_done = False
        self._changed = anyio.Event()

    @property
    def queued(self) -> int:
        """Jobs waiting for a worker (back-off included)."""
        return self._queued + len(self._delayed)

    @property
    def running(self) -> int:
        """Jobs handed out and not yet done."""
        return self._running

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def add(self, job: Job) -> None:
        """Queue a new job."""
        queue = self._queues.get(job.host)
        if queue is None:
            queue = self._queues[job.host] = deque()
        if not queue:
            self._turns.append(job.host)
        queue.append(job)
        self._queued += 1
        self._notify()

    def input_done(self) -> None:
        """No job will be added any more (retries still may be)."""
        self._input_done = True
        self._notify()

    async def wait_for_room(self, limit: int) -> None:
        """Wait until fewer than ``limit`` jobs are queued (feeding back-pressure)."""
        while self.queued >= limit:
            await self._changed.wait()

    def finish(self, job: Job, *, retry_in: float | None = None) -> None:
        """The worker is done with ``job``: record it, or try again after ``retry_in`` s."""
        self._running -= 1
        count = self._active[job.host] - 1
        if count:
            self._active[job.host] = count
        else:
            del self._active[job.host]
        if retry_in is not None:
            due = time.monotonic() + retry_in
            heapq.heappush(self._delayed, (due, next(self._counter), job))
        self._notify()

    async def take(self) -> Job | None:
        """The next job a worker may start now; None once every job is done.

        Waits while every queued host is at its limit, while jobs wait out
        their back-off, and while running jobs may still come back for a
        retry.
        """
        while True:
            now = time.monotonic()
            while self._delayed and self._delayed[0][0] <= now:
                self.add(heapq.heappop(self._delayed)[2])
            job = self._pick()
            if job is not None:
                return job
            if self._input_done and not self.queued and not self._running:
                self._notify()  # wake the other idle workers: they are done too
                return None
            if self._delayed:
                with anyio.move_on_after(self._delayed[0][0] - now):
                    await self._changed.wait()
            else:
                await self._changed.wait()

    def _pick(self) -> Job | None:
        turns = self._turns
        for _ in range(len(turns)):
            host = turns[0]
            active = self._active.get(host, 0)
            if self.per_host is not None and active >= self.per_host:
                turns.rotate(-1)
                continue
            queue = self._queues[host]
            job = queue.popleft()
            turns.popleft()
            if queue:
                turns.append(host)  # its next job waits for the other hosts' turns
            else:
                del self._queues[host]
            self._queued -= 1
            self._active[host] = active + 1
            self._running += 1
            return job
        return None
