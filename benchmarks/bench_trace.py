"""Tracing: what recording a run costs per step, and what the hook costs when off.

On the ``form`` page (benchmarks/pages), one run is 20 steps: a snapshot,
then ``fill`` the email field and ``hover`` the Sign-in button, ten times
(the snapshots are not steps). Runs alternate tracing off and on
(``browser.tracing()``, the HTML written at the end of each traced run, its
rendering and write included). Reported, medians over the runs:

* the Python process's CPU time per step (``time.process_time()``), off and
  on, and the difference: the trace's CPU per step;
* the wall time per step, off and on (the capture's CDP round trips);
* the trace's own count (``TraceStep.cost``) and the file size of 20 steps;
* the hook with nothing attached: ns of CPU per call of a recorded method
  against the same method undecorated (a pure loop, no browser).

Run: ``.venv/bin/python -m benchmarks trace [--quick]``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import loads
from benchmarks.pages import PageServer

NAME = "trace"
TITLE = "Tracing: cost per recorded step, and of the hook when off"

STEPS = 20


async def _run_steps(tab: Any) -> None:
    for _ in range(STEPS // 2):
        snap = await tab.snapshot()
        email = next(e.id for e in snap.id_map.values() if e.role == "textbox")
        sign_in = next(e.id for e in snap.id_map.values() if e.name == "Sign in")
        await tab.fill(email, "ada@example.com")
        await tab.hover(sign_in)  # a click would submit the form (a navigation)


async def _hook_ns(calls: int) -> tuple[float, float]:
    from kobrowser._tab._recording import recorded

    class _Owner:
        _recorders: tuple[Any, ...] = ()

    class _Tab:
        _recorders: tuple[Any, ...] = ()
        _owner = _Owner()

        async def plain(self, element_id: int, *, timeout: float | None = None) -> int:
            return element_id

        @recorded("click")
        async def hooked(self, element_id: int, *, timeout: float | None = None) -> int:
            return element_id

    tab = _Tab()
    best: dict[str, float] = {}
    for name in ("plain", "hooked") * 3:
        method = getattr(tab, name)
        start = time.process_time()
        for i in range(calls):
            await method(i)
        spent = (time.process_time() - start) / calls * 1e9
        best[name] = min(best.get(name, spent), spent)
    return best["plain"], best["hooked"]


async def run(quick: bool) -> str:
    import kobrowser

    rounds = 2 if quick else 8
    cpu: dict[str, list[float]] = {"off": [], "on": []}
    wall: dict[str, list[float]] = {"off": [], "on": []}
    own: list[float] = []
    sizes: list[int] = []
    with PageServer(rows=10, frames=2) as server, tempfile.TemporaryDirectory() as folder:
        async with kobrowser.launch(timeout=120) as browser:
            tab = await browser.new_tab(server.url("form"))
            await _run_steps(tab)  # warm up
            for index in range(rounds * 2):
                mode = "on" if index % 2 else "off"
                path = Path(folder) / f"run{index}.html"
                start_cpu, start_wall = time.process_time(), time.perf_counter()
                if mode == "on":
                    async with browser.tracing(path) as trace:
                        await _run_steps(tab)
                    own.append(statistics.median(s.cost for s in trace.steps))
                    sizes.append(path.stat().st_size)
                else:
                    await _run_steps(tab)
                cpu[mode].append((time.process_time() - start_cpu) / STEPS)
                wall[mode].append((time.perf_counter() - start_wall) / STEPS)
    plain, hooked = await _hook_ns(20_000 if quick else 200_000)

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.2f} ms"

    extra = statistics.median(cpu["on"]) - statistics.median(cpu["off"])
    return "\n".join(
        [
            f"{rounds} runs of {STEPS} steps each way (snapshot, fill, hover on the form "
            f"page), alternated; load {loads()}.",
            "",
            "| per step | tracing off | tracing on |",
            "|---|---|---|",
            f"| Python CPU (process_time) | {ms(cpu['off'])} | {ms(cpu['on'])} |",
            f"| wall | {ms(wall['off'])} | {ms(wall['on'])} |",
            "",
            f"Trace CPU per step (on - off): {extra * 1000:.2f} ms; the trace's own count "
            f"(TraceStep.cost, median): {statistics.median(own) * 1000:.2f} ms. "
            f"File of {STEPS} steps: {statistics.median(sizes) / 1024:.0f} KiB.",
            "",
            f"The hook with nothing attached: {hooked:.0f} ns of CPU per call of a recorded "
            f"method against {plain:.0f} ns undecorated (+{hooked - plain:.0f} ns).",
        ]
    )
