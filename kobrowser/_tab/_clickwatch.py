"""The page's clickable map between snapshots: read again only when it may have changed.

A mirrored snapshot (docs/ax-mirror.md) of a large page spends most of its
time on the clickable map: ``DOMSnapshot.captureSnapshot`` of the whole DOM
(kobrowser/_tab/_clickable.py). :class:`ClickWatch` keeps the page session's last
map and a :class:`~kobrowser._tab._clickable.ClickableIndex` of it, and a watcher
in the page, in an isolated world (the page's own scripts cannot see it): a
``MutationObserver`` over the document and capture listeners on ``window``.
Before each snapshot one ``Runtime.evaluate`` asks the watcher what changed:

* nothing: the last map is used as it is;
* only text nodes were added or removed (a label or a cell's text replaced,
  ``textContent = ...``) and characters changed: the map changes only for
  those text nodes; the watcher hands over each changed node and its text
  children, ``DOM.describeNode`` gives their backend ids, and the index
  updates the map (:meth:`~kobrowser._tab._clickable.ClickableIndex.update_texts`);
* an ``aria-*`` or ``data-*`` attribute that no selector of a readable sheet
  names (and no ``attr()`` anywhere): nothing, as above (the map depends on
  listeners, cursors and layout boxes, which such an attribute cannot reach);
* anything else (an element added, removed or moved, any other attribute, a
  style sheet added, removed, disabled or given rules, the viewport resized,
  a new document): the map is read afresh (and the sheets scanned again).

What the watcher cannot see, and how it is covered:

* Event listeners added or removed by script (``addEventListener``,
  ``onclick = ...``) change no node. The map is read afresh every
  :data:`FULL_EVERY` snapshots, so such a change shows at the latest then.
* Computed styles that change without a mutation: a rule that sets
  ``cursor`` (or ``all``, or a custom property when some ``cursor`` uses
  ``var()``) under a state pseudo-class (``:hover``, ``:focus``, ``:checked``,
  ``:empty``, ``:has()``...) or inside ``@media`` / ``@container``, in a
  sheet it can read. The watcher scans the sheets when their shape changes;
  on a page with such a rule, or with a sheet it cannot read (another
  origin's), any event or mutation means a fresh read. An edit of an existing
  rule's declarations (``rule.style.cursor = ...``) changes no count and is
  covered by the period only.
* Shadow roots and same-process child frames: a ``MutationObserver`` on the
  document does not see into them, so a session rendering either always
  reads its map afresh (no index is kept); a shadow root attached later to an
  element already in the page is covered by the period.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Final

import msgspec

from kobrowser._exceptions import (
    ConnectionClosedError,
    KoBrowserError,
    ProtocolError,
    TargetClosedError,
)
from kobrowser._tab._clickable import clickable_nodes

if TYPE_CHECKING:
    from kobrowser._tab._clickable import ClickableIndex, ClickableMaps
    from kobrowser.cdp import BatchCall, CDPSession

__all__ = ["FULL_EVERY", "WORLD", "ClickWatch"]

FULL_EVERY: Final = 10
"""The map is read afresh at least every this many snapshots that use it."""

WORLD: Final = "kobrowser-clickwatch"
"""The isolated world the watcher runs in."""

_GROUP: Final = "kobrowser-clickwatch"


class _Backend(msgspec.Struct, gc=False):
    backendNodeId: int


class _Described(msgspec.Struct, gc=False):
    node: _Backend


_DESCRIBED: Final = msgspec.json.Decoder(_Described)


def _backend_id(raw: msgspec.Raw) -> int:
    return _DESCRIBED.decode(raw).node.backendNodeId


class _World(msgspec.Struct, gc=False):
    executionContextId: int


_WORLD_DECODER: Final = msgspec.json.Decoder(_World)


def _context_of(raw: msgspec.Raw) -> int:
    return _WORLD_DECODER.decode(raw).executionContextId


def _frame_ids(tree: dict[str, Any]) -> list[str]:
    """Every frame id of a ``Page.getFrameTree`` result."""
    out: list[str] = []
    stack = [tree["frameTree"]]
    while stack:
        node = stack.pop()
        out.append(node["frame"]["id"])
        stack.extend(node.get("childFrames", []))
    return out


WATCHER: Final = r"""(() => {
  if (globalThis.__kbClickWatch) return;
  const TEXT = 3, COMMENT = 8, LIMIT = 256;
  const SAFE = new RegExp('^(nth-|(first|last|only)-(child|of-type)$|not$|is$|where$|root$'
    + '|link$|any-link$|visited$|lang$|dir$)');
  const w = {full: true, changes: 0, events: 0, targets: new Set(), print: null, stateful: true,
    attrs: null};
  // An aria-* or data-* attribute no selector names cannot change the map.
  const quiet = (name) => w.attrs !== null && /^(aria|data)-/.test(name) && !w.attrs.has(name);
  const plain = (list) => {
    for (const n of list) if (n.nodeType !== TEXT && n.nodeType !== COMMENT) return false;
    return true;
  };
  const take = (records) => {
    w.changes += records.length;
    if (w.full) return;
    for (const r of records) {
      if (r.type === 'characterData') continue;
      if (r.type === 'attributes' && quiet(r.attributeName)) continue;
      if (r.type === 'childList' && plain(r.addedNodes) && plain(r.removedNodes)) {
        w.targets.add(r.target);
        if (w.targets.size <= LIMIT) continue;
      }
      w.full = true;
      w.targets.clear();
      return;
    }
  };
  const observer = new MutationObserver(take);
  observer.observe(
    document, {subtree: true, childList: true, attributes: true, characterData: true});
  const seen = () => { w.events++; };
  const TYPES = ['mouseover', 'mouseout', 'mousedown', 'mouseup', 'pointerdown', 'pointerup',
    'focusin', 'focusout', 'input', 'change', 'keydown', 'keyup', 'scroll', 'resize', 'hashchange',
    'popstate', 'toggle', 'transitionend', 'animationstart', 'animationend', 'fullscreenchange'];
  for (const type of TYPES) addEventListener(type, seen, {capture: true, passive: true});
  const sheets = () => [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
  const print = () => {
    let out = `${innerWidth}x${innerHeight}x${devicePixelRatio}`;
    for (const s of sheets()) {
      out += '|' + (s.disabled ? 'd' : '');
      try {
        const rules = s.cssRules;
        out += rules.length;
        for (const r of rules) {
          if (r.styleSheet) {
            try { out += ',' + r.styleSheet.cssRules.length; } catch (e) { out += ',x'; }
          } else if (!(r instanceof CSSLayerStatementRule)) break;
        }
      } catch (e) { out += 'x'; }
    }
    return out;
  };
  const scan = () => {
    let usesVar = !!document.querySelector('[style*="cursor"][style*="var("]');
    let unknown = false;
    const risky = [];
    const attrs = new Set();
    let usesAttr = !!document.querySelector('[style*="attr("]');
    const named = (text) => {
      for (const m of text.matchAll(/\[\s*(?:[\w*-]*\|)?([\w-]+)/g)) attrs.add(m[1].toLowerCase());
    };
    const visit = (rules, state) => {
      for (const r of rules) {
        let here = state;
        if (r.cssText && r.cssText.includes('attr(')) usesAttr = true;
        if (r.start !== undefined) named(`${r.start || ''} ${r.end || ''}`);  // @scope
        if (r instanceof CSSStyleRule) {
          named(r.selectorText);
          for (const m of r.selectorText.matchAll(/(?<!:):([a-zA-Z-]+)/g))
            if (!SAFE.test(m[1].toLowerCase())) here = true;
          const st = r.style;
          const cursor = st.getPropertyValue('cursor');
          if (cursor.includes('var(')) usesVar = true;
          let custom = false;
          for (let i = 0; i < st.length; i++) if (st[i].startsWith('--')) custom = true;
          if (here && (cursor || st.getPropertyValue('all') || custom))
            risky.push(!!cursor || !!st.getPropertyValue('all'));
        } else if (r instanceof CSSMediaRule || r instanceof CSSContainerRule) {
          here = true;
        }
        if (r.styleSheet) {
          try { visit(r.styleSheet.cssRules, here); } catch (e) { unknown = true; }
        }
        if (r.cssRules) visit(r.cssRules, here);
      }
    };
    for (const s of sheets()) {
      try { visit(s.cssRules, false); } catch (e) { unknown = true; }
    }
    w.attrs = unknown || usesAttr ? null : attrs;
    return unknown || risky.some((direct) => direct || usesVar);
  };
  w.read = () => {
    take(observer.takeRecords());
    const p = print();
    if (p !== w.print || w.full) { w.print = p; w.stateful = scan(); w.full = true; }
    let out;
    if (w.full || (w.stateful && (w.events || w.changes))) out = 'full';
    else if (!w.targets.size) out = 'same';
    else {
      out = [];
      for (const t of w.targets) {
        if (!t.isConnected) { out = 'full'; break; }
        out.push(t);
        for (const c of t.childNodes) if (c.nodeType === TEXT) out.push(c);
        out.push(null);
      }
    }
    w.full = false; w.changes = 0; w.events = 0; w.targets.clear();
    return out;
  };
  w.stop = () => {
    observer.disconnect();
    for (const type of TYPES) removeEventListener(type, seen, {capture: true});
    w.targets.clear();
    if (globalThis.__kbClickWatch === w) delete globalThis.__kbClickWatch;
  };
  globalThis.__kbClickWatch = w;
})();"""

_STOP: Final = "globalThis.__kbClickWatch ? (globalThis.__kbClickWatch.stop(), 'stopped') : 'none'"
"""Stops the watcher of the world it runs in (see ``w.stop`` in :data:`WATCHER`)."""


class ClickWatch:
    """Keeps the page session's clickable map between snapshots (see the module).

    Args:
        page: the tab's page session.

    Attributes:
        stats: ``fresh`` (maps read afresh), ``same`` (reused as they were),
            ``texts`` (updated for text changes).
    """

    def __init__(self, page: CDPSession) -> None:
        self._page = page
        self._index: ClickableIndex | None = None
        self._context: int | None = None
        self._installed = False
        self._identifier: str | None = None
        self._since_full = 0
        self._wanted = False
        self.stats: dict[str, int] = {"fresh": 0, "same": 0, "texts": 0}

    @property
    def active(self) -> bool:
        """Whether the watcher is installed (a map was kept once, and not removed since)."""
        return self._installed

    async def remove(self, *, timeout: float) -> None:
        """Take the watcher out of the page (the mirror was switched off).

        New documents no longer get it, and the watcher of each document of
        the page session (the top one and its same-process child frames) is
        stopped: its observer disconnected, its listeners removed and
        ``globalThis.__kbClickWatch`` deleted. The kept map is forgotten;
        the next :meth:`prepare` installs the watcher again. Idempotent.

        A page already gone (closed tab, lost connection) has nothing left to
        remove: the watcher counts as removed and nothing is raised. A frame
        that navigates or detaches meanwhile has no watcher left to stop.

        Args:
            timeout: deadline of each CDP call.

        Raises:
            CDPTimeoutError: Chrome did not answer in time; the watcher still
                counts as installed (the next call tries again).

        Cancelling the caller leaves the watcher counted as installed (the
        next call removes it); the kept map is forgotten either way.
        """
        if not self._installed:
            return
        self._index = None
        self._wanted = False
        page = self._page
        try:
            if self._identifier is not None:
                # An unknown identifier: removed by a call cut short after Chrome got it.
                with contextlib.suppress(ProtocolError):
                    await page.send(
                        "Page.removeScriptToEvaluateOnNewDocument",
                        {"identifier": self._identifier},
                        timeout=timeout,
                    )
                self._identifier = None
            await self._stop(timeout)
            with contextlib.suppress(ProtocolError):
                await page.send(
                    "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, timeout=timeout
                )
        except (TargetClosedError, ConnectionClosedError):
            pass  # the page went away, and its watchers with it
        self._installed = False
        self._identifier = None
        self._context = None
        self._since_full = 0

    async def _stop(self, timeout: float) -> None:
        """Stop the watcher in the world of every frame of the page session."""
        page = self._page
        tree = await page.send("Page.getFrameTree", timeout=timeout)
        calls: list[BatchCall] = [
            (page, "Page.createIsolatedWorld", {"frameId": f, "worldName": WORLD}, _context_of)
            for f in _frame_ids(tree)
        ]
        worlds = await page.connection.call_many(calls, timeout=timeout)
        stops: list[BatchCall] = [
            (page, "Runtime.evaluate", {"expression": _STOP, "contextId": context}, None)
            for context in worlds
            if isinstance(context, int)
        ]
        stopped = await page.connection.call_many(stops, timeout=timeout) if stops else []
        for result in [*worlds, *stopped]:
            # A ProtocolError: the frame detached or is navigating (its document goes).
            if isinstance(result, KoBrowserError) and not isinstance(result, ProtocolError):
                raise result

    async def prepare(
        self, maps: ClickableMaps, *, timeout: float, verify: bool = False, fresh: bool = False
    ) -> None:
        """Preset the page's map in ``maps`` when it is known, else ask for its index.

        Args:
            maps: the snapshot's maps (the page's is preset, or its index wanted).
            timeout: deadline of each CDP call.
            verify: compare a kept map with a fresh read; raise on a difference.
            fresh: read the map afresh whatever the watcher says (its index is kept).

        Raises:
            AssertionError: ``verify`` found a difference.

        Cancelling the caller forgets the kept map (read afresh next time).
        """
        page = self._page
        index, self._index = self._index, None  # until it is known to be current
        self._wanted = False
        found: dict[int, int] | None = None
        if fresh:
            # Read afresh anyway: the watcher is not asked (one round trip
            # less); what it saw is reported at the next read, which only
            # errs towards reading afresh (a text update is idempotent).
            answer: str | list[Any] = "full"
            index = None
        else:
            try:
                answer = await self._read(timeout)
            except KoBrowserError:
                answer = "full"
        self._since_full += 1
        if index is not None and answer != "full" and self._since_full < FULL_EVERY:
            if answer == "same":
                found = index.found
                self.stats["same"] += 1
            elif isinstance(answer, list):
                found = await self._texts(index, answer, timeout)
                if found is not None:
                    self.stats["texts"] += 1
        elif isinstance(answer, list):
            await self._release(timeout)  # the nodes handed over are not read
        if found is None:
            self.stats["fresh"] += 1
            self._wanted = True
            maps.want_index(page)
            return
        if verify:
            current = await clickable_nodes(page, timeout=timeout)
            if current != found:
                gone = sorted(set(found.items()) - set(current.items()))[:5]
                new = sorted(set(current.items()) - set(found.items()))[:5]
                raise AssertionError(f"kept clickable map is stale: has {gone}, lacks {new}")
        assert index is not None
        self._index = index
        maps.preset(page, found)

    def after(self, maps: ClickableMaps) -> None:
        """The snapshot's fetch is done: keep the index of a map read afresh."""
        if self._wanted:
            self._wanted = False
            self._index = maps.index(self._page)
            self._since_full = 0

    async def _context_id(self, timeout: float) -> int:
        page = self._page
        if self._identifier is None:  # also after a removal cut short
            added = await page.send(
                "Page.addScriptToEvaluateOnNewDocument",
                {"source": WATCHER, "worldName": WORLD, "runImmediately": True},
                timeout=timeout,
            )
            self._identifier = added.get("identifier")
            self._installed = True
        tree = await page.send("Page.getFrameTree", timeout=timeout)
        world = await page.send(
            "Page.createIsolatedWorld",
            {"frameId": tree["frameTree"]["frame"]["id"], "worldName": WORLD},
            timeout=timeout,
        )
        context: int = world["executionContextId"]
        return context

    async def _read(self, timeout: float) -> str | list[Any]:
        """The watcher's answer: ``full``, ``same`` or [node, text..., None, ...] objects."""
        page = self._page
        expression = "globalThis.__kbClickWatch ? globalThis.__kbClickWatch.read() : 'none'"
        for attempt in range(2):
            if self._context is None:
                self._context = await self._context_id(timeout)
            try:
                answer = await page.send(
                    "Runtime.evaluate",
                    {"expression": expression, "contextId": self._context, "objectGroup": _GROUP},
                    timeout=timeout,
                )
            except ProtocolError:
                self._context = None  # a new document: its world has another id
                if attempt:
                    raise
                continue
            result = answer.get("result", {})
            if result.get("type") == "string":
                value = result.get("value")
                if value == "none":
                    await page.send(
                        "Runtime.evaluate",
                        {"expression": WATCHER, "contextId": self._context},
                        timeout=timeout,
                    )
                    return "full"
                return "same" if value == "same" else "full"
            object_id = result.get("objectId")
            if object_id is None:
                return "full"
            props = await page.send(
                "Runtime.getProperties",
                {"objectId": object_id, "ownProperties": True},
                timeout=timeout,
            )
            items: list[tuple[int, str | None]] = []
            for prop in props.get("result", []):
                if prop.get("name", "").isdigit():
                    items.append((int(prop["name"]), prop.get("value", {}).get("objectId")))
            items.sort()
            return [object_id for _, object_id in items]
        return "full"  # pragma: no cover - the loop returns or raises

    async def _release(self, timeout: float) -> None:
        """Let go of the nodes the watcher handed over (they pin DOM nodes)."""
        with contextlib.suppress(KoBrowserError):  # gone with its document
            await self._page.send(
                "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, timeout=timeout
            )

    async def _texts(
        self, index: ClickableIndex, objects: list[Any], timeout: float
    ) -> dict[int, int] | None:
        """Update ``index`` for the nodes whose text children changed (None: read afresh)."""
        page = self._page
        wanted = [o for o in objects if o is not None]
        calls: list[BatchCall] = [
            (page, "DOM.describeNode", {"objectId": o}, _backend_id) for o in wanted
        ]
        calls.append((page, "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, None))
        results = await page.connection.call_many(calls, timeout=timeout)
        backend: dict[str, int] = {}
        for object_id, result in zip(wanted, results, strict=False):
            if not isinstance(result, int):
                return None  # a node went away meanwhile
            backend[object_id] = result
        changed: dict[int, list[int]] = {}
        node: int | None = None
        for item in objects:
            if item is None:
                node = None
            elif node is None:
                node = backend[item]
                changed[node] = []
            else:
                changed[node].append(backend[item])
        return index.update_texts(changed)
