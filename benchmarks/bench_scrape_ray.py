"""The Ray engine's cost: ``scrape(..., ray=...)`` on 1, 2 and 3 Ray nodes vs one process.

The job is ``bench_scrape``'s: load each of 240 local pages of mixed size
(``scrape_corpus``, served from another process) and take its title and
snapshot, ``per_host=None``, ``retries=0``. Contenders, on the same pages:

* ``single process``: ``Scraper(concurrency=c)`` (one local Chrome).
* ``ray, N node(s)``: ``Scraper(concurrency=c, ray=...)`` on a
  ``ray.cluster_utils.Cluster`` of N nodes (``browser_slots`` 1 each, so one
  browser actor with one Chrome and ``c`` tabs per node).

The cluster grows from 1 to 3 nodes; at each size the single-process job and
the Ray job alternate for the rounds (each round's URLs carry a fresh query
string). Per job: pages/s, the driver's CPU per URL (``time.process_time``
of this process: for Ray the driver's Python and Ray's own threads in it; for
the single process everything, snapshots included) and Ray messages per URL
(each page a call to an actor and its reply).

Ray announces the machine's network interface, and benchmarks talk to
loopback only, so the whole job runs in a network namespace of its own
(``unshare --net``, ``ip link set lo up``; needs root and iproute2).
On 2 shared cores more nodes cannot go faster: the figures are the overhead
(1 node vs single process) and the driver's cost per URL, which feed the
capacity model in docs/performance.md.

Run: ``.venv/bin/python -m benchmarks scrape_ray [--quick]`` or
``.venv/bin/python -m benchmarks.bench_scrape_ray [--quick] [--rounds N] [--pages N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

NAME = "scrape_ray"
TITLE = "Scraping on Ray: 1, 2, 3 nodes vs one process, pages/s and driver cost per URL"

PAGES = 240
CONCURRENCY = 8
NODES = (1, 2, 3)
TIMEOUT = 120.0
PAUSE = 1.0


async def _job(scraper: Any, urls: list[str]) -> dict[str, float]:
    status = scraper.ray_status
    visits = status["visits"] if status else 0
    await asyncio.sleep(PAUSE)
    cpu, wall = time.process_time(), time.perf_counter()
    ok = 0
    async for result in scraper.run(urls):
        ok += result.ok
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = scraper.ray_status
    messages = 2 * (after["visits"] - visits) if after else 0
    return {
        "rate": len(urls) / wall,
        "cpu_ms": 1000 * cpu / len(urls),
        "messages": messages / len(urls),
        "ok": ok / len(urls),
        "load": os.getloadavg()[0],
    }


async def _inner_async(rounds: int, count: int, cluster: Any) -> list[dict[str, Any]]:
    import kobrowser
    from benchmarks.scrape_corpus import corpus, serve
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    pages = corpus(count)
    tag = 0

    def urls(origin: str) -> list[str]:
        nonlocal tag
        tag += 1
        return [f"{origin}{path}?r={tag}" for path, _ in pages]

    options: dict[str, Any] = {
        "concurrency": CONCURRENCY,
        "per_host": None,
        "retries": 0,
        "timeout": TIMEOUT,
        "executable_path": chrome,
    }
    rows: list[dict[str, Any]] = []
    with serve(pages) as origin:
        async with kobrowser.Scraper(**options) as single:
            await _job(single, urls(origin)[: 2 * CONCURRENCY])
            for nodes in NODES:
                while len(cluster.list_all_nodes()) < nodes:
                    cluster.add_node(num_cpus=1, resources={"browser_slots": 1})
                cluster.wait_for_nodes()
                print(f"{nodes} Ray node(s)", file=sys.stderr, flush=True)
                async with kobrowser.Scraper(ray="auto", **options) as on_ray:
                    for _ in range(1500):  # the actors open their Chromes
                        if (on_ray.ray_status or {}).get("actors", 0) >= nodes:
                            break
                        await asyncio.sleep(0.2)
                    await _job(on_ray, urls(origin)[: 2 * CONCURRENCY * nodes])
                    for i in range(rounds):
                        order = [("single process", single), (f"ray, {nodes} node(s)", on_ray)]
                        for name, scraper in order if i % 2 == 0 else order[::-1]:
                            row = await _job(scraper, urls(origin))
                            rows.append({"name": name, "nodes": nodes, **row})
    return rows


def inner(rounds: int, count: int) -> None:
    """Inside the namespace: the cluster, the jobs, one JSON line out."""
    import ray
    from ray.cluster_utils import Cluster

    os.environ.pop("RAY_ADDRESS", None)
    cluster: Any = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"browser_slots": 1}}
    )
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        rows = asyncio.run(_inner_async(rounds, count, cluster))
    finally:
        ray.shutdown()
        cluster.shutdown()
    sys.stdout.write("\n" + json.dumps(rows) + "\n")


def _report(rows: list[dict[str, Any]], rounds: int, count: int) -> str:
    lines = [
        f"{count} pages, concurrency {CONCURRENCY} (tabs per actor), {rounds} round(s) per "
        "cluster size, medians; the single process is measured alongside each size.",
        "",
        "| contender | pages/s | vs single process | driver CPU ms/URL | messages/URL | load |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for nodes in NODES:
        base = [r for r in rows if r["nodes"] == nodes and r["name"] == "single process"]
        mine = [r for r in rows if r["nodes"] == nodes and r["name"] != "single process"]
        if not base or not mine:
            continue
        base_rate = statistics.median(r["rate"] for r in base)
        for label, group in (("single process", base), (mine[0]["name"], mine)):
            rate = statistics.median(r["rate"] for r in group)
            lines.append(
                f"| {label} | {rate:.1f} | {rate / base_rate:.2f}x "
                f"| {statistics.median(r['cpu_ms'] for r in group):.2f} "
                f"| {statistics.median(r['messages'] for r in group):.2f} "
                f"| {statistics.median(r['load'] for r in group):.1f} |"
            )
    bad = [r for r in rows if r["ok"] < 1.0]
    if bad:
        lines += ["", f"Warning: {len(bad)} job(s) had failed pages."]
    return "\n".join(lines) + "\n"


def run(quick: bool = False, rounds: int | None = None, pages: int = PAGES) -> str:
    n = rounds if rounds is not None else (1 if quick else 3)
    count = 48 if quick and pages == PAGES else pages
    script = 'ip link set lo up && exec "$0" "$@"'
    command = ["unshare", "--net", "sh", "-c", script, sys.executable, "-m"]
    command += ["benchmarks.bench_scrape_ray", "--inner", "--rounds", str(n), "--pages", str(count)]
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(command, stdout=subprocess.PIPE, timeout=3600, check=True, cwd=root)
    rows = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return _report(rows, n, count)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--pages", type=int, default=PAGES)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.rounds or 1, args.pages)
    else:
        print(run(args.quick, args.rounds, args.pages))


if __name__ == "__main__":
    main()
