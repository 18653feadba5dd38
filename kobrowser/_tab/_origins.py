"""The origins a tab's documents come from, noted for its context's storage state."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["track_origins"]


class _Frame(msgspec.Struct):
    securityOrigin: str = ""


class _Navigated(msgspec.Struct):
    frame: _Frame


_NAVIGATED = msgspec.json.Decoder(_Navigated)


def track_origins(session: CDPSession, note: Callable[[str], None]) -> None:
    """Call ``note(origin)`` with the http(s) origin of every document ``session`` navigates to."""

    def navigated(raw: msgspec.Raw) -> None:
        origin = _NAVIGATED.decode(raw).frame.securityOrigin
        if origin.startswith(("http://", "https://")):
            note(origin)

    session.add_listener("Page.frameNavigated", navigated)
