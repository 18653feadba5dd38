"""A trace as one self-contained HTML page.

Everything is in the file: the pictures as ``data:`` URIs, the style and a
few lines of script (which only show one step at a time; without script
every step shows, one under the other). Nothing is fetched when it opens.
"""

from __future__ import annotations

import base64
import datetime
import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kobrowser._tab._trace._step import TraceStep

__all__ = ["render"]

_STYLE = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#1d1d1f;background:#f4f5f7}
header{padding:10px 16px;background:#1f2937;color:#fff}
header h1{font-size:17px;margin:0}
header p{margin:2px 0 0;color:#cbd5e1;font-size:12px}
.layout{display:grid;grid-template-columns:300px 1fr;min-height:calc(100vh - 52px)}
nav{background:#fff;border-right:1px solid #d9dce1;overflow:auto;max-height:calc(100vh - 52px);
position:sticky;top:0}
nav ol{list-style:none;margin:0;padding:0}
nav a{display:block;padding:6px 10px;border-bottom:1px solid #eef0f3;color:inherit;
text-decoration:none;font-family:ui-monospace,monospace;font-size:12.5px}
nav a:hover,nav a.current{background:#e8f0fe}
nav .bad{color:#b91c1c}
nav .ms{float:right;color:#6b7280}
main{padding:12px 18px;overflow:auto}
section.step{background:#fff;border:1px solid #d9dce1;border-radius:6px;padding:10px 14px;
margin-bottom:16px}
section.step h2{font:600 16px ui-monospace,monospace;margin:0 0 4px}
.meta{color:#4b5563;font-size:12px;margin:0 0 8px;word-break:break-all}
.error{color:#b91c1c;background:#fef2f2;padding:6px 8px;border-radius:4px}
.frame{position:relative;display:inline-block;max-width:100%;border:1px solid #d9dce1}
.frame img{display:block;max-width:100%;height:auto}
.outline{position:absolute;border:3px solid #e6194b;box-shadow:0 0 0 2px #fff}
.outline span{position:absolute;left:-3px;top:-22px;background:#e6194b;color:#fff;
font:bold 12px monospace;padding:2px 5px;border-radius:3px 3px 0 0}
pre{background:#f8f9fb;border:1px solid #e5e7eb;padding:8px;overflow:auto;max-height:420px;
font-size:12px;margin:4px 0 10px;white-space:pre-wrap}
table{border-collapse:collapse;width:100%;font-size:12px;margin-bottom:10px}
td,th{border-bottom:1px solid #eef0f3;padding:3px 6px;text-align:left;word-break:break-all}
h3{font-size:13px;margin:12px 0 2px;color:#374151}
.none{color:#6b7280;font-size:12px}
"""

_SCRIPT = """
(function(){
  var steps=[].slice.call(document.querySelectorAll('section.step'));
  var links=[].slice.call(document.querySelectorAll('nav a'));
  function show(id){
    if(!document.getElementById(id)) id=steps.length?steps[0].id:'';
    steps.forEach(function(s){s.hidden=s.id!==id;});
    links.forEach(function(a){a.classList.toggle('current',a.getAttribute('href')==='#'+id);});
  }
  window.addEventListener('hashchange',function(){show(location.hash.slice(1));});
  document.addEventListener('keydown',function(e){
    var i=steps.findIndex(function(s){return !s.hidden;});
    if(e.key==='ArrowDown'||e.key==='j'){i=Math.min(i+1,steps.length-1);}
    else if(e.key==='ArrowUp'||e.key==='k'){i=Math.max(i-1,0);} else return;
    location.hash=steps[i].id; e.preventDefault();
  });
  show(location.hash.slice(1));
})();
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _picture(step: TraceStep) -> str:
    if step.screenshot is None:
        return '<p class="none">No picture (the tab was gone or could not be captured).</p>'
    data = base64.b64encode(step.screenshot).decode("ascii")
    outline = ""
    if step.outline is not None and step.viewport is not None and step.viewport[0] > 0:
        width, height = step.viewport
        x, y, w, h = step.outline
        style = (
            f"left:{100 * x / width:.3f}%;top:{100 * y / height:.3f}%;"
            f"width:{100 * w / width:.3f}%;height:{100 * h / height:.3f}%"
        )
        outline = (
            f'<div class="outline" style="{style}" title="element {step.element_id}">'
            f"<span>{step.element_id}</span></div>"
        )
    return (
        f'<div class="frame"><img alt="Screenshot after step {step.index}" '
        f'src="data:image/jpeg;base64,{data}">{outline}</div>'
    )


def _requests(step: TraceStep) -> str:
    if not step.requests:
        return '<p class="none">No request.</p>'
    rows = "".join(
        f"<tr><td>{_e(r.method)}</td><td>{_e(r.status if r.status is not None else '…')}"
        f"{' (cache)' if r.from_cache else ''}</td><td>{_e(r.resource_type)}</td>"
        f"<td>{_e(r.url[:300])}{' — ' + _e(r.failure) if r.failure else ''}</td></tr>"
        for r in step.requests
    )
    return f"<table><tr><th>method</th><th>status</th><th>type</th><th>url</th></tr>{rows}</table>"


def _console(step: TraceStep) -> str:
    if not step.console and not step.errors:
        return '<p class="none">No message.</p>'
    lines = [f"[{m.level}] {m.text}" for m in step.console]
    lines += [f"[uncaught] {err.name}: {err.message}" for err in step.errors]
    return f"<pre>{_e(chr(10).join(lines))}</pre>"


def _snapshot(step: TraceStep, shown: int | None) -> str:
    if step.snapshot is None:
        if shown is None:
            return '<p class="none">No snapshot was taken before this step.</p>'
        return f'<p class="none">The same snapshot as step {shown}.</p>'
    out = f'<pre class="snapshot">{_e(step.snapshot)}</pre>'
    if step.changes is not None:
        changes = _e(step.changes or "(none)")
        out += f"<h3>Changes since the previous snapshot</h3><pre>{changes}</pre>"
    return out


def _section(step: TraceStep, shown: int | None) -> str:
    when = datetime.datetime.fromtimestamp(step.started, datetime.UTC).strftime("%H:%M:%S.%f")[:-3]
    status = "ok" if step.ok else "failed"
    parts = [
        f'<section class="step" id="step-{step.index}" aria-label="Step {step.index}">',
        f"<h2>Step {step.index}: {_e(step.line)}</h2>",
        f'<p class="meta">{status} · {_ms(step.duration)} · {when} UTC · {_e(step.url)}</p>',
    ]
    if step.error:
        parts.append(f'<p class="error">{_e(step.error)}</p>')
    if step.note:
        parts.append(f"<h3>Model reply</h3><pre>{_e(step.note)}</pre>")
    parts.append("<h3>After the step</h3>")
    parts.append(_picture(step))
    parts.append(f"<h3>Network ({len(step.requests)})</h3>{_requests(step)}")
    count = len(step.console) + len(step.errors)
    parts.append(f"<h3>Console ({count})</h3>{_console(step)}")
    parts.append("<h3>Snapshot the step acted on</h3>")
    parts.append(_snapshot(step, shown))
    parts.append("</section>")
    return "".join(parts)


def render(title: str, steps: Sequence[TraceStep]) -> str:
    """The HTML page of a trace's ``steps`` under ``title`` (see the module)."""
    items = []
    sections = []
    shown: int | None = None
    for step in steps:
        mark = "" if step.ok else ' class="bad"'
        items.append(
            f'<li><a href="#step-{step.index}"{mark}>{step.index}. {_e(step.line[:60])}'
            f'<span class="ms">{_ms(step.duration)}</span></a></li>'
        )
        sections.append(_section(step, shown))
        if step.snapshot is not None:
            shown = step.index
    failed = sum(not s.ok for s in steps)
    total = sum(s.duration for s in steps)
    summary = f"{len(steps)} steps, {failed} failed, {total:.1f} s of actions"
    body = "".join(sections) or '<p class="none">No action was recorded.</p>'
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>{_e(title)}</h1><p>{summary}</p></header>"
        f'<div class="layout"><nav aria-label="Steps"><ol>{"".join(items)}</ol></nav>'
        f"<main>{body}</main></div><script>{_SCRIPT}</script></body></html>\n"
    )
