"""Generated benchmark pages, served from memory on two local origins.

Nothing here is committed as HTML: every page is built by a function at run
time and served by :class:`PageServer`, a :class:`~benchmarks._common.LocalServer`
listening on two ports, so one page can embed frames of another
origin (``127.0.0.1:A`` embeds ``localhost:B`` and the other way round; the
two are different sites, so Chrome puts them in different renderer processes
and the embedded frames become out-of-process iframes).

Pages (path on either port):

``/table``   2,400-row table, a link, a text cell, a button and a text field
             per row (about 40,000 AX nodes, an AX payload of about 19 MB).
``/same20``  20 same-origin iframes of a small form page.
``/cross20`` 20 cross-origin iframes (the other port) of the same form page.
``/nested``  frames nested 3 levels deep, 3 per level, origins alternating
             at every level (39 frames).
``/form``    the small page every frame shows.
"""

from __future__ import annotations

import html

from benchmarks._common import LocalServer

__all__ = ["PAGES", "PageServer", "form_page", "frames_page", "nested_page", "table_page"]

PAGES = ("table", "same20", "cross20", "nested")


def table_page(rows: int = 2400) -> str:
    """A big data table: per row a link, a text cell, a button and a text field."""
    out = [
        "<!doctype html><html><head><meta charset=utf-8><title>Orders - big table</title>",
        "<style>td{padding:1px 4px}</style></head><body>",
        "<header><nav><a href=/>Home</a> <a href=/orders>Orders</a></nav></header>",
        f"<main><h1>Orders</h1><p>{rows} orders in the last 30 days.</p>",
        "<table><thead><tr><th>Order</th><th>Customer</th><th>Action</th><th>Note</th>",
        "</tr></thead><tbody>",
    ]
    for i in range(rows):
        out.append(
            f"<tr><td><a href=/order/{i}>Order #{10000 + i}</a></td>"
            f"<td>Customer {i % 97} &middot; {i % 13 + 1} items</td>"
            f"<td><button>Refund {i}</button></td>"
            f"<td><input aria-label='Note for order {10000 + i}' value='note {i}'></td></tr>"
        )
    out.append("</tbody></table></main><footer>End of orders</footer></body></html>")
    return "".join(out)


def form_page(label: str = "Frame") -> str:
    """A small sign-in form (about 30 AX nodes), the content of every frame."""
    label = html.escape(label)
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{label}</title></head><body>"
        f"<h2>{label}</h2><p>Sign in to continue. <a href=/help>Help</a></p>"
        "<form><label>Email <input type=email required></label>"
        "<label>Password <input type=password value=secret></label>"
        "<label><input type=checkbox checked> Remember me</label>"
        "<button>Sign in</button> <button disabled>Cancel</button></form>"
        "<ul><li><a href=/a>Terms</a></li><li><a href=/b>Privacy</a></li></ul>"
        "</body></html>"
    )


def frames_page(count: int, src: str, title: str) -> str:
    """A page embedding ``count`` iframes of ``src`` (``{i}`` is the index)."""
    frames = "".join(
        f"<iframe title='Frame {i}' src='{src.format(i=i)}' width=300 height=150></iframe>"
        for i in range(count)
    )
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>Frames below.</p>{frames}</body></html>"
    )


def nested_page(level: int, levels: int, per_level: int, other_origin: str) -> str:
    """A level of the nested page: ``per_level`` frames of the other origin, one level down."""
    title = f"Nested level {level}"
    if level >= levels:
        return form_page(title)
    src = f"{other_origin}/nested?level={level + 1}&levels={levels}&per={per_level}&i={{i}}"
    return frames_page(per_level, src, title)


class PageServer:
    """Serves the pages on ``http://127.0.0.1:A`` and ``http://localhost:B``.

    Use as a context manager; ``url(name)`` is the page on the first origin.
    Subclasses add pages by overriding :meth:`render`.
    """

    def __init__(self, rows: int = 2400, frames: int = 20, levels: int = 3, per_level: int = 3):
        self.rows = rows
        self.frames = frames
        self.levels = levels
        self.per_level = per_level
        self._server = LocalServer(self.render, hosts=("127.0.0.1", "localhost"))
        self._table: str | None = None
        self.origin_a = ""
        self.origin_b = ""

    def __enter__(self) -> PageServer:
        self._server.start()
        self.origin_a, self.origin_b = self._server.origins
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()

    def url(self, page: str) -> str:
        return f"{self.origin_a}/{page}"

    def _other(self, port: int) -> str:
        return self.origin_b if port == self._server.ports[0] else self.origin_a

    def render(self, path: str, query: dict[str, str], port: int) -> str | None:
        if path == "/table":
            if self._table is None:
                self._table = table_page(self.rows)
            return self._table
        if path == "/form":
            return form_page(f"Frame {query.get('i', '')}")
        if path == "/same20":
            return frames_page(self.frames, "/form?i={i}", "Same-origin frames")
        if path == "/cross20":
            return frames_page(
                self.frames, self._other(port) + "/form?i={i}", "Cross-origin frames"
            )
        if path == "/nested":
            level = int(query.get("level", "0"))
            levels = int(query.get("levels", str(self.levels)))
            per = int(query.get("per", str(self.per_level)))
            return nested_page(level, levels, per, self._other(port))
        return None
