"""The text of tool replies: the page after an action, found elements, errors."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcp.types import CallToolResult, TextContent

import kobrowser

if TYPE_CHECKING:
    from kobrowser import Element, Snapshot

__all__ = [
    "EMPTY_PAGE",
    "element_line",
    "error_message",
    "failure",
    "json_text",
    "page_block",
    "success",
]

#: What a snapshot without any element shows.
EMPTY_PAGE = "(the page shows nothing)"

_NAME_LIMIT = 80
_VALUE_LIMIT = 50


def success(text: str) -> CallToolResult:
    """A tool reply."""
    return CallToolResult(content=[TextContent(type="text", text=text)])


def failure(text: str) -> CallToolResult:
    """A tool error the model reads (the server goes on)."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def page_block(snapshot: Snapshot) -> str:
    """``URL: ...`` then the snapshot text (its ``Page:`` line and numbered elements)."""
    text = snapshot.text.rstrip("\n")
    if not snapshot.id_map:
        text = f"{text}\n{EMPTY_PAGE}" if text else EMPTY_PAGE
    return f"URL: {snapshot.url}\n{text}"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def element_line(element: Element) -> str:
    """One element as a snapshot line, without indentation: ``5: button "Pay" disabled``."""
    parts = [f"{element.id}: {element.role}"]
    if element.name:
        parts.append(f'"{_cut(element.name, _NAME_LIMIT)}"')
    if element.value is not None and element.value != element.name:
        parts.append(f'value="{_cut(element.value, _VALUE_LIMIT)}"')
    parts.extend(element.states)
    return " ".join(parts)


def json_text(value: Any) -> str:
    """A JavaScript value as JSON text (``undefined`` and ``null`` both print ``null``).

    Raises:
        ValueError: the value is nested too deeply to print (a tool failure).
    """
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        raise ValueError(
            "the value is nested too deeply to print: return a part of it, "
            "or JSON.stringify it in the script"
        ) from None


def error_message(exc: BaseException) -> str:
    """kobrowser's own message on one line, with what to do where the message lacks it."""
    # A launch error's first line; Chrome's stderr follows it.
    message = str(exc).split("\n", 1)[0] if isinstance(exc, kobrowser.LaunchError) else str(exc)
    message = " ".join(message.split()) or type(exc).__name__
    if isinstance(exc, kobrowser.ConnectionClosedError):
        message += " The browser is gone: restart the MCP server."
    elif isinstance(exc, kobrowser.TargetClosedError):
        message += " The tab is gone: call tabs to see the open ones."
    elif isinstance(exc, FileNotFoundError):
        message = f"no such file: {exc.filename}" if exc.filename else message
    return message
