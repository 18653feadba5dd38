"""Pointer actions of a tab: click, hover, drag, scroll, by snapshot id.

Every action resolves the id through the tab's last snapshot and verifies
the element is still the one that snapshot showed (same document, same
role and name) before touching it; then it waits for actionability and
dispatches trusted input. A stale id raises
:class:`~kobrowser.StaleElementError` and never acts on another element.

Cancelling an action abandons it between CDP calls; input already
dispatched is not undone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import anyio

from kobrowser._exceptions import (
    KoBrowserError,
    NotInteractableError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser._tab import _scripts
from kobrowser._tab._acting import ActionContext, left
from kobrowser._tab._input import modifier_mask
from kobrowser._tab._resolve import Target, call, locate, object_id_of

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline

__all__ = ["GUARD_MS", "click", "dblclick", "drag", "hover", "scroll", "scroll_into_view"]

GUARD_MS = 5000  # cleared right after each action; only a safety net
_HOVER_TRIES = 3  # moves sent before hover gives up on a frame that never sees them
_GUARD_READ_S = 5.0  # deadline floor for reading a guard after input was sent
_CLICK_TRIES = 5  # clicks sent before giving up on an element no press reaches


async def click(
    ctx: ActionContext,
    element_id: int,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: Sequence[str] = (),
    deadline: Deadline,
) -> None:
    """Click element ``element_id`` with a trusted mouse click; see :meth:`Tab.click`."""
    mask = modifier_mask(modifiers)
    for attempt in range(_CLICK_TRIES):
        if attempt:
            # Give the compositor a frame or two to catch up with the page
            # (a scroll, an out-of-process frame that just appeared).
            await anyio.sleep(min(0.05 * attempt, left(deadline)))
        target = await ctx.resolve(element_id, deadline)
        x, y, _rect = await locate(target, deadline=deadline, guard_ms=GUARD_MS)
        await ctx.mouse.click(
            x,
            y,
            timeout=left(deadline),
            button=button,
            click_count=click_count,
            modifiers=mask,
        )
        guards = await _read_guards(target, deadline, wait={"pointerup": click_count})
        if click_verdict(guards, click_count) == "done":
            return
    raise NotInteractableError(
        f"no click reached element {element_id}: it kept moving away from the pointer, "
        "or its frame kept missing the press. Take a new snapshot and try again.",
        element_id,
    )


def click_verdict(guards: Guards | None, click_count: int) -> str:
    """Judge one click by what reached the element.

    Returns:
        ``"retry"`` when nothing of the click reached the page: its press
        landed elsewhere (the page moved under the pointer, or Chrome routed
        it to a parent frame) and the guards blocked it and the rest, so it
        can be sent again. ``"done"`` otherwise: the click reached the
        element, or the page received it (its press reached the element and
        the rest went where a real mouse sends it; a page listener that ran
        before the guard stopped the press), or the element's frame
        navigated away. A click the page received is never reported as
        failed, and never sent again.
    """
    del click_count  # a double click is judged as one: by its first press
    if guards is None:
        return "done"
    if not guards.blocked and not guards.misrouted:
        return "done"
    if guards.ok == 0 and not guards.unpressed and not guards.followed:
        return "retry"
    return "done"


class Guards(NamedTuple):
    """What the pointer guards of one action saw."""

    ok: int
    """Button events that reached the element."""
    blocked: int
    """Button events blocked in any frame: they went to another element, or
    to the element after its press had gone elsewhere."""
    misrouted: int
    """Button events a frame on the way got on the ``<iframe>`` holding the
    element: Chrome routed them to that frame instead of into the child
    (blocked too)."""
    moves: int
    """Mouse moves the element's frame saw."""
    downs: int
    """Presses (``pointerdown``) the element's frame saw."""
    ups: int
    """Releases (``pointerup``) the element's frame saw."""
    pressed: int
    """Presses (``pointerdown``) that reached the element (a page that cancels
    one gets no ``mousedown``)."""
    detached: bool = False
    """Whether the element was out of its document, or no longer rendered
    (``display: none``), when the guard was read."""
    followed: int = 0
    """Releases and clicks of ours that went elsewhere after the press reached
    the element (or was stopped by the page), let through as a real mouse's."""
    unpressed: int = 0
    """Releases and clicks of ours the element's frame saw before any press
    (``pointerdown`` or ``mousedown``): a page listener that ran before the
    guard stopped the press (it reached that frame: Chrome sends the rest of
    a click where its press went)."""


async def _read_guards(
    target: Target,
    deadline: Deadline,
    *,
    keep: bool = False,
    wait: dict[str, int] | None = None,
) -> Guards | None:
    """Read (and unless ``keep``, disarm) the pointer guards ``locate`` armed.

    The guard is armed in the element's frame and in every parent frame
    (around the ``<iframe>`` on the way), so all of them are read: an
    event blocked in a parent frame never reached the element either.

    Returns:
        The counts (:class:`Guards`), or None when the element's frame is
        gone (the click navigated).
    """
    own = await _guard_call(target.session, target.object_id, keep, deadline, wait)
    if own is None:
        return None
    blocked = int(own.get("blocked", 0))
    misrouted = 0
    for parent_session, owner in target.chain:
        try:
            owner_id = await object_id_of(
                parent_session, owner, timeout=max(left(deadline), _GUARD_READ_S)
            )
        except KoBrowserError:
            continue
        if owner_id is None:
            continue
        guard = await _guard_call(parent_session, owner_id, keep, deadline, None)
        if guard is not None:
            blocked += int(guard.get("blocked", 0))
            misrouted += int(guard.get("misrouted", 0))
    return Guards(
        ok=int(own.get("ok", 0)),
        blocked=blocked,
        misrouted=misrouted,
        moves=int(own.get("moves", 0)),
        downs=int(own.get("downs", 0)),
        ups=int(own.get("ups", 0)),
        pressed=int(own.get("pressed", 0)),
        detached=bool(own.get("detached", False)),
        unpressed=int(own.get("unpressed", 0)),
        followed=int(own.get("followed", 0)),
    )


async def _guard_call(
    session: Any,
    object_id: str,
    keep: bool,
    deadline: Deadline,
    wait: dict[str, int] | None,
) -> dict[str, int] | None:
    try:
        guard = await call(
            session,
            object_id,
            _scripts.GUARD_READ,
            keep,
            wait,
            # The input is already sent: finding out where it went must
            # not be cut short by the action's own (nearly spent) deadline.
            timeout=max(left(deadline), _GUARD_READ_S),
            await_promise=True,
        )
    except (ProtocolError, TargetClosedError):
        return None  # the input navigated or closed the frame: it was delivered
    return guard if isinstance(guard, dict) else None


async def dblclick(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> None:
    """Double-click element ``element_id``; see :meth:`Tab.dblclick`."""
    await click(ctx, element_id, click_count=2, deadline=deadline)


async def hover(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> None:
    """Move the mouse over element ``element_id``; see :meth:`Tab.hover`."""

    async def body(target: Target, deadline: Deadline) -> None:
        x, y, _ = await locate(target, deadline=deadline, enabled=False, guard_ms=GUARD_MS)
        moved = (x, y) != (ctx.mouse.x, ctx.mouse.y)
        await ctx.mouse.move(x, y, timeout=left(deadline))
        if not moved:
            await _read_guards(target, deadline)
            return
        # Returns once the element's frame has seen the move (an
        # out-of-process frame gets it after the page acknowledged it).
        for _ in range(_HOVER_TRIES):
            guards = await _read_guards(target, deadline, keep=True, wait={"mousemove": 1})
            if guards is None:
                return  # the frame went away
            if guards.moves:
                await _read_guards(target, deadline)
                return
            # The frame never saw the pointer: Chrome sent the move to the
            # page (an out-of-process frame's input routing not ready yet,
            # on a loaded machine). Step aside and come back.
            await ctx.mouse.move(x + 1, y, timeout=left(deadline))
            await ctx.mouse.move(x, y, timeout=left(deadline))
        await _read_guards(target, deadline)
        raise NotInteractableError(
            f"the mouse moved over element {element_id}, but its frame never "
            "received the pointer. Take a new snapshot and try again.",
            element_id,
        )

    await ctx.run(element_id, deadline, body)


async def drag(
    ctx: ActionContext,
    source_id: int,
    target_id: int,
    *,
    steps: int = 8,
    deadline: Deadline,
) -> None:
    """Drag element ``source_id`` onto element ``target_id``; see :meth:`Tab.drag`."""
    source = await ctx.resolve(source_id, deadline)
    x1, y1, _ = await locate(source, deadline=deadline, guard_ms=GUARD_MS)
    kind = await call(
        source.session, source.object_id, _scripts.INFO, "kind", timeout=left(deadline)
    )
    # An HTML5-draggable source starts a drag the browser reports (and we
    # must wait for, however slow the machine); a pointer-driven one never does.
    drag_wait = 2.0 if isinstance(kind, dict) and kind.get("draggable") else 0.05
    dest = await ctx.resolve(target_id, deadline)
    x2, y2, _ = await locate(dest, deadline=deadline, enabled=False)
    page, mouse = ctx.page, ctx.mouse
    await page.send("Input.setInterceptDrags", {"enabled": True}, timeout=left(deadline))
    try:
        with page.subscribe("Input.dragIntercepted") as drags:
            await _press_to_drag(ctx, source, source_id, x1, y1, deadline)
            await mouse.move(x2, y2, timeout=left(deadline), steps=steps, buttons=1)
            data = None
            with anyio.move_on_after(min(drag_wait, left(deadline))):
                data = (await drags.next()).params.get("data")
            if data is not None:
                for kind in ("dragEnter", "dragOver", "drop"):
                    await page.send(
                        "Input.dispatchDragEvent",
                        {"type": kind, "x": x2, "y": y2, "data": data},
                        timeout=left(deadline),
                    )
            await mouse.up(timeout=left(deadline))
    finally:
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(2),
            contextlib.suppress(KoBrowserError),
        ):
            await page.send("Input.setInterceptDrags", {"enabled": False}, timeout=2)


async def _press_to_drag(
    ctx: ActionContext, source: Target, source_id: int, x: float, y: float, deadline: Deadline
) -> None:
    """Press the mouse on the drag's source, again while no press reaches it.

    The guard only protects the press (the release happens over the drop
    target, which it would block): it is disarmed once the source is pressed.
    """
    mouse = ctx.mouse
    for attempt in range(_CLICK_TRIES):
        if attempt:
            await anyio.sleep(min(0.05 * attempt, left(deadline)))
            x, y, _ = await locate(source, deadline=deadline, guard_ms=GUARD_MS)
        await mouse.move(x, y, timeout=left(deadline))
        await mouse.down(timeout=left(deadline))
        pressed = await _read_guards(source, deadline, keep=True, wait={"pointerdown": 1})
        if pressed is None or not (pressed.blocked or pressed.misrouted):
            await _read_guards(source, deadline)
            return
        # The press went elsewhere (blocked): release it, still guarded, so
        # nothing of it reaches the page.
        await mouse.up(timeout=left(deadline))
        await _read_guards(source, deadline)
        if pressed.pressed:
            raise NotInteractableError(
                f"element {source_id} moved as the drag started: part of the press "
                "went to another element and was blocked. Take a new snapshot.",
                source_id,
            )
    raise NotInteractableError(
        f"no press reached element {source_id} to start the drag: it kept moving away "
        "from the pointer, or its frame kept missing the press. Take a new snapshot.",
        source_id,
    )


async def scroll_into_view(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> None:
    """Scroll element ``element_id`` into view; see :meth:`Tab.scroll_into_view`."""

    async def body(target: Target, deadline: Deadline) -> None:
        await locate(target, deadline=deadline, hit=False, enabled=False)

    await ctx.run(element_id, deadline, body)


async def scroll(
    ctx: ActionContext,
    direction: str = "down",
    amount: float = 600,
    *,
    deadline: Deadline,
) -> None:
    """Scroll the page with the mouse wheel; see :meth:`Tab.scroll`."""
    vectors = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
    metrics = await ctx.page.send("Page.getLayoutMetrics", timeout=left(deadline))
    viewport = metrics.get("cssLayoutViewport", {})
    x = viewport.get("clientWidth", 800) / 2
    y = viewport.get("clientHeight", 600) / 2
    dx, dy = vectors[direction]
    await ctx.mouse.wheel(x, y, dx * amount, dy * amount, timeout=left(deadline))
    # Let the scroll land before the next snapshot reads the page.
    await ctx.page.send(
        "Runtime.evaluate",
        {
            "expression": "new Promise(r => requestAnimationFrame(() => r()))",
            "awaitPromise": True,
        },
        timeout=left(deadline),
    )
