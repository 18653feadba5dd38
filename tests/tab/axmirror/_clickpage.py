"""A page of clickable things and an in-page random mutator for the kept clickable map.

``click_page(rows)``: rows with pointer areas (a class and inline styles),
elements with listeners of their own (added by script and ``onclick``),
links, buttons, plain text, nested pointer spans, and one pointer area with
about :data:`~kobrowser._tab._clickable.MAX_TEXT_NODES` text nodes (changes push
it over the limit and back). ``CLICK_MUTATE_JS`` defines
``window.__clickMutate(seed, n, onlyText)`` (tests/tab/axmirror/clickmutate.js):
changes the kept map follows (text replaced, added, removed, moved,
whitespace, characters, comments, ``aria-pressed`` and ``data-n``
attributes) three times in four, else class, style, ``onclick``, a
``data-hot`` attribute a rule makes ``cursor: pointer``, insertions with
listeners, removals, CSS rules inserted and deleted, and a sheet disabled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kobrowser import Tab
from kobrowser._tab._clickable import MAX_TEXT_NODES
from kobrowser._tab._clickwatch import WORLD

__all__ = ["CLICK_MUTATE_JS", "click_page", "in_worlds", "watchers"]


def click_page(rows: int = 30, *, head: str = "") -> str:
    big = "".join(f"w{i} " if i % 2 else f"<i>w{i}</i>" for i in range(MAX_TEXT_NODES - 2))
    out = [
        "<!doctype html><html><head><meta charset=utf-8><title>Clickable</title>",
        "<style id=css>.ptr { cursor: pointer } .plain { color: #333 }"
        " [data-hot] { cursor: pointer }</style>",
        head,
        "</head><body><h1>Clickable <span>page</span></h1>",
        f"<div id=big class=ptr>{big}</div><ul id=list>",
    ]
    for i in range(rows):
        out.append(
            f"<li id=r{i}><span class=ptr>Row <i>{i}</i> <span>text {i}</span></span> "
            f"<span class=lis>listens {i}</span> <a href=#r{i}>link {i}</a> "
            f"<button>Toggle {i}</button> <span class=plain>plain {i}</span> "
            f"<div style='cursor:pointer'>styled <b>{i}</b></div></li>"
        )
    out.append(
        "</ul><footer>End</footer><script>"
        "document.querySelectorAll('.lis').forEach(e => e.addEventListener('click', () => {}));"
        "</script></body></html>"
    )
    return "".join(out)


CLICK_MUTATE_JS = (Path(__file__).parent / "clickmutate.js").read_text()
"""Defines ``window.__clickMutate(seed, n, onlyText)`` (see clickmutate.js)."""


async def in_worlds(tab: Tab, expression: str) -> list[Any]:
    """``expression`` in the watcher's world of each frame of the page, top first."""
    tree = await tab.cdp.send("Page.getFrameTree", timeout=10)
    frames, stack = [], [tree["frameTree"]]
    while stack:
        node = stack.pop(0)
        frames.append(node["frame"]["id"])
        stack.extend(node.get("childFrames", []))
    out = []
    for frame_id in frames:
        world = await tab.cdp.send(
            "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD}, timeout=10
        )
        found = await tab.cdp.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": world["executionContextId"],
                "returnByValue": True,
            },
            timeout=10,
        )
        assert "exceptionDetails" not in found, found
        out.append(found["result"].get("value"))
    return out


async def watchers(tab: Tab) -> list[str]:
    """``typeof globalThis.__kbClickWatch`` in the watcher's world of each frame, top first."""
    return await in_worlds(tab, "typeof globalThis.__kbClickWatch")
