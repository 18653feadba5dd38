"""Where a scraped page's time goes, per phase: kobrowser's tab vs Playwright's page.

One tab (page) at a time over the scrape corpus (no concurrency, so each
phase's wall time is its latency, not a share of a busy machine): kobrowser
``tab.open`` then ``tab.snapshot``; Playwright ``page.goto``, then
``page.aria_snapshot(mode="ai")`` and ``page.title()``. Prints the median and
total per phase, and the CPU each process kind spent over the whole pass
(as ``bench_scrape``). A probe, not a runner benchmark (nothing is recorded).

Run: ``.venv/bin/python -m benchmarks.probes.scrape [--pages 80]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from benchmarks.bench_scrape import KINDS, cpu_by_process, cpu_delta
from benchmarks.scrape_corpus import corpus, serve


def _show(name: str, phases: dict[str, list[float]], cpu: dict[str, float], pages: int) -> None:
    parts = ", ".join(
        f"{phase} median {statistics.median(t) * 1000:.1f} ms / total {sum(t):.2f} s"
        for phase, t in phases.items()
    )
    spent = ", ".join(f"{k} {cpu[k] / pages * 1000:.0f}" for k in KINDS if cpu[k] > 0)
    print(f"{name}: {parts}\n  CPU per page, ms: {spent}", flush=True)


async def _run(count: int) -> None:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    pages = corpus(count)
    with serve(pages) as origin:
        for round_ in range(2):
            urls = [f"{origin}{path}?p={round_}" for path, _ in pages]
            async with kobrowser.launch(executable_path=chrome, timeout=120) as browser:
                tab = await browser.new_tab()
                await tab.open(urls[0])
                await tab.snapshot()
                phases: dict[str, list[float]] = {"open": [], "snapshot": []}
                before = cpu_by_process()
                for url in urls:
                    t0 = time.perf_counter()
                    await tab.open(url, timeout=120)
                    t1 = time.perf_counter()
                    await tab.snapshot(timeout=120)
                    t2 = time.perf_counter()
                    phases["open"].append(t1 - t0)
                    phases["snapshot"].append(t2 - t1)
                _show("kobrowser", phases, cpu_delta(before, cpu_by_process()), len(urls))
            async with async_playwright() as p:
                pw = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
                try:
                    page: Any = await pw.new_page()
                    await page.goto(urls[0])
                    await page.aria_snapshot(mode="ai")
                    phases = {"goto": [], "aria_snapshot": [], "title": []}
                    before = cpu_by_process()
                    for url in urls:
                        t0 = time.perf_counter()
                        await page.goto(url, wait_until="load", timeout=120_000)
                        t1 = time.perf_counter()
                        await page.aria_snapshot(mode="ai")
                        t2 = time.perf_counter()
                        await page.title()
                        t3 = time.perf_counter()
                        phases["goto"].append(t1 - t0)
                        phases["aria_snapshot"].append(t2 - t1)
                        phases["title"].append(t3 - t2)
                    _show("playwright", phases, cpu_delta(before, cpu_by_process()), len(urls))
                finally:
                    await pw.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pages", type=int, default=80)
    args = parser.parse_args(argv)
    asyncio.run(_run(args.pages))


if __name__ == "__main__":
    main()
