"""The AX nodes of one document as Chrome last reported them (pure logic).

A :class:`MirrorStore` holds ``nodeId -> AXNode`` for the nodes the client
asked Chrome for (``getRootAXNode`` / ``getChildAXNodes``): only those are
followed by ``Accessibility.nodesUpdated``. Every event and every answer
carries whole nodes, so applying one is an overwrite; a node's new
``childIds`` may name nodes not known yet, which :meth:`MirrorStore.collect`
reports as parents to ask for again.

Nothing here talks to the browser; :mod:`._mirror` feeds it in the order the
messages arrived.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import msgspec

from kobrowser._tab._axmirror._follow import held_children, reads_children, walk, walk_once
from kobrowser.snapshot._ax import AXNode, gc_paused

__all__ = [
    "SUSPECT_ROLES",
    "WALK_EVERY",
    "MirrorStore",
    "UpdateVerdict",
    "decode_nodes",
    "decode_nodes_unpaused",
]

WALK_EVERY: Final = 32
""":meth:`MirrorStore.current` walks the whole tree at least every this many calls."""

SUSPECT_ROLES: Final = frozenset(
    {"combobox", "listbox", "option", "MenuListPopup", "MenuListOption"}
)
"""Roles whose updates are not trusted: Chrome was seen to leave a scripted
``<select>`` change out of its events, so the subtree is asked for again."""


class _Nodes(msgspec.Struct, gc=False):
    nodes: list[AXNode]


_NODES: Final = msgspec.json.Decoder(_Nodes)


def decode_nodes(raw: bytes | bytearray | memoryview | str) -> list[AXNode]:
    """The ``nodes`` of a ``getChildAXNodes`` answer or a ``nodesUpdated`` event."""
    with gc_paused():
        return _NODES.decode(raw).nodes


def decode_nodes_unpaused(raw: bytes | bytearray | memoryview | str) -> list[AXNode]:
    """:func:`decode_nodes` for a caller that paused the collector around many."""
    return _NODES.decode(raw).nodes


class UpdateVerdict(msgspec.Struct):
    """What one or more applied ``nodesUpdated`` events mean for trust.

    Attributes:
        nodes: how many nodes the events carried.
        suspects: ids of updated nodes with a role of :data:`SUSPECT_ROLES`.
        parents: ids of updated nodes that have children. Chrome reports a
            node whose subtree changed but not always the ignored nodes
            between it and its new content (a ``<details>`` opened), so the
            children of an updated node are read again.
    """

    nodes: int = 0
    suspects: list[str] = msgspec.field(default_factory=list)
    parents: list[str] = msgspec.field(default_factory=list)


class MirrorStore:
    """One document's AX nodes, kept current by whole-node overwrites.

    Attributes:
        root_id: the document root's AX node id.
        nodes: node id -> node (may hold unreachable nodes until
            :meth:`collect` drops them).
        flipped: ids of nodes that came back ignored where they were not
            (or the other way round) or with another role. Chrome does not
            report the descendants such a change hides or shows (an
            ``aria-hidden`` toggled), so their subtrees must be read again;
            the owner empties the list.
        touched: ids stored or cut below since :meth:`lacking` or
            :meth:`collect` last looked (only they can lack children).
        parents: child id -> id of the held node that lists it (the last
            one stored that does) among the children the walk reads
            (:func:`reads_children`), kept so that :meth:`prune` can tell a
            new node hangs from the root without walking the tree.
        serial: how many times :meth:`take_dirty` was called.
        by_backend: DOM backend node id -> id of the held node that has it
            (the last stored; may also name nodes dropped since).
        shared_backend: two held nodes had the same backend id at some
            point (:attr:`by_backend` may then miss one: not to be used).
        version: counts the changes to :attr:`nodes` and :attr:`parents`
            (a reader holding them can tell they are as it saw them).
        twice: the last whole walk met a node listed by two held nodes (or
            a cycle); :meth:`current` walks every time until it does not.
    """

    __slots__ = (
        "_after_twice",
        "_changed",
        "_fresh",
        "_since_walk",
        "_walk_due",
        "by_backend",
        "flipped",
        "nodes",
        "parents",
        "root_id",
        "serial",
        "shared_backend",
        "touched",
        "twice",
        "version",
    )

    def __init__(self, root: AXNode) -> None:
        self.root_id = root.nodeId
        self.nodes: dict[str, AXNode] = {root.nodeId: root}
        self.flipped: list[str] = []
        self.touched: set[str] = {root.nodeId}
        self.parents: dict[str, str] = {child: root.nodeId for child in held_children(root)}
        self._fresh: list[str] = []  # new node ids since the last prune
        self._walk_due = False
        self._since_walk = 0
        # Ids stored, or whose children were cut, since take_dirty last
        # looked; None before its first look (everything is new).
        self._changed: set[str] | None = None
        self.serial = 0
        self.twice = False
        self._after_twice = False
        self.version = 0
        self.by_backend: dict[int, str] = {}
        self.shared_backend = False
        if root.backendDOMNodeId is not None:
            self.by_backend[root.backendDOMNodeId] = root.nodeId

    def _claim(self, node: AXNode) -> None:
        parents = self.parents
        children = node.childIds
        if not children or not reads_children(node):
            return
        node_id = node.nodeId
        store = self.nodes
        for child in children:
            other = parents.get(child)
            if other is not None and other != node_id and other in store:
                self._walk_due = True  # listed twice (a move under way): walk to be sure
            parents[child] = node_id
        if self.root_id in children or len(set(children)) < len(children):
            # Malformed: the root listed (a cycle) or a child listed twice by
            # its parent; the whole walk tells the tree is not proper.
            self._walk_due = True

    def _cut(self, children: list[str], parent: str, *, listed: bool) -> None:
        """Drop ``children`` of ``parent`` and their subtrees.

        ``listed``: ``parent`` still lists them (their parent entries stay).
        """
        store, parents = self.nodes, self.parents
        self.version += 1
        if self._changed is not None and parent:
            self._changed.add(parent)
        stack = [(child, parent, listed) for child in children]
        while stack:
            child, above, keep = stack.pop()
            if not keep and parents.get(child) == above:
                del parents[child]
            gone = store.pop(child, None)
            if gone is not None:
                # Only the children held under it (one a text piece lists
                # may be held under another parent that the walk reads).
                stack.extend((grandchild, child, False) for grandchild in held_children(gone))

    def _store(self, node: AXNode) -> None:
        node_id = node.nodeId
        store = self.nodes
        old = store.get(node_id)
        store[node_id] = node
        self.version += 1
        self.touched.add(node_id)
        backend = node.backendDOMNodeId
        if backend is not None:
            other = self.by_backend.get(backend)
            if other is not None and other != node_id and other in store:
                self.shared_backend = True
            self.by_backend[backend] = node_id
        if self._changed is not None and old != node:
            self._changed.add(node_id)
        if old is None:
            self._fresh.append(node_id)
            self._claim(node)
            return
        flipped = old.ignored != node.ignored or old.role != node.role
        if flipped:
            self.flipped.append(node_id)
        if not flipped and old.childIds == node.childIds:
            return
        was, now = held_children(old), held_children(node)
        if was != now and (was or now):
            self._claim(node)
            # A child no longer listed goes with its subtree: if it shows up
            # under another parent, it is read again there, never reused
            # (Chrome does not report the descendants of a moved node). So
            # do all the children of a node that became a shown text piece
            # or a list marker (the walk no longer reads them); one that
            # stopped being one lacks its children, read as any others.
            kept = set(now)
            self._cut([c for c in was if c not in kept], node_id, listed=False)

    def discard(self, node_ids: Iterable[str]) -> None:
        """Drop nodes Chrome no longer has, with their subtrees (their parents will lack them)."""
        for node_id in node_ids:
            if node_id != self.root_id and node_id in self.nodes:
                parent = self.parents.get(node_id)
                if parent is not None:
                    self.touched.add(parent)
                else:
                    self._walk_due = True
                self._cut([node_id], parent or "", listed=True)

    def prune(self) -> None:
        """Drop the nodes stored since the last prune that do not hang from the root.

        A node read or reported whose parent is not held, or no longer lists
        it, is not part of the tree (an answer for a parent removed since, an
        event about a node nobody lists): it goes with its subtree, and is
        read again if it shows up later. Each new node's chain of parents is
        followed up to the root (or a node found attached in this prune).
        """
        fresh = self._fresh
        if not fresh:
            return
        self._fresh = []
        store, parents = self.nodes, self.parents
        attached = {self.root_id}
        limit = len(store)
        for node_id in fresh:
            if node_id in attached or node_id not in store:
                continue
            chain = [node_id]
            above = parents.get(node_id)
            while above is not None and above not in attached and above in store:
                chain.append(above)
                if len(chain) > limit:  # a cycle
                    above = None
                    break
                above = parents.get(above)
            if above is not None and above in attached:
                attached.update(chain)
            else:
                top = chain[-1]
                self._cut([top], parents.get(top, ""), listed=False)

    def current(self) -> tuple[list[AXNode], list[str]]:
        """What :meth:`collect` answers, without walking the tree when it can.

        Every held node hangs from the root once :meth:`prune` ran (the
        owner prunes after applying messages), and only touched nodes can
        lack a child (:meth:`lacking`); so the nodes are the held ones, root
        first (it is the dictionary's first key). The whole walk still runs
        when a node was listed by two parents, a discarded node's parent was
        not known, the root is not first, or every :data:`WALK_EVERY` calls.
        """
        self.prune()
        self._since_walk += 1
        store = self.nodes
        if (
            self._walk_due
            or self.twice
            or self._since_walk >= WALK_EVERY
            or not store
            or next(iter(store)) != self.root_id
        ):
            return self.collect()
        lacking = self.lacking()
        if lacking:
            return [], lacking
        with gc_paused():
            return list(store.values()), []

    def take_dirty(self) -> tuple[int, set[str] | None]:
        """The nodes whose printed subtree may differ since the previous call.

        Every node stored with other content, or whose children were cut,
        since the previous call, with all its ancestors (through
        :attr:`parents`). The first call answers None (everything is new),
        and so does a call while :attr:`twice` holds (the tree is not a
        proper tree: a subtree cannot be told apart from the rest) or held
        at the previous call (a build of that tree put the node listed
        twice under one of its parents only).

        Returns:
            ``(serial, dirty)``: :attr:`serial` before this call (a
            consumer built from the previous answer holds that serial), and
            the ids, or None for "anything may have changed".
        """
        serial = self.serial
        self.serial += 1
        changed, self._changed = self._changed, set()
        # After a tree with a node listed twice, too: what was built from it
        # put that node under one of its parents only.
        after_twice, self._after_twice = self._after_twice, self.twice
        if changed is None or self.twice or after_twice:
            return serial, None
        dirty: set[str] = set()
        parents, root_id = self.parents, self.root_id
        for node_id in changed:
            while node_id not in dirty:
                dirty.add(node_id)
                if node_id == root_id:
                    break
                above = parents.get(node_id)
                if above is None:
                    break
                node_id = above
        return serial, dirty

    def lacking(self) -> list[str]:
        """Touched nodes that list a child not held (cheaper than :meth:`collect`).

        Only a node stored or cut below since the last look can lack a
        child, so only those are looked at; the look empties
        :attr:`touched`. A node not reachable any more may be named too.
        """
        store = self.nodes
        out: list[str] = []
        for node_id in self.touched:
            node = store.get(node_id)
            if node is not None and reads_children(node):
                for child_id in node.childIds:
                    if child_id not in store:
                        out.append(node_id)
                        break
        self.touched.clear()
        return out

    def __len__(self) -> int:
        return len(self.nodes)

    def put(self, nodes: Iterable[AXNode]) -> None:
        """Store fetched nodes (each replaces any older copy of itself)."""
        keep = self._store
        for node in nodes:
            keep(node)

    def update(self, nodes: list[AXNode], verdict: UpdateVerdict) -> None:
        """Apply one ``nodesUpdated`` event and note what it means in ``verdict``."""
        keep = self._store
        held = self.nodes
        suspects = SUSPECT_ROLES
        count = 0
        for node in nodes:
            if node.nodeId not in held:
                # Not asked for by this mirror (another document of the
                # session, or a node dropped since: read again if needed).
                continue
            count += 1
            keep(node)
            if node.childIds and reads_children(node):
                verdict.parents.append(node.nodeId)
            role = node.role
            if role is not None and role.value in suspects:
                verdict.suspects.append(node.nodeId)
        verdict.nodes += count

    def forget_below(self, node_id: str) -> bool:
        """Drop every descendant of ``node_id`` so the next fetch reads them fresh.

        Returns False when the node is not held (nothing was dropped).
        """
        store = self.nodes
        node = store.get(node_id)
        if node is None:
            return False
        self.touched.add(node_id)
        self._cut(list(held_children(node)), node_id, listed=True)
        return True

    def parent_of(self, node_id: str) -> str | None:
        """The id of a held node listing ``node_id`` as a child (a full scan)."""
        for parent_id, node in self.nodes.items():
            if node_id in held_children(node):
                return parent_id
        return None

    def collect(self) -> tuple[list[AXNode], list[str]]:
        """The nodes reachable from the root, and the parents of unknown children.

        Returns:
            ``(nodes, parents)``: the reachable nodes, root first (what
            :class:`~kobrowser.snapshot.FrameAX` takes), and the ids of
            reachable nodes that list a child not held (ask Chrome for their
            children). Unreachable nodes are dropped from the store, so a
            node that comes back later is read again, never reused.
        """
        store = self.nodes
        root = store.get(self.root_id)
        if root is None:  # pragma: no cover - the root is never dropped
            return [], []
        with gc_paused():
            walked = walk(root, store, len(store))
            kept: dict[str, AXNode] | None = None
            if walked is not None and len(walked[0]) < len(store):
                kept = {node.nodeId: node for node in walked[0]}
                if len(kept) < len(walked[0]):
                    # A node met twice, below the count only because held
                    # nodes went unreached (every held node is reached when
                    # the store is kept as it should be; this makes sure).
                    walked = kept = None
            self.twice = walked is None
            if walked is None:  # a node listed twice (or a cycle): walk with a seen set
                walked = walk_once(root, store)
            out, parents = walked
            if len(out) < len(store):
                self.version += 1
                self.nodes = {node.nodeId: node for node in out} if kept is None else kept
                self.parents = {c: node.nodeId for node in out for c in held_children(node)}
            if parents:
                # The children about to be read belong to these parents (an
                # entry may have gone with another parent that listed the
                # same child): without it prune() drops them as unattached.
                claim, store = self.parents, self.nodes
                self.version += 1
                for parent in parents:
                    for child in store[parent].childIds:
                        if child not in store:
                            claim[child] = parent
        self.touched.clear()
        self._fresh = []
        # Children it could not see (to be read) could be listed twice: the
        # next answer walks again once they are held.
        self._walk_due = bool(parents)
        self._since_walk = 0
        return out, parents
