"""What a tab sees above it: its browser and its context, as typing.Protocols.

The tab layer never imports the browser layer (``kobrowser._browser`` sits
above it), not even for types. A :class:`~kobrowser.Tab` is given its owner
and its context when the browser makes it, typed by the protocols here,
which :class:`~kobrowser.Browser` and :class:`~kobrowser.BrowserContext`
satisfy (mypy checks that where the browser makes a tab):

* :class:`BrowserView` and :class:`ContextView` are what users reach through
  ``tab.browser``, ``tab.context`` and ``context.browser``: the agent's verbs
  (:class:`~kobrowser._tab._verbs.TabVerbs`), the tabs, contexts, cookies and
  routes. At run time they are the real Browser and BrowserContext, so
  everything else works too; what is typed is what a tab's user needs
  (``await tab.browser.text(5)``, ``tab.context is context``). Members whose
  types live in the browser layer (emulation, downloads) are left out: reach
  them from the Browser itself.
* :class:`TabOwner` and :class:`TabContext` add the hooks the tab itself
  calls (the task group, the live settings, the context's routes and
  emulation); they are private to the two layers.

The protocols are generic over the tab type (``TabT``, in practice
:class:`~kobrowser.Tab`), because ``_tab._tab`` imports this module and not
the other way round.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kobrowser._tab._verbs import TabVerbs

if TYPE_CHECKING:
    from kobrowser._tab._axmirror import AXMirrorSettings
    from kobrowser._tab._network import RouteHandler, RoutePattern, RouteTable
    from kobrowser._tab._network._har import HarLog
    from kobrowser._tab._pagestate import LoadState
    from kobrowser._tab._recording import Recorder
    from kobrowser._tab._stableids import IdMode
    from kobrowser.cdp import CDPSession

__all__ = ["BrowserView", "ContextView", "Spawn", "TabContext", "TabOwner"]

TabT = TypeVar("TabT")

#: Runs a coroutine function in the browser's task group.
Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class ContextView(Protocol[TabT]):
    """A browser context as its tabs' users reach it (a :class:`~kobrowser.BrowserContext`)."""

    @property
    def id(self) -> str | None:
        """Chrome's browser context id (None: the default context)."""
        ...

    @property
    def closed(self) -> bool:
        """True once closed (or the browser closed)."""
        ...

    @property
    def browser(self) -> BrowserView[TabT]:
        """The browser this context lives in."""
        ...

    @property
    def tabs(self) -> list[TabT]:
        """The context's open tabs, oldest first."""
        ...

    async def new_tab(
        self,
        url: str = "about:blank",
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> TabT:
        """Open a tab in this context."""
        ...

    async def close(self) -> None:
        """Close the context and its tabs."""
        ...

    async def set_download_dir(self, path: str | os.PathLike[str]) -> None:
        """Save this context's downloads in ``path``."""
        ...

    async def cookies(self, urls: str | Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The context's cookies."""
        ...

    async def add_cookies(self, cookies: Iterable[Mapping[str, Any]]) -> None:
        """Add (or replace) cookies."""
        ...

    async def clear_cookies(
        self, *, name: str | None = None, domain: str | None = None, path: str | None = None
    ) -> None:
        """Remove cookies."""
        ...

    async def storage_state(
        self, path: str | os.PathLike[str] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Save the cookies and each origin's localStorage."""
        ...

    async def set_storage_state(
        self,
        state: str | os.PathLike[str] | Mapping[str, Any],
        *,
        timeout: float | None = None,
    ) -> None:
        """Load cookies and localStorage."""
        ...

    async def grant_permissions(
        self, permissions: Sequence[str], *, origin: str | None = None
    ) -> None:
        """Grant permissions."""
        ...

    async def clear_permissions(self) -> None:
        """Take back every permission."""
        ...

    async def set_offline(self, offline: bool) -> None:
        """Cut the context's network off, or restore it."""
        ...

    async def set_extra_http_headers(self, headers: Mapping[str, str]) -> None:
        """Send these headers with every request of the context."""
        ...

    async def route(self, pattern: RoutePattern, handler: RouteHandler) -> None:
        """Route the matching requests of every tab of the context."""
        ...

    async def unroute(self, pattern: RoutePattern, handler: RouteHandler | None = None) -> int:
        """Remove the context's routes registered with ``pattern``."""
        ...

    async def unroute_all(self) -> int:
        """Remove every route and block of the context."""
        ...

    async def block(
        self,
        patterns: RoutePattern | Iterable[RoutePattern] | None = None,
        *,
        types: str | Iterable[str] | None = None,
    ) -> None:
        """Block requests in every tab of the context."""
        ...

    async def unblock(self) -> int:
        """Remove the context's blocks."""
        ...

    def note_origin(self, origin: str) -> None:
        """Remember an http(s) origin a frame of this context showed."""
        ...


class BrowserView(TabVerbs, Protocol[TabT]):
    """A browser as its tabs' users reach it (a :class:`~kobrowser.Browser`).

    The verbs act on the browser's current tab (see :class:`TabVerbs`).
    """

    timeout: float

    @property
    def cdp(self) -> CDPSession:
        """The browser-level CDP session."""
        ...

    @property
    def ids(self) -> IdMode:
        """How the tabs' snapshots number elements (read once, when a tab is made)."""
        ...

    @property
    def tabs(self) -> list[TabT]:
        """Open tabs of every context, oldest first."""
        ...

    @property
    def tab(self) -> TabT:
        """The current tab."""
        ...

    @property
    def current_tab(self) -> TabT:
        """The current tab (an alias of :attr:`tab`)."""
        ...

    @property
    def default_context(self) -> ContextView[TabT]:
        """The browser's own context."""
        ...

    @property
    def contexts(self) -> Sequence[ContextView[TabT]]:
        """The isolated contexts opened and not closed."""
        ...

    async def new_tab(
        self,
        url: str = "about:blank",
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> TabT:
        """Open a tab and make it the current one."""
        ...

    async def wait_for_tab(self, *, timeout: float | None = None) -> TabT:
        """The oldest tab a page opened not yet returned."""
        ...

    async def switch_to(self, tab: TabT) -> None:
        """Make ``tab`` the current tab."""
        ...

    async def cookies(self, urls: str | Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Cookies of the default context."""
        ...

    async def aclose(self) -> None:
        """Close the browser's tabs, contexts and connection."""
        ...


class TabOwner(BrowserView[TabT], Protocol[TabT]):
    """The browser as its tabs use it: the public view and the hooks they call."""

    snapshot_limit: int | None
    _recorders: tuple[Recorder, ...]

    @property
    def ax_mirror(self) -> AXMirrorSettings:
        """When tabs mirror their page's accessibility tree (read at each snapshot)."""
        ...

    @property
    def _headless(self) -> bool | None:
        """Whether the browser runs without a window (None: not known, connected)."""
        ...

    def _spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a background job in the browser's task group."""
        ...

    def _forget(self, tab: TabT) -> None:
        """A tab was closed: stop tracking it."""
        ...

    def _tab_of_target(self, target_id: str) -> TabT | None:
        """The tab of a page target, if tracked."""
        ...


class TabContext(ContextView[TabT], Protocol[TabT]):
    """A tab's context as the tab uses it: the public view and the hooks it calls."""

    @property
    def _routes(self) -> RouteTable:
        """The context's routes (a tab's own come first)."""
        ...

    @property
    def _har(self) -> HarLog | None:
        """The context's HAR log while it records (None: it does not)."""
        ...

    @property
    def _proxy_credentials(self) -> tuple[str, str] | None:
        """``(username, password)`` of the proxy the context logs in to, or None."""
        ...

    def _refusal(self, url: str) -> str | None:
        """Why the context's policy refuses to load ``url`` (naming the rule), or None."""
        ...

    def _fill_text(self, text: str) -> str:
        """``text`` with the policy's secrets filled in for their ``{{name}}``."""
        ...

    def _mask_text(self, text: str) -> str:
        """``text`` with every secret value of the policy shown as ``{{name}}``."""
        ...

    def _frame_emulation(self) -> Sequence[tuple[str, dict[str, Any] | None]]:
        """The calls that emulate the context's settings in a new out-of-process frame."""
        ...

    async def _set_tab_viewport(self, tab: TabT, width: int, height: int) -> None:
        """Give ``tab`` its own viewport over the context's."""
        ...
