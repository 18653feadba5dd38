"""The browsers of a scrape: local Chromes or remote CDP endpoints, and their tabs.

One keeper task per endpoint holds its :class:`~kobrowser.Browser` open
(``async with``, so it is entered and left in that one task) and replaces it
when it is lost: a local Chrome is launched again, a remote endpoint is
connected to again, after a back-off that grows with each failure in a row.
Workers lease a tab from the least loaded browser that is up; a tab goes
back to its browser's idle list when the page is done, or is closed when it
is spent (crashed, hung, or its browser was replaced).

Every tab of a browser lives in an isolated context the pool creates
(downloads denied there), so pages never share state with the browser's own
tabs on a remote endpoint: one context, or with ``proxies`` one per proxy on
each browser, the pages taking the contexts in turn (round-robin). Resource
types to block are blocked in each context. Tabs the pages open (popups) are
closed as soon as they are set up.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.abc
import anyio.lowlevel

from kobrowser._browser._launch import connect, launch
from kobrowser._exceptions import KoBrowserError

if TYPE_CHECKING:
    from kobrowser._browser._browser import Browser
    from kobrowser._browser._context import BrowserContext
    from kobrowser._browser._proxy import Proxy
    from kobrowser._tab._tab import Tab

__all__ = ["BrowserPool", "Endpoint", "Lease", "NoBrowserError", "Slot"]

#: Failed starts in a row after which an endpoint counts as unavailable (it
#: is still retried; while every endpoint is unavailable, pages fail).
MAX_FAILURES = 5
#: The same for a local Chrome that never started (a launch error repeats).
MAX_LAUNCH_FAILURES = 2
#: Tabs a browser failed to open in a row before it is replaced.
MAX_TAB_FAILURES = 3
BACKOFF_CAP = 30.0
#: Least deadline for starting or reaching a browser, in seconds.
START_TIMEOUT = 30.0


class NoBrowserError(KoBrowserError):
    """No browser endpoint is up, and every one failed its recent starts."""


def backoff(failures: int, *, base: float = 0.5, cap: float = BACKOFF_CAP) -> float:
    """Seconds to wait after ``failures`` failures in a row (with +-25% jitter)."""
    delay = min(cap, base * 2.0 ** max(0, failures - 1))
    return delay * random.uniform(0.75, 1.25)


class Slot:
    """One context of a browser the pool's tabs live in, and its idle tabs.

    Attributes:
        context: the context (None: the browser's default one, for an
            endpoint that cannot make contexts).
        idle: its tabs waiting for a page.
    """

    __slots__ = ("context", "idle")

    def __init__(self, context: BrowserContext | None) -> None:
        self.context = context
        self.idle: list[Tab] = []


class Endpoint:
    """One browser of the pool: a local Chrome (``address`` None) or a CDP endpoint.

    Attributes:
        label: how errors name it (the address, or ``local Chrome #N``).
        state: ``"starting"``, ``"up"`` or ``"down"``.
        active: tabs leased out now.
        generation: bumped each time its browser is replaced.
        failures: failed starts (or losses) in a row.
        error: the latest failure, one line.
    """

    def __init__(self, index: int, address: str | None) -> None:
        self.index = index
        self.address = address
        self.label = address if address is not None else f"local Chrome #{index + 1}"
        self.state: Literal["starting", "up", "down"] = "starting"
        self.browser: Browser | None = None
        self.slots: list[Slot] = []
        self.turn = 0  # the next slot, round-robin
        self.generation = 0
        self.active = 0
        self.tabs: set[Tab] = set()  # the pool's tabs on the current browser
        self.failures = 0
        self.tab_failures = 0
        self.ever_up = False
        self.error = ""
        self.lost = anyio.Event()

    def __repr__(self) -> str:
        return f"<Endpoint {self.label} {self.state} active={self.active}>"

    @property
    def idle(self) -> int:
        """Tabs waiting for a page, over all its contexts."""
        return sum(len(slot.idle) for slot in self.slots)

    def next_slot(self) -> Slot:
        """The context the next page goes to (each in turn)."""
        slot = self.slots[self.turn % len(self.slots)]
        self.turn += 1
        return slot

    @property
    def unavailable(self) -> bool:
        """Down, and failed often enough in a row that pages should not wait for it."""
        limit = MAX_FAILURES if self.ever_up or self.address else MAX_LAUNCH_FAILURES
        return self.state != "up" and self.failures >= limit


class Lease:
    """A tab lent to one page attempt, with the browser generation it belongs to."""

    __slots__ = ("browser", "endpoint", "generation", "slot", "tab")

    def __init__(self, endpoint: Endpoint, browser: Browser, slot: Slot, tab: Tab) -> None:
        self.endpoint = endpoint
        self.browser = browser
        self.slot = slot
        self.tab = tab
        self.generation = endpoint.generation

    @property
    def browser_lost(self) -> bool:
        """The tab's browser went away (or was replaced) since the lease."""
        endpoint = self.endpoint
        return (
            self.browser.connection.closed
            or endpoint.generation != self.generation
            or endpoint.lost.is_set()
        )


class BrowserPool:
    """The endpoints of a scrape and their tabs (see the module docstring)."""

    def __init__(
        self,
        addresses: Sequence[str] | None,
        browsers: int,
        *,
        timeout: float,
        max_idle: int,
        launch_options: dict[str, Any],
        proxies: Sequence[Proxy] = (),
        block_resources: Sequence[str] = (),
    ) -> None:
        if addresses:
            self.endpoints = [Endpoint(i, address) for i, address in enumerate(addresses)]
        else:
            self.endpoints = [Endpoint(i, None) for i in range(browsers)]
        self.timeout = timeout
        self.max_idle = max_idle
        self._launch_options = launch_options
        self._proxies = tuple(proxies)
        self._block = tuple(block_resources)
        self._changed = anyio.Event()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    @property
    def browsers(self) -> list[Browser]:
        """The browsers up now."""
        return [ep.browser for ep in self.endpoints if ep.browser is not None and ep.state == "up"]

    # -- keepers ---------------------------------------------------------------

    async def run(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Keep every endpoint's browser open until cancelled."""
        async with anyio.create_task_group() as tg:
            for endpoint in self.endpoints:
                tg.start_soon(self._keep, endpoint)
            task_status.started()

    async def _keep(self, endpoint: Endpoint) -> None:
        while True:
            endpoint.state = "starting"
            endpoint.lost = anyio.Event()
            try:
                async with self._open(endpoint) as browser:
                    await self._serve(endpoint, browser)
            except KoBrowserError as exc:
                endpoint.error = f"{endpoint.label}: {_one_line(exc)}"
            self._down(endpoint)
            endpoint.failures += 1
            self._notify()
            await anyio.sleep(backoff(endpoint.failures))

    async def _serve(self, endpoint: Endpoint, browser: Browser) -> None:
        """Lend ``browser``'s tabs until it is lost (or a tab cannot be opened)."""
        lost = endpoint.lost
        reasons: list[str] = []

        def on_close(reason: str) -> None:
            reasons.append(reason)
            lost.set()

        browser.connection.on_close(on_close)
        slots = [Slot(context) for context in await self._prepare(browser)]
        endpoint.browser, endpoint.slots = browser, slots
        endpoint.state = "up"
        endpoint.failures = endpoint.tab_failures = 0
        endpoint.ever_up = True
        self._notify()
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._close_popups, endpoint, browser)
                await lost.wait()
                tg.cancel_scope.cancel()
        finally:
            # Down before the browser closes (also when cancelled): no new lease on it.
            self._down(endpoint)
        if reasons:
            endpoint.error = f"lost the browser {endpoint.label}: {reasons[0]}"

    async def _close_popups(self, endpoint: Endpoint, browser: Browser) -> None:
        """Close every tab the pool's pages open (popups, ``target=_blank``) once it is set up.

        Popups are not scraped; closing them keeps a page that opens many
        from filling the browser. The opener's record is not affected.
        """
        while True:
            try:
                tab = await browser.wait_for_tab(timeout=3600)
            except KoBrowserError:
                continue
            ours = any(s.context is not None and tab.context is s.context for s in endpoint.slots)
            if ours or _opened_by(tab, endpoint.tabs):
                await _close(tab)

    def _open(self, endpoint: Endpoint) -> Browser:
        # Starting a browser may take longer than a page on a busy machine;
        # page-level calls pass their own deadline.
        timeout = max(self.timeout, START_TIMEOUT)
        if endpoint.address is None:
            return launch(timeout=timeout, **self._launch_options)
        return connect(endpoint.address, timeout=timeout)

    async def _prepare(self, browser: Browser) -> list[BrowserContext | None]:
        """The isolated contexts of the pool's tabs (one per proxy), downloads denied.

        Without proxies, an endpoint that cannot make contexts lends tabs of
        its default one (blocks are then set on each tab); with proxies a
        context is a must (the default one would bypass them): the error
        fails the start.
        """
        contexts: list[BrowserContext | None]
        block = self._block or None
        if self._proxies:
            contexts = []
            for proxy in self._proxies:
                contexts.append(await browser.new_context(proxy=proxy, block_resources=block))
        else:
            try:
                contexts = [await browser.new_context(block_resources=block)]
            except KoBrowserError:  # an endpoint without contexts: use its default one
                contexts = [None]
        for context in contexts:
            if context is None and browser.pid is None:
                continue  # never change a remote's default
            params: dict[str, Any] = {"behavior": "deny", "eventsEnabled": True}
            if context is not None:
                params["browserContextId"] = context.id
            with contextlib.suppress(KoBrowserError):
                await browser.cdp.send("Browser.setDownloadBehavior", params)
        return contexts

    def _down(self, endpoint: Endpoint) -> None:
        if endpoint.state == "down":
            return
        endpoint.state = "down"
        endpoint.browser = None
        endpoint.slots = []
        endpoint.tabs.clear()
        endpoint.generation += 1
        self._notify()

    # -- leases ----------------------------------------------------------------

    def unavailable_reason(self) -> str | None:
        """Why no page can be loaded now (every endpoint unavailable), or None."""
        if not all(ep.unavailable for ep in self.endpoints):
            return None
        errors = "; ".join(ep.error or f"{ep.label}: not up" for ep in self.endpoints)
        return f"no browser available: {errors}"

    async def lease(self) -> Lease:
        """A tab on the least loaded browser that is up; waits while none is up.

        Raises:
            NoBrowserError: every endpoint is unavailable (see ``MAX_FAILURES``).
        """
        while True:
            await anyio.lowlevel.checkpoint()
            up = [ep for ep in self.endpoints if ep.state == "up" and not ep.lost.is_set()]
            if up:
                endpoint = min(up, key=lambda ep: (ep.active, ep.index))
                browser = endpoint.browser
                assert browser is not None
                endpoint.active += 1
                slot = endpoint.next_slot()
                try:
                    tab = await self._tab(endpoint, browser, slot)
                except BaseException:
                    endpoint.active -= 1
                    raise
                if tab is not None:
                    return Lease(endpoint, browser, slot, tab)
                endpoint.active -= 1
                continue
            reason = self.unavailable_reason()
            if reason is not None:
                raise NoBrowserError(reason)
            await self._changed.wait()

    async def _tab(self, endpoint: Endpoint, browser: Browser, slot: Slot) -> Tab | None:
        """An idle tab of ``slot`` or a new one; None when the browser failed."""
        while slot.idle:
            tab = slot.idle.pop()
            if not tab.closed:
                return tab
            endpoint.tabs.discard(tab)
        generation = endpoint.generation
        opener = slot.context if slot.context is not None else browser
        try:
            tab = await opener.new_tab(timeout=self.timeout)
            if slot.context is None and self._block:
                await _block_in(tab, self._block)
        except KoBrowserError as exc:
            if endpoint.generation == generation and not browser.connection.closed:
                endpoint.error = f"{endpoint.label}: cannot open a tab: {_one_line(exc)}"
                endpoint.tab_failures += 1
                if endpoint.tab_failures >= MAX_TAB_FAILURES:
                    endpoint.lost.set()  # replaced like a lost browser
                else:
                    await anyio.sleep(backoff(endpoint.tab_failures))
            return None
        if endpoint.generation != generation:  # replaced meanwhile
            return None
        endpoint.tab_failures = 0
        endpoint.tabs.add(tab)
        return tab

    async def release(self, lease: Lease, *, retire: bool) -> None:
        """Give the tab back (idle) or close it when spent. Shielded from cancellation."""
        endpoint = lease.endpoint
        endpoint.active -= 1
        tab = lease.tab
        if lease.browser_lost:
            return  # the browser closes its tabs
        if retire or tab.closed or endpoint.idle >= self.max_idle:
            endpoint.tabs.discard(tab)
            await _close(tab)
        else:
            lease.slot.idle.append(tab)


async def _close(tab: Tab) -> None:
    """Close a tab (shielded); a browser going away meanwhile closes it anyway."""
    # Tab.close lets ConnectionClosedError out when the connection drops during the call.
    with contextlib.suppress(KoBrowserError):
        await tab.close()


async def _block_in(tab: Tab, types: Sequence[str]) -> None:
    """Block ``types`` in a tab of a default context (the pool made no context)."""
    try:
        await tab.network.block(types=types)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await _close(tab)
        raise


def _opened_by(tab: Tab, ours: set[Tab]) -> bool:
    opener = tab.opener
    for _ in range(32):  # a chain of popups, each opened by the one before
        if opener is None:
            return False
        if opener in ours:
            return True
        opener = opener.opener
    return False


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
