"""Scrapy crawls: kobrowser.scrapy.DownloadHandler vs scrapy-playwright, pages/s.

The job: a Scrapy spider requests N local pages of mixed size
(``scrape_corpus.corpus``: articles, listings, forms, docs, tables; served
from another process on 127.0.0.1), each rendered by a browser, and reads
its ``<title>`` from the response. Contenders, each a crawl in a process of
its own (Scrapy's reactor is process-global) on the same Chromium binary
(``kobrowser.cdp.find_chrome()``), with the same Scrapy settings
(``CONCURRENT_REQUESTS`` = the concurrency, asyncio reactor, no retries):

* ``kobrowser (HTML + snapshot)``: ``meta={"kobrowser": True}``,
  ``KOBROWSER_CONCURRENCY`` = the concurrency: the rendered HTML and the
  snapshot text of every page.
* ``kobrowser (HTML only)``: the same with ``kobrowser_snapshot_options=False``,
  the work scrapy-playwright does.
* ``scrapy-playwright``: ``meta={"playwright": True}``,
  ``PLAYWRIGHT_LAUNCH_OPTIONS={"executable_path": ..., "headless": True}``,
  ``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT`` = the concurrency (``page.goto``
  waits for ``load``, as kobrowser's default ``KOBROWSER_WAIT_UNTIL``).

A crawl first loads one warm-up page (the browser launches), then requests
the N pages at once; the time from the warm-up's response to the spider's
close is the job's. Every round's URLs carry a fresh query string (no
cache) and rounds alternate the contenders' order. CPU per page is the
whole crawl process tree's (``RUSAGE_CHILDREN``: Python, Chrome, and
Playwright's Node driver), warm-up and launch included.

Run: ``.venv/bin/python -m benchmarks scrapy [--quick]`` or
``.venv/bin/python -m benchmarks.bench_scrapy [--quick] [--rounds N] [--pages N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks._common import load
from benchmarks.scrape_corpus import corpus, serve

NAME = "scrapy"
TITLE = "Scrapy: kobrowser.scrapy.DownloadHandler vs scrapy-playwright, pages/s (local pages)"

PAGES = 120
CONCURRENCY = (4, 8)
CONTENDERS = ("kobrowser (HTML + snapshot)", "kobrowser (HTML only)", "scrapy-playwright")
PAUSE = 1.0
"""Seconds of idle before each crawl (2 shared cores: let the machine settle)."""
CRAWL_TIMEOUT = 900.0
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Job:
    contender: str
    concurrency: int
    seconds: float
    pages: int
    ok: int
    cpu: float
    load: float

    @property
    def rate(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else 0.0


# -- the crawl, in its own process ---------------------------------------------------


def _settings(contender: str, concurrency: int, chrome: str) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "DOWNLOAD_TIMEOUT": 60,
        "RETRY_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
    }
    if contender.startswith("kobrowser"):
        handler = "kobrowser.scrapy.DownloadHandler"
        settings["KOBROWSER_CONCURRENCY"] = concurrency
        settings["KOBROWSER_LAUNCH_OPTIONS"] = {"executable_path": chrome, "headless": True}
    else:
        handler = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
        settings["PLAYWRIGHT_LAUNCH_OPTIONS"] = {"executable_path": chrome, "headless": True}
        settings["PLAYWRIGHT_MAX_PAGES_PER_CONTEXT"] = concurrency
    settings["DOWNLOAD_HANDLERS"] = {"http": handler, "https": handler}
    return settings


def _meta(contender: str) -> dict[str, Any]:
    if contender == "kobrowser (HTML + snapshot)":
        return {"kobrowser": True}
    if contender == "kobrowser (HTML only)":
        return {"kobrowser": True, "kobrowser_snapshot_options": False}
    return {"playwright": True}


def _crawl(job_path: str) -> None:
    """Run one crawl (``--crawl JOB.json``) and write its timing to the job's ``out``."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    job = json.loads(Path(job_path).read_text())
    meta = _meta(job["contender"])
    state: dict[str, Any] = {"ok": 0, "failed": 0, "start": None, "end": None}

    class Spider(scrapy.Spider):
        name = "bench"

        async def start(self) -> Any:
            yield scrapy.Request(job["warmup"], meta=dict(meta), callback=self.warmed)

        def warmed(self, response: Any) -> Any:
            state["start"] = time.perf_counter()
            for url in job["urls"]:
                yield scrapy.Request(url, meta=dict(meta), callback=self.page, errback=self.failed)

        def page(self, response: Any) -> None:
            if response.css("title::text").get():
                state["ok"] += 1
            else:
                state["failed"] += 1

        def failed(self, failure: Any) -> None:
            state["failed"] += 1

    def closed() -> None:
        state["end"] = time.perf_counter()

    process = CrawlerProcess(job["settings"])
    crawler = process.create_crawler(Spider)
    crawler.signals.connect(closed, signal=signals.spider_closed)
    process.crawl(crawler)
    process.start()
    seconds = state["end"] - state["start"] if state["start"] is not None else 0.0
    Path(job["out"]).write_text(json.dumps({"seconds": seconds, "ok": state["ok"]}))


def _job(contender: str, concurrency: int, urls: list[str], warmup: str, chrome: str) -> Job:
    with tempfile.TemporaryDirectory(prefix="kobrowser-bench-scrapy-") as directory:
        out = Path(directory) / "out.json"
        job_path = Path(directory) / "job.json"
        job_path.write_text(
            json.dumps(
                {
                    "contender": contender,
                    "settings": _settings(contender, concurrency, chrome),
                    "urls": urls,
                    "warmup": warmup,
                    "out": str(out),
                }
            )
        )
        time.sleep(PAUSE)
        load_average = load()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_scrapy", "--crawl", str(job_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=CRAWL_TIMEOUT,
            check=False,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"{contender} crawl failed:\n{done.stderr[-4000:]}")
        result = json.loads(out.read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Job(
        contender, concurrency, result["seconds"], len(urls), result["ok"], cpu, load_average
    )


def _run(rounds: int, pages: int, concurrency: tuple[int, ...]) -> dict[str, Any]:
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    site = corpus(pages)
    sizes = sorted(len(text.encode()) for _, text in site)
    jobs: list[Job] = []
    with serve(site) as origin:
        warmup = f"{origin}{site[0][0]}?warmup"
        for r in range(rounds):
            order = CONTENDERS[r % len(CONTENDERS) :] + CONTENDERS[: r % len(CONTENDERS)]
            for c in concurrency:
                for contender in order:
                    tag = f"r{r}c{c}{contender.split()[0][:2]}{len(jobs)}"
                    urls = [f"{origin}{path}?{tag}" for path, _ in site]
                    jobs.append(_job(contender, c, urls, warmup, chrome))
    return {"jobs": jobs, "sizes": sizes, "rounds": rounds, "pages": pages}


def _median_job(jobs: list[Job]) -> Job:
    return sorted(jobs, key=lambda j: j.rate)[len(jobs) // 2]


def _report(result: dict[str, Any], concurrency: tuple[int, ...]) -> str:
    jobs: list[Job] = result["jobs"]
    sizes = result["sizes"]
    loads = [j.load for j in jobs]
    lines = [
        f"{result['pages']} pages ({sizes[0] / 1024:.0f}-{sizes[-1] / 1024:.0f} KB of HTML, "
        f"median {statistics.median(sizes) / 1024:.0f} KB), each contender a Scrapy crawl in "
        f"its own process on the same Chromium; {result['rounds']} timed crawl(s) per contender "
        f"and concurrency, order rotating; load average (1 min) at the crawls' start "
        f"{min(loads):.1f}-{max(loads):.1f}. Pages/s: median crawl, after a warm-up page.",
        "",
        "| contender | " + " | ".join(f"c={c}" for c in concurrency) + " | vs scrapy-playwright "
        "(best c) | CPU ms per page (best c) |",
        "|---|" + "---:|" * (len(concurrency) + 2),
    ]
    rate: dict[tuple[str, int], Job] = {}
    for name in CONTENDERS:
        for c in concurrency:
            rate[name, c] = _median_job(
                [j for j in jobs if j.contender == name and j.concurrency == c]
            )

    def best(name: str) -> Job:
        return max((rate[name, c] for c in concurrency), key=lambda j: j.rate)

    baseline = best("scrapy-playwright").rate
    for name in CONTENDERS:
        cells = " | ".join(f"{rate[name, c].rate:.1f}" for c in concurrency)
        top = best(name)
        ratio = top.rate / baseline if baseline else 0.0
        cpu = top.cpu / top.pages * 1000
        lines.append(f"| {name} | {cells} | {ratio:.2f}x (c={top.concurrency}) | {cpu:.0f} |")
    failed = sum(j.pages - j.ok for j in jobs)
    lines += ["", f"Pages without a title (failed) in all timed crawls: {failed}."]
    return "\n".join(lines)


def run(
    quick: bool = False,
    rounds: int | None = None,
    pages: int | None = None,
) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    n = rounds if rounds is not None else (1 if quick else 3)
    count = pages if pages is not None else (8 if quick else PAGES)
    concurrency = CONCURRENCY[:1] if quick else CONCURRENCY
    return _report(_run(n, count, concurrency), concurrency)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--pages", type=int)
    parser.add_argument("--crawl", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.crawl:
        _crawl(args.crawl)
        return
    print(run(args.quick, args.rounds, args.pages))


if __name__ == "__main__":
    main()
