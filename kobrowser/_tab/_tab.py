"""Tab: one browser tab, its whole public API written out.

Each method is a thin call into the helper that does the work; the helpers
are owned by the tab and never reach into each other:

* :class:`~._pagestate.PageState`: URL, load states, network, from events;
* :class:`~._frames.FrameRegistry`: the out-of-process frames' sessions;
* :class:`~kobrowser._tab._network.TabNetwork`: routes, the request log, console
  messages and page errors over the page and its frames' sessions;
* :class:`~._snapshotter.Snapshotter`: snapshots, the latest one and the
  fetch caches;
* :class:`~._waits.Waiter` and :class:`~._navigation.Navigator`: waits and
  navigation over the page state;
* :class:`~._acting.ActionContext` (page session, :class:`~._input.Mouse`,
  snapshots): what the action functions of ``_pointer``, ``_forms`` and
  ``_readers`` take;
* ``_startup``: the one batch that enables the tab's domains.

The tab's methods are the verbs an agent uses on a page
(:class:`~._verbs.TabVerbs`) and the tab's own state. Families with state of
their own are objects on the tab, each with its whole API:
:attr:`Tab.network` (:class:`~kobrowser.Network`), :attr:`Tab.console`
(:class:`~kobrowser.Console`) and :attr:`Tab.dialogs`
(:class:`~kobrowser.Dialogs`).

**What is above the tab.** This layer never imports the browser layer, not
even for types. The browser makes each tab and hands it its owner and its
context, typed by the protocols of ``_owner``: :class:`~._owner.TabOwner`
and :class:`~._owner.TabContext` (what the tab calls: the task group, the
live settings, the context's routes and emulation), which extend
:class:`~._owner.BrowserView` and :class:`~._owner.ContextView`, what users
reach through :attr:`Tab.browser` and :attr:`Tab.context` (the agent's verbs,
tabs, contexts, cookies, routes). At run time these are the real
:class:`~kobrowser.Browser` and :class:`~kobrowser.BrowserContext`; mypy
checks that they satisfy the protocols where the browser makes a tab.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from kobrowser import _validate
from kobrowser._deadline import Deadline
from kobrowser._exceptions import (
    InvalidArgumentError,
    NavigationError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser._tab import _forms, _pointer, _readers
from kobrowser._tab._acting import ActionContext
from kobrowser._tab._axmirror import TabMirror
from kobrowser._tab._capture import _screenshot as _capture
from kobrowser._tab._capture._screencast import Screencast, ScreencastHub
from kobrowser._tab._capture._video import (
    VideoOptions,
    VideoRecording,
    check_video_path,
    video_fps,
    video_size,
)
from kobrowser._tab._dialogs import Dialogs
from kobrowser._tab._execute import execute
from kobrowser._tab._frames import FrameRegistry
from kobrowser._tab._input import Mouse
from kobrowser._tab._navigation import Navigator
from kobrowser._tab._network._console import Console
from kobrowser._tab._network._network import Network
from kobrowser._tab._network._routing import TabNetwork
from kobrowser._tab._origins import track_origins
from kobrowser._tab._pagestate import LoadState, PageState, Response
from kobrowser._tab._recording import Recorder, recorded, unrecorded
from kobrowser._tab._runtime import runtime_value
from kobrowser._tab._snapshotter import Snapshotter
from kobrowser._tab._startup import start_tab
from kobrowser._tab._trace import Trace, tracing
from kobrowser._tab._waits import SelectorState, URLPattern, Waiter
from kobrowser.actions import Action, Outcome, to_action
from kobrowser.snapshot import diff_snapshots
from kobrowser.snapshot._find import find_nodes

if TYPE_CHECKING:
    from kobrowser._tab._network._har import HarLog
    from kobrowser._tab._owner import BrowserView, ContextView, TabContext, TabOwner
    from kobrowser._tab._snapshot import Element, Snapshot
    from kobrowser.cdp import CDPSession
    from kobrowser.snapshot import SnapshotDiff

__all__ = ["Tab"]


class Tab:
    """One browser tab (a page target) with its own CDP session and state.

    Each tab has its own snapshot, id map, frame registry and event streams;
    tabs never share state, so ``asyncio.gather`` over many tabs is safe.
    Tabs are made by the browser (:meth:`Browser.new_tab
    <kobrowser.Browser.new_tab>`, popups), never by hand.

    Attributes:
        cdp: the tab's raw :class:`~kobrowser.cdp.CDPSession` (send + subscribe).
        target_id: Chrome's id of the page target.
    """

    def __init__(
        self,
        owner: TabOwner[Tab],
        context: TabContext[Tab],
        session: CDPSession,
        target_id: str,
        *,
        opener_id: str | None = None,
    ) -> None:
        self._owner = owner
        self._context = context
        self.cdp = session
        self.target_id = target_id
        self._opener_id = opener_id
        self._closed = False
        # Every listener is attached here, before any call is sent.
        self._page = PageState(target_id, self._on_frame_attached)
        self._page.watch_page(session)
        track_origins(session, context.note_origin)
        self._frames = FrameRegistry(session, owner._spawn)
        self._frames.watch()
        self._net = TabNetwork(
            session,
            owner._spawn,
            lambda: owner.timeout,
            lambda: context._routes,
            lambda: context._proxy_credentials,
        )
        if context._har is not None:  # the context records HAR: from the tab's start
            self._record_har(context._har)
        opener = self.opener
        if opener is not None:  # a popup starts with its opener's routes
            self._net.routes.add(opener._net.routes.entries)
        self._frames.add_setup(self._net.frame_setup)
        self._frames.add_setup(lambda session: list(context._frame_emulation()))
        self._network = Network(self._net, lambda: owner.timeout)
        self._console = Console(self._net.console)
        self._dialogs = Dialogs(session, owner._spawn, lambda: owner.timeout)
        self._snapshotter = Snapshotter(
            session,
            self._frames,
            TabMirror(session, lambda: owner.ax_mirror, owner._spawn),
            stable=owner.ids == "stable",
        )
        self._waits = Waiter(session, self._page)
        self._navigator = Navigator(session, self._page, self._waits, self._net.auth.refused)
        self._mouse = Mouse(session)
        self._act = ActionContext(session, self._mouse, self._snapshotter)
        #: Recorders of this tab's actions (``tab.tracing``); the browser's are added.
        self._recorders: tuple[Recorder, ...] = ()
        self._screencast = ScreencastHub(self)

    def _record_har(self, log: HarLog) -> None:
        """Record this tab's requests into the context's HAR log from now on."""
        if self._net.har is None:
            self._net.record(log.tab(self.target_id, self._owner._spawn, lambda: self.timeout))

    async def _init(self) -> None:
        """Enable the tab's domains and seed its page state (see ``_startup``)."""
        await start_tab(self.cdp, self._page, self._frames, self.timeout)

    def _on_frame_attached(self, session: CDPSession) -> None:
        # Network and the context's emulation are enabled by the frame's
        # set-up, before the frame runs (see FrameRegistry.add_setup above).
        track_origins(session, self._context.note_origin)

    def _limit(self, timeout: float | None) -> float:
        """Seconds for each CDP call (``timeout``, or the browser's)."""
        return self.timeout if timeout is None else _validate.seconds(timeout)

    def _deadline(self, timeout: float | None) -> Deadline:
        """The one deadline of a public call (``timeout``, or the browser's)."""
        return Deadline.of(timeout, self.timeout)

    # -- identity and state ----------------------------------------------

    def __repr__(self) -> str:
        return f"<Tab {self.target_id}{' closed' if self.closed else ''}>"

    @property
    def browser(self) -> BrowserView[Tab]:
        """The browser this tab belongs to (a :class:`~kobrowser.Browser`).

        Typed with what a tab's user reaches through it: the verbs (acting
        on the browser's current tab), its tabs and contexts (see ``_owner``).
        """
        return self._owner

    @property
    def context(self) -> ContextView[Tab] | None:
        """The isolated context this tab lives in (None: the browser's default one).

        A :class:`~kobrowser.BrowserContext`, typed with what a tab's user
        reaches through it (its tabs, cookies, storage, routes).
        """
        return None if self._context.id is None else self._context

    @property
    def opener(self) -> Tab | None:
        """The tab that opened this one (popups, ``target=_blank``), if still open."""
        return self._owner._tab_of_target(self._opener_id) if self._opener_id else None

    @property
    def closed(self) -> bool:
        """True once the tab was closed or crashed."""
        return self._closed or self.cdp.closed

    @property
    def timeout(self) -> float:
        """Default deadline in seconds (the browser's)."""
        return self._owner.timeout

    @property
    def url(self) -> str:
        """The URL of the top document (updated by every navigation, incl. #hash)."""
        return self._page.url

    @property
    def network(self) -> Network:
        """The tab's routes, blocks and request log (see :class:`~kobrowser.Network`)."""
        return self._network

    @property
    def console(self) -> Console:
        """The console messages and page errors of the tab (see :class:`~kobrowser.Console`)."""
        return self._console

    @property
    def dialogs(self) -> Dialogs:
        """The tab's JavaScript dialogs and how they are answered (:class:`~kobrowser.Dialogs`)."""
        return self._dialogs

    async def title(self) -> str:
        """The document title."""
        with unrecorded():  # a reader, not a step
            value = await self.evaluate("document.title")
        return str(value or "")

    async def close(self) -> None:
        """Close the tab. Idempotent; other tabs are not affected."""
        if self._closed:
            return
        self._closed = True
        self._owner._forget(self)
        if self._snapshotter.mirror is not None:
            self._snapshotter.mirror.close()
        connection = self.cdp.connection
        if connection.closed:
            return
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(5),
            contextlib.suppress(ProtocolError, TargetClosedError),
        ):
            await connection.root.send("Target.closeTarget", {"targetId": self.target_id})

    async def set_viewport(self, width: int, height: int) -> None:
        """Resize this tab's page area to ``width`` x ``height`` CSS pixels.

        Kept across navigations, over its context's viewport; the context's
        scale and mobile settings stay.

        Raises:
            InvalidArgumentError: not whole numbers > 0.
        """
        await self._context._set_tab_viewport(self, width, height)

    # -- snapshots and scripts -------------------------------------------

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
        """Take a numbered accessibility snapshot of the page and all its frames.

        Every frame (same-process or out-of-process, nested to any depth) is
        fetched concurrently and inlined under its ``iframe`` line; ids run
        depth-first from 1 as printed. The new ids replace the previous
        snapshot's for actions on this tab.

        Args:
            interactive: only interactive elements.
            compact: drop unnamed structure, lifting its children.
            depth: only elements at printed depth < depth.
            selector: only the subtrees of the top document's elements that
                match this CSS selector (none match: an empty snapshot).
            clickable: mark elements a page made clickable without a role
                (a click listener, ``cursor: pointer``) and give them a line;
                ``False`` skips reading the clickable map (faster; focusable
                elements are still marked).
            text_limit: names and text lines are cut at this many code
                points, values at five eighths of it (80 and 50 by default);
                ``None`` prints them whole. ``id_map`` always holds them whole.
            timeout: deadline of each CDP call (default: the browser's).
            fresh: read the whole tree from Chrome even when the tab keeps
                a mirror of it (``Browser.ax_mirror``, docs/ax-mirror.md).
                A fresh snapshot never starts a mirror either: a one-off
                read of a big page pays for no background crawl.

        Raises:
            InvalidArgumentError: a bad argument (``depth``, ``text_limit``...).
            InvalidSelectorError: ``selector`` is not valid CSS.
            TargetClosedError: the tab was closed or crashed.
            CDPTimeoutError: the top document did not answer in time.

        Cancelling the caller abandons the snapshot and keeps the previous one.
        """
        _validate.check(
            interactive=interactive,
            compact=compact,
            depth=depth,
            scope=selector,
            clickable=clickable,
            text_limit=text_limit,
            fresh=fresh,
        )
        return await self._snapshotter.take(
            interactive=interactive,
            compact=compact,
            depth=depth,
            selector=selector,
            clickable=clickable,
            text_limit=text_limit,
            limit=self._owner.snapshot_limit,
            timeout=self._limit(timeout),
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
        """What changed since the latest snapshot this tab handed out.

        Takes a new snapshot with these options (those of :meth:`snapshot`),
        which becomes :attr:`last_snapshot` (its ids are the ones actions use
        from now on), and returns its difference from the previous latest:
        lines added, removed and changed (see
        :func:`kobrowser.diff_snapshots`); an empty diff when nothing
        changed. Before any snapshot every line is added. Lines are matched
        without their ids, except with stable ids (``launch(ids="stable")``),
        where they are matched with them: an id the diff does not mention
        still names the element it named, and changed lines keep their id.
        With the default numbering, ids may shift: the new ones are in
        :attr:`last_snapshot`.

        Raises:
            InvalidArgumentError: a bad argument, as for :meth:`snapshot`.
            InvalidSelectorError: ``selector`` is not valid CSS.
            TargetClosedError: the tab was closed or crashed.
            CDPTimeoutError: the top document did not answer in time.

        Cancelling the caller abandons the snapshot and keeps the previous
        latest one.
        """
        before = self._snapshotter.latest
        after = await self.snapshot(
            interactive=interactive,
            compact=compact,
            depth=depth,
            selector=selector,
            clickable=clickable,
            text_limit=text_limit,
            timeout=timeout,
            fresh=fresh,
        )
        stable = self._snapshotter.ids is not None
        return diff_snapshots("" if before is None else before, after, match_ids=stable)

    @property
    def last_snapshot(self) -> Snapshot | None:
        """The latest snapshot of this tab (its ids are the ones actions use)."""
        return self._snapshotter.latest

    async def find(
        self,
        *,
        role: str | None = None,
        name: str | None = None,
        text: str | None = None,
        exact: bool = False,
        timeout: float | None = None,
    ) -> list[Element]:
        """The elements of a fresh snapshot that match every criterion given.

        Takes a new (full) snapshot, whose ids replace the previous ones, and
        returns its matching elements in id order, each with its ``id``.
        Names and texts are matched whole (never the printed, cut ones),
        contained and case-insensitive, or with ``exact=True`` equal and
        case-sensitive.

        Args:
            role: printed role (``button``, ``link``, ``text`` ...).
            name: text of the element's name.
            text: text the line shows (its name or value); of nested
                matches only the innermost is returned.
            exact: whole, case-sensitive match of ``name`` and ``text``.
            timeout: deadline of each CDP call (default: the browser's).

        Raises:
            InvalidArgumentError: no criterion is given, or one is not a str.
            TargetClosedError: the tab was closed or crashed.
            CDPTimeoutError: the top document did not answer in time.

        Cancelling the caller abandons the snapshot and keeps the previous one.
        """
        _validate.check(find_role=role, find_name=name, find_text=text, exact=exact)
        if role is None and name is None and text is None:
            raise InvalidArgumentError(
                "find: expected at least one of role, name or text", argument="role"
            )
        snap = await self.snapshot(timeout=timeout)
        return find_nodes(snap.nodes, role=role, name=name, text=text, exact=exact)

    @recorded("evaluate")
    async def evaluate(self, expression: str, *, timeout: float | None = None) -> Any:
        """Evaluate a JavaScript expression in the page and return its JSON value.

        Promises are awaited.

        Raises:
            JavaScriptError: the script threw or its promise rejected (the
                error carries the page's ``message`` and ``stack``).
            TargetClosedError: the tab was closed or crashed.
            CDPTimeoutError: no answer within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting for the answer; the script may
        still run to its end in the page.
        """
        _validate.check(script=expression, timeout=timeout)
        result = await self.cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        return runtime_value(result, "JavaScript error")

    @recorded("do")
    async def do(self, action: Action | str, *, timeout: float | None = None) -> Outcome:
        """Run one action of the grammar (``click 5``, ``fill 3 "hi"``) on this tab.

        The action runs through this tab's own methods (``click 5`` is
        ``await tab.click(5)``); see :func:`kobrowser.parse_action` for the
        grammar. ``tab N`` switches a browser's current tab, so it needs
        :meth:`Browser.do` (here it fails in the outcome); ``done "answer"``
        does nothing and carries the answer.

        Args:
            action: an :class:`~kobrowser.Action`, or one action line (or
                JSON object) as a str.
            timeout: deadline in seconds of the method the action runs
                (default: the browser's).

        Returns:
            The :class:`~kobrowser.Outcome`. The action's own errors (a stale
            or unknown id, an element that is not interactable, a navigation
            error, a timeout, an unknown key or option) are in it
            (``ok=False``), not raised.

        Raises:
            ActionSyntaxError: ``action`` is a str that is not exactly one action.
            InvalidArgumentError: ``action`` is neither an Action nor a str,
                or ``timeout`` is not a number of seconds >= 0.

        Cancelling the caller cancels the action's method; input already
        sent is not undone.
        """
        _validate.check(timeout=timeout)
        return await execute(lambda: self, to_action(action), timeout=timeout)

    # -- navigation ------------------------------------------------------

    @recorded("open")
    async def open(
        self,
        url: str,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
        referrer: str | None = None,
    ) -> Response | None:
        """Navigate the tab to ``url`` and wait until the page reaches ``wait_until``.

        Args:
            url: an absolute URL.
            wait_until: ``"commit"`` (the response arrived and the new document
                replaced the old), ``"domcontentloaded"``, ``"load"`` (the
                default: every resource incl. frames) or ``"networkidle"``
                (load, then no request in flight for 500 ms across the page
                and all its frames).
            timeout: seconds for the whole navigation (default: the browser's).
            referrer: the Referer header to send.

        Returns:
            The document's :class:`Response` (check ``status``: 404 and 500
            pages are responses, not errors), or None for a same-document
            navigation (``#fragment``).

        Raises:
            NavigationError: invalid URL, DNS failure, refused connection,
                aborted load (e.g. the URL is a download), or the context's
                :class:`~kobrowser.Policy` refuses the URL (nothing navigates).
            WaitTimeoutError: ``wait_until`` not reached in time (the message
                names the state).
            TargetClosedError: the tab closed meanwhile.

        Cancelling the caller stops waiting; the navigation itself goes on.
        """
        _validate.check(url=url, wait_until=wait_until, timeout=timeout, referrer=referrer)
        refusal = self._context._refusal(url)
        if refusal is not None:
            raise NavigationError(f"cannot open {url!r}: {refusal}")
        return await self._navigator.open(url, wait_until, self._deadline(timeout), referrer)

    @recorded("reload")
    async def reload(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Reload the page and wait for ``wait_until``; arguments and errors as :meth:`open`."""
        _validate.check(wait_until=wait_until)
        return await self._navigator.reload(wait_until, self._deadline(timeout))

    @recorded("back")
    async def back(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Go back in history and wait for ``wait_until``.

        Returns None when there is no previous entry or it is in the same
        document; otherwise as :meth:`open`.
        """
        _validate.check(wait_until=wait_until)
        return await self._navigator.history(-1, wait_until, self._deadline(timeout))

    @recorded("forward")
    async def forward(
        self, *, wait_until: LoadState = "load", timeout: float | None = None
    ) -> Response | None:
        """Go forward in history and wait for ``wait_until``; see :meth:`back`."""
        _validate.check(wait_until=wait_until)
        return await self._navigator.history(1, wait_until, self._deadline(timeout))

    # -- waits -----------------------------------------------------------

    @recorded("wait_for_load")
    async def wait_for_load(
        self, state: LoadState = "load", *, timeout: float | None = None
    ) -> None:
        """Wait until the current top document reached ``state``.

        ``commit`` < ``domcontentloaded`` < ``load`` < ``networkidle`` (load,
        then no request in flight for 500 ms across the page and all its
        frames). Returns at once when the state was already reached. When a
        navigation has started but not yet committed, or the document is
        replaced meanwhile, the new document is awaited.

        Raises:
            WaitTimeoutError: not reached within ``timeout`` (default: the browser's).
            TargetClosedError: the tab closed.

        Cancelling the caller simply stops waiting.
        """
        _validate.check(state=state)
        await self._waits.load(state, self._deadline(timeout))

    @recorded("wait_for_url")
    async def wait_for_url(
        self,
        url: URLPattern,
        *,
        wait_until: LoadState = "load",
        timeout: float | None = None,
    ) -> None:
        """Wait until the top document's URL matches, then until it reaches ``wait_until``.

        Args:
            url: a glob (``"**/checkout*"``: ``**`` any text, ``*`` any text
                but ``/``; the whole URL must match), a compiled regex
                (searched), or a function of the URL returning bool.
            wait_until: the load state to wait for after the URL matched.
            timeout: seconds (default: the browser's), for both parts.

        Raises:
            WaitTimeoutError: no match, or the state not reached, in time.
            TargetClosedError: the tab closed.

        Cancelling the caller simply stops waiting.
        """
        _validate.check(url_pattern=url, wait_until=wait_until, timeout=timeout)
        await self._waits.url(url, wait_until, self._deadline(timeout))

    @recorded("wait_for_text")
    async def wait_for_text(self, text: str, *, timeout: float | None = None) -> None:
        """Wait until the top document's rendered text (``innerText``) contains ``text``.

        Re-checked in the page on every DOM mutation.

        Raises:
            WaitTimeoutError: not there within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the in-page observer removes
        itself at the deadline.
        """
        _validate.check(text=text, timeout=timeout)
        await self._waits.text(text, self._deadline(timeout))

    @recorded("wait_for_selector")
    async def wait_for_selector(
        self, selector: str, *, state: SelectorState = "visible", timeout: float | None = None
    ) -> None:
        """Wait until the first element matching a CSS selector is in ``state``.

        ``attached``: in the DOM; ``detached``: not in the DOM; ``visible``:
        in the DOM with a non-empty box and not ``visibility: hidden``;
        ``hidden``: not visible or not in the DOM. Re-checked in the page on
        every DOM mutation and CSS transition/animation end.

        Raises:
            InvalidArgumentError: unknown ``state``, empty ``selector``.
            InvalidSelectorError: ``selector`` is not valid CSS (an
                ``InvalidArgumentError`` too, like the rest of bad input).
            WaitTimeoutError: not in that state within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the in-page observer removes
        itself at the deadline.
        """
        _validate.check(selector=selector, selector_state=state, timeout=timeout)
        await self._waits.selector(selector, state, self._deadline(timeout))

    @recorded("wait_for_function")
    async def wait_for_function(self, expression: str, *, timeout: float | None = None) -> Any:
        """Wait until a JavaScript expression (or function) is truthy; return its value.

        ``expression`` is re-evaluated in the page on every DOM mutation and
        animation frame; when it evaluates to a function, that function is
        called instead. The value must be JSON-serializable.

        Raises:
            JavaScriptError: the expression throws (with the page's ``message`` and ``stack``).
            WaitTimeoutError: not truthy within ``timeout`` (default: the browser's).

        Cancelling the caller stops waiting; the in-page loop ends itself at
        the deadline.
        """
        _validate.check(expression=expression, timeout=timeout)
        return await self._waits.function(expression, self._deadline(timeout))

    @recorded("wait")
    async def wait(self, ms: float) -> None:
        """Sleep ``ms`` milliseconds (prefer the waits above: they react to the page)."""
        _validate.check(ms=ms)
        await anyio.sleep(ms / 1000)

    # -- pointer actions -------------------------------------------------

    @recorded("click")
    async def click(
        self,
        element_id: int,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: Sequence[str] = (),
        timeout: float | None = None,
    ) -> None:
        """Click element ``element_id`` of the last snapshot with a trusted mouse click.

        Waits (up to ``timeout``) until the element is visible, stable,
        enabled and is what receives the pointer; a point of the element not
        covered by another is chosen. A click is judged by what reached the
        element: a press that would reach any other element (the page
        changed between the check and the click, or Chrome routed the input
        to a parent frame) is blocked with the rest of its click, and the
        click is sent again (up to 5 times). Once the press reached the
        element the page has received the click: the rest goes where a real
        mouse sends it (the release where the pointer is, should the page
        move or cover the element in answer to the press), and the click is
        done, never reported failed and never sent again.

        Args:
            element_id: the id from the latest snapshot.
            button: ``"left"``, ``"right"`` or ``"middle"``.
            click_count: 2 for a double click.
            modifiers: keys held during the click, e.g. ``["Shift"]``.
            timeout: seconds (default: the browser's timeout).

        Raises:
            NoSnapshotError: no snapshot was taken on this tab yet.
            UnknownElementError: the id is not in the latest snapshot.
            StaleElementError: the element is gone or changed since the snapshot.
            NotInteractableError: hidden, disabled, covered (the error names the
                covering element) or never stable.
            InvalidArgumentError: a bad argument.
        """
        _validate.check(
            element_id=element_id, button=button, click_count=click_count, modifiers=modifiers
        )
        await _pointer.click(
            self._act,
            element_id,
            button=button,
            click_count=click_count,
            modifiers=modifiers,
            deadline=self._deadline(timeout),
        )

    @recorded("dblclick")
    async def dblclick(self, element_id: int, *, timeout: float | None = None) -> None:
        """Double-click element ``element_id`` (see :meth:`click`)."""
        await _pointer.dblclick(self._act, element_id, deadline=self._deadline(timeout))

    @recorded("hover")
    async def hover(self, element_id: int, *, timeout: float | None = None) -> None:
        """Move the mouse over element ``element_id`` (waits for actionability).

        Returns once the element's frame has seen the pointer; a move that
        Chrome delivered elsewhere (an out-of-process frame whose input
        routing was not ready) is sent again.

        Raises:
            NoSnapshotError: no snapshot was taken on this tab yet.
            UnknownElementError: the id is not in the latest snapshot.
            StaleElementError: the element is gone or changed since the snapshot.
            NotInteractableError: covered, or its frame never received the
                pointer after three moves.
        """
        await _pointer.hover(self._act, element_id, deadline=self._deadline(timeout))

    @recorded("drag")
    async def drag(
        self, source_id: int, target_id: int, *, steps: int = 8, timeout: float | None = None
    ) -> None:
        """Drag element ``source_id`` onto element ``target_id`` with the mouse.

        Works for pointer-driven drags and for HTML5 drag and drop.
        """
        _validate.check(source_id=source_id, target_id=target_id, steps=steps, timeout=timeout)
        await _pointer.drag(
            self._act, source_id, target_id, steps=steps, deadline=self._deadline(timeout)
        )

    @recorded("scroll_into_view")
    async def scroll_into_view(self, element_id: int, *, timeout: float | None = None) -> None:
        """Scroll element ``element_id`` into view (in every frame on the way)."""
        await _pointer.scroll_into_view(self._act, element_id, deadline=self._deadline(timeout))

    @recorded("scroll")
    async def scroll(
        self, direction: str = "down", amount: float = 600, *, timeout: float | None = None
    ) -> None:
        """Scroll the page with the mouse wheel at the viewport's centre.

        Args:
            direction: ``"up"``, ``"down"``, ``"left"`` or ``"right"``.
            amount: CSS pixels.
        """
        _validate.check(direction=direction, amount=amount, timeout=timeout)
        await _pointer.scroll(self._act, direction, amount, deadline=self._deadline(timeout))

    # -- keyboard and forms ----------------------------------------------

    @recorded("focus")
    async def focus(self, element_id: int, *, timeout: float | None = None) -> None:
        """Give element ``element_id`` the keyboard focus."""
        await _forms.focus(self._act, element_id, deadline=self._deadline(timeout))

    @recorded("fill")
    async def fill(self, element_id: int, value: str, *, timeout: float | None = None) -> None:
        """Replace the value of a text field, textarea or contenteditable element.

        Uses real text input (``Input.insertText``), so frameworks that
        control the input (React, Vue) see normal input events. Date, color,
        range and similar inputs get their value set directly.

        With a context :class:`~kobrowser.Policy` that has ``secrets``, each
        ``{{name}}`` in ``value`` is replaced by that secret's value.

        Raises:
            WrongElementKindError: the element is not something that can be filled.
        """
        _validate.check(element_id=element_id, value=value, timeout=timeout)
        value = self._context._fill_text(value)
        await _forms.fill(self._act, element_id, value, deadline=self._deadline(timeout))

    @recorded("type")
    async def type(
        self, element_id: int, text: str, *, delay: float = 0, timeout: float | None = None
    ) -> None:
        """Focus element ``element_id`` and type ``text`` with real key events.

        Args:
            delay: milliseconds between key presses.

        Secrets are filled in for ``{{name}}`` as in :meth:`fill`.
        """
        _validate.check(element_id=element_id, text=text, delay=delay, timeout=timeout)
        text = self._context._fill_text(text)
        await _forms.type_into(
            self._act, element_id, text, delay=delay, deadline=self._deadline(timeout)
        )

    @recorded("press")
    async def press(self, key: str, *, timeout: float | None = None) -> None:
        """Press a key or combination on the focused element: ``"Enter"``, ``"Control+a"``.

        Raises:
            InvalidArgumentError: unknown key or modifier.
        """
        _validate.check(key=key, timeout=timeout)
        await _forms.press(self._act, key, deadline=self._deadline(timeout))

    @recorded("select")
    async def select(self, element_id: int, *values: str, timeout: float | None = None) -> None:
        """Select options of a ``<select>`` by value or label (several if ``multiple``).

        Raises:
            WrongElementKindError: the element is not a select.
            InvalidArgumentError: no values given, or an option is missing (the
                message lists the available ones).
        """
        _validate.check(element_id=element_id, values=values, timeout=timeout)
        await _forms.select(self._act, element_id, *values, deadline=self._deadline(timeout))

    @recorded("check")
    async def check(self, element_id: int, *, timeout: float | None = None) -> None:
        """Make a checkbox, radio or switch checked (no-op when it already is)."""
        await _forms.check(self._act, element_id, deadline=self._deadline(timeout))

    @recorded("uncheck")
    async def uncheck(self, element_id: int, *, timeout: float | None = None) -> None:
        """Make a checkbox or switch unchecked (no-op when it already is)."""
        await _forms.uncheck(self._act, element_id, deadline=self._deadline(timeout))

    @recorded("upload")
    async def upload(
        self, element_id: int, *files: str | os.PathLike[str], timeout: float | None = None
    ) -> None:
        """Set the files of an ``<input type=file>``.

        Raises:
            InvalidArgumentError: a file does not exist.
            WrongElementKindError: the element is not a file input.
        """
        _validate.check(element_id=element_id, timeout=timeout)
        await _forms.upload(self._act, element_id, *files, deadline=self._deadline(timeout))

    # -- reading elements ------------------------------------------------

    async def text(self, element_id: int, *, timeout: float | None = None) -> str:
        """The whole text of element ``element_id``.

        For an element, its rendered text (``innerText``); for a text field
        (``<textarea>``, a text-like ``<input>``), its value exactly, every
        space and line break kept. For a ``text`` line, every piece merged
        into it, as the snapshot read it (the printed line may be cut at
        ``text_limit``), once the line's first text node is checked to be
        still in the page.
        """
        return await _readers.text(self._act, element_id, deadline=self._deadline(timeout))

    async def html(self, element_id: int, *, timeout: float | None = None) -> str:
        """The outer HTML of element ``element_id``."""
        return await _readers.html(self._act, element_id, deadline=self._deadline(timeout))

    async def value(self, element_id: int, *, timeout: float | None = None) -> str | None:
        """The current value of a form field (None for elements without one).

        Exactly as the field holds it, every space and line break kept (the
        snapshot line shows it normalized).
        """
        return await _readers.value(self._act, element_id, deadline=self._deadline(timeout))

    async def attr(self, element_id: int, name: str, *, timeout: float | None = None) -> str | None:
        """The value of attribute ``name`` (None when absent)."""
        _validate.check(element_id=element_id, name=name, timeout=timeout)
        return await _readers.attr(self._act, element_id, name, deadline=self._deadline(timeout))

    async def is_visible(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether element ``element_id`` has a visible box."""
        return await _readers.is_visible(self._act, element_id, deadline=self._deadline(timeout))

    async def is_enabled(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether element ``element_id`` is enabled (not disabled or aria-disabled)."""
        return await _readers.is_enabled(self._act, element_id, deadline=self._deadline(timeout))

    async def is_checked(self, element_id: int, *, timeout: float | None = None) -> bool:
        """Whether a checkbox, radio, switch or toggle button is on.

        Raises:
            WrongElementKindError: the element has no checked state.
        """
        return await _readers.is_checked(self._act, element_id, deadline=self._deadline(timeout))

    async def box(self, element_id: int, *, timeout: float | None = None) -> dict[str, float]:
        """The element's box in top-page CSS pixels: ``{x, y, width, height}``.

        Scrolls it into view first.
        """
        return await _readers.box(self._act, element_id, deadline=self._deadline(timeout))

    # -- capture ---------------------------------------------------------

    def tracing(
        self, path: str | os.PathLike[str] | None = None, *, title: str = "kobrowser trace"
    ) -> contextlib.AbstractAsyncContextManager[Trace]:
        """Record every action made on this tab in the block; write an HTML trace at its end.

        ``async with tab.tracing("run.html") as trace:`` records each action
        (``click``, ``fill``, ``open``, ``do`` lines, waits, ``evaluate``...;
        not readers, snapshots or screenshots) made on this tab, by this
        code, the agent loop or anything else: its line in the action
        grammar, outcome and timing, the snapshot it acted on and its change
        from the previous step's, a picture of the viewport after it with
        the acted-on element outlined, and the requests, console messages
        and page errors of the step (see :class:`~kobrowser.TraceStep`).
        At the end of the block the trace is written to ``path`` as one
        self-contained HTML file (pictures embedded; open it in any
        browser, offline). :meth:`Browser.tracing
        <kobrowser.Browser.tracing>` records every tab.

        Args:
            path: where to write the HTML file (None: only keep the
                :class:`~kobrowser.Trace`, for :meth:`Trace.save
                <kobrowser.Trace.save>`).
            title: the page's heading.

        Raises:
            InvalidArgumentError: ``path`` is not a path.
            KoBrowserError: (at the end) the file could not be written.

        Cancelling the block still writes the file (shielded).
        """
        tab = self

        def attach(trace: Trace) -> None:
            tab._recorders = (*tab._recorders, trace)

        def detach(trace: Trace) -> None:
            tab._recorders = tuple(r for r in tab._recorders if r is not trace)

        return tracing(attach, detach, path, title)

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
        """Capture the page as an image; optionally draw the snapshot's ids on it.

        The page is left exactly as it was: nothing scrolls (full pages and
        elements below the fold are captured beyond the viewport), no node
        is added, focus stays where it is.

        Args:
            path: also write the image there.
            full_page: the whole page, not only the viewport.
            id: only this element of the last snapshot (its visible part;
                checked like an action's id, so a stale id raises).
            annotate: draw every id of the last snapshot that shows in the
                captured area at its element: an outline and a numbered label
                (inside cross-origin iframes too). Needs Pillow
                (``pip install 'ko-browser[screenshot]'``).
            format: ``"png"``, ``"jpeg"`` or ``"webp"``; default: from the
                suffix of ``path``, else PNG.
            quality: 0-100, for JPEG and WebP.
            timeout: deadline of each CDP call (default: the browser's).

        Returns:
            The encoded image.

        Raises:
            InvalidArgumentError: a bad format, quality, or ``full_page`` with ``id``.
            NoSnapshotError: ``id`` or ``annotate`` without a snapshot.
            UnknownElementError, StaleElementError: ``id`` is not valid now.
            CaptureError: nothing to capture (element not rendered or scrolled
                out of its container's view), Pillow missing, file not writable.

        Cancelling the caller abandons the capture; the page is unchanged.
        """
        return await _capture.screenshot(
            self,
            path,
            full_page=full_page,
            element_id=id,
            annotate=annotate,
            image_format=format,
            quality=quality,
            timeout=timeout,
        )

    def screencast(
        self,
        *,
        quality: int = 80,
        max_width: int | None = None,
        max_height: int | None = None,
        max_fps: float | None = None,
        buffer: int = 4,
        timeout: float | None = None,
    ) -> AbstractAsyncContextManager[Screencast]:
        """Watch the tab's screencast: a JPEG image of the viewport each time it repaints.

        ``async with tab.screencast() as cast: async for frame in cast: ...``
        yields :class:`~kobrowser.ScreencastFrame` objects (JPEG bytes, the
        time Chrome painted it, its size). Chrome paints only when the page
        changes, so a still page yields few frames. Several watchers of one
        tab share Chrome's one screencast (a video recording and a live view
        at once); each gets the frames of the most demanding one (best
        quality, largest size), and one that falls more than ``buffer``
        frames behind loses its oldest (counted in ``cast.dropped``).
        Iteration ends when the block is left or the tab closes or crashes.

        Args:
            quality: JPEG quality, 0 to 100.
            max_width: the widest frame in pixels (None: the viewport's width).
            max_height: the tallest frame in pixels (None: the viewport's height).
            max_fps: at most this many frames a second (None: as Chrome paints,
                up to about 60).
            buffer: frames kept for this watcher while it is busy.
            timeout: deadline of each CDP call of the start (default: the browser's).

        Returns:
            An async context manager giving a :class:`~kobrowser.Screencast`.

        Raises:
            InvalidArgumentError: a bad quality, size, rate or buffer.
            TargetClosedError: the tab is closed.
            CaptureError: Chrome refused to start the screencast.

        Cancellation: cancelling the start or the iteration is safe; leaving
        the block (also by cancellation) stops Chrome's screencast once no
        other watcher is left (shielded, bounded by a short deadline).
        """
        return self._screencast.watch(
            quality=quality,
            max_width=max_width,
            max_height=max_height,
            max_fps=max_fps,
            buffer=buffer,
            timeout=timeout,
        )

    def start_video(
        self,
        path: str | os.PathLike[str],
        *,
        size: tuple[int, int] | None = None,
        fps: int = 25,
    ) -> VideoRecording:
        """Record the tab into a video file until stopped or the tab closes.

        The tab's screencast is encoded at a constant ``fps`` (the newest
        picture repeated while the page shows no change) into WebM (VP8) or
        MP4 (H.264), by the suffix of ``path``. The file is opened now and
        complete once ``await recording.stop()`` returns or the tab closed
        (``recording.done``). Needs PyAV: ``pip install 'ko-browser[video]'``.

        Args:
            path: the ``.webm`` or ``.mp4`` file to write.
            size: ``(width, height)`` of the video in pixels (default: the
                viewport, scaled down to fit 800 x 800).
            fps: frames a second, 1 to 60.

        Returns:
            The :class:`~kobrowser.VideoRecording`; its ``stop()`` ends it.

        Raises:
            InvalidArgumentError: a bad path suffix, size or fps.
            CaptureError: PyAV is missing, or the file cannot be written.
            TargetClosedError: the tab is closed.
        """
        target, video_format = check_video_path(path)
        options = VideoOptions(
            None, size=video_size(size, "size"), fps=video_fps(fps, "fps"), format=video_format
        )
        return self._start_video(target, options)

    def _start_video(self, path: Path, options: VideoOptions) -> VideoRecording:
        """Start recording into ``path`` with checked ``options`` (also a context's)."""
        return VideoRecording.start(
            self, self._owner._spawn, path, options.format, options.size, options.fps
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
        """Print the page to PDF (headless Chrome only).

        Args:
            path: also write the PDF there.
            landscape: landscape orientation.
            print_background: print background colours and images.
            scale: 0.1 to 2.
            paper: ``"A4"`` or ``"Letter"``.
            timeout: deadline of the call (default: the browser's).

        Returns:
            The PDF document (starts with ``%PDF``).

        Raises:
            InvalidArgumentError: a bad paper or scale.
            CaptureError: the browser has a window (headed), or Chrome failed.

        Cancelling the caller abandons the print.
        """
        return await _capture.pdf(
            self,
            path,
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper=paper,
            headless=self._owner._headless,
            timeout=timeout,
        )
