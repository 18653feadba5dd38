"""Small msgspec structs for the ``Target`` domain events every layer follows.

One definition, decoded with prebuilt decoders: the connection, the frame
registry, the page state and the browser's target tracking all read
``Target.attachedToTarget`` / ``Target.detachedFromTarget`` the same way (and
the connection reads ``Target.targetCrashed`` / ``Target.targetDestroyed``).
"""

from __future__ import annotations

import msgspec

__all__ = [
    "ATTACHED",
    "DETACHED",
    "TARGET_REF",
    "AttachedToTarget",
    "DetachedFromTarget",
    "TargetInfo",
    "TargetRef",
]


class TargetInfo(msgspec.Struct, gc=False):
    """The fields of ``Target.TargetInfo`` kobrowser reads."""

    targetId: str
    type: str = ""
    openerId: str | None = None
    browserContextId: str | None = None


class AttachedToTarget(msgspec.Struct, gc=False):
    """``Target.attachedToTarget`` parameters."""

    sessionId: str
    targetInfo: TargetInfo


class DetachedFromTarget(msgspec.Struct, gc=False):
    """``Target.detachedFromTarget`` parameters (also read for ``targetId`` events)."""

    sessionId: str | None = None
    targetId: str | None = None


class TargetRef(msgspec.Struct, gc=False):
    """``Target.targetCrashed`` / ``Target.targetDestroyed`` parameters (the id only)."""

    targetId: str


ATTACHED = msgspec.json.Decoder(AttachedToTarget)
DETACHED = msgspec.json.Decoder(DetachedFromTarget)
TARGET_REF = msgspec.json.Decoder(TargetRef)
