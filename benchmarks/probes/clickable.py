"""Probe: the cost of the signals that tell which elements are clickable.

Clickability is not in Chrome's accessibility tree. Candidates, timed on the
same loaded page, round-robin, medians (one kobrowser tab; raw CDP calls on
its session):

``getFullAXTree``      the snapshot's own AX read, for scale.
``captureSnapshot``    ``DOMSnapshot.captureSnapshot`` with the computed cursor
                       only (what ``kobrowser._tab._clickable`` sends), plus the
                       Python time to turn it into the clickable map.
``... + DOMRects``     the same with ``includeDOMRects`` (not needed; for the record).
``script``             an in-page walk (``getComputedStyle(el).cursor`` and the
                       DevTools ``getEventListeners(el)`` of every element, open
                       shadow roots included), then ``DOM.describeNode`` of
                       every element found to learn its backend id.
``getEventListeners``  ``DOMDebugger.getEventListeners`` per element needs a
                       remote object per element (``DOM.resolveNode``): timed
                       on the first 200 elements, reported per element and
                       extrapolated to the page's element count.

Pages: the 2,400-row table of ``benchmarks/pages``, a generated feed of
1,000 clickable rows (delegated handler, ``cursor: pointer``, a listener
span per row), and the real-page corpus (``benchmarks/corpus.py``; sums
over its pages, one round each).

Run: ``.venv/bin/python -m benchmarks.probes.clickable [--rounds N] [--corpus N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks._common import loads
from benchmarks.corpus import BLOCK_OTHER_HOSTS, CorpusPage, CorpusServer, load_corpus
from benchmarks.pages import PageServer

SCRIPT = r"""(() => {
  const out = [];
  const visit = (root, parentCursor) => {
    for (const el of root.children) {
      const cursor = getComputedStyle(el).cursor;
      const l = getEventListeners(el);
      if (el !== document.body && el !== document.documentElement &&
          (l.click || (cursor === 'pointer' && parentCursor !== 'pointer'))) out.push(el);
      if (el.shadowRoot) visit(el.shadowRoot, cursor);
      visit(el, cursor);
    }
  };
  visit(document, 'auto');
  return out;
})()"""

FEED_ROWS = 1000


def feed_page(rows: int = FEED_ROWS) -> str:
    items = "".join(
        f"<div class=row style='cursor:pointer'><b>User {i}</b> wrote a post number {i} "
        f"<span class=like id=l{i}>Like</span> <span class=tag style='cursor:pointer'>#tag{i % 7}"
        "</span></div>"
        for i in range(rows)
    )
    return (
        "<!doctype html><html><head><title>Feed</title></head><body><div id=feed>"
        f"{items}</div><script>document.getElementById('feed').addEventListener('click',()=>{{}});"
        "for (const s of document.querySelectorAll('.like')) s.addEventListener('click',()=>{});"
        "</script></body></html>"
    )


async def probe_tab(tab: Any, rounds: int) -> dict[str, Any]:
    from kobrowser._tab._clickable import PARAMS, clickable_from_snapshot

    session = tab.cdp
    connection = session.connection

    async def ax() -> Any:
        return await session.send_raw("Accessibility.getFullAXTree", timeout=120)

    async def capture() -> tuple[float, dict[int, int]]:
        raw = await session.send_raw("DOMSnapshot.captureSnapshot", PARAMS, timeout=120)
        start = time.perf_counter()
        found = clickable_from_snapshot(raw)
        return time.perf_counter() - start, found

    async def capture_rects() -> Any:
        params = dict(PARAMS, includeDOMRects=True)
        return await session.send_raw("DOMSnapshot.captureSnapshot", params, timeout=120)

    async def script() -> int:
        found = await session.send(
            "Runtime.evaluate",
            {"expression": SCRIPT, "includeCommandLineAPI": True, "objectGroup": "probe"},
            timeout=120,
        )
        props = await session.send(
            "Runtime.getProperties",
            {"objectId": found["result"]["objectId"], "ownProperties": True},
            timeout=120,
        )
        ids = [p["value"]["objectId"] for p in props["result"] if p["name"].isdigit()]
        answers = await connection.call_many(
            [(session, "DOM.describeNode", {"objectId": i}, None) for i in ids], timeout=120
        )
        await session.send("Runtime.releaseObjectGroup", {"objectGroup": "probe"}, timeout=30)
        return len(answers)

    variants: dict[str, Callable[[], Awaitable[Any]]] = {
        "ax": ax,
        "capture": capture,
        "capture_rects": capture_rects,
        "script": script,
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    last: dict[str, Any] = {}
    for _ in range(rounds):  # round-robin: the load drifts
        for name, call in variants.items():
            await asyncio.sleep(0.1)
            start = time.perf_counter()
            last[name] = await call()
            times[name].append(time.perf_counter() - start)
    result: dict[str, Any] = {name: statistics.median(t) for name, t in times.items()}
    result.update({f"{name}_min": min(t) for name, t in times.items()})
    result["ax_bytes"] = len(last["ax"])
    result["capture_python"], found = last["capture"]
    result["capture_bytes"] = len(
        await session.send_raw("DOMSnapshot.captureSnapshot", PARAMS, timeout=120)
    )
    result["clickable"] = sum(1 for key, owner in found.items() if key == owner)
    result["script_found"] = last["script"]
    # DOMDebugger.getEventListeners: per element, on a sample.
    count = await tab.evaluate("document.getElementsByTagName('*').length")
    result["elements"] = count
    await session.send("DOM.enable", timeout=30)
    try:
        doc = await session.send("DOM.getDocument", {"depth": -1}, timeout=120)
        backends: list[int] = []
        stack = [doc["root"]]
        while stack and len(backends) < 200:
            node = stack.pop()
            if node.get("nodeType") == 1:
                backends.append(node["backendNodeId"])
            stack.extend(reversed(node.get("children", [])))
        start = time.perf_counter()
        for backend in backends:
            obj = await session.send("DOM.resolveNode", {"backendNodeId": backend}, timeout=30)
            await session.send(
                "DOMDebugger.getEventListeners", {"objectId": obj["object"]["objectId"]}, timeout=30
            )
        per = (time.perf_counter() - start) / max(1, len(backends))
    finally:
        await session.send("DOM.disable", timeout=30)
    result["listeners_per_element"] = per
    return result


async def run_probe(rounds: int, corpus: int) -> str:
    import kobrowser

    lines = [
        f"Load average at the start {loads(2, ' ')}.",
        "",
        "Median (min) of the rounds, run round-robin.",
        "",
        "| page | elements | getFullAXTree | captureSnapshot (cursor) | + Python | "
        "+ DOMRects | script + describeNode | getEventListeners per element (all) | "
        "clickable found |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def row(name: str, r: dict[str, Any]) -> str:
        return (
            f"| {name} | {r['elements']:,} "
            f"| {r['ax'] * 1000:.0f} ({r['ax_min'] * 1000:.0f}) ms, "
            f"{r['ax_bytes'] / 1e6:.1f} MB "
            f"| {r['capture'] * 1000:.0f} ({r['capture_min'] * 1000:.0f}) ms, "
            f"{r['capture_bytes'] / 1e6:.1f} MB "
            f"| {r['capture_python'] * 1000:.1f} ms "
            f"| {r['capture_rects'] * 1000:.0f} ({r['capture_rects_min'] * 1000:.0f}) ms "
            f"| {r['script'] * 1000:.0f} ({r['script_min'] * 1000:.0f}) ms, "
            f"{r['script_found']} found "
            f"| {r['listeners_per_element'] * 1e6:.0f} us "
            f"({r['listeners_per_element'] * r['elements']:.1f} s) | {r['clickable']:,} |"
        )

    with PageServer() as server:
        async with kobrowser.launch() as browser:
            tab = await browser.new_tab(server.url("table"))
            lines.append(row("table (2,400 rows)", await probe_tab(tab, rounds)))
            await tab.close()
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "feed.html"
                path.write_text(feed_page())
                feed = CorpusPage("generated/feed.html", path, path.stat().st_size)
                with CorpusServer([feed]) as feed_server:
                    tab = await browser.new_tab(feed_server.url(feed))
                    result = await probe_tab(tab, rounds)
                    await tab.close()
            lines.append(row(f"feed ({FEED_ROWS:,} clickable rows)", result))
    if corpus:
        pages = load_corpus(limit=corpus)
        totals: dict[str, float] = {}
        n = 0
        with CorpusServer(pages) as corpus_server:
            async with kobrowser.launch(args=[BLOCK_OTHER_HOSTS]) as browser:
                for page in pages:
                    try:
                        tab = await browser.new_tab(corpus_server.url(page), timeout=30)
                        r = await probe_tab(tab, 1)
                        await tab.close()
                    except Exception:
                        continue
                    n += 1
                    for key in ("ax", "capture", "capture_python", "capture_rects", "script"):
                        totals[key] = totals.get(key, 0.0) + r[key]
                    totals["listeners"] = (
                        totals.get("listeners", 0.0) + r["listeners_per_element"] * r["elements"]
                    )
                    totals["elements"] = totals.get("elements", 0) + r["elements"]
                    totals["clickable"] = totals.get("clickable", 0) + r["clickable"]
        if n:
            lines.append(
                f"| corpus, sum over {n} pages | {int(totals['elements']):,} "
                f"| {totals['ax']:.2f} s | {totals['capture']:.2f} s "
                f"| {totals['capture_python']:.2f} s | {totals['capture_rects']:.2f} s "
                f"| {totals['script']:.2f} s | ({totals['listeners']:.1f} s) "
                f"| {int(totals['clickable']):,} |"
            )
    lines += ["", f"Load average at the end {loads(2, ' ')}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", type=int, default=60, help="corpus pages (0: none)")
    args = parser.parse_args(argv)
    print(asyncio.run(run_probe(args.rounds, args.corpus)))


if __name__ == "__main__":
    main()
