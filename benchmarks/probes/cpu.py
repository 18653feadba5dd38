"""CPU accounting of a snapshot round: where the CPU goes, per process kind.

Runs rounds of ``tabs`` snapshots at once (kobrowser ``tab.snapshot()``,
and Playwright ``page.aria_snapshot(mode="ai")``, each on its own Chromium)
on the benchmark table, and reads the CPU time of every process below this
one from ``/proc`` (Linux only) before and after: Chrome's renderers, the
Chrome browser process (with Playwright: also its Node driver), and this
Python process. It backs the throughput-ceiling figures in RESULTS.md; it is
a probe, not a runner benchmark (nothing is recorded).

Run: ``.venv/bin/python -m benchmarks.probes.cpu [--tabs 16] [--rows 250] [--rounds 5]
[--transports websocket,pipe-cbor]``
(``--tabs 1 --rows 2400`` for the big table).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks._common import cpu_times, descendants, load
from benchmarks.pages import PageServer


def cpu_by_kind(pids: list[int]) -> dict[str, float]:
    """Seconds of user+system CPU per process kind."""
    totals: dict[str, float] = {}
    for pid, (cmd, seconds) in cpu_times(pids).items():
        if pid == os.getpid():
            kind = "python"
        elif "--type=renderer" in cmd:
            kind = "renderers"
        elif "--type=" in cmd:
            kind = "other chrome"
        else:
            kind = "browser (+ driver)"
        totals[kind] = totals.get(kind, 0.0) + seconds
    return totals


async def _account(name: str, rounds: int, round_: Callable[[], Awaitable[Any]]) -> None:
    await round_()  # cold round, not counted
    pids = descendants(os.getpid())
    before = cpu_by_kind(pids)
    start = time.perf_counter()
    for _ in range(rounds):
        await round_()
    wall = (time.perf_counter() - start) / rounds
    after = cpu_by_kind(pids)
    per_round = {k: (after[k] - before.get(k, 0.0)) / rounds * 1000 for k in after}
    total = sum(per_round.values())
    parts = ", ".join(f"{k} {v:.0f} ms" for k, v in sorted(per_round.items()) if v >= 1)
    print(f"{name}: round {wall * 1000:.0f} ms wall, CPU {total:.0f} ms ({parts})", flush=True)


def _gather(call: Callable[[Any], Awaitable[Any]], tabs: list[Any]) -> Callable[[], Awaitable[Any]]:
    """A round: ``call(tab)`` on every tab at once."""

    async def round_() -> Any:
        return await asyncio.gather(*(call(t) for t in tabs))

    return round_


async def _run(tabs: int, rows: int, rounds: int, transports: list[str]) -> None:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    with PageServer(rows=rows) as server:
        url = server.url("table")
        for kind in transports:
            async with kobrowser.launch(executable_path=chrome, timeout=120, transport=kind) as kb:
                kb_tabs = [await kb.new_tab(url) for _ in range(tabs)]
                await _account(
                    f"kobrowser tab.snapshot() [{kind}]",
                    rounds,
                    _gather(lambda t: t.snapshot(), kb_tabs),
                )
                await _account(
                    f"bare Accessibility.getFullAXTree (json-decoded) [{kind}]",
                    rounds,
                    _gather(lambda t: t.cdp.send("Accessibility.getFullAXTree"), kb_tabs),
                )
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
            try:
                context = await browser.new_context()
                pages = [await context.new_page() for _ in range(tabs)]
                for page in pages:
                    await page.goto(url, wait_until="load")
                await _account(
                    'Playwright aria_snapshot(mode="ai")',
                    rounds,
                    lambda: asyncio.gather(*(pg.aria_snapshot(mode="ai") for pg in pages)),
                )
            finally:
                await browser.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tabs", type=int, default=16)
    parser.add_argument("--rows", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--transports",
        default="websocket,pipe-cbor",
        help="kobrowser's transports to account, comma-separated (before/after the pipe)",
    )
    args = parser.parse_args(argv)
    print(f"load average (1 min): {load():.1f}", flush=True)
    asyncio.run(_run(args.tabs, args.rows, args.rounds, args.transports.split(",")))


if __name__ == "__main__":
    main()
