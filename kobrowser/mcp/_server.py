"""build_server: an MCP server (the SDK's ``MCPServer``) over an open Browser."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

import kobrowser
from kobrowser.mcp._runner import SnapshotMode
from kobrowser.mcp._tools import BrowserTools

if TYPE_CHECKING:
    from kobrowser import Browser

__all__ = ["CORE_TOOL_NAMES", "INSTRUCTIONS", "TOOL_NAMES", "ToolSet", "build_server"]

#: What the host puts in the model's context about this server.
INSTRUCTIONS = """\
kobrowser drives a real Chrome through numbered accessibility snapshots. A snapshot line is \
`id: role "name" value="..." states`; indentation is nesting, iframes included. Act on \
elements by id. Ids belong to the latest snapshot only: every reply that shows a snapshot \
renumbers the page, so always use the ids of the most recent one. An id whose element changed \
or went away fails with an error and a new snapshot; it never acts on another element."""

#: Added to the instructions when the browser numbers with stable ids.
STABLE_IDS = """ With this server an element keeps its id for as long as it exists on the \
page, and ids are never reused: ids shown earlier stay valid while their elements are there, \
and lines are not in id order."""

#: Added to the instructions with ``snapshot="diff"``.
DIFF_REPLIES = """ Action replies show only what changed since the previous reply (+ added, \
- removed, ~ changed, with their ids); the other ids shown before still hold. A reply shows \
the whole snapshot when the page navigated, or when earlier ids would no longer hold."""

#: Every tool, in the order the host lists them.
TOOL_NAMES = (
    "open",
    "back",
    "forward",
    "reload",
    "snapshot",
    "find",
    "click",
    "dblclick",
    "hover",
    "fill",
    "type",
    "press",
    "select",
    "check",
    "uncheck",
    "upload",
    "drag",
    "scroll",
    "wait_for",
    "tabs",
    "evaluate",
    "text",
    "batch",
)

#: The tools of ``tools="core"``: navigation, the snapshot, the element actions
#: (reading an element's text included), tabs and waiting. Left out: ``find``,
#: ``evaluate`` and ``batch``.
CORE_TOOL_NAMES = tuple(name for name in TOOL_NAMES if name not in {"find", "evaluate", "batch"})

#: Which tools a server offers: ``"all"`` (:data:`TOOL_NAMES`) or ``"core"``
#: (:data:`CORE_TOOL_NAMES`, a shorter tool list in the model's context).
ToolSet = Literal["all", "core"]

_READ_ONLY = frozenset({"snapshot", "find", "text"})


def build_server(
    browser: Browser,
    *,
    snapshot: SnapshotMode = "interactive",
    allow_evaluate: bool | None = None,
    upload_dir: str | os.PathLike[str] | None = None,
    policy: kobrowser.Policy | None = None,
    tools: ToolSet = "all",
) -> MCPServer[Any]:
    """An MCP server whose tools drive ``browser`` (already open, e.g. ``async with launch()``).

    The server does not own the browser: close it after the server stops.
    Serve the result with the SDK (``await server.run_stdio_async()``, or
    ``mcp.Client(server)`` in-process), or run ``ko-browser mcp``.

    Args:
        browser: the browser every tool acts on (its current tab).
        snapshot: what every action replies with: ``"interactive"`` (the
            interactive elements of a fresh snapshot), ``"full"`` (the whole
            snapshot), ``"diff"`` (what changed in the interactive snapshot
            since the last reply; the whole one in the first reply, after a
            navigation, after another snapshot, and, with depth-first ids,
            when the change renumbered lines) or ``"none"`` (only the URL).
        allow_evaluate: offer the ``evaluate`` tool (JavaScript in the page;
            default: off). Shorthand for ``Policy(allow_evaluate=...)``.
        upload_dir: the directory ``upload`` may take files from (symlinks
            resolved); None refuses every upload. Shorthand for
            ``Policy(upload_dir=...)``.
        policy: what the model may do (a :class:`~kobrowser.Policy`; default
            ``Policy()``: no ``file://``, ``chrome://``, ``devtools://`` or
            ``view-source:`` URL, no ``evaluate``, no uploads). Before its
            first tool runs, the server gives it to the browser's default
            context (:meth:`~kobrowser.BrowserContext.set_policy`), where the
            library enforces it on every navigation, redirect, popup and frame.
        tools: ``"all"`` (every tool, :data:`TOOL_NAMES`) or ``"core"``
            (:data:`CORE_TOOL_NAMES`: navigation, snapshot, the element
            actions, tabs and wait).

    Raises:
        ValueError: unknown ``snapshot`` mode or ``tools`` set, or ``policy``
            given with ``allow_evaluate`` or ``upload_dir``.
    """
    if tools not in ("all", "core"):
        raise ValueError(f"tools must be all or core, not {tools!r}")
    tool_names = TOOL_NAMES if tools == "all" else CORE_TOOL_NAMES
    if snapshot not in ("full", "interactive", "diff", "none"):
        raise ValueError(f"snapshot must be full, interactive, diff or none, not {snapshot!r}")
    if policy is None:
        policy = kobrowser.Policy(
            allow_evaluate=bool(allow_evaluate),
            upload_dir=Path(upload_dir) if upload_dir is not None else None,
        )
    elif allow_evaluate is not None or upload_dir is not None:
        raise ValueError("give allow_evaluate and upload_dir in the policy, not beside it")
    allow_evaluate = policy.allow_evaluate
    browser_tools = BrowserTools(browser, snapshot=snapshot, policy=policy)
    instructions = (
        INSTRUCTIONS
        + (STABLE_IDS if browser.ids == "stable" else "")
        + (DIFF_REPLIES if snapshot == "diff" else "")
    )
    if policy.secrets:
        names = ", ".join("{{" + name + "}}" for name in sorted(policy.secrets))
        instructions += (
            f"\n\nSecrets you may fill or type by name (you never see their values): {names}, "
            "e.g. fill 3 {{" + sorted(policy.secrets)[0] + "}}."
        )
    server: MCPServer[Any] = MCPServer(
        "kobrowser",
        title="kobrowser",
        instructions=instructions,
        version=kobrowser.__version__,
        log_level="WARNING",
    )
    for name in tool_names:
        if name == "evaluate" and not allow_evaluate:
            continue
        method = getattr(browser_tools, name)
        server.add_tool(
            method,
            name=name,
            description=" ".join((method.__doc__ or "").split()),
            annotations=ToolAnnotations(read_only_hint=True) if name in _READ_ONLY else None,
            structured_output=False,
        )
    return server
