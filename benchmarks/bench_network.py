"""Routing overhead: page-load time of the corpus with and without routes.

Each corpus page (benchmarks/corpus.py, served locally; other hosts are
unreachable, so their requests fail fast) is opened with ``wait_until="load"``
in one tab per mode, the modes interleaved page by page:

* ``none``: no route (Fetch disabled);
* ``block media``: ``tab.network.block(types=["image", "font", "media"])`` (only
  those requests are paused, and fail);
* ``glob miss``: one route whose glob matches nothing (``**/never/*.xyz``:
  Chrome pauses only ``*/never/*.xyz``, i.e. nothing);
* ``regex miss``: one route whose regex matches nothing
  (``/never/\\d+\\.xyz$``: pauses ``*/never/*.xyz``, i.e. nothing);
* ``predicate``: one route with a predicate that matches nothing (every
  request is paused and checked in Python: the cost narrowing avoids).

Run: ``python -m benchmarks network`` (``--quick``: 20 pages, 3 rounds).
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from typing import Any

from benchmarks.corpus import BLOCK_OTHER_HOSTS, CorpusServer, load_corpus

NAME = "network"
TITLE = "Network routing: page-load time with routes vs none (corpus)"

MODES = ("none", "block media", "glob miss", "regex miss", "predicate")


async def _setup(tab: Any, mode: str) -> None:
    async def never(route: Any) -> None:  # pragma: no cover - matches nothing
        await route.continue_()

    if mode == "block media":
        await tab.network.block(types=["image", "font", "media"])
    elif mode == "glob miss":
        await tab.network.route("**/never/*.xyz", never)
    elif mode == "regex miss":
        await tab.network.route(re.compile(r"/never/\d+\.xyz$"), never)
    elif mode == "predicate":
        await tab.network.route(lambda request: request.url.endswith(".xyz"), never)


async def run_network(
    limit: int, rounds: int
) -> tuple[dict[str, list[float]], dict[str, int], int]:
    import kobrowser

    pages = load_corpus(limit=limit)
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    requests: dict[str, int] = dict.fromkeys(MODES, 0)
    with CorpusServer(pages) as server:
        async with kobrowser.launch(args=[BLOCK_OTHER_HOSTS], timeout=60) as browser:
            tabs = {}
            for mode in MODES:
                tab = await browser.new_tab()
                await _setup(tab, mode)
                tabs[mode] = tab
            for index, page in enumerate(pages, 1):
                url = server.url(page)
                for mode in MODES:  # warm-up: the server, the cache of each tab
                    await tabs[mode].open(url, wait_until="load")
                for _ in range(rounds):
                    for mode in MODES:
                        tab = tabs[mode]
                        tab.network.clear_requests()
                        start = time.perf_counter()
                        await tab.open(url, wait_until="load")
                        times[mode].append(time.perf_counter() - start)
                        requests[mode] += len(tab.network.requests)
                print(f"[{index}/{len(pages)}] {page.name}", file=sys.stderr, flush=True)
    return times, requests, len(pages)


def table(times: dict[str, list[float]], requests: dict[str, int], pages: int, rounds: int) -> str:
    base = statistics.median(times["none"])
    base_mean = statistics.mean(times["none"])
    lines = [
        f"{pages} corpus pages x {rounds} rounds, modes interleaved, `wait_until='load'`;"
        " other hosts unreachable (fail fast).",
        "",
        "| mode | median load (ms) | vs none | mean (ms) | vs none | requests/load |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for mode in MODES:
        median = statistics.median(times[mode])
        mean = statistics.mean(times[mode])
        per_load = requests[mode] / max(1, len(times[mode]))
        lines.append(
            f"| {mode} | {median * 1000:.1f} | {median / base:.2f}x | {mean * 1000:.1f}"
            f" | {mean / base_mean:.2f}x | {per_load:.1f} |"
        )
    return "\n".join(lines) + "\n"


async def run(quick: bool = False) -> str:
    limit, rounds = (20, 3) if quick else (60, 5)
    times, requests, pages = await run_network(limit, rounds)
    return table(times, requests, pages, rounds)
