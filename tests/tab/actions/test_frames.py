"""Every action on every kind of placement: plain page, same-origin iframe,
cross-origin (out-of-process) iframe, three nested iframes of alternating
origins, and open shadow DOM.

The page logs the events it gets (see ``_pages.RECORDER``); the log is read
back in the element's own frame. Pointer events must be trusted, come in
the order a real mouse makes them, and land inside the element.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from kobrowser import NotInteractableError, Tab, WrongElementKindError
from kobrowser._tab import _pointer
from kobrowser._tab._snapshot import Element, Snapshot

from ._pages import CONTEXTS, clear_log, eval_in, find, iframe, read_log, widgets_url

pytestmark = pytest.mark.anyio

CLICK_ORDER = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]
MOUSE_TYPES = (*CLICK_ORDER, "dblclick", "auxclick", "contextmenu")


@pytest.fixture(params=CONTEXTS)
async def ctx(
    request: pytest.FixtureRequest, open_tab: Any, page_url: Any
) -> AsyncIterator[tuple[Tab, Snapshot]]:
    async with open_tab(widgets_url(page_url, request.param)) as tab:
        snap = await tab.snapshot()
        yield tab, snap


def inside(event: dict[str, Any]) -> bool:
    r = event["rect"]
    return bool(r["left"] <= event["x"] <= r["right"] and r["top"] <= event["y"] <= r["bottom"])


async def assert_clicked(element: Element, dom_id: str, *, count: int = 1) -> list[dict[str, Any]]:
    """``dom_id`` got ``count`` trusted clicks in real-mouse order, inside its box, and
    no other element got any mouse button event."""
    log = await read_log(element, *MOUSE_TYPES)
    assert log, "no mouse events reached the page"
    assert {e["target"] for e in log} == {dom_id}, log
    assert all(e["trusted"] for e in log), log
    assert [e["type"] for e in log if e["type"] in CLICK_ORDER] == CLICK_ORDER * count
    assert all(inside(e) for e in log), log
    return log


async def assert_mouse_in_box(tab: Tab, element: Element) -> None:
    """The last mouse position (top-page pixels) is inside the element's top-page box."""
    box = await tab.box(element.id)
    x, y = tab._mouse.x, tab._mouse.y
    assert box["x"] <= x <= box["x"] + box["width"], (x, box)
    assert box["y"] <= y <= box["y"] + box["height"], (y, box)


async def js(element: Element, expression: str) -> Any:
    """Evaluate ``expression`` with ``el`` = the element, ``win`` = its window."""
    return await eval_in(
        element,
        "function() { const el = this; const win = el.ownerDocument.defaultView; "
        f"return ({expression}); }}",
    )


async def test_click(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    button = find(snap, "button", "Press me")
    await tab.click(button.id)
    await assert_clicked(button, "btn")
    await assert_mouse_in_box(tab, button)


async def test_double_right_and_modified_clicks(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    button = find(snap, "button", "Press me")

    await tab.dblclick(button.id)
    log = await assert_clicked(button, "btn", count=2)
    assert [e["detail"] for e in log if e["type"] == "click"] == [1, 2]
    assert [e["type"] for e in log if e["type"] == "dblclick"] == ["dblclick"]

    await clear_log(button)
    await tab.click(button.id, button="right")
    log = await read_log(button, *MOUSE_TYPES)
    assert [(e["type"], e["button"]) for e in log] == [
        ("pointerdown", 2),
        ("mousedown", 2),
        ("contextmenu", 2),
        ("pointerup", 2),
        ("mouseup", 2),
        ("auxclick", 2),
    ]
    assert all(e["trusted"] and e["target"] == "btn" and inside(e) for e in log), log

    await clear_log(button)
    await tab.click(button.id, modifiers=["Shift"])
    log = await assert_clicked(button, "btn")
    assert all(e["shift"] and not e["ctrl"] for e in log if e["type"] != "pointerdown"), log


async def test_hover(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    target = find(snap, "button", "Hover me")
    await tab.hover(target.id)
    # A move has no reply from an out-of-process frame's renderer: the event
    # may still be on its way when hover() returns, so poll (bounded).
    for _ in range(100):
        log = await read_log(target, "mouseover", *MOUSE_TYPES)
        if any(e["target"] == "hover" for e in log):
            break
        await anyio.sleep(0.05)
    overs = [e for e in log if e["target"] == "hover"]
    assert [e["type"] for e in overs] == ["mouseover"]
    assert overs[0]["trusted"] and inside(overs[0])
    assert not [e for e in log if e["type"] != "mouseover"], "hover pressed a button"
    assert await js(target, "el.matches(':hover')") is True


def _moves_unseen(monkeypatch: pytest.MonkeyPatch, tab: Tab, unseen: int) -> list[Any]:
    """Make the first ``unseen`` hover reads report that the frame saw no move.

    As when Chrome routes a move to the page because an out-of-process
    frame's input routing is not ready. Returns the list of hover reads.
    """
    original = _pointer._read_guards
    reads: list[Any] = []

    async def read_guards(target: Any, deadline: float, **kw: Any) -> Any:
        got = await original(target, deadline, **kw)
        if kw.get("wait") == {"mousemove": 1}:
            reads.append(got)
            if got is not None and len(reads) <= unseen:
                return got._replace(moves=0)
        return got

    monkeypatch.setattr(_pointer, "_read_guards", read_guards)
    return reads


async def test_hover_moves_again_until_the_frame_sees_the_pointer(
    ctx: tuple[Tab, Snapshot], monkeypatch: pytest.MonkeyPatch
) -> None:
    tab, snap = ctx
    target = find(snap, "button", "Hover me")
    reads = _moves_unseen(monkeypatch, tab, unseen=1)
    await tab.hover(target.id)
    # The move after the hidden one reached the frame (unless Chrome really
    # routed it elsewhere too: then hover moved once more).
    assert len(reads) >= 2 and reads[-1].moves > 0, reads
    assert all(r.moves == 0 for r in reads[1:-1]), reads
    assert await js(target, "el.matches(':hover')") is True


async def test_hover_gives_up_when_the_frame_never_sees_the_pointer(
    ctx: tuple[Tab, Snapshot], monkeypatch: pytest.MonkeyPatch
) -> None:
    tab, snap = ctx
    target = find(snap, "button", "Hover me")
    reads = _moves_unseen(monkeypatch, tab, unseen=99)
    with pytest.raises(NotInteractableError) as info:
        await tab.hover(target.id)
    assert len(reads) == 3
    assert info.value.element_id == target.id
    assert "never received the pointer" in str(info.value)


def _first_read_misrouted(
    monkeypatch: pytest.MonkeyPatch, wait: dict[str, int], *, misrouted: int
) -> list[tuple[Any, bool]]:
    """Make the first clean guard read that waits for ``wait`` report that no
    press reached the element and ``misrouted`` events went to a parent frame.

    As when Chrome routes the input to the page because an out-of-process
    frame's input routing is not ready. That also happens for real right
    after a page loads: a read Chrome really misrouted is passed on as it is
    (the action sends its input again), and the next clean one is changed.
    Returns ``(read, changed)`` for each of those reads.
    """
    original = _pointer._read_guards
    reads: list[tuple[Any, bool]] = []

    async def read_guards(target: Any, deadline: float, **kw: Any) -> Any:
        got = await original(target, deadline, **kw)
        if kw.get("wait") != wait:
            return got
        clean = got is not None and (got.pressed, got.blocked, got.misrouted) == (1, 0, 0)
        if clean and not any(changed for _, changed in reads):
            reads.append((got, True))
            return got._replace(ok=0, pressed=0, misrouted=misrouted)
        assert got is not None and (clean or got.misrouted), got
        reads.append((got, False))
        return got

    monkeypatch.setattr(_pointer, "_read_guards", read_guards)
    return reads


def assert_sent_again_once(reads: list[tuple[Any, bool]]) -> None:
    """The changed read came once and the input sent after it reached the element."""
    assert [changed for _, changed in reads[-2:]] == [True, False], reads
    assert sum(changed for _, changed in reads) == 1, reads
    last = reads[-1][0]
    assert (last.pressed, last.blocked, last.misrouted) == (1, 0, 0), reads


async def test_click_presses_again_when_chrome_routed_it_to_the_parent(
    ctx: tuple[Tab, Snapshot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click that a frame on the way got on its ``<iframe>`` (Chrome routed it
    there: an out-of-process frame's input routing not ready) never reached the
    element, so the click is sent again instead of reported as done."""
    tab, snap = ctx
    button = find(snap, "button", "Press me")
    reads = _first_read_misrouted(monkeypatch, {"pointerup": 1}, misrouted=5)
    await tab.click(button.id)
    assert_sent_again_once(reads)
    # The page really got the first click here, so it saw two whole clicks.
    await assert_clicked(button, "btn", count=2)


# A button that a cover jumps over when the mouse first arrives (after the
# click's hit test) and that leaves as it is pressed: the press lands on the
# cover and the release on the button. The page's own capture listeners run
# before kobrowser's guard, so they count what really happened.
SPRUNG = """
<p>Before</p><button id="sprung" style="margin:20px">Sprung</button>
<div id="cover" style="position:fixed;display:none;background:#f00"></div>
<script>
window.__covered = 0; window.__coverPresses = 0;
const b = document.getElementById('sprung'), c = document.getElementById('cover');
addEventListener('mousemove', (e) => {
  if (!e.isTrusted || window.__covered) return;
  window.__covered = 1;
  const r = b.getBoundingClientRect();
  Object.assign(c.style, {display: 'block', left: r.left - 5 + 'px', top: r.top - 5 + 'px',
    width: r.width + 10 + 'px', height: r.height + 10 + 'px'});
}, true);
addEventListener('pointerdown', (e) => {
  if (e.target === c) { window.__coverPresses++; c.remove(); }
}, true);
</script>
"""

# A button whose press throws a cover over it: the release lands on the cover.
TRAP = """
<p>Before</p><button id="trap" style="margin:20px">Trap</button>
<div id="cover" style="position:fixed;display:none;background:#f00"></div>
<script>
const b = document.getElementById('trap'), c = document.getElementById('cover');
b.addEventListener('pointerdown', () => {
  const r = b.getBoundingClientRect();
  Object.assign(c.style, {display: 'block', left: r.left - 5 + 'px', top: r.top - 5 + 'px',
    width: r.width + 10 + 'px', height: r.height + 10 + 'px'});
});
</script>
"""


def _placed(page_url: Any, body: str, where: str) -> str:
    if where == "plain":
        return str(page_url(body))
    inner = page_url(body, cross=True)
    return str(page_url(iframe(inner, 400, 200, "Frame")))


@pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])
async def test_click_whose_press_landed_elsewhere_is_sent_again_whole(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """No part of a click whose press went to another element reaches the page;
    the click is sent again and the element gets exactly one whole click."""
    async with open_tab(_placed(page_url, SPRUNG, where)) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Sprung")
        await tab.click(button.id)
        assert await js(button, "[win.__covered, win.__coverPresses]") == [1, 1]
        await assert_clicked(button, "sprung")


@pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])
async def test_click_whose_release_went_elsewhere_is_not_sent_again(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """The element was pressed, then the page covered it: the page received the
    click, so it succeeds (never reported failed), is not sent again (the
    element saw exactly one press), and its release goes where a real mouse's
    would, onto the cover."""
    async with open_tab(_placed(page_url, TRAP, where)) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Trap")
        await tab.click(button.id)
        log = await read_log(button, *MOUSE_TYPES)
        assert [(e["type"], e["target"]) for e in log] == [
            ("pointerdown", "trap"),
            ("mousedown", "trap"),
            ("pointerup", "cover"),
            ("mouseup", "cover"),
            ("click", ""),  # on what holds both: the body, which has no id
        ]


LABELS = """
<label for="agree" id="lab">Agree to the terms</label> <input type="checkbox" id="agree"
  aria-label="Agree"><br>
<label id="wrap"><input type="checkbox" id="news">Send news</label>
<script>
window.__changes = [];
addEventListener('change', (e) => window.__changes.push(e.target.id), true);
</script>
"""


# A button in a frame the page covers: a click on it fails after its own
# frame's guard was armed (the frame is covered only in the page above).
COVERED_FRAME = """
<iframe title="Frame" src="SRC" style="width:300px;height:120px"></iframe>
<div style="position:absolute;left:0;top:0;width:400px;height:200px;background:#fff"></div>
"""


async def test_a_guard_left_by_a_failed_click_lets_keyboard_clicks_through(
    open_tab: Any, page_url: Any
) -> None:
    """Enter on a focused button clicks it (a click with detail 0), even right after
    a click that failed and left its frame's guard armed."""
    inner = page_url('<button id="btn">Press me</button>', cross=True)
    async with open_tab(str(page_url(COVERED_FRAME.replace("SRC", inner)))) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Press me")
        with pytest.raises(NotInteractableError, match="covered"):
            await tab.click(button.id, timeout=1)
        armed = "win.__koGuard !== null && win.__koGuard !== undefined"
        assert await js(button, armed) is True  # the frame's guard is still armed
        await tab.focus(button.id)
        await tab.press("Enter")
        clicks = await read_log(button, "click")
        assert [(e["target"], e["detail"], e["trusted"]) for e in clicks] == [("btn", 0, True)]


@pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])
async def test_click_on_a_label_reaches_its_control(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """A label passes its click on to its control; the guard lets that through
    (once), so clicking a label's text ticks the box exactly once."""
    async with open_tab(_placed(page_url, LABELS, where)) as tab:
        snap = await tab.snapshot()
        label = find(snap, "text", "Agree to the terms")
        await tab.click(label.id)
        assert await js(label, "[win.document.getElementById('agree').checked, win.__changes]") == [
            True,
            ["agree"],
        ]
        news = find(snap, "checkbox", "Send news")
        await tab.click(news.id)
        assert await js(news, "[el.checked, win.__changes]") == [True, ["agree", "news"]]


CAPTURED = """
<div id="track" style="position:relative;width:300px;height:30px;background:#ddd">
  <div id="thumb" role="slider" aria-label="Volume" aria-valuenow="5" tabindex="0"
    style="position:absolute;left:10px;top:0;width:30px;height:30px;background:#333"></div>
</div>
<script>
window.__track = [];
const track = document.getElementById('track');
track.addEventListener('pointerdown', (e) => track.setPointerCapture(e.pointerId));
for (const t of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'])
  track.addEventListener(t, (e) => window.__track.push(t + ':' + e.target.id));
</script>
"""


@pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])
async def test_click_whose_press_captured_the_pointer_on_an_ancestor(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """A page that captures the pointer on an ancestor when the element is
    pressed (a slider's track) gets the release there, as from a real mouse:
    the guard lets it through instead of failing the click."""
    async with open_tab(_placed(page_url, CAPTURED, where)) as tab:
        snap = await tab.snapshot()
        thumb = find(snap, "slider", "Volume")
        await tab.click(thumb.id)
        one = ["pointerdown:thumb", "mousedown:thumb", "pointerup:track", "mouseup:track"]
        assert await js(thumb, "win.__track") == [*one, "click:track"]
        await js(thumb, "win.__track = []")
        await tab.dblclick(thumb.id)
        assert await js(thumb, "win.__track") == [*one, "click:track", *one, "click:track"]


PICKED_ON_PRESS = """
<button id="under" style="position:absolute;left:10px;top:40px;width:200px;height:60px"
  onclick="window.__under++">Underneath</button>
<div id="menu" role="listbox" aria-label="Fruit"
  style="position:absolute;left:10px;top:40px;width:200px;background:#fff">
  <div role="option" id="apple" style="height:60px" aria-selected="false">Apple</div>
</div>
<script>
window.__under = 0; window.__picked = [];
// As many dropdowns do: pick on the press (before the field's blur), close the menu.
document.getElementById('apple').addEventListener('mousedown', (e) => {
  window.__picked.push(e.target.id);
  const menu = document.getElementById('menu');
  if (location.hash === '#hide') menu.style.display = 'none'; else menu.remove();
});
</script>
"""


@pytest.mark.parametrize("how", ["remove", "hide"])
@pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])
async def test_click_whose_press_removed_the_element_is_done(
    open_tab: Any, page_url: Any, where: str, how: str
) -> None:
    """A page that acts on the press and removes (or hides) the element (a
    dropdown that picks on mousedown and closes) got the click: it succeeds,
    and the rest of it, which would land on what lay beneath, stays blocked."""
    url = page_url(PICKED_ON_PRESS, cross=where != "plain") + f"#{how}"
    if where != "plain":
        url = page_url(iframe(url, 400, 200, "Frame"))
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        apple = find(snap, "option", "Apple")
        await tab.click(apple.id)
        assert await js(apple, "[win.__picked, win.__under]") == [["apple"], 0]


STOPPED_PRESS = """
<button id="stopped">Stopped</button>
<script>
window.__clicks = 0;
// A listener on the window that runs before kobrowser's guard swallows presses.
for (const t of ['pointerdown', 'mousedown'])
  addEventListener(t, (e) => e.stopImmediatePropagation(), true);
document.getElementById('stopped').addEventListener('click', () => window.__clicks++);
</script>
"""


async def test_click_whose_press_the_page_stopped_first(open_tab: Any, page_url: Any) -> None:
    """In the top frame, a press the guard never saw was swallowed by the page
    (a window listener registered first), as it would be for a real mouse:
    the rest of the click goes through, once, instead of being blocked and
    sent again until it fails."""
    async with open_tab(page_url(STOPPED_PRESS)) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Stopped")
        await tab.click(button.id)
        assert await js(button, "win.__clicks") == 1


SHADOW_LABEL = """
<label for="terms"><fancy-text></fancy-text></label>
<input type="checkbox" id="terms" aria-label="Terms">
<script>
customElements.define('fancy-text', class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({mode: 'open'}).innerHTML = '<b>Accept the terms</b>';
  }
});
window.__changes = [];
addEventListener('change', (e) => window.__changes.push(e.target.id), true);
</script>
"""


@pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])
async def test_click_on_label_text_inside_a_shadow_root(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """The label's text sits in a component's shadow root: the label still
    passes the click on to its control, which the guard lets through."""
    async with open_tab(_placed(page_url, SHADOW_LABEL, where)) as tab:
        snap = await tab.snapshot()
        text = find(snap, "text", "Accept the terms")
        await tab.click(text.id)
        assert await js(text, "[win.document.getElementById('terms').checked, win.__changes]") == [
            True,
            ["terms"],
        ]


# The same trap on text whose element has no box of its own (display: contents).
TRAP_CONTENTS = TRAP.replace(
    '<button id="trap" style="margin:20px">Trap</button>',
    '<div style="margin:20px"><span id="trap" style="display:contents">Trap text</span></div>',
).replace("b.getBoundingClientRect()", "b.parentElement.getBoundingClientRect()")


async def test_release_elsewhere_on_an_element_without_a_box_is_received_once(
    open_tab: Any, page_url: Any
) -> None:
    """An element with no box of its own (display: contents), covered in answer
    to its press: the click succeeds and the element saw exactly one press."""
    async with open_tab(page_url(TRAP_CONTENTS)) as tab:
        snap = await tab.snapshot()
        text = find(snap, "text", "Trap text")
        await tab.click(text.id)
        log = await read_log(text, "pointerdown", "mousedown")
        assert [(e["type"], e["target"]) for e in log] == [
            ("pointerdown", "trap"),
            ("mousedown", "trap"),
        ]


async def test_pointer_drag(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    handle, zone = find(snap, "button", "Handle"), find(snap, "region", "Zone")
    await tab.drag(handle.id, zone.id)
    assert await js(zone, "el.dataset.dropped || null") == "pointer"
    downs = await read_log(handle, "pointerdown")
    assert [e["target"] for e in downs] == ["handle"]
    assert downs[0]["trusted"] and inside(downs[0])


async def test_drag_presses_again_when_chrome_routed_the_press_elsewhere(
    ctx: tuple[Tab, Snapshot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A press that never reached the drag's source (routed to a parent frame)
    is released and sent again; the drag then happens."""
    tab, snap = ctx
    handle, zone = find(snap, "button", "Handle"), find(snap, "region", "Zone")
    reads = _first_read_misrouted(monkeypatch, {"pointerdown": 1}, misrouted=2)
    await tab.drag(handle.id, zone.id)
    assert_sent_again_once(reads)
    assert await js(zone, "el.dataset.dropped || null") == "pointer"


async def test_html5_drag(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    source, zone = find(snap, "button", "Draggable"), find(snap, "region", "Drop here")
    await tab.drag(source.id, zone.id)
    assert await js(zone, "el.dataset.dropped || null") == "payload"
    log = await read_log(zone, "dragstart", "drop")
    assert [(e["type"], e["target"]) for e in log] == [("dragstart", "src5"), ("drop", "zone5")]


async def test_scroll_into_view(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    far = find(snap, "button", "Far away")
    in_view = (
        "(() => { const r = el.getBoundingClientRect(); "
        "return r.top >= 0 && r.bottom <= win.innerHeight; })()"
    )
    assert await js(far, in_view) is False
    await tab.scroll_into_view(far.id)
    assert await js(far, in_view) is True
    await tab.click(far.id)
    await assert_clicked(far, "far")


@pytest.mark.parametrize(("context", "hops"), [("cross-origin-frame", 1), ("nested-3-frames", 3)])
async def test_focus_waits_until_each_parent_process_knows(
    open_tab: Any, page_url: Any, monkeypatch: pytest.MonkeyPatch, context: str, hops: int
) -> None:
    """Keys go where the browser believes the focus is: focus (and fill, type)
    return once every parent document in another process shows the frame's
    <iframe> as its active element, which it learns from the browser."""
    from kobrowser._tab import _forms, _scripts

    seen: list[Any] = []
    original = _forms.call

    async def spy(session: Any, object_id: str, function: str, *args: Any, **kw: Any) -> Any:
        got = await original(session, object_id, function, *args, **kw)
        if function == _scripts.FRAME_FOCUSED:
            seen.append(got)
        return got

    monkeypatch.setattr(_forms, "call", spy)
    async with open_tab(widgets_url(page_url, context)) as tab:
        snap = await tab.snapshot()
        query = find(snap, "textbox", "Query")
        await tab.focus(query.id)
        assert seen == [True] * hops
        assert await tab.evaluate("document.activeElement.tagName") == "IFRAME"
        await tab.press("x")
        assert await tab.value(query.id) == "xold text"  # the key reached the field
        await tab.fill(query.id, "v")
        assert seen == [True] * hops * 2


async def test_fill_type_and_press(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    query = find(snap, "textbox", "Query")
    await tab.fill(query.id, "new value")
    assert await tab.value(query.id) == "new value"
    inputs = await read_log(query, "input")
    assert inputs and all(e["trusted"] and e["target"] == "text" for e in inputs)

    await tab.press("Control+a")  # fill left the focus in the field
    await tab.type(query.id, "Hi!")
    assert await tab.value(query.id) == "Hi!"  # typing replaced the selection
    await tab.type(query.id, " there")
    assert await tab.value(query.id) == "Hi! there"  # and now appends at the caret

    await tab.focus(query.id)
    await tab.press("Control+a")
    await tab.press("x")
    assert await tab.value(query.id) == "x"

    await clear_log(query)
    await tab.type(query.id, "Ab")
    keys = await read_log(query, "keydown", "keyup")
    assert [(e["type"], e["key"]) for e in keys] == [
        ("keydown", "Shift"),
        ("keydown", "A"),
        ("keyup", "A"),
        ("keyup", "Shift"),
        ("keydown", "b"),
        ("keyup", "b"),
    ]
    assert all(e["trusted"] and e["target"] == "text" for e in keys)
    assert [e["shift"] for e in keys] == [True, True, True, False, False, False]

    await tab.press("Enter")
    assert await js(query, "win.__submits") == [{"target": "form", "trusted": True}]
    assert await tab.value(query.id) == "xAb"


async def test_fill_textarea_and_contenteditable(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    notes, editor = find(snap, "textbox", "Notes"), find(snap, "textbox", "Editor")
    await tab.fill(notes.id, "line one\nline two")
    assert await tab.value(notes.id) == "line one\nline two"
    await tab.fill(editor.id, "rich text")
    assert await js(editor, "el.textContent") == "rich text"
    assert await tab.value(editor.id) == "rich text"
    await tab.fill(notes.id, "")
    assert await tab.value(notes.id) == ""


async def test_select(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    color, sizes = find(snap, "combobox", "Color"), find(snap, "listbox", "Sizes")
    await tab.select(color.id, "Green")
    assert await tab.value(color.id) == "g"
    await tab.select(color.id, "b")
    assert await tab.value(color.id) == "b"
    assert await js(color, "win.__changes") == ["sel", "sel"]
    await tab.select(sizes.id, "Small", "l")
    assert await js(sizes, "[...el.selectedOptions].map((o) => o.value)") == ["s", "l"]
    with pytest.raises(ValueError, match="Purple"):
        await tab.select(color.id, "Purple")
    with pytest.raises(ValueError, match="only one"):
        await tab.select(color.id, "r", "g")


async def test_check_uncheck(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    box = find(snap, "checkbox", "Agree")
    assert await tab.is_checked(box.id) is False
    await tab.check(box.id)
    assert await tab.is_checked(box.id) is True
    await tab.check(box.id)  # idempotent
    assert await tab.is_checked(box.id) is True
    clicks = await read_log(box, "click")
    assert [(e["target"], e["trusted"]) for e in clicks] == [("cb", True)]
    await tab.uncheck(box.id)
    await tab.uncheck(box.id)
    assert await tab.is_checked(box.id) is False
    assert len(await read_log(box, "click")) == 2
    with pytest.raises(WrongElementKindError):
        await tab.check(find(snap, "button", "Press me").id)


async def test_upload(ctx: tuple[Tab, Snapshot], tmp_path: Path) -> None:
    tab, snap = ctx
    first, second = tmp_path / "a.txt", tmp_path / "b.csv"
    first.write_text("hello from a")
    second.write_text("x,y\n1,2\n")
    attachment = find(snap, "button", "Attachment")
    await tab.upload(attachment.id, first, str(second))
    files = None
    for _ in range(100):
        files = await js(attachment, "win.__files")
        if files is not None:
            break
    assert files == [
        {"name": "a.txt", "text": "hello from a"},
        {"name": "b.csv", "text": "x,y\n1,2\n"},
    ]
    with pytest.raises(WrongElementKindError):
        await tab.upload(find(snap, "button", "Press me").id, first)


async def test_readers(ctx: tuple[Tab, Snapshot]) -> None:
    tab, snap = ctx
    button = find(snap, "button", "Press me")
    assert await tab.text(button.id) == "Press me"
    assert await tab.html(button.id) == '<button id="btn">Press me</button>'
    assert await tab.value(find(snap, "textbox", "Query").id) == "old text"
    assert await tab.value(button.id) is None
    link = find(snap, "link", "Anchor link")
    assert await tab.attr(link.id, "href") == "#anchor"
    assert await tab.attr(link.id, "title") is None
    assert await tab.is_visible(button.id) is True
    assert await tab.is_enabled(button.id) is True
    assert await tab.is_enabled(find(snap, "button", "Disabled").id) is False
    assert await tab.is_checked(find(snap, "checkbox", "Agree").id) is False
    box = await tab.box(button.id)
    size = await js(button, "[el.offsetWidth, el.offsetHeight]")
    assert [box["width"], box["height"]] == pytest.approx(size, abs=1)
