(() => {
  let state = 1;
  const rnd = (n) => { state = (state * 48271) % 2147483647; return state % n; };
  const pick = (list) => list[rnd(list.length)];
  const all = (sel) => Array.from(document.querySelectorAll(sel));
  const texts = () => {
    const out = [];
    const walker = document.createTreeWalker(document.getElementById('list'), NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) out.push(walker.currentNode);
    return out;
  };
  const elements = () => all('#list *');
  let made = 0;
  const noop = () => {};
  const kinds = {
    // Text only (the kept map follows these without a fresh read).
    text() { const e = pick(elements()); if (e && !e.matches('input')) e.textContent = 'changed ' + made; },
    buttonText() { const b = pick(all('#list button')); if (b) b.textContent = 'Done ' + made; },
    addText() { const e = pick(elements()); if (e && !e.matches('input')) e.appendChild(document.createTextNode(' more ' + made)); },
    addSpace() { const e = pick(elements()); if (e && !e.matches('input')) e.insertBefore(document.createTextNode('\n  '), e.firstChild); },
    removeText() { const t = pick(texts()); if (t) t.remove(); },
    moveText() { const t = pick(texts()); const e = pick(elements()); if (t && e && !e.matches('input')) e.appendChild(t); },
    chars() { const t = pick(texts()); if (t) t.data = 'data ' + made; },
    bigAdd() { const b = document.getElementById('big'); for (let i = 0; i < 1 + rnd(4); i++) b.appendChild(document.createTextNode(' w' + made + '.' + i)); },
    bigRemove() { const b = document.getElementById('big'); for (let i = 0; i < 1 + rnd(4); i++) { const t = Array.from(b.childNodes).filter((n) => n.nodeType === 3).pop(); if (t) t.remove(); } },
    comment() { const e = pick(elements()); if (e) e.appendChild(document.createComment('c' + made)); },
    aria() { const b = pick(all('#list button')); if (b) b.setAttribute('aria-pressed', b.getAttribute('aria-pressed') === 'true' ? 'false' : 'true'); },
    data() { const e = pick(elements()); if (e) e.dataset.n = String(made); },
    // Anything else (the kept map is read afresh).
    pointerClass() { const e = pick(elements()); if (e) e.classList.toggle('ptr'); },
    pointerStyle() { const e = pick(elements()); if (e) e.style.cursor = e.style.cursor ? '' : 'pointer'; },
    onclickAttr() { const e = pick(elements()); if (e) { if (e.hasAttribute('onclick')) e.removeAttribute('onclick'); else e.setAttribute('onclick', 'void 0'); } },
    insert() { const li = document.createElement('li'); li.innerHTML = '<span class=ptr>New ' + made + '</span> <b>bold</b>'; const r = all('#list > li'); document.getElementById('list').insertBefore(li, r.length ? pick(r) : null); },
    insertListener() { const s = document.createElement('span'); s.textContent = 'listens ' + made; s.addEventListener('click', noop); const r = pick(all('#list > li')); if (r) r.appendChild(s); },
    remove() { const r = all('#list > li'); if (r.length > 5) pick(r).remove(); },
    rule() { const sheet = document.getElementById('css').sheet; if (sheet.cssRules.length > 3) sheet.deleteRule(sheet.cssRules.length - 1); else sheet.insertRule('li > b { cursor: pointer }', sheet.cssRules.length); },
    hot() { const e = pick(elements()); if (e) e.toggleAttribute('data-hot'); },
    sheetOff() { const sheet = document.getElementById('css').sheet; sheet.disabled = !sheet.disabled; },
  };
  const textOnly = ['text', 'buttonText', 'addText', 'addSpace', 'removeText', 'moveText', 'chars', 'bigAdd', 'bigRemove', 'comment', 'aria', 'data'];
  const names = Object.keys(kinds);
  // window.__clickMutate(seed, n, onlyText): n random changes; their names.
  window.__clickMutate = (seed, n, onlyText) => {
    state = seed % 2147483646 + 1;
    const done = [];
    for (let k = 0; k < n; k++) {
      const name = onlyText || rnd(4) ? pick(textOnly) : pick(names);
      kinds[name](); made++; done.push(name);
    }
    return done;
  };
  return names.length;
})()
