"""Browser: one CDP connection (launched or connected), its tabs and contexts.

Its surface: what the browser owns (tabs, contexts, downloads, the
connection) and, written out with :class:`~kobrowser.Tab`'s exact
signatures, the verbs an agent uses on the current tab
(:class:`~kobrowser._tab._verbs.TabVerbs`; see :class:`Browser`).

Every page target of the browser is attached automatically (browser-level
``Target.setAutoAttach``, flattened): tabs opened with
:meth:`Browser.new_tab`, popups from ``window.open`` and ``target=_blank``,
and tabs of isolated contexts alike. Each becomes a :class:`Tab` with its
own frame registry and lifecycle, network and dialog tracking (the
:class:`~._targets.TargetTracker` keeps them). A popup's requests that
started before its set-up finished are not counted for ``networkidle``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

import anyio
import anyio.abc

from kobrowser._browser._context import BrowserContext
from kobrowser._browser._downloads import Download, Downloads, download_behavior
from kobrowser._browser._emulation._settings import (
    Emulation,
    EmulationOptions,
    build_emulation,
    permission_names,
)
from kobrowser._browser._policy import Policy
from kobrowser._browser._proxy import Proxy, ProxySetting, context_proxy_params, to_proxy
from kobrowser._browser._recording import check_har_path, har_content, video_options
from kobrowser._browser._storage import load_state, parse_state
from kobrowser._browser._targets import TargetTracker
from kobrowser._concurrency import exit_unwrapped
from kobrowser._deadline import Deadline
from kobrowser._exceptions import InvalidArgumentError, KoBrowserError, TargetClosedError
from kobrowser._tab._axmirror import AXMirrorSettings, settings_from_env
from kobrowser._tab._capture._video import import_av
from kobrowser._tab._execute import execute
from kobrowser._tab._recording import Recorder, run_step
from kobrowser._tab._tab import Tab
from kobrowser._tab._trace import Trace, tracing
from kobrowser._validate import check, fail, seconds
from kobrowser._validate._resources import check_resource_types
from kobrowser.actions import Action, Done, Outcome, to_action
from kobrowser.actions._types import SwitchTab
from kobrowser.cdp import ChromeProcess, Connection, open_transport, resolve_endpoint

if TYPE_CHECKING:
    from types import TracebackType

    from kobrowser._tab._network._har import HarContent
    from kobrowser._tab._pagestate import LoadState, Response
    from kobrowser._tab._snapshot import Element, Snapshot
    from kobrowser._tab._stableids import IdMode
    from kobrowser._tab._waits import SelectorState, URLPattern
    from kobrowser.cdp import CDPSession
    from kobrowser.cdp._events import TargetInfo
    from kobrowser.snapshot import SnapshotDiff

__all__ = ["SNAPSHOT_LIMIT", "Browser"]

#: Default of :attr:`Browser.snapshot_limit`: bytes of AX data per snapshot.
SNAPSHOT_LIMIT = 50 * 1024 * 1024

_AUTO_ATTACH = {
    "autoAttach": True,
    # Paused until set-up resumes it (the first call of _set_up_tab, in one
    # batch after its context's emulation), so a popup's first request and
    # document are emulated too. Untracked targets are resumed by _release.
    # Chrome re-sends the lifecycle state when it is enabled, so a tab set up
    # after its document started still knows how far it got.
    "waitForDebuggerOnStart": True,
    "flatten": True,
    "filter": [{"type": "page", "exclude": False}],
}


class Browser:
    """A browser reached over one CDP connection; holds its tabs and contexts.

    Create with :func:`launch` or :func:`connect` and use as an async context
    manager. Cancellation of the enclosing scope closes everything.

    **Its surface.** Besides what the browser owns (tabs, contexts,
    downloads, the connection), Browser has the verbs an agent uses on the
    page in front of it, acting on the current tab, :attr:`tab`:
    ``await browser.click(5)`` is ``await browser.tab.click(5)``, the
    convenience a one-tab agent wants. They are written out here with
    :class:`Tab`'s exact signatures (see there for each;
    ``tests/browser/test_forwarding.py`` holds them identical):

    * snapshots and scripts: :meth:`snapshot`, :meth:`changes`, :meth:`find`, :meth:`evaluate`,
      :meth:`title`, :meth:`do` (which also runs ``tab N``);
    * actions by id: :meth:`click`, :meth:`dblclick`, :meth:`hover`,
      :meth:`drag`, :meth:`scroll_into_view`, :meth:`scroll`, :meth:`focus`,
      :meth:`fill`, :meth:`type`, :meth:`press`, :meth:`select`,
      :meth:`check`, :meth:`uncheck`, :meth:`upload`;
    * readers by id: :meth:`text`, :meth:`html`, :meth:`value`,
      :meth:`attr`, :meth:`is_visible`, :meth:`is_enabled`,
      :meth:`is_checked`, :meth:`box`;
    * navigation: :meth:`open`, :meth:`reload`, :meth:`back`,
      :meth:`forward`; waits: :meth:`wait_for_load`, :meth:`wait_for_url`,
      :meth:`wait_for_text`, :meth:`wait_for_selector`,
      :meth:`wait_for_function`, :meth:`wait`;
    * pictures: :meth:`screenshot`, :meth:`pdf`.

    Nothing else of a tab is forwarded. Families with state of their own
    belong to one tab and are objects on it: ``browser.tab.network``
    (routes, blocks, the request log), ``browser.tab.console`` and
    ``browser.tab.dialogs``; a forwarded handler or log would silently move
    with :meth:`switch_to`. Tab state (``url``, ``last_snapshot``,
    ``set_viewport``...) is read on ``browser.tab`` too. With no open tab
    the verbs raise :class:`KoBrowserError`.

    Attributes:
        timeout: the default deadline in seconds of every call and wait.
        snapshot_limit: the most bytes of accessibility data one snapshot
            reads (default 50 MiB; None: no limit). A page with more fails
            with :class:`SnapshotTooLargeError` instead of exhausting memory.
        ax_mirror: when tabs mirror their page's accessibility tree
            (:class:`AXMirrorSettings`; default from ``KOBROWSER_AX_MIRROR``).
    """

    def __init__(
        self,
        *,
        process: ChromeProcess | None = None,
        endpoint: str | None = None,
        timeout: float = 30.0,
        download_dir: str | os.PathLike[str] | None = None,
        proxy: Proxy | None = None,
        ids: IdMode = "depth-first",
    ) -> None:
        self._process = process
        self._ids: IdMode = ids
        self._proxy = proxy
        self._endpoint = endpoint
        self.timeout = timeout
        self.snapshot_limit: int | None = SNAPSHOT_LIMIT
        self._ax_mirror = settings_from_env()
        self._connection: Connection | None = None
        self._stack: AsyncExitStack | None = None
        self._task_group: anyio.abc.TaskGroup | None = None
        self._started = False
        self._closed = False
        self._targets: TargetTracker[Tab] = TargetTracker(
            make_tab=self._make_tab,
            set_up=self._set_up_tab,
            release=self._release,
            close_tab=_close_tab,
            spawn=self._spawn,
            keep_existing=process is None,
        )
        self._contexts: dict[str, BrowserContext] = {}
        self._default_context = BrowserContext(self, None, None)
        self._downloads = Downloads(self._tab_of_frame, self._download_dir_of, self._spawn)
        self._download_dir = Path(download_dir).resolve() if download_dir else None
        self._temp_download_dir: Path | None = None
        #: Recorders of every tab's actions (``tracing``, the live view); see ``_tab._recording``.
        self._recorders: tuple[Recorder, ...] = ()

    @property
    def ids(self) -> IdMode:
        """How snapshots number elements: ``"depth-first"`` or ``"stable"``.

        Set by :func:`launch` / :func:`connect` (``ids=``) for the browser's
        whole life; see docs/snapshot-format.md.
        """
        return self._ids

    @property
    def ax_mirror(self) -> AXMirrorSettings:
        """When tabs mirror their page's accessibility tree (see :class:`AXMirrorSettings`).

        Set it to change every tab's mirrors from their next snapshot on,
        e.g. ``browser.ax_mirror = AXMirrorSettings(enabled=False)``.

        Raises:
            InvalidArgumentError: (setting) not an :class:`AXMirrorSettings`.
        """
        return self._ax_mirror

    @ax_mirror.setter
    def ax_mirror(self, settings: AXMirrorSettings) -> None:
        if not isinstance(settings, AXMirrorSettings):
            raise InvalidArgumentError(
                f"ax_mirror: got {settings!r}; expected an AXMirrorSettings",
                argument="ax_mirror",
            )
        self._ax_mirror = settings

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
            targets = self._targets
            self._connection.on_close(targets.on_connection_closed)
            root.add_listener("Target.attachedToTarget", targets.on_attached)
            root.add_listener("Target.detachedFromTarget", targets.on_gone)
            root.add_listener("Target.targetDestroyed", targets.on_gone)
            root.add_listener("Target.targetCrashed", targets.on_gone)
            self._downloads.watch(root)
            directory = self._download_dir
            if directory is None:
                directory = Path(tempfile.mkdtemp(prefix=f"kobrowser-downloads-{os.getpid()}-"))
                self._temp_download_dir = directory
            await self.set_download_dir(directory)
            await root.send("Target.setDiscoverTargets", {"discover": True})
            with targets.attaching_existing():
                await root.send("Target.setAutoAttach", _AUTO_ATTACH)
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
            # Recordings first (videos finished, HAR files written), while Chrome is there.
            for context in [self._default_context, *self._contexts.values()]:
                with suppress(KoBrowserError):
                    await context._recording.finish("", self.timeout)
            connection = self._connection
            if connection is not None and not connection.closed:
                if self._process is not None:
                    self._closed = True
                    with anyio.move_on_after(3), suppress(KoBrowserError):
                        await connection.root.send("Browser.close", timeout=3)
                else:
                    for context in list(self._contexts.values()):
                        await context.close()
                    for tab in self._targets.all():
                        if self._targets.owned(tab.target_id):
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

    # -- hooks of the parts --------------------------------------------------

    def _spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a background job (of a tab, the tracker, downloads) in the task group."""
        if self._task_group is None or self._closed:
            return
        self._task_group.start_soon(func)

    def _make_tab(self, session_id: str, info: TargetInfo) -> Tab:
        context = self._context_of(info.browserContextId)
        session = self.connection.session(session_id)
        return Tab(self, context, session, info.targetId, opener_id=info.openerId)

    async def _set_up_tab(self, tab: Tab) -> None:
        # Routes first (Fetch, answered by the browser while the page waits), so
        # a popup's first request is routed too.
        await tab._net.prepare_page()
        # Emulation, then resume the paused target, in one batch: nothing of the
        # page runs before it is emulated. The resume is needed even when Chrome
        # reports no wait: an auto-attached popup that shares its opener's
        # renderer blocks the opener until then.
        context = self._context_of(tab.context.id if tab.context is not None else None)
        await context._emulation.set_up_tab(tab, resume=True)
        await tab._init()
        context._recording.tab_started(tab)

    def _context_of(self, context_id: str | None) -> BrowserContext:
        """The context of a target whose ``browserContextId`` is ``context_id``.

        Targets of contexts this browser did not open (connected to a running
        Chrome) count as the default context's.
        """
        context = self._contexts.get(context_id) if context_id is not None else None
        return context if context is not None else self._default_context

    def _release(self, session_id: str) -> None:
        """Let a target the browser does not track run on, detached."""
        session = self.connection.session(session_id)

        async def release() -> None:
            with contextlib.suppress(KoBrowserError):
                await session.send("Runtime.runIfWaitingForDebugger", timeout=5)
                await self.connection.root.send(
                    "Target.detachFromTarget", {"sessionId": session.id}, timeout=5
                )

        self._spawn(release)

    def _forget(self, tab: Tab) -> None:
        """A tab was closed (by itself or its context): stop tracking it."""
        self._targets.forget(tab)

    def _tab_of_target(self, target_id: str) -> Tab | None:
        """The tab of a page target (also while it is being set up), if tracked."""
        return self._targets.get(target_id)

    @property
    def _headless(self) -> bool | None:
        """Whether Chrome runs without a window (None: connected, not known)."""
        return self._process.headless if self._process is not None else None

    def _tab_of_frame(self, frame_id: str) -> Tab | None:
        tab = self._targets.get(frame_id)
        if tab is not None:
            return tab
        for tab in self._targets.all():
            if any(frame.frame_id == frame_id for frame in tab._frames.frames()):
                return tab
        return None

    def _download_dir_of(self, tab: Tab | None) -> Path:
        view = tab.context if tab is not None else None
        context = self._default_context
        if view is not None and view.id in self._contexts:
            context = self._contexts[view.id]
        if context.download_dir is not None:  # its own, or its policy's
            return context.download_dir
        directory = self._download_dir or self._temp_download_dir
        assert directory is not None
        return directory

    # -- state -------------------------------------------------------------

    @property
    def connection(self) -> Connection:
        """The CDP connection (raise if the browser is not started)."""
        if self._connection is None:
            raise KoBrowserError("the browser is not started: use `async with`")
        return self._connection

    @property
    def cdp(self) -> CDPSession:
        """The browser-level CDP session."""
        return self.connection.root

    @property
    def pid(self) -> int | None:
        """The Chrome process id when launched by kobrowser, else None."""
        return self._process.pid if self._process is not None else None

    @property
    def tabs(self) -> list[Tab]:
        """Open tabs of every context (popups included), oldest first."""
        return self._targets.ready()

    @property
    def contexts(self) -> list[BrowserContext]:
        """The isolated contexts opened with :meth:`new_context` and not closed."""
        return list(self._contexts.values())

    @property
    def tab(self) -> Tab:
        """The current tab: the one the verbs act on (the newest, or the one switched to).

        Raises:
            KoBrowserError: no tab is open.
        """
        tab = self._targets.current
        if tab is None:
            raise KoBrowserError("no open tab: call `await browser.new_tab(url)` first")
        return tab

    @property
    def current_tab(self) -> Tab:
        """The current tab; the same as :attr:`tab` (kept as an alias).

        Raises:
            KoBrowserError: no tab is open.
        """
        return self.tab

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
        self,
        url: str,
        context_id: str | None,
        wait_until: LoadState,
        timeout: float | None,
        *,
        current: bool = True,
    ) -> Tab:
        """Open a tab (in a context); ``current=False`` leaves the current tab as it is."""
        check(url=url, wait_until=wait_until, timeout=timeout)
        deadline = Deadline.of(timeout, self.timeout)  # one, for every step
        params: dict[str, Any] = {"url": "about:blank"}
        if context_id is not None:
            params["browserContextId"] = context_id
        created = await self.connection.root.send(
            "Target.createTarget", params, timeout=deadline.remaining()
        )
        target_id: str = created["targetId"]
        targets = self._targets
        targets.expect(target_id)
        try:
            tab = await targets.wait_ready(target_id, deadline.remaining())
            if url != "about:blank":
                await tab.open(url, wait_until=wait_until, timeout=deadline.remaining())
        except BaseException:
            with anyio.CancelScope(shield=True), anyio.move_on_after(3):
                half_open = targets.get(target_id)
                if half_open is not None:
                    await half_open.close()
                else:
                    with suppress(KoBrowserError):
                        await self.connection.root.send(
                            "Target.closeTarget", {"targetId": target_id}
                        )
            raise
        finally:
            targets.expected(target_id)
        if current:
            targets.current = tab
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
        return await self._targets.next_opened(
            self.timeout if timeout is None else seconds(timeout)
        )

    async def switch_to(self, tab: Tab) -> None:
        """Make ``tab`` the current tab and bring it to the front.

        Raises:
            TargetClosedError: the tab is closed.
        """
        if not isinstance(tab, Tab):
            raise fail("tab", tab, "a Tab of this browser")
        if tab.closed:
            raise TargetClosedError(f"{tab!r} is closed")
        await tab.cdp.send("Page.bringToFront")
        self._targets.current = tab

    # -- contexts and downloads ------------------------------------------------

    @property
    def default_context(self) -> BrowserContext:
        """The browser's own context: the tabs of :meth:`new_tab` and their popups."""
        return self._default_context

    async def new_context(
        self,
        *,
        download_dir: str | os.PathLike[str] | None = None,
        storage_state: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        permissions: Sequence[str] | None = None,
        proxy: ProxySetting | None = None,
        block_resources: str | Iterable[str] | None = None,
        policy: Policy | None = None,
        record_har: str | os.PathLike[str] | bool | None = None,
        record_har_content: HarContent = "omit",
        record_video: str | os.PathLike[str] | None = None,
        record_video_size: tuple[int, int] | None = None,
        **emulation: Unpack[EmulationOptions],
    ) -> BrowserContext:
        """Create an isolated browser context: its own cookies, storage and cache.

        Use ``await ctx.new_tab(url)`` to open tabs in it; ``await ctx.close()``
        (or ``async with``) closes them all.

        Args:
            download_dir: where its downloads go (default: the browser's).
            storage_state: cookies and localStorage to start with: a path to
                a JSON file saved by :meth:`BrowserContext.storage_state` (or
                Playwright), or the dict itself.
            permissions: permissions to grant every origin, as for
                :meth:`BrowserContext.grant_permissions`.
            proxy: the proxy of this context's traffic (one per context;
                default: the browser's, given to :func:`~kobrowser.launch`):
                a URL (``"http://user:pass@host:3128"``, ``"socks5://host:1080"``),
                a :class:`~kobrowser.Proxy` or a dict with its keys. The
                credentials are answered on the proxy's challenge; while a
                context has credentials, Chrome pauses each of its requests
                once to hand the challenge over (see the guide's page on
                proxies).
            block_resources: resource types its tabs never load, e.g.
                ``("image", "font", "media")`` (or ``"image,font"``): the
                requests fail at once, before reaching the network. The names
                are :meth:`kobrowser.Network.block`'s; this is
                ``await context.block(types=...)`` made at creation, so
                :meth:`BrowserContext.unblock` lifts it.
            policy: a :class:`~kobrowser.Policy` its tabs obey from their
                start, as :meth:`BrowserContext.set_policy`.
            record_har: record every request of its tabs and their frames
                for HAR 1.2 (:meth:`BrowserContext.start_har`): a file path,
                written when the context closes, or True to record only
                (write with :meth:`BrowserContext.save_har` at any time).
            record_har_content: ``"omit"`` (no bodies, the default) or
                ``"embed"`` (each response body in the HAR).
            record_video: a directory (made if missing) where each of its
                tabs is recorded into a WebM video (VP8, 25 frames a second,
                see :meth:`Tab.start_video`), named after the tab; each file
                is complete once its tab or the context is closed. Needs
                PyAV: ``pip install 'ko-browser[video]'``.
            record_video_size: ``(width, height)`` of the videos in pixels
                (default: the viewport, scaled down to fit 800 x 800).
            **emulation: what its tabs emulate from their start: the options
                of :class:`~kobrowser.EmulationOptions` (``device="iPhone 15"``,
                ``locale``, ``timezone_id``, ``viewport``...), as for
                :meth:`BrowserContext.emulate`.

        Raises:
            InvalidArgumentError: ``storage_state`` is unreadable or
                malformed, an unknown option, device, permission or resource
                type, a bad proxy or value, a HAR path in a directory that
                does not exist or cannot be written, a video directory that
                cannot be made or written (all checked before the context
                is created).
            CaptureError: ``record_video`` without PyAV installed.

        Cancelling the caller disposes the half-made context.
        """
        check(download_dir=download_dir)
        har_path = None
        if record_har is not None and record_har is not False and record_har is not True:
            har_path = check_har_path(record_har, "record_har")
        content = har_content(record_har_content)
        video = video_options(record_video, record_video_size, 25, "webm")
        if video is not None:
            import_av()
        state = await parse_state(storage_state) if storage_state is not None else None
        settings = build_emulation(Emulation(), **emulation)  # checked before anything is made
        if permissions is not None:
            permission_names(permissions)
        own_proxy = to_proxy(proxy)
        blocked = (
            None
            if block_resources is None
            else check_resource_types(block_resources, "block_resources")
        )
        result = await self.connection.root.send(
            "Target.createBrowserContext",
            {"disposeOnDetach": True, **context_proxy_params(own_proxy)},
        )
        context = BrowserContext(self, result["browserContextId"], None, own_proxy)
        self._contexts[result["browserContextId"]] = context
        if record_har is not None and record_har is not False:
            context._recording.har_path = har_path
            context.start_har(content=content)
        if video is not None:
            context._recording.start_video(video)
        try:
            directory = download_dir or self._download_dir or self._temp_download_dir
            if directory is not None:
                await context.set_download_dir(directory)
            if not settings.empty:
                await context._emulation.replace(settings)
            if permissions:
                await context.grant_permissions(permissions)
            if blocked:
                await context.block(types=sorted(blocked))
            if policy is not None:
                await context.set_policy(policy)
            if state is not None:
                for origin in state.origins:
                    context._origins[origin] = None
                await load_state(context, state, self.timeout)
        except BaseException:
            await context.close()
            raise
        return context

    async def set_download_dir(self, path: str | os.PathLike[str]) -> None:
        """Save downloads of the default context in ``path`` (created if missing)."""
        check(path=path)
        directory = Path(await anyio.Path(path).resolve())
        await anyio.Path(directory).mkdir(parents=True, exist_ok=True)
        await self.connection.root.send(
            "Browser.setDownloadBehavior", download_behavior(directory, None)
        )
        self._download_dir = directory if directory != self._temp_download_dir else None
        self._default_context.download_dir = None  # the latest call wins

    async def wait_for_download(
        self, *, tab: Tab | None = None, timeout: float | None = None
    ) -> Download:
        """Return the oldest download not yet returned (of ``tab``, if given), or wait.

        ``await (await browser.wait_for_download()).wait()`` gives the saved file.

        Raises:
            WaitTimeoutError: no download started within ``timeout``.
        """
        if tab is not None and not isinstance(tab, Tab):
            raise fail("tab", tab, "a Tab of this browser, or None")
        deadline = self.timeout if timeout is None else seconds(timeout)
        return await self._downloads.next(tab, deadline)

    @property
    def downloads(self) -> list[Download]:
        """Every download started in this browser, oldest first."""
        return list(self._downloads.all)

    async def cookies(self, urls: str | Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Cookies of the default context; see :meth:`BrowserContext.cookies`."""
        return await self._default_context.cookies(urls)

    async def do(self, action: Action | str, *, timeout: float | None = None) -> Outcome:
        """Run one action of the grammar (``click 5``, ``tab 2``) on the current tab.

        As :meth:`Tab.do`, and ``tab N`` makes the N-th tab of :attr:`tabs`
        (from 1) the current tab. Each action acts on the tab that is
        current when it starts.

        Args:
            action: an :class:`~kobrowser.Action`, or one action line (or
                JSON object) as a str.
            timeout: deadline in seconds of the method the action runs
                (default: the browser's).

        Returns:
            The :class:`~kobrowser.Outcome`; the action's own errors
            (including no open tab) are in it, not raised.

        Raises:
            ActionSyntaxError: ``action`` is a str that is not exactly one action.
            InvalidArgumentError: ``action`` is neither an Action nor a str,
                or ``timeout`` is not a number of seconds >= 0.

        Cancelling the caller cancels the action's method; input already
        sent is not undone.
        """
        check(timeout=timeout)
        act = to_action(action)

        async def run() -> Outcome:
            return await execute(
                lambda: self.tab, act, timeout=timeout, switch_tab=self._switch_to_number
            )

        # `tab N` and `done` run no tab method: the browser records them.
        current = self._targets.current
        if isinstance(act, (SwitchTab, Done)) and current is not None:
            recorders = self._recorders + current._recorders
            if recorders:
                return await run_step(
                    recorders, current, "do", (act,), {}, run, retarget=lambda: self.tab
                )
        return await run()

    def _attach_recorder(self, recorder: Recorder) -> None:
        """Let ``recorder`` see every action on every tab (see ``_tab._recording``)."""
        self._recorders = (*self._recorders, recorder)

    def _detach_recorder(self, recorder: Recorder) -> None:
        """Stop ``recorder`` (a no-op when not attached)."""
        self._recorders = tuple(r for r in self._recorders if r is not recorder)

    def tracing(
        self, path: str | os.PathLike[str] | None = None, *, title: str = "kobrowser trace"
    ) -> contextlib.AbstractAsyncContextManager[Trace]:
        """Record every action on every tab in the block; write an HTML trace at its end.

        As :meth:`Tab.tracing`, for all the browser's tabs (those opened
        meanwhile too): ``async with browser.tracing("run.html"):``. Actions
        made through the library, the CLI daemon, MCP and the agent loop are
        all recorded, the agent's model reply with the step it asked for.

        Args:
            path: where to write the HTML file (None: only keep the
                :class:`~kobrowser.Trace`).
            title: the page's heading.

        Raises:
            InvalidArgumentError: ``path`` is not a path.
            KoBrowserError: (at the end) the file could not be written.

        Cancelling the block still writes the file (shielded).
        """
        return tracing(self._attach_recorder, self._detach_recorder, path, title)

    async def _switch_to_number(self, number: int) -> str:
        """``tab N`` of the action grammar: make the Nth tab (1-based) current."""
        tabs = self.tabs
        if not 1 <= number <= len(tabs):
            raise KoBrowserError(f"no tab {number}: there are {len(tabs)} tab(s)")
        await self.switch_to(tabs[number - 1])
        return f"switched to tab {number}"

    # -- the verbs, on the current tab (Tab's signatures; see Tab for each) -----

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
    ) -> Snapshot:
        """Snapshot the current tab; see :meth:`Tab.snapshot`."""
        return await self.tab.snapshot(
            interactive=interactive,
            compact=compact,
            depth=depth,
            selector=selector,
            clickable=clickable,
            text_limit=text_limit,
            timeout=timeout,
            fresh=fresh,
        )

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
    ) -> SnapshotDiff:
        """What changed on the current tab since its latest snapshot; see :meth:`Tab.changes`."""
        return await self.tab.changes(
            interactive=interactive,
            compact=compact,
            depth=depth,
            selector=selector,
            clickable=clickable,
            text_limit=text_limit,
            timeout=timeout,
            fresh=fresh,
        )

    async def find(
        self,
        *,
        role: str | None = None,
        name: str | None = None,
        text: str | None = None,
        exact: bool = False,
        timeout: float | None = None,
    ) -> list[Element]:
        """Find elements in a fresh snapshot of the current tab; see :meth:`Tab.find`."""
        return await self.tab.find(role=role, name=name, text=text, exact=exact, timeout=timeout)

    async def evaluate(self, expression: str, *, timeout: float | None = None) -> Any:
        """Evaluate JavaScript in the current tab; see :meth:`Tab.evaluate`."""
        return await self.tab.evaluate(expression, timeout=timeout)

    async def title(self) -> str:
        """The current tab's document title; see :meth:`Tab.title`."""
        return await self.tab.title()

    async def open(
        self,
        url: str,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
        referrer: str | None = None,
    ) -> Response | None:
        """Navigate the current tab; see :meth:`Tab.open`."""
        return await self.tab.open(url, wait_until=wait_until, timeout=timeout, referrer=referrer)

    async def reload(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Reload the current tab; see :meth:`Tab.reload`."""
        return await self.tab.reload(wait_until=wait_until, timeout=timeout)

    async def back(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Go back in the current tab's history; see :meth:`Tab.back`."""
        return await self.tab.back(wait_until=wait_until, timeout=timeout)

    async def forward(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Go forward in the current tab's history; see :meth:`Tab.forward`."""
        return await self.tab.forward(wait_until=wait_until, timeout=timeout)

    async def wait_for_load(
        self, state: LoadState = "load", *, timeout: float | None = None
    ) -> None:
        """Wait for a load state of the current tab; see :meth:`Tab.wait_for_load`."""
        await self.tab.wait_for_load(state, timeout=timeout)

    async def wait_for_url(
        self,
        url: URLPattern,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> None:
        """Wait for the current tab's URL; see :meth:`Tab.wait_for_url`."""
        await self.tab.wait_for_url(url, wait_until=wait_until, timeout=timeout)

    async def wait_for_text(self, text: str, *, timeout: float | None = None) -> None:
        """Wait for text in the current tab; see :meth:`Tab.wait_for_text`."""
        await self.tab.wait_for_text(text, timeout=timeout)

    async def wait_for_selector(
        self, selector: str, *, state: SelectorState = "visible", timeout: float | None = None
    ) -> None:
        """Wait for a CSS selector in the current tab; see :meth:`Tab.wait_for_selector`."""
        await self.tab.wait_for_selector(selector, state=state, timeout=timeout)

    async def wait_for_function(self, expression: str, *, timeout: float | None = None) -> Any:
        """Wait for a truthy expression in the current tab; see :meth:`Tab.wait_for_function`."""
        return await self.tab.wait_for_function(expression, timeout=timeout)

    async def wait(self, ms: float) -> None:
        """Sleep ``ms`` milliseconds; see :meth:`Tab.wait`."""
        await self.tab.wait(ms)

    async def click(
        self,
        element_id: int,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: Sequence[str] = (),
        timeout: float | None = None,
    ) -> None:
        """Click an element of the current tab; see :meth:`Tab.click`."""
        await self.tab.click(
            element_id,
            button=button,
            click_count=click_count,
            modifiers=modifiers,
            timeout=timeout,
        )

    async def dblclick(self, element_id: int, *, timeout: float | None = None) -> None:
        """Double-click an element of the current tab; see :meth:`Tab.dblclick`."""
        await self.tab.dblclick(element_id, timeout=timeout)

    async def hover(self, element_id: int, *, timeout: float | None = None) -> None:
        """Hover an element of the current tab; see :meth:`Tab.hover`."""
        await self.tab.hover(element_id, timeout=timeout)

    async def drag(
        self, source_id: int, target_id: int, *, steps: int = 8, timeout: float | None = None
    ) -> None:
        """Drag one element onto another in the current tab; see :meth:`Tab.drag`."""
        await self.tab.drag(source_id, target_id, steps=steps, timeout=timeout)

    async def scroll_into_view(self, element_id: int, *, timeout: float | None = None) -> None:
        """Scroll an element of the current tab into view; see :meth:`Tab.scroll_into_view`."""
        await self.tab.scroll_into_view(element_id, timeout=timeout)

    async def scroll(
        self, direction: str = "down", amount: float = 600, *, timeout: float | None = None
    ) -> None:
        """Scroll the current tab; see :meth:`Tab.scroll`."""
        await self.tab.scroll(direction, amount, timeout=timeout)

    async def focus(self, element_id: int, *, timeout: float | None = None) -> None:
        """Focus an element of the current tab; see :meth:`Tab.focus`."""
        await self.tab.focus(element_id, timeout=timeout)

    async def fill(self, element_id: int, value: str, *, timeout: float | None = None) -> None:
        """Fill a field of the current tab; see :meth:`Tab.fill`."""
        await self.tab.fill(element_id, value, timeout=timeout)

    async def type(
        self, element_id: int, text: str, *, delay: float = 0, timeout: float | None = None
    ) -> None:
        """Type into an element of the current tab; see :meth:`Tab.type`."""
        await self.tab.type(element_id, text, delay=delay, timeout=timeout)

    async def press(self, key: str, *, timeout: float | None = None) -> None:
        """Press a key in the current tab; see :meth:`Tab.press`."""
        await self.tab.press(key, timeout=timeout)

    async def select(self, element_id: int, *values: str, timeout: float | None = None) -> None:
        """Select options of a list box of the current tab; see :meth:`Tab.select`."""
        await self.tab.select(element_id, *values, timeout=timeout)

    async def check(self, element_id: int, *, timeout: float | None = None) -> None:
        """Check a checkbox of the current tab; see :meth:`Tab.check`."""
        await self.tab.check(element_id, timeout=timeout)

    async def uncheck(self, element_id: int, *, timeout: float | None = None) -> None:
        """Uncheck a checkbox of the current tab; see :meth:`Tab.uncheck`."""
        await self.tab.uncheck(element_id, timeout=timeout)

    async def upload(
        self, element_id: int, *files: str | os.PathLike[str], timeout: float | None = None
    ) -> None:
        """Set the files of a file input of the current tab; see :meth:`Tab.upload`."""
        await self.tab.upload(element_id, *files, timeout=timeout)

    async def text(self, element_id: int, *, timeout: float | None = None) -> str:
        """Text of an element of the current tab; see :meth:`Tab.text`."""
        return await self.tab.text(element_id, timeout=timeout)

    async def html(self, element_id: int, *, timeout: float | None = None) -> str:
        """Outer HTML of an element of the current tab; see :meth:`Tab.html`."""
        return await self.tab.html(element_id, timeout=timeout)

    async def value(self, element_id: int, *, timeout: float | None = None) -> str | None:
        """Value of a field of the current tab; see :meth:`Tab.value`."""
        return await self.tab.value(element_id, timeout=timeout)

    async def attr(self, element_id: int, name: str, *, timeout: float | None = None) -> str | None:
        """An attribute of an element of the current tab; see :meth:`Tab.attr`."""
        return await self.tab.attr(element_id, name, timeout=timeout)

    async def is_visible(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether an element of the current tab is visible; see :meth:`Tab.is_visible`."""
        return await self.tab.is_visible(element_id, timeout=timeout)

    async def is_enabled(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether an element of the current tab is enabled; see :meth:`Tab.is_enabled`."""
        return await self.tab.is_enabled(element_id, timeout=timeout)

    async def is_checked(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether an element of the current tab is checked; see :meth:`Tab.is_checked`."""
        return await self.tab.is_checked(element_id, timeout=timeout)

    async def box(self, element_id: int, *, timeout: float | None = None) -> dict[str, float]:
        """The box of an element of the current tab; see :meth:`Tab.box`."""
        return await self.tab.box(element_id, timeout=timeout)

    # -- seeing the page ------------------------------------------------------

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
    ) -> bytes:
        """A screenshot of the current tab; see :meth:`Tab.screenshot`."""
        return await self.tab.screenshot(
            path,
            full_page=full_page,
            id=id,
            annotate=annotate,
            format=format,
            quality=quality,
            timeout=timeout,
        )

    async def pdf(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        landscape: bool = False,
        print_background: bool = True,
        scale: float = 1.0,
        paper: str = "A4",
        timeout: float | None = None,
    ) -> bytes:
        """The current tab printed to PDF; see :meth:`Tab.pdf`."""
        return await self.tab.pdf(
            path,
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper=paper,
            timeout=timeout,
        )


def _close_tab(tab: Tab, reason: str) -> None:
    tab._closed = True
    tab._page.close(reason)
    tab._net.close(reason)
