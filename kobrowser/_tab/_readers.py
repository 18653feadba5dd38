"""Reading elements by id: text, HTML, value, attributes, box and states.

Each call checks the element is still the one the snapshot showed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kobrowser._exceptions import WrongElementKindError
from kobrowser._tab import _scripts
from kobrowser._tab._acting import ActionContext, left
from kobrowser._tab._resolve import Target, call, locate

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline

__all__ = ["attr", "box", "html", "is_checked", "is_enabled", "is_visible", "text", "value"]


async def _info(
    ctx: ActionContext, element_id: int, what: str, arg: Any, deadline: Deadline
) -> Any:
    async def body(target: Target, deadline: Deadline) -> Any:
        return await call(
            target.session,
            target.object_id,
            _scripts.INFO,
            what,
            arg,
            timeout=left(deadline),
        )

    return await ctx.run(element_id, deadline, body)


async def text(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> str:
    """See ``Tab.text``: a text line's whole text, or an element's ``innerText``."""

    async def body(target: Target, deadline: Deadline) -> Any:
        if target.element.role == "text":
            return target.element.name
        return await call(
            target.session,
            target.object_id,
            _scripts.INFO,
            "text",
            None,
            timeout=left(deadline),
        )

    return str(await ctx.run(element_id, deadline, body) or "")


async def html(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> str:
    """The outer HTML of element ``element_id``."""
    return str(await _info(ctx, element_id, "html", None, deadline) or "")


async def value(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> str | None:
    """The current value of a form field (None for elements without one)."""
    result = await _info(ctx, element_id, "value", None, deadline)
    return None if result is None else str(result)


async def attr(ctx: ActionContext, element_id: int, name: str, *, deadline: Deadline) -> str | None:
    """The value of attribute ``name`` (None when absent)."""
    result = await _info(ctx, element_id, "attr", name, deadline)
    return None if result is None else str(result)


async def is_visible(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> bool:
    """Whether element ``element_id`` has a visible box."""
    return bool(await _info(ctx, element_id, "visible", None, deadline))


async def is_enabled(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> bool:
    """Whether element ``element_id`` is enabled (not disabled or aria-disabled)."""
    return bool(await _info(ctx, element_id, "enabled", None, deadline))


async def is_checked(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> bool:
    """Whether a checkbox, radio, switch or toggle button is on.

    Raises:
        WrongElementKindError: the element has no checked state.
    """

    async def body(target: Target, deadline: Deadline) -> bool:
        state = await call(
            target.session, target.object_id, _scripts.CHECKED, timeout=left(deadline)
        )
        if state is None:
            raise WrongElementKindError(
                f"element {element_id} ({target.element.role}) has no checked state",
                element_id,
            )
        return state is True

    result: bool = await ctx.run(element_id, deadline, body)
    return result


async def box(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> dict[str, float]:
    """The element's box in top-page CSS pixels: ``{x, y, width, height}``.

    Scrolls it into view first.
    """

    async def body(target: Target, deadline: Deadline) -> dict[str, float]:
        _x, _y, rect = await locate(target, deadline=deadline, hit=False, enabled=False)
        return {k: float(rect[k]) for k in ("x", "y", "width", "height")}

    result: dict[str, float] = await ctx.run(element_id, deadline, body)
    return result
