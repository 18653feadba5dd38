"""Settings of the accessibility-tree mirror (``Browser.ax_mirror``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

import msgspec

from kobrowser._exceptions import InvalidArgumentError

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
            had at least this many AX nodes (not counting the inline text
            boxes, which the CBOR pipe leaves out: the same on every
            transport).
        repeat_min_nodes: a smaller document with at least this many nodes
            gets a mirror at its third full fetch in a row (a tab that
            snapshots the same document again and again: a poll, a loop of
            actions on one page), so that a page that did not change costs
            one round trip, not a fetch. ``min_nodes`` or more: never.
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
        join_crawl: a default snapshot that comes while the mirror is built
            waits for the crawl to end (which then sends all its calls at
            once) and is served by the mirror, when what is left of the
            crawl is estimated to cost at most this many full fetches of the
            document; otherwise it fetches in full. Snapshots back to back
            otherwise leave the crawl a batch or two each, and it never
            ends. 0: never wait.
    """

    enabled: bool = True
    min_nodes: int = 10_000
    repeat_min_nodes: int = 1_000
    max_update_share: float = 0.25
    check_every: int = 50
    verify: bool = False
    crawl_batch: int = 128
    join_crawl: float = 6.0

    def __post_init__(self) -> None:
        def bad(name: str, expected: str) -> InvalidArgumentError:
            value = getattr(self, name)
            return InvalidArgumentError(
                f"{name}: got {value!r}; expected {expected}", argument=name
            )

        for name in ("enabled", "verify"):
            if not isinstance(getattr(self, name), bool):
                raise bad(name, "True or False")
        for name, low in (
            ("min_nodes", 0),
            ("repeat_min_nodes", 0),
            ("check_every", 0),
            ("crawl_batch", 1),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise bad(name, f"a whole number >= {low}")
        share = self.max_update_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
            raise bad("max_update_share", "a number in (0, 1]")
        join = self.join_crawl
        if isinstance(join, bool) or not isinstance(join, (int, float)) or not 0 <= join < 1e9:
            raise bad("join_crawl", "a number >= 0")


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
        InvalidArgumentError: the variable holds another word.
    """
    settings = base or AXMirrorSettings()
    word = (os.environ if environ is None else environ).get(ENV_VAR, "").strip().lower()
    if not word:
        return settings
    changes = _WORDS.get(word)
    if changes is None:
        raise InvalidArgumentError(
            f"{ENV_VAR}: got {word!r}; expected one of {', '.join(_WORDS)}", argument=ENV_VAR
        )
    return msgspec.structs.replace(settings, **changes)
