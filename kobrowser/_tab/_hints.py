"""Names for icon-only controls: what the page says about an unnamed clickable leaf.

An icon drawn by an image with no alt text (an ``<img>``, a CSS ``content``
or background image, an SVG shape) prints as an unnamed ``img clickable`` or
``generic clickable`` line, and two of them are indistinguishable. For the
clickable elements with no child node (the map's ``hidden`` candidates, see
``kobrowser.snapshot._hidden``) the page is asked, once per snapshot, what
it says about each: the image's file name, else the element's ``id``, else
its ``title``, as ``file:NAME``, ``id:NAME`` or ``title:TEXT``
(docs/snapshot-format.md, "Derived names"). The walk gives that to such an
element when Chrome gives it no name.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Final, Protocol

import anyio

from kobrowser._exceptions import CDPError, JavaScriptError
from kobrowser._tab._runtime import runtime_value
from kobrowser.snapshot._hidden import ClickableMap

if TYPE_CHECKING:
    from collections.abc import Mapping

    from kobrowser._tab._clickable import ClickableMaps
    from kobrowser.cdp import CDPSession
    from kobrowser.snapshot import Node

    class _Document(Protocol):
        session: CDPSession


__all__ = ["MAX_HINTS", "add_hints", "name_icons"]

MAX_HINTS: Final = 64
"""The most elements of one session asked about per snapshot (the first in document order)."""

_GROUP: Final = "kobrowser-hints"

HINT_JS: Final = r"""function () {
  const el = this;
  const fileOf = (url) => {
    if (!url || url.startsWith('data:')) return '';
    let last = url.split(/[?#]/)[0].split('/').pop() || '';
    try { last = decodeURIComponent(last); } catch (e) {}
    return last;
  };
  const urlIn = (css) => {
    const m = /url\(\s*["']?([^"')]+)["']?\s*\)/.exec(css || '');
    return m ? m[1] : '';
  };
  let src = el.currentSrc || (el.getAttribute && (el.getAttribute('src') || '')) || '';
  if (!src && el.getAttribute) {
    const href = el.getAttribute('href') || el.getAttribute('xlink:href') || '';
    if (href && !href.startsWith('#')) src = href;
  }
  if (!src) {
    const style = getComputedStyle(el);
    src = urlIn(style.content) || urlIn(style.backgroundImage);
  }
  const file = fileOf(src).trim();
  if (file) return 'file:' + file;
  if (el.id) return 'id:' + el.id;
  const title = el.getAttribute && el.getAttribute('title');
  if (title && title.trim()) return 'title:' + title.trim().split(/\s+/).join(' ');
  return '';
}"""


async def add_hints(maps: ClickableMaps, *, timeout: float) -> None:
    """Fill ``names`` of every session's :class:`ClickableMap` (see the module).

    An element gone meanwhile, or a session that fails, just gets no name.

    Cancelling the caller abandons the calls.
    """
    async with anyio.create_task_group() as group:
        for session, found in maps.items():
            if isinstance(found, ClickableMap) and found.hidden:
                group.start_soon(_session_hints, session, found, timeout)


async def _session_hints(session: CDPSession, found: ClickableMap, timeout: float) -> None:
    wanted = sorted(
        (info.position, backend)
        for backend, info in found.hidden.items()
        if found.get(backend) == backend
    )[:MAX_HINTS]
    names: dict[int, str] = {}
    try:
        async with anyio.create_task_group() as group:
            for _, backend in wanted:
                group.start_soon(_hint, session, backend, names, timeout)
    finally:
        found.names = names
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(timeout),
            contextlib.suppress(CDPError),
        ):
            await session.send(
                "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, timeout=timeout
            )


async def _hint(session: CDPSession, backend: int, names: dict[int, str], timeout: float) -> None:
    try:
        resolved = await session.send(
            "DOM.resolveNode", {"backendNodeId": backend, "objectGroup": _GROUP}, timeout=timeout
        )
        object_id = resolved.get("object", {}).get("objectId")
        if not object_id:
            return
        result = await session.send(
            "Runtime.callFunctionOn",
            {"functionDeclaration": HINT_JS, "objectId": object_id, "returnByValue": True},
            timeout=timeout,
        )
        name = runtime_value(result, "page script failed")
    except (CDPError, JavaScriptError):  # the node is gone, or the page's script threw
        return
    if isinstance(name, str) and name:
        names[backend] = name


def name_icons(tree: list[Node], documents: Mapping[str, _Document], maps: ClickableMaps) -> None:
    """Give the derived names to unnamed clickable lines the walk could not name.

    The walk names them (``FrameAX.clickable``'s ``names``), but a frame
    built ahead of the hints (an out-of-process frame, built as its answer
    arrives) is named here, in place, before numbering.
    """
    by_frame: dict[str, dict[int, str]] = {}
    for frame_id, document in documents.items():
        found = maps.get(document.session)
        if isinstance(found, ClickableMap) and found.names:
            by_frame[frame_id] = found.names
    if not by_frame:
        return
    stack = list(tree)
    while stack:
        node = stack.pop()
        backend = node.backend_node_id
        if not node.name and backend is not None and "clickable" in node.states:
            names = by_frame.get(node.frame_id)
            if names is not None:
                node.name = names.get(backend, "")
        stack.extend(node.children)
