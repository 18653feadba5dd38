"""A new tab's start: each domain it needs enabled once, in one batch; its page state seeded."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import msgspec

from kobrowser._exceptions import KoBrowserError
from kobrowser._tab._frames import AUTO_ATTACH
from kobrowser._tab._runtime import runtime_value

if TYPE_CHECKING:
    from kobrowser._tab._frames import FrameRegistry
    from kobrowser._tab._pagestate import PageState
    from kobrowser.cdp import CDPSession

__all__ = ["start_tab"]


async def start_tab(
    cdp: CDPSession, page: PageState, frames: FrameRegistry, timeout: float
) -> None:
    """Enable what the tab needs, once each, in one batch; then seed the page state.

    Page first: lifecycle events are only reported with it enabled, and
    enabling them reports the current document's states so far. Every
    listener was attached before (when the tab was made).

    Raises:
        KoBrowserError: a call failed (the tab cannot be used).
    """

    def frame_tree_now(raw: bytes) -> tuple[dict[str, Any], tuple[str, ...]]:
        # Decoded on arrival, with the documents known then (see PageState.seed).
        return msgspec.json.decode(raw), page.documents()

    results = await cdp.connection.call_many(
        [
            (cdp, "Page.enable", None, None),
            (cdp, "Network.enable", None, None),
            (cdp, "Page.setLifecycleEventsEnabled", {"enabled": True}, None),
            (cdp, "Target.setAutoAttach", AUTO_ATTACH, None),
            (cdp, "Runtime.enable", None, None),  # console and errors (replays earlier ones)
            (cdp, "Page.getFrameTree", None, frame_tree_now),
        ],
        timeout=timeout,
    )
    for result in results:
        if isinstance(result, KoBrowserError):
            raise result
    frames.start()
    tree, documents = results[-1]
    page.seed(tree.get("frameTree", {}).get("frame", {}), documents)
    await _seed_ready_state(cdp, page, timeout)


async def _seed_ready_state(cdp: CDPSession, page: PageState, timeout: float) -> None:
    """A tab set up late (a popup) may have missed its document's events."""
    loader = page.loader_id
    if not loader or page.reached(loader, "load"):
        return
    with contextlib.suppress(KoBrowserError):
        result = await cdp.send(
            "Runtime.evaluate",
            {"expression": "document.readyState", "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        state = runtime_value(result, "JavaScript error")
        if page.loader_id == loader and state in ("interactive", "complete"):
            page.mark(loader, "load" if state == "complete" else "domcontentloaded")
