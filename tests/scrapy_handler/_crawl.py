"""A Scrapy crawl in a process of its own: ``python _crawl.py JOB.json``.

Scrapy's reactor is process-global, so each test crawl runs here, in a
subprocess, as scrapy-playwright's tests do. The job file says::

    {"mode": "crawl" | "direct",
     "settings": {...},                       # Scrapy settings
     "requests": [{"url": ..., "meta": {...}, "follow": false, "method": "GET"}, ...],
     "out": "result.json"}

``crawl`` runs a ``CrawlerProcess`` with a spider that requests every
``requests`` entry (``follow``: also requests, with the same meta, every
link of the response); ``direct`` builds the handler alone and calls
``download_request`` from a coroutine driven by Twisted (not by an asyncio
task), then ``close()`` (an entry with ``"kill_browser_after": true``
SIGKILLs the handler's Chrome once its request is done). Both write ``out``::

    {"records": [{"kind": "response", "request_url", "url", "status", "flags",
                  "body", "snapshot", "followed_from"}
                 | {"kind": "failure", "request_url", "type", "message"}],
     "stats": {...kobrowser/* stats...},
     "children": ["cmdline of each child process left after the crawl", ...]}
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import scrapy
from scrapy.http import Response
from twisted.python.failure import Failure

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
BASE_SETTINGS: dict[str, Any] = {
    "DOWNLOAD_HANDLERS": {
        "http": "kobrowser.scrapy.DownloadHandler",
        "https": "kobrowser.scrapy.DownloadHandler",
    },
    "TWISTED_REACTOR": ASYNCIO_REACTOR,
    "LOG_LEVEL": "INFO",
    "RETRY_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "ROBOTSTXT_OBEY": False,
}


def children() -> list[str]:
    """The command lines of this process's child processes (Linux /proc)."""
    found: list[str] = []
    for task in Path("/proc/self/task").iterdir():
        try:
            pids = (task / "children").read_text().split()
        except FileNotFoundError:  # the thread ended after it was listed
            continue
        for pid in pids:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace").strip())
    return found


def response_record(response: Response, followed_from: str | None) -> dict[str, Any]:
    assert response.request is not None
    return {
        "kind": "response",
        "request_url": response.request.url,
        "url": response.url,
        "status": response.status,
        "flags": response.flags,
        "body": response.text,
        "snapshot": response.meta.get("kobrowser_snapshot"),
        "has_snapshot_key": "kobrowser_snapshot" in response.meta,
        "followed_from": followed_from,
    }


def failure_record(value: BaseException | None, request: scrapy.Request | None) -> dict[str, Any]:
    return {
        "kind": "failure",
        "request_url": request.url if request is not None else None,
        "type": f"{type(value).__module__}.{type(value).__qualname__}",
        "message": str(value),
    }


class JobSpider(scrapy.Spider):
    name = "job"

    def __init__(self, job: dict[str, Any], records: list[dict[str, Any]], **kw: Any) -> None:
        super().__init__(**kw)
        self.job = job
        self.records = records

    async def start(self) -> Any:
        for entry in self.job["requests"]:
            yield self.request(
                entry["url"],
                entry.get("meta", {}),
                entry.get("follow", False),
                method=entry.get("method", "GET"),
            )

    def request(
        self,
        url: str,
        meta: dict[str, Any],
        follow: bool,
        followed_from: str | None = None,
        method: str = "GET",
    ) -> scrapy.Request:
        return scrapy.Request(
            url,
            method=method,
            meta={**meta, "follow": follow, "followed_from": followed_from},
            callback=self.parse,
            errback=self.failed,
            dont_filter=True,
        )

    def parse(self, response: Response) -> Iterator[scrapy.Request]:
        self.records.append(response_record(response, response.meta["followed_from"]))
        if response.meta["follow"]:
            meta = {k: v for k, v in response.meta.items() if k.startswith("kobrowser")}
            meta.pop("kobrowser_snapshot", None)
            for href in response.css("a::attr(href)").getall():
                yield self.request(response.urljoin(href), meta, False, response.url)

    def failed(self, failure: Failure) -> None:
        self.records.append(failure_record(failure.value, getattr(failure, "request", None)))


def crawl(job: dict[str, Any]) -> dict[str, Any]:
    from scrapy.crawler import CrawlerProcess

    records: list[dict[str, Any]] = []
    process = CrawlerProcess({**BASE_SETTINGS, **job.get("settings", {})})
    crawler = process.create_crawler(JobSpider)
    process.crawl(crawler, job=job, records=records)
    process.start()
    assert crawler.stats is not None
    stats = {
        key: value
        for key, value in crawler.stats.get_stats().items()
        if key.startswith("kobrowser/") or key.startswith("downloader/response_status_count")
    }
    return {"records": records, "stats": stats}


def direct(job: dict[str, Any]) -> dict[str, Any]:
    """The handler driven by Twisted coroutines, outside a crawl."""
    from scrapy.utils.reactor import install_reactor

    install_reactor(ASYNCIO_REACTOR)
    from scrapy.utils.test import get_crawler
    from twisted.internet import defer, reactor, task

    from kobrowser.scrapy import DownloadHandler

    records: list[dict[str, Any]] = []
    crawler = get_crawler(settings_dict={**BASE_SETTINGS, **job.get("settings", {})})
    handler = DownloadHandler.from_crawler(crawler)
    result: dict[str, Any] = {}

    async def kill_browser() -> None:
        """SIGKILL the handler's Chrome and wait until the handler saw it go."""
        browser = handler.pool.browser
        assert browser is not None and browser.pid is not None
        result.setdefault("killed_pids", []).append(browser.pid)
        os.kill(browser.pid, signal.SIGKILL)
        for _ in range(600):
            if handler.pool.browser is None:
                return
            await task.deferLater(reactor, 0.05)
        raise AssertionError("the handler did not notice its browser was killed")

    async def main() -> None:
        try:
            for entry in job["requests"]:
                request = scrapy.Request(entry["url"], meta=entry.get("meta", {}))
                try:
                    response = await handler.download_request(request)
                except Exception as exc:
                    records.append(failure_record(exc, request))
                else:
                    records.append(response_record(response, None))
                if entry.get("kill_browser_after"):
                    await kill_browser()
            browser = handler.pool.browser
            result["browser_pid"] = browser.pid if browser is not None else None
        finally:
            await handler.close()
            result["closed_pool_browser"] = handler._shared is None

    def stop(outcome: Failure | None) -> None:
        if isinstance(outcome, Failure):
            records.append(failure_record(outcome.value, None))
        reactor.stop()

    def run() -> None:
        done = defer.ensureDeferred(main())  # a coroutine driven by Twisted, not asyncio
        done.addBoth(stop)

    reactor.callLater(0, run)  # on the running asyncio loop
    reactor.run()
    assert crawler.stats is not None
    stats = {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("kobrowser/")}
    return {"records": records, "stats": stats, **result}


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    result = direct(job) if job.get("mode") == "direct" else crawl(job)
    result["children"] = children()
    Path(job["out"]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
