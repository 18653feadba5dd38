"""The optional C walk (``kobrowser.snapshot._cwalk``, built from ``_cwalk.c``).

The walk of a full build (``_tree.build_tree`` and ``prebuild_frame`` without
``scope`` or ``memo``: every fresh snapshot, every tab of a many-tab round) is
the largest CPU cost of a snapshot after decoding, about 1.4 us per AX node in
Python. ``_cwalk.c`` is a line-by-line transliteration of ``_tree._build`` for
that case, about three times faster. Design:

* **``_tree._build`` is the reference.** The C file mirrors it line by line
  (its comments quote the Python lines) with the hot helpers it inlines
  (``push_children``, ``read_props``, the single-child finish, the text piece
  tuple), and two that measured as a large part of the C walk when called
  back: ``_walkstate.finish`` (a third, 12,000 calls on the 2,400-row table)
  and the node index of ``frame_state`` without an index (a fifth). Every
  other rule that is cold or rule-heavy stays in Python and is called back
  from C, so that each has exactly one copy: candidates
  (``finish_candidate``), labels (``resolve_labels``), ``flush_run``,
  ``merge_text``, frames (``push_frame``, ``frame_state`` of child frames),
  ``value_to_text``, ``is_password_value``, role and state cache misses
  (``role_info``, ``states_of``) and the list-marker pattern. Constants come
  from the Python modules too (kinds, state bits, ``_PROP_BITS``).
* **Any change to the walk's rules in ``_tree`` must be made in
  ``_cwalk.c`` too.** ``tests/snapshot/test_cwalk.py`` compares the two walks
  on random trees (frames, labels, candidates, list markers) and fails when
  they differ; the snapshot unit tests run on both walks.
* **Fallback.** Without the extension (no C compiler, ``KOBROWSER_NO_EXTENSION=1``,
  a build of an older ``_cwalk.c`` whose ``ABI`` differs), the Python walk runs,
  said once at debug level. The C walk also hands back ``None`` when it meets an
  object it does not read (a struct type it was not configured with, a field
  that is not a list or tuple ...); the Python walk then runs on the same input
  and gives the answer, or raises what it raises on a malformed tree.
* **The numbering too.** ``_cnumber.h``, included by ``_cwalk.c``, is
  ``_format._format_elements`` without a ``FormatCache`` (every fresh or
  unmirrored snapshot): the lines are numbered and the element factory called
  in the same order, and the text is made as one string of the exact size and
  kind. The Python numbering is the reference and the fallback (``None`` on
  an object it does not read); ``tests/snapshot/test_cnumber.py`` compares
  the two, and :data:`_tree.USE_CWALK` switches both off.
* Struct fields are read at the member offsets of the msgspec structs
  (:class:`AXNode`, :class:`AXValue`, :class:`AXProperty`, the walk's lean
  decodes of them and :class:`Node`), checked once here by ``configure``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from . import _ax, _roles, _states
from ._labels import LABEL_END, LABEL_START, resolve_labels
from ._node import Node
from ._promote import finish_candidate
from ._runs import LINE_BREAK, SEPARATOR, flush_run, merge_text
from ._text import is_password_value, value_to_text
from ._walkstate import frame_state, push_frame

if TYPE_CHECKING:
    from ._tree import FrameAX

__all__ = ["CWALK_ABI", "CBuild", "CNumber", "load_cwalk", "loaded_number"]

_log = logging.getLogger("kobrowser.snapshot")

CWALK_ABI: Final = 4
"""The ``ABI`` the extension must report (``CWALK_ABI`` in ``_cwalk.c``)."""

CBuild = Callable[["FrameAX", "Mapping[str, _ax.AXNode] | None", bool], "list[Node] | None"]
"""``build(frame, index, proper)``: the printed roots, or ``None`` (run the Python walk)."""

CNumber = Callable[[list[Node], str, int, int, Any], "tuple[str, list[Any], list[Any]] | None"]
"""``number(roots, head, name_max, value_max, element)``: ``_format._format_elements``
without a cache, in C (``_cnumber.h``): the text (``head`` first), the entries in
id order and the top-level entries, or ``None`` (run the Python numbering)."""

_number: CNumber | None = None


def load_cwalk(marker_match: Callable[[str], object]) -> CBuild | None:
    """The configured C walk's ``build``, or ``None`` when it is not built or is stale.

    Args:
        marker_match: ``_tree._MARKER.fullmatch`` (what reads like a list marker).
    """
    try:
        module: Any = importlib.import_module(f"{__package__}._cwalk")
    except ImportError:
        _log.debug("kobrowser.snapshot._cwalk is not built: snapshots use the Python walk")
        return None
    abi = getattr(module, "ABI", None)
    if abi != CWALK_ABI:
        _log.debug(
            "kobrowser.snapshot._cwalk is stale (ABI %s, this code needs %d; rebuild it: "
            "pip install -e .): snapshots use the Python walk",
            abi,
            CWALK_ABI,
        )
        return None
    try:
        module.configure(
            Node=Node,
            ROLE_CACHE=_roles.ROLE_CACHE,
            role_info=_roles.role_info,
            STATES_BY_BITS=_states.STATES_BY_BITS,
            states_of=_states.states_of,
            PROP_BITS=_states._PROP_BITS,
            value_to_text=value_to_text,
            is_password_value=is_password_value,
            finish_candidate=finish_candidate,
            resolve_labels=resolve_labels,
            flush_run=flush_run,
            merge_text=merge_text,
            push_frame=push_frame,
            frame_state=frame_state,
            marker_match=marker_match,
            SEPARATOR=SEPARATOR,
            LINE_BREAK=LINE_BREAK,
            LABEL_START=LABEL_START,
            LABEL_END=LABEL_END,
            INLINE_ROLES=_roles.INLINE_ROLES,
            FIELD_ROLES=_roles.FIELD_ROLES,
            SKIP=_roles.SKIP,
            BREAK=_roles.BREAK,
            TEXT=_roles.TEXT,
            TRANSPARENT=_roles.TRANSPARENT,
            NAMED=_roles.NAMED,
            STRUCTURE=_roles.STRUCTURE,
            INTERACTIVE=_roles.INTERACTIVE,
            IFRAME=_roles.IFRAME,
            CLICKABLE_BIT=_states.CLICKABLE_BIT,
            FOCUSABLE_BIT=_states.FOCUSABLE_BIT,
            EDITABLE=_states.EDITABLE,
            FOCUSABLE=_states.FOCUSABLE,
            node_types=(_ax.AXNode, _ax._WalkAXNode, _ax.FlatAXNode),
            value_types=(_ax.AXValue, _ax._WalkAXValue),
            property_types=(_ax.AXProperty, _ax._WalkAXProperty, _ax.FlatAXProperty),
            flat_types=(_ax.FlatAXNode, _ax.FlatAXProperty),
        )
    except (TypeError, ValueError) as exc:
        _log.debug("kobrowser.snapshot._cwalk does not fit this code (%s): Python walk", exc)
        return None
    build: CBuild = module.build
    global _number
    _number = module.number
    return build


def loaded_number() -> CNumber | None:
    """The C numbering of the extension :func:`load_cwalk` configured, or ``None``."""
    return _number
