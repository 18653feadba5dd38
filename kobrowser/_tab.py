"""Tab: the public tab class, assembled from its parts."""

from __future__ import annotations

from ._actions import ActionsMixin
from ._navigation import NavigationMixin

__all__ = ["Tab"]


class Tab(NavigationMixin, ActionsMixin):
    """One browser tab (a page target) with its own CDP session and state.

    Each tab has its own snapshot, id map, frame registry and event streams;
    tabs never share state, so ``asyncio.gather`` over many tabs is safe.

    Attributes:
        cdp: the tab's raw :class:`~kobrowser.cdp.CDPSession` (send + subscribe).
        target_id: Chrome's id of the page target.
    """

    async def set_viewport(self, width: int, height: int) -> None:
        """Resize this tab's page area to ``width`` x ``height`` CSS pixels.

        Kept across navigations, over its context's viewport; the context's
        scale and mobile settings stay.

        Raises:
            InvalidArgumentError: not whole numbers > 0.
        """
        context = self.context or self._browser.default_context
        await context._emulation.set_tab_viewport(self, width, height)
