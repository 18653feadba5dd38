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

from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio
import msgspec

from .._exceptions import InvalidSelectorError, KoBrowserError, ProtocolError
from ._ax import AX_TREE_DECODER, AXTree
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


class _Document(msgspec.Struct):
    nodeId: int


class _GetDocument(msgspec.Struct):
    root: _Document


class _QueryAll(msgspec.Struct):
    nodeIds: list[int]


class _DescribedNode(msgspec.Struct):
    backendNodeId: int


class _Described(msgspec.Struct):
    node: _DescribedNode


_FRAME_TREE = msgspec.json.Decoder(_FrameTreeResult)
_OWNER = msgspec.json.Decoder(_Owner)
_GET_DOCUMENT = msgspec.json.Decoder(_GetDocument)
_QUERY_ALL = msgspec.json.Decoder(_QueryAll)
_DESCRIBED = msgspec.json.Decoder(_Described)


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
            tree = await session.send_typed(
                "Accessibility.getFullAXTree", params, AX_TREE_DECODER, timeout=timeout
            )
        except KoBrowserError:
            if session is page and frame_id is None:
                raise
            tree = None
        out[frame_id] = tree

    async def one_session(session: CDPSession, parent: CDPSession | None) -> None:
        # The session's own document is fetched while its frame tree is read.
        fetched: dict[str | None, AXTree | None] = {}
        async with anyio.create_task_group() as tg:
            tg.start_soon(ax_of, None, session, fetched)
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
            stack = [root]
            while stack:
                node = stack.pop()
                frame = node.frame
                documents[frame.id] = FrameDocument(
                    frame.id, session, frame.loaderId, frame.url, frame.parentId
                )
                if node is not root:
                    tg.start_soon(ax_of, frame.id, session, fetched)
                    tg.start_soon(owner_of, frame.id, session)
                stack.extend(node.childFrames)
        for frame_id, tree in fetched.items():
            trees[frame_id if frame_id is not None else root.frame.id] = tree

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

    Raises:
        InvalidSelectorError: the selector is not valid CSS.
    """
    document = await page.send_typed(
        "DOM.getDocument", {"depth": 0}, _GET_DOCUMENT, timeout=timeout
    )
    try:
        matches = await page.send_typed(
            "DOM.querySelectorAll",
            {"nodeId": document.root.nodeId, "selector": selector},
            _QUERY_ALL,
            timeout=timeout,
        )
    except ProtocolError as exc:
        raise InvalidSelectorError(f"invalid CSS selector {selector!r}: {exc.message}") from None
    found: set[int] = set()

    async def describe(node_id: int) -> None:
        try:
            described = await page.send_typed(
                "DOM.describeNode", {"nodeId": node_id}, _DESCRIBED, timeout=timeout
            )
        except KoBrowserError:
            return
        found.add(described.node.backendNodeId)

    async with anyio.create_task_group() as tg:
        for node_id in matches.nodeIds:
            tg.start_soon(describe, node_id)
    return found
