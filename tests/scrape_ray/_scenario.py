"""One Ray scrape scenario, run inside a network namespace of its own; JSON out.

``test_ray.py`` runs ``unshare --net sh -c 'ip link set lo up && exec python
_scenario.py NAME ARGS_JSON'``: inside, loopback is the only interface, so
Ray announces 127.0.0.1 and every byte stays on it. The scenario starts the
page server and a ``ray.cluster_utils.Cluster`` there, scrapes, and prints
one JSON object as its last line of stdout.

Scenarios:
    kill: ``nodes`` nodes (one ``browser_slots`` each); ``pages`` slow pages;
        once ``kill_after`` records are in, every page is held (see below)
        and the last worker node is removed (its raylet and workers killed).
    per_host: pages of two hosts (127.0.0.1 and localhost), ``per_host``;
        the server counts the most requests of one host it served at once.
    hang: once ``freeze_after`` records are in, every page is held (see
        below) and one actor's process is frozen (SIGSTOP). The driver's
        per-URL deadline is cut to ``deadline`` seconds so the test need not
        wait the default (3 timeouts + 40 s).
    local: ``ray="auto"`` with neither RAY_ADDRESS nor ``ray.init()``: a local
        Ray of its own, started and shut down by the Scraper.
    cli: ``ko-browser scrape --ray ADDRESS`` stopped with SIGINT after
        ``stop_after`` lines, then ``--resume``; the file's records.

The cluster scenarios start scraping once every node's actor is up, so
under load none is still opening Chrome while the others do all the pages.
A node is killed or an actor frozen while the server holds every page
request until all the actors' page slots (``nodes * concurrency``) wait on
it: the victim then provably has ``concurrency`` pages in flight, whichever
it is; the pages are let through once it is dead or frozen.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

from _server import PageServer  # noqa: E402
from aiohttp import web  # noqa: E402

#: Seconds a page's response is held (so every actor has pages in flight).
DELAY = 0.3


class Pages:
    """``/p/N`` pages that answer after ``delay``; counts per path and per host at once."""

    def __init__(self, server: PageServer, count: int, delay: float = DELAY) -> None:
        self.server = server
        self.delay = delay
        self.served: collections.Counter[str] = collections.Counter()
        self.requested: collections.Counter[str] = collections.Counter()
        self.now: collections.Counter[str] = collections.Counter()
        self.most: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._holding = False
        self._held: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        for index in range(count):
            server.set_route(f"/p/{index}", self._page)

    def hold(self) -> None:
        """Hold every page request from now on until :meth:`release` (thread-safe)."""
        with self._lock:
            self._holding = True

    @property
    def held(self) -> int:
        """How many page requests are being held right now."""
        with self._lock:
            return len(self._held)

    def release(self) -> None:
        """Let the held page requests and every later one through (thread-safe)."""
        with self._lock:
            self._holding = False
            held, self._held = self._held, []
        for loop, waiter in held:
            loop.call_soon_threadsafe(_wake, waiter)

    async def _page(self, request: web.Request) -> web.StreamResponse:
        with self._lock:
            self.requested[request.path] += 1
            waiter = None
            if self._holding:
                loop = asyncio.get_running_loop()
                waiter = loop.create_future()
                self._held.append((loop, waiter))
        if waiter is not None:
            await waiter
        host = request.host.rsplit(":", 1)[0]
        self.now[host] += 1
        self.most[host] = max(self.most[host], self.now[host])
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.now[host] -= 1
        self.served[request.path] += 1
        name = request.path.rsplit("/", 1)[1]
        html = f"<!doctype html><title>Page {name}</title><h1>Page {name}</h1><p>text {name}</p>"
        return web.Response(text=html, content_type="text/html")


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


async def until(condition: Any, what: str, timeout: float = 300.0) -> None:
    """Poll ``condition()`` until true; AssertionError naming ``what`` after ``timeout``."""
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout:g} s")


def start_cluster(nodes: int) -> Any:
    from ray.cluster_utils import Cluster

    args = {"num_cpus": 1, "resources": {"browser_slots": 1}}
    cluster = Cluster(initialize_head=True, head_node_args=args)
    for _ in range(nodes - 1):
        cluster.add_node(**args)
    cluster.wait_for_nodes()
    return cluster


async def hold_all_then(
    pages: Pages, slots: int, ended: list[bool], act: Callable[[], Awaitable[None]]
) -> int:
    """Hold every page until ``slots`` requests wait, ``act()``, let them go; how many waited."""
    pages.hold()
    try:
        await until(lambda: pages.held >= slots or bool(ended), f"{slots} pages held")
        assert not ended, "the run ended while pages were held"
        held = pages.held
        await act()
        return held
    finally:
        pages.release()


During = Callable[[Any, list[dict[str, Any]], list[bool]], Awaitable[None]]


async def scrape(
    urls: list[str],
    options: dict[str, Any],
    *,
    actors: int | None = None,
    during: During | None = None,
    deadline: float | None = None,
    replaced: bool = False,
) -> dict[str, Any]:
    """Scrape ``urls``; with ``actors``, only once that many are up.

    ``during(scraper, records, ended)`` runs beside the run (``ended`` gets
    an item when the last record is in); ``deadline`` cuts the driver's
    per-URL deadline; with ``replaced``, the Scraper stays open after the
    run until ``actors`` are up again (``later``: its status then).
    """
    import kobrowser

    records: list[dict[str, Any]] = []
    ended: list[bool] = []
    most_nodes = 0
    async with kobrowser.Scraper(**options) as scraper:
        if deadline is not None:
            assert scraper._engine is not None
            scraper._engine.deadline = deadline

        def up() -> int:
            return int((scraper.ray_status or {}).get("actors", 0))

        if actors is not None:
            await until(lambda: up() == actors, f"{actors} browser actors up")

        async def consume() -> None:
            nonlocal most_nodes
            async for result in scraper.run(urls):
                records.append(result.to_dict())
                most_nodes = max(most_nodes, (scraper.ray_status or {}).get("nodes", 0))
            ended.append(True)

        async with asyncio.TaskGroup() as tg:
            tg.create_task(consume())
            if during is not None:
                tg.create_task(during(scraper, records, ended))
        status = scraper.ray_status
        later = status
        if replaced:
            for _ in range(600):  # a replacement opens its Chrome
                if up() == actors:
                    break
                await asyncio.sleep(0.2)
            later = scraper.ray_status
        actors_later = _actor_processes()
    return {
        "records": records,
        "status": status,
        "most_nodes": most_nodes,
        "later": later,
        "actors_later": actors_later,
    }


def kill(args: dict[str, Any]) -> dict[str, Any]:
    import ray

    nodes, concurrency = args["nodes"], args["concurrency"]
    cluster = start_cluster(nodes)
    victim = cluster.list_all_nodes()[-1]
    ray.init(address=cluster.address)
    removed: list[float] = []
    held_at_kill: list[int] = []
    with PageServer() as server:
        pages = Pages(server, args["pages"])
        urls = [server.url(f"/p/{i}") for i in range(args["pages"])]

        async def during(scraper: Any, records: list[dict[str, Any]], ended: list[bool]) -> None:
            enough = args["kill_after"]
            await until(lambda: len(records) >= enough or bool(ended), "records")
            assert not ended, "the run ended before the kill"

            async def remove() -> None:
                await asyncio.to_thread(cluster.remove_node, victim)
                removed.append(time.monotonic())

            held_at_kill.append(await hold_all_then(pages, nodes * concurrency, ended, remove))

        options = {"ray": "auto", "concurrency": concurrency, "per_host": None}
        out = asyncio.run(scrape(urls, options, actors=nodes, during=during))
        out["served"] = dict(pages.served)
        out["requested"] = dict(pages.requested)
    out["removed"] = bool(removed)
    out["held_at_kill"] = held_at_kill
    out["urls"] = urls
    ray.shutdown()
    cluster.shutdown()
    return out


def per_host(args: dict[str, Any]) -> dict[str, Any]:
    import ray

    cluster = start_cluster(args["nodes"])
    ray.init(address=cluster.address)
    with PageServer() as server:
        pages = Pages(server, args["pages"])
        urls = [server.url(f"/p/{i}") for i in range(args["pages"])]
        urls += [server.cross_url(f"/p/{i}") for i in range(args["pages"])]
        options = {"ray": "auto", "concurrency": args["concurrency"], "per_host": args["per_host"]}
        out = asyncio.run(scrape(urls, options, actors=args["nodes"]))
        out["most_at_once"] = dict(pages.most)
    out["urls"] = urls
    ray.shutdown()
    cluster.shutdown()
    return out


def local(args: dict[str, Any]) -> dict[str, Any]:
    import ray

    with PageServer() as server:
        Pages(server, args["pages"], delay=0.0)
        urls = [server.url(f"/p/{i}") for i in range(args["pages"])]
        out = asyncio.run(scrape(urls, {"ray": "auto", "concurrency": 2}))
    out["urls"] = urls
    out["still_initialized"] = ray.is_initialized()
    return out


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = collections.defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _actor_processes() -> list[int]:
    """This scenario's browser actor processes (Ray titles them ``ray::BrowserNode``)."""
    pids = []
    for pid in _descendants(os.getpid()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if command.startswith(b"ray::BrowserNode"):
            pids.append(pid)
    return pids


def hang(args: dict[str, Any]) -> dict[str, Any]:
    import ray

    nodes, concurrency = args["nodes"], args["concurrency"]
    cluster = start_cluster(nodes)
    ray.init(address=cluster.address)
    frozen: list[int] = []
    held_at_freeze: list[int] = []
    with PageServer() as server:
        pages = Pages(server, args["pages"])
        urls = [server.url(f"/p/{i}") for i in range(args["pages"])]

        async def during(scraper: Any, records: list[dict[str, Any]], ended: list[bool]) -> None:
            enough = args["freeze_after"]
            await until(lambda: len(records) >= enough or bool(ended), "records")
            assert not ended, "the run ended before the freeze"

            async def freeze() -> None:
                processes = _actor_processes()
                assert len(processes) == nodes, processes
                frozen.append(processes[0])
                os.kill(processes[0], signal.SIGSTOP)

            held_at_freeze.append(await hold_all_then(pages, nodes * concurrency, ended, freeze))

        options = {"ray": "auto", "concurrency": concurrency, "per_host": None}
        deadline = args["deadline"]
        run = scrape(urls, options, actors=nodes, during=during, deadline=deadline, replaced=True)
        out = asyncio.run(run)
        out["served"] = dict(pages.served)
        out["requested"] = dict(pages.requested)
    out["frozen"] = frozen
    out["held_at_freeze"] = held_at_freeze
    out["frozen_alive"] = bool(frozen) and Path(f"/proc/{frozen[0]}").exists()
    out["urls"] = urls
    ray.shutdown()
    cluster.shutdown()
    return out


def cli(args: dict[str, Any]) -> dict[str, Any]:
    cluster = start_cluster(args["nodes"])
    workdir = Path(args["dir"])
    with PageServer() as server:
        pages = Pages(server, args["pages"])
        urls = [server.url(f"/p/{i}") for i in range(args["pages"])]
        listing = workdir / "urls.txt"
        listing.write_text("\n".join(urls) + "\n")
        output = workdir / "out.jsonl"
        command = [sys.executable, "-m", "kobrowser.cli", "scrape", str(listing), "-o"]
        command += [str(output), "--concurrency", "3", "--ray", cluster.address]
        first = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        lines = 0
        while time.monotonic() < deadline and first.poll() is None:
            lines = output.read_bytes().count(b"\n") if output.exists() else 0
            if lines >= args["stop_after"]:
                break
            time.sleep(0.05)
        first.send_signal(signal.SIGINT)
        _, first_err = first.communicate(timeout=120)
        after_stop = output.read_bytes().count(b"\n")
        second = subprocess.run(
            [*command, "--resume"], capture_output=True, timeout=300, check=False
        )
        out = {
            "first_code": first.returncode,
            "first_stderr": first_err.decode(errors="replace")[-2000:],
            "lines_at_stop": lines,
            "lines_after_stop": after_stop,
            "second_code": second.returncode,
            "second_stderr": second.stderr.decode(errors="replace")[-2000:],
            "records": [json.loads(line) for line in output.read_text().splitlines()],
            "served": dict(pages.served),
            "urls": urls,
        }
    cluster.shutdown()
    return out


def main() -> None:
    name, raw = sys.argv[1], sys.argv[2]
    os.environ.pop("RAY_ADDRESS", None)
    # A suite run as a background job inherits SIGINT ignored, and the CLI keeps an
    # ignored SIGINT ignored: restore it, so `cli` interrupts as Ctrl-C would.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    scenario = {"kill": kill, "per_host": per_host, "hang": hang, "local": local, "cli": cli}[name]
    result = scenario(json.loads(raw))
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
