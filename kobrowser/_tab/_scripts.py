"""JavaScript run in the page (via ``Runtime.callFunctionOn``) by actions.

Each is a function source called with ``this`` bound to a DOM node. They
share a small prelude (hit testing through shadow roots, a description of
the element at a point, and a one-shot guard that blocks pointer events
which would reach another element than the one being acted on).
"""

from __future__ import annotations

__all__ = [
    "CHECKED",
    "FILL_PREPARE",
    "FRAME_FOCUSED",
    "GUARD_READ",
    "HOP",
    "INFO",
    "PROBE",
    "SELECT_OPTIONS",
]

_PRELUDE = r"""
// The shadow roots holding `el`, innermost first. A closed root cannot be
// reached from its host (no host.shadowRoot): only the element knows it.
const rootsOf = (el) => {
  const roots = [];
  for (let r = el.getRootNode(); r && r.host; r = r.host.getRootNode()) roots.push(r);
  return roots;
};
// The element at (x, y), through open shadow roots and through the closed
// ones among `roots` (those holding the element acted on): any other
// closed root is opaque, as it is to the page.
const deepHit = (x, y, roots) => {
  let hit = document.elementFromPoint(x, y);
  while (hit) {
    const root = hit.shadowRoot || (roots && roots.find((r) => r.host === hit));
    if (!root) break;
    const inner = root.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
};
// The host of the outermost closed root holding `el` (null: none). An
// event's composedPath() seen from the window stops there.
const veilOf = (roots) => {
  let veil = null;
  for (const r of roots) if (r.mode === 'closed') veil = r.host;
  return veil;
};
const within = (node, target) => {
  for (let n = node; n; n = n.parentNode || n.host) if (n === target) return true;
  return false;
};
// The control of the <label> holding `el` (through shadow roots), if any.
const controlOf = (el) => {
  let label = el;
  while (label && label.nodeName !== 'LABEL') label = label.parentNode || label.host;
  return label ? label.control : null;
};
const IMPLICIT = {A: 'link', BUTTON: 'button', INPUT: 'textbox', SELECT: 'combobox',
  TEXTAREA: 'textbox', IMG: 'img', IFRAME: 'iframe', H1: 'heading', H2: 'heading',
  H3: 'heading', NAV: 'navigation', MAIN: 'main', HEADER: 'banner', FOOTER: 'contentinfo',
  DIALOG: 'dialog', FORM: 'form', UL: 'list', OL: 'list', LI: 'listitem', TABLE: 'table'};
const describe = (el) => {
  if (!el) return null;
  const name = (el.getAttribute('aria-label') || el.getAttribute('title') || el.innerText
    || el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  return {tag: el.tagName.toLowerCase(), role: el.getAttribute('role')
    || IMPLICIT[el.tagName] || 'generic', name, id: el.id || ''};
};
const GUARD_TYPES = ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'click',
  'dblclick', 'auxclick', 'contextmenu'];
const armGuard = (el, ms, hop) => {
  // One guard per frame on the way to the element. In the element's own
  // frame, a press reaches the page only if it lands in the element; once
  // it did, the rest of its click goes where a real mouse sends it. In a
  // frame on the way (`hop`: el is the <iframe> holding the element), no
  // button event of ours may reach the page at all: one that lands on the
  // <iframe> itself was routed to this frame instead of into the child
  // (Chrome's input routing not ready for that frame yet).
  const w = el.ownerDocument.defaultView;
  if (!w.__koGuardInstalled) {
    w.__koGuardInstalled = true;
    const check = (e) => {
      const g = w.__koGuard;
      // Only input kobrowser sends is guarded: the page's own scripts may
      // dispatch events to other elements at any time.
      if (!g || !e.isTrusted || performance.now() > g.until) return;
      // A click no mouse made (Enter or Space on a focused button: detail 0)
      // is not kobrowser's pointer input: a guard left armed by a click that
      // failed must not swallow it.
      if (e.type === 'click' && e.detail === 0) return;
      g.counts[e.type] = (g.counts[e.type] || 0) + 1;
      const path = e.composedPath();
      const press = e.type === 'pointerdown' || e.type === 'mousedown';
      if (e.type === 'pointerdown') g.capture = g.up = null;  // each press captures anew
      if (e.type.startsWith('pointer')) g.at = [e.clientX, e.clientY];
      // The page captured the pointer when the element was pressed
      // (setPointerCapture on an ancestor: a slider's track): the rest of
      // the click goes to the capturing element wherever the pointer is.
      const onEl = reaches(g, e, path) || (!press && !!g.capture && e.target === g.capture);
      if (press) g.down = onEl;
      if (e.type === 'pointerup' || e.type === 'mouseup') g.up = onEl;
      if (!g.hop && !onEl && e.type === 'click' && g.hits.click) {
        // A <label>'s own click, once it reached the label, goes on to
        // its control (as a trusted click): that is the label's click.
        // The label may hold the element through a shadow root (its text
        // in a component), so look up the composed tree.
        const control = controlOf(g.el);
        if (control && (path.includes(control)
            || (g.forward && path.includes(veilOf(rootsOf(control)))))) return;
      }
      const wasLive = g.live;
      // A release or click of ours in a frame where this guard saw no press:
      // the press reached this frame (a press Chrome routes to another frame
      // takes the rest of the click with it) and a page listener that ran
      // first stopped it. The page saw it: the click must not be sent again.
      const unpressed = !press && !g.counts.pointerdown && !g.counts.mousedown;
      if (unpressed) g.unpressed++;
      if (press) g.live = onEl;
      else if (onEl && unpressed)
        // That press would be stopped for a real mouse too: the rest of the
        // click goes on to the element, as it would then.
        g.live = true;
      if (!g.hop && !press && !onEl && (g.down === true || unpressed)) {
        // The press reached the element (or the page stopped it first): the
        // rest of the click goes where a real mouse sends it, the release
        // where the pointer is now (the page moved or covered the element in
        // answer to the press), the click to what holds both. The page
        // received this click; nothing of it is blocked.
        g.followed++;
        return;
      }
      if (!g.hop && onEl && g.live) {
        g.ok++;
        g.hits[e.type] = (g.hits[e.type] || 0) + 1;
        // Judged by the point (the element is in a closed root): the
        // closed roots on its way check the real path (see rootCheck).
        if (!path.includes(g.el)) g.passed = {e, live: wasLive};
        if (e.type === 'click' && !g.forward) {
          // A label passes its click on to a control in a closed root
          // within this task (the control is hidden from the window).
          g.forward = true;
          setTimeout(() => { g.forward = false; }, 0);
        }
        return;
      }
      if (g.hop && onEl) g.misrouted++; else g.blocked++;
      e.stopImmediatePropagation();
      e.preventDefault();
    };
    for (const t of GUARD_TYPES) w.addEventListener(t, check, true);
    w.addEventListener('gotpointercapture', (e) => {
      const g = w.__koGuard;
      if (g && !g.hop && e.isTrusted && g.live && e.pointerType === 'mouse') g.capture = e.target;
    }, true);
    // Moves are only counted (hover waits for them), never blocked.
    w.addEventListener('mousemove', (e) => {
      const g = w.__koGuard;
      if (g && e.isTrusted) g.counts.mousemove = (g.counts.mousemove || 0) + 1;
    }, true);
  }
  const roots = rootsOf(el);
  w.__koGuard = {el, hop: !!hop, live: false, capture: null, ok: 0, blocked: 0, misrouted: 0,
    unpressed: 0, followed: 0, hits: {}, counts: {}, until: performance.now() + ms, roots,
    veil: veilOf(roots), at: null, down: null, up: null, forward: false, passed: null};
  if (!hop) {
    w.__koRoots = w.__koRoots || new WeakSet();
    for (const root of roots) {
      if (root.mode !== 'closed' || w.__koRoots.has(root)) continue;
      w.__koRoots.add(root);
      for (const t of GUARD_TYPES) root.addEventListener(t, (e) => rootCheck(w, root, e), true);
    }
  }
};
// An event the window let through by its point (see reaches) passes each
// closed root on the element's way, whose own view of the path shows the
// next closed host inside (or the element): the page may have moved
// things between the browser's hit test and the guard (a window listener
// that ran first), so a root that sees the event bound elsewhere takes it
// back. Page listeners above the root saw it; nothing inside does.
const rootCheck = (w, root, e) => {
  const g = w.__koGuard;
  if (!g || !g.passed || g.passed.e !== e) return;
  // From here the path shows the element, or the host of the next closed
  // root on its way.
  const bound = (node, roots) => {
    const at = roots.indexOf(root);
    if (at < 0) return false;
    let next = node;
    for (let i = at - 1; i >= 0; i--) {
      if (roots[i].mode === 'closed') { next = roots[i].host; break; }
    }
    return e.composedPath().includes(next);
  };
  if (bound(g.el, g.roots)) return;
  const control = e.type === 'click' && g.forward && controlOf(g.el);
  if (control && bound(control, rootsOf(control))) return;  // a label's click, passed on
  const press = e.type === 'pointerdown' || e.type === 'mousedown';
  g.ok--; g.hits[e.type]--; g.blocked++;
  g.live = press ? false : g.passed.live;
  if (press) g.down = false;
  if (e.type === 'pointerup' || e.type === 'mouseup') g.up = false;
  g.passed = null;
  e.stopImmediatePropagation();
  e.preventDefault();
};
// Whether event `e` (its composed path as the window sees it) is bound for
// the guarded element. Inside a closed root the path stops at the root's
// host, so the element under the event's point decides (the pointer
// event's own, fractional, point when the mouse event follows it there).
// A mouse event goes where the pointer event before it went, and a click
// to the common ancestor of its press and release: judged as they were
// (the page may have moved things in between).
const reaches = (g, e, path) => {
  if (path.includes(g.el)) return true;
  if (!g.veil || !path.includes(g.veil)) return false;
  const t = e.type;
  if (t === 'mousedown' && g.down !== null) return g.down;
  if (t === 'mouseup' && g.up !== null) return g.up;
  if ((t === 'click' || t === 'dblclick' || t === 'auxclick') && g.down !== null
      && g.up !== null) return g.down && g.up;
  let [x, y] = [e.clientX, e.clientY];
  if (g.at && Math.abs(g.at[0] - x) < 1 && Math.abs(g.at[1] - y) < 1) [x, y] = g.at;
  const hit = deepHit(x, y, g.roots);
  return !!hit && within(hit, g.el);
};
"""

PROBE = (
    "async function(opts) {"
    + _PRELUDE
    + r"""
  const node = this;
  if (!node.isConnected) return {state: 'detached'};
  const el = node.nodeType === 1 ? node : node.parentElement;
  if (!el) return {state: 'detached'};
  const rectOf = () => {
    if (node.nodeType === 1) return node.getBoundingClientRect();
    const r = document.createRange(); r.selectNodeContents(node); return r.getBoundingClientRect();
  };
  const frame = () => new Promise((resolve) => {
    requestAnimationFrame(() => resolve()); setTimeout(resolve, 100);
  });
  const a = rectOf(); await frame(); const r = rectOf();
  if (a.x !== r.x || a.y !== r.y || a.width !== r.width || a.height !== r.height)
    return {state: 'unstable'};
  const style = getComputedStyle(el);
  if (r.width <= 0 || r.height <= 0 || style.visibility === 'hidden'
      || style.visibility === 'collapse')
    return {state: 'hidden'};
  if (opts.enabled && (el.matches(':disabled')
      || el.closest('[aria-disabled="true"]')))
    return {state: 'disabled'};
  const rect = {x: r.x, y: r.y, width: r.width, height: r.height};
  if (!opts.hit) return {state: 'ok', points: [[r.x + r.width / 2, r.y + r.height / 2]], rect};
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const left = Math.max(r.left, 0), right = Math.min(r.right, vw);
  const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vh);
  if (right - left < 1 || bottom - top < 1) return {state: 'offscreen', rect};
  const candidates = [[(left + right) / 2, (top + bottom) / 2]];
  for (let i = 1; i < 8; i++) for (let j = 1; j < 4; j++)
    candidates.push([left + (right - left) * i / 8, top + (bottom - top) * j / 4]);
  const points = []; let cover = null;
  const roots = rootsOf(el);
  for (const [x, y] of candidates) {
    const hit = deepHit(x, y, roots);
    if (hit && within(hit, el)) points.push([x, y]);
    else if (!cover && hit) cover = describe(hit);
    if (points.length >= 6) break;
  }
  if (!points.length) return {state: 'covered', cover, rect};
  if (opts.guard) armGuard(el, opts.guard);
  return {state: 'ok', points, rect};
}"""
)

HOP = (
    "function(points, guard) {"
    + _PRELUDE
    + r"""
  const r = this.getBoundingClientRect();
  const cs = getComputedStyle(this);
  const ox = r.left + this.clientLeft + parseFloat(cs.paddingLeft || '0');
  const oy = r.top + this.clientTop + parseFloat(cs.paddingTop || '0');
  const out = []; let cover = null;
  const roots = rootsOf(this);
  for (const [x, y] of points) {
    const px = x + ox, py = y + oy;
    const hit = deepHit(px, py, roots);
    if (hit === this) out.push([px, py]);
    else if (!cover) cover = describe(hit);
  }
  if (out.length && guard) armGuard(this, guard, true);
  return {points: out, cover, offset: [ox, oy]};
}"""
)

GUARD_READ = r"""async function(keep, wait) {
  // `wait` ({pointerup: 2}): input to an out-of-process frame is delivered
  // after the page session acknowledged it, so wait (briefly) until this
  // frame has seen the events before judging where they went.
  const w = (this.ownerDocument || document).defaultView;
  const g = w.__koGuard;
  if (g && wait) {
    const done = () => Object.entries(wait).every(([t, n]) => (g.counts[t] || 0) >= n);
    const until = performance.now() + 1000;
    while (!done() && performance.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!keep && w.__koGuard === g) w.__koGuard = null;
  // Not rendered: no box of its own nor of its contents (display: contents).
  const shown = (el) => {
    if (el.getClientRects().length) return true;
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    return range.getClientRects().length > 0;
  };
  return g ? {ok: g.ok, blocked: g.blocked, misrouted: g.misrouted,
    moves: g.counts.mousemove || 0, downs: g.counts.pointerdown || 0,
    ups: g.counts.pointerup || 0, pressed: g.hits.pointerdown || 0, unpressed: g.unpressed,
    followed: g.followed,
    detached: !g.el.isConnected || !shown(g.el)} : null;
}"""

INFO = r"""function(what, arg) {
  const node = this;
  const el = node.nodeType === 1 ? node : node.parentElement;
  switch (what) {
    case 'text':
      // A text field's text is its value, exactly (innerText is its default text).
      if (node.nodeType === 1 && (node.tagName === 'TEXTAREA' || (node.tagName === 'INPUT'
          && !/^(button|checkbox|color|file|hidden|image|radio|range|reset|submit)$/i
            .test(node.type)))) return String(node.value);
      return node.nodeType === 1 ? (node.innerText ?? node.textContent) : node.textContent;
    case 'html': return node.nodeType === 1 ? node.outerHTML : node.textContent;
    case 'value':
      if ('value' in el && el.tagName !== 'BUTTON' && el.tagName !== 'LI') return String(el.value);
      if (el.isContentEditable) return el.innerText;
      return null;
    case 'attr': return el.getAttribute(arg);
    case 'tag': return el.tagName.toLowerCase();
    case 'visible': {
      if (!node.isConnected) return false;
      const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'
        && s.visibility !== 'collapse';
    }
    case 'enabled': return !(el.matches(':disabled') || el.closest('[aria-disabled="true"]'));
    case 'kind': return {tag: el.tagName.toLowerCase(), type: (el.type || '').toLowerCase(),
      editable: el.isContentEditable, readOnly: !!el.readOnly, multiple: !!el.multiple,
      role: el.getAttribute('role') || '',
      draggable: (() => {
        for (let n = el; n; n = n.parentElement || (n.getRootNode() || {}).host)
          if (n.draggable) return true;
        return false;
      })()};
  }
  return null;
}"""

CHECKED = r"""function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio'))
    return el.indeterminate ? 'mixed' : el.checked;
  const aria = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
  if (aria === 'true') return true;
  if (aria === 'mixed') return 'mixed';
  if (aria === 'false') return false;
  return null;
}"""

FRAME_FOCUSED = r"""async function() {
  // `this` is an <iframe> whose (out-of-process) document was just given
  // the focus. This document learns it through the browser, so once the
  // <iframe> is its active element the browser routes keys into the frame.
  const active = () => {
    let a = document.activeElement;
    while (a && a !== this && a.shadowRoot && a.shadowRoot.activeElement)
      a = a.shadowRoot.activeElement;
    return a === this;
  };
  const until = performance.now() + 1000;
  while (!active() && performance.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return active();
}"""

FILL_PREPARE = r"""function(value) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const tag = el.tagName;
  if (tag === 'INPUT') {
    const type = (el.type || 'text').toLowerCase();
    const typing = ['text', 'search', 'email', 'url', 'tel', 'password', 'number', ''];
    if (['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image', 'hidden']
        .includes(type))
      return {error: `an <input type=${type}> cannot be filled`};
    if (el.readOnly) return {error: 'the field is read-only'};
    if (!typing.includes(type)) {
      el.focus();
      const proto = Object.getPrototypeOf(el);
      const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
      setter.call(el, value);
      if (el.value !== value) return {error: `"${value}" is not a valid ${type} value`};
      el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
      el.dispatchEvent(new Event('change', {bubbles: true}));
      return {done: true};
    }
    el.focus(); el.select();
    return {done: false};
  }
  if (tag === 'TEXTAREA') {
    if (el.readOnly) return {error: 'the field is read-only'};
    el.focus(); el.select(); return {done: false};
  }
  if (el.isContentEditable) {
    el.focus();
    const range = document.createRange(); range.selectNodeContents(el);
    const sel = el.ownerDocument.getSelection(); sel.removeAllRanges(); sel.addRange(range);
    return {done: false};
  }
  return {error: `a <${tag.toLowerCase()}> is not a text field`};
}"""

SELECT_OPTIONS = r"""function(wanted) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (el.tagName === 'SELECT') {
    const options = [...el.options];
    const picked = [];
    for (const w of wanted) {
      const o = options.find((o) => o.value === w) || options.find((o) => o.label === w)
        || options.find((o) => o.text.trim() === w.trim());
      if (!o) return {error: 'missing', wanted: w,
        available: options.map((o) => o.label || o.value).slice(0, 30)};
      if (o.disabled) return {error: 'disabled', wanted: w};
      picked.push(o);
    }
    if (picked.length > 1 && !el.multiple)
      return {error: 'single', wanted: wanted.join(', ')};
    for (const o of options) o.selected = picked.includes(o);
    el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
    return {selected: picked.map((o) => o.value)};
  }
  return {error: 'kind'};
}"""
