"""The pages of ``python -m benchmarks agent-steps``: four apps an agent works through.

Every page is built here at run time (nothing is committed as HTML) and
served by :class:`StepsServer`. The pages are held out of the tests: they
exist to count what an agent reads, not to check kobrowser's behaviour.

``/steps/form``   a checkout form whose sections open as you fill them
                  (contact, address, delivery, payment); each finished
                  section adds an "Edit" button to a summary bar at the top.
``/steps/list``   a product list you search, filter by category and sort;
                  rows are keyed (a row that stays is the same DOM node, as
                  React keeps it), the cart button counts what was added.
``/steps/table``  an inventory table you edit row by row: "Edit" turns a
                  row into fields and "Save" back into text (the row's cells
                  are rebuilt each time); a toast at the top says what was
                  saved, with an "Undo" button.
``/steps/feed``   a feed that loads ten more posts when scrolled near its
                  end; after the first load a "Show new posts" button
                  appears at the top.

Each page reports its state to the server (``GET /report?flow=NAME&state=...``)
whenever it changes, so the benchmark checks that a flow reached its goal
without reading anything through the browser under test.
"""

from __future__ import annotations

import json
import threading

from benchmarks._common import LocalServer

__all__ = ["FLOWS", "StepsServer", "feed_page", "form_page", "list_page", "table_page"]

FLOWS = ("form", "list", "table", "feed")

_NAV = (
    "<header><nav aria-label=Main><a href=/>Home</a> <a href=/shop>Shop</a> "
    "<a href=/deals>Deals</a> <a href=/orders>Orders</a> <a href=/account>Account</a> "
    "<a href=/help>Help</a></nav></header>"
)
_FOOTER = (
    "<footer><a href=/about>About us</a> <a href=/careers>Careers</a> "
    "<a href=/terms>Terms</a> <a href=/privacy>Privacy</a> <a href=/contact>Contact</a>"
    "</footer>"
)


def _page(title: str, body: str, script: str, flow: str) -> str:
    report = (
        "function report(state){fetch('/report?flow=" + flow + "&state='"
        "+encodeURIComponent(JSON.stringify(state)))}"
    )
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>"
        "<style>[hidden]{display:none}body{font:14px sans-serif}</style></head>"
        f"<body>{_NAV}{body}{_FOOTER}<script>{report}\n{script}</script></body></html>"
    )


# -- 1. a long form whose sections open as you fill them ----------------------------------

_SECTIONS = (
    ("contact", "Contact", (("Full name", "text"), ("Email", "email"), ("Phone", "tel"))),
    ("address", "Address", (("Street", "text"), ("City", "text"), ("Postal code", "text"))),
)


def form_page() -> str:
    """A checkout form in four sections, each opening when the one above is complete."""
    sections = []
    for key, title, fields in _SECTIONS:
        inputs = "".join(
            f"<p><label>{label} <input name='{label}' type={kind}></label></p>"
            for label, kind in fields
        )
        extra = ""
        if key == "address":
            extra = (
                "<p><label>Country <select name=Country><option value=''>Choose...</option>"
                "<option>Austria</option><option>Belgium</option><option>Canada</option>"
                "<option>Denmark</option><option>France</option><option>Germany</option>"
                "</select></label></p>"
            )
        hidden = "" if key == "contact" else " hidden"
        sections.append(
            f"<section id={key} data-step{hidden}><h2>{title}</h2>{inputs}{extra}</section>"
        )
    sections.append(
        "<section id=delivery data-step hidden><h2>Delivery</h2>"
        "<fieldset><legend>Speed</legend>"
        "<label><input type=radio name=speed value=standard> Standard (3-5 days)</label>"
        "<label><input type=radio name=speed value=express> Express (next day)</label>"
        "<label><input type=radio name=speed value=pickup> Pick up in store</label></fieldset>"
        "<p><label><input type=checkbox name=gift> Gift wrap</label></p>"
        "<p><label>Delivery notes <textarea name='Delivery notes'></textarea></label></p>"
        "<p><button type=button id=to-payment>Continue to payment</button></p></section>"
        "<section id=payment data-step hidden><h2>Payment</h2>"
        "<p><label>Card number <input name='Card number'></label></p>"
        "<p><label>Expiry <input name=Expiry placeholder=MM/YY></label></p>"
        "<p><label>Security code <input name='Security code'></label></p>"
        "<p><label><input type=checkbox name=terms> I accept the terms</label></p>"
        "<p><button type=button id=place>Place order</button></p></section>"
    )
    body = (
        "<main><h1>Checkout</h1><div id=summary role=region aria-label='Completed steps'>"
        "</div><form onsubmit='return false'>" + "".join(sections) + "</form>"
        "<p id=done hidden role=status></p></main>"
    )
    script = """
const form = document.forms[0];
const steps = [...document.querySelectorAll('[data-step]')];
const summary = document.getElementById('summary');
function filled(section) {
  return [...section.querySelectorAll('input[type=text],input[type=email],input[type=tel],'
    + 'input:not([type]),select')].every(e => e.value.trim() !== '');
}
function complete(i) {
  if (steps[i].dataset.done) return;
  steps[i].dataset.done = '1';
  const title = steps[i].querySelector('h2').textContent;
  const b = document.createElement('button');
  b.type = 'button'; b.textContent = 'Edit ' + title.toLowerCase();
  b.onclick = () => steps[i].querySelector('input,select').focus();
  summary.prepend(b);
  if (steps[i + 1]) steps[i + 1].hidden = false;
  report({complete: i + 1});
}
function check() {
  for (let i = 0; i < 2; i++) if (!steps[i].hidden && filled(steps[i])) complete(i);
}
form.addEventListener('input', check);
form.addEventListener('change', check);
document.getElementById('to-payment').onclick = () => {
  if (form.speed.value) complete(2);
};
document.getElementById('place').onclick = () => {
  const data = Object.fromEntries(new FormData(form));
  if (!form.terms.checked) return;
  const done = document.getElementById('done');
  done.hidden = false; done.textContent = 'Order placed. Thank you, ' + data['Full name'] + '.';
  report({placed: data});
};
"""
    return _page("Checkout", body, script, "form")


# -- 2. a list you filter and sort ---------------------------------------------------------

_PRODUCTS = [
    ("Wool Runner", "Shoes", 98), ("Tree Dasher", "Shoes", 135), ("Canvas Sneaker", "Shoes", 60),
    ("Trail Boot", "Shoes", 180), ("Wool Lounger", "Shoes", 95), ("Slip-on Loafer", "Shoes", 75),
    ("Linen Shirt", "Shirts", 68), ("Wool Overshirt", "Shirts", 120),
    ("Oxford Shirt", "Shirts", 55),
    ("Flannel Shirt", "Shirts", 72), ("Polo Shirt", "Shirts", 45), ("Denim Shirt", "Shirts", 80),
    ("Bucket Hat", "Hats", 30), ("Wool Beanie", "Hats", 25), ("Straw Hat", "Hats", 40),
    ("Baseball Cap", "Hats", 22), ("Felt Fedora", "Hats", 85), ("Sun Visor", "Hats", 18),
    ("Wool Socks", "Socks", 16), ("Ankle Socks", "Socks", 10), ("Hiking Socks", "Socks", 22),
    ("Dress Socks", "Socks", 14), ("Wool Scarf", "Scarves", 48), ("Silk Scarf", "Scarves", 90),
]  # fmt: skip


def list_page() -> str:
    """A keyed product list with search, a category filter, sorting and a cart button."""
    body = (
        "<main><h1>Shop</h1><p><button type=button id=cart>Cart (0)</button></p>"
        "<p><label>Search products <input type=search id=q></label> "
        "<label>Category <select id=cat><option>All</option><option>Shoes</option>"
        "<option>Shirts</option><option>Hats</option><option>Socks</option>"
        "<option>Scarves</option></select></label> "
        "<button type=button id=by-price>Sort by price</button> "
        "<button type=button id=by-name>Sort by name</button></p>"
        "<p id=count role=status></p><ul id=items></ul></main>"
    )
    script = (
        "const PRODUCTS = "
        + json.dumps([{"name": n, "cat": c, "price": p} for n, c, p in _PRODUCTS])
        + ";\n"
        + """
const list = document.getElementById('items');
const rows = new Map();  // keyed rows: a product's row is one DOM node for the page's life
let sort = null; const cart = [];
for (const p of PRODUCTS) {
  const li = document.createElement('li');
  li.innerHTML = `<a href="/p/${p.name.replace(/ /g, '-')}">${p.name}</a> `
    + `<span>${p.cat}, $${p.price}</span> <button type=button>Add ${p.name} to cart</button>`;
  li.querySelector('button').onclick = (e) => {
    cart.push(p.name);
    e.target.textContent = 'Added ' + p.name;
    document.getElementById('cart').textContent = `Cart (${cart.length})`;
    report({cart, sort, q: q.value, cat: cat.value});
  };
  rows.set(p.name, li);
}
const q = document.getElementById('q'), cat = document.getElementById('cat');
function render() {
  let shown = PRODUCTS.filter(p => (cat.value === 'All' || p.cat === cat.value)
    && p.name.toLowerCase().includes(q.value.trim().toLowerCase()));
  if (sort === 'price') shown = [...shown].sort((a, b) => a.price - b.price);
  if (sort === 'name') shown = [...shown].sort((a, b) => a.name.localeCompare(b.name));
  const keep = new Set(shown.map(p => p.name));
  for (const [name, li] of rows) if (!keep.has(name) && li.parentNode) li.remove();
  for (const p of shown) list.appendChild(rows.get(p.name));  // moves kept rows, no rebuild
  document.getElementById('count').textContent = `${shown.length} products`;
}
q.addEventListener('input', render);
cat.addEventListener('change', render);
document.getElementById('by-price').onclick = () => { sort = 'price'; render(); };
document.getElementById('by-name').onclick = () => { sort = 'name'; render(); };
render();
"""
    )
    return _page("Shop", body, script, "list")


# -- 3. a table you edit row by row ---------------------------------------------------------

_ITEMS = [
    ("Bolt M4", 120, "0.10"), ("Bolt M6", 80, "0.15"), ("Nut M4", 300, "0.05"),
    ("Nut M6", 210, "0.07"), ("Washer 4 mm", 500, "0.02"), ("Washer 6 mm", 420, "0.03"),
    ("Hinge small", 40, "2.50"), ("Hinge large", 25, "4.20"), ("Bracket L", 60, "1.80"),
    ("Bracket T", 35, "2.10"), ("Screw 3x20", 900, "0.04"), ("Screw 4x40", 650, "0.06"),
    ("Anchor 6 mm", 150, "0.12"), ("Anchor 8 mm", 110, "0.16"), ("Cable tie", 1000, "0.01"),
    ("Pipe clamp", 70, "0.90"), ("Spring", 55, "0.30"), ("Rivet", 800, "0.03"),
]  # fmt: skip


def table_page() -> str:
    """An inventory table edited one row at a time (rows are rebuilt on edit and save)."""
    body = (
        "<main><h1>Inventory</h1><div id=toast role=status></div>"
        "<table><thead><tr><th>Item</th><th>Quantity</th><th>Price</th><th>Actions</th></tr>"
        "</thead><tbody id=rows></tbody></table></main>"
    )
    script = (
        "const ITEMS = "
        + json.dumps([{"name": n, "qty": q, "price": p} for n, q, p in _ITEMS])
        + ";\n"
        + """
const body = document.getElementById('rows'), toast = document.getElementById('toast');
const esc = s => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
function view(item, tr) {
  tr.innerHTML = `<td>${esc(item.name)}</td><td>${item.qty}</td><td>${esc(item.price)}</td>`
    + `<td><button type=button>Edit ${esc(item.name)}</button></td>`;
  tr.querySelector('button').onclick = () => edit(item, tr);
}
function edit(item, tr) {
  tr.innerHTML = `<td>${esc(item.name)}</td>`
    + `<td><input aria-label="Quantity of ${esc(item.name)}" value="${item.qty}"></td>`
    + `<td><input aria-label="Price of ${esc(item.name)}" value="${esc(item.price)}"></td>`
    + `<td><button type=button>Save ${esc(item.name)}</button> `
    + `<button type=button>Cancel ${esc(item.name)}</button></td>`;
  const [qty, price] = tr.querySelectorAll('input');
  const [save, cancel] = tr.querySelectorAll('button');
  save.onclick = () => {
    const before = {...item};
    item.qty = Number(qty.value); item.price = price.value;
    view(item, tr);
    toast.innerHTML = `Saved ${esc(item.name)}. <button type=button>Undo</button>`;
    toast.querySelector('button').onclick = () => { Object.assign(item, before); view(item, tr);
      toast.textContent = ''; report(ITEMS); };
    report(ITEMS);
  };
  cancel.onclick = () => view(item, tr);
}
for (const item of ITEMS) { const tr = document.createElement('tr'); body.appendChild(tr);
  view(item, tr); }
"""
    )
    return _page("Inventory", body, script, "table")


# -- 4. an infinite-scroll feed ------------------------------------------------------------


def feed_page() -> str:
    """A feed that appends ten posts when scrolled near its end (up to 50)."""
    body = (
        "<main><h1>Feed</h1><div id=fresh></div><div id=posts></div>"
        "<p id=more role=status>Loading more posts...</p></main>"
    )
    script = """
const posts = document.getElementById('posts'), fresh = document.getElementById('fresh');
let count = 0; const liked = [];
const topics = ['gardening', 'bikes', 'bread', 'chess', 'birds', 'jazz', 'maps', 'tea'];
function post(n, where) {
  const a = document.createElement('article');
  a.innerHTML = `<h3>Post ${n}</h3><p>A short note about ${topics[n % topics.length]}, `
    + `number ${n}.</p><button type=button>Like post ${n}</button> `
    + `<a href="/post/${n}">Comments on post ${n}</a>`;
  a.querySelector('button').onclick = (e) => { liked.push(n);
    e.target.textContent = `Liked post ${n}`; report({liked}); };
  where === 'top' ? posts.prepend(a) : posts.appendChild(a);
}
function more() {
  for (let i = 0; i < 10; i++) post(++count);
  if (count === 20 && !fresh.firstChild) {
    const b = document.createElement('button');
    b.type = 'button'; b.textContent = 'Show 2 new posts';
    b.onclick = () => { post(101, 'top'); post(102, 'top'); b.remove();
      report({liked, fresh: true}); };
    fresh.appendChild(b);
  }
  if (count >= 50) document.getElementById('more').textContent = 'No more posts.';
}
function near() {
  if (count < 50 && scrollY + innerHeight >= document.documentElement.scrollHeight - 300) more();
}
addEventListener('scroll', near);
more();
"""
    return _page("Feed", body, script, "feed")


_PAGES = {"form": form_page, "list": list_page, "table": table_page, "feed": feed_page}


class StepsServer:
    """Serves ``/steps/NAME`` on 127.0.0.1 and records each page's reports.

    ``reports[flow]`` is the last state the flow's page reported (parsed
    JSON), for checking that a run reached its goal. Use as a context manager.
    """

    def __init__(self) -> None:
        self._server = LocalServer(self.render)
        self._lock = threading.Lock()
        self.reports: dict[str, object] = {}

    def __enter__(self) -> StepsServer:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()

    def url(self, flow: str) -> str:
        return self._server.url(f"/steps/{flow}")

    def take(self, flow: str) -> object:
        """The last state ``flow``'s page reported (and forget it)."""
        with self._lock:
            return self.reports.pop(flow, None)

    def render(self, path: str, query: dict[str, str], port: int) -> str | None:
        if path == "/report":
            with self._lock:
                self.reports[query.get("flow", "")] = json.loads(query.get("state", "null"))
            return "ok"
        name = path.removeprefix("/steps/")
        page = _PAGES.get(name)
        return page() if page is not None else None
