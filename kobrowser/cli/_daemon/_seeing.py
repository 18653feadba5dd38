"""Daemon side of what shows the page: snapshot, find, diff, screenshot and pdf.

The client turns paths into absolute ones (the daemon runs in ``/``) and
reads a ``--baseline`` file itself; these commands call the public API
(:meth:`Tab.snapshot`, :meth:`Tab.find`, :func:`kobrowser.diff_snapshots`,
:meth:`Tab.screenshot`, :meth:`Tab.pdf`) and say what they wrote.

``diff`` takes a new snapshot and compares it with the tab's previous one
(or the baseline); the new one becomes the session's snapshot, so the ids
the diff prints are the ones actions use next. It takes the previous
``ko-browser snapshot``'s mode (``-i``, ``-c``, ``-d``, ``-s``,
``--text-limit``, ``--no-clickable``) unless given its own, so like is
compared with like.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import kobrowser
from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._errors import CommandError
from kobrowser.snapshot._find import numbered_lines

if TYPE_CHECKING:
    from kobrowser import Snapshot, SnapshotDiff, Tab

__all__ = ["COMMANDS", "Mode"]

#: The library's default ``text_limit`` (the parser's default too).
TEXT_LIMIT = 80


@dataclass(frozen=True, slots=True)
class Mode:
    """The options of a snapshot (``ko-browser snapshot``'s flags)."""

    interactive: bool = False
    compact: bool = False
    depth: int | None = None
    selector: str | None = None
    text_limit: int | None = TEXT_LIMIT
    clickable: bool = True

    @classmethod
    def of(cls, args: Args) -> Mode:
        return cls(
            interactive=args.flag("interactive"),
            compact=args.flag("compact"),
            depth=args.optional_whole("depth"),
            selector=args.optional_text("selector"),
            text_limit=args.optional_whole("text_limit"),
            clickable=args.flag("clickable"),
        )

    async def changes(self, tab: Tab, timeout: float | None) -> SnapshotDiff:
        """A new snapshot of ``tab`` in this mode (see :meth:`take`) and what changed."""
        diff = await tab.changes(
            interactive=self.interactive,
            compact=self.compact,
            depth=self.depth,
            selector=self.selector,
            text_limit=self.text_limit,
            clickable=self.clickable,
            timeout=timeout,
        )
        _last_mode[tab] = self
        return diff

    async def take(self, tab: Tab, timeout: float | None) -> Snapshot:
        """A new snapshot of ``tab`` in this mode, which the tab's next ``diff`` keeps."""
        snap = await tab.snapshot(
            interactive=self.interactive,
            compact=self.compact,
            depth=self.depth,
            selector=self.selector,
            text_limit=self.text_limit,
            clickable=self.clickable,
            timeout=timeout,
        )
        _last_mode[tab] = self
        return snap


_last_mode: weakref.WeakKeyDictionary[Tab, Mode] = weakref.WeakKeyDictionary()
"""Tab -> the mode of its last ``ko-browser snapshot`` or ``diff``."""


async def snapshot(ctx: Context, args: Args) -> Result:
    if args.flag("diff"):
        return await _snapshot_diff(ctx, args)
    snap = await Mode.of(args).take(ctx.tab(), ctx.timeout)
    # The node tree of the result is most of a reply: built only for --json.
    return {} if ctx.text_only else snap.to_dict(), snap.text.rstrip("\n")


async def _snapshot_diff(ctx: Context, args: Args) -> Result:
    """``snapshot --diff``: the change since the tab's last snapshot, else the whole one
    (also when the change is no shorter, or renumbered depth-first ids)."""
    tab = ctx.tab()
    before = tab.last_snapshot
    changes = await Mode.of(args).changes(tab, ctx.timeout)
    snap = tab.last_snapshot
    assert snap is not None
    text = str(changes).rstrip("\n") or "no changes"
    if (
        before is None
        or before.document_id != snap.document_id
        or len(text) >= len(snap.text)
        or (
            ctx.browser.ids != "stable"
            and kobrowser.diff_snapshots(before, snap, match_ids=True).touched()
            != changes.touched()
        )
    ):
        # Nothing to compare with, another document (every id is new), a
        # change that takes more to print than the whole page, or depth-first
        # ids that moved (a line the diff leaves out would name another element).
        return {**snap.to_dict(), "whole": True}, snap.text.rstrip("\n")
    result = {"url": snap.url, "title": snap.title, "whole": False, "changed": bool(changes)}
    return {**result, **changes.to_dict()}, text


async def find(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    found = await tab.find(
        role=args.optional_text("role"),
        name=args.optional_text("name"),
        text=args.optional_text("text"),
        exact=args.flag("exact"),
        timeout=ctx.timeout,
    )
    if not found:
        raise CommandError("no element matches", "run `ko-browser snapshot` to see the page")
    snap = tab.last_snapshot
    lines = numbered_lines(snap.text) if snap is not None else {}
    text = "\n".join(lines.get(element.id, f"{element.id}: {element.role}") for element in found)
    elements = [{k: v for k, v in e.to_dict().items() if k != "children"} for e in found]
    return {"elements": elements}, text


async def diff(ctx: Context, args: Args) -> Result:
    tab = ctx.tab()
    baseline_text = args.optional_text("baseline_text")
    previous: Snapshot | str | None = tab.last_snapshot
    if baseline_text is not None:
        previous = _baseline(baseline_text, args.optional_text("baseline") or "baseline")
    elif previous is None:
        raise CommandError(
            "no previous snapshot to compare with",
            "run `ko-browser snapshot` first, or pass --baseline FILE",
        )
    given = Mode.of(args)
    # The diff's own flags, all of them, when it has any; else the last snapshot's.
    mode = given if given != Mode() else _last_mode.get(tab, given)
    snap = await mode.take(tab, ctx.timeout)
    stable = ctx.browser.ids == "stable"  # stable ids: lines match with their ids
    changes = kobrowser.diff_snapshots(previous, snap, match_ids=stable)
    text = str(changes).rstrip("\n") or "no changes"
    result = {"url": snap.url, "title": snap.title, "changed": bool(changes)}
    return {**result, **changes.to_dict()}, text


def _baseline(text: str, source: str) -> str:
    """Snapshot text from a ``--baseline`` file (plain, or the ``--json`` output)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            raise CommandError(
                f"{source}: not valid JSON", "save it with `ko-browser snapshot > FILE`"
            ) from None
        inner = data.get("result", data) if isinstance(data, dict) else None
        snapshot_text = inner.get("text") if isinstance(inner, dict) else None
        if not isinstance(snapshot_text, str):
            raise CommandError(
                f"{source}: JSON without a snapshot text",
                "save it with `ko-browser snapshot > FILE`",
            )
        text = snapshot_text
    # `ko-browser snapshot > FILE` ends with one newline; a page line alone needs two.
    text = text.rstrip("\n") + "\n"
    if text.startswith("Page:") and text.count("\n") == 1:
        text += "\n"
    try:
        kobrowser.parse_snapshot(text, text_limit=None, ids="stable")  # ids in any order
    except ValueError as exc:
        raise CommandError(
            f"{source}: not a snapshot ({exc})", "save it with `ko-browser snapshot > FILE`"
        ) from None
    return text


async def screenshot(ctx: Context, args: Args) -> Result:
    path = args.optional_text("path")  # the client always gives one
    full_page, annotate = args.flag("full"), args.flag("annotate")
    element = args.optional_whole("id")
    data = await ctx.tab().screenshot(
        path, full_page=full_page, id=element, annotate=annotate, timeout=ctx.timeout
    )
    result = {"path": path, "bytes": len(data), "full_page": full_page, "annotate": annotate}
    if element is not None:
        result["id"] = element
    return result, path or ""


async def pdf(ctx: Context, args: Args) -> Result:
    path = args.text("path")
    landscape = args.flag("landscape")
    paper = args.optional_text("paper") or "A4"  # an option's null means its default
    given_scale = args.optional_number("scale")
    scale = 1.0 if given_scale is None else given_scale
    data = await ctx.tab().pdf(
        path, landscape=landscape, paper=paper, scale=scale, timeout=ctx.timeout
    )
    result = {"path": path, "bytes": len(data), "landscape": landscape, "paper": paper}
    return {**result, "scale": scale}, path


COMMANDS: dict[str, Command] = {
    "snapshot": Command(snapshot, serialized=True),
    "find": Command(find, serialized=True),
    "diff": Command(diff),
    "screenshot": Command(screenshot),
    "pdf": Command(pdf),
}
