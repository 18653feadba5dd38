"""What recording costs: a snapshot + click loop with HAR, video, or neither.

One Chromium; each mode opens its own context (``new_context()`` with
nothing, ``record_har=True``, ``record_video=DIR`` (WebM, 25 frames a
second, the viewport fit in 800 x 800), or both) and one tab on the ``form``
page (a small sign-in form), then runs ``STEPS`` steps of ``snapshot()`` and
a click on the e-mail field (focus moves, the caret blinks: the page
repaints, so the screencast sends frames). Modes alternate round by round.

Measured per step, as CPU time (user + system, from /proc) rather than wall
time, so that other work on the machine changes little: the Python process
(``time.process_time()``: the library, the screencast's JPEG decoding and the
PyAV encoder threads) and Chrome (every process of the browser). Wall time
per step is shown too, and the Python process's CPU time per second of wall
time (a video costs by the second, not by the step). The context's close
(the video finished, the file written) is measured apart.

Run: ``.venv/bin/python -m benchmarks recording [--quick]``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import cpu_times, descendants, loads
from benchmarks.pages import PageServer

NAME = "recording"
TITLE = "Recording: CPU time of a snapshot + click loop with HAR, video, both"

MODES = ("off", "har", "video", "har+video")


def _chrome_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    return sum(seconds for _, seconds in cpu_times(descendants(pid)).values())


async def _one(browser: Any, url: str, mode: str, steps: int, out: Path) -> dict[str, float]:
    options: dict[str, Any] = {}
    if "har" in mode:
        options["record_har"] = True
    if "video" in mode:
        options["record_video"] = out
    context = await browser.new_context(**options)
    tab = await context.new_tab(url)
    snap = await tab.snapshot()
    field = next(e.id for e in snap.id_map.values() if e.role == "textbox")
    cpu, chrome, wall = time.process_time(), _chrome_cpu(browser.pid), time.perf_counter()
    for _ in range(steps):
        snap = await tab.snapshot()
        await tab.click(field)
    cpu = time.process_time() - cpu
    chrome = _chrome_cpu(browser.pid) - chrome
    wall = time.perf_counter() - wall
    closing_cpu, closing_wall = time.process_time(), time.perf_counter()
    await context.close()
    return {
        "python": cpu / steps,
        "chrome": chrome / steps,
        "wall": wall / steps,
        "close_cpu": time.process_time() - closing_cpu,
        "close_wall": time.perf_counter() - closing_wall,
    }


async def run(quick: bool) -> str:
    import kobrowser

    steps, rounds = (20, 2) if quick else (100, 5)
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    before = loads()
    with PageServer(rows=10, frames=1) as server, tempfile.TemporaryDirectory() as directory:
        async with kobrowser.launch(timeout=120) as browser:
            url = server.url("form")
            await _one(browser, url, "off", 5, Path(directory))  # warm up
            for round_ in range(rounds):
                for mode in MODES:
                    out = Path(directory) / f"{mode}-{round_}"
                    results[mode].append(await _one(browser, url, mode, steps, out))

    def median(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in results[mode])

    base_py, base_chrome = median("off", "python"), median("off", "chrome")
    lines = [
        f"{steps} steps (snapshot + click) a round, {rounds} rounds, modes interleaved; "
        f"medians per step. Load average before: {before}, after: {loads()}.",
        "",
        "| mode | Python CPU / step | Chrome CPU / step | total CPU / step | vs off "
        "| wall / step | Python CPU / wall s | close (CPU / wall) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        py, chrome = median(mode, "python"), median(mode, "chrome")
        extra = (py + chrome) - (base_py + base_chrome)
        lines.append(
            f"| {mode} | {py * 1000:.2f} ms | {chrome * 1000:.2f} ms | "
            f"{(py + chrome) * 1000:.2f} ms | {extra * 1000:+.2f} ms | "
            f"{median(mode, 'wall') * 1000:.1f} ms | "
            f"{statistics.median(r['python'] / r['wall'] for r in results[mode]) * 100:.1f}% | "
            f"{median(mode, 'close_cpu') * 1000:.0f} / {median(mode, 'close_wall') * 1000:.0f} ms |"
        )
    return "\n".join(lines) + "\n"
