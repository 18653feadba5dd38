"""kobrowser: see and drive real web pages through Chrome's accessibility tree.

The public API is re-exported here; everything else is private.
"""

from __future__ import annotations

import typing as _typing

from kobrowser._exceptions import (
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
    from kobrowser._browser import Browser, BrowserContext, Download, connect, launch
    from kobrowser._browser._emulation._devices import Device, devices
    from kobrowser._browser._emulation._settings import Emulation, EmulationOptions, Geolocation
    from kobrowser._browser._policy import Policy
    from kobrowser._browser._proxy import Proxy
    from kobrowser._tab import Console, Dialog, Dialogs, Network, Response, Tab
    from kobrowser._tab._axmirror import AXMirrorSettings
    from kobrowser._tab._capture._geometry import Box
    from kobrowser._tab._capture._screencast import Screencast, ScreencastFrame
    from kobrowser._tab._capture._video import VideoRecording
    from kobrowser._tab._network import ConsoleMessage, PageError, Request, RequestRecord, Route
    from kobrowser._tab._snapshot import Element, Snapshot
    from kobrowser._tab._trace import Trace, TraceStep
    from kobrowser.actions import Action, Outcome, parse_action, parse_actions
    from kobrowser.cdp import CDPEvent, CDPSession, EventStream
    from kobrowser.scrape import Scraper, ScrapeResult, scrape
    from kobrowser.snapshot import (
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
    "AXMirrorSettings": "._tab._axmirror",
    "Browser": "._browser",
    "connect": "._browser",
    "launch": "._browser",
    "BrowserContext": "._browser",
    "Device": "._browser._emulation._devices",
    "devices": "._browser._emulation._devices",
    "Console": "._tab",
    "Dialog": "._tab",
    "Dialogs": "._tab",
    "Network": "._tab",
    "ConsoleMessage": "._tab._network",
    "PageError": "._tab._network",
    "Request": "._tab._network",
    "RequestRecord": "._tab._network",
    "Route": "._tab._network",
    "Box": "._tab._capture._geometry",
    "Screencast": "._tab._capture._screencast",
    "ScreencastFrame": "._tab._capture._screencast",
    "VideoRecording": "._tab._capture._video",
    "Emulation": "._browser._emulation._settings",
    "EmulationOptions": "._browser._emulation._settings",
    "Geolocation": "._browser._emulation._settings",
    "Download": "._browser",
    "Policy": "._browser._policy",
    "Proxy": "._browser._proxy",
    "Response": "._tab",
    "Element": "._tab._snapshot",
    "Snapshot": "._tab._snapshot",
    "Tab": "._tab",
    "Trace": "._tab._trace",
    "TraceStep": "._tab._trace",
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
    "Console",
    "ConsoleMessage",
    "Device",
    "Dialog",
    "Dialogs",
    "DiffEntry",
    "Download",
    "DownloadError",
    "Element",
    "ElementError",
    "Emulation",
    "EmulationOptions",
    "EventStream",
    "Geolocation",
    "InvalidArgumentError",
    "InvalidSelectorError",
    "JavaScriptError",
    "KoBrowserError",
    "LaunchError",
    "ModelError",
    "NavigationError",
    "Network",
    "NoSnapshotError",
    "NotInteractableError",
    "Outcome",
    "PageError",
    "ParsedSnapshot",
    "Policy",
    "ProtocolError",
    "Proxy",
    "Request",
    "RequestRecord",
    "Response",
    "Route",
    "ScrapeResult",
    "Scraper",
    "Screencast",
    "ScreencastFrame",
    "Snapshot",
    "SnapshotDiff",
    "SnapshotError",
    "SnapshotLine",
    "SnapshotTooLargeError",
    "StaleElementError",
    "Tab",
    "TargetClosedError",
    "Trace",
    "TraceStep",
    "UnknownElementError",
    "VideoRecording",
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
