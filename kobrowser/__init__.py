"""kobrowser: see and drive real web pages through Chrome's accessibility tree.

The public API is re-exported here; everything else is private.
"""

from __future__ import annotations

from ._browser import Browser, connect, launch
from ._context import BrowserContext
from ._dialogs import Dialog
from ._downloads import Download
from ._exceptions import (
    CDPError,
    CDPTimeoutError,
    ConnectionClosedError,
    ElementError,
    InvalidSelectorError,
    KoBrowserError,
    LaunchError,
    NavigationError,
    NoSnapshotError,
    NotInteractableError,
    ProtocolError,
    SnapshotError,
    StaleElementError,
    TargetClosedError,
    UnknownElementError,
    WaitTimeoutError,
    WrongElementKindError,
)
from ._pagestate import Response
from ._snapshot import Element, Snapshot
from ._tab import Tab
from .cdp import CDPEvent, CDPSession, EventStream
from .snapshot import ParsedSnapshot, SnapshotLine, parse_snapshot

__version__ = "0.1.0"

__all__ = [
    "Browser",
    "BrowserContext",
    "CDPError",
    "CDPEvent",
    "CDPSession",
    "CDPTimeoutError",
    "ConnectionClosedError",
    "Dialog",
    "Download",
    "Element",
    "ElementError",
    "EventStream",
    "InvalidSelectorError",
    "KoBrowserError",
    "LaunchError",
    "NavigationError",
    "NoSnapshotError",
    "NotInteractableError",
    "ParsedSnapshot",
    "ProtocolError",
    "Response",
    "Snapshot",
    "SnapshotError",
    "SnapshotLine",
    "StaleElementError",
    "Tab",
    "TargetClosedError",
    "UnknownElementError",
    "WaitTimeoutError",
    "WrongElementKindError",
    "connect",
    "launch",
    "parse_snapshot",
]
