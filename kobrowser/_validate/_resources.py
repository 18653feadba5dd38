"""Chrome's resource types by the lower-case names kobrowser uses, and their check.

Standard library only: the ``ko-browser`` client checks ``--block`` with it.
"""

from __future__ import annotations

from collections.abc import Iterable

from kobrowser._exceptions import InvalidArgumentError
from kobrowser._validate._values import fail

__all__ = ["RESOURCE_TYPES", "check_resource_types"]

#: Chrome's ``Network.ResourceType`` values, by the lower-case names kobrowser
#: (and Playwright) use.
RESOURCE_TYPES: dict[str, str] = {
    "document": "Document",
    "stylesheet": "Stylesheet",
    "image": "Image",
    "media": "Media",
    "font": "Font",
    "script": "Script",
    "texttrack": "TextTrack",
    "xhr": "XHR",
    "fetch": "Fetch",
    "prefetch": "Prefetch",
    "eventsource": "EventSource",
    "websocket": "WebSocket",
    "manifest": "Manifest",
    "signedexchange": "SignedExchange",
    "ping": "Ping",
    "cspviolationreport": "CSPViolationReport",
    "preflight": "Preflight",
    "other": "Other",
}


def check_resource_types(types: Iterable[str], argument: str = "types") -> frozenset[str]:
    """The resource type names, lower-cased, each checked (errors name ``argument``).

    Raises:
        InvalidArgumentError: an unknown type (the message lists the known ones).
    """
    if isinstance(types, str):
        types = [part for part in types.split(",") if part.strip()]
    if isinstance(types, (bytes, dict)) or not isinstance(types, Iterable):
        raise fail(argument, types, "resource type names (a list of strings or 'a,b')")
    types = list(types)
    for name in types:
        if not isinstance(name, str):
            raise fail(argument, name, "resource type names (strings)")
    names = frozenset(name.strip().lower() for name in types)
    unknown = sorted(names - RESOURCE_TYPES.keys())
    if unknown:
        prefix = f"{argument}: " if argument else ""
        raise InvalidArgumentError(
            f"{prefix}unknown resource type {unknown[0]!r}; "
            f"known types: {', '.join(RESOURCE_TYPES)}",
            argument=argument or None,
        )
    return names
