"""The driver of ``scrape(..., ray=...)``: browser actors on a Ray cluster, fed from here.

Ray is imported lazily (extra ``ko-browser[ray]``), only once a Scraper with
``ray=`` is entered. What runs where:

* The cluster's nodes run one :class:`~kobrowser.scrape._ray_node.BrowserNode`
  actor per unit of the custom resource ``browser_slots`` (a node started with
  ``--resources '{"browser_slots": 2}'`` runs two); each owns its Chrome(s)
  and loads up to ``concurrency`` pages at once. A keeper here tops the actors
  up to the cluster's ``browser_slots`` every second, so a node that joins is
  used and a lost actor is replaced.
* This process (the driver) owns everything else: the queue and its
  ``per_host`` limits (so they hold across the cluster), the retries, and the
  records. Work is pulled: each actor has ``concurrency`` tokens, and a URL
  is sent only with a free token, so a slow or lost node never holds URLs
  that others could load.

Exactly once: a URL is recorded only here and only once. An attempt lost
with its actor (its node died, it failed, or it did not answer within the
per-URL deadline, after which it is killed and replaced) goes back in the
queue at once without being charged to the page's retries (up to
``MAX_LOST`` times, as a browser lost in one process); a late answer of a
replaced actor is never read.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import time
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.to_thread
import msgspec
import sniffio

from kobrowser._exceptions import KoBrowserError
from kobrowser._validate import fail
from kobrowser.scrape._attempt import MAX_LOST
from kobrowser.scrape._pool import NoBrowserError
from kobrowser.scrape._ray_node import BrowserNode, Visit
from kobrowser.scrape._result import ScrapeResult

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from kobrowser.scrape._queue import Job, Scheduler

__all__ = ["RESOURCE", "RayEngine", "check_ray", "import_ray"]

#: The custom resource an actor takes one unit of.
RESOURCE = "browser_slots"
#: Seconds an actor may take to be placed and open its browsers.
START_TIMEOUT = 90.0
#: Seconds the driver waits for any live actor before the run fails.
NO_NODE_TIMEOUT = 180.0
#: Seconds between two looks at the cluster's ``browser_slots``.
KEEP_PERIOD = 1.0
#: Seconds a stopping actor gets to close its browsers before it is killed.
STOP_GRACE = 10.0

_ADDRESS = re.compile(r"^(ray://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")
_MISSING = "scrape(..., ray=...) needs Ray: install it with `pip install 'ko-browser[ray]'`"


def check_ray(value: Any) -> str | None:
    """The ``ray`` option checked: None, ``"auto"`` or a cluster address."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text == "auto" or _ADDRESS.match(text):
            return text
    raise fail(
        "ray",
        value,
        '"auto" (RAY_ADDRESS, else a local Ray), a cluster address HOST:PORT or '
        "ray://HOST:PORT, or None",
    )


def import_ray() -> Any:
    """The ``ray`` module, or a clear error when the extra is not installed."""
    try:
        import ray
    except ImportError as exc:
        raise KoBrowserError(f"{_MISSING} ({exc})") from None
    return ray


class Lane:
    """One browser actor as the driver sees it.

    Attributes:
        index: its number in this run (for messages).
        actor: the Ray actor handle.
        serve: the reference of its ``serve`` call (fails when it dies).
        node: the id of the Ray node it runs on, once ready.
        alive: ready and not lost; its tokens are valid only while True.
    """

    __slots__ = ("actor", "alive", "dead", "index", "node", "serve")

    def __init__(self, index: int, actor: Any) -> None:
        self.index = index
        self.actor = actor
        self.serve: Any = None
        self.node: str | None = None
        self.alive = False
        self.dead = False


class RayEngine:
    """The driver's side of a Ray scrape (see the module docstring).

    Args:
        address: ``"auto"`` or a cluster address (checked by :func:`check_ray`).
        node_options: the :class:`Scraper` options of every actor.
        concurrency: pages each actor loads at once.
        timeout: the per-page timeout (the per-URL deadline here is derived from it).
    """

    def __init__(
        self, address: str, node_options: dict[str, Any], concurrency: int, timeout: float
    ) -> None:
        self.address = address
        self.node_options = node_options
        self.concurrency = concurrency
        # Over the actor's own safety net (3 timeouts + 10 s) and a lease's wait.
        self.deadline = timeout * 3 + 40.0
        self._ray: Any = None
        self._owned = False  # this engine started Ray (and shuts it down)
        self._lanes: list[Lane] = []
        self._started = 0
        # Made in run() (anyio needs the loop): set when the actors change, and the
        # tokens (a free page slot of a live actor is one of its Lanes in this stream).
        self._changed: anyio.Event
        self._tokens_in: MemoryObjectSendStream[Lane]
        self._tokens_out: MemoryObjectReceiveStream[Lane]
        self._visits = 0
        self._lost = 0

    # -- status --------------------------------------------------------------------

    def status(self) -> dict[str, int]:
        """Counts for progress bars and benchmarks.

        Keys: ``nodes`` (Ray nodes with a live actor), ``actors`` (live),
        ``actors_started``, ``visits`` (calls sent to actors: one message
        each way), ``lost`` (attempts lost with an actor).
        """
        live = [lane for lane in self._lanes if lane.alive]
        return {
            "nodes": len({lane.node for lane in live}),
            "actors": len(live),
            "actors_started": self._started,
            "visits": self._visits,
            "lost": self._lost,
        }

    # -- the cluster ---------------------------------------------------------------

    async def run(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Join Ray, keep the actors up until cancelled, then stop them."""
        if sniffio.current_async_library() != "asyncio":
            raise KoBrowserError("scrape(..., ray=...) runs on asyncio only, not trio")
        self._ray = import_ray()
        self._changed = anyio.Event()
        await anyio.to_thread.run_sync(self._connect)
        self._tokens_in, self._tokens_out = anyio.create_memory_object_stream[Lane](math.inf)
        try:
            slots = await anyio.to_thread.run_sync(self._slots)
            if slots < 1:
                raise KoBrowserError(
                    f"the Ray cluster has no {RESOURCE!r} resource: start its nodes with "
                    f"`ray start ... --resources '{{\"{RESOURCE}\": 2}}'` (one browser actor "
                    "per unit)"
                )
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._keep, tg)
                task_status.started()
        finally:
            with anyio.CancelScope(shield=True):
                await self._stop_all()
                self._tokens_in.close()
                self._tokens_out.close()
                if self._owned:
                    await anyio.to_thread.run_sync(self._ray.shutdown)

    def _connect(self) -> None:
        ray = self._ray
        if ray.is_initialized():
            return  # the caller's own ray.init(): use it, leave it up
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.WARNING,
        }
        where = self.address
        if where == "auto" and not os.environ.get("RAY_ADDRESS"):
            options["resources"] = {RESOURCE: 1}
            where = "a local Ray"
        elif where != "auto":
            options["address"] = where
        else:
            where = os.environ["RAY_ADDRESS"]
        try:
            ray.init(**options)
        except Exception as exc:
            text = " ".join(str(exc).split()) or type(exc).__name__
            raise KoBrowserError(f"cannot start or join Ray ({where}): {text}") from None
        self._owned = True

    def _slots(self) -> int:
        return int(self._ray.cluster_resources().get(RESOURCE, 0))

    async def _keep(self, tg: anyio.abc.TaskGroup) -> None:
        """Top the actors up to the cluster's ``browser_slots``, every second or on a loss."""
        while True:
            slots = await anyio.to_thread.run_sync(self._slots)
            running = [lane for lane in self._lanes if not lane.dead]
            for _ in range(slots - len(running)):
                tg.start_soon(self._lane, self._start())
            with anyio.move_on_after(KEEP_PERIOD):
                await self._changed.wait()

    def _start(self) -> Lane:
        actor_class = self._ray.remote(BrowserNode).options(
            resources={RESOURCE: 1},
            num_cpus=0,
            max_restarts=0,
            max_concurrency=4 * self.concurrency + 16,
        )
        lane = Lane(self._started, actor_class.remote(self.node_options))
        self._started += 1
        lane.serve = lane.actor.serve.remote()
        self._lanes.append(lane)
        return lane

    async def _lane(self, lane: Lane) -> None:
        ray = self._ray
        try:
            with anyio.fail_after(START_TIMEOUT):
                lane.node = await lane.actor.ready.remote()
            lane.alive = True
            for _ in range(self.concurrency):
                self._tokens_in.send_nowait(lane)
            await lane.serve  # returns only when stopped; raises when the actor dies
        except (TimeoutError, ray.exceptions.RayError):
            pass
        # Cancelled (the Scraper is closing): run() stops the actor, gracefully.
        self._bury(lane)

    def _give(self, lane: Lane) -> None:
        """Give back a page slot of ``lane`` (dropped once it is lost)."""
        if lane.alive:
            self._tokens_in.send_nowait(lane)

    def _bury(self, lane: Lane) -> None:
        """Take ``lane`` out of the run and kill its actor (the keeper replaces it)."""
        if lane.dead:
            return
        lane.alive = False
        lane.dead = True
        self._lanes.remove(lane)
        with contextlib.suppress(Exception):  # already gone with its node
            self._ray.kill(lane.actor, no_restart=True)
        self._changed.set()
        self._changed = anyio.Event()

    async def _stop_all(self) -> None:
        lanes = list(self._lanes)
        for lane in lanes:
            with contextlib.suppress(Exception):
                lane.actor.stop.remote()
        with anyio.move_on_after(STOP_GRACE):
            for lane in lanes:
                with contextlib.suppress(Exception):
                    await lane.serve
        for lane in lanes:
            self._bury(lane)

    # -- a run -------------------------------------------------------------------

    async def _token(self) -> Lane:
        """A free page slot on a live actor (waits; fails when none comes up at all)."""
        while True:
            with anyio.move_on_after(NO_NODE_TIMEOUT):
                lane = await self._tokens_out.receive()
                if lane.alive:
                    return lane
                continue
            if not any(lane.alive for lane in self._lanes):
                raise NoBrowserError(
                    f"no browser actor of the Ray cluster came up within {NO_NODE_TIMEOUT:g} s "
                    f"(one needs a free unit of {RESOURCE!r} and its browsers)"
                )

    async def dispatch(
        self, scheduler: Scheduler, send: MemoryObjectSendStream[ScrapeResult]
    ) -> None:
        """Hand the run's jobs to the actors as they free up, until every job is done."""
        async with anyio.create_task_group() as tg:
            while True:
                lane = await self._token()
                try:
                    job = await scheduler.take()
                except BaseException:  # the run is cancelled: the slot stays for the next
                    self._give(lane)
                    raise
                if job is None:
                    self._give(lane)
                    return
                if not lane.alive:  # lost while the job was awaited: hand it out again
                    scheduler.finish(job, retry_in=0.0)
                    continue
                tg.start_soon(self._visit, lane, job, scheduler, send)

    async def _visit(
        self, lane: Lane, job: Job, scheduler: Scheduler, send: MemoryObjectSendStream[ScrapeResult]
    ) -> None:
        ray = self._ray
        if job.started is None:
            job.started = time.monotonic()
        self._visits += 1
        ref = lane.actor.visit.remote(job.url, job.host, job.attempts, job.failures, job.lost)
        reply: bytes | None = None
        lost = ""
        with anyio.move_on_after(self.deadline) as scope:
            try:
                reply = await ref
            except ray.exceptions.RayError as exc:
                text = " ".join(str(exc).split())[:300]
                lost = f"lost the browser actor {lane.index} on Ray node {lane.node}: {text}"
            except BaseException:  # the run is cancelled: stop the page, free its slot
                with contextlib.suppress(Exception):
                    ray.cancel(ref)
                self._give(lane)
                raise
        if scope.cancelled_caught:
            lost = f"the browser actor {lane.index} did not answer within {self.deadline:g} s"
        if reply is None:
            self._bury(lane)  # lost, failed or hung: killed; the keeper starts another
            result, retry_in = self._lost_attempt(job, lost)
        else:
            result, retry_in = self._answer(job, reply)
            self._give(lane)
        scheduler.finish(job, retry_in=retry_in)
        if result is not None:
            try:
                await send.send(result)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return

    def _answer(self, job: Job, reply: bytes) -> tuple[ScrapeResult | None, float | None]:
        visit = msgspec.msgpack.decode(reply, type=Visit)
        job.attempts, job.failures, job.lost = visit.attempts, visit.failures, visit.lost
        job.last_error = visit.error
        if visit.record is None:
            return None, visit.retry_in
        result = msgspec.json.decode(visit.record, type=ScrapeResult)
        return msgspec.structs.replace(result, elapsed=self._elapsed(job)), None

    def _lost_attempt(self, job: Job, message: str) -> tuple[ScrapeResult | None, float | None]:
        self._lost += 1
        job.attempts += 1
        job.lost += 1
        job.last_error = message
        if job.lost <= MAX_LOST:
            return None, 0.0  # at once, on another actor; not charged to its retries
        error = f"{message} (lost {job.lost} times while loading this page)"
        record = ScrapeResult(
            url=job.url, ok=False, error=error, attempts=job.attempts, elapsed=self._elapsed(job)
        )
        return record, None

    @staticmethod
    def _elapsed(job: Job) -> float:
        started = job.started if job.started is not None else time.monotonic()
        return round(time.monotonic() - started, 3)
