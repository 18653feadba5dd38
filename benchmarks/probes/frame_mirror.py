"""Probe: click, then snapshot, in a large cross-origin frame (its own AX mirror).

A small top page (below ``AXMirrorSettings.min_nodes``: not mirrored) embeds
the benchmark table (``benchmarks/pages``, ROWS rows, about 34,000 AX nodes
for 2,000) in a cross-origin (out-of-process) iframe, served from
``localhost`` under a ``127.0.0.1`` page. Default mirror settings: the
frame's document gets a mirror of its own after the first snapshot. Then,
on one tab, each step clicks a row's button in the frame and takes a
snapshot, alternately from the mirror and with ``fresh=True`` (a full
fetch of every document); the last two are compared.

Run: ``.venv/bin/python -m benchmarks.probes.frame_mirror [--rows N] [--steps N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from typing import Any

from benchmarks._common import LocalServer
from benchmarks.bench_mirror import page_html


def _server(table: bytes) -> LocalServer:
    """The table on every path, and at ``/outer`` a page framing it from the other site."""

    def render(path: str, query: dict[str, str], port: int) -> bytes:
        if path == "/outer":
            return (
                "<!doctype html><title>Outer</title><h1>Outer</h1>"
                f"<iframe src='http://localhost:{port}/table' style='width:800px;height:600px'>"
                "</iframe>"
            ).encode()
        return table

    return LocalServer(render)


def _button(snapshot: Any, row: int) -> int:
    return next(
        int(e.id)
        for e in snapshot.id_map.values()
        if e.role == "button" and e.name.endswith(f" {row}")
    )


async def run(rows: int, steps: int) -> None:
    import kobrowser
    from kobrowser import AXMirrorSettings

    server = _server(page_html(rows)).start()
    try:
        async with kobrowser.launch(timeout=120) as browser:
            browser.ax_mirror = AXMirrorSettings()  # the default
            tab = await browser.new_tab(server.url("/outer"))
            await asyncio.sleep(1)
            start = time.perf_counter()
            snap = await tab.snapshot()
            print(f"first snapshot: {(time.perf_counter() - start) * 1000:.0f} ms")
            mirrors: Any = tab._snapshotter.mirror  # private: the frame mirrors it holds
            (frame,) = mirrors.frame_mirrors.values()
            start = time.perf_counter()
            assert await frame.wait_ready(), frame.state
            print(f"frame crawl: {time.perf_counter() - start:.1f} s, {len(frame)} nodes")
            times: dict[str, list[float]] = {"mirror": [], "fresh": []}
            for step in range(steps):
                for kind in ("mirror", "fresh"):
                    row = (step * 2 + (kind == "fresh")) * 37 % rows
                    await tab.click(_button(snap, row))
                    gc.collect()
                    start = time.perf_counter()
                    snap = await tab.snapshot(fresh=kind == "fresh")
                    times[kind].append(time.perf_counter() - start)
                    await asyncio.sleep(0.1)
            assert (await tab.snapshot()).text == (await tab.snapshot(fresh=True)).text
            for kind, values in times.items():
                print(
                    f"{kind}: median {statistics.median(values) * 1000:.0f} ms "
                    f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
                )
            print(f"frame mirror: {frame.stats}; top mirror: {mirrors.mirror}")
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    asyncio.run(run(args.rows, args.steps))


if __name__ == "__main__":
    main()
