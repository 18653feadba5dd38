"""Who may talk to a local HTTP face (the live view, MCP over HTTP): the shared rules.

* Bound to loopback by default; any other address needs a token of at least
  16 characters, else the server refuses to start (:func:`http_access_problem`).
* With a token, every request must carry it (``Authorization: Bearer TOKEN``,
  or for what a page cannot give headers to, ``?token=TOKEN``), compared in
  constant time (:func:`token_matches`); without it: 401.
* On loopback, the ``Host`` header must name a loopback host and an
  ``Origin``, when sent, must be the server's own (:func:`local_request_problem`):
  a page elsewhere that resolves its name to 127.0.0.1 (DNS rebinding) is refused.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from urllib.parse import urlsplit

__all__ = [
    "bind_listener",
    "http_access_problem",
    "is_loopback",
    "local_request_problem",
    "token_matches",
]


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 (also IPv4-mapped) and ``localhost``."""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def http_access_problem(host: str | None, token: str | None, env: str) -> str | None:
    """Why an HTTP server must not start on ``host`` with ``token``, or None.

    A server bound to an address other than loopback answers anyone who can
    reach it, so it needs a token; ``env`` names the environment variable
    the command reads it from (for the message).
    """
    if token is not None and len(token) < 16:
        return "the token must be at least 16 characters long"
    if host is not None and not is_loopback(host) and token is None:
        return (
            f"--host {host} is not a loopback address: give a token (--token, or the "
            f"environment variable {env}) that every client must send"
        )
    return None


def token_matches(token: str, authorization: str | None, query: str | None) -> bool:
    """Whether a request carries ``token`` (bearer header or ``token`` query value)."""
    expected = token.encode()
    if authorization is not None and hmac.compare_digest(
        authorization.encode(), b"Bearer " + expected
    ):
        return True
    return query is not None and hmac.compare_digest(query.encode(), expected)


def _hostname(netloc: str) -> str:
    return urlsplit(f"//{netloc}").hostname or ""


def local_request_problem(host_header: str | None, origin: str | None, port: int) -> str | None:
    """Why a server on loopback ``port`` refuses a request's Host/Origin, or None.

    Host must be a loopback name with this port; Origin, when given, a
    loopback ``http`` origin with this port.
    """
    if not host_header:
        return "no Host header"
    parsed = urlsplit(f"//{host_header}")
    if not is_loopback(parsed.hostname or "") or (parsed.port or 80) != port:
        return f"Host {host_header!r} is not this local server"
    if origin is not None and origin != "null":
        seen = urlsplit(origin)
        if seen.scheme != "http" or not is_loopback(seen.hostname or "") or seen.port != port:
            return f"Origin {origin!r} is not this local server"
    return None


def bind_listener(host: str, port: int, *, backlog: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (0: any free port) and listening.

    It listens before its caller prints the address it serves on, so a client
    that reads that line and connects at once waits in the backlog instead of
    being refused. The socket is closed if binding fails.

    Raises:
        OSError: the address could not be bound.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock
