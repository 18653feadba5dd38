"""Build a top document ahead of its clickable map, and check the map later.

A fresh snapshot asks Chrome for the top document's AX tree and then for its
clickable map (kobrowser/_tab/_clickable.py). On a large page the renderer
captures the map for about 100 ms after the tree has arrived, and the tree
can only be built once the map is in: this process waits, then builds.
:func:`build_ahead` builds the tree while the map is being captured, with a
stand-in map that answers "not clickable" to every question and writes
down what it was asked; :meth:`Ahead.holds` then says, once the real map is
in, whether it would have answered any of those questions otherwise. When
it would not, the tree built ahead is the one the real map gives (the walk
asked the same questions and got the same answers), and the snapshot uses
it; when it would, the tree is built again with the map, as without this
module.

What makes it exact:

* The walk (``_tree``) asks the map only through ``get``: an element's own
  backend id (is it clickable?) outside interactive elements, and a text
  piece's (which clickable element owns it?). Every id it asks is written
  down; one that the real map holds could have changed the answer, so the
  check refuses the tree (an over-approximation: a refused tree may still
  have been right).
* The map's other effect, hidden clickable elements grafted into the tree
  (``_hidden``), is checked apart: a real map with anything to graft for
  this frame refuses the tree.
* Only a frame that embeds no frame is built ahead (the others need their
  child frames, which arrive later).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kobrowser.snapshot._ax import AXNode, gc_paused
from kobrowser.snapshot._hidden import hidden_of
from kobrowser.snapshot._node import FrameAX, Node
from kobrowser.snapshot._tree import embeds_frames, full_build

__all__ = ["Ahead", "build_ahead"]


class _AskedMap(Mapping[int, int]):
    """A stand-in clickable map: holds nothing, writes down every id asked.

    It counts as non-empty (the walk skips an empty map's questions).
    """

    __slots__ = ("asked",)

    def __init__(self) -> None:
        self.asked: list[int] = []

    def get(self, key: int, default: Any = None) -> Any:  # the walk's only question
        self.asked.append(key)
        return default

    def __getitem__(self, key: int) -> int:
        self.asked.append(key)
        raise KeyError(key)

    def __len__(self) -> int:
        return 1

    def __iter__(self) -> Iterator[int]:
        return iter(())


class Ahead:
    """A top document built before its clickable map arrived.

    Attributes:
        frame_id: the frame built.
        nodes: its AX nodes, as decoded for the build.
        tree: the printed tree built with no element clickable.
    """

    __slots__ = ("_asked", "frame_id", "nodes", "tree")

    def __init__(self, frame_id: str, nodes: list[AXNode], tree: list[Node], asked: list[int]):
        self.frame_id = frame_id
        self.nodes = nodes
        self.tree = tree
        self._asked = asked

    def holds(self, clickable: Mapping[int, int]) -> bool:
        """Whether :attr:`tree` is the tree ``clickable`` gives (see the module).

        Args:
            clickable: the frame's real clickable map (empty: none).
        """
        if not clickable:
            return True
        if hidden_of(clickable, self.frame_id, self.nodes) is not None:
            return False
        return clickable.keys().isdisjoint(self._asked)


def build_ahead(frame_id: str, nodes: list[AXNode]) -> Ahead | None:
    """Build a top document's tree before its clickable map is in.

    Args:
        frame_id: the document's frame id.
        nodes: its AX nodes (BFS order, document root first).

    Returns:
        What was built, or None when the document embeds a frame (its tree
        needs the child frames) or has no nodes.
    """
    if not nodes or embeds_frames(nodes):
        return None
    asked = _AskedMap()
    frame = FrameAX(frame_id=frame_id, nodes=nodes, clickable=asked)
    with gc_paused():
        tree = full_build(frame)
    return Ahead(frame_id, nodes, tree, asked.asked)
