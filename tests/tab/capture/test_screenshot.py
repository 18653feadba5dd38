"""Screenshots against real Chromium: sizes, annotations where the ids are, the
page left untouched, element captures and bad input.

A label's place is checked against the element's box as :meth:`Tab.box`
measures it (a script in the element's frame and in every frame above it, a
different path from the DOMSnapshot layout the annotation uses), and the
label's colour is looked for in the image's pixels at that place.
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from _server import PageServer
from PIL import Image

from kobrowser import (
    Browser,
    CaptureError,
    InvalidArgumentError,
    NoSnapshotError,
    StaleElementError,
    Tab,
    UnknownElementError,
)
from kobrowser._tab._capture._annotate import Label, color_of
from kobrowser._tab._capture._screenshot import screenshot as capture_screenshot

pytestmark = pytest.mark.anyio

INNER = (
    "<!doctype html><title>pay</title><body style='margin:0'>"
    "<h2 style='margin:0 0 40px'>Payment</h2>"
    "<button id=pay style='width:120px;height:40px'>Pay now</button>"
    "<div style='height:900px'></div><button>Deep</button></body>"
)


def _top(srv: PageServer) -> str:
    inner = srv.set_page("/cap-inner.html", INNER)
    frame = srv.cross_url("/cap-inner.html")
    assert inner.startswith("http://127.0.0.1")
    return srv.set_page(
        "/cap-top.html",
        "<!doctype html><title>Capture</title><body style='margin:8px'>"
        "<nav><a href='#a'>Home</a> <a href='#b'>Docs</a></nav>"
        "<h1>Checkout</h1>"
        "<button id=order style='width:160px;height:44px'>Place order</button>"
        "<input id=email aria-label=Email style='width:200px;height:30px'>"
        f"<iframe id=f style='border:6px solid #999;padding:5px;margin:20px' width=420 height=200 "
        f"src='{frame}'></iframe>"
        "<div id=box style='height:60px;overflow:auto'><p style='height:50px'>first</p>"
        "<button id=hidden style='height:30px'>In the scroller</button></div>"
        "<div style='height:1500px'></div>"
        "<button id=low style='width:150px;height:50px;background:rgb(10,200,30)'>Low</button>"
        "<div style='height:400px'></div></body>",
    )


@pytest.fixture
async def tab(browser: Browser, server: PageServer) -> AsyncIterator[Tab]:
    tab = await browser.new_tab()
    try:
        await tab.open(_top(server))
        await _wait_frame(tab)
        yield tab
    finally:
        await tab.close()


async def _wait_frame(tab: Tab) -> None:
    for _ in range(100):
        snap = await tab.snapshot()
        if any(e.name == "Pay now" for e in snap.id_map.values()):
            return
        import anyio

        await anyio.sleep(0.05)
    raise AssertionError("the cross-origin frame never showed its button")


def _id(tab: Tab, role: str, name: str) -> int:
    snap = tab.last_snapshot
    assert snap is not None
    found = [e.id for e in snap.id_map.values() if e.role == role and e.name == name]
    assert len(found) == 1, (role, name, found)
    return found[0]


def _image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


async def _view(tab: Tab) -> dict[str, Any]:
    raw = await tab.evaluate(
        "JSON.stringify({w: innerWidth, h: innerHeight, dpr: devicePixelRatio,"
        " sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight,"
        " x: scrollX, y: scrollY})"
    )
    data: dict[str, Any] = json.loads(raw)
    return data


def _share(
    image: Image.Image, rect: tuple[int, int, int, int], color: tuple[int, int, int]
) -> float:
    """The share of pixels of ``rect`` that have exactly ``color``."""
    raw = image.crop(rect).tobytes()  # RGB, 3 bytes a pixel
    want = bytes(color)
    total = len(raw) // 3
    return sum(1 for i in range(0, len(raw), 3) if raw[i : i + 3] == want) / max(1, total)


async def _check_label_inside(
    tab: Tab, labels: list[Label], plain: Image.Image, annotated: Image.Image, element_id: int
) -> None:
    label = next(lb for lb in labels if lb.id == element_id)
    scroll_before = await _view(tab)
    box = await tab.box(element_id)  # scrolls only when needed: the sampled ones are in view
    assert (await _view(tab))["y"] == scroll_before["y"]
    scale = scroll_before["dpr"]
    left, top, right, bottom = (v / scale for v in label.rect)
    # Inside the element's box (half a pixel of rounding allowed).
    assert box["x"] - 0.5 <= left and right <= box["x"] + box["width"] + 0.5, (label, box)
    assert box["y"] - 0.5 <= top and bottom <= box["y"] + box["height"] + 0.5, (label, box)
    # The label's colour fills its place in the annotated image, not in the plain one.
    color = color_of(element_id)
    assert label.color == color
    assert _share(annotated, label.rect, color) > 0.4
    assert _share(plain, label.rect, color) < 0.05


async def test_annotated_viewport_labels_sit_on_their_elements(tab: Tab) -> None:
    view = await _view(tab)
    labels: list[Label] = []
    plain = _image(await tab.screenshot())
    data = await capture_screenshot(tab, annotate=True, labels_out=labels)
    annotated = _image(data)
    assert (
        annotated.size
        == plain.size
        == (round(view["w"] * view["dpr"]), round(view["h"] * view["dpr"]))
    )
    ids = {label.id for label in labels}
    order = _id(tab, "button", "Place order")
    pay = _id(tab, "button", "Pay now")  # in the cross-origin iframe
    assert {order, pay, _id(tab, "textbox", "Email"), _id(tab, "iframe", "")} <= ids
    # Below the fold, below the frame's own viewport, scrolled away in a container: no label.
    assert _id(tab, "button", "Low") not in ids
    assert _id(tab, "button", "Deep") not in ids
    assert _id(tab, "button", "In the scroller") not in ids
    # No two labels share a pixel on this page (there is room for all of them).
    for a in labels:
        for b in labels:
            if a.id < b.id:
                assert not (
                    a.rect[0] < b.rect[2]
                    and b.rect[0] < a.rect[2]
                    and a.rect[1] < b.rect[3]
                    and b.rect[1] < a.rect[3]
                ), (a, b)
    for element_id in (order, pay):
        await _check_label_inside(tab, labels, plain, annotated, element_id)


async def test_annotated_after_scrolling_and_inside_a_scrolled_frame(tab: Tab) -> None:
    low = _id(tab, "button", "Low")
    pay = _id(tab, "button", "Pay now")
    deep = _id(tab, "button", "Deep")
    await tab.evaluate("document.getElementById('low').scrollIntoView({block: 'center'}); 1")
    assert (await _view(tab))["y"] > 500
    labels: list[Label] = []
    plain = _image(await tab.screenshot())
    annotated = _image(await capture_screenshot(tab, annotate=True, labels_out=labels))
    assert {lb.id for lb in labels} >= {low}
    assert pay not in {lb.id for lb in labels}
    await _check_label_inside(tab, labels, plain, annotated, low)
    # Scroll inside the cross-origin frame: its deep button comes into its view.
    frames = tab._frames.frames()
    assert len(frames) == 1
    await tab.evaluate("document.getElementById('f').scrollIntoView({block: 'start'}); 1")
    await frames[0].session.send(
        "Runtime.evaluate", {"expression": "window.scrollTo(0, document.body.scrollHeight)"}
    )
    labels = []
    plain = _image(await tab.screenshot())
    annotated = _image(await capture_screenshot(tab, annotate=True, labels_out=labels))
    shown = {lb.id for lb in labels}
    assert deep in shown and pay not in shown
    await _check_label_inside(tab, labels, plain, annotated, deep)


async def test_full_page_annotated_matches_the_page_size(tab: Tab, tmp_path: Path) -> None:
    view = await _view(tab)
    target = tmp_path / "full.png"
    labels: list[Label] = []
    data = await capture_screenshot(tab, target, full_page=True, annotate=True, labels_out=labels)
    assert target.read_bytes() == data
    image = _image(data)
    assert image.size == (round(view["sw"] * view["dpr"]), round(view["sh"] * view["dpr"]))
    # Below the fold is in a full-page capture.
    low = _id(tab, "button", "Low")
    label = next(lb for lb in labels if lb.id == low)
    assert _share(image, label.rect, color_of(low)) > 0.4
    # The plain full page is the same size.
    plain = _image(await tab.screenshot(full_page=True))
    assert plain.size == image.size
    # The button's green shows where the geometry put it.
    left, _top, right, bottom = label.outline
    assert plain.getpixel(((left + right) // 2, bottom - 6)) == (10, 200, 30)


async def test_the_page_is_left_exactly_as_it_was(tab: Tab) -> None:
    frames = tab._frames.frames()
    assert len(frames) == 1
    frame_session = frames[0].session
    watch = (
        "(() => { window.__seen = {mutations: 0, scrolls: 0, focus: 0, resizes: 0};"
        " new MutationObserver(r => { window.__seen.mutations += r.length; })"
        "   .observe(document, {subtree: true, childList: true, attributes: true,"
        "                       characterData: true});"
        " addEventListener('scroll', () => window.__seen.scrolls++, true);"
        " addEventListener('resize', () => window.__seen.resizes++, true);"
        " for (const t of ['focus', 'blur', 'focusin', 'focusout'])"
        "   addEventListener(t, () => window.__seen.focus++, true);"
        " return 1; })()"
    )
    state = (
        "JSON.stringify({html: document.documentElement.outerHTML,"
        " count: document.getElementsByTagName('*').length, x: scrollX, y: scrollY,"
        " active: document.activeElement && document.activeElement.id,"
        " inner: document.getElementById('box') && document.getElementById('box').scrollTop,"
        " seen: window.__seen})"
    )
    settle = "new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))"
    await tab.evaluate("document.getElementById('email').focus(); window.scrollTo(0, 40); 1")
    await frame_session.send("Runtime.evaluate", {"expression": "window.scrollTo(0, 30)"})
    await tab.evaluate(settle)
    await tab.evaluate(watch)
    await frame_session.send("Runtime.evaluate", {"expression": watch})

    async def states() -> tuple[Any, Any]:
        await tab.evaluate(settle)
        result = await frame_session.send(
            "Runtime.evaluate", {"expression": state, "returnByValue": True}
        )
        return json.loads(await tab.evaluate(state)), json.loads(result["result"]["value"])

    top_before, frame_before = await states()
    assert top_before["y"] == 40 and top_before["active"] == "email"
    assert frame_before["y"] == 30
    quiet = {"mutations": 0, "scrolls": 0, "focus": 0, "resizes": 0}
    # Within the viewport: not a single event reaches the page.
    await tab.screenshot(annotate=True)
    await tab.screenshot(id=_id(tab, "button", "Place order"))
    await tab.screenshot(id=_id(tab, "button", "Pay now"), annotate=True)
    await (tab.last_snapshot or pytest.fail("no snapshot")).boxes()
    await tab.pdf()
    top_after, frame_after = await states()
    assert (top_after, frame_after) == (top_before, frame_before)
    assert top_after["seen"] == frame_after["seen"] == quiet
    # Beyond the viewport Chrome lays the page out taller for a moment (resize
    # and scroll events fire), but DOM, scroll positions and focus stay.
    await tab.screenshot(full_page=True, annotate=True)
    await tab.screenshot(id=_id(tab, "button", "Low"))
    top_after, frame_after = await states()
    for before, after in ((top_before, top_after), (frame_before, frame_after)):
        assert {k: v for k, v in after.items() if k != "seen"} == {
            k: v for k, v in before.items() if k != "seen"
        }
        assert after["seen"]["mutations"] == after["seen"]["focus"] == 0


async def test_element_screenshot(tab: Tab, tmp_path: Path) -> None:
    view = await _view(tab)
    low = _id(tab, "button", "Low")
    data = await tab.screenshot(tmp_path / "low.png", id=low)
    image = _image(data)
    assert image.size == (round(150 * view["dpr"]), round(50 * view["dpr"]))
    assert _share(image, (0, 0, *image.size), (10, 200, 30)) > 0.5
    assert (await _view(tab))["y"] == view["y"]  # captured below the fold, nothing scrolled
    # An element of the cross-origin frame, in JPEG.
    pay = _id(tab, "button", "Pay now")
    jpeg = await tab.screenshot(id=pay, format="jpeg", quality=80)
    assert jpeg[:3] == b"\xff\xd8\xff"
    assert _image(jpeg).size == (round(120 * view["dpr"]), round(40 * view["dpr"]))
    webp = await tab.screenshot(tmp_path / "x.webp")
    assert webp[:4] == b"RIFF" and webp[8:12] == b"WEBP"


async def test_element_screenshot_errors(tab: Tab) -> None:
    scroller = _id(tab, "button", "In the scroller")
    with pytest.raises(CaptureError, match=f"element {scroller} .* not visible"):
        await tab.screenshot(id=scroller)
    with pytest.raises(UnknownElementError, match="no element 999"):
        await tab.screenshot(id=999)
    order = _id(tab, "button", "Place order")
    await tab.evaluate("document.getElementById('order').style.display = 'none'; 1")
    with pytest.raises((CaptureError, StaleElementError), match=f"element {order}"):
        await tab.screenshot(id=order)
    await tab.evaluate("document.getElementById('order').remove(); 1")
    with pytest.raises(StaleElementError, match=f"element {order}"):
        await tab.screenshot(id=order)


async def test_bad_arguments(tab: Tab) -> None:
    with pytest.raises(InvalidArgumentError, match="format: got 'gif'; expected 'png', 'jpeg'"):
        await tab.screenshot(format="gif")
    with pytest.raises(InvalidArgumentError, match="quality applies to JPEG and WebP"):
        await tab.screenshot(quality=50)
    with pytest.raises(InvalidArgumentError, match="quality: got 101"):
        await tab.screenshot(format="jpeg", quality=101)
    with pytest.raises(InvalidArgumentError, match="cannot be combined"):
        await tab.screenshot(full_page=True, id=1)
    with pytest.raises(InvalidArgumentError, match="id: got 0"):
        await tab.screenshot(id=0)
    with pytest.raises(InvalidArgumentError, match="full_page: got 'yes'"):
        await tab.screenshot(full_page="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="timeout: got -1"):
        await tab.screenshot(timeout=-1)
    with pytest.raises(InvalidArgumentError, match="path: got ''"):
        await tab.screenshot("")
    with pytest.raises(CaptureError, match="cannot write the screenshot"):
        await tab.screenshot("/nonexistent-dir/x/shot.png")
    snap = tab.last_snapshot
    assert snap is not None
    with pytest.raises(InvalidArgumentError, match="timeout: got nan"):
        await snap.boxes(timeout=float("nan"))


async def test_annotate_needs_a_snapshot(browser: Browser, server: PageServer) -> None:
    fresh = await browser.new_tab(server.set_page("/cap-fresh.html", "<button>b</button>"))
    try:
        with pytest.raises(NoSnapshotError, match="take a snapshot first"):
            await fresh.screenshot(annotate=True)
        with pytest.raises(NoSnapshotError):
            await fresh.screenshot(id=1)
        assert (await fresh.screenshot())[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        await fresh.close()


async def test_boxes_are_batched_and_match_tab_box(tab: Tab) -> None:
    snap = tab.last_snapshot
    assert snap is not None
    boxes = await snap.boxes()
    order = _id(tab, "button", "Place order")
    pay = _id(tab, "button", "Pay now")
    for element_id in (order, pay):
        got = boxes[element_id]
        want = await tab.box(element_id)
        assert got.id == element_id
        assert abs(got.x - want["x"]) < 0.6 and abs(got.y - want["y"]) < 0.6, (got, want)
        assert abs(got.width - want["width"]) < 0.6 and abs(got.height - want["height"]) < 0.6
        assert got.visible is not None
    assert boxes[_id(tab, "button", "Low")].visible is None
    assert boxes[_id(tab, "button", "In the scroller")].visible is None
    # One DOMSnapshot call per frame session, whatever the number of elements.
    calls: list[str] = []
    sessions = {e.session for e in snap.id_map.values()}
    originals = {}
    for session in sessions:
        original = session.send_raw
        originals[session] = original

        async def spy(method: str, *args: Any, _o: Any = original, **kwargs: Any) -> Any:
            calls.append(method)
            return await _o(method, *args, **kwargs)

        session.send_raw = spy  # type: ignore[method-assign]
    try:
        await snap.boxes()
    finally:
        for session, original in originals.items():
            session.send_raw = original  # type: ignore[method-assign]
    assert calls.count("DOMSnapshot.captureSnapshot") == len(sessions) == 2
    assert len(snap.id_map) > 10


async def test_annotated_at_device_scale_factor_two(browser: Browser, server: PageServer) -> None:
    # Two image pixels per CSS pixel: labels and outlines scale with the image.
    context = await browser.new_context(viewport=(600, 400), device_scale_factor=2)
    try:
        tab = await context.new_tab(_top(server))
        await _wait_frame(tab)
        labels: list[Label] = []
        plain = _image(await tab.screenshot())
        annotated = _image(await capture_screenshot(tab, annotate=True, labels_out=labels))
        assert plain.size == annotated.size == (1200, 800)
        for element_id in (_id(tab, "button", "Place order"), _id(tab, "button", "Pay now")):
            await _check_label_inside(tab, labels, plain, annotated, element_id)
        order = next(lb for lb in labels if lb.id == _id(tab, "button", "Place order"))
        # The 160 x 44 CSS px button is outlined at 320 x 88 image pixels.
        left, top, right, bottom = order.outline
        assert abs((right - left) - 320) <= 2 and abs((bottom - top) - 88) <= 2
    finally:
        await context.close()
