"""kobrowser: see and drive real web pages through Chrome's accessibility tree.

The public API is re-exported here; everything else is private.
"""

from __future__ import annotations

import typing as _typing

from ._exceptions import (
    ActionSyntaxError,
    CaptureError,
    CDPError,
    CDPTimeoutError,
    ConnectionClosedError,
    DownloadError,
    ElementError,
    InvalidArgumentError,
    InvalidSelectorError,
    JavaScriptError,
    KoBrowserError,
    LaunchError,
    ModelError,
    NavigationError,
    NoSnapshotError,
    NotInteractableError,
    ProtocolError,
    SnapshotError,
    SnapshotTooLargeError,
    StaleElementError,
    TargetClosedError,
    UnknownElementError,
    WaitTimeoutError,
    WrongElementKindError,
)

if _typing.TYPE_CHECKING:
    from ._axmirror import AXMirrorSettings
    from ._browser import Browser, BrowserContext, Download, connect, launch
    from ._devices import Device, devices
    from ._emulation import Emulation, Geolocation
    from ._geometry import Box
    from ._network import ConsoleMessage, PageError, Request, RequestRecord, Route
    from ._snapshot import Element, Snapshot
    from ._tab import Dialog, Response, Tab
    from .actions import Action, Outcome, parse_action, parse_actions
    from .cdp import CDPEvent, CDPSession, EventStream
    from .scrape import Scraper, ScrapeResult, scrape
    from .snapshot import (
        DiffEntry,
        ParsedSnapshot,
        SnapshotDiff,
        SnapshotLine,
        diff_snapshots,
        parse_snapshot,
    )

# Everything but the exceptions is imported on first use, so that the
# `ko-browser` client (which only talks to its daemon) starts without loading
# aiohttp, msgspec or anyio.
_LAZY = {
    "AXMirrorSettings": "._axmirror",
    "Browser": "._browser",
    "connect": "._browser",
    "launch": "._browser",
    "BrowserContext": "._browser",
    "Device": "._devices",
    "devices": "._devices",
    "Dialog": "._tab",
    "ConsoleMessage": "._network",
    "PageError": "._network",
    "Request": "._network",
    "RequestRecord": "._network",
    "Route": "._network",
    "Box": "._geometry",
    "Emulation": "._emulation",
    "Geolocation": "._emulation",
    "Download": "._browser",
    "Response": "._tab",
    "Element": "._snapshot",
    "Snapshot": "._snapshot",
    "Tab": "._tab",
    "Action": ".actions",
    "Outcome": ".actions",
    "parse_action": ".actions",
    "parse_actions": ".actions",
    "CDPEvent": ".cdp",
    "CDPSession": ".cdp",
    "EventStream": ".cdp",
    "DiffEntry": ".snapshot",
    "ParsedSnapshot": ".snapshot",
    "SnapshotDiff": ".snapshot",
    "diff_snapshots": ".snapshot",
    "SnapshotLine": ".snapshot",
    "parse_snapshot": ".snapshot",
    "ScrapeResult": ".scrape",
    "Scraper": ".scrape",
    "scrape": ".scrape",
}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kobrowser' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "AXMirrorSettings",
    "Action",
    "ActionSyntaxError",
    "Box",
    "Browser",
    "BrowserContext",
    "CDPError",
    "CDPEvent",
    "CDPSession",
    "CDPTimeoutError",
    "CaptureError",
    "ConnectionClosedError",
    "ConsoleMessage",
    "Device",
    "Dialog",
    "DiffEntry",
    "Download",
    "DownloadError",
    "Element",
    "ElementError",
    "Emulation",
    "EventStream",
    "Geolocation",
    "InvalidArgumentError",
    "InvalidSelectorError",
    "JavaScriptError",
    "KoBrowserError",
    "LaunchError",
    "ModelError",
    "NavigationError",
    "NoSnapshotError",
    "NotInteractableError",
    "Outcome",
    "PageError",
    "ParsedSnapshot",
    "ProtocolError",
    "Request",
    "RequestRecord",
    "Response",
    "Route",
    "ScrapeResult",
    "Scraper",
    "Snapshot",
    "SnapshotDiff",
    "SnapshotError",
    "SnapshotLine",
    "SnapshotTooLargeError",
    "StaleElementError",
    "Tab",
    "TargetClosedError",
    "UnknownElementError",
    "WaitTimeoutError",
    "WrongElementKindError",
    "connect",
    "devices",
    "diff_snapshots",
    "launch",
    "parse_action",
    "parse_actions",
    "parse_snapshot",
    "scrape",
]
