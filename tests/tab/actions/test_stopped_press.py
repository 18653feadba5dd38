"""A click whose press the page swallows before kobrowser's guard sees it.

A page script that registered a window capture listener before the guard
(kobrowser installs it at the first click) runs first; one that stops the
press (``stopImmediatePropagation``, or ``preventDefault`` on
``pointerdown``, which cancels the ``mousedown``) hides it from the guard
(``stopPropagation`` does not: the window's later listeners still run).
For a real mouse the rest of the click still happens; the page's early
listeners see every event of ours. So one ``click`` must reach them once:
never resent, in the top frame as in same-site and cross-origin frames.
"""

from __future__ import annotations

from typing import Any

import pytest

from kobrowser import NotInteractableError

from ._pages import eval_in, find, iframe

pytestmark = pytest.mark.anyio

# The page counts, in listeners that run before any guard, every button event
# of each type, then ``STOP`` swallows the press. ``onclick`` counts the
# clicks the button itself got.
STOPPED = """
<button id="target" onclick="window.__onclick++">Target</button>
<script>
window.__seen = {}; window.__onclick = 0;
for (const t of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'])
  addEventListener(t, (e) => {
    if (e.isTrusted) window.__seen[t] = (window.__seen[t] || 0) + 1;
  }, true);
STOP
</script>
"""

STOPS = {
    # Both presses stopped on the window: no listener after this one sees them.
    "both-stopped": "for (const t of ['pointerdown', 'mousedown'])\n"
    "  addEventListener(t, (e) => e.stopImmediatePropagation(), true);",
    # A cancelled pointerdown: Chrome sends no mousedown (nor mouseup) at all.
    "pointerdown-cancelled": "addEventListener('pointerdown', (e) => "
    "{ e.preventDefault(); e.stopImmediatePropagation(); }, true);",
}

FRAMES = ["same-site-frame", "cross-origin-frame"]
WHERE = ["plain", *FRAMES]


async def _click(tab: Any, element_id: int, *, count: int = 1) -> Exception | None:
    """Click (``count`` 2: double-click); the error it raised, if any (the
    counts of what the page saw are checked first)."""
    try:
        await (tab.dblclick if count == 2 else tab.click)(element_id, timeout=10)
    except NotInteractableError as error:
        return error
    return None


def _url(page_url: Any, body: str, where: str) -> str:
    if where == "plain":
        return str(page_url(body))
    inner = page_url(body, cross=where == "cross-origin-frame")
    return str(page_url(iframe(inner, 400, 200, "Frame")))


async def _seen(element: Any) -> list[Any]:
    return list(
        await eval_in(
            element,
            "function() { const w = this.ownerDocument.defaultView; "
            "return [w.__seen, w.__onclick]; }",
        )
    )


@pytest.mark.parametrize("stop", list(STOPS))
@pytest.mark.parametrize("where", FRAMES)
async def test_click_whose_press_the_page_stopped_is_sent_once(
    open_tab: Any, page_url: Any, where: str, stop: str
) -> None:
    """The page's early listeners see exactly one click, the element gets it
    (the page swallowed only the press), and the action succeeds."""
    async with open_tab(_url(page_url, STOPPED.replace("STOP", STOPS[stop]), where)) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Target")
        failed = await _click(tab, button.id)
        seen, onclick = await _seen(button)
        # A cancelled pointerdown cancels the mousedown and mouseup too.
        mouse = {} if stop == "pointerdown-cancelled" else {"mousedown": 1, "mouseup": 1}
        assert seen == {"pointerdown": 1, "pointerup": 1, "click": 1, **mouse}
        assert onclick == 1
        assert failed is None


@pytest.mark.parametrize("where", FRAMES)
async def test_double_click_whose_presses_the_page_stopped_is_sent_once(
    open_tab: Any, page_url: Any, where: str
) -> None:
    async with open_tab(
        _url(page_url, STOPPED.replace("STOP", STOPS["both-stopped"]), where)
    ) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Target")
        failed = await _click(tab, button.id, count=2)
        seen, onclick = await _seen(button)
        assert seen == {"pointerdown": 2, "mousedown": 2, "pointerup": 2, "mouseup": 2, "click": 2}
        assert onclick == 2
        assert failed is None


# The page swallows the press and, in answer to it, covers the button: the
# release and the click land on the cover. For a real mouse the button gets
# no click; kobrowser lets the rest go there too and must not press again.
STOPPED_AND_COVERED = STOPPED.replace(
    "STOP",
    """
const cover = document.createElement('div');
cover.id = 'cover';
cover.style = 'position:fixed;left:0;top:0;width:100%;height:100%;display:none';
document.body.append(cover);
for (const t of ['pointerdown', 'mousedown'])
  addEventListener(t, (e) => { e.stopImmediatePropagation(); cover.style.display = 'block'; },
    true);
// The cover goes once the click landed on it (a click sent again would find
// the button uncovered).
addEventListener('click', () => setTimeout(() => { cover.style.display = 'none'; }), true);
""",
)


@pytest.mark.parametrize("where", WHERE)
async def test_click_whose_stopped_press_moved_the_page_is_received_once(
    open_tab: Any, page_url: Any, where: str
) -> None:
    """The release after a press the page swallowed went elsewhere: the page
    received the click, so it succeeds (never reported failed), is not sent
    again (that would show the page a second one), and the page's early
    listeners saw one click."""
    async with open_tab(_url(page_url, STOPPED_AND_COVERED, where)) as tab:
        snap = await tab.snapshot()
        button = find(snap, "button", "Target")
        failed = await _click(tab, button.id)
        seen, onclick = await _seen(button)
        assert seen == {"pointerdown": 1, "mousedown": 1, "pointerup": 1, "mouseup": 1, "click": 1}
        assert onclick == 0
        assert failed is None
