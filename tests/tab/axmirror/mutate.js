(() => {
  let state = 1;
  const rnd = (n) => { state = (state * 48271) % 2147483647; return state % n; };
  const pick = (list) => list[rnd(list.length)];
  const rows = () => Array.from(document.querySelectorAll('#list > li'));
  let made = 0;
  const kinds = {
    text() { const s = pick(document.querySelectorAll('li span.t span')); if (s) s.textContent = 'changed ' + made; },
    nestedText() { const i = pick(document.querySelectorAll('li i')); if (i) i.textContent = String(made); },
    attr() { const b = pick(document.querySelectorAll('li button')); if (b) b.setAttribute('aria-pressed', b.getAttribute('aria-pressed') === 'true' ? 'false' : 'true'); },
    label() { const a = pick(document.querySelectorAll('li a')); if (a) a.setAttribute('aria-label', 'label ' + made); },
    disable() { const b = pick(document.querySelectorAll('li button')); if (b) b.disabled = !b.disabled; },
    checkScript() { const c = pick(document.querySelectorAll('li input[type=checkbox]')); if (c) c.checked = !c.checked; },
    checkClick() { const c = pick(document.querySelectorAll('li input[type=checkbox]')); if (c) c.click(); },
    value() { const f = pick(document.querySelectorAll('li input:not([type])')); if (f) f.value = 'typed ' + made; },
    selectScript() { const s = document.getElementById('sel'); s.selectedIndex = rnd(3); },
    selectInput() { const s = document.getElementById('sel'); s.selectedIndex = rnd(3); s.dispatchEvent(new Event('change', {bubbles: true})); },
    listbox() { const opts = document.querySelectorAll('#lb [role=option]'); const k = rnd(opts.length); opts.forEach((o, i) => o.setAttribute('aria-selected', String(i === k))); },
    insert() { const li = document.createElement('li'); li.innerHTML = '<span class=t>New <i>' + made + '</i> <span>text</span></span> <button>New ' + made + '</button>'; const r = rows(); document.getElementById('list').insertBefore(li, r.length ? pick(r) : null); },
    remove() { const r = rows(); if (r.length > 5) pick(r).remove(); },
    move() { const r = rows(); if (r.length > 2) document.getElementById('list').insertBefore(pick(r), pick(r)); },
    hide() { const r = pick(rows()); if (r) r.hidden = !r.hidden; },
    ariaHide() { const r = pick(rows()); if (r) r.setAttribute('aria-hidden', r.getAttribute('aria-hidden') === 'true' ? 'false' : 'true'); },
    display() { const r = pick(rows()); if (r) r.style.display = r.style.display === 'none' ? '' : 'none'; },
    details() { const d = document.getElementById('det'); d.open = !d.open; },
    shadow() { const s = document.getElementById('host').shadowRoot.getElementById('s'); s.textContent = 'shadow ' + made; },
    shadowInsert() { const r = document.getElementById('host').shadowRoot; const b = document.createElement('button'); b.textContent = 'Shadow ' + made; r.appendChild(b); if (r.children.length > 6) r.children[2].remove(); },
    role() { const r = pick(rows()); if (r) { const s = r.querySelector('span.t'); if (s) s.setAttribute('role', s.getAttribute('role') ? '' : 'note'); } },
  };
  const names = Object.keys(kinds);
  window.__mutate = (seed, n) => {
    state = seed % 2147483646 + 1;
    const done = [];
    for (let k = 0; k < n; k++) { const name = pick(names); kinds[name](); made++; done.push(name); }
    return done;
  };
  return names.length;
})()
