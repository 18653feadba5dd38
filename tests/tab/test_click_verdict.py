"""How a click is judged from what the pointer guards saw (pure logic)."""

from __future__ import annotations

import pytest

from kobrowser._tab._pointer import Guards, click_verdict


def guards(
    *,
    ok: int = 0,
    blocked: int = 0,
    misrouted: int = 0,
    pressed: int = 0,
    downs: int = 0,
    detached: bool = False,
    unpressed: int = 0,
    followed: int = 0,
) -> Guards:
    return Guards(
        ok=ok,
        blocked=blocked,
        misrouted=misrouted,
        moves=1,
        downs=downs,
        ups=0,
        pressed=pressed,
        detached=detached,
        unpressed=unpressed,
        followed=followed,
    )


@pytest.mark.parametrize(
    ("seen", "count", "verdict"),
    [
        # The frame navigated away during the click: it was delivered.
        (None, 1, "done"),
        # The whole click reached the element.
        (guards(ok=5, pressed=1, downs=1), 1, "done"),
        (guards(ok=11, pressed=2, downs=2), 2, "done"),
        # Nothing anywhere saw it (a page listener that ran first stopped it):
        # sending it again could act twice, so it counts as sent.
        (guards(), 1, "done"),
        # The press went to another element of the element's frame (the page
        # moved under the pointer); the guard blocked it and the release.
        (guards(blocked=4, downs=1), 1, "retry"),
        # Chrome routed the click to the parent frame, onto the <iframe>.
        (guards(misrouted=5), 1, "retry"),
        # Mixed: the press routed to the parent, the release to the frame.
        (guards(blocked=2, misrouted=2), 1, "retry"),
        # The element was pressed, then the release went elsewhere: the page
        # received the click (never a failure), and sending it again would
        # press the element twice.
        (guards(ok=2, blocked=3, pressed=1, downs=1), 1, "done"),
        (guards(ok=2, misrouted=2, pressed=1, downs=1), 1, "done"),
        # ... the rest of it let through where a real mouse sends it.
        (guards(ok=2, pressed=1, downs=1, followed=3), 1, "done"),
        # The page removed the element in answer to its press (a menu that
        # picks on mousedown): done; the rest of it stayed blocked.
        (guards(ok=2, blocked=3, pressed=1, downs=1, detached=True), 1, "done"),
        # Removed before any press reached it: sent again (and found stale).
        (guards(blocked=4, downs=1, detached=True), 1, "retry"),
        # A double click whose second press went elsewhere: the first reached it.
        (guards(ok=5, blocked=4, pressed=1, downs=2), 2, "done"),
        # The page stopped the pointerdown (a window listener that ran first)
        # and the element got the mousedown; the release went elsewhere.
        (guards(ok=1, blocked=3), 1, "done"),
        # The page stopped the whole press; the rest reached the element.
        (guards(ok=3, unpressed=3), 1, "done"),
        # The page stopped the whole press; the rest went elsewhere: the
        # page's early listener saw it all, so it is done, not sent again.
        (guards(blocked=3, unpressed=3), 1, "done"),
        (guards(ok=2, blocked=1, unpressed=3), 1, "done"),
        (guards(ok=2, misrouted=2, unpressed=2), 1, "done"),
        (guards(unpressed=3, followed=3), 1, "done"),
        # ... unless the page removed the element in answer to that press.
        (guards(blocked=3, unpressed=3, detached=True), 1, "done"),
    ],
)
def test_verdict(seen: Guards | None, count: int, verdict: str) -> None:
    assert click_verdict(seen, count) == verdict
