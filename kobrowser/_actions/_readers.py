"""Reading elements by id: text, HTML, value, attributes, box and states."""

from __future__ import annotations

from typing import Any

from .._exceptions import WrongElementKindError
from .._validate import check
from . import _scripts
from ._base import ActionBase
from ._resolve import Target, call, locate

__all__ = ["ReadersMixin"]


class ReadersMixin(ActionBase):
    """Read an element of the last snapshot (each call checks it is still the same)."""

    async def _info(self, element_id: int, what: str, arg: Any, timeout: float | None) -> Any:
        async def body(target: Target, deadline: float) -> Any:
            return await call(
                target.session,
                target.object_id,
                _scripts.INFO,
                what,
                arg,
                timeout=self._left(deadline),
            )

        return await self._run(element_id, timeout, body)

    async def text(self, element_id: int, *, timeout: float | None = None) -> str:
        """The whole text of element ``element_id``.

        For an element, its rendered text (``innerText``). For a ``text``
        line, every piece merged into it, as the snapshot read it (the
        printed line may be cut at ``text_limit``), once the line's first
        text node is checked to be still in the page.
        """

        async def body(target: Target, deadline: float) -> Any:
            if target.element.role == "text":
                return target.element.name
            return await call(
                target.session,
                target.object_id,
                _scripts.INFO,
                "text",
                None,
                timeout=self._left(deadline),
            )

        return str(await self._run(element_id, timeout, body) or "")

    async def html(self, element_id: int, *, timeout: float | None = None) -> str:
        """The outer HTML of element ``element_id``."""
        return str(await self._info(element_id, "html", None, timeout) or "")

    async def value(self, element_id: int, *, timeout: float | None = None) -> str | None:
        """The current value of a form field (None for elements without one)."""
        result = await self._info(element_id, "value", None, timeout)
        return None if result is None else str(result)

    async def attr(self, element_id: int, name: str, *, timeout: float | None = None) -> str | None:
        """The value of attribute ``name`` (None when absent)."""
        check(element_id=element_id, name=name, timeout=timeout)
        result = await self._info(element_id, "attr", name, timeout)
        return None if result is None else str(result)

    async def is_visible(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether element ``element_id`` has a visible box."""
        return bool(await self._info(element_id, "visible", None, timeout))

    async def is_enabled(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether element ``element_id`` is enabled (not disabled or aria-disabled)."""
        return bool(await self._info(element_id, "enabled", None, timeout))

    async def is_checked(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether a checkbox, radio, switch or toggle button is on.

        Raises:
            WrongElementKindError: the element has no checked state.
        """

        async def body(target: Target, deadline: float) -> bool:
            state = await call(
                target.session, target.object_id, _scripts.CHECKED, timeout=self._left(deadline)
            )
            if state is None:
                raise WrongElementKindError(
                    f"element {element_id} ({target.element.role}) has no checked state",
                    element_id,
                )
            return state is True

        result: bool = await self._run(element_id, timeout, body)
        return result

    async def box(self, element_id: int, *, timeout: float | None = None) -> dict[str, float]:
        """The element's box in top-page CSS pixels: ``{x, y, width, height}``.

        Scrolls it into view first.
        """

        async def body(target: Target, deadline: float) -> dict[str, float]:
            _x, _y, rect = await locate(
                target, timeout=self._left(deadline), hit=False, enabled=False
            )
            return {k: float(rect[k]) for k in ("x", "y", "width", "height")}

        result: dict[str, float] = await self._run(element_id, timeout, body)
        return result
