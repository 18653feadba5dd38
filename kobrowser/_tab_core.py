"""TabCore: a tab's session, frame registry, snapshot, evaluation and closing.

The public :class:`~kobrowser.Tab` adds navigation and waits
(``_navigation``) and actions by id (``_actions``) as mixins on this core.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import anyio

from ._exceptions import InvalidArgumentError, KoBrowserError, ProtocolError, TargetClosedError
from ._frames import FrameRegistry
from ._snapshot import Element, Snapshot, take_snapshot
from ._validate import check, seconds
from .cdp import CDPSession
from .snapshot._find import find_nodes

if TYPE_CHECKING:
    from ._browser import Browser

__all__ = ["TabCore", "runtime_value"]


def runtime_value(result: dict[str, Any], what: str) -> Any:
    """The JSON value of a ``Runtime.evaluate``/``callFunctionOn`` result.

    Raises:
        KoBrowserError: the script threw (``what: <the exception>``).
    """
    details = result.get("exceptionDetails")
    if details:
        text = details.get("exception", {}).get("description") or details.get("text")
        raise KoBrowserError(f"{what}: {text}")
    return result.get("result", {}).get("value")


class TabCore:
    """The state every part of a tab shares: session, frames, last snapshot.

    Attributes:
        cdp: the tab's raw :class:`~kobrowser.cdp.CDPSession` (send + subscribe).
        target_id: Chrome's id of the page target.
    """

    def __init__(self, browser: Browser, session: CDPSession, target_id: str) -> None:
        self._browser = browser
        self.cdp = session
        self.target_id = target_id
        self._closed = False
        self._frames = FrameRegistry(session, browser._spawn)
        self._owner_cache: dict[str, int] = {}
        self._last_snapshot: Snapshot | None = None

    def __repr__(self) -> str:
        return f"<Tab {self.target_id}{' closed' if self.closed else ''}>"

    @property
    def browser(self) -> Browser:
        """The browser this tab belongs to."""
        return self._browser

    @property
    def closed(self) -> bool:
        """True once the tab was closed or crashed."""
        return self._closed or self.cdp.closed

    @property
    def timeout(self) -> float:
        """Default deadline in seconds (the browser's)."""
        return self._browser.timeout

    async def _init(self) -> None:
        await self.cdp.send("Page.enable")
        await self._frames.start()

    @property
    def last_snapshot(self) -> Snapshot | None:
        """The latest snapshot of this tab (its ids are the ones actions use)."""
        return self._last_snapshot

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

        Raises:
            InvalidArgumentError: a bad argument (``depth``, ``text_limit``...).
            InvalidSelectorError: ``selector`` is not valid CSS.
            TargetClosedError: the tab was closed or crashed.
            CDPTimeoutError: the top document did not answer in time.

        Cancelling the caller abandons the snapshot and keeps the previous one.
        """
        check(
            interactive=interactive,
            compact=compact,
            depth=depth,
            scope=selector,
            clickable=clickable,
            text_limit=text_limit,
        )
        snap = await take_snapshot(
            self.cdp,
            self._frames,
            owner_cache=self._owner_cache,
            interactive=interactive,
            compact=compact,
            depth=depth,
            selector=selector,
            timeout=self.timeout if timeout is None else seconds(timeout),
            clickable=clickable,
            text_limit=text_limit,
            limit=getattr(self._browser, "snapshot_limit", None),
        )
        self._last_snapshot = snap
        return snap

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
        check(find_role=role, find_name=name, find_text=text, exact=exact)
        if role is None and name is None and text is None:
            raise InvalidArgumentError(
                "find: expected at least one of role, name or text", argument="role"
            )
        snap = await self.snapshot(timeout=timeout)
        return find_nodes(snap.nodes, role=role, name=name, text=text, exact=exact)

    async def evaluate(self, expression: str, *, timeout: float | None = None) -> Any:
        """Evaluate a JavaScript expression in the page and return its JSON value.

        Promises are awaited. Raises KoBrowserError when the script throws.
        """
        check(script=expression, timeout=timeout)
        result = await self.cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        return runtime_value(result, "JavaScript error")

    async def title(self) -> str:
        """The document title."""
        value = await self.evaluate("document.title")
        return str(value or "")

    async def close(self) -> None:
        """Close the tab. Idempotent; other tabs are not affected."""
        if self._closed:
            return
        self._closed = True
        self._browser._forget(self)
        connection = self.cdp.connection
        if connection.closed:
            return
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(5),
            contextlib.suppress(ProtocolError, TargetClosedError),
        ):
            await connection.root.send("Target.closeTarget", {"targetId": self.target_id})
