"""Settings of the accessibility-tree mirror (``Browser.ax_mirror``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

import msgspec

__all__ = ["ENV_VAR", "AXMirrorSettings", "settings_from_env"]

ENV_VAR: Final = "KOBROWSER_AX_MIRROR"


class AXMirrorSettings(msgspec.Struct, frozen=True, kw_only=True):
    """When and how a tab keeps a mirror of its page's accessibility tree.

    A mirror replaces the full fetch of the top document's AX tree by the
    nodes Chrome reported changed since the last snapshot. It only pays on
    large pages: a full fetch of a small page costs a few milliseconds.

    Attributes:
        enabled: keep mirrors at all.
        min_nodes: start a mirror for a document once a full fetch of it
            had at least this many AX nodes.
        max_update_share: a snapshot whose pending updates touch more than
            this share of the mirrored nodes is fetched in full instead
            (it would cost as much, and a page that changed that much is
            likely to keep changing).
        check_every: every this many mirrored snapshots, one is compared
            with a full fetch; a difference drops the mirror (it is rebuilt)
            and the full fetch is used. 0: never.
        verify: compare every mirrored snapshot with a full fetch and raise
            :class:`AssertionError` on any difference (for tests).
        crawl_batch: ``getChildAXNodes`` calls per batch while the mirror is
            built in the background (an action or snapshot waits behind at
            most one batch).
    """

    enabled: bool = True
    min_nodes: int = 10_000
    max_update_share: float = 0.25
    check_every: int = 50
    verify: bool = False
    crawl_batch: int = 128

    def __post_init__(self) -> None:
        if self.min_nodes < 0:
            raise ValueError(f"min_nodes must be >= 0, not {self.min_nodes!r}")
        if not 0.0 < self.max_update_share <= 1.0:
            raise ValueError(f"max_update_share must be in (0, 1], not {self.max_update_share!r}")
        if self.check_every < 0:
            raise ValueError(f"check_every must be >= 0, not {self.check_every!r}")
        if self.crawl_batch < 1:
            raise ValueError(f"crawl_batch must be >= 1, not {self.crawl_batch!r}")


_WORDS: Final[Mapping[str, Mapping[str, object]]] = {
    "off": {"enabled": False},
    "0": {"enabled": False},
    "on": {},
    "1": {},
    "always": {"min_nodes": 0},
    "verify": {"min_nodes": 0, "verify": True, "check_every": 0},
}


def settings_from_env(
    base: AXMirrorSettings | None = None, environ: Mapping[str, str] | None = None
) -> AXMirrorSettings:
    """``base`` (default settings when None) as ``KOBROWSER_AX_MIRROR`` changes it.

    The variable is ``off``/``0``, ``on``/``1``, ``always`` (any page size)
    or ``verify`` (any page size, every snapshot compared with a full fetch).

    Raises:
        ValueError: the variable holds another word.
    """
    settings = base or AXMirrorSettings()
    word = (os.environ if environ is None else environ).get(ENV_VAR, "").strip().lower()
    if not word:
        return settings
    changes = _WORDS.get(word)
    if changes is None:
        raise ValueError(f"{ENV_VAR} must be one of {', '.join(_WORDS)}, not {word!r}")
    return msgspec.structs.replace(settings, **changes)
