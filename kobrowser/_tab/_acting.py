"""What every action needs: the page, the mouse, and resolving an id in time.

Actions (``_pointer``, ``_forms``, ``_readers``) are functions of one
:class:`ActionContext`, which the tab builds once, and of the
:class:`~kobrowser._deadline.Deadline` of the public call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from kobrowser._tab._resolve import Target, resolve

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline
    from kobrowser._tab._input import Mouse
    from kobrowser._tab._snapshotter import Snapshotter
    from kobrowser.cdp import CDPSession

__all__ = ["ActionContext", "left"]

T = TypeVar("T")

_CALL_FLOOR_S = 0.05  # a CDP call near the deadline still gets this long to fail cleanly


def left(deadline: Deadline) -> float:
    """The timeout of the next CDP call: what is left of ``deadline`` (at least 50 ms)."""
    return deadline.remaining(_CALL_FLOOR_S)


class ActionContext:
    """One tab's page session, mouse and snapshots, for actions.

    Attributes:
        page: the tab's page session (input goes there).
        mouse: the tab's mouse.
    """

    def __init__(self, page: CDPSession, mouse: Mouse, snapshots: Snapshotter) -> None:
        self.page = page
        self.mouse = mouse
        self._snapshots = snapshots

    async def resolve(self, element_id: int, deadline: Deadline) -> Target:
        """Resolve and verify ``element_id`` of the latest snapshot (to act on it)."""
        self._snapshots.clickkeep.acted()  # the next snapshot expects the page changed
        return await resolve(self._snapshots.latest, element_id, timeout=left(deadline))

    async def run(
        self,
        element_id: int,
        deadline: Deadline,
        body: Callable[[Target, Deadline], Awaitable[T]],
    ) -> T:
        """Run ``body(target, deadline)`` with the element resolved and fresh."""
        target = await self.resolve(element_id, deadline)
        return await body(target, deadline)
