"""Names for icon-only controls: what the page says about an unnamed clickable leaf.

An icon drawn by an image with no alt text (an ``<img>``, a CSS ``content``
or background image, an SVG shape) prints as an unnamed ``img clickable`` or
``generic clickable`` line, and two of them are indistinguishable. For the
clickable elements with no child node (the map's ``hidden`` candidates, see
``kobrowser.snapshot._hidden``) whose line would print without a name
(:func:`~kobrowser.snapshot._hidden.unnamed_candidates`: a form field or a
named image is never asked about) the page is asked what it says about
each: the image's file name, else the element's ``id``, else its
``title``, as ``file:NAME``, ``id:NAME`` or ``title:TEXT``
(docs/snapshot-format.md, "Derived names"). The walk gives that to such an
element when Chrome gives it no name.

The asking is batched: one ``DOM.resolveNode`` per element, then one
in-page call per session for all of its elements (with the release of the
objects in the same batch), every session at once: two round trips per
snapshot that needs any, none otherwise. A map kept between snapshots
(its page did not change) keeps what was asked (``ClickableMap.asked``):
only elements not asked about yet are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol

import msgspec

from kobrowser.snapshot._hidden import ClickableMap, unnamed_candidates

if TYPE_CHECKING:
    from collections.abc import Mapping

    from kobrowser._tab._clickable import ClickableMaps
    from kobrowser.cdp import BatchCall, CDPSession
    from kobrowser.snapshot import AXNode, Node

    class _Document(Protocol):
        session: CDPSession

    class _Frame(Protocol):
        nodes: list[AXNode]


__all__ = ["MAX_HINTS", "add_hints", "hint_calls", "name_icons"]

MAX_HINTS: Final = 64
"""The most elements of one session asked about per snapshot (the first in document order)."""

_GROUP: Final = "kobrowser-hints"

HINT_JS: Final = r"""function (...els) {
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
  const hint = (el) => {
    if (!el || el.nodeType !== 1) return '';
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
  };
  return els.map((el) => { try { return hint(el); } catch (e) { return ''; } });
}"""
"""Called on the first element with every element (itself included) as arguments."""


class _RemoteObject(msgspec.Struct, frozen=True, gc=False):
    objectId: str | None = None


class _Resolved(msgspec.Struct, gc=False):
    object: _RemoteObject = _RemoteObject()


class _Value(msgspec.Struct, frozen=True, gc=False):
    value: Any = None


class _Called(msgspec.Struct, gc=False):
    result: _Value = _Value()
    exceptionDetails: Any = None


_RESOLVED: Final = msgspec.json.Decoder(_Resolved)
_CALLED: Final = msgspec.json.Decoder(_Called)


def _object_id(raw: msgspec.Raw) -> str | None:
    """The remote object id of a ``DOM.resolveNode`` answer (None: none)."""
    return _RESOLVED.decode(raw).object.objectId


def _names(raw: msgspec.Raw) -> list[Any] | None:
    """The names the in-page call returned (None: the call threw)."""
    called = _CALLED.decode(raw)
    value = called.result.value
    return value if called.exceptionDetails is None and isinstance(value, list) else None


def hint_calls(
    maps: ClickableMaps,
    documents: Mapping[str, _Document],
    frames: Mapping[str, _Frame],
) -> dict[CDPSession, tuple[ClickableMap, list[int]]]:
    """Per session, its map and the elements to ask about (none: not listed).

    Elements already asked about for the same map (kept between
    snapshots) are not asked again.
    """
    by_session: dict[CDPSession, list[tuple[str, list[AXNode]]]] = {}
    for frame_id, document in documents.items():
        frame = frames.get(frame_id)
        if frame is not None:
            by_session.setdefault(document.session, []).append((frame_id, frame.nodes))
    out: dict[CDPSession, tuple[ClickableMap, list[int]]] = {}
    for session, found in maps.items():
        if not isinstance(found, ClickableMap) or not found.hidden:
            continue
        found.forget_scans()  # this snapshot's nodes
        nodes: Iterable[tuple[str, list[AXNode]]] = by_session.get(session, [])
        wanted = [b for b in unnamed_candidates(found, nodes) if b not in found.asked]
        if wanted:
            out[session] = (found, wanted[:MAX_HINTS])
    return out


async def add_hints(
    wanted: Mapping[CDPSession, tuple[ClickableMap, list[int]]], *, timeout: float
) -> None:
    """Fill ``names`` of the sessions' :class:`ClickableMap` (see the module).

    Args:
        wanted: per session, its map and the elements to ask about
            (:func:`hint_calls`).
        timeout: deadline of each batch.

    An element gone meanwhile, or a session that fails, just gets no name.

    Cancelling the caller abandons the calls (objects of a batch cut short
    go with their document, or with the next release of the group).
    """
    if not wanted:
        return
    resolve: list[BatchCall] = [
        (session, "DOM.resolveNode", {"backendNodeId": b, "objectGroup": _GROUP}, _object_id)
        for session, (_, backends) in wanted.items()
        for b in backends
    ]
    connection = next(iter(wanted)).connection
    results = iter(await connection.call_many(resolve, timeout=timeout))
    calls: list[BatchCall] = []
    asked: list[tuple[ClickableMap, list[int], int]] = []
    for session, (found, backends) in wanted.items():
        objects = [_ok(next(results)) for _ in backends]
        found.asked.update(backends)
        alive = [(b, o) for b, o in zip(backends, objects, strict=True) if o is not None]
        if alive:
            asked.append((found, [b for b, _ in alive], len(calls)))
            calls.append(
                (
                    session,
                    "Runtime.callFunctionOn",
                    {
                        "functionDeclaration": HINT_JS,
                        "objectId": alive[0][1],
                        "arguments": [{"objectId": o} for _, o in alive],
                        "returnByValue": True,
                    },
                    _names,
                )
            )
        # Let go of the objects once the call is answered (same session: in order).
        calls.append((session, "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, None))
    answers = await connection.call_many(calls, timeout=timeout)
    for found, backends, at in asked:
        names = answers[at]
        if not isinstance(names, list):
            continue
        fresh = dict(found.names)
        for backend, name in zip(backends, names, strict=False):
            if isinstance(name, str) and name:
                fresh[backend] = name
        found.names = fresh


def _ok(result: object) -> str | None:
    """An object id from a batch result (None: the call failed or found no object)."""
    return result if isinstance(result, str) else None


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
