"""Per process, one full snapshot of the 2,400-row table: kobrowser vs the floor.

Alternates, on one kobrowser browser and one raw CBOR-pipe floor browser
(bare ``Accessibility.getFullAXTree`` plus the transcode), the contenders
below, and reads around each call its wall time, this Python process's CPU
and the CPU of Chrome's renderers and browser process (from ``/proc``, Linux
only). It backs the issue 11 figures in RESULTS.md ("Per process"); it is a
probe, not a runner benchmark (nothing is recorded).

Contenders: the floor; ``snapshot(fresh=True)``; the same with
``clickable=False``; and, unless ``--no-mirror``, a default ``snapshot()``
(mirror-served once its crawl is done). ``--no-mirror`` switches the mirror
off, so no background crawl competes with the full reads.

Run: ``.venv/bin/python -m benchmarks.probes.fresh_split [--rounds 7] [--no-mirror]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import kobrowser
from benchmarks._common import descendants, load
from benchmarks._rawcdp import RawPipe, RawTab
from benchmarks.pages import PageServer
from benchmarks.probes.cpu import cpu_by_kind
from kobrowser import AXMirrorSettings
from kobrowser.cdp import ChromeProcess, find_chrome


async def main(rounds: int, mirror: bool) -> None:
    chrome = find_chrome()
    with PageServer() as server:
        url = server.url("table")
        floor_proc = ChromeProcess(chrome, headless=True, transport="pipe-cbor")
        raw_pipe = await RawPipe.launch(floor_proc)
        raw = RawTab(raw_pipe)
        await raw.open(url)
        try:
            async with kobrowser.launch(executable_path=chrome, transport="pipe-cbor") as kb:
                if not mirror:
                    kb.ax_mirror = AXMirrorSettings(enabled=False)
                tab = await kb.new_tab(url)
                await asyncio.sleep(0.5)
                contenders: dict[str, Callable[[], Awaitable[Any]]] = {
                    "floor pipe": raw.fetch_all,
                    "kb fresh": lambda: tab.snapshot(fresh=True),
                    "kb fresh clickable=False": lambda: tab.snapshot(fresh=True, clickable=False),
                }
                if mirror:
                    contenders["kb default (mirrored)"] = lambda: tab.snapshot()
                for call in contenders.values():
                    await call()  # cold
                rows: dict[str, list[tuple[float, ...]]] = {name: [] for name in contenders}
                for _ in range(rounds):
                    for name, call in contenders.items():
                        pids = descendants(os.getpid())
                        before = cpu_by_kind(pids)
                        t0, c0 = time.perf_counter(), time.process_time()
                        await call()
                        wall, py = time.perf_counter() - t0, time.process_time() - c0
                        after = cpu_by_kind(pids)
                        delta = {k: (after[k] - before.get(k, 0)) * 1000 for k in after}
                        rows[name].append(
                            (
                                wall * 1000,
                                py * 1000,
                                delta.get("renderers", 0),
                                delta.get("browser (+ driver)", 0),
                            )
                        )
        finally:
            await raw.close()
            await raw_pipe.close()
            await floor_proc.aclose()
    print(f"load average (1 min): {load():.1f}; {rounds} rounds; median / min in ms")
    for name, got in rows.items():
        med = [statistics.median(r[i] for r in got) for i in range(4)]
        low = [min(r[i] for r in got) for i in range(4)]
        print(
            f"{name:26s} wall {med[0]:6.0f} / {low[0]:6.0f} | python CPU {med[1]:4.0f} / "
            f"{low[1]:4.0f} | renderer CPU {med[2]:5.0f} / {low[2]:5.0f} | browser {med[3]:4.0f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-mirror", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, not args.no_mirror))
