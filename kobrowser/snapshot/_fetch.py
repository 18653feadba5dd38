"""Fetch the AX tree of every frame of a tab, concurrently.

The only module of ``kobrowser.snapshot`` that talks to the browser. For each
frame session (the page and every out-of-process iframe) it asks, at once,
for the frame tree and the AX tree of the session's own document; then for
the AX trees of same-process child frames (``frameId`` on the same session)
and, once per frame, the ``<iframe>`` element that owns each frame
(``DOM.getFrameOwner`` on the parent's session). A frame that fails, detaches
or times out becomes ``None`` (an empty ``iframe`` line); only a failure of
the top document fails the snapshot.
"""

from __future__ import annotations

import contextlib
import itertools
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio
import msgspec

from .._exceptions import InvalidSelectorError, KoBrowserError
from ._ax import AXTree, decode_ax_tree
from ._tree import FrameAX

if TYPE_CHECKING:
    from ..cdp import CDPSession

__all__ = ["FetchedFrames", "FrameDocument", "fetch_frames", "resolve_scope"]


class _Frame(msgspec.Struct, gc=False):
    id: str
    loaderId: str = ""
    url: str = ""
    parentId: str | None = None


class _FrameTreeNode(msgspec.Struct, gc=False):
    frame: _Frame
    childFrames: list[_FrameTreeNode] = []


class _FrameTreeResult(msgspec.Struct, gc=False):
    frameTree: _FrameTreeNode


class _Owner(msgspec.Struct, gc=False):
    backendNodeId: int


class _RemoteObject(msgspec.Struct):
    objectId: str | None = None
    description: str = ""


class _ExceptionDetails(msgspec.Struct):
    text: str = ""
    exception: _RemoteObject | None = None


class _Evaluated(msgspec.Struct):
    result: _RemoteObject
    exceptionDetails: _ExceptionDetails | None = None


class _Property(msgspec.Struct):
    name: str
    value: _RemoteObject | None = None


class _Properties(msgspec.Struct):
    result: list[_Property]


class _DescribedNode(msgspec.Struct):
    backendNodeId: int


class _Described(msgspec.Struct):
    node: _DescribedNode


_FRAME_TREE = msgspec.json.Decoder(_FrameTreeResult)
_OWNER = msgspec.json.Decoder(_Owner)
_EVALUATED = msgspec.json.Decoder(_Evaluated)
_PROPERTIES = msgspec.json.Decoder(_Properties)
_DESCRIBED = msgspec.json.Decoder(_Described)
_SCOPE_GROUPS = itertools.count(1)


_known_children: weakref.WeakKeyDictionary[CDPSession, tuple[str, ...]] = (
    weakref.WeakKeyDictionary()
)
"""Session -> its same-process child frames at its last snapshot (prefetched next time)."""


class FrameDocument(msgspec.Struct):
    """Where a frame's document lives: its session and document (loader) id."""

    frame_id: str
    session: CDPSession
    loader_id: str
    url: str
    parent_id: str | None


class FetchedFrames(msgspec.Struct):
    """The merged input for the tree builder, plus what actions need later."""

    root: FrameAX
    documents: dict[str, FrameDocument]
    url: str


async def fetch_frames(
    page: CDPSession,
    oopifs: Sequence[tuple[str, CDPSession, CDPSession]],
    *,
    timeout: float,
    owner_cache: dict[str, int],
) -> FetchedFrames:
    """Fetch every frame's AX tree concurrently and link child frames to owners.

    Args:
        page: the tab's page session (its main frame is the top document).
        oopifs: ``(frame_id, session, parent_session)`` of each out-of-process frame.
        timeout: deadline of each CDP call, in seconds.
        owner_cache: frame id -> owner ``<iframe>`` backend node id, kept by the
            caller between snapshots (an owner never changes for a frame's life).

    Raises:
        KoBrowserError: the top document could not be read.
    """
    trees: dict[str, AXTree | None] = {}
    documents: dict[str, FrameDocument] = {}
    owners: dict[str, int] = {}
    top: list[str] = []

    async def owner_of(frame_id: str, session: CDPSession) -> None:
        cached = owner_cache.get(frame_id)
        if cached is not None:
            owners[frame_id] = cached
            return
        try:
            owner = await session.send_typed(
                "DOM.getFrameOwner", {"frameId": frame_id}, _OWNER, timeout=timeout
            )
        except KoBrowserError:
            return
        owners[frame_id] = owner_cache[frame_id] = owner.backendNodeId

    async def ax_of(
        frame_id: str | None, session: CDPSession, out: dict[str | None, AXTree | None]
    ) -> None:
        params = {"frameId": frame_id} if frame_id is not None else None
        try:
            raw = await session.send_raw("Accessibility.getFullAXTree", params, timeout=timeout)
            tree = decode_ax_tree(raw)
        except KoBrowserError:
            if session is page and frame_id is None:
                raise
            tree = None
        out[frame_id] = tree

    async def one_session(session: CDPSession, parent: CDPSession | None) -> None:
        # The session's own document is fetched while its frame tree is read,
        # and so are the same-process child frames the last snapshot of this
        # session saw: Chrome answers one session's calls in order, so asking
        # for them only after the frame tree (and the top AX tree) came back
        # would leave the renderer idle for a round trip. A prefetched frame
        # that is no longer in the fresh frame tree is dropped below.
        fetched: dict[str | None, AXTree | None] = {}
        known = _known_children.get(session, ())
        async with anyio.create_task_group() as tg:
            tg.start_soon(ax_of, None, session, fetched)
            for frame_id in known:
                tg.start_soon(ax_of, frame_id, session, fetched)
            try:
                frame_tree = await session.send_typed(
                    "Page.getFrameTree", None, _FRAME_TREE, timeout=timeout
                )
            except KoBrowserError:
                tg.cancel_scope.cancel()
                if parent is None:
                    raise
                return
            root = frame_tree.frameTree
            if parent is None:
                top.append(root.frame.id)
            else:
                tg.start_soon(owner_of, root.frame.id, parent)
            children: list[str] = []
            stack = [root]
            while stack:
                node = stack.pop()
                frame = node.frame
                documents[frame.id] = FrameDocument(
                    frame.id, session, frame.loaderId, frame.url, frame.parentId
                )
                if node is not root:
                    children.append(frame.id)
                    if frame.id not in known:
                        tg.start_soon(ax_of, frame.id, session, fetched)
                    tg.start_soon(owner_of, frame.id, session)
                stack.extend(node.childFrames)
        _known_children[session] = tuple(children)
        trees[root.frame.id] = fetched.get(None)
        for frame_id in children:
            trees[frame_id] = fetched.get(frame_id)

    async with anyio.create_task_group() as tg:
        tg.start_soon(one_session, page, None)
        for _frame_id, session, parent in oopifs:
            tg.start_soon(one_session, session, parent)

    top_id = top[0]
    top_tree = trees.get(top_id)
    if top_tree is None:  # pragma: no cover - a top failure raised above
        raise KoBrowserError("the page's accessibility tree could not be read")
    frames = {
        frame_id: FrameAX(frame_id=frame_id, nodes=tree.nodes, children={})
        for frame_id, tree in trees.items()
        if tree is not None
    }
    for frame_id, document in documents.items():
        parent_frame = frames.get(document.parent_id) if document.parent_id else None
        owner = owners.get(frame_id)
        if parent_frame is not None and owner is not None:
            parent_frame.children[owner] = frames.get(frame_id)
    # Forget owners of frames that are gone.
    for frame_id in [f for f in owner_cache if f not in documents]:
        del owner_cache[frame_id]
    return FetchedFrames(root=frames[top_id], documents=documents, url=documents[top_id].url)


async def resolve_scope(page: CDPSession, selector: str, *, timeout: float) -> set[int]:
    """Backend node ids of the top document's elements matching a CSS selector.

    The query runs as JavaScript and the matches are described by object id:
    ``DOM.getDocument`` would reset the DOM agent's node ids, so concurrent
    scoped snapshots of one tab (or any other user of the DOM domain) would
    invalidate each other's ids.

    Raises:
        InvalidSelectorError: the selector is not valid CSS.
    """
    group = f"kobrowser-scope-{next(_SCOPE_GROUPS)}"
    quoted = msgspec.json.encode(selector).decode()
    evaluated = await page.send_typed(
        "Runtime.evaluate",
        {
            "expression": f"Array.from(document.querySelectorAll({quoted}))",
            "objectGroup": group,
            "silent": True,
        },
        _EVALUATED,
        timeout=timeout,
    )
    try:
        details = evaluated.exceptionDetails
        if details is not None:
            reason = details.exception.description if details.exception else details.text
            raise InvalidSelectorError(f"invalid CSS selector {selector!r}: {reason}")
        array_id = evaluated.result.objectId
        if array_id is None:  # pragma: no cover - an Array is always an object
            return set()
        properties = await page.send_typed(
            "Runtime.getProperties",
            {"objectId": array_id, "ownProperties": True},
            _PROPERTIES,
            timeout=timeout,
        )
        object_ids = [
            prop.value.objectId
            for prop in properties.result
            if prop.name.isdigit() and prop.value is not None and prop.value.objectId
        ]
        found: set[int] = set()

        async def describe(object_id: str) -> None:
            described = await page.send_typed(
                "DOM.describeNode", {"objectId": object_id}, _DESCRIBED, timeout=timeout
            )
            found.add(described.node.backendNodeId)

        async with anyio.create_task_group() as tg:
            for object_id in object_ids:
                tg.start_soon(describe, object_id)
        return found
    finally:
        with anyio.CancelScope(shield=True), contextlib.suppress(KoBrowserError):
            await page.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=timeout)
