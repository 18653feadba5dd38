"""The clickable map of a frame session (kobrowser/_tab/_clickable.py), in a real Chromium.

Top level, a same-origin (same-process) frame read through the page's
session, and a cross-origin (out-of-process) frame read through its own.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser._tab._clickable import MAX_TEXT_NODES, clickable_nodes
from kobrowser.cdp import CDPSession

pytestmark = pytest.mark.anyio

OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]

BIG = "".join(f"<span>w{i} </span>" for i in range(MAX_TEXT_NODES + 1))

SHAPES = f"""<!doctype html><html><head><title>Clickable</title></head><body>
<p id=para>Faucibus libero <span id=listener>massa</span> nec.</p>
<div id=feed><div id=r1 style="cursor:pointer">Row <b id=b1>one</b></div><div id=r2
 style="cursor:pointer">Row two</div></div>
<div id=empty style="width:20px;height:20px"></div>
<p>Tags: <span id=tag style="cursor:pointer">alpha</span></p>
<a id=link href="#x">Link</a>
<div id=plain>plain</div>
<div id=big style="cursor:pointer">{BIG}</div>
<div id=inline-handler onclick="void 0">inline</div>
<script>
  const noop = () => {{}};
  document.getElementById('listener').addEventListener('click', noop);
  document.getElementById('feed').addEventListener('click', noop);
  document.getElementById('empty').onclick = noop;
  document.body.addEventListener('click', noop);
  document.documentElement.addEventListener('click', noop);
</script>
</body></html>"""


async def backend_id(session: CDPSession, expression: str) -> int:
    """The backend node id of the node ``expression`` evaluates to in ``session``'s page."""
    found = await session.send("Runtime.evaluate", {"expression": expression}, timeout=10)
    object_id = found["result"]["objectId"]
    described = await session.send("DOM.describeNode", {"objectId": object_id}, timeout=10)
    await session.send("Runtime.releaseObject", {"objectId": object_id}, timeout=10)
    backend: int = described["node"]["backendNodeId"]
    return backend


def q(selector: str, doc: str = "document") -> str:
    return f"{doc}.querySelector({selector!r})"


async def test_clickable_elements_and_their_text(server: PageServer, open_tab: OpenTab) -> None:
    url = server.set_page("/clickable.html", SHAPES)
    async with open_tab(url) as tab:
        found = await clickable_nodes(tab.cdp, timeout=30)
        ids = {
            name: await backend_id(tab.cdp, expr)
            for name, expr in {
                "listener": q("#listener"),
                "listener text": q("#listener") + ".firstChild",
                "para text": q("#para") + ".firstChild",
                "feed": q("#feed"),
                "r1": q("#r1"),
                "r1 text": q("#r1") + ".firstChild",
                "b1": q("#b1"),
                "b1 text": q("#b1") + ".firstChild",
                "r2": q("#r2"),
                "empty": q("#empty"),
                "tag": q("#tag"),
                "tag text": q("#tag") + ".firstChild",
                "link": q("#link"),
                "plain": q("#plain"),
                "plain text": q("#plain") + ".firstChild",
                "big": q("#big"),
                "big text": q("#big span") + ".firstChild",
                "big span": q("#big span"),
                "inline-handler": q("#inline-handler"),
                "body": "document.body",
                "html": "document.documentElement",
            }.items()
        }
    # A listener of its own (addEventListener, on*, a property): itself.
    for name in ("listener", "feed", "empty", "inline-handler", "link"):
        assert found.get(ids[name]) == ids[name], name
    # The outermost element of a pointer area, not what inherits the pointer.
    for name in ("r1", "r2", "tag", "big"):
        assert found.get(ids[name]) == ids[name], name
    assert ids["b1"] not in found
    assert ids["big span"] not in found
    # Text nodes map to the innermost clickable element they are in.
    assert found[ids["listener text"]] == ids["listener"]
    assert found[ids["r1 text"]] == ids["r1"]
    assert found[ids["b1 text"]] == ids["r1"]
    assert found[ids["tag text"]] == ids["tag"]
    # ... but not in an element with more than MAX_TEXT_NODES text nodes.
    assert ids["big text"] not in found
    # Not clickable: plain content, and <html>/<body> whatever their listeners.
    for name in ("plain", "plain text", "para text", "body", "html"):
        assert ids[name] not in found, name


FRAME_BODY = """<!doctype html><title>Inner</title>
<p>Inner <span id=s>word</span> text</p><div id=row style="cursor:pointer">Row</div>
<script>document.getElementById('s').addEventListener('click', () => {})</script>"""


async def test_same_process_frame_is_in_the_page_sessions_map(
    server: PageServer, open_tab: OpenTab
) -> None:
    server.set_page("/inner-same.html", FRAME_BODY)
    url = server.set_page(
        "/outer-same.html",
        '<!doctype html><title>Outer</title><iframe src="/inner-same.html"></iframe>',
    )
    async with open_tab(url) as tab:
        await tab.wait_for_function(
            "document.querySelector('iframe').contentDocument?.getElementById('row') != null"
        )
        found = await clickable_nodes(tab.cdp, timeout=30)
        inner = "document.querySelector('iframe').contentDocument"
        span = await backend_id(tab.cdp, q("#s", inner))
        row = await backend_id(tab.cdp, q("#row", inner))
        word = await backend_id(tab.cdp, q("#s", inner) + ".firstChild")
    assert found.get(span) == span
    assert found.get(row) == row
    assert found.get(word) == span


async def test_cross_origin_frame_has_its_own_sessions_map(
    server: PageServer, open_tab: OpenTab
) -> None:
    server.set_page("/inner-cross.html", FRAME_BODY)
    url = server.set_page(
        "/outer-cross.html",
        "<!doctype html><title>Outer</title><span id=top style='cursor:pointer'>top</span>"
        f'<iframe src="{server.cross_url("/inner-cross.html")}"></iframe>',
    )
    async with open_tab(url) as tab:
        await tab.snapshot()  # waits for the frame's session to be set up
        [child] = tab._frames.frames()
        session = child.session
        for _ in range(50):  # the frame's document may still be loading
            ready = await session.send(
                "Runtime.evaluate",
                {"expression": "document.getElementById('row') != null", "returnByValue": True},
                timeout=10,
            )
            if ready["result"]["value"]:
                break
            await tab.wait(100)
        found = await clickable_nodes(session, timeout=30)
        span = await backend_id(session, q("#s"))
        row = await backend_id(session, q("#row"))
        top_found = await clickable_nodes(tab.cdp, timeout=30)
        top_span = await backend_id(tab.cdp, q("#top"))
    assert found.get(span) == span
    assert found.get(row) == row
    assert top_found.get(top_span) == top_span
    # The page's session does not render the out-of-process frame's document.
    assert len(found) < 10


async def test_shadow_trees_open_and_closed(server: PageServer, open_tab: OpenTab) -> None:
    url = server.set_page(
        "/clickable-shadow.html",
        "<!doctype html><title>Shadow</title><div id=open></div><div id=closed></div><script>"
        "for (const [id, mode] of [['open', 'open'], ['closed', 'closed']]) {"
        "  const root = document.getElementById(id).attachShadow({mode});"
        "  root.innerHTML = `<span class=s style='cursor:pointer'>${id} tag</span>`;"
        "  if (mode === 'open') window.openSpan = root.querySelector('.s');"
        "  else window.closedSpan = root.querySelector('.s');"
        "}</script>",
    )
    async with open_tab(url) as tab:
        found = await clickable_nodes(tab.cdp, timeout=30)
        opened = await backend_id(tab.cdp, "window.openSpan")
        closed = await backend_id(tab.cdp, "window.closedSpan")
        closed_text = await backend_id(tab.cdp, "window.closedSpan.firstChild")
    assert found.get(opened) == opened
    assert found.get(closed) == closed
    assert found.get(closed_text) == closed
