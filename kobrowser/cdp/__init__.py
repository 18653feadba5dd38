"""The Chrome DevTools Protocol layer: transport, connection, sessions, launcher.

Nothing here knows what its callers read in Chrome's answers; it is usable
on its own::

    from kobrowser.cdp import Connection, open_transport

A launched Chrome is reached over a pipe (CBOR with the native codec, else
JSON), a connected one over its WebSocket; ``Connection.transport_kind`` says
which (``"pipe-cbor"``, ``"pipe-json"`` or ``"websocket"``). A caller that
reads only part of a large answer passes a :class:`Keep` with the call; the
CBOR pipe then transcodes only that part.
"""

from __future__ import annotations

from kobrowser.cdp._calls import Decode
from kobrowser.cdp._codec import cbor_codec
from kobrowser.cdp._connection import Connection
from kobrowser.cdp._keep import Keep, KeptDecode
from kobrowser.cdp._launcher import (
    TRANSPORTS,
    ChromeProcess,
    choose_transport,
    find_chrome,
    resolve_endpoint,
)
from kobrowser.cdp._pipe import PipeTransport
from kobrowser.cdp._profiles import sweep_stale_profiles
from kobrowser.cdp._session import BatchCall, CDPEvent, CDPSession, EventStream, SessionConnection
from kobrowser.cdp._transport import AiohttpTransport, Transport, WsprotoTransport, open_transport

__all__ = [
    "TRANSPORTS",
    "AiohttpTransport",
    "BatchCall",
    "CDPEvent",
    "CDPSession",
    "ChromeProcess",
    "Connection",
    "Decode",
    "EventStream",
    "Keep",
    "KeptDecode",
    "PipeTransport",
    "SessionConnection",
    "Transport",
    "WsprotoTransport",
    "cbor_codec",
    "choose_transport",
    "find_chrome",
    "open_transport",
    "resolve_endpoint",
    "sweep_stale_profiles",
]
