"""A mirror of a page's accessibility tree, kept current by Chrome's events.

Repeat snapshots of a large page read the nodes Chrome reported changed
instead of the whole tree. :class:`DocumentMirror` follows one document;
:class:`MirrorStore` is its pure node store; :class:`AXMirrorSettings` says
when mirrors are used (``Browser.ax_mirror``, ``KOBROWSER_AX_MIRROR``).
"""

from __future__ import annotations

from kobrowser._tab._axmirror._mirror import (
    THROTTLE_WINDOW,
    DocumentMirror,
    MirrorAnswer,
    diff_nodes,
)
from kobrowser._tab._axmirror._policy import TabMirror
from kobrowser._tab._axmirror._settings import ENV_VAR, AXMirrorSettings, settings_from_env
from kobrowser._tab._axmirror._store import SUSPECT_ROLES, MirrorStore, UpdateVerdict, decode_nodes

__all__ = [
    "ENV_VAR",
    "SUSPECT_ROLES",
    "THROTTLE_WINDOW",
    "AXMirrorSettings",
    "DocumentMirror",
    "MirrorAnswer",
    "MirrorStore",
    "TabMirror",
    "UpdateVerdict",
    "decode_nodes",
    "diff_nodes",
    "settings_from_env",
]
