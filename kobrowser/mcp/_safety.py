"""What the MCP server refuses: uploads outside one directory, non-local HTTP clients."""

from __future__ import annotations

import hmac
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kobrowser.view._access import http_access_problem as _access_problem
from kobrowser.view._access import is_loopback

__all__ = [
    "TOKEN_ENV",
    "LocalClientsOnly",
    "RefusedError",
    "TokenRequired",
    "http_access_problem",
    "is_loopback",
    "upload_files",
]

#: The environment variable ``ko-browser mcp`` reads the HTTP token from.
TOKEN_ENV = "KOBROWSER_MCP_TOKEN"


class RefusedError(Exception):
    """The server's policy refuses the request (the model is told why)."""


def upload_files(paths: Sequence[str], allowed: Path | None) -> list[str]:
    """The real paths of ``paths`` when every one is a file under ``allowed``.

    Relative paths are taken from ``allowed``. Symlinks are resolved before
    the check, so a link inside ``allowed`` that points elsewhere is refused.

    Raises:
        RefusedError: uploads are off (``allowed`` is None), no path was
            given, or a path is outside ``allowed`` or not a file.
    """
    if allowed is None:
        raise RefusedError(
            "file upload is off: the server must be started with --allow-upload-from DIR "
            "to upload files from DIR"
        )
    if not paths:
        raise RefusedError("upload needs at least one file path")
    root = Path(os.path.realpath(allowed))
    files: list[str] = []
    for path in paths:
        real = Path(os.path.realpath(root / os.path.expanduser(path)))
        if root not in real.parents:
            raise RefusedError(
                f"upload refused: {path} is outside the directory uploads are allowed from ({root})"
            )
        if not real.is_file():
            raise RefusedError(f"upload refused: {path} is not a file in {root}")
        files.append(str(real))
    return files


def http_access_problem(host: str | None, token: str | None) -> str | None:
    """Why the MCP HTTP server must not start on ``host`` with ``token``, or None.

    The rules the live view shares (:mod:`kobrowser.view._access`): an
    address other than loopback needs a token every client sends.
    """
    return _access_problem(host, token, TOKEN_ENV)


async def _refuse(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class TokenRequired:
    """ASGI middleware: answer 401 to any request without ``Authorization: Bearer TOKEN``.

    The token is compared in constant time; a websocket without it is closed.
    """

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _refuse(
                    send,
                    401,
                    b"this server needs the header Authorization: Bearer TOKEN",
                    [(b"www-authenticate", b'Bearer realm="kobrowser"')],
                )
                return
        await self.app(scope, receive, send)


class LocalClientsOnly:
    """ASGI middleware: answer 403 to any HTTP client whose address is not loopback.

    Applied when the server was started without an explicit ``--host``, on
    top of the Host/Origin checks of the SDK (DNS-rebinding protection).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            if client is None or not is_loopback(str(client[0])):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                body = (
                    b"only local clients may use this server (start it with --host to allow others)"
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
