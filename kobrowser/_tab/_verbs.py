"""The verbs an agent uses on a tab, as one typing.Protocol.

:class:`TabVerbs` lists, with :class:`~kobrowser.Tab`'s exact signatures, what
an agent does to the page in front of it: snapshot and find, evaluate, the
action grammar (``do``), the actions and readers by id, navigation, waits,
and the pictures. :class:`~kobrowser.Tab` has them (each documented there),
and so has :class:`~kobrowser.Browser`, where each acts on the current tab.

Families with their own state are not verbs: they are objects on the tab
(``tab.network``, ``tab.console``, ``tab.dialogs``).

The protocol is what :attr:`Tab.browser` and :attr:`BrowserContext.browser
<kobrowser.BrowserContext.browser>` are typed with (through
:class:`~kobrowser._tab._owner.BrowserView`), so ``await tab.browser.text(5)``
type-checks without the tab layer importing the browser's.
``tests/browser/test_forwarding.py`` holds the three signatures identical.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kobrowser._tab._pagestate import LoadState, Response
    from kobrowser._tab._snapshot import Element, Snapshot
    from kobrowser._tab._waits import SelectorState, URLPattern
    from kobrowser.actions import Action, Outcome
    from kobrowser.snapshot import SnapshotDiff

__all__ = ["TabVerbs"]


class TabVerbs(Protocol):
    """What an agent does on a tab: :class:`~kobrowser.Tab`'s verbs (see there for each)."""

    # -- snapshots and scripts

    async def snapshot(
        self,
        *,
        interactive: bool = False,
        compact: bool = False,
        depth: int | None = None,
        selector: str | None = None,
        clickable: bool = True,
        text_limit: int | None = 80,
        timeout: float | None = None,
        fresh: bool = False,
    ) -> Snapshot: ...

    async def changes(
        self,
        *,
        interactive: bool = False,
        compact: bool = False,
        depth: int | None = None,
        selector: str | None = None,
        clickable: bool = True,
        text_limit: int | None = 80,
        timeout: float | None = None,
        fresh: bool = False,
    ) -> SnapshotDiff: ...

    async def find(
        self,
        *,
        role: str | None = None,
        name: str | None = None,
        text: str | None = None,
        exact: bool = False,
        timeout: float | None = None,
    ) -> list[Element]: ...

    async def evaluate(self, expression: str, *, timeout: float | None = None) -> Any: ...

    async def title(self) -> str: ...

    async def do(self, action: Action | str, *, timeout: float | None = None) -> Outcome: ...

    # -- navigation

    async def open(
        self,
        url: str,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
        referrer: str | None = None,
    ) -> Response | None: ...

    async def reload(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None: ...

    async def back(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None: ...

    async def forward(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None: ...

    # -- waits

    async def wait_for_load(
        self, state: LoadState = "load", *, timeout: float | None = None
    ) -> None: ...

    async def wait_for_url(
        self,
        url: URLPattern,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> None: ...

    async def wait_for_text(self, text: str, *, timeout: float | None = None) -> None: ...

    async def wait_for_selector(
        self, selector: str, *, state: SelectorState = "visible", timeout: float | None = None
    ) -> None: ...

    async def wait_for_function(self, expression: str, *, timeout: float | None = None) -> Any: ...

    async def wait(self, ms: float) -> None: ...

    # -- actions by id

    async def click(
        self,
        element_id: int,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: Sequence[str] = (),
        timeout: float | None = None,
    ) -> None: ...

    async def dblclick(self, element_id: int, *, timeout: float | None = None) -> None: ...

    async def hover(self, element_id: int, *, timeout: float | None = None) -> None: ...

    async def drag(
        self, source_id: int, target_id: int, *, steps: int = 8, timeout: float | None = None
    ) -> None: ...

    async def scroll_into_view(self, element_id: int, *, timeout: float | None = None) -> None: ...

    async def scroll(
        self, direction: str = "down", amount: float = 600, *, timeout: float | None = None
    ) -> None: ...

    async def focus(self, element_id: int, *, timeout: float | None = None) -> None: ...

    async def fill(self, element_id: int, value: str, *, timeout: float | None = None) -> None: ...

    async def type(
        self, element_id: int, text: str, *, delay: float = 0, timeout: float | None = None
    ) -> None: ...

    async def press(self, key: str, *, timeout: float | None = None) -> None: ...

    async def select(self, element_id: int, *values: str, timeout: float | None = None) -> None: ...

    async def check(self, element_id: int, *, timeout: float | None = None) -> None: ...

    async def uncheck(self, element_id: int, *, timeout: float | None = None) -> None: ...

    async def upload(
        self, element_id: int, *files: str | os.PathLike[str], timeout: float | None = None
    ) -> None: ...

    # -- readers by id

    async def text(self, element_id: int, *, timeout: float | None = None) -> str: ...

    async def html(self, element_id: int, *, timeout: float | None = None) -> str: ...

    async def value(self, element_id: int, *, timeout: float | None = None) -> str | None: ...

    async def attr(
        self, element_id: int, name: str, *, timeout: float | None = None
    ) -> str | None: ...

    async def is_visible(self, element_id: int, *, timeout: float | None = None) -> bool: ...

    async def is_enabled(self, element_id: int, *, timeout: float | None = None) -> bool: ...

    async def is_checked(self, element_id: int, *, timeout: float | None = None) -> bool: ...

    async def box(self, element_id: int, *, timeout: float | None = None) -> dict[str, float]: ...

    # -- pictures

    async def screenshot(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        full_page: bool = False,
        id: int | None = None,
        annotate: bool = False,
        format: str | None = None,
        quality: int | None = None,
        timeout: float | None = None,
    ) -> bytes: ...

    async def pdf(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        landscape: bool = False,
        print_background: bool = True,
        scale: float = 1.0,
        paper: str = "A4",
        timeout: float | None = None,
    ) -> bytes: ...
