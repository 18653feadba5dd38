"""The Chrome DevTools Protocol layer: transport, connection, sessions, launcher.

Nothing here knows about snapshots or elements; it is usable on its own::

    from kobrowser.cdp import Connection, open_transport
"""

from __future__ import annotations

from ._connection import BatchCall, Connection, Decode
from ._launcher import ChromeProcess, find_chrome, resolve_endpoint
from ._session import CDPEvent, CDPSession, EventStream
from ._transport import AiohttpTransport, Transport, WsprotoTransport, open_transport

__all__ = [
    "AiohttpTransport",
    "BatchCall",
    "CDPEvent",
    "CDPSession",
    "ChromeProcess",
    "Connection",
    "Decode",
    "EventStream",
    "Transport",
    "WsprotoTransport",
    "find_chrome",
    "open_transport",
    "resolve_endpoint",
]
