"""Pages and helpers of the action tests: an event recorder and log readers."""

from __future__ import annotations

import json
from typing import Any

from kobrowser import Tab
from kobrowser._tab._snapshot import Element, Snapshot

__all__ = [
    "CONTEXTS",
    "RECORDER",
    "clear_log",
    "eval_in",
    "find",
    "iframe",
    "page",
    "read_log",
    "shadow_widgets",
    "top_log",
    "widgets",
    "widgets_url",
]

# Logs every interesting event into window.__log with the id of the nearest
# element (through shadow roots) that has one, and that element's rect at the
# time of the event (in its own frame's coordinates). Button events are
# logged as they bubble back to the window, so the log holds what the page's
# own handlers got: kobrowser's click guard stops (in the window's capture
# phase) any that would reach another element.
RECORDER = r"""<script>
window.__log = [];
const __BUTTON = ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'click', 'dblclick',
  'auxclick', 'contextmenu'];
const __TYPES = [...__BUTTON, 'pointerover', 'mouseover', 'keydown', 'keyup',
  'input', 'change', 'focus', 'submit', 'dragstart', 'dragenter', 'drop', 'dragend',
  'wheel'];
for (const t of __TYPES) addEventListener(t, (e) => {
  const path = e.composedPath();
  const el = path.find((n) => n.nodeType === 1 && n.id);
  const r = el ? el.getBoundingClientRect() : null;
  window.__log.push({type: e.type, target: el ? el.id : '', trusted: e.isTrusted,
    x: e.clientX ?? null, y: e.clientY ?? null, key: e.key ?? null, code: e.code ?? null,
    shift: !!e.shiftKey, ctrl: !!e.ctrlKey, alt: !!e.altKey, meta: !!e.metaKey,
    button: e.button ?? null, detail: e.detail ?? null,
    rect: r && {left: r.left, top: r.top, right: r.right, bottom: r.bottom}});
  if (t === 'submit') e.preventDefault();
}, !__BUTTON.includes(t));
</script>"""


def page(body: str, *, title: str = "T", head: str = "") -> str:
    """A small HTML5 document with the event recorder."""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"{RECORDER}{head}</head><body>{body}</body></html>"
    )


def find(snap: Snapshot, role: str, name: str | None = None) -> Element:
    """The only element of ``snap`` with ``role`` (and ``name``)."""
    found = [e for e in snap.id_map.values() if e.role == role and (name is None or e.name == name)]
    if len(found) != 1:
        # What the fetch saw of each frame, to tell a frame never read from one not linked.
        frames = {f: (d.url, d.parent_id) for f, d in snap._documents.items()}
        raise AssertionError(
            f"{len(found)} x {role} {name!r} in\n{snap.text}\n"
            f"frames read: {frames}\nowners: {dict(snap._owners)}"
        )
    return found[0]


async def eval_in(element: Element, function: str, *args: Any) -> Any:
    """Run ``function`` (``this`` = the element's node) in the element's own frame."""
    session = element.session
    resolved = await session.send(
        "DOM.resolveNode", {"backendNodeId": element.backend_node_id}, timeout=30
    )
    result = await session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": function,
            "objectId": resolved["object"]["objectId"],
            "arguments": [{"value": a} for a in args],
            "returnByValue": True,
            "awaitPromise": True,
        },
        timeout=30,
    )
    assert "exceptionDetails" not in result, result["exceptionDetails"]
    return result["result"].get("value")


async def read_log(element: Element, *types: str) -> list[dict[str, Any]]:
    """The events logged in ``element``'s frame (only ``types`` when given)."""
    raw = await eval_in(
        element, "function() { return JSON.stringify(this.ownerDocument.defaultView.__log); }"
    )
    log: list[dict[str, Any]] = json.loads(raw)
    return [e for e in log if not types or e["type"] in types]


async def clear_log(element: Element) -> None:
    await eval_in(element, "function() { this.ownerDocument.defaultView.__log = []; }")


async def top_log(tab: Tab, *types: str) -> list[dict[str, Any]]:
    """The events logged in the top document."""
    log: list[dict[str, Any]] = json.loads(await tab.evaluate("JSON.stringify(window.__log)"))
    return [e for e in log if not types or e["type"] in types]


# Every kind of element the actions work on. ROOT is replaced by the JS
# expression of the document or shadow root that holds them.
WIDGETS_HTML = """
<form id="form" action="/never-submitted">
  <input id="text" name="q" aria-label="Query" value="old text">
  <button id="submit">Send</button>
</form>
<button id="btn">Press me</button>
<button id="off" disabled>Disabled</button>
<span id="hover" role="button" aria-label="Hover me"
  style="display:inline-block;width:60px;height:20px;background:#ccc">H</span>
<a id="link" href="#anchor">Anchor link</a><br>
<textarea id="area" aria-label="Notes" rows="2">old notes</textarea>
<div id="editable" contenteditable="true" role="textbox" aria-label="Editor"
  style="display:inline-block;width:120px;min-height:18px;border:1px solid">old</div><br>
<select id="sel" aria-label="Color"><option value="r">Red</option>
  <option value="g">Green</option><option value="b">Blue</option></select>
<select id="multi" aria-label="Sizes" multiple size="3"><option value="s">Small</option>
  <option value="m">Medium</option><option value="l">Large</option></select>
<input type="checkbox" id="cb" aria-label="Agree">
<input type="file" id="file" aria-label="Attachment" multiple><br>
<span id="handle" role="button" aria-label="Handle"
  style="display:inline-block;width:50px;height:30px;background:#f90;touch-action:none">drag</span>
<span id="zone" role="region" aria-label="Zone"
  style="display:inline-block;width:90px;height:40px;margin-left:60px;background:#9cf">zone</span>
<span id="src5" role="button" aria-label="Draggable" draggable="true"
  style="display:inline-block;width:60px;height:30px;background:#c9f">html5</span>
<span id="zone5" role="region" aria-label="Drop here"
  style="display:inline-block;width:90px;height:40px;margin-left:60px;background:#9fc">drop</span>
<div style="height:1500px"></div>
<button id="far">Far away</button>
"""

WIDGETS_SCRIPT = """<script>
(function (root) {
  const $ = (id) => root.getElementById(id);
  const win = window;
  let dragging = false;
  $('handle').addEventListener('pointerdown', () => { dragging = true; });
  win.addEventListener('pointerup', (e) => {
    if (!dragging) return;
    dragging = false;
    const r = $('zone').getBoundingClientRect();
    if (e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top
        && e.clientY <= r.bottom) $('zone').dataset.dropped = 'pointer';
  });
  $('src5').addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', 'payload'));
  $('zone5').addEventListener('dragover', (e) => e.preventDefault());
  $('zone5').addEventListener('drop', (e) => {
    e.preventDefault();
    $('zone5').dataset.dropped = e.dataTransfer.getData('text/plain');
  });
  win.__files = null;
  win.__changes = [];  // change events are not composed: listen on the root
  root.addEventListener('change', (e) => win.__changes.push(e.composedPath()[0].id), true);
  win.__submits = [];  // neither is submit
  root.addEventListener('submit', (e) => {
    e.preventDefault();
    win.__submits.push({target: e.target.id, trusted: e.isTrusted});
  }, true);
  $('file').addEventListener('change', () => {
    const files = [...$('file').files];
    Promise.all(files.map((f) => new Promise((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve({name: f.name, text: reader.result});
      reader.readAsText(f);
    }))).then((read) => { win.__files = read; });
  });
})(ROOT);
</script>"""


def widgets(root: str = "document") -> str:
    """The widget elements and their script, which runs against ``root``."""
    return WIDGETS_HTML + WIDGETS_SCRIPT.replace("ROOT", root)


def shadow_widgets() -> str:
    """The widgets inside an open shadow root of ``<div id=host>``."""
    escaped = WIDGETS_HTML.replace("`", "\\`")
    script = WIDGETS_SCRIPT.replace("ROOT", "document.getElementById('host').shadowRoot")
    return (
        '<p>Shadow host below</p><div id="host"></div>'
        "<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = `"
        + escaped
        + "`;</script>"
        + script
    )


IFRAME_STYLE = "margin:15px 25px;border:4px solid #333;padding:6px 9px;width:{w}px;height:{h}px"


def iframe(src: str, w: int, h: int, title: str) -> str:
    style = IFRAME_STYLE.format(w=w, h=h)
    return (
        f'<p>Frame {title} below</p><iframe title="{title}" src="{src}" style="{style}"></iframe>'
    )


CONTEXTS = ("plain", "same-origin-frame", "cross-origin-frame", "nested-3-frames", "shadow-dom")


def widgets_url(page_url: Any, context: str) -> str:
    """A URL whose page shows the widgets in ``context`` (see CONTEXTS).

    Frames get margins, borders and padding, so a wrong frame offset misses.
    Three deep alternates origins: 127.0.0.1 > localhost > 127.0.0.1 > localhost.
    """
    if context == "plain":
        return str(page_url(widgets()))
    if context == "shadow-dom":
        return str(page_url(shadow_widgets()))
    if context == "same-origin-frame":
        inner = page_url(widgets())
        return str(page_url(iframe(inner, 600, 500, "Widgets")))
    if context == "cross-origin-frame":
        inner = page_url(widgets(), cross=True)
        return str(page_url(iframe(inner, 600, 500, "Widgets")))
    assert context == "nested-3-frames"
    level3 = page_url(widgets(), cross=True)
    level2 = page_url(iframe(level3, 600, 480, "Widgets"))
    level1 = page_url(iframe(level2, 700, 580, "Middle"), cross=True)
    return str(page_url(iframe(level1, 800, 680, "Outer")))
