"""Multi-tab throughput: 16 tabs each snapshotting a medium page, all at once.

kobrowser (``asyncio.gather`` of ``tab.snapshot()`` over 16 tabs of one
browser connection; ``launch()``'s default CBOR pipe, and the same over the
WebSocket as "kobrowser ws") against Playwright (``asyncio.gather`` of
``page.aria_snapshot(mode="ai")``, its AI-mode snapshot, over 16 pages of one
context). Each side drives its own Chromium process of the same binary
(``kobrowser.cdp.find_chrome()``); rounds alternate between the two, so both
see the same machine load. The page is the benchmark table with fewer rows
(a few thousand AX nodes). Each side's first round (Chrome builds its
accessibility trees then) is left out.

Run: ``.venv/bin/python -m benchmarks tabs [--quick]`` or
``.venv/bin/python -m benchmarks.bench_tabs [--quick] [--rounds N] [--tabs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from typing import Any

from benchmarks._common import load, timed
from benchmarks.pages import PageServer

NAME = "tabs"
TITLE = "Multi-tab throughput: 16 tabs snapshotting at once, kobrowser vs Playwright"

TABS = 16
ROWS = 250  # table rows: about 4,000 AX nodes
PAUSE = 0.5
"""Seconds of idle before each timed round (2 shared cores: let Chrome settle)."""


async def _run(rounds: int, tabs: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    with PageServer(rows=ROWS) as server:
        url = server.url("table")
        async with (
            kobrowser.launch(executable_path=chrome, timeout=120, transport="pipe-cbor") as kb,
            kobrowser.launch(executable_path=chrome, timeout=120, transport="websocket") as kb_ws,
            async_playwright() as p,
        ):
            pw = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
            try:
                kb_tabs = [await kb.new_tab(url) for _ in range(tabs)]
                kbws_tabs = [await kb_ws.new_tab(url) for _ in range(tabs)]
                context = await pw.new_context()
                pw_pages = [await context.new_page() for _ in range(tabs)]
                for page in pw_pages:
                    await page.goto(url, wait_until="load")

                async def kb_round() -> list[Any]:
                    return await asyncio.gather(*(tab.snapshot() for tab in kb_tabs))

                async def kbws_round() -> list[Any]:
                    return await asyncio.gather(*(tab.snapshot() for tab in kbws_tabs))

                async def pw_round() -> list[Any]:
                    return await asyncio.gather(
                        *(page.aria_snapshot(mode="ai") for page in pw_pages)
                    )

                # Cold round (not timed) and a sanity check of what each side returns.
                kb_snaps = await kb_round()
                kbws_snaps = await kbws_round()
                pw_snaps = await pw_round()
                assert kbws_snaps[0].text == kb_snaps[0].text
                elements = len(kb_snaps[0].id_map)
                ax_nodes = len((await kb_tabs[0].cdp.send("Accessibility.getFullAXTree"))["nodes"])
                assert all(s.text == kb_snaps[0].text for s in kb_snaps)
                assert all(isinstance(s, str) and "Refund 1" in s for s in pw_snaps)

                times: dict[str, list[float]] = {
                    "kobrowser": [],
                    "kobrowser ws": [],
                    "playwright": [],
                }
                load_before = load()
                for i in range(rounds):
                    order = [
                        ("kobrowser", kb_round),
                        ("kobrowser ws", kbws_round),
                        ("playwright", pw_round),
                    ]
                    order = order[i % 3 :] + order[: i % 3]  # rotate: each goes first in turn
                    for name, call in order:
                        await asyncio.sleep(PAUSE)
                        times[name].append(await timed(call))
                        print(
                            f"  round {i + 1} {name}: {times[name][-1] * 1000:.0f} ms", flush=True
                        )
            finally:
                await pw.close()
    return {
        "rounds": rounds,
        "tabs": tabs,
        "elements": elements,
        "ax_nodes": ax_nodes,
        "kb_chars": len(kb_snaps[0].text),
        "pw_chars": len(pw_snaps[0]),
        "times": times,
        "load": (load_before, load()),
    }


def _table(result: dict[str, Any]) -> str:
    tabs = result["tabs"]
    med = {name: statistics.median(t) for name, t in result["times"].items()}
    best = {name: min(t) for name, t in result["times"].items()}
    rows = [
        "| contender | round (median) | round (best) | snapshots/s (median) | vs Playwright |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in ("kobrowser", "kobrowser ws", "playwright"):
        ratio = med["playwright"] / med[name]
        rows.append(
            f"| {name} | {med[name] * 1000:.0f} ms | {best[name] * 1000:.0f} ms"
            f" | {tabs / med[name]:.1f} | {ratio:.2f}x |"
        )
    speedup = med["playwright"] / med["kobrowser"]
    verdict = "met" if speedup >= 1.3 else "not met"
    return (
        f"{tabs} tabs, each on the benchmark table with {ROWS} rows ({result['ax_nodes']:,}"
        f" AX nodes, {result['elements']:,} snapshot elements; snapshot text"
        f" {result['kb_chars']:,} chars for kobrowser, {result['pw_chars']:,} for Playwright)."
        f" {result['rounds']} timed rounds per contender, alternating, after one cold round;"
        f" a round is all {tabs} snapshots at once with `asyncio.gather`."
        f" Load average (1 min) before/after: {result['load'][0]:.1f} / {result['load'][1]:.1f}"
        " (the machine is shared: figures are noisy; rows of this table are interleaved).\n\n"
        + "\n".join(rows)
        + f"\n\nTarget (issue 11): at least 1.3x Playwright's throughput"
        f" (**{speedup:.2f}x**, {verdict})."
    )


def run(quick: bool = False, rounds: int | None = None, tabs: int = TABS) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    n = rounds if rounds is not None else (3 if quick else 9)
    return _table(asyncio.run(_run(n, tabs)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--tabs", type=int, default=TABS)
    args = parser.parse_args(argv)
    print(run(args.quick, args.rounds, args.tabs))


if __name__ == "__main__":
    main()
