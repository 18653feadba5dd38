"""Build a big top document while the renderer captures its clickable map.

A fresh snapshot's batch asks for the top document's AX tree, then for the
page session's clickable map (kobrowser/_tab/_fetch.py). On a large page the
tree arrives first and the map about 100 ms later; without this module the
tree is decoded and built only once the map is in. :class:`TopAhead` takes
the tree as it arrives (the batch's decoder hands it over) and, in a task
of the snapshot's own, decodes and builds it with
:func:`~kobrowser.snapshot._ahead.build_ahead` while the map is still being
captured. Once the batch is done the snapshot uses that tree only if the real
map would have given the same one (:meth:`~kobrowser.snapshot._ahead.Ahead.holds`);
otherwise it builds as before. The result is the same either way; only
when the work is done changes.

With a ``number`` function (depth-first ids, no stable ids) the tree is
numbered and formatted ahead too, for the top document the frame tree
showed; the snapshot takes that only if the fetch ends with the same
document (frame, loader, URL, session).

It is used only where it can pay: a top tree of at least :data:`MIN_BYTES`
whose map had not arrived when the tree did (a page whose map was kept,
or a small page whose map follows at once, builds as before).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import anyio
import msgspec

from kobrowser._tab._fetch import FrameDocument
from kobrowser.snapshot._ahead import Ahead, build_ahead
from kobrowser.snapshot._ax import (
    decode_snapshot_nodes,
    document_title,
    gc_paused,
    promote_all,
)

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession
    from kobrowser.snapshot import Node

__all__ = ["MIN_BYTES", "TopAhead"]

MIN_BYTES: Final = 1 << 20
"""The smallest top AX answer (bytes of JSON) built ahead of its map."""


Numbered = tuple[str, dict[int, Any], list[Any]]
"""A numbered snapshot: its text, its id map and its top-level elements."""

NumberFn = Callable[[list["Node"], str, Mapping[str, FrameDocument]], Numbered]
"""Numbers a printed tree given its title and its documents."""


class TopAhead:
    """One snapshot's build of the top document ahead of its clickable map.

    Run :meth:`run` in a task beside the fetch, pass it to the fetch as its
    top hook (:class:`~kobrowser._tab._fetch.TopHook`), and call
    :meth:`close` once the fetch is over (whatever its outcome) so that
    :meth:`run` ends.

    Args:
        page: the tab's page session (the top document's).
        map_in: whether the page session's map has arrived already.
        number: numbers a tree as the snapshot would, or None to build only.

    Attributes:
        ahead: what was built, or None (not built, or not yet).
        numbered: :attr:`ahead` numbered (for the top document the frame
            tree showed), or None.
    """

    __slots__ = (
        "_arrived",
        "_document",
        "_map_in",
        "_number",
        "_page",
        "_raw",
        "ahead",
        "numbered",
    )

    def __init__(
        self, page: CDPSession, map_in: Callable[[], bool], number: NumberFn | None = None
    ) -> None:
        self._page = page
        self._map_in = map_in
        self._number = number
        self._document: FrameDocument | None = None
        self._raw: msgspec.Raw | None = None
        self._arrived = anyio.Event()
        self.ahead: Ahead | None = None
        self.numbered: Numbered | None = None

    def document(self, frame_id: str, loader_id: str, url: str) -> None:
        """The top document, as its frame tree shows it (called from the reader).

        Its frame tree comes before its AX answer; once that answer is in,
        a fetch run again tells nothing more (the answer kept is the first).
        """
        if not self._arrived.is_set():
            self._document = FrameDocument(frame_id, self._page, loader_id, url, None)

    def arrived(self, raw: msgspec.Raw) -> msgspec.Raw:
        """The top document's AX answer is in (called from the reader: fast)."""
        if not self._arrived.is_set():
            self._raw = raw
            self._arrived.set()
        return raw

    def close(self) -> None:
        """The fetch is over: :meth:`run` ends (at once if it has not begun building)."""
        self._arrived.set()

    async def run(self) -> None:
        """Wait for the top tree; build (and number) it unless its map is in already.

        A tree that does not decode is left to the snapshot's own decode
        (which reports it). Cancelling the caller ends the wait; a build
        under way is not interrupted (it does not await).
        """
        await self._arrived.wait()
        raw, document = self._raw, self._document
        if raw is None or document is None or len(raw) < MIN_BYTES or self._map_in():
            return
        with gc_paused():
            try:
                nodes = decode_snapshot_nodes(raw)
            except (msgspec.DecodeError, msgspec.ValidationError):
                return
            ahead = build_ahead(document.frame_id, nodes)
            if ahead is not None and self._number is not None:
                self.numbered = self._number(
                    ahead.tree, document_title(nodes), {document.frame_id: document}
                )
            if ahead is not None:
                # What was built is kept, and the map is due: no collection may
                # walk it all when the pause ends, just as the map arrives.
                promote_all()
        self.ahead = ahead

    def tree_for(
        self, frame_id: str, raw: msgspec.Raw | None, clickable: Mapping[int, int]
    ) -> Ahead | None:
        """What was built, if it is the tree of this fetch's top document and its map.

        Args:
            frame_id: the top document's frame id, as fetched.
            raw: the top document's answer, as fetched (a fetch that ran
                again has another one).
            clickable: the top document's clickable map, as fetched.
        """
        ahead = self.ahead
        if (
            ahead is None
            or raw is None
            or raw is not self._raw
            or frame_id != ahead.frame_id
            or not ahead.holds(clickable)
        ):
            return None
        return ahead

    def numbered_for(self, documents: Mapping[str, FrameDocument]) -> Numbered | None:
        """:attr:`numbered`, if the fetch ended with the document it was numbered for."""
        document = self._document
        if self.numbered is None or document is None:
            return None
        fetched = documents.get(document.frame_id)
        if (
            fetched is None
            or fetched.session is not document.session
            or (fetched.loader_id, fetched.url) != (document.loader_id, document.url)
        ):
            return None
        return self.numbered
