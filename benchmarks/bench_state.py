"""Browser state: storage-state save/load time and what emulation costs a new tab.

Storage state: a state of 50 cookies and 6 origins with 20 localStorage
items each (hosts that do not exist: neither side touches the network to
read or write localStorage). Timed: ``new_context(storage_state=...)``
(load), against a bare ``new_context()``; and ``storage_state()`` (save) of
that context, with no tab open, so every origin is read in a scratch tab.
Also ``storage_state()`` with one tab open on the one origin that has
storage (read straight from DevTools, no scratch tab).

Emulation: ``ctx.new_tab(url)`` (create, set up, load a small page) in a
context without emulation against one with ``device="iPhone 15"``,
``locale``, ``timezone_id`` and ``color_scheme`` set; likewise
``context.new_page()`` + ``page.goto(url)`` in Playwright.

kobrowser and Playwright each drive their own Chromium of the same binary;
rounds alternate, medians are reported.

Run: ``.venv/bin/python -m benchmarks state [--quick]``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks._common import load, median_ms, timed
from benchmarks.pages import PageServer

NAME = "state"
TITLE = "Browser state: storage state save/load, emulation's cost on a new tab"

ORIGINS = 6
ITEMS = 20
COOKIES = 50
PAUSE = 0.3


def _state() -> dict[str, Any]:
    cookies = [
        {
            "name": f"c{i}",
            "value": "v" * 40,
            "domain": f"site{i % ORIGINS}.test",
            "path": "/",
            "expires": -1,
            "httpOnly": False,
            "secure": False,
            "sameSite": "Lax",
        }
        for i in range(COOKIES)
    ]
    origins = [
        {
            "origin": f"http://site{n}.test",
            "localStorage": [{"name": f"k{i}", "value": "x" * 100} for i in range(ITEMS)],
        }
        for n in range(ORIGINS)
    ]
    return {"cookies": cookies, "origins": origins}


async def _run(rounds: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    state = _state()
    times: dict[str, list[float]] = {}

    recording = {"on": False}  # off for the warm-up round

    def record(name: str, seconds: float) -> None:
        if recording["on"]:
            times.setdefault(name, []).append(seconds)

    with PageServer(rows=20) as server:
        url = server.url("form")
        async with (
            kobrowser.launch(executable_path=chrome, timeout=120) as kb,
            async_playwright() as p,
        ):
            pw = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
            phone = p.devices["iPhone 15"]
            emulated: dict[str, Any] = {
                "locale": "de-DE",
                "timezone_id": "Asia/Tokyo",
                "color_scheme": "dark",
            }
            try:
                kb_plain = await kb.new_context()
                kb_emu = await kb.new_context(device="iPhone 15", **emulated)
                pw_plain = await pw.new_context()
                pw_emu = await pw.new_context(**phone, **emulated)
                load_before = load()
                for i in range(rounds + 1):  # round 0: warm-up, not recorded
                    recording["on"] = i > 0

                    # -- storage state --------------------------------------
                    async def kb_bare() -> None:
                        ctx = await kb.new_context()
                        await ctx.close()

                    async def kb_load_save() -> None:
                        start = time.perf_counter()
                        ctx = await kb.new_context(storage_state=state)
                        loaded = time.perf_counter()
                        saved = await ctx.storage_state()
                        done = time.perf_counter()
                        assert len(saved["origins"]) == ORIGINS, saved["origins"]
                        assert len(saved["cookies"]) == COOKIES
                        tab = await ctx.new_tab(url)
                        await tab.evaluate("localStorage.k = 'v'")
                        live_start = time.perf_counter()
                        await ctx.storage_state()
                        live = time.perf_counter() - live_start
                        await ctx.close()
                        record("kobrowser load", loaded - start)
                        record("kobrowser save (scratch tab)", done - loaded)
                        record("kobrowser save (+1 live tab)", live)

                    async def pw_bare() -> None:
                        ctx = await pw.new_context()
                        await ctx.close()

                    async def pw_load_save() -> None:
                        start = time.perf_counter()
                        ctx = await pw.new_context(storage_state=state)  # type: ignore[arg-type]
                        loaded = time.perf_counter()
                        saved = await ctx.storage_state()
                        done = time.perf_counter()
                        assert len(saved["cookies"]) == COOKIES
                        page = await ctx.new_page()
                        await page.goto(url)
                        await page.evaluate("localStorage.k = 'v'")
                        live_start = time.perf_counter()
                        await ctx.storage_state()
                        live = time.perf_counter() - live_start
                        await ctx.close()
                        record("playwright load", loaded - start)
                        record("playwright save", done - loaded)
                        record("playwright save (+1 live tab)", live)
                        record("playwright save origins", len(saved["origins"]))

                    # -- emulation on a new tab --------------------------------
                    async def kb_tab(ctx: Any, name: str) -> None:
                        seconds = 0.0
                        start = time.perf_counter()
                        tab = await ctx.new_tab(url)
                        seconds = time.perf_counter() - start
                        await tab.close()
                        record(name, seconds)

                    async def kb_batch() -> None:
                        # What set-up adds to a new tab: the emulation batch,
                        # sent again to a live tab, against one round trip.
                        tab = await kb_emu.new_tab(url)
                        start = time.perf_counter()
                        await kb_emu._emulation.set_up_tab(tab)
                        batch = time.perf_counter() - start
                        start = time.perf_counter()
                        await tab.cdp.send("Runtime.evaluate", {"expression": "1"})
                        trip = time.perf_counter() - start
                        await tab.close()
                        record("kobrowser emulation batch", batch)
                        record("kobrowser round trip", trip)

                    async def pw_tab(ctx: Any, name: str) -> None:
                        start = time.perf_counter()
                        page = await ctx.new_page()
                        await page.goto(url)
                        seconds = time.perf_counter() - start
                        await page.close()
                        record(name, seconds)

                    steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
                        ("kb bare", kb_bare),
                        ("kb state", kb_load_save),
                        ("pw bare", pw_bare),
                        ("pw state", pw_load_save),
                        ("kb plain tab", lambda: kb_tab(kb_plain, "kobrowser new tab, plain")),
                        ("kb emu tab", lambda: kb_tab(kb_emu, "kobrowser new tab, emulated")),
                        ("pw plain tab", lambda: pw_tab(pw_plain, "playwright new page, plain")),
                        ("pw emu tab", lambda: pw_tab(pw_emu, "playwright new page, emulated")),
                        ("kb batch", kb_batch),
                    ]
                    shift = i % len(steps)
                    for name, step in steps[shift:] + steps[:shift]:
                        await asyncio.sleep(PAUSE)
                        seconds = await timed(step)
                        if name.endswith("bare"):
                            record(
                                "kobrowser new_context()" if name.startswith("kb")
                                else "playwright new_context()", seconds
                            )  # fmt: skip
                    print(f"  round {i} done", flush=True)
                load_after = load()
            finally:
                await pw.close()
    return {"times": times, "rounds": rounds, "load": (load_before, load_after)}


def _table(result: dict[str, Any]) -> str:
    t = result["times"]
    rows = [
        "| step | kobrowser | Playwright |",
        "|---|---:|---:|",
        f"| bare `new_context()` (+ close) | {median_ms(t['kobrowser new_context()'])}"
        f" | {median_ms(t['playwright new_context()'])} |",
        f"| `new_context(storage_state=...)` | {median_ms(t['kobrowser load'])}"
        f" | {median_ms(t['playwright load'])} |",
        f"| `storage_state()`, no tab open ({ORIGINS} origins in a scratch tab)"
        f" | {median_ms(t['kobrowser save (scratch tab)'])} | {median_ms(t['playwright save'])} |",
        f"| `storage_state()`, one tab open on a 7th origin"
        f" | {median_ms(t['kobrowser save (+1 live tab)'])}"
        f" | {median_ms(t['playwright save (+1 live tab)'])} |",
        f"| new tab + load a small page, no emulation | {median_ms(t['kobrowser new tab, plain'])}"
        f" | {median_ms(t['playwright new page, plain'])} |",
        f"| the same with iPhone 15 + locale + time zone + dark"
        f" | {median_ms(t['kobrowser new tab, emulated'])}"
        f" | {median_ms(t['playwright new page, emulated'])} |",
    ]
    rows.append(
        f"| emulation batch a new tab gets (kobrowser; sent to a live tab)"
        f" | {median_ms(t['kobrowser emulation batch'])} | |"
    )
    rows.append(
        f"| one CDP round trip (`Runtime.evaluate 1`), for scale"
        f" | {median_ms(t['kobrowser round trip'])} | |"
    )
    kb_cost = statistics.median(t["kobrowser new tab, emulated"]) - statistics.median(
        t["kobrowser new tab, plain"]
    )
    pw_cost = statistics.median(t["playwright new page, emulated"]) - statistics.median(
        t["playwright new page, plain"]
    )
    pw_origins = int(statistics.median(t["playwright save origins"]))
    return (
        f"State: {COOKIES} cookies, {ORIGINS} origins x {ITEMS} localStorage items"
        f" (100-char values). Medians of {result['rounds']} interleaved rounds after a"
        f" warm-up. Load average (1 min) before/after: {result['load'][0]:.1f} /"
        f" {result['load'][1]:.1f} (shared machine: noisy).\n\n"
        + "\n".join(rows)
        + f"\n\nNew-tab medians differ between runs by more than emulation costs (the"
        " machine is loaded); the batch row is the direct measure. Median difference of"
        " the two new-tab rows: kobrowser"
        f" {kb_cost * 1000:+.1f} ms, Playwright {pw_cost * 1000:+.1f} ms. kobrowser sends a"
        " tab's emulation calls in one batch before its first navigation; with nothing"
        " emulated it sends none. Both sides read or write each origin's localStorage"
        " by loading an empty document of it in a scratch tab whose requests are"
        " answered locally (a new renderer per site: that is most of the time);"
        f" Playwright's saved state had {pw_origins} origin(s), kobrowser's {ORIGINS}."
    )


def run(quick: bool = False) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    return _table(asyncio.run(_run(3 if quick else 10)))


if __name__ == "__main__":
    print(run())
