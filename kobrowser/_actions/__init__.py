"""Actions by snapshot id: resolution, actionability, trusted input."""

from __future__ import annotations

from ._mixin import ActionsMixin

__all__ = ["ActionsMixin"]
