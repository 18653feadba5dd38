"""From a snapshot id to a live, verified, actionable element.

``resolve`` maps the id through the tab's last snapshot and proves the
element is still the one the snapshot showed: its node still resolves, its
frame still holds the same document (loader id), and it still has the same
role and name. Anything else is a :class:`~kobrowser.StaleElementError`.

``locate`` then waits until the element is visible, stable, enabled and
receives the pointer, and returns a point in top-page coordinates: the
point is hit-tested in the element's own frame and again in every parent
frame (offset by each ``<iframe>``'s content box), so a cover in any frame
is seen and named.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from kobrowser._concurrency import gather
from kobrowser._exceptions import (
    CDPTimeoutError,
    KoBrowserError,
    NoSnapshotError,
    NotInteractableError,
    ProtocolError,
    StaleElementError,
    TargetClosedError,
    UnknownElementError,
)
from kobrowser._tab import _scripts
from kobrowser._tab._runtime import runtime_value
from kobrowser._validate import element_id as check_id
from kobrowser.snapshot._roles import role_info

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline
    from kobrowser._tab._snapshot import Element, Snapshot
    from kobrowser.cdp import CDPSession

__all__ = ["Target", "call", "describe_cover", "locate", "object_id_of", "resolve"]

_BACKOFF = (0.0, 0.02, 0.05, 0.1, 0.1, 0.2, 0.3, 0.5)


class _RemoteObject(msgspec.Struct):
    objectId: str | None = None


class _Resolved(msgspec.Struct):
    object: _RemoteObject = msgspec.field(default_factory=_RemoteObject)


class _AXValue(msgspec.Struct):
    value: Any = None


class _AXNode(msgspec.Struct):
    ignored: bool = False
    role: _AXValue | None = None
    name: _AXValue | None = None
    backendDOMNodeId: int | None = None


class _PartialTree(msgspec.Struct):
    nodes: list[_AXNode]


class _Frame(msgspec.Struct):
    id: str
    loaderId: str = ""


class _FrameTreeNode(msgspec.Struct):
    frame: _Frame
    childFrames: list[_FrameTreeNode] = []


class _FrameTree(msgspec.Struct):
    frameTree: _FrameTreeNode


_RESOLVED = msgspec.json.Decoder(_Resolved)
_PARTIAL = msgspec.json.Decoder(_PartialTree)
_FRAME_TREE = msgspec.json.Decoder(_FrameTree)


class Target(msgspec.Struct):
    """A verified element: where it lives and a remote handle on it."""

    element: Element
    session: CDPSession
    object_id: str
    # (parent frame's session, backend id of the <iframe> owning the child),
    # from the element's frame up to the top document.
    chain: list[tuple[CDPSession, int]]
    # False while the node is out of the accessibility tree (hidden): its
    # role and name could not be compared, so ``locate`` compares them once
    # it is actionable.
    verified: bool = True


def _label(element: Element) -> str:
    name = f' "{element.name[:40]}"' if element.name else ""
    return f"{element.role}{name}"


def stale(element: Element, why: str) -> StaleElementError:
    """The error for an element that is no longer the one the snapshot showed."""
    return StaleElementError(
        f"element {element.id} ({_label(element)}) is stale: {why}. "
        "Take a new snapshot and use its ids.",
        element.id,
    )


def lookup(snapshot: Snapshot | None, element_id: int) -> Element:
    """The element of ``element_id`` in ``snapshot`` (no browser call)."""
    check_id(element_id)
    if snapshot is None:
        raise NoSnapshotError(
            f"no snapshot yet, so id {element_id} means nothing: take a snapshot first",
            element_id,
        )
    element = snapshot.id_map.get(element_id)
    if element is None:
        if element_id <= snapshot._issued:
            # Stable ids: the tab gave this id to an element no longer shown.
            raise StaleElementError(
                f"element {element_id} is stale: the last snapshot does not show it "
                "(it left the page, or that snapshot's options leave it out). "
                "Use the ids of the last snapshot.",
                element_id,
            )
        count = len(snapshot.id_map)
        if not count:
            valid = "the last snapshot has no elements"
        elif snapshot._issued:
            valid = "valid ids are those the last snapshot prints"
        else:
            valid = f"valid ids are 1 to {count}"
        raise UnknownElementError(
            f"there is no element {element_id} in the last snapshot ({valid})", element_id
        )
    return element


async def resolve(snapshot: Snapshot | None, element_id: int, *, timeout: float) -> Target:
    """Resolve and verify ``element_id`` of the tab's last snapshot.

    Raises:
        NoSnapshotError, UnknownElementError, StaleElementError.
    """
    element = lookup(snapshot, element_id)
    assert snapshot is not None
    session: CDPSession | None = element.session
    if session is None or session.closed or element.backend_node_id is None:
        raise stale(element, "its frame is gone")
    backend = element.backend_node_id
    try:
        object_id, ax, frames = await gather(
            lambda: object_id_of(session, backend, timeout=timeout),
            lambda: session.send_typed(
                "Accessibility.getPartialAXTree",
                {"backendNodeId": backend, "fetchRelatives": False},
                _PARTIAL,
                timeout=timeout,
            ),
            lambda: session.send_typed("Page.getFrameTree", None, _FRAME_TREE, timeout=timeout),
        )
    except ProtocolError:
        # The node is gone; say why when it is because the document changed.
        try:
            frames = await session.send_typed(
                "Page.getFrameTree", None, _FRAME_TREE, timeout=timeout
            )
        except KoBrowserError:
            frames = None
        if frames is not None:
            _check_document(element, frames)
        raise stale(element, "it is no longer in the page") from None
    except TargetClosedError:
        raise stale(element, "its frame was closed") from None

    _check_document(element, frames)
    verified = _check_identity(element, ax)
    if object_id is None:
        raise stale(element, "it is no longer in the page")
    if not verified:
        # Out of the accessibility tree: hidden, or detached (a removed node
        # still resolves while it is alive). Only the first is the same element.
        try:
            connected = await call(
                session, object_id, "function() { return this.isConnected; }", timeout=timeout
            )
        except (ProtocolError, KoBrowserError):
            connected = False
        if connected is not True:
            raise stale(element, "it was removed from the page")
    return Target(
        element, session, object_id, _chain(snapshot, element.frame_id), verified=verified
    )


def _check_document(element: Element, frames: _FrameTree) -> None:
    loader = _loader_of(frames.frameTree, element.frame_id)
    if loader is None:
        raise stale(element, "its frame was removed")
    if loader != element.loader_id:
        raise stale(element, "its frame navigated or reloaded since the snapshot")


def _loader_of(root: _FrameTreeNode, frame_id: str) -> str | None:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.frame.id == frame_id:
            return node.frame.loaderId
        stack.extend(node.childFrames)
    return None


def _check_identity(element: Element, tree: _PartialTree) -> bool:
    """Raise StaleElementError unless the node has the snapshot's role and name.

    Returns False when the node is hidden from the accessibility tree right
    now (``visibility:hidden``, ``aria-hidden``): Chrome reports no role for
    it, so the comparison waits until it shows again (see ``locate``).
    """
    node = next((n for n in tree.nodes if n.backendDOMNodeId == element.backend_node_id), None)
    if node is None:
        raise stale(element, "it is no longer in the accessibility tree")
    if node.ignored:
        return False
    raw_role = node.role.value if node.role is not None else ""
    role = role_info(raw_role if isinstance(raw_role, str) else "")[0]
    raw_name = node.name.value if node.name is not None else ""
    name = " ".join(str(raw_name or "").split())
    if role != element.role:
        now = f"{role or 'an unprinted node'}{f' {name!r}' if name else ''}"
        raise stale(element, f"it is now {now}")
    if role == "text":
        if name and name not in element.name:
            raise stale(element, f"its text is now {name[:40]!r}")
    elif name != element.name and (name or not _MARKED.intersection(element.states)):
        # (An unnamed clickable/focusable element took its text as its name.)
        raise stale(element, f'its name is now "{name[:60]}"')
    return True


_MARKED = frozenset({"clickable", "focusable"})


async def _verify_shown(target: Target, timeout: float) -> None:
    """Compare role and name of a node that was hidden when it was resolved."""
    element = target.element
    try:
        tree = await target.session.send_typed(
            "Accessibility.getPartialAXTree",
            {"backendNodeId": element.backend_node_id, "fetchRelatives": False},
            _PARTIAL,
            timeout=timeout,
        )
    except ProtocolError:
        raise stale(element, "it is no longer in the page") from None
    # Still ignored although visible (aria-hidden): the node itself is the
    # snapshot's (same backend node, same document); nothing more to compare.
    target.verified = _check_identity(element, tree) or target.verified


def _chain(snapshot: Snapshot, frame_id: str) -> list[tuple[CDPSession, int]]:
    chain: list[tuple[CDPSession, int]] = []
    documents = snapshot._documents
    seen = set()
    current = frame_id
    while current not in seen:
        seen.add(current)
        document = documents.get(current)
        if document is None or document.parent_id is None:
            break
        parent = documents.get(document.parent_id)
        owner = snapshot._owners.get(current)
        if parent is None or owner is None:
            break
        chain.append((parent.session, owner))
        current = document.parent_id
    return chain


async def object_id_of(session: CDPSession, backend_node_id: int, *, timeout: float) -> str | None:
    """A remote object id for node ``backend_node_id`` of ``session``'s page
    (in the ``kobrowser`` object group); None when Chrome gave none.

    Raises:
        ProtocolError: the node is gone (its document changed).
    """
    resolved = await session.send_typed(
        "DOM.resolveNode",
        {"backendNodeId": backend_node_id, "objectGroup": "kobrowser"},
        _RESOLVED,
        timeout=timeout,
    )
    return resolved.object.objectId


async def call(
    session: CDPSession,
    object_id: str,
    function: str,
    *args: Any,
    timeout: float,
    await_promise: bool = False,
) -> Any:
    """Run ``function`` with ``this`` = the object, return its JSON value."""
    result = await session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": function,
            "objectId": object_id,
            "arguments": [{"value": a} for a in args],
            "returnByValue": True,
            "awaitPromise": await_promise,
        },
        timeout=timeout,
    )
    return runtime_value(result, "page script failed")


def describe_cover(cover: dict[str, Any] | None) -> str:
    """'button "Accept cookies" (<div id=banner>)' from the page's description."""
    if not cover:
        return "another element"
    name = f' "{cover.get("name", "")}"' if cover.get("name") else ""
    ident = f" id={cover['id']}" if cover.get("id") else ""
    return f"{cover.get('role', 'generic')}{name} (<{cover.get('tag', '?')}{ident}>)"


_REASONS = {
    "hidden": "it is not visible",
    "unstable": "it keeps moving (animation)",
    "disabled": "it is disabled",
    "offscreen": "it cannot be scrolled into view",
}


async def locate(
    target: Target,
    *,
    deadline: Deadline,
    hit: bool = True,
    enabled: bool = True,
    guard_ms: int = 0,
    object_id: str | None = None,
) -> tuple[float, float, dict[str, float]]:
    """Wait until the element is actionable; return a top-page point and its frame rect.

    With ``guard_ms`` a one-shot guard is armed in every frame on the way,
    which blocks pointer events that would reach any other element. The
    element is probed at least once, even at the deadline.

    Raises:
        StaleElementError: the element left the DOM meanwhile.
        NotInteractableError: not actionable before the deadline (names why,
            and the covering element when covered).
    """
    element = target.element
    oid = object_id or target.object_id
    attempt = 0
    reason = "it never became actionable"
    while True:
        remaining = deadline.remaining()
        if attempt and remaining <= 0:
            raise NotInteractableError(
                f"element {element.id} ({_label(element)}) is not actionable: {reason} "
                f"(waited {deadline.timeout:g} s)",
                element.id,
            )
        try:
            # A node without a layout box (display:none) cannot scroll; the probe says why.
            with contextlib.suppress(ProtocolError):
                await target.session.send(
                    "DOM.scrollIntoViewIfNeeded", {"objectId": oid}, timeout=max(remaining, 0.5)
                )
            probe = await call(
                target.session,
                oid,
                _scripts.PROBE,
                {"hit": hit, "enabled": enabled, "guard": guard_ms},
                timeout=deadline.remaining(0.5),
                await_promise=True,
            )
        except CDPTimeoutError:
            # The page answered too slowly for what was left of the deadline:
            # report why the element was not actionable so far.
            if not deadline.expired:
                raise
            attempt += 1
            continue
        state = probe.get("state")
        if state == "detached":
            raise stale(element, "it was removed from the page")
        if state == "ok":
            points = probe["points"]
            cover = None
            try:
                for parent_session, owner in target.chain:
                    if not points:
                        break
                    owner_id = await object_id_of(
                        parent_session, owner, timeout=deadline.remaining(0.1)
                    )
                    if owner_id is None:
                        raise stale(element, "its frame was removed")
                    hop = await call(
                        parent_session,
                        owner_id,
                        _scripts.HOP,
                        points,
                        guard_ms if hit else 0,
                        timeout=deadline.remaining(0.1),
                    )
                    points = (
                        hop["points"]
                        if hit
                        else [[x + hop["offset"][0], y + hop["offset"][1]] for x, y in points]
                    )
                    cover = hop.get("cover")
                    rect = probe["rect"]
                    probe["rect"] = {
                        "x": rect["x"] + hop["offset"][0],
                        "y": rect["y"] + hop["offset"][1],
                        "width": rect["width"],
                        "height": rect["height"],
                    }
            except CDPTimeoutError:
                # As for the probe: out of time on the way up through the
                # frames, report why the element was not actionable so far.
                if not deadline.expired:
                    raise
                attempt += 1
                continue
            if points:
                if not target.verified:
                    await _verify_shown(target, deadline.remaining(0.5))
                x, y = points[0]
                return float(x), float(y), probe["rect"]
            reason = f"it is covered by {describe_cover(cover)}"
        elif state == "covered":
            reason = f"it is covered by {describe_cover(probe.get('cover'))}"
        else:
            reason = _REASONS.get(str(state), f"it is {state}")
        delay = _BACKOFF[min(attempt, len(_BACKOFF) - 1)]
        attempt += 1
        await anyio.sleep(min(delay, deadline.remaining()))
