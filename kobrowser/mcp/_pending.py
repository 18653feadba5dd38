"""Library API the MCP tools use before every kobrowser has it: one guard each.

``Tab.find`` and ``Tab.snapshot(text_limit=...)`` come with issue 10. Until they are in
the installed kobrowser, the tools that need them answer with
:class:`NotAvailableError` (a tool error the model reads) instead of failing
the server. Once they land, replace each guard by the direct call and delete
this module.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import kobrowser

if TYPE_CHECKING:
    from kobrowser import Element, Tab

__all__ = ["NotAvailableError", "find", "text_limit_option"]


class NotAvailableError(Exception):
    """The installed kobrowser lacks what a tool needs."""

    def __init__(self, what: str, needs: str) -> None:
        super().__init__(
            f"{what} is not available in this kobrowser version ({kobrowser.__version__}): "
            f"it needs {needs}. Update kobrowser."
        )


def text_limit_option(tab: Tab, text_limit: int | None) -> dict[str, Any]:
    """The ``snapshot()`` keyword for the tool's ``text_limit`` (0: whole text).

    Returns ``{}`` when ``text_limit`` is None (the library's default).

    Raises:
        NotAvailableError: ``Tab.snapshot`` takes no ``text_limit``.
    """
    if text_limit is None:
        return {}
    if "text_limit" not in inspect.signature(tab.snapshot).parameters:
        raise NotAvailableError("text_limit", "Tab.snapshot(text_limit=...)")
    return {"text_limit": text_limit or None}


async def find(
    tab: Tab, *, role: str | None, name: str | None, text: str | None, exact: bool
) -> list[Element]:
    """``await tab.find(role=..., name=..., text=..., exact=...)``.

    Raises:
        NotAvailableError: ``Tab.find`` does not exist yet.
    """
    method = getattr(tab, "find", None)
    if method is None:
        raise NotAvailableError("find", "Tab.find()")
    found: list[Element] = await method(role=role, name=name, text=text, exact=exact)
    return found
