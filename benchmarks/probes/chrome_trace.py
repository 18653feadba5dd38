"""Where one fresh snapshot of the 2,400-row table spends its time, Chrome included.

Starts kobrowser's browser with Chrome's start-up trace on (``--trace-startup``,
categories ``toplevel`` and ``devtools``), takes a few fresh snapshots of the
table page, then one more with marks in this process: the cyclic
collections that ran (``gc.callbacks``) and the call's start and end. Once
the trace is written it prints, on one clock (Chrome's trace and
``time.monotonic`` both read ``CLOCK_MONOTONIC`` on Linux), every DevTools
command the renderer ran for that snapshot (how long, and when its answer
was sent), the browser's relay and pipe writes, and this process's
collections. It backs the "Chrome's share of a fresh snapshot" figures in
docs/performance.md; it is a probe, not a runner benchmark.

Run: ``.venv/bin/python -m benchmarks.probes.chrome_trace [--warm 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import kobrowser
from benchmarks.pages import PageServer
from kobrowser.cdp import find_chrome

TRACE_SECONDS = 12
"""How long Chrome traces from its start (the warm-up and the snapshot fit in it)."""


def _ms(microseconds: float, origin: float) -> str:
    return f"{(microseconds - origin) / 1000:8.1f}"


def report(trace: Path, start: float, end: float, collections: list[tuple[float, float]]) -> None:
    """Print what the trace and the marks show between ``start`` and ``end`` (seconds)."""
    data = json.loads(trace.read_text())
    events: list[dict[str, Any]] = data["traceEvents"] if isinstance(data, dict) else data
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    origin = start * 1e6
    wanted = {"api_call", "DevToolsSession::SendProtocolResponse"}
    relay = {"DevToolsSession::DispatchProtocolResponse"}
    print(f"ms from the call (it ended at {(end - start) * 1000:.1f} ms)")
    rows = []
    for e in events:
        if e.get("ph") != "X" or not origin <= e["ts"] <= end * 1e6:
            continue
        thread = names.get((e["pid"], e["tid"]), "?")
        name = e.get("name", "")
        if name in wanted and thread == "CrRendererMain":
            what = e.get("args", {}).get("method_name", "answer sent")
        elif name in relay or (thread == "DevToolsPipeHandlerWriteThread" and e["dur"] > 1000):
            what = "relayed" if name in relay else "written to the pipe"
        else:
            continue
        rows.append((e["ts"], e["dur"], thread, what))
    for ts, dur, thread, what in sorted(rows):
        print(f"{_ms(ts, origin)} +{dur / 1000:7.1f}  {thread:32} {what}")
    for begun, ended in collections:
        print(
            f"{(begun - start) * 1000:8.1f} +{(ended - begun) * 1000:7.1f}  {'this process':32} "
            "a cyclic collection"
        )


async def main(warm: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, PageServer() as server:
        trace = Path(tmp) / "trace.json"
        args = [
            "--trace-startup=toplevel,devtools",
            f"--trace-startup-file={trace}",
            f"--trace-startup-duration={TRACE_SECONDS}",
            "--trace-startup-format=json",
        ]
        collections: list[tuple[float, float]] = []
        begun: list[float] = []

        def mark(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                begun.append(time.monotonic())
            elif begun:
                collections.append((begun.pop(), time.monotonic()))

        async with kobrowser.launch(executable_path=find_chrome(), args=args) as browser:
            tab = await browser.new_tab()
            await tab.open(server.url("table"))
            for _ in range(warm):
                await tab.snapshot(fresh=True)
            gc.collect()
            await asyncio.sleep(0.3)
            gc.callbacks.append(mark)
            try:
                start = time.monotonic()
                await tab.snapshot(fresh=True)
                end = time.monotonic()
            finally:
                gc.callbacks.remove(mark)
            # Chrome writes the trace when its duration is over, browser still open.
            for _ in range(TRACE_SECONDS * 4):
                if trace.exists() and trace.stat().st_size:
                    break
                await asyncio.sleep(0.5)
            await asyncio.sleep(1)
        if not trace.exists():
            raise SystemExit("Chrome wrote no trace (the snapshot took longer than the trace?)")
        report(trace, start, end, [c for c in collections if c[1] - c[0] > 0.0005])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", type=int, default=3, help="fresh snapshots before the traced one")
    asyncio.run(main(parser.parse_args().warm))
