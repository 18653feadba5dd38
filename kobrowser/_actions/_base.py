"""What every action needs: the mouse, deadlines, and resolving an id to a fresh target."""

from __future__ import annotations

from typing import Any

import anyio

from .._tab_core import TabCore
from .._validate import seconds
from ._input import Mouse
from ._resolve import Target, resolve

__all__ = ["ActionBase"]


class ActionBase(TabCore):
    """Shared helpers of the action mixins."""

    _mouse_state: Mouse | None = None

    @property
    def _mouse(self) -> Mouse:
        if self._mouse_state is None:
            self._mouse_state = Mouse(self.cdp)
        return self._mouse_state

    def _limit(self, timeout: float | None) -> float:
        return self.timeout if timeout is None else seconds(timeout)

    async def _resolve(self, element_id: int, timeout: float) -> Target:
        return await resolve(self._last_snapshot, element_id, timeout=timeout)

    async def _run(self, element_id: int, timeout: float | None, body: Any) -> Any:
        """Run ``body(target, deadline)`` with the element resolved and fresh."""
        limit = self._limit(timeout)
        deadline = anyio.current_time() + limit
        target = await self._resolve(element_id, limit)
        return await body(target, deadline)

    @staticmethod
    def _left(deadline: float) -> float:
        return max(deadline - anyio.current_time(), 0.05)

    # -- pointer -------------------------------------------------------------
