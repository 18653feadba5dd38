"""A generated mixed-size page set for the scrape benchmark, and a server for it.

:func:`corpus` is the one boundary the benchmark uses: it returns
``(path, html)`` pairs. It builds realistic pages of mixed size now
(articles, product listings, data tables, forms, documentation; from 3 KB to
a few hundred KB, deterministic by seed); it can later return the real-page
corpus of the snapshot benchmarks instead without touching the benchmark.

:func:`serve` writes the pages to a directory and serves it from a separate
process (:func:`benchmarks._common.serve_in_subprocess`), on 127.0.0.1, with
``Cache-Control: no-store`` and HTTP/1.1 keep-alive, so the page server's
Python never competes with the client under test for the GIL.
"""

from __future__ import annotations

import contextlib
import html
import random

from benchmarks._common import serve_in_subprocess

__all__ = ["corpus", "serve"]

_WORDS = [
    "order",
    "delivery",
    "account",
    "payment",
    "return",
    "policy",
    "customer",
    "service",
    "product",
    "review",
    "shipping",
    "price",
    "discount",
    "warranty",
    "support",
    "update",
    "release",
    "version",
    "feature",
    "guide",
    "install",
    "configure",
    "server",
    "client",
    "request",
    "response",
    "cache",
    "session",
    "token",
    "network",
    "market",
    "report",
    "quarter",
    "revenue",
    "growth",
    "team",
    "project",
    "meeting",
    "schedule",
    "budget",
    "plan",
]


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng, rng.randint(6, 18)) for _ in range(rng.randint(2, 6)))


def _chrome(title: str, body: str, rng: random.Random) -> str:
    nav = "".join(
        f"<li><a href='/section/{i}'>{rng.choice(_WORDS).title()}</a></li>" for i in range(8)
    )
    foot = "".join(
        f"<a href='/legal/{i}'>{w}</a> "
        for i, w in enumerate(("Terms", "Privacy", "Cookies", "Contact"))
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>"
        "<style>body{font:14px sans-serif;max-width:70em;margin:auto}"
        "nav li{display:inline;margin:0 .5em}td,th{padding:2px 6px}</style></head><body>"
        f"<header><a href='/'>Home</a><nav><ul>{nav}</ul></nav>"
        "<form role=search><input type=search aria-label=Search><button>Go</button></form>"
        f"</header><main>{body}</main><footer>{foot}</footer></body></html>"
    )


def article(rng: random.Random, i: int) -> str:
    title = f"Article {i}: {_sentence(rng, 5)[:-1]}"
    sections = []
    for s in range(rng.randint(2, 8)):
        paras = "".join(f"<p>{_paragraph(rng)}</p>" for _ in range(rng.randint(2, 6)))
        sections.append(f"<section><h2>Part {s + 1}</h2>{paras}</section>")
    related = "".join(
        f"<li><a href='/a/{rng.randint(0, 999)}'>{_sentence(rng, 4)}</a></li>" for _ in range(6)
    )
    body = (
        f"<article><h1>{html.escape(title)}</h1>{''.join(sections)}</article>"
        f"<aside><h2>Related</h2><ul>{related}</ul></aside>"
    )
    return _chrome(title, body, rng)


def listing(rng: random.Random, i: int) -> str:
    items = []
    for n in range(rng.randint(20, 120)):
        name = f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS)} {n}"
        items.append(
            f"<li><a href='/p/{i}/{n}'><img alt='{name}' width=1 height=1>{name}</a>"
            f"<span>${rng.randint(3, 400)}.{rng.randint(0, 99):02d}</span>"
            f"<button>Add {name} to cart</button></li>"
        )
    filters = "".join(f"<label><input type=checkbox> {w}</label>" for w in rng.sample(_WORDS, 6))
    body = (
        f"<h1>Catalogue {i}</h1><fieldset><legend>Filter</legend>{filters}</fieldset>"
        f"<ul>{''.join(items)}</ul>"
    )
    return _chrome(f"Catalogue {i}", body, rng)


def table(rng: random.Random, i: int, rows: int) -> str:
    head = "<tr><th>Id</th><th>Customer</th><th>Status</th><th>Total</th><th>Action</th></tr>"
    out = []
    for r in range(rows):
        out.append(
            f"<tr><td><a href='/o/{r}'>#{10000 + r}</a></td>"
            f"<td>{rng.choice(_WORDS).title()} {r % 97}</td>"
            f"<td>{rng.choice(('paid', 'open', 'shipped', 'refunded'))}</td>"
            f"<td>{rng.randint(1, 999)}.00</td><td><button>Details {r}</button></td></tr>"
        )
    body = (
        f"<h1>Orders {i}</h1><p>{rows} orders.</p>"
        f"<table><thead>{head}</thead><tbody>{''.join(out)}</tbody></table>"
    )
    return _chrome(f"Orders {i}", body, rng)


def form(rng: random.Random, i: int) -> str:
    fields = []
    for n in range(rng.randint(8, 30)):
        kind = rng.choice(("text", "email", "select", "checkbox", "textarea"))
        label = f"{rng.choice(_WORDS).title()} {n}"
        if kind == "select":
            opts = "".join(f"<option>{w}</option>" for w in rng.sample(_WORDS, 5))
            fields.append(f"<label>{label} <select>{opts}</select></label>")
        elif kind == "checkbox":
            fields.append(f"<label><input type=checkbox> {label}</label>")
        elif kind == "textarea":
            fields.append(f"<label>{label} <textarea></textarea></label>")
        else:
            fields.append(f"<label>{label} <input type={kind}></label>")
    body = f"<h1>Form {i}</h1><form>{'<br>'.join(fields)}<button>Submit</button></form>"
    return _chrome(f"Form {i}", body, rng)


def docs(rng: random.Random, i: int) -> str:
    parts = []
    for s in range(rng.randint(5, 25)):
        items = "".join(
            f"<li><code>{rng.choice(_WORDS)}()</code> {_sentence(rng, 8)}</li>"
            for _ in range(rng.randint(2, 8))
        )
        parts.append(
            f"<h2 id=s{s}>{_sentence(rng, 3)[:-1]}</h2><p>{_paragraph(rng)}</p><ul>{items}</ul>"
            f"<pre>{html.escape(_sentence(rng, 12))}</pre>"
        )
    toc = "".join(f"<li><a href='#s{s}'>Section {s}</a></li>" for s in range(len(parts)))
    body = f"<h1>Docs {i}</h1><nav aria-label=Contents><ol>{toc}</ol></nav>{''.join(parts)}"
    return _chrome(f"Docs {i}", body, rng)


def corpus(count: int = 240, seed: int = 14) -> list[tuple[str, str]]:
    """``count`` pages of mixed kind and size: ``(path, html)`` pairs.

    Mix: 35% articles, 20% listings, 15% forms, 15% docs, 12% tables of
    50-400 rows, 3% big tables of 1,500 rows.
    """
    rng = random.Random(seed)
    pages = []
    for i in range(count):
        roll = rng.random()
        if roll < 0.35:
            text = article(rng, i)
        elif roll < 0.55:
            text = listing(rng, i)
        elif roll < 0.70:
            text = form(rng, i)
        elif roll < 0.85:
            text = docs(rng, i)
        elif roll < 0.97:
            text = table(rng, i, rng.randint(50, 400))
        else:
            text = table(rng, i, 1500)
        pages.append((f"/c/{i}.html", text))
    return pages


def serve(pages: list[tuple[str, str]]) -> contextlib.AbstractContextManager[str]:
    """Serve ``pages`` from another process; gives the origin ``http://127.0.0.1:PORT``.

    :func:`benchmarks._common.serve_in_subprocess` (``text/html``, HTTP/1.1
    keep-alive, ``Cache-Control: no-store``).
    """
    return serve_in_subprocess(pages, prefix="kobrowser-bench-scrape-")
