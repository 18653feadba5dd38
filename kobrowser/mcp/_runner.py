"""ToolRunner: how every tool runs (one at a time) and what its reply shows."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

import anyio
from mcp.types import CallToolResult

import kobrowser
from kobrowser.mcp._replies import error_message, failure, page_block, success
from kobrowser.mcp._safety import RefusedError

if TYPE_CHECKING:
    from kobrowser import Browser, Snapshot, Tab

__all__ = ["FAILURES", "BatchFailed", "Body", "SnapshotMode", "ToolRunner"]

SnapshotMode = Literal["full", "interactive", "diff", "none"]

Body = Callable[[], Awaitable[str]]


class BatchFailed(Exception):
    """A batch stopped at a failing action (the message lists every outcome)."""


#: Errors a tool reports to the model (anything else is a bug and a crash).
FAILURES = (
    BatchFailed,
    kobrowser.KoBrowserError,
    TimeoutError,
    ValueError,
    TypeError,
    OSError,
    RefusedError,
)


class ToolRunner:
    """Runs the tools of one server over one browser, one request at a time.

    Every tool runs under one lock, so a snapshot's ids and the action that
    uses them never interleave with another request. The reply of a tool
    that changes the page ends with the page's fresh snapshot.
    """

    def __init__(
        self, browser: Browser, mode: SnapshotMode, policy: kobrowser.Policy | None = None
    ) -> None:
        self._browser = browser
        self.policy = policy
        self._mode: SnapshotMode = mode
        self._lock = anyio.Lock()
        # Tabs and dialogs the model has been told about (or that were there
        # before the server): the others are noted in the next reply.
        self._tabs_seen = {tab.target_id for tab in browser.tabs}
        self._dialogs_seen = {tab.target_id: len(tab.dialogs.opened) for tab in browser.tabs}
        # "diff" mode: the interactive snapshot each tab's last reply showed
        # (whole or as a change); the next reply shows the change from it.
        self._shown: dict[str, Snapshot] = {}

    def shown(self, tab: Tab, snapshot: Snapshot) -> None:
        """A reply shows ``snapshot`` of ``tab`` whole, in the mode's own options."""
        if self._mode == "diff":
            self._shown[tab.target_id] = snapshot

    def tab(self) -> Tab:
        if not self._browser.tabs:
            raise RefusedError("no tab is open: call open with a URL first")
        return self._browser.tab

    def _notes(self) -> list[str]:
        """Tabs the page opened and dialogs it showed that no reply has told of yet.

        A popup is set up in the background, so it may be told of one reply
        later than the action that opened it.
        """
        notes = []
        tabs = self._browser.tabs
        current = self._browser.tab if tabs else None
        for index, tab in enumerate(tabs, 1):
            if tab.target_id not in self._tabs_seen:
                self._tabs_seen.add(tab.target_id)
                if tab is not current:
                    notes.append(f"The page opened tab {index}: {tab.url} (tabs switch to use it)")
            dialogs = tab.dialogs.opened
            seen = self._dialogs_seen.get(tab.target_id, 0)
            self._dialogs_seen[tab.target_id] = len(dialogs)
            where = "The page" if tab is current else f"Tab {index}"
            for dialog in dialogs[seen:]:
                answer = {True: "accepted", False: "dismissed", None: "open"}[dialog.accepted]
                notes.append(
                    f'{where} showed a dialog ({dialog.type}, {answer}): "{dialog.message}"'
                )
        return notes

    async def _page(self) -> str:
        """The current tab after a request: a fresh snapshot in the server's mode."""
        if not self._browser.tabs:
            return "No tab is open."
        tab = self._browser.tab
        if self._mode == "none":
            return f"URL: {tab.url}"
        if self._mode == "diff":
            return await self._changes(tab)
        snap = await tab.snapshot(interactive=self._mode == "interactive")
        return page_block(snap)

    async def _changes(self, tab: Tab) -> str:
        """The change since the snapshot the last reply showed, else the whole snapshot.

        The whole (interactive) snapshot goes out when no reply showed this
        tab's latest snapshot (the first reply, or another snapshot was taken
        since, e.g. by ``find``), when the page navigated or reloaded, and,
        with depth-first ids, when the change renumbered lines the model saw
        (a diff names only the lines that changed, so every other id must
        still name the element it named), and when the change's text is no
        shorter than the page's.
        """
        before = tab.last_snapshot
        if before is None or self._shown.get(tab.target_id) is not before:
            snap = await tab.snapshot(interactive=True)
            self._shown[tab.target_id] = snap
            return page_block(snap)
        diff = await tab.changes(interactive=True)
        after = tab.last_snapshot
        assert after is not None
        self._shown[tab.target_id] = after
        same_ids = (
            self._browser.ids == "stable"
            or kobrowser.diff_snapshots(before, after, match_ids=True).touched() == diff.touched()
        )
        if (
            after.document_id != before.document_id
            or not same_ids
            or len(str(diff)) >= len(after.text)  # the change takes more than the page
        ):
            return page_block(after)
        if not diff:
            return f"URL: {after.url}\nNo change on the page (the ids shown before still hold)."
        return (
            f"URL: {after.url}\nChanges on the page (+ added, - removed, ~ changed; "
            f"the other ids shown before still hold):\n{str(diff).rstrip()}"
        )

    async def run(self, body: Body, *, page: bool) -> CallToolResult:
        """Run ``body`` under the lock and reply with its text.

        With ``page``, the reply adds the page's fresh snapshot after it (also
        after a failure). A failure is a tool error with kobrowser's message;
        an element error always comes with the new snapshot to pick ids from.
        """
        async with self._lock:
            try:
                await self._enforce()
                text = await body()
            except RefusedError as exc:
                return failure(self._mask(str(exc)))
            except FAILURES as exc:
                # A batch's message is one line per action, each already one line.
                message = str(exc) if isinstance(exc, BatchFailed) else error_message(exc)
                if page or isinstance(exc, kobrowser.ElementError):
                    message = await self._after_failure(message)
                return failure(self._mask(message))
            if not page:
                return success(self._mask(text))
            try:
                shown = await self._page()
            except FAILURES as exc:
                shown = f"(no snapshot: {error_message(exc)} Call snapshot.)"
            # Notes after the snapshot: a popup set up meanwhile is told of now.
            return success(self._mask("\n".join([text, *self._notes(), shown])))

    def _mask(self, text: str) -> str:
        """A reply with every secret value shown as ``{{name}}``."""
        return text if self.policy is None else self.policy.mask(text)

    async def _enforce(self) -> None:
        """Give the browser's default context the server's policy (once, or after a change)."""
        policy = self.policy
        context = self._browser.default_context
        if policy is not None and context.policy is not policy:
            await context.set_policy(policy)

    async def _after_failure(self, message: str) -> str:
        if self._mode == "none" or not self._browser.tabs:
            return message
        shown = None
        with contextlib.suppress(*FAILURES):
            shown = "The page now (use these ids):\n" + await self._page()
        return "\n".join([message, *self._notes(), *([shown] if shown else [])])
