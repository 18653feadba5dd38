"""Browser: one CDP connection (launched or connected) and its tabs."""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine, Sequence
from contextlib import AsyncExitStack, suppress
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from ._exceptions import KoBrowserError
from ._tab import Tab
from .cdp import ChromeProcess, Connection, find_chrome, open_transport, resolve_endpoint

if TYPE_CHECKING:
    from types import TracebackType

    from ._snapshot import Snapshot
    from ._tab_core import TabCore

__all__ = ["Browser", "connect", "launch"]


def launch(
    *,
    headless: bool = True,
    executable_path: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    timeout: float = 30.0,
    no_sandbox: bool | None = None,
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
            deadline of every CDP call.
        no_sandbox: pass ``--no-sandbox``; default: only when running as root.

    On exit (also when the block raises or is cancelled) Chrome is closed
    gracefully, then terminated, then killed, and its profile is removed.

    Raises:
        LaunchError: no browser found, or it failed to start.
    """
    executable = find_chrome(executable_path)
    process = ChromeProcess(executable, headless=headless, args=args, no_sandbox=no_sandbox)
    return Browser(process=process, timeout=timeout)


def connect(endpoint: str, *, timeout: float = 30.0) -> Browser:
    """Attach to a running Chrome over CDP.

    Args:
        endpoint: ``ws://host:port/devtools/browser/<id>``, ``http://host:port``
            or ``host:port``.
        timeout: connect deadline and default deadline of every CDP call.

    Leaving the ``async with`` block closes the tabs this Browser opened and
    the connection, never the remote browser itself.
    """
    return Browser(endpoint=endpoint, timeout=timeout)


class Browser:
    """A browser reached over one CDP connection; holds its tabs.

    Create with :func:`launch` or :func:`connect` and use as an async context
    manager. Cancellation of the enclosing scope closes everything.
    """

    def __init__(
        self,
        *,
        process: ChromeProcess | None = None,
        endpoint: str | None = None,
        timeout: float = 30.0,
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
                ws_url = await self._process.start(timeout=self.timeout)
                task_group.start_soon(self._process.drain_stderr)
            else:
                assert self._endpoint is not None
                ws_url = await resolve_endpoint(self._endpoint, timeout=self.timeout)
            transport = await open_transport(ws_url, timeout=self.timeout)
            self._connection = Connection(transport, timeout=self.timeout)
            await stack.enter_async_context(self._connection)
            await self._connection.root.send("Target.setDiscoverTargets", {"discover": True})
        except BaseException as exc:
            self._closed = True
            if not await stack.__aexit__(type(exc), exc, exc.__traceback__):
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
        return await self._stack.__aexit__(exc_type, exc, tb)

    async def aclose(self) -> None:
        """Close tabs opened here, the connection, and a launched Chrome. Idempotent.

        Shielded from cancellation, so a cancelled caller still releases everything.
        """
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            connection = self._connection
            if connection is not None and not connection.closed:
                if self._process is not None:
                    with anyio.move_on_after(3):
                        with suppress(KoBrowserError):
                            await connection.root.send("Browser.close", timeout=3)
                else:
                    for tab in list(self._tabs.values()):
                        with anyio.move_on_after(3):
                            await tab.close()
            if connection is not None:
                await connection.aclose()
            if self._process is not None:
                await self._process.aclose()

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
        """Open tabs known to this browser, oldest first."""
        return [tab for tab in self._tabs.values() if not tab.closed]

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

    async def new_tab(self, url: str = "about:blank", *, timeout: float | None = None) -> Tab:
        """Open a new tab, wait for ``url`` to load, and make it the current tab.

        Raises:
            NavigationError: the URL could not be loaded.
            CDPTimeoutError: Chrome did not answer in time.
        """
        root = self.connection.root
        created = await root.send("Target.createTarget", {"url": "about:blank"})
        target_id: str = created["targetId"]
        attached = await root.send(
            "Target.attachToTarget", {"targetId": target_id, "flatten": True}
        )
        session = self.connection.session(attached["sessionId"])
        tab = Tab(self, session, target_id)
        self._tabs[target_id] = tab
        try:
            await tab._init()
            if url != "about:blank":
                await tab.open(url, timeout=timeout)
        except BaseException:
            with anyio.CancelScope(shield=True), anyio.move_on_after(3):
                await tab.close()
            raise
        self._current = tab
        return tab

    def _spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a background job of a tab in this browser's task group."""
        if self._task_group is None or self._closed:
            return
        self._task_group.start_soon(func)

    def _forget(self, tab: TabCore) -> None:
        self._tabs.pop(tab.target_id, None)
        if self._current is tab:
            self._current = None

    async def snapshot(self, **options: Any) -> Snapshot:
        """Snapshot the current tab; see :meth:`Tab.snapshot`."""
        return await self.current_tab.snapshot(**options)
