"""Browser methods that act on the browser's current tab.

``await browser.click(5)`` is ``await browser.current_tab.click(5)``: the
convenience a one-tab agent wants. Each forwards its arguments unchanged;
see :class:`~kobrowser.Tab` for the documentation of each method.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._snapshot import Element
    from ._tab import Tab

__all__ = ["CurrentTabMixin"]


class CurrentTabMixin:
    """Forward tab actions to ``self.current_tab``."""

    @property
    def current_tab(self) -> Tab:  # pragma: no cover - implemented by Browser
        raise NotImplementedError

    async def click(self, element_id: int, **options: Any) -> None:
        """Click an element of the current tab (see :meth:`Tab.click`)."""
        await self.current_tab.click(element_id, **options)

    async def dblclick(self, element_id: int, **options: Any) -> None:
        """Double-click an element of the current tab (see :meth:`Tab.dblclick`)."""
        await self.current_tab.dblclick(element_id, **options)

    async def hover(self, element_id: int, **options: Any) -> None:
        """Hover an element of the current tab (see :meth:`Tab.hover`)."""
        await self.current_tab.hover(element_id, **options)

    async def focus(self, element_id: int, **options: Any) -> None:
        """Focus an element of the current tab (see :meth:`Tab.focus`)."""
        await self.current_tab.focus(element_id, **options)

    async def fill(self, element_id: int, value: str, **options: Any) -> None:
        """Fill a field of the current tab (see :meth:`Tab.fill`)."""
        await self.current_tab.fill(element_id, value, **options)

    async def type(self, element_id: int, text: str, **options: Any) -> None:
        """Type into an element of the current tab (see :meth:`Tab.type`)."""
        await self.current_tab.type(element_id, text, **options)

    async def press(self, key: str, **options: Any) -> None:
        """Press a key in the current tab (see :meth:`Tab.press`)."""
        await self.current_tab.press(key, **options)

    async def select(self, element_id: int, *values: str, **options: Any) -> None:
        """Select options in the current tab (see :meth:`Tab.select`)."""
        await self.current_tab.select(element_id, *values, **options)

    async def check(self, element_id: int, **options: Any) -> None:
        """Check a checkbox of the current tab (see :meth:`Tab.check`)."""
        await self.current_tab.check(element_id, **options)

    async def uncheck(self, element_id: int, **options: Any) -> None:
        """Uncheck a checkbox of the current tab (see :meth:`Tab.uncheck`)."""
        await self.current_tab.uncheck(element_id, **options)

    async def upload(self, element_id: int, *files: str | os.PathLike[str], **options: Any) -> None:
        """Set files of a file input of the current tab (see :meth:`Tab.upload`)."""
        await self.current_tab.upload(element_id, *files, **options)

    async def drag(self, source_id: int, target_id: int, **options: Any) -> None:
        """Drag one element onto another in the current tab (see :meth:`Tab.drag`)."""
        await self.current_tab.drag(source_id, target_id, **options)

    async def scroll_into_view(self, element_id: int, **options: Any) -> None:
        """Scroll an element of the current tab into view (see :meth:`Tab.scroll_into_view`)."""
        await self.current_tab.scroll_into_view(element_id, **options)

    async def scroll(self, direction: str = "down", amount: float = 600, **options: Any) -> None:
        """Scroll the current tab (see :meth:`Tab.scroll`)."""
        await self.current_tab.scroll(direction, amount, **options)

    async def text(self, element_id: int, **options: Any) -> str:
        """Text of an element of the current tab (see :meth:`Tab.text`)."""
        return await self.current_tab.text(element_id, **options)

    async def html(self, element_id: int, **options: Any) -> str:
        """Outer HTML of an element of the current tab (see :meth:`Tab.html`)."""
        return await self.current_tab.html(element_id, **options)

    async def value(self, element_id: int, **options: Any) -> str | None:
        """Value of a field of the current tab (see :meth:`Tab.value`)."""
        return await self.current_tab.value(element_id, **options)

    async def attr(self, element_id: int, name: str, **options: Any) -> str | None:
        """An attribute of an element of the current tab (see :meth:`Tab.attr`)."""
        return await self.current_tab.attr(element_id, name, **options)

    async def box(self, element_id: int, **options: Any) -> dict[str, float]:
        """Box of an element of the current tab (see :meth:`Tab.box`)."""
        return await self.current_tab.box(element_id, **options)

    async def is_visible(self, element_id: int, **options: Any) -> bool:
        """Whether an element of the current tab is visible (see :meth:`Tab.is_visible`)."""
        return await self.current_tab.is_visible(element_id, **options)

    async def is_enabled(self, element_id: int, **options: Any) -> bool:
        """Whether an element of the current tab is enabled (see :meth:`Tab.is_enabled`)."""
        return await self.current_tab.is_enabled(element_id, **options)

    async def is_checked(self, element_id: int, **options: Any) -> bool:
        """Whether an element of the current tab is checked (see :meth:`Tab.is_checked`)."""
        return await self.current_tab.is_checked(element_id, **options)

    async def find(
        self,
        *,
        role: str | None = None,
        name: str | None = None,
        text: str | None = None,
        exact: bool = False,
        timeout: float | None = None,
    ) -> list[Element]:
        """Find elements in a fresh snapshot of the current tab (see :meth:`Tab.find`)."""
        return await self.current_tab.find(
            role=role, name=name, text=text, exact=exact, timeout=timeout
        )
