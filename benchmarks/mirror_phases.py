"""Where a mirrored "click, then snapshot" spends its time, phase by phase.

Wall time and this process's CPU (``time.process_time``) of each phase of
``tab.snapshot()`` after a click on the 2,000-row page of bench_mirror, the
AX mirror ready: the mirror's answer (barrier, events, walk), the clickable
map (the kept map's check, or Chrome's ``DOMSnapshot.captureSnapshot`` and
its decoding), build, numbering/format. Steps alternate between two modes on
the same tab, so both see the same machine load:

``kept``   as shipped: the clickable map kept between snapshots
           (kobrowser/_tab/_clickwatch.py), the mirror answered without a
           whole walk (``MirrorStore.current``).
``before`` the map read afresh on every snapshot and the mirror's whole
           walk (``MirrorStore.collect``), as before issue 19's second part.
``no map`` as shipped, with ``clickable=False`` (no clickable map at all).

Medians over the steps of each mode.

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
from typing import Any, ClassVar

from benchmarks.bench_mirror import ROWS, _button_id, _Server, page_html

Times = dict[str, list[tuple[float, float]]]
MODES = ("kept", "before", "no map")


class _State:
    mode = "kept"
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
    from kobrowser import AXMirrorSettings, _clickable
    from kobrowser._axmirror import _mirror, _store
    from kobrowser._tab import _clickwatch, _fetch, _snapshotter
    from kobrowser.cdp import find_chrome

    _snapshotter.build_tree = _timed("build_tree", _snapshotter.build_tree)  # type: ignore[assignment]
    _snapshotter.number_snapshot = _timed("number+format", _snapshotter.number_snapshot)  # type: ignore[assignment]
    _snapshotter.fetch_frames = _timed_async("fetch_frames (map read)", _fetch.fetch_frames)  # type: ignore[attr-defined]
    maps = _clickable.ClickableMaps
    maps._arrived = _timed("  map decode+compute", maps._arrived)  # type: ignore[method-assign]
    mirror_cls = _mirror.DocumentMirror
    mirror_cls.nodes = _timed_async("mirror.nodes", mirror_cls.nodes)  # type: ignore[method-assign]
    store = _store.MirrorStore
    current, collect = store.current, store.collect
    store.current = lambda self: collect(self) if _State.mode == "before" else current(self)  # type: ignore[method-assign]
    watch = _clickwatch.ClickWatch
    prepare = watch.prepare

    async def prepared(self: Any, maps: Any, **kwargs: Any) -> None:
        if _State.mode == "kept":
            await prepare(self, maps, **kwargs)

    watch.prepare = _timed_async("clickwatch.prepare", prepared)  # type: ignore[method-assign]

    server = _Server(page_html(ROWS))
    out: dict[str, Any] = {}
    try:
        async with kobrowser.launch(executable_path=find_chrome(), timeout=120) as browser:
            browser.ax_mirror = AXMirrorSettings()
            tab = await browser.new_tab(server.url)
            snap = await tab.snapshot()
            mirror = tab._snapshotter.mirror.mirror  # type: ignore[attr-defined]
            assert mirror is not None and await mirror.wait_ready()
            snap = await tab.snapshot(clickable=clickable)
            for times in _State.times.values():
                times.clear()
            for step in range(len(MODES) * steps):
                _State.mode = MODES[step % len(MODES)]
                await tab.click(_button_id(snap, (step * 97 + 13) % ROWS))
                gc.collect()
                wall, cpu = time.perf_counter(), time.process_time()
                snap = await tab.snapshot(clickable=clickable and _State.mode != "no map")
                _record("snapshot (total)", wall, cpu)
                await asyncio.sleep(0.1)
            out["stats"] = (dict(mirror.stats), dict(tab._snapshotter.clickwatch.stats))  # type: ignore[attr-defined]
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
        f"stats (mirror, clickwatch) {info['stats']}",
        file=sys.stdout,
    )
    print("| phase (median) | " + " | ".join(f"{m}: wall ms | {m}: CPU ms" for m in MODES) + " |")
    print("|---|" + "---:|" * 2 * len(MODES))
    names = list(dict.fromkeys(n for mode in ("before", "kept") for n in _State.times[mode]))
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
