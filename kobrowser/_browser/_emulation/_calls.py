"""ContextEmulation: one context's emulation, applied to each of its sessions.

Owned by a :class:`~kobrowser.BrowserContext`. Its tabs call
:meth:`ContextEmulation.set_up_tab` when they are set up (new page targets,
popups too, wait for it: it resumes them in the same batch) and
:meth:`ContextEmulation.set_up_frame` for each out-of-process frame, so
emulation holds in popups and cross-origin frames too. A change
(:meth:`ContextEmulation.replace`) is applied to every live session at once,
in one batch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import msgspec

from kobrowser._browser._emulation._settings import (
    Call,
    Emulation,
    apply_to_sessions,
    build_emulation,
    permission_names,
    session_calls,
)
from kobrowser._validate import fail

if TYPE_CHECKING:
    from kobrowser._tab._owner import BrowserView
    from kobrowser._tab._tab import Tab
    from kobrowser.cdp import CDPSession

__all__ = ["ContextEmulation", "EmulatedContext"]


class EmulatedContext(Protocol):
    """What :class:`ContextEmulation` reads of its context (a BrowserContext)."""

    @property
    def browser(self) -> BrowserView[Tab]:
        """The browser: its default timeout and its browser-level session."""
        ...

    @property
    def tabs(self) -> list[Tab]:
        """The context's open tabs."""
        ...

    @property
    def _target(self) -> dict[str, Any]:
        """``browserContextId`` for browser-level calls (empty for the default context)."""
        ...


class ContextEmulation:
    """The emulation settings of one context and the code that applies them."""

    def __init__(self, context: EmulatedContext) -> None:
        self._context = context
        self.settings = Emulation()
        self.permissions: dict[str | None, list[str]] = {}  # origin (None: all) -> CDP names
        self._viewports: dict[str, tuple[int, int]] = {}  # target id -> own viewport
        self._default_user_agent = ""
        self._lock = anyio.Lock()

    @property
    def _timeout(self) -> float:
        return self._context.browser.timeout

    async def _user_agent(self) -> str:
        """Chrome's own user agent (a locale override must send one)."""
        if not self._default_user_agent:
            version = await self._context.browser.cdp.send("Browser.getVersion")
            self._default_user_agent = str(version.get("userAgent", ""))
        return self._default_user_agent

    def _calls(self, tab: Tab | None, *, page: bool, reset: bool = False) -> list[Call]:
        viewport = self._viewports.get(tab.target_id) if tab is not None else None
        return session_calls(
            self.settings,
            page=page,
            viewport=viewport,
            default_user_agent=self._default_user_agent,
            reset=reset,
        )

    # -- set-up of new sessions ----------------------------------------------------

    async def set_up_tab(self, tab: Tab, *, resume: bool = False) -> None:
        """Apply the settings to a new tab's page session (no call when none is set).

        Args:
            tab: the new tab.
            resume: then resume its target (``Runtime.runIfWaitingForDebugger``)
                in the same batch, so the page starts emulated.

        Raises:
            KoBrowserError: Chrome refused a call, or the tab could not be resumed.
        """
        calls = [] if self.settings.empty else self._calls(tab, page=True)
        if self.settings.extra_http_headers or self.settings.offline:
            # Both hold only with Network enabled, and the first request is near.
            calls.insert(0, ("Network.enable", {}))
        if resume:
            calls.append(("Runtime.runIfWaitingForDebugger", {}))
        if calls:
            await apply_to_sessions([(tab.cdp, calls)], self._timeout, strict=resume)

    def frame_calls(self) -> list[Call]:
        """The calls that emulate the settings in a new out-of-process frame."""
        return [] if self.settings.empty else self._calls(None, page=False)

    async def set_up_frame(self, session: CDPSession) -> None:
        """Apply the settings to a new out-of-process frame's session."""
        if self.settings.empty:
            return
        await apply_to_sessions([(session, self._calls(None, page=False))], self._timeout)

    # -- changes -------------------------------------------------------------------

    async def unset(self, *fields: str) -> None:
        """Drop the named settings (back to Chrome's own) and apply that."""
        defaults = Emulation()
        changes = {name: getattr(defaults, name) for name in fields}
        await self.replace(msgspec.structs.replace(self.settings, **changes))

    async def replace(self, settings: Emulation) -> None:
        """Emulate ``settings`` (built and checked by :func:`build_emulation`) everywhere."""
        async with self._lock:
            await self._user_agent()  # a reset of the user agent sends Chrome's own
            self.settings = settings
            await self._refresh()

    async def reset(self) -> None:
        """Drop every setting (tabs' own viewports too) and apply that."""
        async with self._lock:
            await self._user_agent()
            self.settings = Emulation()
            self._viewports.clear()
            await self._refresh()

    async def _refresh(self) -> None:
        targets: list[tuple[CDPSession, list[Call]]] = []
        for tab in self._context.tabs:
            targets.append((tab.cdp, self._calls(tab, page=True, reset=True)))
            frames = self._calls(None, page=False, reset=True)
            targets.extend((frame.session, frames) for frame in tab._frames.frames())
        await apply_to_sessions(targets, self._timeout)

    async def set_tab_viewport(self, tab: Tab, width: int, height: int) -> None:
        """Give ``tab`` its own viewport (over the context's), now and after navigations."""
        viewport = build_emulation(Emulation(), viewport=(width, height)).viewport
        assert viewport is not None
        self._viewports[tab.target_id] = viewport
        settings = self.settings
        scale = settings.device_scale_factor or 0
        await tab.cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": viewport[0],
                "height": viewport[1],
                "deviceScaleFactor": scale,
                "mobile": bool(settings.is_mobile),
                "screenWidth": viewport[0],
                "screenHeight": viewport[1],
            },
        )

    def forget_tab(self, tab: Tab) -> None:
        self._viewports.pop(tab.target_id, None)

    # -- permissions (browser-level) -----------------------------------------------

    async def grant(self, permissions: Iterable[str], origin: str | None) -> None:
        """Grant ``permissions`` to ``origin`` (None: every origin)."""
        names = permission_names(permissions)
        if origin is not None and (
            not isinstance(origin, str) or not origin.startswith(("http://", "https://"))
        ):
            raise fail("origin", origin, "an http(s) origin such as 'https://example.com', or None")
        granted = self.permissions.setdefault(origin, [])
        granted.extend(name for name in names if name not in granted)
        params: dict[str, Any] = {"permissions": granted, **self._context._target}
        if origin is not None:
            params["origin"] = origin
        await self._context.browser.cdp.send("Browser.grantPermissions", params)

    async def clear_permissions(self) -> None:
        """Take back every permission granted in this context."""
        self.permissions.clear()
        await self._context.browser.cdp.send("Browser.resetPermissions", self._context._target)
