"""The tab: :class:`Tab` and the helpers it is composed of (see ``_tab``)."""

from __future__ import annotations

from ._dialogs import Dialog
from ._pagestate import Response
from ._tab import Tab

__all__ = ["Dialog", "Response", "Tab"]
