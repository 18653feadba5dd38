"""BrowserContext: an isolated set of tabs with its own cookies, storage and cache.

A context reaches its browser through :class:`ContextOwner`, a protocol the
:class:`~kobrowser.Browser` satisfies (this module sits below ``_browser``,
which imports it). What users reach through :attr:`BrowserContext.browser`
is typed by :class:`~kobrowser._tab._owner.BrowserView`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Unpack

import anyio

from kobrowser._browser._cookies import cookie_params, filter_cookies, from_cdp, key_of, urls_list
from kobrowser._browser._downloads import download_behavior
from kobrowser._browser._emulation._calls import ContextEmulation
from kobrowser._browser._emulation._settings import (
    Emulation,
    EmulationOptions,
    Geolocation,
    build_emulation,
)
from kobrowser._browser._policy import Policy
from kobrowser._browser._proxy import Proxy
from kobrowser._browser._recording import ContextRecording, check_har_path, har_content
from kobrowser._browser._storage import load_state, parse_state, read_state
from kobrowser._exceptions import (
    InvalidArgumentError,
    KoBrowserError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser._tab._network._routing import RouteTable, block_entries, guard_entry, route_entry
from kobrowser._tab._owner import BrowserView
from kobrowser._tab._tab import Tab
from kobrowser._validate import check

if TYPE_CHECKING:
    from types import TracebackType

    from kobrowser._tab._network import RouteHandler, RoutePattern
    from kobrowser._tab._network._har import HarContent, HarLog
    from kobrowser._tab._pagestate import LoadState
    from kobrowser.cdp import Connection

__all__ = ["BrowserContext", "ContextOwner"]


class ContextOwner(BrowserView[Tab], Protocol):
    """The browser as its contexts use it: the public view and the hooks they call."""

    _closed: bool
    _connection: Connection | None
    _contexts: dict[str, BrowserContext]
    _proxy: Proxy | None

    async def _new_tab(
        self,
        url: str,
        context_id: str | None,
        wait_until: LoadState,
        timeout: float | None,
        *,
        current: bool = True,
    ) -> Tab:
        """Open a tab in a context (``current=False``: the current tab stays)."""
        ...

    def _forget(self, tab: Tab) -> None:
        """A tab was closed: stop tracking it."""
        ...


class BrowserContext:
    """An isolated browser context (like an incognito profile) on the same browser.

    Tabs opened in it (and the popups they open) share its cookies, storage
    and cache, and nothing with other contexts. Create with
    :meth:`Browser.new_context`; use as an async context manager or call
    :meth:`close`, which closes its tabs. :attr:`Browser.default_context`
    is the browser's own context (tabs of :meth:`Browser.new_tab`); it
    cannot be closed.

    Attributes:
        id: Chrome's browser context id (None: the default context).
    """

    def __init__(
        self,
        browser: ContextOwner,
        context_id: str | None,
        download_dir: Path | None,
        proxy: Proxy | None = None,
    ) -> None:
        self._browser = browser
        self.id = context_id
        self.download_dir = download_dir
        self._proxy = proxy
        self._closed = False
        self._origins: dict[str, None] = {}  # http(s) origins its frames showed, in order
        self._emulation = ContextEmulation(self)
        self._routes = RouteTable()
        self._policy: Policy | None = None
        self._recording = ContextRecording()

    def __repr__(self) -> str:
        name = "default" if self.id is None else self.id
        return f"<BrowserContext {name}{' closed' if self._closed else ''}>"

    @property
    def _target(self) -> dict[str, Any]:
        """``browserContextId`` for browser-level calls (empty for the default one)."""
        return {} if self.id is None else {"browserContextId": self.id}

    @property
    def browser(self) -> BrowserView[Tab]:
        """The browser this context lives in (a :class:`~kobrowser.Browser`).

        Typed with what a context's user reaches through it: the verbs
        (acting on the browser's current tab), its tabs and contexts.
        """
        return self._browser

    @property
    def proxy(self) -> Proxy | None:
        """The proxy of the context's traffic: its own, else the browser's (None: none)."""
        return self._proxy if self._proxy is not None else self._browser._proxy

    @property
    def _har(self) -> HarLog | None:
        """The HAR log while the context records one (new tabs record into it)."""
        return self._recording.har

    @property
    def _proxy_credentials(self) -> tuple[str, str] | None:
        proxy = self.proxy
        return None if proxy is None else proxy.credentials

    @property
    def closed(self) -> bool:
        """True once closed (or the browser closed)."""
        return self._closed or self._browser._closed

    @property
    def tabs(self) -> list[Tab]:
        """The context's open tabs, oldest first (popups included)."""
        if self.id is None:  # tabs of contexts this browser did not open count here too
            return [tab for tab in self._browser.tabs if tab.context is None]
        return [tab for tab in self._browser.tabs if tab.context is self]

    def _check_open(self) -> None:
        if self.closed:
            raise KoBrowserError("this browser context is closed")

    async def new_tab(
        self,
        url: str = "about:blank",
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> Tab:
        """Open a tab in this context; see :meth:`Browser.new_tab`."""
        self._check_open()
        return await self._browser._new_tab(url, self.id, wait_until, timeout)

    async def set_download_dir(self, path: str | os.PathLike[str]) -> None:
        """Save this context's downloads in ``path`` (created if missing)."""
        check(path=path)
        directory = Path(await anyio.Path(path).resolve())
        await anyio.Path(directory).mkdir(parents=True, exist_ok=True)
        await self._browser.cdp.send(
            "Browser.setDownloadBehavior", download_behavior(directory, self.id)
        )
        self.download_dir = directory

    # -- cookies and storage ---------------------------------------------------

    async def _cdp_cookies(self) -> list[dict[str, Any]]:
        result = await self._browser.cdp.send("Storage.getCookies", self._target)
        cookies: list[dict[str, Any]] = result.get("cookies", [])
        return cookies

    async def cookies(self, urls: str | Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The context's cookies in Playwright's layout.

        Each is ``{"name", "value", "domain", "path", "expires", "httpOnly",
        "secure", "sameSite"}``; ``expires`` is Unix seconds, -1 for a session
        cookie.

        Args:
            urls: only the cookies a request to one of these URLs would carry
                (default: all).

        Raises:
            InvalidArgumentError: a URL is not http(s).
        """
        wanted = urls_list(urls)
        self._check_open()
        return filter_cookies([from_cdp(c) for c in await self._cdp_cookies()], wanted)

    async def add_cookies(self, cookies: Iterable[Mapping[str, Any]]) -> None:
        """Add (or replace) cookies, in Playwright's layout.

        Each needs ``name`` and ``value``, and either ``url`` or ``domain`` and
        ``path``; ``expires`` (Unix seconds), ``httpOnly``, ``secure`` and
        ``sameSite`` (``"Strict"``, ``"Lax"``, ``"None"``) are optional.

        Raises:
            InvalidArgumentError: a cookie is malformed, or Chrome refused one
                (e.g. ``sameSite="None"`` without ``secure``); then none of
                them is added.
        """
        params = cookie_params(cookies)
        self._check_open()
        if params:
            await self._set_cookie_params(params)

    async def _set_cookie_params(self, params: list[dict[str, Any]]) -> None:
        """Set CDP cookie params all or none (Chrome drops some it refuses silently)."""
        cdp = self._browser.cdp
        before = await self._cdp_cookies()
        try:
            await cdp.send("Storage.setCookies", {"cookies": params, **self._target})
        except ProtocolError as exc:
            raise InvalidArgumentError(
                f"Chrome refused the cookies: {exc.message}", argument="cookies"
            ) from None
        have = {key_of(c) for c in await self._cdp_cookies()}
        refused = [p for p in params if key_of(p) not in have]
        if refused:
            await self._restore_cookies(before)
            names = ", ".join(repr(p["name"]) for p in refused)
            raise InvalidArgumentError(
                f"Chrome refused cookie(s) {names} (a __Secure-/__Host- name or "
                "sameSite=None needs secure, a domain must match the URL); none was added",
                argument="cookies",
            )

    async def _restore_cookies(self, cookies: list[dict[str, Any]]) -> None:
        cdp = self._browser.cdp
        await cdp.send("Storage.clearCookies", self._target)
        keep = ("name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "priority")
        params = []
        for cookie in cookies:
            param = {k: cookie[k] for k in keep if k in cookie}
            if not cookie.get("session") and cookie.get("expires", -1) >= 0:
                param["expires"] = cookie["expires"]
            for extra in ("sourceScheme", "sourcePort", "partitionKey"):
                if extra in cookie:
                    param[extra] = cookie[extra]
            params.append(param)
        if params:
            await cdp.send("Storage.setCookies", {"cookies": params, **self._target})

    async def clear_cookies(
        self, *, name: str | None = None, domain: str | None = None, path: str | None = None
    ) -> None:
        """Remove the context's cookies, or only those matching every filter given.

        Args:
            name: only cookies of this name.
            domain: only cookies of this domain (as :meth:`cookies` shows it).
            path: only cookies of this path.
        """
        self._check_open()
        if name is None and domain is None and path is None:
            await self._browser.cdp.send("Storage.clearCookies", self._target)
            return
        cookies = await self._cdp_cookies()

        def matches(cookie: dict[str, Any]) -> bool:
            return (
                (name is None or cookie["name"] == name)
                and (domain is None or cookie["domain"] == domain)
                and (path is None or cookie["path"] == path)
            )

        if any(matches(c) for c in cookies):
            await self._restore_cookies([c for c in cookies if not matches(c)])

    async def storage_state(
        self, path: str | os.PathLike[str] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Save the cookies and each origin's localStorage (Playwright's layout).

        Origins are those shown by the context's frames now, plus those its
        tabs visited earlier (read in a scratch tab that never touches the
        network), plus those loaded with :meth:`set_storage_state`.

        Args:
            path: also write the JSON to this file.
            timeout: deadline of each step (default: the browser's).

        Returns:
            ``{"cookies": [...], "origins": [{"origin", "localStorage": [{"name", "value"}]}]}``.

        Cancelling the caller closes the scratch tab, if one was opened.
        """
        self._check_open()
        deadline = self._browser.timeout if timeout is None else timeout
        state = await read_state(self, list(self._origins), deadline)
        if path is not None:
            text = json.dumps(state, indent=2, ensure_ascii=False)
            try:
                await anyio.Path(path).write_text(text + "\n", encoding="utf-8")
            except (OSError, ValueError) as exc:  # a directory, no such folder, a NUL byte
                reason = getattr(exc, "strerror", None) or exc
                raise InvalidArgumentError(
                    f"path: cannot write {os.fspath(path)!r}: {reason}", argument="path"
                ) from None
        return state

    async def set_storage_state(
        self,
        state: str | os.PathLike[str] | Mapping[str, Any],
        *,
        timeout: float | None = None,
    ) -> None:
        """Load cookies and localStorage saved by :meth:`storage_state` (or Playwright).

        Args:
            state: a JSON file's path, or the dict itself.
            timeout: deadline of each step (default: the browser's).

        Raises:
            InvalidArgumentError: the file is unreadable, not JSON or not the
                layout; nothing is applied then.
        """
        parsed = await parse_state(state)
        self._check_open()
        for origin in parsed.origins:
            self.note_origin(origin)
        await load_state(self, parsed, self._browser.timeout if timeout is None else timeout)

    def note_origin(self, origin: str) -> None:
        """Remember an http(s) origin a frame of this context showed (for the storage state)."""
        self._origins[origin] = None

    # -- emulation -----------------------------------------------------------------

    @property
    def emulation(self) -> Emulation:
        """What this context emulates now (set with :meth:`emulate`)."""
        return self._emulation.settings

    async def emulate(self, **options: Unpack[EmulationOptions]) -> None:
        """Change what the context's tabs emulate: open ones at once, new ones from the start.

        Takes the options of :class:`~kobrowser.EmulationOptions` (``device``,
        ``viewport``, ``device_scale_factor``, ``is_mobile``, ``has_touch``,
        ``user_agent``, ``locale``, ``timezone_id``, ``geolocation``,
        ``color_scheme``, ``reduced_motion``, ``offline``,
        ``extra_http_headers``), each described there; those left out (or
        None) keep their setting. A ``device`` sets viewport, scale, mobile,
        touch and user agent (the other options given override it). Popups
        and out-of-process frames get the same settings as the tabs.

        Raises:
            InvalidArgumentError: an unknown option or device, or a bad value;
                nothing is changed then.
        """
        self._check_open()
        await self._emulation.replace(build_emulation(self._emulation.settings, **options))

    async def clear_emulation(self) -> None:
        """Stop emulating anything (permissions stay; see :meth:`clear_permissions`)."""
        self._check_open()
        await self._emulation.reset()

    async def set_offline(self, offline: bool) -> None:
        """Cut the context's network off (True) or restore it."""
        await self.emulate(offline=offline)

    async def set_extra_http_headers(self, headers: Mapping[str, str]) -> None:
        """Send these headers with every request of the context (replacing earlier ones)."""
        await self.emulate(extra_http_headers=headers)

    async def set_geolocation(
        self, geolocation: Geolocation | Mapping[str, float] | Sequence[float] | None
    ) -> None:
        """Report this position to pages (None: stop emulating one)."""
        if geolocation is None:
            self._check_open()
            await self._emulation.unset("geolocation")
        else:
            await self.emulate(geolocation=geolocation)

    async def grant_permissions(
        self, permissions: Sequence[str], *, origin: str | None = None
    ) -> None:
        """Grant permissions to ``origin``, or to every origin (added to earlier grants).

        Names are Playwright's: ``"geolocation"``, ``"notifications"``,
        ``"camera"``, ``"microphone"``, ``"clipboard-read"``...

        Raises:
            InvalidArgumentError: an unknown permission or a bad origin.
        """
        self._check_open()
        await self._emulation.grant(permissions, origin)

    async def clear_permissions(self) -> None:
        """Take back every permission granted in this context."""
        self._check_open()
        await self._emulation.clear_permissions()

    # -- network routing ---------------------------------------------------

    async def route(self, pattern: RoutePattern, handler: RouteHandler) -> None:
        """Route the matching requests of every tab of this context, popups included.

        As :meth:`kobrowser.Network.route` (``tab.network.route``); a tab's own routes
        come first.

        Raises:
            InvalidArgumentError: a bad pattern or handler (nothing changed).
        """
        self._routes.add([route_entry(pattern, handler)])
        await self._sync_routes()

    async def unroute(self, pattern: RoutePattern, handler: RouteHandler | None = None) -> int:
        """Remove the context's routes registered with ``pattern``; returns how many."""
        removed = self._routes.remove(pattern, handler)
        await self._sync_routes()
        return removed

    async def unroute_all(self) -> int:
        """Remove every route and block of the context; returns how many."""
        removed = self._routes.clear()
        await self._sync_routes()
        return removed

    async def block(
        self,
        patterns: RoutePattern | Iterable[RoutePattern] | None = None,
        *,
        types: str | Iterable[str] | None = None,
    ) -> None:
        """Block requests in every tab of the context; see :meth:`kobrowser.Network.block`."""
        self._routes.add(block_entries(patterns, types))
        await self._sync_routes()

    async def unblock(self) -> int:
        """Remove the context's blocks; returns how many."""
        removed = self._routes.clear(blocking_only=True)
        await self._sync_routes()
        return removed

    # -- policy ----------------------------------------------------------------

    @property
    def policy(self) -> Policy | None:
        """The :class:`~kobrowser.Policy` the context enforces (None: none)."""
        return self._policy

    async def set_policy(self, policy: Policy | None) -> None:
        """Enforce ``policy`` in every tab of the context, popups and frames included.

        From then on :meth:`Tab.open` refuses a URL the policy refuses before
        navigating (:class:`~kobrowser.NavigationError` naming the rule; the
        page stays where it was), and every document request to one (a
        redirect hop, a popup, a frame navigation, a link) is aborted
        before it leaves Chrome, ahead of any route of the tab or context.
        :meth:`unroute_all` and :meth:`unblock` leave it; ``None`` lifts it.
        If the policy has a ``download_dir``, downloads go there.

        Raises:
            InvalidArgumentError: ``policy`` is not a Policy or None.
        """
        if policy is not None and not isinstance(policy, Policy):
            raise InvalidArgumentError(
                f"policy must be a kobrowser.Policy or None, not {type(policy).__name__}",
                argument="policy",
            )
        self._check_open()
        self._policy = policy
        self._routes.guards = (
            [] if policy is None else [guard_entry(lambda url: policy.refusal(url) is not None)]
        )
        await self._sync_routes()
        if policy is not None and policy.download_dir is not None:
            await self.set_download_dir(policy.download_dir)

    # -- hooks of its tabs (see kobrowser._tab._owner.TabContext) -------------

    def _refusal(self, url: str) -> str | None:
        """Why the context's policy refuses ``url``, or None."""
        return None if self._policy is None else self._policy.refusal(url)

    def _fill_text(self, text: str) -> str:
        """``text`` with the policy's secrets filled in for their ``{{name}}``."""
        return text if self._policy is None else self._policy.fill_text(text)

    def _mask_text(self, text: str) -> str:
        """``text`` with every secret value of the policy shown as ``{{name}}``."""
        return text if self._policy is None else self._policy.mask(text)

    def _frame_emulation(self) -> list[tuple[str, dict[str, Any]]]:
        return self._emulation.frame_calls()

    async def _set_tab_viewport(self, tab: Tab, width: int, height: int) -> None:
        await self._emulation.set_tab_viewport(tab, width, height)

    async def _scratch_tab(self, timeout: float) -> Tab:
        """A blank tab of the context that does not become the current tab (storage state)."""
        return await self._browser._new_tab("about:blank", self.id, "load", timeout, current=False)

    # -- recording ---------------------------------------------------------

    def start_har(self, *, content: HarContent = "omit") -> None:
        """Record the requests of the context's tabs for HAR from now on.

        Every tab open now and every tab opened later (popups included), and
        their frames (out-of-process iframes too), record each request with
        its headers, timings, sizes and, with ``content="embed"``, its body.
        ``new_context(record_har=...)`` does this from the context's start.
        Requests already under way when it starts are left out. Idempotent.

        Args:
            content: ``"omit"`` (no bodies; the default) or ``"embed"``
                (each response body, fetched from Chrome as it finishes:
                text as is, binary in base64; bodies over 10 MB are left out).

        Raises:
            InvalidArgumentError: an unknown ``content``, or not the one the
                context records with already.
        """
        self._check_open()
        self._recording.start_har(har_content(content, "content"), self.tabs)

    async def save_har(
        self, path: str | os.PathLike[str], *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Write the HAR 1.2 file of every request recorded so far.

        One page per top-level document of each tab; one entry per request
        (each hop of a redirect is one), closed tabs included. Recording
        goes on.

        Args:
            path: the ``.har`` file to write (its directory must exist).
            timeout: seconds at most to wait for bodies still being fetched
                (``content="embed"``; default: the browser's); later ones are left out.

        Returns:
            The HAR document that was written (``{"log": {...}}``).

        Raises:
            InvalidArgumentError: ``path`` is not a file path in a writable directory.
            CaptureError: the context records no HAR, or the file cannot be written.

        Cancelling the caller may leave the file unwritten or partly written.
        """
        target = check_har_path(path, "path")
        check(timeout=timeout)
        limit = self._browser.timeout if timeout is None else float(timeout)
        return await self._recording.save_har(target, "", limit)

    async def _sync_routes(self) -> None:
        for tab in self.tabs:
            with contextlib.suppress(TargetClosedError):
                await tab._net.sync()

    async def close(self) -> None:
        """Close the context and all its tabs. Idempotent.

        Shielded from cancellation, so the context never outlives a cancelled caller.
        Its recordings end first: each tab's video is finished and the HAR
        file of ``new_context(record_har=path)`` written.

        Raises:
            KoBrowserError: this is the browser's default context.
            CaptureError: a video or the HAR file could not be written (the
                context is closed all the same).
        """
        if self.id is None:
            raise KoBrowserError("the default context cannot be closed: close the browser")
        if self._closed:
            return
        self._closed = True
        tabs = self.tabs
        with anyio.CancelScope(shield=True):
            try:
                await self._recording.finish("", self._browser.timeout)
            finally:
                await self._dispose(tabs)

    async def _dispose(self, tabs: list[Tab]) -> None:
        with anyio.CancelScope(shield=True):
            connection = self._browser._connection
            if connection is not None and not connection.closed:
                with anyio.move_on_after(10), contextlib.suppress(ProtocolError):
                    await connection.root.send(
                        "Target.disposeBrowserContext", {"browserContextId": self.id}
                    )
        for tab in tabs:
            tab._closed = True
            self._browser._forget(tab)
        if self.id is not None:
            self._browser._contexts.pop(self.id, None)

    async def __aenter__(self) -> BrowserContext:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
