"""A live mirror of one document's accessibility tree, kept by Chrome's events.

How it stays exact (measured on Chromium 156):

* Chrome reports changes (``Accessibility.nodesUpdated``, whole nodes) only
  for nodes the client asked for with ``getRootAXNode``/``getChildAXNodes``,
  so the mirror is built by a crawl of ``getChildAXNodes`` calls, in the
  background, in batches (a caller's own CDP call waits behind one batch at
  most). ``Accessibility.loadComplete`` forgets every asked-for node: the
  mirror is dropped and built again.
* Both calls bring the renderer's accessibility tree up to date first and
  send the pending ``nodesUpdated`` before their answer, so a
  ``getRootAXNode`` is a barrier: once it is answered, every change made
  before it was sent has arrived.
* Events and answers are applied strictly in the order they arrived (the
  answers are queued by their decoder, which runs as each one arrives):
  an older copy of a node never overwrites a newer one.
* Chrome's source throttles ``nodesUpdated`` to one send per 250 ms per
  document (``kNodeSyncThrottlePeriod``), but as built it holds events back
  only in the first 250 ms after a document's first send (the stored send
  time is never moved on: ``HashMap::at`` returns a copy). The mirror is not
  used within that window; tests/tab/axmirror/test_live.py fails if a Chrome
  starts holding events back later (a change right after another must show).
* Chrome does not report every node a change touches: the ignored layer
  under a changed node (a ``<details>`` opened) and the descendants whose
  ignored state an ``aria-hidden`` toggles go unreported. So the children
  of every updated node are read again, and a node that comes back with
  another ``ignored`` flag or role has its whole subtree read again.

A snapshot that comes while the crawl runs waits for the crawl to end (and
is served by the mirror) when what is left of it is estimated to cost at
most ``AXMirrorSettings.join_crawl`` full fetches; the crawl then sends all
the calls it knows of at once instead of a batch at a time. Snapshots that
kept coming back to back used to fetch in full forever, each one leaving
the crawl a batch or two.

Whenever it cannot be sure, it answers None and the caller fetches the whole
tree: not built yet, a new document, a child it cannot read, updates touching
more than a set share of the nodes; ``<select>``-like subtrees are read
again whole after any update to them. A verify mode compares each answer
with a full fetch; a periodic check does the same every N answers and drops
the mirror on a difference.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Final

import anyio
import msgspec

from kobrowser._exceptions import KoBrowserError, ProtocolError
from kobrowser._tab._axmirror._follow import crawl_parents, reads_children
from kobrowser._tab._axmirror._settings import AXMirrorSettings
from kobrowser._tab._axmirror._store import MirrorStore, UpdateVerdict, decode_nodes_unpaused
from kobrowser.snapshot._ax import AXNode, FlatAXNode, decode_ax_tree, gc_paused

if TYPE_CHECKING:
    from kobrowser.cdp import BatchCall, CDPSession

__all__ = ["CALL_COST", "THROTTLE_WINDOW", "DocumentMirror", "MirrorAnswer", "diff_nodes"]

_log = logging.getLogger("kobrowser.axmirror")

THROTTLE_WINDOW: Final = 0.3
"""Seconds after the first call of a crawl before the mirror may be used."""

CALL_COST: Final = 8
"""What one ``getChildAXNodes`` call of a crawl costs, in nodes of a full fetch.

Measured on the 1,500-row table (25,539 nodes, Chromium 156, CBOR pipe): a
crawl call costs about 100 us of renderer CPU, 75 us in the browser
process and 30 us here; a full snapshot about 23 us per node in all."""

HURRY_BATCH: Final = 2048
"""``getChildAXNodes`` calls per batch while a snapshot waits for the crawl
(each batch shares one deadline)."""

_OVERSHOOT: Final = 2
"""A crawl that asked this many times the calls it planned (a page that
keeps changing under it) is no longer waited for."""

_MAX_ROUNDS: Final = 8
"""Rounds of fetching unknown children before giving up on a snapshot."""

_UPDATE: Final = 0
_FETCHED: Final = 1

Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class MirrorAnswer:
    """One answer of the mirror: the nodes, and what changed since the previous one.

    Attributes:
        nodes: the document's AX nodes, root first.
        index: node id -> node for the same nodes: the store's own
            dictionary, valid while the store's ``version`` is ``version``
            (:meth:`current_index`).
        parents: child id -> id of the node listing it, for the same nodes
            (the store's own, valid as ``index``).
        proper: the nodes form a proper tree (no node listed twice, no
            cycle), as the store's last look found; only while ``index`` is
            the store's own.
        by_backend: DOM backend id -> node id (the store's own, valid as
            ``index``; it may name dropped nodes too), or None when the store
            cannot tell (two nodes had one backend id).
        version: the store's ``version`` when it answered.
        serial: which answer of its store this is (0 for the first); the
            changes are relative to the answer with ``serial - 1``.
        dirty: ids of the nodes whose subtree may differ from the previous
            answer's (changed nodes and all their ancestors), or None when
            anything may have changed (a new store, a tree with a node
            listed twice). See :meth:`MirrorStore.take_dirty`.
        store: the store answering (a new one after a reset), or None.
    """

    __slots__ = (
        "by_backend",
        "dirty",
        "index",
        "nodes",
        "parents",
        "proper",
        "serial",
        "store",
        "version",
    )

    def __init__(
        self,
        nodes: list[AXNode],
        store: MirrorStore | None,
        serial: int,
        dirty: set[str] | None,
    ) -> None:
        self.nodes = nodes
        self.store = store
        self.serial = serial
        self.dirty = dirty
        self.version = -1 if store is None else store.version
        self.index = {} if store is None else store.nodes
        self.parents = {} if store is None else store.parents
        self.by_backend = None if store is None or store.shared_backend else store.by_backend
        self.proper = store is not None and not store.twice

    def current_index(
        self,
    ) -> tuple[dict[str, AXNode], dict[str, str], dict[int, str] | None, bool]:
        """``index``, ``parents``, ``by_backend`` and ``proper`` as they were at the answer.

        The store's own when it has not changed since (no copy), else made
        from :attr:`nodes` (another snapshot's answer came in between; then
        no ``by_backend``, and the tree is not known to be proper).
        """
        store = self.store
        if store is not None and store.version == self.version:
            return self.index, self.parents, self.by_backend, self.proper
        nodes = self.nodes
        index = {n.nodeId: n for n in nodes}
        return index, {c: n.nodeId for n in nodes for c in n.childIds}, None, False


class _Root(msgspec.Struct, gc=False):
    node: AXNode


class _LoadRoot(msgspec.Struct, gc=False):
    frameId: str | None = None


class _Load(msgspec.Struct, gc=False):
    root: _LoadRoot | None = None


_ROOT: Final = msgspec.json.Decoder(_Root)
_LOAD: Final = msgspec.json.Decoder(_Load)


def diff_nodes(mirrored: list[AXNode], full: list[AXNode], *, limit: int = 5) -> list[str]:
    """Differences between two node lists, as reachable from their first node.

    Empty when both describe the same tree as the snapshot reads it (the
    order of the lists does not matter; below a node whose children the walk
    never reads, see :func:`reads_children`, nothing is compared). Each
    entry names a node id and what differs.
    """

    def reachable(nodes: list[AXNode]) -> dict[str, AXNode]:
        if not nodes:
            return {}
        by_id = {node.nodeId: node for node in nodes}
        out: dict[str, AXNode] = {}
        stack = [nodes[0].nodeId]
        while stack:
            node = by_id.get(stack.pop())
            if node is None or node.nodeId in out:
                continue
            out[node.nodeId] = node
            if reads_children(node):  # the mirror does not follow the others' children
                stack.extend(node.childIds)
        return out

    a, b = reachable(mirrored), reachable(full)
    found: list[str] = []
    if mirrored and full and mirrored[0].nodeId != full[0].nodeId:
        found.append(f"root {mirrored[0].nodeId} != {full[0].nodeId}")
    for node_id in sorted(a.keys() | b.keys(), key=lambda k: (len(k), k)):
        if len(found) >= limit:
            found.append("...")
            break
        mine, theirs = a.get(node_id), b.get(node_id)
        if mine != theirs:
            found.append(f"node {node_id}: mirror {mine!r} != full {theirs!r}")
    return found


class DocumentMirror:
    """The mirrored AX tree of a session's own document, or of one of its same-process frames.

    Use :meth:`start_crawl` once a full fetch showed the page is large, then
    :meth:`nodes` on each snapshot. :meth:`close` stops it (idempotent).

    With ``frame_id`` it mirrors that same-process child frame's document
    instead: every call names the frame (``frameId``). Node ids are unique
    across a session's documents, so the ``nodesUpdated`` events of the
    session (which every mirror of it receives) are applied only to the
    nodes a mirror holds.
    """

    def __init__(
        self,
        session: CDPSession,
        settings: AXMirrorSettings,
        spawn: Spawn,
        frame_id: str | None = None,
    ) -> None:
        self._session = session
        self.frame_id = frame_id
        self._frame: dict[str, Any] = {} if frame_id is None else {"frameId": frame_id}
        self._settings = settings
        self._spawn = spawn
        self._inbox: list[tuple[int, Any]] = []
        self._refetch: set[str] = set()
        self._store: MirrorStore | None = None
        self._generation = 0
        self._state = "idle"  # idle | crawling | ready | failed | closed
        self._ready_at = 0.0
        self._served = 0
        self._lock = anyio.Lock()
        self._settled = anyio.Event()  # set when a crawl ends (ready or failed)
        # Set when the crawl ends or overshoots its plan: what a waiting snapshot waits for.
        self._release = anyio.Event()
        self._enabled = False
        self._removers: list[Callable[[], None]] = []
        # The crawl's plan (from the document read in full that started it):
        # the nodes read, the calls expected, the calls made; and whether a
        # snapshot waits for it (then it sends every call it knows of at once).
        self._seed_nodes = 0
        self._seed: list[str] = []  # the parents to ask for, in the full fetch's order
        self._seed_root: str | None = None
        self._planned = 0
        self._asked = 0
        self._hurry = False
        self.stats: dict[str, int] = {
            "served": 0,
            "fallbacks": 0,
            "resets": 0,
            "checks": 0,
            "joined": 0,
        }

    @property
    def state(self) -> str:
        """``idle``, ``crawling``, ``ready``, ``failed`` or ``closed``."""
        return self._state

    def __len__(self) -> int:
        return len(self._store) if self._store is not None else 0

    async def wait_ready(self) -> bool:
        """Wait until the crawl under way ends and the throttle window is over.

        Returns:
            True when the mirror is ready to answer, False when there is no
            crawl under way or it failed (or the mirror was reset meanwhile).

        Cancelling the caller stops the wait only.
        """
        if self._state == "crawling":
            await self._settled.wait()
        if self._state != "ready":
            return False
        await anyio.sleep(max(0.0, self._ready_at - time.monotonic()))
        return self._state == "ready"

    # -- life cycle --------------------------------------------------------

    def start_crawl(
        self, timeout: float, read: Sequence[AXNode | FlatAXNode] | None = None
    ) -> None:
        """Build the mirror in the background (no-op unless idle).

        Args:
            timeout: deadline of each CDP call of the crawl.
            read: the document as a full fetch just read it: how much crawl
                to expect (a snapshot that comes meanwhile waits for the
                crawl only when what is left of it costs less than
                ``join_crawl`` full fetches). None: never waited for.
        """
        if self._state != "idle":
            return
        self._state = "crawling"
        self._seed_nodes = 0 if read is None else len(read)
        self._seed = [] if read is None else crawl_parents(read)
        self._seed_root = read[0].nodeId if read else None
        self._planned = len(self._seed)
        self._asked = 0
        self._hurry = False
        self._settled = anyio.Event()
        self._release = anyio.Event()
        generation = self._generation
        self._spawn(lambda: self._crawl(generation, timeout))

    def reset(self) -> None:
        """Forget the mirror (it is built again on the next :meth:`start_crawl`)."""
        if self._state == "closed":
            return
        self._generation += 1
        self._store = None
        self._inbox.clear()
        self._refetch.clear()
        self._state = "idle"
        self._settled.set()
        self._release.set()
        self.stats["resets"] += 1

    def close(self) -> None:
        """Stop following events. Idempotent."""
        self._generation += 1
        self._state = "closed"
        self._settled.set()
        self._release.set()
        self._store = None
        self._inbox.clear()
        for remove in self._removers:
            remove()
        self._removers.clear()

    def _on_update(self, raw: msgspec.Raw) -> None:
        if self._store is not None or self._state == "crawling":
            self._inbox.append((_UPDATE, raw))

    def _on_load(self, raw: msgspec.Raw) -> None:
        if self._state not in ("crawling", "ready"):
            return
        if self.frame_id is not None:
            # A frame mirror ignores the loads of the session's other documents.
            try:
                root = _LOAD.decode(raw).root
            except msgspec.ValidationError:
                root = None
            if root is not None and root.frameId is not None and root.frameId != self.frame_id:
                return
        self.reset()

    def _fetched(self, raw: msgspec.Raw) -> None:
        # Runs as the answer arrives, so it takes its place among the events.
        self._inbox.append((_FETCHED, raw))

    async def _enable(self, timeout: float) -> None:
        if self._enabled:
            return
        session = self._session
        self._removers = [
            session.add_listener("Accessibility.nodesUpdated", self._on_update),
            session.add_listener("Accessibility.loadComplete", self._on_load),
        ]
        await session.send("Accessibility.enable", timeout=timeout)
        self._enabled = True

    async def _crawl(self, generation: int, timeout: float) -> None:
        try:
            await self._enable(timeout)
            started = time.monotonic()
            root = await self._session.send_typed(
                "Accessibility.getRootAXNode", self._frame or None, _ROOT, timeout=timeout
            )
            if generation != self._generation:
                return
            self._inbox.clear()  # events before the root: nothing asked for yet
            self._store = MirrorStore(root.node)
            seed, self._seed = self._seed, []
            if root.node.nodeId == self._seed_root:
                await self._seeded(seed, generation, timeout)
            # What the seed did not cover (changes meanwhile, another document).
            while generation == self._generation:
                async with self._lock:
                    if generation != self._generation:
                        return
                    store = self._store
                    self._drain(UpdateVerdict())
                    limit = HURRY_BATCH if self._hurry else self._settings.crawl_batch
                    parents = self._wanted(store, limit)
                    if not parents:
                        parents = store.collect()[1]  # the whole walk, to be sure
                        if not parents:
                            break
                    self._asked += len(parents)
                    if self._overshot():
                        self._hurry = False  # a page that keeps changing: no one waits
                        self._release.set()
                    store.discard(await self._fetch(parents, timeout))
            if generation == self._generation:
                self._ready_at = started + THROTTLE_WINDOW
                self._state = "ready"
        except KoBrowserError as exc:
            if generation == self._generation:
                _log.debug("AX mirror crawl failed: %s", exc)
                self._state = "failed"
                self._store = None
        finally:
            if generation == self._generation:
                self._settled.set()
                self._release.set()

    async def _seeded(self, seed: list[str], generation: int, timeout: float) -> None:
        """Ask for the children of the parents the full fetch listed, in its order.

        No round trip waits for an answer to know what to ask next: a batch
        at a time in the background; once a snapshot waits (``_hurry``),
        batches of :data:`HURRY_BATCH`, two in flight, the answers applied
        between them (Chrome works on the next batch meanwhile).
        """
        at = 0
        while at < len(seed) and generation == self._generation:
            if self._hurry:
                await self._pipelined(seed[at:], generation, timeout)
                return
            async with self._lock:
                store = self._store
                if generation != self._generation or store is None:
                    return
                self._drain(UpdateVerdict())
                chunk = seed[at : at + self._settings.crawl_batch]
                at += len(chunk)
                self._asked += len(chunk)
                store.discard(await self._fetch(chunk, timeout))

    async def _pipelined(self, parents: list[str], generation: int, timeout: float) -> None:
        """Ask for the children of ``parents`` in batches, two in flight (see :meth:`_seeded`)."""
        store = self._store
        failed: list[str] = []
        errors: list[KoBrowserError] = []

        async def fetch(chunk: list[str], done: anyio.Event) -> None:
            try:
                failed.extend(await self._fetch(chunk, timeout))
            except KoBrowserError as exc:  # raised below, not as a group
                errors.append(exc)
            finally:
                done.set()

        async with anyio.create_task_group() as group:
            dones: list[anyio.Event] = []
            for at in range(0, len(parents), HURRY_BATCH):
                if generation != self._generation or errors:
                    break
                chunk = parents[at : at + HURRY_BATCH]
                dones.append(anyio.Event())
                self._asked += len(chunk)
                group.start_soon(fetch, chunk, dones[-1])
                if len(dones) >= 2:
                    await dones[-2].wait()
                    async with self._lock:
                        if generation == self._generation:
                            self._drain(UpdateVerdict())
        if errors:
            raise errors[0]
        if store is not None and generation == self._generation:
            store.discard(failed)

    async def _fetch(self, parents: list[str], timeout: float) -> list[str]:
        """Ask for the children of ``parents``; the answers join the inbox.

        Returns the parents Chrome no longer has (their calls failed).
        """
        session = self._session
        calls: list[BatchCall] = [
            (session, "Accessibility.getChildAXNodes", {"id": parent, **self._frame}, self._fetched)
            for parent in parents
        ]
        results = await session.connection.call_many(calls, timeout=timeout)
        failed: list[str] = []
        for parent, result in zip(parents, results, strict=True):
            if isinstance(result, KoBrowserError):
                if session.closed:
                    raise result
                failed.append(parent)
        return failed

    def _drain(self, verdict: UpdateVerdict) -> None:
        """Apply the inbox in arrival order."""
        store = self._store
        inbox = self._inbox
        if store is None:
            inbox.clear()
            return
        decode = decode_nodes_unpaused
        with gc_paused():  # once for the lot: a crawl's round holds thousands of answers
            while inbox:
                batch = inbox[:]
                inbox.clear()
                for kind, raw in batch:
                    nodes = decode(raw)
                    if kind == _UPDATE:
                        store.update(nodes, verdict)
                    else:
                        store.put(nodes)
        for suspect in verdict.suspects:
            # Read the <select>-like node (through its parent) and its subtree again.
            store.forget_below(suspect)
            self._refetch.add(store.parent_of(suspect) or suspect)
        verdict.suspects.clear()
        self._refetch.update(verdict.parents)
        verdict.parents.clear()
        for flipped in store.flipped:
            store.forget_below(flipped)
        store.flipped.clear()
        store.prune()

    def _wanted(self, store: MirrorStore, limit: int | None = None) -> list[str]:
        """Parents whose children to read now (up to ``limit``; the rest wait)."""
        parents = list(dict.fromkeys([*self._refetch, *store.lacking()]))
        self._refetch.clear()
        if limit is not None and len(parents) > limit:
            self._refetch.update(parents[limit:])
            parents = parents[:limit]
        return parents

    # -- snapshots ---------------------------------------------------------

    async def nodes(self, *, timeout: float) -> list[AXNode] | None:
        """The document's current AX nodes (root first), or None: fetch in full.

        Cancelling the caller abandons the barrier; the mirror stays usable
        (what arrived is applied on the next call).
        """
        answer = await self.answer(timeout=timeout)
        return None if answer is None else answer.nodes

    def _joins(self) -> bool:
        """Whether a snapshot now should wait for the crawl under way (see ``join_crawl``)."""
        share = self._settings.join_crawl
        if self._state != "crawling" or share <= 0 or not self._seed_nodes or self._overshot():
            return False
        left = max(self._planned - self._asked, 0)
        return left * CALL_COST <= share * self._seed_nodes

    def _overshot(self) -> bool:
        return self._asked > _OVERSHOOT * self._planned + self._settings.crawl_batch

    async def answer(self, *, timeout: float) -> MirrorAnswer | None:
        """Like :meth:`nodes`, with what changed since the previous answer.

        While the crawl runs, it waits for the crawl to end when what is left
        of it is estimated to cost at most ``join_crawl`` full fetches (the
        crawl then sends every call it knows of at once), and answers from
        the mirror; otherwise it answers None at once. The wait ends after
        ``timeout``, or when the crawl asked twice the calls it planned (a
        page that keeps changing under it), with None.

        Cancelling the caller abandons the wait or the barrier; the crawl
        goes on, and the mirror stays usable (what arrived is applied on the
        next call).
        """
        if self._joins():
            self.stats["joined"] += 1
            self._hurry = True
            with anyio.move_on_after(timeout):
                await self._release.wait()
            if self._state == "ready":
                # The crawl was quicker than Chrome's first event throttle.
                await anyio.sleep(max(0.0, self._ready_at - time.monotonic()))
        if self._state != "ready" or time.monotonic() < self._ready_at:
            return None
        answer: MirrorAnswer | None = None
        async with self._lock:
            try:
                nodes = await self._current(timeout)
                store = self._store
                answer = (
                    None
                    if nodes is None or store is None
                    else MirrorAnswer(nodes, store, *store.take_dirty())
                )
            except ProtocolError as exc:
                # Chrome refused a call (a node or document went away under
                # it): start over; the full fetch answers this time.
                _log.debug("AX mirror dropped: %s", exc)
                self.reset()
                nodes = None
        if nodes is None:
            self.stats["fallbacks"] += 1
            return None
        self._served += 1
        self.stats["served"] += 1
        settings = self._settings
        if settings.verify or (settings.check_every and self._served % settings.check_every == 0):
            checked = await self._check(nodes, timeout)
            if checked is not nodes or answer is None:
                # The mirror differed (and was reset): nothing is known about changes.
                return MirrorAnswer(checked, None, 0, None)
        return answer

    async def _current(self, timeout: float) -> list[AXNode] | None:
        generation = self._generation
        session = self._session
        root = await session.send_typed(
            "Accessibility.getRootAXNode", self._frame or None, _ROOT, timeout=timeout
        )
        store = self._store
        if generation != self._generation or store is None or self._state != "ready":
            return None
        if root.node.nodeId != store.root_id:
            self.reset()  # a new document; loadComplete will follow
            return None
        verdict = UpdateVerdict()
        self._drain(verdict)
        store.put([root.node])
        if verdict.nodes > self._settings.max_update_share * len(store):
            return None
        for _ in range(_MAX_ROUNDS):
            parents = self._wanted(store)
            if not parents:
                nodes, parents = store.current()
                if not parents:
                    return nodes
            store.discard(await self._fetch(parents, timeout))
            if generation != self._generation:
                return None
            self._drain(verdict)
        return None

    async def _check(self, nodes: list[AXNode], timeout: float) -> list[AXNode]:
        """Compare with a full fetch (verify mode raises, else the mirror is rebuilt)."""
        self.stats["checks"] += 1
        raw = await self._session.send_raw(
            "Accessibility.getFullAXTree", self._frame or None, timeout=timeout
        )
        full = decode_ax_tree(raw).nodes
        found = diff_nodes(nodes, full)
        if not found:
            return nodes
        if self._settings.verify:
            raise AssertionError("AX mirror differs from a full fetch: " + "; ".join(found))
        _log.warning("AX mirror differed from a full fetch, rebuilding: %s", found[0])
        self.reset()
        return full
