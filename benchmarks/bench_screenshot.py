"""Seeing the page: screenshots (plain, full page, element, annotated), boxes, PDF.

Pages (benchmarks/pages): ``form`` (a small sign-in form), ``cross20`` (20
cross-origin iframes of it: 21 frame sessions) and ``table`` with 300 rows
(a long page: about 7,600 CSS pixels tall, 1,200 controls).

Timed, per page, kobrowser against Playwright on their own Chromium of the
same binary, and against the raw CDP floor (one ``Page.captureScreenshot``
on kobrowser's session, decoded from base64 like the others):

* viewport screenshot (PNG): ``tab.screenshot()`` / ``page.screenshot()``;
* full-page screenshot: ``full_page=True`` on both;
* one element: ``tab.screenshot(id=N)`` / ``locator.screenshot()``;
* annotated viewport screenshot (kobrowser only; the ids of a snapshot
  drawn on it): the whole call, and the part of it that is the batched
  geometry, ``snap.boxes()``;
* every element's box: ``snap.boxes()`` (one ``DOMSnapshot`` call per frame
  session) against Playwright's ``bounding_box()`` of each interactive
  element of the top document (one call per element);
* PDF: ``tab.pdf()`` / ``page.pdf(format="A4", print_background=True)``
  (the same paper and backgrounds).

Rounds alternate the two sides; medians are reported.

Run: ``.venv/bin/python -m benchmarks screenshot [--quick]``.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks._common import load, median_ms, timed
from benchmarks.pages import PageServer

NAME = "screenshot"
TITLE = "Seeing the page: screenshots (plain, full, element, annotated), boxes, PDF"

PAGES = ("form", "cross20", "table")
PAUSE = 0.2
PW_BOXES = 100  # Playwright asks box by box: the first 100 controls are enough to time it


async def _settle_frames(tab: Any, want: int) -> None:
    """Wait until the snapshot shows ``want`` frames' content (cross-origin ones load late)."""
    for _ in range(200):
        snap = await tab.snapshot()
        documents = {e.frame_id for e in snap.id_map.values()}
        if len(documents) >= want:
            return
        await asyncio.sleep(0.05)


async def _run(rounds: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    import kobrowser
    from kobrowser.cdp import find_chrome

    chrome = find_chrome()
    times: dict[str, list[float]] = {}
    info: dict[str, Any] = {}
    recording = {"on": False}

    def record(name: str, seconds: float) -> None:
        if recording["on"]:
            times.setdefault(name, []).append(seconds)

    with PageServer(rows=300, frames=20) as server:
        async with (
            kobrowser.launch(executable_path=chrome, timeout=120) as kb,
            async_playwright() as p,
        ):
            pw = await p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
            try:
                load_before = load()
                for page_name in PAGES:
                    url = server.url(page_name)
                    tab = await kb.new_tab(url)
                    await _settle_frames(tab, 21 if page_name == "cross20" else 1)
                    snap = await tab.snapshot()
                    page = await pw.new_page(viewport={"width": 780, "height": 493})
                    await page.goto(url, wait_until="load")
                    # The first interactive element of the top document, for the element shot.
                    target = next(
                        e.id
                        for e in snap.id_map.values()
                        if e.role in ("textbox", "button", "iframe")
                        and e.frame_id == snap.nodes[0].frame_id
                    )
                    controls = page.locator("a, button, input")
                    count = await controls.count()
                    info[page_name] = {
                        "ids": len(snap.id_map),
                        "frames": len(snap._documents),
                        "controls": count,
                        "height": await tab.evaluate("document.documentElement.scrollHeight"),
                    }
                    locator = {"form": "input", "cross20": "iframe", "table": "button"}[page_name]

                    async def raw_capture(tab: Any = tab) -> None:
                        result = await tab.cdp.send("Page.captureScreenshot", {"format": "png"})
                        base64.b64decode(result["data"])

                    async def pw_boxes(controls: Any = controls) -> None:
                        for handle in (await controls.all())[:PW_BOXES]:
                            await handle.bounding_box()

                    steps: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
                        ("raw viewport", raw_capture),
                        ("kb viewport", lambda tab=tab: tab.screenshot()),
                        ("pw viewport", lambda page=page: page.screenshot()),
                        ("kb full", lambda tab=tab: tab.screenshot(full_page=True)),
                        ("pw full", lambda page=page: page.screenshot(full_page=True)),
                        ("kb element", lambda tab=tab, t=target: tab.screenshot(id=t)),
                        (
                            "pw element",
                            lambda page=page, sel=locator: page.locator(sel).first.screenshot(),
                        ),
                        ("kb annotated", lambda tab=tab: tab.screenshot(annotate=True)),
                        ("kb boxes", lambda snap=snap: snap.boxes()),
                        ("pw boxes", pw_boxes),
                        ("kb pdf", lambda tab=tab: tab.pdf()),
                        (
                            "pw pdf",  # kobrowser's defaults: A4 with backgrounds
                            lambda page=page: page.pdf(format="A4", print_background=True),
                        ),
                    ]
                    for i in range(rounds + 1):  # round 0 warms up
                        recording["on"] = i > 0
                        shift = i % len(steps)
                        for name, step in steps[shift:] + steps[:shift]:
                            await asyncio.sleep(PAUSE)
                            record(f"{page_name} {name}", await timed(step))
                    print(f"  {page_name} done", flush=True)
                    await tab.close()
                    await page.close()
                load_after = load()
            finally:
                await pw.close()
    return {"times": times, "rounds": rounds, "info": info, "load": (load_before, load_after)}


def _table(result: dict[str, Any]) -> str:
    t = result["times"]
    out = []
    for page_name in PAGES:
        info = result["info"][page_name]

        def row(label: str, kb: str, pw: str | None, page_name: str = page_name) -> str:
            return (
                f"| {label} | {median_ms(t.get(f'{page_name} {kb}', []))}"
                f" | {median_ms(t.get(f'{page_name} {pw}', [])) if pw else ''} |"
            )

        out.append(
            f"**{page_name}**: {info['ids']} snapshot ids in {info['frames']} frame(s), "
            f"{info['controls']} a/button/input in the top document, "
            f"{info['height']} CSS px tall.\n"
        )
        out.append("| step | kobrowser | Playwright |")
        out.append("|---|---:|---:|")
        out.append(
            row("raw CDP floor: one `Page.captureScreenshot` (viewport)", "raw viewport", None)
        )
        out.append(row("viewport screenshot", "kb viewport", "pw viewport"))
        out.append(row("full-page screenshot", "kb full", "pw full"))
        out.append(row("one element (id / locator)", "kb element", "pw element"))
        out.append(row("annotated viewport screenshot (ids drawn)", "kb annotated", None))
        out.append(
            row(
                f"boxes: `snap.boxes()` (every id, every frame) / `bounding_box()` of"
                f" {min(PW_BOXES, info['controls'])} controls one by one",
                "kb boxes",
                "pw boxes",
            )
        )
        out.append(row("PDF", "kb pdf", "pw pdf"))
        out.append("")
    return (
        f"Medians of {result['rounds']} interleaved rounds after a warm-up; viewport"
        " 780 x 493 on both sides. Load average (1 min) before/after:"
        f" {result['load'][0]:.1f} / {result['load'][1]:.1f} (shared machine: noisy).\n\n"
        + "\n".join(out)
        + "\nThe annotated screenshot is the viewport capture plus `snap.boxes()`"
        " (one `DOMSnapshot.captureSnapshot` per frame session, run at the same time)"
        " plus decoding, drawing and encoding the PNG with Pillow. Playwright has no"
        f" annotated screenshot; its boxes row asks for each control's box one by one"
        f" (top document only, at most {PW_BOXES}), kobrowser's covers every id of every"
        " frame in one batch."
    )


def run(quick: bool = False) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    return _table(asyncio.run(_run(2 if quick else 5)))


if __name__ == "__main__":
    print(run())
