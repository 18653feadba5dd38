"""Daemon side of ``ko-browser screenshot``, ``ko-browser pdf`` and ``ko-browser diff``.

The client turns paths into absolute ones (the daemon runs in ``/``) and
reads a ``--baseline`` file itself; these handlers call the public API
(:meth:`Tab.screenshot`, :meth:`Tab.pdf`, :meth:`Snapshot.diff`) and say
what they wrote.

``diff`` takes a new snapshot and compares it with the tab's previous one
(or the baseline); the new one becomes the session's snapshot, so the ids
the diff prints are the ones actions use next. It takes the previous
``ko-browser snapshot``'s mode (``-i``, ``-c``, ``-d``, ``-s``) unless given
its own, so like is compared with like.
"""

from __future__ import annotations

import json
import weakref
from typing import TYPE_CHECKING, Any

import kobrowser
from kobrowser.cli._commands import CommandError, Context, Result, _call, _method, _tab, handler

if TYPE_CHECKING:
    from kobrowser import Tab

__all__ = ["remember_mode"]

_MODES = ("interactive", "compact", "depth", "selector", "clickable")
_last_mode: weakref.WeakKeyDictionary[Tab, dict[str, Any]] = weakref.WeakKeyDictionary()
"""Tab -> the options of its last ``ko-browser snapshot``."""


def remember_mode(tab: Tab, args: dict[str, Any]) -> None:
    """Keep the snapshot options of a ``ko-browser snapshot`` for ``diff``."""
    _last_mode[tab] = {key: args.get(key) for key in _MODES}
    _last_mode[tab]["clickable"] = args.get("clickable", True) is not False


@handler("screenshot")
async def _screenshot(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    path = args["path"]
    options: dict[str, Any] = {
        "full_page": bool(args.get("full")),
        "annotate": bool(args.get("annotate")),
    }
    if args.get("id") is not None:
        options["id"] = args["id"]
    data = await _call(ctx, _method(tab, "screenshot", "screenshot"), path, **options)
    result = {"path": path, "bytes": len(data), **options}
    return result, path


@handler("pdf")
async def _pdf(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    path = args["path"]
    options: dict[str, Any] = {
        "landscape": bool(args.get("landscape")),
        "paper": args.get("paper") or "A4",
        "scale": float(args.get("scale") or 1.0),
    }
    data = await _call(ctx, _method(tab, "pdf", "pdf"), path, **options)
    return {"path": path, "bytes": len(data), **options}, path


@handler("diff")
async def _diff(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    baseline_text = args.get("baseline_text")
    previous: Any = tab.last_snapshot
    if baseline_text is not None:
        previous = _baseline(baseline_text, args.get("baseline") or "baseline")
    elif previous is None:
        raise CommandError(
            "no previous snapshot to compare with",
            "run `ko-browser snapshot` first, or pass --baseline FILE",
        )
    given = {key: args.get(key) for key in _MODES}
    given["clickable"] = args.get("clickable", True) is not False
    flags = any(given[key] not in (None, False) for key in _MODES if key != "clickable")
    # The diff's own flags, all of them, when it has any; else the last snapshot's.
    own = flags or not given["clickable"]
    mode = given if own else dict(_last_mode.get(tab) or given)
    mode["interactive"] = bool(mode.get("interactive"))
    mode["compact"] = bool(mode.get("compact"))
    remember_mode(tab, mode)
    if mode.pop("clickable", True) is False:
        mode["clickable"] = False  # passed only when off (the library's default is on)
    snap = await _call(ctx, tab.snapshot, **mode)
    diff = kobrowser.diff_snapshots(previous, snap)
    text = str(diff).rstrip("\n") or "no changes"
    return {"url": snap.url, "title": snap.title, "changed": bool(diff), **diff.to_dict()}, text


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
        kobrowser.parse_snapshot(text, text_limit=None)
    except ValueError as exc:
        raise CommandError(
            f"{source}: not a snapshot ({exc})", "save it with `ko-browser snapshot > FILE`"
        ) from None
    return text
