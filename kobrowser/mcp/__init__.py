"""kobrowser as an MCP server: the browser of any agent host.

``ko-browser mcp`` serves kobrowser's tools (open, snapshot, click, fill,
...) to a Model Context Protocol host over stdio, or over streamable HTTP
with ``--port``. Every action replies with the page's fresh snapshot. Needs
the ``mcp`` extra: ``pip install 'ko-browser[mcp]'``.

From Python, serve a browser you opened yourself::

    async with kobrowser.launch() as browser:
        server = kobrowser.mcp.build_server(browser)
        await server.run_stdio_async()

This package is a face: it uses only kobrowser's public API. It imports the
MCP SDK on first use of a name below, so ``ko-browser`` can say what to
install when the SDK is missing.
"""

from __future__ import annotations

import typing as _typing

if _typing.TYPE_CHECKING:
    from kobrowser.mcp._run import ServeOptions, serve
    from kobrowser.mcp._runner import SnapshotMode
    from kobrowser.mcp._server import (
        CORE_TOOL_NAMES,
        INSTRUCTIONS,
        TOOL_NAMES,
        ToolSet,
        build_server,
    )

_LAZY = {
    "CORE_TOOL_NAMES": "._server",
    "INSTRUCTIONS": "._server",
    "TOOL_NAMES": "._server",
    "ServeOptions": "._run",
    "SnapshotMode": "._runner",
    "ToolSet": "._server",
    "build_server": "._server",
    "serve": "._run",
}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kobrowser.mcp' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CORE_TOOL_NAMES",
    "INSTRUCTIONS",
    "TOOL_NAMES",
    "ServeOptions",
    "SnapshotMode",
    "ToolSet",
    "build_server",
    "serve",
]
