"""Actions on elements inside *closed* shadow roots (plain page and
cross-origin frame), and on the options of a listbox ``<select>``.

A closed root is out of reach of page scripts that do not hold it: the
hit test and the click guard learn which roots hold the element from the
element itself. The components log, in their own root, the events their
elements got (the page's window listener cannot see into a closed root).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from kobrowser import NotInteractableError

from ._pages import eval_in, find, iframe, read_log

pytestmark = pytest.mark.anyio

MOUSE = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]
CLICK = [f"{t}:{{}}" for t in MOUSE]

# <x-box tpl=ID>: a component whose closed root holds a copy of <template id=ID>
# and logs the button events of its elements into window.__inner as
# "type:id" (the nearest element with an id, seen from inside the root).
# A <script> in the template (not run) becomes a function called with the root.
COMPONENT = r"""
<script>
window.__inner = []; window.__roots = {};
const LOGGED = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick',
  'mouseover', 'input', 'dragstart', 'drop'];
customElements.define('x-box', class extends HTMLElement {
  connectedCallback() {
    if (this.__root) return;
    const root = this.__root = this.attachShadow({mode: 'closed'});
    const tpl = document.getElementById(this.getAttribute('tpl'));
    root.append(tpl.content.cloneNode(true));
    window.__roots[this.id] = root;
    for (const t of LOGGED) root.addEventListener(t, (e) => {
      const el = e.composedPath().find((n) => n.nodeType === 1 && n.id);
      window.__inner.push(t + ':' + (el ? el.id : ''));
    });
    const script = root.querySelector('script');
    if (script) new Function('root', script.textContent)(root);
  }
});
</script>
"""

WIDGETS = """
<template id="widgets">
  <button id="inbtn">Inside</button>
  <span id="inspan" role="button" aria-label="Span button"
    style="display:inline-block;width:80px;height:24px;background:#ccc">span</span>
  <input id="infield" aria-label="Inner field" value="old">
  <span id="handle" role="button" aria-label="Handle"
    style="display:inline-block;width:50px;height:30px;background:#f90">drag</span>
  <span id="zone" role="region" aria-label="Zone"
    style="display:inline-block;width:90px;height:40px;margin-left:60px;background:#9cf">z</span>
  <script>
    let dragging = false;
    root.getElementById('handle').addEventListener('pointerdown', () => { dragging = true; });
    root.addEventListener('pointerup', (e) => {
      if (!dragging) return;
      dragging = false;
      const el = e.composedPath().find((n) => n.nodeType === 1 && n.id);
      window.__dropped = el ? el.id : '';
    });
  </script>
</template>
<p>Before</p>
<x-box id="box" tpl="widgets"></x-box>
"""

# A closed root holding a component with a closed root of its own.
NESTED = """
<template id="inner"><button id="deep">Deep inside</button></template>
<template id="outer"><p>Outer part</p><x-box id="innerbox" tpl="inner"></x-box></template>
<x-box id="outerbox" tpl="outer"></x-box>
"""

# A cover inside the closed root, over the button.
COVERED = """
<template id="covered">
  <div style="position:relative">
    <button id="under" style="width:120px;height:40px">Covered</button>
    <div id="lid" style="position:absolute;left:0;top:0;width:140px;height:50px;background:#000"
      aria-label="Lid">lid</div>
  </div>
</template>
<x-box id="box" tpl="covered"></x-box>
"""

# Pressing the button throws a cover (in the same closed root) over it: the
# release would land on the cover.
TRAPPED = """
<template id="trap">
  <button id="trap" style="margin:20px">Trap</button>
  <div id="lid" style="position:fixed;display:none;background:#f00"></div>
  <script>
    const b = root.getElementById('trap'), c = root.getElementById('lid');
    b.addEventListener('pointerdown', () => {
      const r = b.getBoundingClientRect();
      Object.assign(c.style, {display: 'block', left: r.left - 5 + 'px', top: r.top - 5 + 'px',
        width: r.width + 10 + 'px', height: r.height + 10 + 'px'});
    });
  </script>
</template>
<x-box id="box" tpl="trap"></x-box>
"""

# A cover (in the closed root) jumps over the button when the mouse first
# arrives, after the click's hit test, and leaves when pressed: the first
# press lands on the cover and must be blocked; the click is sent again.
SPRUNG = """
<template id="sprung">
  <button id="sprung" style="margin:20px">Sprung</button>
  <div id="lid" style="position:fixed;display:none;background:#f00"></div>
  <script>
    const b = root.getElementById('sprung'), c = root.getElementById('lid');
    window.__covered = 0; window.__lidPresses = 0;
    addEventListener('mousemove', (e) => {
      if (!e.isTrusted || window.__covered) return;
      window.__covered = 1;
      const r = b.getBoundingClientRect();
      Object.assign(c.style, {display: 'block', left: r.left - 5 + 'px', top: r.top - 5 + 'px',
        width: r.width + 10 + 'px', height: r.height + 10 + 'px'});
    }, true);
    addEventListener('pointerdown', () => {
      if (c.isConnected && c.matches(':hover')) { window.__lidPresses++; c.remove(); }
    }, true);
  </script>
</template>
<x-box id="box" tpl="sprung"></x-box>
"""


def _placed(page_url: Any, body: str, where: str) -> str:
    if where == "plain":
        return str(page_url(COMPONENT + body))
    inner = page_url(COMPONENT + body, cross=True)
    return str(page_url(iframe(inner, 500, 300, "Frame")))


async def inner_log(element: Any, *types: str) -> list[str]:
    log: list[str] = await eval_in(
        element, "function() { return this.ownerDocument.defaultView.__inner; }"
    )
    return [e for e in log if not types or e.split(":")[0] in types]


async def clear(element: Any) -> None:
    await eval_in(element, "function() { this.ownerDocument.defaultView.__inner = []; }")


def clicks(dom_id: str, count: int = 1) -> list[str]:
    return [c.format(dom_id) for c in CLICK] * count


WHERE = pytest.mark.parametrize("where", ["plain", "cross-origin-frame"])


@WHERE
async def test_click_in_a_closed_root(open_tab: Any, page_url: Any, where: str) -> None:
    async with open_tab(_placed(page_url, WIDGETS, where)) as tab:
        snap = await tab.snapshot()
        button, span = find(snap, "button", "Inside"), find(snap, "button", "Span button")
        await tab.click(button.id)
        assert await inner_log(button, *MOUSE) == clicks("inbtn")
        await clear(button)
        await tab.click(span.id)
        assert await inner_log(span, *MOUSE) == clicks("inspan")
        await clear(span)
        await tab.dblclick(button.id)
        assert await inner_log(button, *MOUSE, "dblclick") == [
            *clicks("inbtn", 2),
            "dblclick:inbtn",
        ]


@WHERE
async def test_hover_and_drag_in_a_closed_root(open_tab: Any, page_url: Any, where: str) -> None:
    async with open_tab(_placed(page_url, WIDGETS, where)) as tab:
        snap = await tab.snapshot()
        span = find(snap, "button", "Span button")
        await tab.hover(span.id)
        for _ in range(100):  # a move into an out-of-process frame has no reply
            if "mouseover:inspan" in await inner_log(span):
                break
            await anyio.sleep(0.05)
        assert await inner_log(span) == ["mouseover:inspan"]

        handle, zone = find(snap, "button", "Handle"), find(snap, "region", "Zone")
        await tab.drag(handle.id, zone.id)
        assert await eval_in(zone, "function() { return window.__dropped; }") == "zone"
        assert await inner_log(handle, "pointerdown") == ["pointerdown:handle"]


@WHERE
async def test_fill_and_type_in_a_closed_root(open_tab: Any, page_url: Any, where: str) -> None:
    async with open_tab(_placed(page_url, WIDGETS, where)) as tab:
        snap = await tab.snapshot()
        field = find(snap, "textbox", "Inner field")
        await tab.fill(field.id, "new")
        assert await tab.value(field.id) == "new"
        await tab.type(field.id, "er")
        assert await tab.value(field.id) == "newer"
        assert await inner_log(field, "input") == ["input:infield"] * 3


@WHERE
async def test_click_in_a_closed_root_inside_a_closed_root(
    open_tab: Any, page_url: Any, where: str
) -> None:
    async with open_tab(_placed(page_url, NESTED, where)) as tab:
        snap = await tab.snapshot()
        deep = find(snap, "button", "Deep inside")
        await tab.click(deep.id)
        # Both roots log: the inner one sees the button, the outer one its host.
        log = await inner_log(deep, *MOUSE)
        assert sorted(log) == sorted(clicks("deep") + clicks("innerbox")), log


@WHERE
async def test_cover_inside_a_closed_root_is_reported(
    open_tab: Any, page_url: Any, where: str
) -> None:
    async with open_tab(_placed(page_url, COVERED, where)) as tab:
        snap = await tab.snapshot()
        under = find(snap, "button", "Covered")
        with pytest.raises(NotInteractableError, match="covered by generic") as info:
            await tab.click(under.id, timeout=1)
        assert "<div id=lid>" in str(info.value)
        assert await inner_log(under) == []


@WHERE
async def test_release_on_a_cover_in_the_closed_root_is_received_once(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """The page covered the pressed button: the click succeeds (the page
    received it) and the button saw one press, no release (it went to the cover)."""
    async with open_tab(_placed(page_url, TRAPPED, where)) as tab:
        snap = await tab.snapshot()
        trap = find(snap, "button", "Trap")
        await tab.click(trap.id)
        assert await inner_log(trap, *MOUSE) == [
            "pointerdown:trap",
            "mousedown:trap",
            "pointerup:lid",
            "mouseup:lid",
        ]


@WHERE
async def test_press_on_a_cover_in_the_closed_root_is_blocked_and_sent_again(
    open_tab: Any, page_url: Any, where: str
) -> None:
    async with open_tab(_placed(page_url, SPRUNG, where)) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Sprung")
        await tab.click(button.id)
        assert await eval_in(button, "function() { return window.__lidPresses; }") == 1
        assert await inner_log(button, *MOUSE) == clicks("sprung")


LABELS = """
<template id="labels">
  <label for="terms" id="lab">Accept the terms</label> <input type="checkbox" id="terms"
    aria-label="Terms"><br>
  <label id="wrap"><input type="checkbox" id="news">Send news</label>
</template>
<x-box id="box" tpl="labels"></x-box>
"""


@WHERE
async def test_click_on_a_label_in_a_closed_root_reaches_its_control(
    open_tab: Any, page_url: Any, where: str
) -> None:
    async with open_tab(_placed(page_url, LABELS, where)) as tab:
        snap = await tab.snapshot()
        text = find(snap, "text", "Accept the terms")
        await tab.click(text.id)
        terms = find(snap, "checkbox", "Terms")
        assert await tab.is_checked(terms.id) is True
        assert await inner_log(text, "click") == ["click:lab", "click:terms"]
        news = find(snap, "checkbox", "Send news")
        await tab.click(news.id)
        assert await tab.is_checked(news.id) is True


FRAMED = """
<template id="framed">
  <div style="position:relative">
    IFRAME
    <div id="lid" style="display:none;position:absolute;left:0;top:0;width:600px;height:300px;
      background:#000">lid</div>
  </div>
</template>
<x-box id="box" tpl="framed"></x-box>
"""


async def test_click_in_a_frame_whose_iframe_is_in_a_closed_root(
    open_tab: Any, page_url: Any
) -> None:
    """The <iframe> holding the element sits in a closed root of the page above:
    the hit test there sees into it too, and a cover there is still seen."""
    inner = page_url('<button id="btn">Press me</button>', cross=True)
    outer = FRAMED.replace("IFRAME", iframe(inner, 300, 120, "Frame"))
    async with open_tab(str(page_url(COMPONENT + outer))) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Press me")
        await tab.click(button.id)
        log = await read_log(button, *MOUSE)
        assert [(e["type"], e["target"], e["trusted"]) for e in log] == [
            (t, "btn", True) for t in MOUSE
        ]
        await tab.evaluate("window.__roots.box.getElementById('lid').style.display = 'block'")
        with pytest.raises(NotInteractableError, match="<div id=lid>"):
            await tab.click(button.id, timeout=1)
        assert len(await read_log(button, *MOUSE)) == len(MOUSE)


LISTBOXES = """
<select id="one" aria-label="Fruit" size="4">
  <option value="a">Apple</option><option value="b">Banana</option>
  <option value="c">Cherry</option><option value="d">Date</option>
</select>
<select id="many" aria-label="Herbs" size="4" multiple>
  <option value="p">Parsley</option><option value="s">Sage</option>
  <option value="r">Rosemary</option><option value="t">Thyme</option>
</select>
<script>
window.__changes = [];
addEventListener('change', (e) => window.__changes.push(e.target.id + '=' + e.target.value));
</script>
"""


@WHERE
async def test_click_on_an_option_of_a_listbox_selects_it(
    open_tab: Any, page_url: Any, where: str
) -> None:
    async with open_tab(_placed(page_url, LISTBOXES, where)) as tab:
        snap = await tab.snapshot()
        banana, fruit = find(snap, "option", "Banana"), find(snap, "listbox", "Fruit")
        await tab.click(banana.id)
        assert await tab.value(fruit.id) == "b"
        cherry = find(snap, "option", "Cherry")
        await tab.click(cherry.id)
        assert await tab.value(fruit.id) == "c"
        sage, thyme = find(snap, "option", "Sage"), find(snap, "option", "Thyme")
        await tab.click(sage.id)
        await tab.click(thyme.id, modifiers=["Control"])
        herbs = "[...el.parentElement.selectedOptions].map((o) => o.value)"
        assert await eval_in(sage, f"function() {{ const el = this; return {herbs}; }}") == [
            "s",
            "t",
        ]
        changes = await eval_in(sage, "function() { return window.__changes; }")
        # (The value of a multiple select is its first selected option's.)
        assert changes == ["one=b", "one=c", "many=s", "many=s"], changes
