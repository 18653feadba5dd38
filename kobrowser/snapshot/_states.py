"""States of a printed element, read from its AX properties.

``focused``, ``disabled``, ``required``, ``readonly``, ``multiline``,
``selected`` when the property is true; ``checked`` for checked ``"true"``;
``mixed`` for checked or pressed ``"mixed"``; ``pressed`` for pressed
``"true"``; ``expanded``/``collapsed`` when the ``expanded`` property is
true/false (absent or undefined: neither). Any role may carry them; order is
the grammar's (:data:`STATE_ORDER`).

States are collected as bits (:func:`read_props`) and turned into a tuple
through the cache :data:`STATES_BY_BITS`, which the walk in ``_tree`` reads
directly (falling back to :func:`states_of` on a miss).
"""

from __future__ import annotations

from typing import Any, Final

from ._ax import AXProperty

__all__ = ["STATES_BY_BITS", "STATE_ORDER", "read_props", "states_of"]

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
)
"""All states, in the order of the format's grammar."""

_BIT: Final = {state: 1 << i for i, state in enumerate(STATE_ORDER)}

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

STATES_BY_BITS: dict[int, tuple[str, ...]] = {0: ()}
"""State bits -> states in grammar order (a cache, filled by :func:`states_of`)."""


def states_of(bits: int) -> tuple[str, ...]:
    """The states set in ``bits``, in grammar order."""
    states = STATES_BY_BITS.get(bits)
    if states is None:
        states = tuple(s for s in STATE_ORDER if bits & _BIT[s])
        STATES_BY_BITS[bits] = states
    return states


def read_props(props: list[AXProperty]) -> tuple[int, bool]:
    """State bits and whether ``editable`` is present."""
    bits = 0
    editable = False
    for prop in props:
        pname = prop.name
        if pname in _STATE_PROPS:
            v = prop.value.value
            if v.__class__ is bool or v.__class__ is str:
                bits |= _PROP_BITS.get((pname, v), 0)
        elif pname == "editable":
            editable = True
    return bits, editable
