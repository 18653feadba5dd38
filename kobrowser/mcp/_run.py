"""serve(): one browser for the server's lifetime, stdio or streamable HTTP, clean exit.

The browser is opened before the transport starts and closed after it ends,
whatever ends it: the host closing stdin, SIGTERM/SIGINT/SIGHUP, or the HTTP
server shutting down. A launched Chrome and its temporary profile are gone
when :func:`serve` returns; with ``cdp`` only the tabs the server opened are
closed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio

import kobrowser
from kobrowser.mcp._runner import SnapshotMode
from kobrowser.mcp._safety import http_access_problem
from kobrowser.mcp._server import ToolSet, build_server
from kobrowser.mcp._stdio import stdio_streams
from kobrowser.mcp._stopping import Stopper, say

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["ServeOptions", "serve"]


@dataclass(frozen=True)
class ServeOptions:
    """How ``ko-browser mcp`` runs (see ``ko-browser mcp --help``).

    Attributes:
        port: serve streamable HTTP on this port (0: any free one); None: stdio.
        host: the address to bind over HTTP; None: 127.0.0.1, loopback clients only.
        snapshot: what every action replies with (see :func:`build_server`).
        allow_evaluate: offer the ``evaluate`` tool (default: off).
        tools: which tools to offer: ``"all"`` or ``"core"`` (see :func:`build_server`).
        upload_dir: the directory ``upload`` may take files from; None: no uploads.
        allow_origins: only URLs matching one of these patterns load (empty: any).
        block_origins: URLs matching one of these patterns never load.
        allow_file_access: the directory ``file://`` URLs may show; None: none.
        download_dir: where every download goes; None: the browser's temporary
            directory (removed when it closes).
        secrets: values the model fills by name (``{{name}}``) and never sees.
        token: over HTTP, the bearer token every request must carry (needed
            when ``host`` is not loopback).
        headed: show the launched browser's window.
        executable_path: the browser to launch (default: found as the library finds it).
        cdp: drive the running browser at this endpoint instead of launching one.
        timeout: the browser's start and default call deadline, in seconds.
        ids: how snapshots number elements (``launch(ids=)``).
        view: serve a live view of the browser (see ``ko-browser view``) on
            127.0.0.1 while the server runs; its URL is said on stderr first.
        trace_dir: write a trace of the session (every action, see
            :meth:`Browser.tracing <kobrowser.Browser.tracing>`) into this
            directory when the server stops, one file per server run.
    """

    port: int | None = None
    host: str | None = None
    snapshot: SnapshotMode = "interactive"
    allow_evaluate: bool = False
    tools: ToolSet = "all"
    upload_dir: str | None = None
    allow_origins: tuple[str, ...] = ()
    block_origins: tuple[str, ...] = ()
    allow_file_access: str | None = None
    download_dir: str | None = None
    secrets: Mapping[str, str] = field(default_factory=dict)
    token: str | None = field(default=None, repr=False)

    def policy(self) -> kobrowser.Policy:
        """The :class:`~kobrowser.Policy` these options give the server."""
        return kobrowser.Policy(
            allow_origins=self.allow_origins,
            block_origins=self.block_origins,
            allow_file_access=Path(self.allow_file_access) if self.allow_file_access else None,
            allow_evaluate=self.allow_evaluate,
            upload_dir=Path(self.upload_dir) if self.upload_dir else None,
            download_dir=Path(self.download_dir) if self.download_dir else None,
            secrets=self.secrets,
        )

    headed: bool = False
    executable_path: str | None = None
    cdp: str | None = None
    timeout: float = 30.0
    ids: Literal["depth-first", "stable"] = "depth-first"
    trace_dir: str | None = None
    view: bool = False


async def serve(options: ServeOptions) -> None:
    """Open the browser, serve MCP until the transport ends or a signal, then close all.

    Raises:
        LaunchError: the browser could not be started.
        KoBrowserError: ``options.cdp`` could not be reached.
        OSError: the HTTP port could not be bound.
        InvalidArgumentError: a bad policy pattern, or HTTP on an address
            that is not loopback without a token (before the browser starts).
    """
    failed: Exception | None = None
    async with anyio.create_task_group() as tg:
        stopper = Stopper(tg.cancel_scope.cancel)
        tg.start_soon(_watch_signals, stopper)
        try:
            await _serve(options, stopper)
        except Exception as exc:  # raised bare below, not inside the task group's group
            failed = exc
        tg.cancel_scope.cancel()
    if failed is not None:
        raise failed
    say("stopped")


async def _serve(options: ServeOptions, stopper: Stopper) -> None:
    policy = options.policy()  # bad patterns fail before the browser starts
    if options.port is not None:
        problem = http_access_problem(options.host, options.token)
        if problem is not None:
            raise kobrowser.InvalidArgumentError(problem, argument="token")
    if options.cdp:
        browser = kobrowser.connect(options.cdp, timeout=options.timeout, ids=options.ids)
    else:
        browser = kobrowser.launch(
            headless=not options.headed,
            executable_path=options.executable_path,
            timeout=options.timeout,
            ids=options.ids,
        )
    trace = _trace_path(options.trace_dir)
    async with browser, contextlib.AsyncExitStack() as stack:
        if trace is not None:  # written when the server stops, whatever stops it
            await stack.enter_async_context(browser.tracing(trace, title="ko-browser mcp"))
            say(f"tracing into {trace}")
        if options.view:
            await _start_view(browser, stack)
        await browser.default_context.set_policy(policy)
        server = build_server(
            browser, snapshot=options.snapshot, policy=policy, tools=options.tools
        )
        what = f"pid {os.getpid()}, " + (
            f"Chrome pid {browser.pid}" if browser.pid else f"Chrome at {options.cdp}"
        )
        if options.port is None:
            say(f"serving MCP on stdio ({what})")
            await _serve_stdio(server)
        else:
            from kobrowser.mcp._http import serve_http

            await serve_http(server, options.host, options.port, what, stopper, options.token)
        say("stopping: closing the browser")


async def _start_view(browser: kobrowser.Browser, stack: contextlib.AsyncExitStack) -> None:
    """Serve the live view until ``stack`` closes; say its URL once it can be opened."""
    from kobrowser.view import LiveView

    view = LiveView(browser)
    started = anyio.Event()

    async def announce(url: str) -> None:
        say(f"live view at {url}")
        started.set()

    group = await stack.enter_async_context(anyio.create_task_group())
    group.start_soon(view.run, announce)
    stack.callback(group.cancel_scope.cancel)  # runs first when the stack closes
    await started.wait()


def _trace_path(directory: str | None) -> Path | None:
    """The session's trace file in ``directory`` (None: no trace)."""
    if directory is None:
        return None
    folder = Path(directory)
    if not folder.is_dir():
        raise kobrowser.InvalidArgumentError(
            f"--trace-dir {directory}: no such directory", argument="trace_dir"
        )
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return folder.resolve() / f"mcp-{stamp}-{os.getpid()}.html"


async def _watch_signals(stopper: Stopper) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        first = True
        async for signum in signals:
            say(f"got {signal.Signals(signum).name}")
            (stopper.stop if first else stopper.cancel)()
            first = False


async def _serve_stdio(server: MCPServer[Any]) -> None:
    # The SDK's MCPServer.run_stdio_async() reads stdin in a thread that a
    # signal cannot stop; this is the same loop with a cancellable stdin.
    lowlevel = server._lowlevel_server
    async with stdio_streams() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
