"""Where a mirrored "click, then snapshot" spends its time, phase by phase.

Wall time and this process's CPU (``time.process_time``) of each phase of
``tab.snapshot()`` after a click on the 2,000-row page of bench_mirror, the
AX mirror ready: the mirror's answer (barrier, events, walk), the clickable
map (the kept map's check, or Chrome's ``DOMSnapshot.captureSnapshot`` and
its decoding), build, numbering/format. Steps alternate between the modes on
the same tab, so they see the same machine load:

``incremental`` as shipped: only the changed subtrees built and numbered
                again (kobrowser/_tab/_incremental.py).
``full build``  as before issue 19's third part: the kept clickable map and
                the walk-free mirror answer, then the whole tree built and
                numbered (``IncrementalBuilder.enabled = False``; the memo
                still follows the mirror's answers).

Medians over the steps of each mode.

Run: ``.venv/bin/python -m benchmarks.probes.mirror_phases [--steps N] [--clickable off]``
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
from typing import Any, ClassVar

from benchmarks.bench_mirror import ROWS, _button_id, page_server

Times = dict[str, list[tuple[float, float]]]
MODES = ("incremental", "full build")


class _State:
    mode = "incremental"
    times: ClassVar[dict[str, Times]] = {mode: defaultdict(list) for mode in MODES}


def _record(name: str, wall: float, cpu: float) -> None:
    _State.times[_State.mode][name].append((time.perf_counter() - wall, time.process_time() - cpu))


def _timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            _record(name, wall, cpu)

    return wrapper


def _timed_async(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return await func(*args, **kwargs)
        finally:
            _record(name, wall, cpu)

    return wrapper


async def run(steps: int, clickable: bool) -> dict[str, Any]:
    import kobrowser
    from kobrowser import AXMirrorSettings
    from kobrowser._tab import _clickable, _clickwatch, _fetch, _incremental, _snapshotter
    from kobrowser._tab._axmirror import _mirror
    from kobrowser.cdp import find_chrome

    builder = _incremental.IncrementalBuilder
    builder.build = _timed("build (memo update + build_tree)", builder.build)  # type: ignore[method-assign]
    _snapshotter.number_snapshot = _timed("number+format", _snapshotter.number_snapshot)  # type: ignore[attr-defined]
    _snapshotter.fetch_frames = _timed_async("fetch_frames (map read)", _fetch.fetch_frames)  # type: ignore[attr-defined]
    maps = _clickable.ClickableMaps
    maps._arrived = _timed("  map decode+compute", maps._arrived)  # type: ignore[method-assign]
    mirror_cls = _mirror.DocumentMirror
    mirror_cls.answer = _timed_async("mirror answer", mirror_cls.answer)  # type: ignore[method-assign]
    watch = _clickwatch.ClickWatch
    watch.prepare = _timed_async("clickwatch.prepare", watch.prepare)  # type: ignore[method-assign]

    server = page_server(ROWS).start()
    out: dict[str, Any] = {}
    try:
        async with kobrowser.launch(executable_path=find_chrome(), timeout=120) as browser:
            browser.ax_mirror = AXMirrorSettings()
            tab = await browser.new_tab(server.url("/table"))
            snap = await tab.snapshot()
            snapshotter: Any = tab._snapshotter  # private: the phases are read inside it
            mirror = snapshotter.mirror.mirror
            assert mirror is not None and await mirror.wait_ready()
            snap = await tab.snapshot(clickable=clickable)
            for times in _State.times.values():
                times.clear()
            incremental = snapshotter.incremental
            for step in range(len(MODES) * steps):
                _State.mode = MODES[step % len(MODES)]
                incremental.enabled = _State.mode == "incremental"
                await tab.click(_button_id(snap, (step * 97 + 13) % ROWS))
                gc.collect()
                wall, cpu = time.perf_counter(), time.process_time()
                snap = await tab.snapshot(clickable=clickable)
                _record("snapshot (total)", wall, cpu)
                await asyncio.sleep(0.1)
            out["stats"] = (
                dict(mirror.stats),
                dict(snapshotter.clickwatch.stats),
                dict(incremental.stats),
            )
            out["nodes"] = len(mirror)
            out["lines"] = snap.text.count("\n") + 1
    finally:
        server.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10, help="steps per mode")
    parser.add_argument("--clickable", default="on", choices=["on", "off"])
    args = parser.parse_args()
    info = asyncio.run(run(args.steps, args.clickable == "on"))
    print(
        f"{info['nodes']:,} mirrored AX nodes, {info['lines']:,} printed lines; "
        f"clickable={args.clickable}; {args.steps} steps per mode, alternating; "
        f"stats (mirror, clickwatch, incremental) {info['stats']}",
        file=sys.stdout,
    )
    print("| phase (median) | " + " | ".join(f"{m}: wall ms | {m}: CPU ms" for m in MODES) + " |")
    print("|---|" + "---:|" * 2 * len(MODES))
    names = list(dict.fromkeys(n for mode in MODES for n in _State.times[mode]))
    for name in names:
        cells = []
        for mode in MODES:
            values = _State.times[mode].get(name)
            if not values:
                cells += ["-", "-"]
                continue
            cells.append(f"{statistics.median(v[0] for v in values) * 1000:.1f}")
            cells.append(f"{statistics.median(v[1] for v in values) * 1000:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
