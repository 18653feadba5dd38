"""The streamable HTTP transport: uvicorn on one bound socket, local clients only by default."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import uvicorn

from kobrowser.mcp._safety import LocalClientsOnly, TokenRequired, http_access_problem
from kobrowser.mcp._stopping import say
from kobrowser.view._access import bind_listener

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from kobrowser.mcp._stopping import Stopper

__all__ = ["HTTP_GRACE", "serve_http"]

#: Seconds the HTTP server waits for open requests and streams when stopping.
HTTP_GRACE = 5


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: the caller owns the signals.

    (uvicorn re-raises a caught SIGTERM once it has shut down, which would
    end the process before the browser is closed.)
    """

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_http(
    server: MCPServer[Any],
    host: str | None,
    port: int | None,
    what: str,
    stopper: Stopper,
    token: str | None = None,
) -> None:
    """Serve ``server`` at ``http://HOST:PORT/mcp`` until ``stopper`` stops it.

    Without an explicit ``host`` the socket is bound to 127.0.0.1 and only
    loopback clients are answered. With a loopback host (given or not) the
    SDK also refuses requests whose Host or Origin header is not local (DNS
    rebinding protection). With ``token``, every request without
    ``Authorization: Bearer TOKEN`` gets 401; a host that is not loopback
    needs one.

    Raises:
        ValueError: a host that is not loopback and no token (nothing bound).
    """
    problem = http_access_problem(host, token)
    if problem is not None:
        raise ValueError(problem)
    bind_host = host or "127.0.0.1"
    app: Any = server.streamable_http_app(host=bind_host)
    if host is None:
        app = LocalClientsOnly(app)
    if token is not None:
        app = TokenRequired(app, token)
    sock = bind_listener(bind_host, port or 0, backlog=2048)
    config = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=HTTP_GRACE, lifespan="on"
    )
    http = _Server(config)

    def stop() -> None:
        http.should_exit = True

    with sock:
        shown = f"[{bind_host}]" if ":" in bind_host else bind_host
        say(f"serving MCP on http://{shown}:{sock.getsockname()[1]}/mcp ({what})")
        stopper.stop = stop
        try:
            await http.serve(sockets=[sock])
        finally:
            stopper.stop = stopper.cancel
