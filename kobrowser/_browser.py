"""Browser: one CDP connection (launched or connected), its tabs and contexts.

Every page target of the browser is attached automatically (browser-level
``Target.setAutoAttach``, flattened): tabs opened with
:meth:`Browser.new_tab`, popups from ``window.open`` and ``target=_blank``,
and tabs of isolated contexts alike. Each becomes a :class:`Tab` with its
own frame registry and lifecycle, network and dialog tracking. (A popup's
requests that started before its set-up finished are not counted for
``networkidle``.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from contextlib import AsyncExitStack, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from ._concurrency import exit_unwrapped
from ._context import BrowserContext
from ._downloads import Download, Downloads, download_behavior
from ._exceptions import KoBrowserError, TargetClosedError, WaitTimeoutError
from ._forward import CurrentTabMixin
from ._tab import Tab
from ._targets import TargetTracking
from .cdp import ChromeProcess, Connection, find_chrome, open_transport, resolve_endpoint

if TYPE_CHECKING:
    from types import TracebackType

    from ._snapshot import Snapshot
    from ._tab._pagestate import LoadState

__all__ = ["Browser", "connect", "launch"]

_AUTO_ATTACH = {
    "autoAttach": True,
    # Not paused: a popup's renderer would not answer the set-up calls until
    # resumed, and a paused page whose set-up failed would hang for good.
    # Chrome re-sends the lifecycle state when it is enabled, so a tab set up
    # late still knows how far its document got.
    "waitForDebuggerOnStart": False,
    "flatten": True,
    "filter": [{"type": "page", "exclude": False}],
}


def launch(
    *,
    headless: bool = True,
    executable_path: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    timeout: float = 30.0,
    no_sandbox: bool | None = None,
    download_dir: str | os.PathLike[str] | None = None,
    transport: str | None = None,
) -> Browser:
    """Start a local Chrome/Chromium with a fresh temporary profile.

    Use the result as an async context manager::

        async with kobrowser.launch() as browser:
            tab = await browser.new_tab("https://example.com")

    Args:
        headless: run without a window.
        executable_path: the browser to run; default: found as described in README.
        args: extra command-line flags.
        timeout: seconds to wait for Chrome to start, and the default
            deadline of every CDP call and wait.
        no_sandbox: pass ``--no-sandbox``; default: only when running as root.
        download_dir: where downloads are saved (created if missing);
            default: a temporary directory removed when the browser closes.
        transport: ``"pipe"`` (default: CBOR over Chrome's DevTools pipe when
            the native codec is built, else JSON), ``"pipe-cbor"``,
            ``"pipe-json"`` or ``"websocket"``; default: the
            ``KOBROWSER_TRANSPORT`` environment variable, else ``"pipe"``.

    On exit (also when the block raises or is cancelled) Chrome is closed
    gracefully, then terminated, then killed, and its profile is removed.

    Raises:
        LaunchError: no browser found, or it failed to start.
    """
    executable = find_chrome(executable_path)
    process = ChromeProcess(
        executable, headless=headless, args=args, no_sandbox=no_sandbox, transport=transport
    )
    return Browser(process=process, timeout=timeout, download_dir=download_dir)


def connect(
    endpoint: str,
    *,
    timeout: float = 30.0,
    download_dir: str | os.PathLike[str] | None = None,
) -> Browser:
    """Attach to a running Chrome over CDP.

    Args:
        endpoint: ``ws://host:port/devtools/browser/<id>``, ``http://host:port``
            or ``host:port``.
        timeout: connect deadline and default deadline of every CDP call and wait.
        download_dir: as for :func:`launch` (a path on the browser's machine).

    Leaving the ``async with`` block closes the tabs and contexts this
    Browser opened and the connection, never the remote browser itself. The
    browser's existing tabs appear in :attr:`Browser.tabs` too.
    """
    return Browser(endpoint=endpoint, timeout=timeout, download_dir=download_dir)


class Browser(CurrentTabMixin, TargetTracking):
    """A browser reached over one CDP connection; holds its tabs and contexts.

    Create with :func:`launch` or :func:`connect` and use as an async context
    manager. Cancellation of the enclosing scope closes everything.
    """

    def __init__(
        self,
        *,
        process: ChromeProcess | None = None,
        endpoint: str | None = None,
        timeout: float = 30.0,
        download_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self._process = process
        self._endpoint = endpoint
        self.timeout = timeout
        self._connection: Connection | None = None
        self._stack: AsyncExitStack | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        self._tabs: dict[str, Tab] = {}
        self._current: Tab | None = None
        self._started = False
        self._closed = False
        self._created: set[str] = set()  # targets new_tab created (never popups)
        self._unclaimed: deque[Tab] = deque()  # tabs opened by pages, for wait_for_tab
        self._owned: set[str] = set()  # targets to close on exit (connect mode)
        self._tabs_changed = anyio.Event()
        self._contexts: dict[str, BrowserContext] = {}
        self._downloads = Downloads(self)
        self._download_dir = Path(download_dir).resolve() if download_dir else None
        self._temp_download_dir: Path | None = None
        self._attaching_existing = False

    # -- lifecycle ---------------------------------------------------------

    async def __aenter__(self) -> Browser:
        if self._started:
            raise KoBrowserError("a Browser can be entered only once")
        self._started = True
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            task_group = await stack.enter_async_context(anyio.create_task_group())
            self._task_group = task_group
            if self._process is not None:
                stack.push_async_callback(self._process.aclose)
                transport = await self._process.open(timeout=self.timeout)
                task_group.start_soon(self._process.drain_stderr)
            else:
                assert self._endpoint is not None
                ws_url = await resolve_endpoint(self._endpoint, timeout=self.timeout)
                transport = await open_transport(ws_url, timeout=self.timeout)
            self._connection = Connection(transport, timeout=self.timeout)
            await stack.enter_async_context(self._connection)
            root = self._connection.root
            self._connection.on_close(self._on_connection_closed)
            root.add_listener("Target.attachedToTarget", self._on_attached)
            root.add_listener("Target.detachedFromTarget", self._on_gone)
            root.add_listener("Target.targetDestroyed", self._on_gone)
            root.add_listener("Target.targetCrashed", self._on_gone)
            self._downloads.watch(root)
            directory = self._download_dir
            if directory is None:
                directory = Path(tempfile.mkdtemp(prefix=f"kobrowser-downloads-{os.getpid()}-"))
                self._temp_download_dir = directory
            await self.set_download_dir(directory)
            await root.send("Target.setDiscoverTargets", {"discover": True})
            # Chrome reports the pages that already exist before it answers.
            self._attaching_existing = True
            await root.send("Target.setAutoAttach", _AUTO_ATTACH)
            self._attaching_existing = False
        except BaseException as exc:
            self._closed = True
            self._remove_temp_dir()
            if not await exit_unwrapped(stack, type(exc), exc, exc.__traceback__):
                raise
            raise  # pragma: no cover - the stack never swallows
        self._stack = stack
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        assert self._stack is not None
        return await exit_unwrapped(self._stack, exc_type, exc, tb)

    async def aclose(self) -> None:
        """Close tabs and contexts opened here, the connection, and a launched Chrome.

        Idempotent. Shielded from cancellation, so a cancelled caller still
        releases everything.
        """
        if self._closed:
            return
        with anyio.CancelScope(shield=True):
            connection = self._connection
            if connection is not None and not connection.closed:
                if self._process is not None:
                    self._closed = True
                    with anyio.move_on_after(3), suppress(KoBrowserError):
                        await connection.root.send("Browser.close", timeout=3)
                else:
                    for context in list(self._contexts.values()):
                        await context.close()
                    for tab in list(self._tabs.values()):
                        if tab.target_id in self._owned:
                            with anyio.move_on_after(3):
                                await tab.close()
            self._closed = True
            if connection is not None:
                await connection.aclose()
            if self._process is not None:
                await self._process.aclose()
            self._downloads.close()
            self._remove_temp_dir()

    def _remove_temp_dir(self) -> None:
        if self._temp_download_dir is not None:
            shutil.rmtree(self._temp_download_dir, ignore_errors=True)
            self._temp_download_dir = None

    # -- state -------------------------------------------------------------

    @property
    def connection(self) -> Connection:
        """The CDP connection (raise if the browser is not started)."""
        if self._connection is None:
            raise KoBrowserError("the browser is not started: use `async with`")
        return self._connection

    @property
    def cdp(self) -> Any:
        """The browser-level CDP session."""
        return self.connection.root

    @property
    def pid(self) -> int | None:
        """The Chrome process id when launched by kobrowser, else None."""
        return self._process.pid if self._process is not None else None

    @property
    def tabs(self) -> list[Tab]:
        """Open tabs of every context (popups included), oldest first."""
        return [tab for tab in self._tabs.values() if tab._ready.is_set() and not tab.closed]

    @property
    def contexts(self) -> list[BrowserContext]:
        """The isolated contexts opened with :meth:`new_context` and not closed."""
        return list(self._contexts.values())

    @property
    def current_tab(self) -> Tab:
        """The tab actions on the Browser apply to (the newest, or the one switched to)."""
        if self._current is None or self._current.closed:
            tabs = self.tabs
            if not tabs:
                raise KoBrowserError("no open tab: call `await browser.new_tab(url)` first")
            self._current = tabs[-1]
        return self._current

    # -- tabs --------------------------------------------------------------

    async def new_tab(
        self,
        url: str = "about:blank",
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> Tab:
        """Open a new tab, navigate it to ``url`` and make it the current tab.

        Args:
            url: where to go (``about:blank``: nowhere).
            wait_until: the load state to wait for, as for :meth:`Tab.open`.
            timeout: seconds for opening and navigating (default: the browser's).

        Raises:
            NavigationError: the URL could not be loaded.
            WaitTimeoutError: the tab or the page did not get ready in time.

        Cancelling the caller closes the half-opened tab.
        """
        return await self._new_tab(url, None, wait_until, timeout)

    async def _new_tab(
        self, url: str, context_id: str | None, wait_until: LoadState, timeout: float | None
    ) -> Tab:
        deadline = self.timeout if timeout is None else timeout
        params: dict[str, Any] = {"url": "about:blank"}
        if context_id is not None:
            params["browserContextId"] = context_id
        created = await self.connection.root.send("Target.createTarget", params, timeout=deadline)
        target_id: str = created["targetId"]
        self._created.add(target_id)
        self._owned.add(target_id)
        tab: Tab | None = None
        try:
            with anyio.move_on_after(deadline):
                while (tab := self._tabs.get(target_id)) is None or not tab._ready.is_set():
                    await self._tabs_changed.wait()
            if tab is None or not tab._ready.is_set():
                raise WaitTimeoutError(f"the new tab did not get ready within {deadline:g} s")
            if tab._init_error is not None:
                raise tab._init_error
            with contextlib.suppress(ValueError):
                self._unclaimed.remove(tab)
            if url != "about:blank":
                await tab.open(url, wait_until=wait_until, timeout=deadline)
        except BaseException:
            with anyio.CancelScope(shield=True), anyio.move_on_after(3):
                if tab is not None:
                    await tab.close()
                else:
                    with suppress(KoBrowserError):
                        await self.connection.root.send(
                            "Target.closeTarget", {"targetId": target_id}
                        )
            raise
        finally:
            self._created.discard(target_id)
        self._current = tab
        return tab

    async def wait_for_tab(self, *, timeout: float | None = None) -> Tab:
        """Return the oldest tab a page opened (popup, ``target=_blank``) not yet returned.

        Tabs opened by pages are tracked automatically and appear in
        :attr:`tabs` whether or not anyone waits for them; this waits for the
        next one when none is unclaimed. The tab is set up (frames, events,
        dialogs) but may still be loading: use :meth:`Tab.wait_for_load`.

        Raises:
            WaitTimeoutError: no new tab within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; no tab is lost.
        """
        deadline = self.timeout if timeout is None else timeout
        with anyio.move_on_after(deadline):
            while True:
                while self._unclaimed:
                    tab = self._unclaimed.popleft()
                    if not tab.closed:
                        return tab
                await self._tabs_changed.wait()
        raise WaitTimeoutError(f"no new tab opened within {deadline:g} s")

    async def switch_to(self, tab: Tab) -> None:
        """Make ``tab`` the current tab and bring it to the front.

        Raises:
            TargetClosedError: the tab is closed.
        """
        if tab.closed:
            raise TargetClosedError(f"{tab!r} is closed")
        await tab.cdp.send("Page.bringToFront")
        self._current = tab

    # -- contexts and downloads ------------------------------------------------

    async def new_context(
        self, *, download_dir: str | os.PathLike[str] | None = None
    ) -> BrowserContext:
        """Create an isolated browser context: its own cookies, storage and cache.

        Use ``await ctx.new_tab(url)`` to open tabs in it; ``await ctx.close()``
        (or ``async with``) closes them all.

        Args:
            download_dir: where its downloads go (default: the browser's).
        """
        result = await self.connection.root.send(
            "Target.createBrowserContext", {"disposeOnDetach": True}
        )
        context = BrowserContext(self, result["browserContextId"], None)
        self._contexts[context.id] = context
        directory = download_dir or self._download_dir or self._temp_download_dir
        if directory is not None:
            await context.set_download_dir(directory)
        return context

    async def set_download_dir(self, path: str | os.PathLike[str]) -> None:
        """Save downloads of the default context in ``path`` (created if missing)."""
        directory = Path(await anyio.Path(path).resolve())
        await anyio.Path(directory).mkdir(parents=True, exist_ok=True)
        await self.connection.root.send(
            "Browser.setDownloadBehavior", download_behavior(directory, None)
        )
        self._download_dir = directory if directory != self._temp_download_dir else None

    async def wait_for_download(
        self, *, tab: Tab | None = None, timeout: float | None = None
    ) -> Download:
        """Return the oldest download not yet returned (of ``tab``, if given), or wait.

        ``await (await browser.wait_for_download()).wait()`` gives the saved file.

        Raises:
            WaitTimeoutError: no download started within ``timeout``.
        """
        return await self._downloads.next(tab, self.timeout if timeout is None else timeout)

    @property
    def downloads(self) -> list[Download]:
        """Every download started in this browser, oldest first."""
        return list(self._downloads.all)

    async def cookies(self) -> list[dict[str, Any]]:
        """Every cookie of the default context (CDP ``Network.Cookie`` objects)."""
        result = await self.connection.root.send("Storage.getCookies")
        cookies: list[dict[str, Any]] = result.get("cookies", [])
        return cookies

    def _spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a background job of a tab in this browser's task group."""
        if self._task_group is None or self._closed:
            return
        self._task_group.start_soon(func)

    async def snapshot(self, **options: Any) -> Snapshot:
        """Snapshot the current tab; see :meth:`Tab.snapshot`."""
        return await self.current_tab.snapshot(**options)
