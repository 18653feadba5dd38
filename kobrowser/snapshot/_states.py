"""States of a printed element, read from its AX properties.

``focused``, ``disabled``, ``required``, ``readonly``, ``multiline``,
``selected`` when the property is true; ``checked`` for checked ``"true"``;
``mixed`` for checked or pressed ``"mixed"``; ``pressed`` for pressed
``"true"``; ``expanded``/``collapsed`` when the ``expanded`` property is
true/false (absent or undefined: neither). Any role may carry them; order is
the grammar's (:data:`STATE_ORDER`).

kobrowser adds two states after the seed's eleven, set by the walk in
``_tree`` (not by a property alone): ``clickable`` (the page made the element
clickable: a click listener of its own, or a ``cursor: pointer`` that its
parent does not have) and ``focusable`` (Chrome's ``focusable`` property),
both only on elements without an interactive role (see ``_tree``).
:func:`read_props` reports ``focusable`` apart (:data:`FOCUSABLE`), since
every interactive element is focusable too.

States are collected as bits (:func:`read_props`) and turned into a tuple
through the cache :data:`STATES_BY_BITS`, which the walk in ``_tree`` reads
directly (falling back to :func:`states_of` on a miss).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from kobrowser.snapshot._ax import AXProperty, FlatAXProperty

__all__ = [
    "CLICKABLE_BIT",
    "EDITABLE",
    "FOCUSABLE",
    "FOCUSABLE_BIT",
    "READ_PROPERTIES",
    "STATES_BY_BITS",
    "STATE_ORDER",
    "read_props",
    "states_of",
]

STATE_ORDER: Final[tuple[str, ...]] = (
    "focused",
    "disabled",
    "checked",
    "expanded",
    "collapsed",
    "selected",
    "required",
    "readonly",
    "multiline",
    "mixed",
    "pressed",
    "clickable",
    "focusable",
)
"""All states, in the order of the format's grammar (kobrowser's two last)."""

_BIT: Final = {state: 1 << i for i, state in enumerate(STATE_ORDER)}
CLICKABLE_BIT: Final = _BIT["clickable"]
FOCUSABLE_BIT: Final = _BIT["focusable"]

# Flags returned by read_props beside the state bits.
EDITABLE: Final = 1
"""The ``editable`` property is present."""
FOCUSABLE: Final = 2
"""The ``focusable`` property is true."""

# (property name, property value) -> state bit.
_PROP_BITS: Final[dict[tuple[str, Any], int]] = {
    ("focused", True): _BIT["focused"],
    ("disabled", True): _BIT["disabled"],
    ("checked", "true"): _BIT["checked"],
    ("checked", True): _BIT["checked"],
    ("checked", "mixed"): _BIT["mixed"],
    ("pressed", "true"): _BIT["pressed"],
    ("pressed", True): _BIT["pressed"],
    ("pressed", "mixed"): _BIT["mixed"],
    ("expanded", True): _BIT["expanded"],
    ("expanded", False): _BIT["collapsed"],
    ("selected", True): _BIT["selected"],
    ("required", True): _BIT["required"],
    ("readonly", True): _BIT["readonly"],
    ("multiline", True): _BIT["multiline"],
}
_STATE_PROPS: Final = frozenset(name for name, _ in _PROP_BITS)
READ_PROPERTIES: Final = frozenset({*_STATE_PROPS, "editable", "focusable"})
"""Every property :func:`read_props` reads (a flat answer keeps only these:
``LeanPropertyName`` in :mod:`._ax`, held equal by a test)."""

STATES_BY_BITS: dict[int, tuple[str, ...]] = {0: ()}
"""State bits -> states in grammar order (a cache, filled by :func:`states_of`)."""


def states_of(bits: int) -> tuple[str, ...]:
    """The states set in ``bits``, in grammar order."""
    states = STATES_BY_BITS.get(bits)
    if states is None:
        states = tuple(s for s in STATE_ORDER if bits & _BIT[s])
        STATES_BY_BITS[bits] = states
    return states


def read_props(
    props: Sequence[AXProperty] | Sequence[FlatAXProperty], flat: bool = False
) -> tuple[int, int]:
    """State bits, and flags: :data:`EDITABLE`, :data:`FOCUSABLE`.

    ``flat``: the properties of a flat node (``FlatAXNode``), whose values
    are the values themselves, not AXValues.
    """
    bits = 0
    flags = 0
    for prop in props:
        pname = prop.name
        if pname in _STATE_PROPS:
            v = prop.value if flat else prop.value.value
            if v.__class__ is bool or v.__class__ is str:
                bits |= _PROP_BITS.get((pname, v), 0)
        elif pname == "editable":
            flags |= EDITABLE
        elif pname == "focusable" and (prop.value if flat else prop.value.value) is True:
            flags |= FOCUSABLE
    return bits, flags
