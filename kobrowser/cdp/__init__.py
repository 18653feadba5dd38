"""The Chrome DevTools Protocol layer: transport, connection, sessions, launcher.

Nothing here knows about snapshots or elements; it is usable on its own::

    from kobrowser.cdp import Connection, open_transport

A launched Chrome is reached over a pipe (CBOR with the native codec, else
JSON), a connected one over its WebSocket; ``Connection.transport_kind`` says
which (``"pipe-cbor"``, ``"pipe-json"`` or ``"websocket"``).
"""

from __future__ import annotations

from kobrowser.cdp._connection import (
    BatchCall,
    ClickableMapDecode,
    Connection,
    Decode,
    LeanAXDecode,
    LeanClickableDecode,
)
from kobrowser.cdp._launcher import (
    TRANSPORTS,
    ChromeProcess,
    choose_transport,
    find_chrome,
    resolve_endpoint,
)
from kobrowser.cdp._pipe import PipeTransport, cbor_codec
from kobrowser.cdp._profiles import sweep_stale_profiles
from kobrowser.cdp._session import CDPEvent, CDPSession, EventStream
from kobrowser.cdp._transport import AiohttpTransport, Transport, WsprotoTransport, open_transport

__all__ = [
    "TRANSPORTS",
    "AiohttpTransport",
    "BatchCall",
    "CDPEvent",
    "CDPSession",
    "ChromeProcess",
    "ClickableMapDecode",
    "Connection",
    "Decode",
    "EventStream",
    "LeanAXDecode",
    "LeanClickableDecode",
    "PipeTransport",
    "Transport",
    "WsprotoTransport",
    "cbor_codec",
    "choose_transport",
    "find_chrome",
    "open_transport",
    "resolve_endpoint",
    "sweep_stale_profiles",
]
