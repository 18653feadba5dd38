"""Network routing, the request log, console messages and page errors of tabs.

:class:`Network` (``tab.network``) and :class:`Console` (``tab.console``) are
the public faces; see :mod:`._routing` for how routes pause only the
requests they may want.
"""

from __future__ import annotations

from kobrowser._tab._network._console import Console, ConsoleLog, ConsoleMessage, PageError
from kobrowser._tab._network._log import RequestLog, RequestRecord
from kobrowser._tab._network._network import Network
from kobrowser._tab._network._patterns import (
    RESOURCE_TYPES,
    RequestMatcher,
    RoutePattern,
    URLMatcher,
)
from kobrowser._tab._network._requests import ABORT_REASONS, Request, Route
from kobrowser._tab._network._routing import (
    RouteHandler,
    RouteTable,
    TabNetwork,
    block_entries,
    route_entry,
)

__all__ = [
    "ABORT_REASONS",
    "RESOURCE_TYPES",
    "Console",
    "ConsoleLog",
    "ConsoleMessage",
    "Network",
    "PageError",
    "Request",
    "RequestLog",
    "RequestMatcher",
    "RequestRecord",
    "Route",
    "RouteHandler",
    "RoutePattern",
    "RouteTable",
    "TabNetwork",
    "URLMatcher",
    "block_entries",
    "route_entry",
]
