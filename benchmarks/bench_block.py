"""Resource blocking: ``Scraper(block_resources=...)`` against none, on the real-page corpus.

The pages are the saved real pages of :mod:`benchmarks.corpus`, served on
127.0.0.1; other hosts do not resolve (``BLOCK_OTHER_HOSTS``). What a page
asks for on its own origin by a path that is not a page gets a stand-in of a
typical size for its kind (by extension: an image 40 KB, a font 30 KB, media
200 KB, a stylesheet 15 KB, a script 40 KB; anything else 404), so blocking
has real bytes to save. Two contenders, rounds alternating their order:

* ``no blocking``: ``Scraper(concurrency=8, per_host=None, retries=0)``;
* ``block image, font, media``: the same with
  ``block_resources=("image", "font", "media")``.

Per page, an ``extract`` reads what the page itself transferred
(``transferSize`` of its navigation and resource timing entries: same-origin
answers only, which is everything that loads here) and how many requests
its tab got an answer to (``tab.network.requests`` with a status; blocked
and unresolvable ones fail without one). Reported: pages/s, KB transferred
and answered requests per page.

Run: ``.venv/bin/python -m benchmarks block [--quick]`` or
``.venv/bin/python -m benchmarks.bench_block [--quick] [--rounds N] [--pages N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks._common import LocalServer, load
from benchmarks.corpus import BLOCK_OTHER_HOSTS, CorpusPage, load_corpus

NAME = "block"
TITLE = "Resource blocking: Scraper(block_resources=...) on the real-page corpus"

BLOCKED = ("image", "font", "media")
CONCURRENCY = 8
TIMEOUT = 60.0
#: Stand-in sizes of what the pages ask for on their own origin, by extension.
STAND_INS: Mapping[str, int] = {
    **dict.fromkeys((".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico"), 40_000),
    **dict.fromkeys((".woff", ".woff2", ".ttf", ".otf", ".eot"), 30_000),
    **dict.fromkeys((".mp4", ".webm", ".mp3", ".ogg"), 200_000),
    ".css": 15_000,
    ".js": 40_000,
}
_TRANSFERRED = "performance.getEntries().reduce((sum, e) => sum + (e.transferSize || 0), 0)"


class PageServer:
    """The corpus pages, and stand-ins for their own-origin resources."""

    def __init__(self, pages: Sequence[CorpusPage]) -> None:
        self._pages = {"/" + page.name: page for page in pages}
        self._server = LocalServer(self._render, content_type="text/html")

    def _render(self, path: str, query: dict[str, str], port: int) -> bytes | None:
        page = self._pages.get(path)
        if page is not None:
            return page.read()
        dot = path.rfind(".")
        size = STAND_INS.get(path[dot:].lower()) if dot > path.rfind("/") else None
        return None if size is None else b"\0" * size

    def __enter__(self) -> PageServer:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()

    def url(self, page: CorpusPage, round_number: int) -> str:
        import urllib.parse

        return self._server.url("/" + urllib.parse.quote(page.name)) + f"?r={round_number}"


@dataclass
class Tally:
    """One contender's jobs."""

    rates: list[float] = field(default_factory=list)
    bytes_per_page: list[float] = field(default_factory=list)
    requests_per_page: list[float] = field(default_factory=list)
    failed: int = 0


async def _measure(tab: Any, snapshot: Any) -> dict[str, Any]:
    transferred = await tab.evaluate(_TRANSFERRED)
    answered = [r for r in tab.network.requests if r.status is not None]
    return {"bytes": int(transferred or 0), "requests": len(answered)}


async def job(urls: list[str], block: Sequence[str] | None, tally: Tally) -> None:
    """Scrape ``urls`` once with ``block`` (None: nothing blocked); add to ``tally``."""
    import kobrowser

    scraper = kobrowser.Scraper(
        concurrency=CONCURRENCY,
        per_host=None,
        retries=0,
        timeout=TIMEOUT,
        block_resources=block,
        extract=_measure,
        args=[BLOCK_OTHER_HOSTS],
    )
    async with scraper:
        started = time.perf_counter()
        records = [record async for record in scraper.run(urls)]
        elapsed = time.perf_counter() - started
    ok = [r for r in records if r.ok and r.data is not None]
    tally.failed += len(records) - len(ok)
    tally.rates.append(len(records) / elapsed)
    if ok:
        tally.bytes_per_page.append(sum(r.data["bytes"] for r in ok if r.data) / len(ok))
        tally.requests_per_page.append(sum(r.data["requests"] for r in ok if r.data) / len(ok))


async def measure(pages: int, rounds: int) -> str:
    corpus = load_corpus(limit=pages)
    contenders: dict[str, Sequence[str] | None] = {
        "no blocking": None,
        f"block {', '.join(BLOCKED)}": BLOCKED,
    }
    tallies = {name: Tally() for name in contenders}
    load_at_start = load()
    with PageServer(corpus) as server:
        await job([server.url(p, -1) for p in corpus[:2]], None, Tally())  # warm-up
        for round_number in range(rounds):
            order = list(contenders)
            if round_number % 2:
                order.reverse()
            for name in order:
                urls = [server.url(p, round_number) for p in corpus]
                await asyncio.sleep(1.0)  # 2 shared cores: let the machine settle
                await job(urls, contenders[name], tallies[name])
    lines = [
        f"{len(corpus)} pages, concurrency {CONCURRENCY}, {rounds} round(s); "
        f"load average at start {load_at_start:.1f}.",
        "",
        "| contender | pages/s (median) | KB transferred per page | answered requests per page "
        "| failed |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, tally in tallies.items():
        kb = statistics.median(tally.bytes_per_page) / 1000 if tally.bytes_per_page else 0.0
        requests = statistics.median(tally.requests_per_page) if tally.requests_per_page else 0.0
        lines.append(
            f"| {name} | {statistics.median(tally.rates):.2f} | {kb:.1f} | {requests:.1f} "
            f"| {tally.failed} |"
        )
    return "\n".join(lines) + "\n"


def run(quick: bool) -> str:
    """The benchmark runner's entry (``python -m benchmarks block``)."""
    return asyncio.run(measure(2 if quick else 212, 1 if quick else 4))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_block")
    parser.add_argument("--quick", action="store_true", help="2 pages, one round")
    parser.add_argument("--pages", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args(argv)
    pages = args.pages or (2 if args.quick else 212)
    rounds = args.rounds or (1 if args.quick else 4)
    print(asyncio.run(measure(pages, rounds)))


if __name__ == "__main__":
    main()
