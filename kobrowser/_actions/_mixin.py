"""The action methods of a tab (click, fill, type, press, ...)."""

from __future__ import annotations

from .._tab_core import TabCore

__all__ = ["ActionsMixin"]


class ActionsMixin(TabCore):
    """Act on elements by their snapshot id."""
