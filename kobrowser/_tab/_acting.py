"""What every action needs: the page, the mouse, deadlines, and resolving an id.

Actions (``_pointer``, ``_forms``, ``_readers``) are functions of one
:class:`ActionContext`, which the tab builds once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

from .._validate import seconds
from ._resolve import Target, resolve

if TYPE_CHECKING:
    from ..cdp import CDPSession
    from ._input import Mouse
    from ._snapshotter import Snapshotter

__all__ = ["ActionContext", "left"]

T = TypeVar("T")


def left(deadline: float) -> float:
    """Seconds left until ``deadline`` (an ``anyio.current_time()``), at least 50 ms."""
    return max(deadline - anyio.current_time(), 0.05)


class ActionContext:
    """One tab's page session, mouse, snapshots and default timeout, for actions.

    Attributes:
        page: the tab's page session (input goes there).
        mouse: the tab's mouse.
    """

    def __init__(
        self,
        page: CDPSession,
        mouse: Mouse,
        snapshots: Snapshotter,
        timeout: Callable[[], float],
    ) -> None:
        self.page = page
        self.mouse = mouse
        self._snapshots = snapshots
        self._timeout = timeout

    def limit(self, timeout: float | None) -> float:
        """``timeout``, or the default when None."""
        return self._timeout() if timeout is None else seconds(timeout)

    async def resolve(self, element_id: int, timeout: float) -> Target:
        """Resolve and verify ``element_id`` of the latest snapshot."""
        return await resolve(self._snapshots.latest, element_id, timeout=timeout)

    async def run(
        self,
        element_id: int,
        timeout: float | None,
        body: Callable[[Target, float], Awaitable[T]],
    ) -> T:
        """Run ``body(target, deadline)`` with the element resolved and fresh."""
        limit = self.limit(timeout)
        deadline = anyio.current_time() + limit
        target = await self.resolve(element_id, limit)
        return await body(target, deadline)
