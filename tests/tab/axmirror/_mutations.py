"""A test page and an in-page random DOM mutator for the mirror tests.

``mutation_page(rows)`` is a page with text in nested spans, links, buttons,
checkboxes, a ``<select>``, a listbox, ARIA states, a ``<details>``, hidden
parts and a shadow root. ``MUTATE_JS`` defines ``window.__mutate(seed, n)``,
which makes ``n`` random changes of the kinds the mirror must follow and
returns their names (the script is tests/tab/axmirror/mutate.js).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MUTATE_JS", "mutation_page"]


def mutation_page(rows: int = 40) -> str:
    out = [
        "<!doctype html><html><head><meta charset=utf-8><title>Mirror test</title></head><body>",
        "<h1>Mirror <span>test <b>page</b></span></h1>",
        "<label>Pick <select id=sel><option>one</option><option>two</option>"
        "<option>three</option></select></label>",
        "<div role=listbox aria-label=Fruits id=lb><div role=option aria-selected=true>Apple</div>"
        "<div role=option aria-selected=false>Pear</div></div>",
        "<details id=det><summary>More</summary><p>Hidden until open</p></details>",
        "<div id=host></div>",
        "<ul id=list>",
    ]
    for i in range(rows):
        out.append(
            f"<li id=r{i}><span class=t>Row <i>{i}</i> <span>text {i}</span></span> "
            f"<a href=#r{i}>link {i}</a> <button aria-pressed=false>Toggle {i}</button> "
            f"<input type=checkbox aria-label='check {i}'> "
            f"<input aria-label='field {i}' value='v{i}'></li>"
        )
    out.append("</ul><footer>End</footer><script>")
    out.append(
        "const root = document.getElementById('host').attachShadow({mode: 'open'});"
        "root.innerHTML = '<p>Shadow <span id=s>text</span></p><button>Shadow button</button>';"
    )
    out.append("</script></body></html>")
    return "".join(out)


MUTATE_JS = (Path(__file__).parent / "mutate.js").read_text()
"""Defines ``window.__mutate(seed, n)`` (see mutate.js); evaluates to its kind count."""
