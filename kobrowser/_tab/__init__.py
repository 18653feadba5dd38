"""The tab: :class:`Tab` and the helpers it is composed of (see ``_tab``)."""

from __future__ import annotations

from kobrowser._tab._dialogs import Dialog
from kobrowser._tab._pagestate import Response
from kobrowser._tab._tab import Tab

__all__ = ["Dialog", "Response", "Tab"]
