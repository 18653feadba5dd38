"""The live view's page: one HTML document, its style and script inline, nothing fetched.

It reads ``/events`` (server-sent events: ``frame``, ``action``,
``snapshot``, ``control``) and sends a person's input to ``/input`` and
take-over / hand-back to ``/control`` as JSON, carrying the page's own
``?token=`` when it has one.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PAGE"]

PAGE: Final = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>kobrowser live view</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,sans-serif;background:#f4f5f7;color:#1d1d1f}
header{display:flex;align-items:center;gap:12px;padding:8px 14px;background:#1f2937;color:#fff}
header h1{font-size:16px;margin:0}
#status{font-size:12px;padding:2px 8px;border-radius:10px;background:#065f46}
#status.taken{background:#b45309}
#url{font-size:12px;color:#cbd5e1;flex:1;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
button{font:inherit;padding:4px 10px;border-radius:4px;border:1px solid #94a3b8;background:#fff;
cursor:pointer}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 420px;gap:12px;padding:12px}
#screen{position:relative;background:#111;border-radius:4px;outline:none;min-height:200px}
#screen:focus{box-shadow:0 0 0 3px #60a5fa}
#screen img{display:block;width:100%;height:auto;cursor:crosshair}
#hint{color:#9ca3af;padding:20px}
aside{display:flex;flex-direction:column;gap:12px;min-width:0}
section{background:#fff;border:1px solid #d9dce1;border-radius:6px;padding:8px 10px}
h2{font-size:13px;margin:0 0 6px;color:#374151}
#log{list-style:none;margin:0;padding:0;max-height:40vh;overflow:auto;
font:12px ui-monospace,monospace}
#log li{padding:2px 0;border-bottom:1px solid #eef0f3}
#log li.bad{color:#b91c1c}
#log li.person{color:#1d4ed8}
#snapshot{margin:0;max-height:45vh;overflow:auto;font:12px ui-monospace,monospace;
white-space:pre-wrap}
</style></head><body>
<header><h1>kobrowser live view</h1><span id="status" role="status">connecting</span>
<span id="url"></span>
<button id="take" type="button">Take over</button>
<button id="back" type="button" hidden>Hand back</button></header>
<div class="layout">
<main><div id="screen" tabindex="0" aria-label="Live page: click and type here to act">
<p id="hint">Waiting for the first picture of the page…</p>
<img id="picture" alt="Live page" hidden></div></main>
<aside>
<section><h2>Actions</h2><ol id="log" aria-label="Action log"></ol></section>
<section><h2>Latest snapshot</h2><pre id="snapshot" aria-label="Latest snapshot">(none yet)</pre>
</section>
</aside></div>
<script>
(function(){
  var token = new URLSearchParams(location.search).get('token');
  var q = token ? '?token=' + encodeURIComponent(token) : '';
  var picture = document.getElementById('picture'), screen = document.getElementById('screen');
  var log = document.getElementById('log'), status = document.getElementById('status');
  var size = {width: 0, height: 0};
  function post(path, body) {
    return fetch(path + q, {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify(body)});
  }
  function control(taken) {
    status.textContent = taken ? 'you have control: the agent waits' : 'live';
    status.classList.toggle('taken', taken);
    document.getElementById('take').hidden = taken;
    document.getElementById('back').hidden = !taken;
  }
  var events = new EventSource('/events' + q);
  events.addEventListener('hello', function(e){ control(JSON.parse(e.data).controlled); });
  events.addEventListener('control', function(e){ control(JSON.parse(e.data).controlled); });
  events.addEventListener('frame', function(e){
    var f = JSON.parse(e.data);
    size = {width: f.width, height: f.height};
    picture.src = 'data:image/jpeg;base64,' + f.jpeg;
    picture.hidden = false;
    document.getElementById('hint').hidden = true;
    document.getElementById('url').textContent = f.url;
  });
  events.addEventListener('action', function(e){
    var a = JSON.parse(e.data), li = document.createElement('li');
    li.textContent = a.n + '. ' + a.line + (a.ok ? '' : ' — ' + a.error) + ' (' + a.ms + ' ms)';
    if (!a.ok) li.className = 'bad'; else if (a.source === 'person') li.className = 'person';
    log.appendChild(li);
    log.scrollTop = log.scrollHeight;
  });
  events.addEventListener('snapshot', function(e){
    var s = JSON.parse(e.data);
    document.getElementById('snapshot').textContent = s.text;
  });
  events.onerror = function(){ status.textContent = 'disconnected'; };
  function point(e) {
    var r = picture.getBoundingClientRect();
    return {x: (e.clientX - r.left) / r.width * size.width,
            y: (e.clientY - r.top) / r.height * size.height};
  }
  picture.addEventListener('click', function(e){
    var p = point(e); screen.focus();
    post('/input', {type: 'click', x: p.x, y: p.y});
  });
  picture.addEventListener('wheel', function(e){
    var p = point(e); e.preventDefault();
    post('/input', {type: 'scroll', x: p.x, y: p.y, dy: e.deltaY});
  }, {passive: false});
  var keys = ['Enter','Tab','Backspace','Delete','Escape','ArrowUp','ArrowDown','ArrowLeft',
              'ArrowRight','Home','End','PageUp','PageDown'];
  screen.addEventListener('keydown', function(e){
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (keys.indexOf(e.key) >= 0) post('/input', {type: 'key', key: e.key});
    else if (e.key === ' ') post('/input', {type: 'key', key: 'Space'});
    else if (e.key.length === 1) post('/input', {type: 'text', text: e.key});
    else return;
    e.preventDefault();
  });
  document.getElementById('take').onclick = function(){ post('/control', {take: true}); };
  document.getElementById('back').onclick = function(){ post('/control', {take: false}); };
})();
</script></body></html>
"""
