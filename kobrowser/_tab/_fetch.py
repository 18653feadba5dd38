"""Fetch the AX tree of every frame of a tab, concurrently.

The snapshot's I/O (``kobrowser.snapshot`` itself is pure). For each
frame session (the page and every out-of-process iframe) it asks, at once,
for the frame tree and the AX tree of the session's own document; then for
the AX trees of same-process child frames (``frameId`` on the same session)
and, once per frame, the ``<iframe>`` element that owns each frame
(``DOM.getFrameOwner`` on the parent's session). A frame that fails, detaches
or times out becomes ``None`` (an empty ``iframe`` line); only a failure of
the top document fails the snapshot. With a :class:`~kobrowser._tab._clickable.ClickableMaps`
each session's clickable map is asked for in the same batch, and every frame
the session serves is built with it. A snapshot's ``selector`` scope is
resolved by :func:`~._scope.resolve_scope` (re-exported here).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol

import msgspec

from kobrowser._exceptions import KoBrowserError, SnapshotTooLargeError
from kobrowser._tab._scope import resolve_scope
from kobrowser.cdp import Keep, KeptDecode
from kobrowser.cdp._calls import unexpected_answer
from kobrowser.snapshot._ax import FLAT_AX_KEEP, AXNode, decode_snapshot_nodes
from kobrowser.snapshot._tree import FrameAX, prebuild_frame

if TYPE_CHECKING:
    from kobrowser._tab._clickable import ClickableMaps
    from kobrowser.cdp import BatchCall, CDPSession, Decode

__all__ = [
    "FetchCache",
    "FetchedFrames",
    "FrameDocument",
    "TopHook",
    "fetch_frames",
    "resolve_scope",
]


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


_FRAME_TREE = msgspec.json.Decoder(_FrameTreeResult)
_OWNER = msgspec.json.Decoder(_Owner)


class FetchCache:
    """What one tab's fetches keep between snapshots.

    Attributes:
        owners: frame id -> owner ``<iframe>`` backend node id (an owner
            never changes for a frame's life).
        children: session -> its same-process child frames at its last
            snapshot (prefetched next time).
        trees: session -> (frame-tree version, frame tree) as last read.
    """

    def __init__(self) -> None:
        self.owners: dict[str, int] = {}
        self.children: weakref.WeakKeyDictionary[CDPSession, tuple[str, ...]] = (
            weakref.WeakKeyDictionary()
        )
        self.trees: weakref.WeakKeyDictionary[CDPSession, tuple[int, _FrameTreeNode]] = (
            weakref.WeakKeyDictionary()
        )


class FrameDocument(msgspec.Struct):
    """Where a frame's document lives: its session and document (loader) id."""

    frame_id: str
    session: CDPSession
    loader_id: str
    url: str
    parent_id: str | None


class FetchedFrames(msgspec.Struct):
    """The merged input for the tree builder, plus what actions need later.

    ``frames``: every frame read, by frame id (``root`` among them).
    ``root_raw``: the top document's AX answer when read by this fetch, kept
    as JSON until :meth:`decode_root` (``root.nodes`` is empty until then).
    Decoding it only where the tree is built lets the caller decode, build
    and let go of its tens of thousands of nodes in one collector pause.
    """

    root: FrameAX
    documents: dict[str, FrameDocument]
    url: str
    frames: dict[str, FrameAX] = {}
    root_raw: msgspec.Raw | None = None

    def adopt_root(self, nodes: list[AXNode]) -> None:
        """Take ``nodes``, decoded already from :attr:`root_raw`, as the top document's."""
        self.root.nodes = nodes
        self.root_raw = None

    def decode_root(self) -> None:
        """Decode the top document's nodes into ``root.nodes`` (once; no-op after).

        Raises:
            KoBrowserError: The answer is not an AX tree (as a call whose
                decoder refused its answer).
        """
        raw, self.root_raw = self.root_raw, None
        if raw is None:
            return
        try:
            self.root.nodes = decode_snapshot_nodes(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise unexpected_answer(_AX, exc) from None


_AX = "Accessibility.getFullAXTree"
_FLAT_AX: Final = Keep(FLAT_AX_KEEP)
"""What the snapshot reads of an AX tree (flat where the transport projects answers)."""


def _frame_tree(raw: msgspec.Raw) -> _FrameTreeNode:
    return _FRAME_TREE.decode(raw).frameTree


def _owner(raw: msgspec.Raw) -> int:
    return _OWNER.decode(raw).backendNodeId


def _undecoded(raw: msgspec.Raw) -> msgspec.Raw:
    return raw  # kept as JSON (see FetchedFrames.root_raw)


def _ax_frame(
    frame_id: str, session: CDPSession, clickable: ClickableMaps | None, raw: msgspec.Raw
) -> FrameAX:
    found = clickable.get(session) if clickable is not None else None
    return prebuild_frame(frame_id, decode_snapshot_nodes(raw), found)


def _child_ax(session: CDPSession, frame_id: str, clickable: ClickableMaps | None) -> BatchCall:
    """The AX tree call of a same-process child frame (built as it arrives)."""
    decode = _FLAT_AX.decoder(functools.partial(_ax_frame, frame_id, session, clickable))
    return (session, _AX, {"frameId": frame_id}, decode)


_FLAT_AX_LATER = _FLAT_AX.decoder(_undecoded)


class TopHook(Protocol):
    """Told about the top document while the fetch's batch is still out.

    Both are called from the connection's reader: they must be fast.
    """

    def document(self, frame_id: str, loader_id: str, url: str) -> None:
        """The top document, as its session's frame tree shows it."""
        ...

    def arrived(self, raw: msgspec.Raw) -> msgspec.Raw:
        """Its AX answer (the JSON kept in :attr:`FetchedFrames.root_raw`); returns it."""
        ...


def _tell_frame(hook: TopHook, tree: _FrameTreeNode) -> None:
    frame = tree.frame
    hook.document(frame.id, frame.loaderId, frame.url)


def _told_tree(hook: TopHook) -> Callable[[msgspec.Raw], _FrameTreeNode]:
    """The top session's frame tree decoder, telling ``hook`` the top document."""

    def told(raw: msgspec.Raw) -> _FrameTreeNode:
        tree = _frame_tree(raw)
        _tell_frame(hook, tree)
        return tree

    return told


class AXBudget:
    """The bytes of AX data one snapshot may read (None: no limit).

    Each AX tree's answer is counted before it is decoded (as the JSON the
    decoder gets: on the CBOR pipe a flat answer, see
    :data:`~kobrowser.snapshot._ax.FLAT_AX_KEEP`); past the limit
    the rest are not decoded and the snapshot fails with
    :class:`~kobrowser.SnapshotTooLargeError` naming the limit.
    """

    __slots__ = ("limit", "used")

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.used = 0

    def wrap(self, requests: list[BatchCall]) -> list[BatchCall]:
        """``requests`` with the decoders of their AX tree calls counting bytes."""
        if self.limit is None:
            return requests
        return [
            (session, method, params, self._counted(decode) if method == _AX else decode)
            for session, method, params, decode in requests
        ]

    def _counted(self, decode: Decode | None) -> Decode:
        counted = self._count(decode)
        # Still answered flat (the count is of the JSON decoded).
        return decode.keep.decoder(counted) if type(decode) is KeptDecode else counted

    def _count(self, decode: Decode | None) -> Decode:
        def counted(raw: msgspec.Raw) -> Any:
            assert self.limit is not None
            self.used += len(raw)
            if self.used > self.limit:
                raise SnapshotTooLargeError(
                    f"the page's accessibility data is over the snapshot limit of "
                    f"{self.limit:,} bytes ({self.used:,} bytes when reading stopped); "
                    "raise Browser.snapshot_limit to snapshot it",
                    limit=self.limit,
                    size=self.used,
                )
            return raw if decode is None else decode(raw)

        return counted

    @staticmethod
    def checked(results: list[Any]) -> list[Any]:
        """``results``, unless one of them went over the limit (raised)."""
        for result in results:
            if isinstance(result, SnapshotTooLargeError):
                raise result
        return results


async def fetch_frames(
    page: CDPSession,
    oopifs: Sequence[tuple[str, CDPSession, CDPSession]],
    *,
    timeout: float,
    cache: FetchCache,
    frame_tree_version: Callable[[CDPSession], int | None] | None = None,
    clickable: ClickableMaps | None = None,
    limit: int | None = None,
    top_nodes: list[AXNode] | None = None,
    frame_nodes: Mapping[CDPSession, list[AXNode]] | None = None,
    child_nodes: Mapping[str, list[AXNode]] | None = None,
    top_hook: TopHook | None = None,
) -> FetchedFrames:
    """Fetch every frame's AX tree concurrently and link child frames to owners.

    All calls go out as one batch (:meth:`~kobrowser.cdp.Connection.call_many`):
    per session its frame tree, the AX tree of its own document and those of
    the same-process child frames its last snapshot saw, each decoded as it
    arrives (Chrome answers one session's calls in order, so asking for them
    only after the frame tree came back would leave the renderer idle for a
    round trip). Frames the
    frame trees show that were not asked for yet (new frames, the first
    snapshot) and owners not in the cache follow in a second batch; a
    prefetched frame no longer in its session's frame tree is dropped.

    Args:
        page: the tab's page session (its main frame is the top document).
        oopifs: ``(frame_id, session, parent_session)`` of each out-of-process frame.
        timeout: deadline of each batch of CDP calls, in seconds.
        cache: what the tab keeps between its snapshots (owners, frame trees,
            same-process children).
        frame_tree_version: a session's count of frame-tree events (frame
            attached, detached, navigated...), or None when they are not
            followed. A session's frame tree is asked for only when the
            count moved since it was last read; one reused from the cache
            is checked again once the AX trees are in, and if the count
            moved meanwhile the whole fetch runs again without the cache.
        clickable: when given, each session's clickable map is asked for in
            the first batch (before its frames' AX calls, after the top
            document's, which is built last) and every frame is built
            with its session's map; ``None``: no element is marked
            ``clickable``.
        top_nodes: the top document's AX nodes, already known (from the
            tab's AX mirror): its ``getFullAXTree`` is not asked for.
        frame_nodes: out-of-process frame session -> its own document's AX
            nodes, already known (from that frame's AX mirror): likewise not
            asked for.
        child_nodes: same-process child frame id -> its document's AX
            nodes, already known (from that frame's AX mirror): its
            ``getFullAXTree({frameId})`` is not asked for (used only while
            the frame is in its session's frame tree).
        top_hook: told the top document as soon as it is known and its AX
            answer as soon as it arrives, while the rest of the batch is
            still out (kobrowser/_tab/_ahead.py).

    Raises:
        KoBrowserError: the top document could not be read.
    """
    budget = AXBudget(limit)
    known: Mapping[CDPSession, list[AXNode]] = dict(frame_nodes or {})
    if top_nodes is not None:
        known = {**known, page: top_nodes}
    children = dict(child_nodes or {})
    fetched = await _fetch(
        page,
        oopifs,
        timeout,
        cache,
        frame_tree_version,
        clickable,
        budget,
        known,
        children,
        top_hook,
    )
    if fetched is None:
        # A frame tree reused from the cache changed while the AX trees were
        # read: read everything again, asking for every frame tree this time.
        fetched = await _fetch(
            page, oopifs, timeout, cache, None, clickable, budget, known, children, top_hook
        )
    assert fetched is not None
    return fetched


async def _fetch(
    page: CDPSession,
    oopifs: Sequence[tuple[str, CDPSession, CDPSession]],
    timeout: float,
    cache: FetchCache,
    frame_tree_version: Callable[[CDPSession], int | None] | None,
    clickable: ClickableMaps | None,
    budget: AXBudget,
    known: Mapping[CDPSession, list[AXNode]],
    child_nodes: Mapping[str, list[AXNode]],
    top_hook: TopHook | None,
) -> FetchedFrames | None:
    owner_cache = cache.owners
    # (session, parent session, the frame id of its document if known)
    sessions: list[tuple[CDPSession, CDPSession | None, str | None]] = [(page, None, None)]
    sessions += [(session, parent, frame_id) for frame_id, session, parent in oopifs]
    requests: list[BatchCall] = []
    slots: list[tuple[int, dict[str | None, int]]] = []
    map_calls: list[tuple[CDPSession, int]] = []
    versions: list[int | None] = []
    reused: dict[CDPSession, _FrameTreeNode] = {}
    for session, _parent, own_id in sessions:
        version = frame_tree_version(session) if frame_tree_version is not None else None
        versions.append(version)
        cached = cache.trees.get(session)
        hook = top_hook if own_id is None else None
        if version is not None and cached is not None and cached[0] == version:
            reused[session] = cached[1]
            tree_index = -1
            if hook is not None:
                _tell_frame(hook, cached[1])
        else:
            tree_index = len(requests)
            tree_decode = _frame_tree if hook is None else _told_tree(hook)
            requests.append((session, "Page.getFrameTree", None, tree_decode))
        asked: dict[str | None, int] = {None: -1}  # -1: a mirror's nodes (see below)
        # The top document is built with everything, once all is in: its AX
        # tree is asked for before its session's clickable map, so the
        # renderer captures the map while this process reads the tree. A
        # child frame's content is built as soon as it arrives
        # (prebuild_frame): its AX call comes after the map.
        if own_id is None and session not in known:
            asked[None] = len(requests)
            top_decode = _FLAT_AX_LATER if hook is None else _FLAT_AX.decoder(hook.arrived)
            requests.append((session, _AX, None, top_decode))
        if clickable is not None and not clickable.has(session):
            calls = clickable.calls(session)
            map_calls.append((session, len(requests) + len(calls) - 1))
            requests.extend(calls)
        if own_id is not None and session not in known:
            own_decode = _FLAT_AX.decoder(functools.partial(_ax_frame, own_id, session, clickable))
            asked[None] = len(requests)
            requests.append((session, _AX, None, own_decode))
        for frame_id in cache.children.get(session, ()):
            if frame_id in child_nodes:
                continue  # a mirror's nodes (see below)
            asked[frame_id] = len(requests)
            requests.append(_child_ax(session, frame_id, clickable))
        slots.append((tree_index, asked))
    results = budget.checked(
        await page.connection.call_many(budget.wrap(requests), timeout=timeout)
    )
    if clickable is not None:
        for session, map_index in map_calls:
            if isinstance(results[map_index], KoBrowserError):
                clickable.failed(session)
        await clickable.complete(page.connection, timeout=timeout)  # maps found changed
    # A session's frame tree is current only if no frame-tree event came
    # while the batch ran; a reused one that is not makes the caller retry.
    steady = [
        version is not None
        and frame_tree_version is not None
        and frame_tree_version(session) == version
        for (session, _parent, _own_id), version in zip(sessions, versions, strict=True)
    ]
    if any(s in reused and not ok for (s, _, _), ok in zip(sessions, steady, strict=True)):
        return None

    trees: dict[str, FrameAX | KoBrowserError] = {}
    documents: dict[str, FrameDocument] = {}
    owners: dict[str, int] = {}
    later: list[BatchCall] = []
    later_frames: list[tuple[str, bool]] = []  # (frame id, is an owner request)
    top_id = ""
    top_raw: msgspec.Raw | None = None

    def need_owner(frame_id: str, session: CDPSession) -> None:
        cached = owner_cache.get(frame_id)
        if cached is not None:
            owners[frame_id] = cached
        else:
            later.append((session, "DOM.getFrameOwner", {"frameId": frame_id}, _owner))
            later_frames.append((frame_id, True))

    for (session, parent, _own_id), (tree_index, asked), version, ok in zip(
        sessions, slots, versions, steady, strict=True
    ):
        root = reused.get(session) or results[tree_index]
        if isinstance(root, KoBrowserError) or not ok:
            cache.trees.pop(session, None)
        else:
            assert version is not None
            cache.trees[session] = (version, root)
        if isinstance(root, KoBrowserError):
            if parent is None:
                raise root
            continue
        own: Any = results[asked[None]] if asked[None] >= 0 else known[session]
        if parent is not None and asked[None] < 0:
            # A mirrored frame document, built now (its clickable map is in).
            found = clickable.get(session) if clickable is not None else None
            own = prebuild_frame(root.frame.id, own, found)
        if parent is None:
            if isinstance(own, KoBrowserError):
                raise own
            top_id = root.frame.id
            if isinstance(own, msgspec.Raw):
                top_raw, own = own, []
            own = FrameAX(frame_id=top_id, nodes=own)
        else:
            need_owner(root.frame.id, parent)
            if not isinstance(own, KoBrowserError) and own.frame_id != root.frame.id:
                own = FrameAX(frame_id=root.frame.id, nodes=own.nodes)  # not the id expected
        trees[root.frame.id] = own
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
                index = asked.get(frame.id)
                mirrored = child_nodes.get(frame.id)
                if mirrored is not None:
                    found = clickable.get(session) if clickable is not None else None
                    trees[frame.id] = prebuild_frame(frame.id, mirrored, found)
                elif index is not None:
                    trees[frame.id] = results[index]
                else:
                    later.append(_child_ax(session, frame.id, clickable))
                    later_frames.append((frame.id, False))
                need_owner(frame.id, session)
            stack.extend(node.childFrames)
        cache.children[session] = tuple(children)

    if later:
        for (frame_id, is_owner), result in zip(
            later_frames,
            budget.checked(await page.connection.call_many(budget.wrap(later), timeout=timeout)),
            strict=True,
        ):
            if not is_owner:
                trees[frame_id] = result
            elif not isinstance(result, KoBrowserError):
                owners[frame_id] = owner_cache[frame_id] = result

    frames = {
        frame_id: tree for frame_id, tree in trees.items() if not isinstance(tree, KoBrowserError)
    }
    if clickable is not None:
        _attach_maps(frames, documents, clickable)
    for frame_id, document in documents.items():
        parent_frame = frames.get(document.parent_id) if document.parent_id else None
        owner = owners.get(frame_id)
        if parent_frame is not None and owner is not None:
            parent_frame.children[owner] = frames.get(frame_id)
    # Forget owners of frames that are gone.
    for frame_id in [f for f in owner_cache if f not in documents]:
        del owner_cache[frame_id]
    return FetchedFrames(
        root=frames[top_id],
        documents=documents,
        url=documents[top_id].url,
        frames=frames,
        root_raw=top_raw,
    )


def _attach_maps(
    frames: dict[str, FrameAX], documents: dict[str, FrameDocument], clickable: ClickableMaps
) -> None:
    """Give every frame its session's clickable map.

    A frame built ahead without it (its AX tree arrived first, or the top
    document, which is built only now) gets it, and a content built ahead
    without it is dropped (the walk builds it again).
    """
    for frame_id, frame in frames.items():
        document = documents.get(frame_id)
        found = clickable.get(document.session) if document is not None else None
        if found and frame.clickable is not found:
            frame.clickable = found
            frame.built = None
