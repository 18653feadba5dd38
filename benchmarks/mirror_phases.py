"""Where a mirrored "click, then snapshot" spends its time, phase by phase.

Wall time and this process's CPU (``time.process_time``) of each phase of
``tab.snapshot()`` after a click on the 2,000-row page of bench_mirror, the
AX mirror ready: the mirror's answer (barrier, events, walk), the clickable
map (Chrome's ``DOMSnapshot.captureSnapshot`` and its decoding), build,
numbering/format. Medians over the steps.

Run: ``.venv/bin/python -m benchmarks.mirror_phases [--steps N] [--clickable off]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks.bench_mirror import ROWS, _button_id, _Server, page_html

Times = dict[str, list[tuple[float, float]]]


def _timed(times: Times, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))

    return wrapper


def _timed_async(times: Times, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return await func(*args, **kwargs)
        finally:
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))

    return wrapper


async def run(steps: int, clickable: bool) -> Times:
    import kobrowser
    from kobrowser import AXMirrorSettings, _clickable
    from kobrowser._axmirror import _mirror, _store
    from kobrowser._tab import _fetch, _snapshotter
    from kobrowser.cdp import find_chrome

    times: Times = defaultdict(list)
    _snapshotter.build_tree = _timed(times, "build_tree", _snapshotter.build_tree)  # type: ignore[assignment]
    _snapshotter.number_snapshot = _timed(  # type: ignore[assignment]
        times, "number+format", _snapshotter.number_snapshot
    )
    _fetch.fetch_frames = _timed_async(times, "fetch_frames", _fetch.fetch_frames)  # type: ignore[assignment]
    _snapshotter.fetch_frames = _fetch.fetch_frames  # type: ignore[attr-defined]
    cls = _clickable.ClickableMaps
    cls._arrived = _timed(times, "map decode+compute", cls._arrived)  # type: ignore[method-assign]
    dm = _mirror.DocumentMirror
    dm.nodes = _timed_async(times, "mirror.nodes", dm.nodes)  # type: ignore[method-assign]
    from kobrowser._tab import _clickwatch

    cw = _clickwatch.ClickWatch
    cw.prepare = _timed_async(times, "clickwatch.prepare", cw.prepare)  # type: ignore[method-assign]
    ms = _store.MirrorStore
    ms.collect = _timed(times, "  store.collect", ms.collect)  # type: ignore[method-assign]

    server = _Server(page_html(ROWS))
    try:
        async with kobrowser.launch(executable_path=find_chrome(), timeout=120) as browser:
            browser.ax_mirror = AXMirrorSettings()
            tab = await browser.new_tab(server.url)
            snap = await tab.snapshot()
            mirror = tab._snapshotter.mirror.mirror  # type: ignore[attr-defined]
            assert mirror is not None and await mirror.wait_ready()
            snap = await tab.snapshot(clickable=clickable)
            times.clear()
            for step in range(steps):
                await tab.click(_button_id(snap, (step * 97 + 13) % ROWS))
                gc.collect()
                wall, cpu = time.perf_counter(), time.process_time()
                snap = await tab.snapshot(clickable=clickable)
                times["snapshot (total)"].append(
                    (time.perf_counter() - wall, time.process_time() - cpu)
                )
                await asyncio.sleep(0.1)
            # Chrome's side of the map alone: the raw call, no decoding.
            for _ in range(steps if clickable else 0):
                wall = time.perf_counter()
                raw = await tab.cdp.send_raw(
                    "DOMSnapshot.captureSnapshot", _clickable.PARAMS, timeout=60
                )
                times["captureSnapshot round trip (raw)"].append((time.perf_counter() - wall, 0.0))
                times[f"  ({len(raw) / 1e6:.1f} MB)"] = [(0.0, 0.0)]
            print("stats", mirror.stats, tab._snapshotter.clickwatch.stats, file=sys.stderr)  # type: ignore[attr-defined]
    finally:
        server.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--clickable", default="on", choices=["on", "off"])
    args = parser.parse_args()
    times = asyncio.run(run(args.steps, args.clickable == "on"))
    print(f"| phase (median of {args.steps}) | wall ms | CPU ms (this process) |")
    print("|---|---:|---:|")
    for name, values in times.items():
        wall = statistics.median(v[0] for v in values) * 1000
        cpu = statistics.median(v[1] for v in values) * 1000
        print(f"| {name} | {wall:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
