"""Scraping throughput: ``kobrowser.scrape`` vs the same job written plainly with Playwright.

The job: load each of 240 local pages of mixed size (``scrape_corpus.corpus``:
articles, listings, forms, docs, tables; served from another process on
127.0.0.1) and take its title and AI snapshot. Contenders, each on its own
Chromium (the same binary, ``kobrowser.cdp.find_chrome()``):

* ``kobrowser``: ``Scraper(concurrency=c, per_host=None, retries=0)``;
  ``run(urls)`` (tabs reused, records built).
* ``playwright (reused pages)``: one browser, one context, ``c`` pages in a
  pool behind an ``asyncio.Semaphore(c)``; per URL ``page.goto(url,
  wait_until="load")``, ``page.aria_snapshot(mode="ai")``, ``page.title()``.
* ``playwright (new page per URL)``: the same, with ``context.new_page()``
  and ``page.close()`` around each URL.

Concurrency 4, 8 and 16; rounds alternate the contenders' order, every
round's URLs carry a fresh query string (no cache), and a warm-up job per
contender is left out. Then ``kobrowser.scrape`` over 1, 2 and 3 local
browsers (``browsers=N``) at concurrency 8 and 16, interleaved the same way.
Every job's CPU time is read from ``/proc`` per process kind (renderers,
Chrome's browser process, other Chrome processes, Playwright's Node driver,
this Python process), with the load average at its start.

Run: ``.venv/bin/python -m benchmarks scrape [--quick]`` or
``.venv/bin/python -m benchmarks.bench_scrape [--quick] [--rounds N] [--pages N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from benchmarks._common import cpu_times, descendants, load, timed_result
from benchmarks.scrape_corpus import corpus, serve

NAME = "scrape"
TITLE = "Scraping: kobrowser.scrape vs plain Playwright, pages/s (240 mixed local pages)"

PAGES = 240
CONCURRENCY = (4, 8, 16)
BROWSERS = (1, 2, 3)
CURVE_CONCURRENCY = (8, 16)
TIMEOUT = 120.0
PAUSE = 1.0
"""Seconds of idle before each timed job (2 shared cores: let the machine settle)."""

KINDS = ("renderers", "chrome browser", "other chrome", "node driver", "python")


# -- CPU accounting -----------------------------------------------------------------


def cpu_by_process() -> dict[int, tuple[str, float]]:
    """pid -> (kind, CPU seconds) of this process and all below it."""
    found: dict[int, tuple[str, float]] = {}
    for pid, (cmd, seconds) in cpu_times(descendants(os.getpid())).items():
        if pid == os.getpid():
            kind = "python"
        elif "--type=renderer" in cmd:
            kind = "renderers"
        elif "--type=" in cmd:
            kind = "other chrome"
        elif "chrom" in cmd:
            kind = "chrome browser"
        elif "node" in cmd or "playwright" in cmd:
            kind = "node driver"
        else:
            kind = "other chrome"
        found[pid] = (kind, seconds)
    return found


def cpu_delta(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]
) -> dict[str, float]:
    totals = dict.fromkeys(KINDS, 0.0)
    for pid, (kind, seconds) in after.items():
        totals[kind] += seconds - before.get(pid, (kind, 0.0))[1]
    return totals


@dataclass
class Job:
    contender: str
    concurrency: int
    seconds: float
    pages: int
    ok: int
    load: float
    cpu: dict[str, float] = field(default_factory=dict)
    chars: int = 0

    @property
    def rate(self) -> float:
        return self.pages / self.seconds


async def _measure(
    contender: str, concurrency: int, call: Callable[[], Awaitable[list[tuple[bool, int]]]]
) -> Job:
    await asyncio.sleep(PAUSE)
    start_load = load()
    before = cpu_by_process()
    seconds, outcomes = await timed_result(call)
    cpu = cpu_delta(before, cpu_by_process())
    ok = sum(1 for good, _ in outcomes if good)
    chars = sum(size for _, size in outcomes)
    job = Job(contender, concurrency, seconds, len(outcomes), ok, start_load, cpu, chars)
    print(
        f"  {contender:32} c={concurrency:2}: {job.rate:5.1f} pages/s ({seconds:5.1f} s, "
        f"{ok}/{len(outcomes)} ok, load {start_load:.1f}, CPU {sum(cpu.values()):.1f} s)",
        flush=True,
    )
    return job


# -- the contenders ----------------------------------------------------------------------


async def _kobrowser(scraper: Any, urls: list[str]) -> list[tuple[bool, int]]:
    return [(r.ok, len(r.snapshot or "")) async for r in scraper.run(urls)]


async def _playwright(
    pool: Any, urls: list[str], concurrency: int, context: Any
) -> list[tuple[bool, int]]:
    """The plain job: Semaphore(c), a page per task (from ``pool``, or new when it is None)."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(url: str) -> tuple[bool, int]:
        async with semaphore:
            page = pool.get_nowait() if pool is not None else await context.new_page()
            try:
                response = await page.goto(url, wait_until="load", timeout=TIMEOUT * 1000)
                snapshot = await page.aria_snapshot(mode="ai")
                await page.title()
                return (response is not None and response.ok, len(snapshot))
            except Exception:
                return (False, 0)
            finally:
                if pool is not None:
                    pool.put_nowait(page)
                else:
                    await page.close()

    return list(await asyncio.gather(*(one(url) for url in urls)))


# -- the run ---------------------------------------------------------------------------------


async def _run(rounds: int, count: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    pages = corpus(count)
    sizes = sorted(len(text) for _, text in pages)
    jobs: list[Job] = []
    curve: list[Job] = []
    tag = 0

    def urls(origin: str) -> list[str]:
        nonlocal tag
        tag += 1
        return [f"{origin}{path}?r={tag}" for path, _ in pages]

    with serve(pages) as origin:
        async with async_playwright() as p:
            pw = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
            try:
                for c in CONCURRENCY:
                    print(f"concurrency {c}", flush=True)
                    async with kobrowser.Scraper(
                        concurrency=c,
                        per_host=None,
                        retries=0,
                        timeout=TIMEOUT,
                        executable_path=chrome,
                    ) as scraper:
                        context = await pw.new_context()
                        pool: asyncio.Queue[Any] = asyncio.Queue()
                        for _ in range(c):
                            pool.put_nowait(await context.new_page())
                        warm = urls(origin)[: 2 * c]
                        await _kobrowser(scraper, warm)
                        await _playwright(pool, warm, c, context)
                        await _playwright(None, warm, c, context)
                        contenders: list[
                            tuple[str, Callable[[], Awaitable[list[tuple[bool, int]]]]]
                        ] = [
                            ("kobrowser", lambda: _kobrowser(scraper, urls(origin))),
                            (
                                "playwright (reused pages)",
                                lambda pool=pool, c=c, context=context: _playwright(
                                    pool, urls(origin), c, context
                                ),
                            ),
                            (
                                "playwright (new page per URL)",
                                lambda c=c, context=context: _playwright(
                                    None, urls(origin), c, context
                                ),
                            ),
                        ]
                        for i in range(rounds):
                            order = contenders[i % 3 :] + contenders[: i % 3]
                            for name, call in order:
                                jobs.append(await _measure(name, c, call))
                        await context.close()
            finally:
                await pw.close()

        for c in CURVE_CONCURRENCY:
            print(f"browsers 1-3 at concurrency {c}", flush=True)
            async with AsyncExitStack() as stack:
                scrapers = {}
                for b in BROWSERS:
                    scraper = await stack.enter_async_context(
                        kobrowser.Scraper(
                            browsers=b,
                            concurrency=c,
                            per_host=None,
                            retries=0,
                            timeout=TIMEOUT,
                            executable_path=chrome,
                        )
                    )
                    await _kobrowser(scraper, urls(origin)[: 2 * c])
                    scrapers[b] = scraper
                for i in range(rounds):
                    browser_order = list(BROWSERS[i % 3 :] + BROWSERS[: i % 3])
                    for b in browser_order:
                        scraper = scrapers[b]
                        curve.append(
                            await _measure(
                                f"kobrowser, {b} browser(s)",
                                c,
                                lambda s=scraper: _kobrowser(s, urls(origin)),
                            )
                        )
    return {"jobs": jobs, "curve": curve, "rounds": rounds, "pages": count, "sizes": sizes}


# -- the report ----------------------------------------------------------------------------


def _median_job(jobs: list[Job]) -> Job:
    ordered = sorted(jobs, key=lambda job: job.rate)
    return ordered[len(ordered) // 2]


def _report(result: dict[str, Any]) -> str:
    jobs: list[Job] = result["jobs"]
    curve: list[Job] = result["curve"]
    names = ("kobrowser", "playwright (reused pages)", "playwright (new page per URL)")
    rate: dict[tuple[str, int], float] = {}
    for name in names:
        for c in CONCURRENCY:
            picked = [j for j in jobs if j.contender == name and j.concurrency == c]
            rate[name, c] = statistics.median(j.rate for j in picked)
    best = {name: max(CONCURRENCY, key=lambda c: rate[name, c]) for name in names}
    pw_best = max(rate[n, best[n]] for n in names[1:])
    kb_best = rate["kobrowser", best["kobrowser"]]
    speedup = kb_best / pw_best
    loads = [j.load for j in jobs + curve]
    sizes = result["sizes"]
    lines = [
        f"{result['pages']} pages ({sizes[0] / 1024:.0f}-{sizes[-1] / 1024:.0f} KB of HTML, median "
        f"{statistics.median(sizes) / 1024:.0f} KB); {result['rounds']} timed jobs per contender "
        f"and concurrency, order rotating, after a warm-up; load average (1 min) at the jobs' "
        f"start {min(loads):.1f}-{max(loads):.1f} on the 2 shared vCPUs. Pages/s: median job.",
        "",
        "| contender | c=4 | c=8 | c=16 | best | vs best Playwright |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        cells = " | ".join(f"{rate[name, c]:.1f}" for c in CONCURRENCY)
        ratio = rate[name, best[name]] / pw_best
        lines.append(
            f"| {name} | {cells} | {rate[name, best[name]]:.1f} (c={best[name]}) | {ratio:.2f}x |"
        )
    failed = sum(j.pages - j.ok for j in jobs)
    verdict = "met" if speedup >= 1.3 else "not met"
    lines += [
        "",
        f"Target: at least 1.3x Playwright's pages/s at the best concurrency of each "
        f"(**{speedup:.2f}x**, {verdict}). Pages not ok in all timed jobs: {failed}.",
        "",
        "CPU per page by process, ms (median job at each contender's best concurrency):",
        "",
        "| contender | " + " | ".join(KINDS) + " | total | wall per page |",
        "|---|" + "---:|" * (len(KINDS) + 2),
    ]
    for name in names:
        job = _median_job([j for j in jobs if j.contender == name and j.concurrency == best[name]])
        cells = " | ".join(f"{job.cpu[k] / job.pages * 1000:.0f}" for k in KINDS)
        total = sum(job.cpu.values()) / job.pages * 1000
        lines.append(f"| {name} | {cells} | {total:.0f} | {job.seconds / job.pages * 1000:.0f} |")
    kb_chars = [j.chars / j.pages for j in jobs if j.contender == "kobrowser"]
    pw_chars = [j.chars / j.pages for j in jobs if j.contender != "kobrowser"]
    lines += [
        "",
        f"Snapshot text per page: kobrowser {statistics.median(kb_chars):,.0f} chars, "
        f"Playwright {statistics.median(pw_chars):,.0f} chars (mean over the job's pages).",
        "",
        "`kobrowser.scrape` over 1, 2 and 3 local browsers (`browsers=N`), pages/s (median job) "
        "and CPU busy (CPU-seconds per second, of 2.0):",
        "",
        "| concurrency | " + " | ".join(f"{b} browser(s)" for b in BROWSERS) + " |",
        "|---|" + "---:|" * len(BROWSERS),
    ]
    for c in CURVE_CONCURRENCY:
        curve_cells: list[str] = []
        for b in BROWSERS:
            job = _median_job(
                [
                    j
                    for j in curve
                    if j.concurrency == c and j.contender.startswith(f"kobrowser, {b} ")
                ]
            )
            curve_cells.append(f"{job.rate:.1f} (CPU {sum(job.cpu.values()) / job.seconds:.2f})")
        lines.append(f"| {c} | " + " | ".join(curve_cells) + " |")
    return "\n".join(lines)


def run(quick: bool = False, rounds: int | None = None, pages: int = PAGES) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    n = rounds if rounds is not None else (1 if quick else 3)
    return _report(asyncio.run(_run(n, pages)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--pages", type=int, default=PAGES)
    args = parser.parse_args(argv)
    print(run(args.quick, args.rounds, args.pages))


if __name__ == "__main__":
    main()
