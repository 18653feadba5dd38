"""The checks of a proxy: its URL and its bypass list (standard library only).

A proxy URL is ``scheme://[user[:password]@]host[:port]``: the scheme one of
``http``, ``https``, ``socks4`` or ``socks5`` (none: ``http``), the host a
name or an address (IPv6 in brackets), nothing after the port. User and
password are percent-decoded (write ``%40`` for an ``@`` in a password).
Chrome cannot authenticate to a SOCKS proxy, so a ``socks`` URL with a user
is refused. The ``ko-browser`` client checks ``--proxy`` with the same
function (it imports nothing of the library).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

from kobrowser._exceptions import InvalidArgumentError

__all__ = ["PROXY_SCHEMES", "ProxyURL", "masked", "proxy_bypass", "split_proxy_url"]

#: The proxy schemes Chrome speaks.
PROXY_SCHEMES = ("http", "https", "socks4", "socks5")
_BYPASS_SEPARATORS = frozenset(",; \t\r\n")


class ProxyURL(NamedTuple):
    """A proxy URL taken apart: ``server`` is what Chrome gets (no credentials)."""

    server: str
    username: str | None
    password: str | None


def _bad(argument: str, value: Any, why: str) -> InvalidArgumentError:
    prefix = f"{argument}: " if argument else ""
    shown = value
    if isinstance(value, str):
        shown = masked(value)
    return InvalidArgumentError(f"{prefix}got {shown!r}; {why}", argument=argument or None)


def masked(text: str) -> str:
    """``text`` with the password of a URL's user info replaced by ``***``."""
    scheme, sep, rest = text.rpartition("://")
    userinfo, at, host = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return text
    user = userinfo.split(":", 1)[0]
    return f"{scheme}{sep}{user}:***@{host}"


def split_proxy_url(value: Any, argument: str = "proxy") -> ProxyURL:
    """Check a proxy URL and take it apart.

    Raises:
        InvalidArgumentError: not a str, an unknown scheme, no host, a bad
            port, a path or query after the address, or credentials for a
            SOCKS proxy. The message names ``argument`` and never shows the
            password.
    """
    accepted = (
        "expected a proxy URL: http://host:port, https://, socks4:// or socks5://, "
        "optionally with user:password@ (http and https only)"
    )
    if not isinstance(value, str) or not value.strip():
        raise _bad(argument, value, accepted)
    text = value.strip()
    if any(ch.isspace() or ord(ch) < 32 for ch in text):
        raise _bad(argument, value, "a proxy URL contains no whitespace or control characters")
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise _bad(argument, value, f"{accepted} ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in PROXY_SCHEMES:
        raise _bad(argument, value, f"the scheme must be one of {', '.join(PROXY_SCHEMES)}")
    host = parts.hostname
    if not host:
        raise _bad(argument, value, "a proxy URL needs a host")
    if port == 0:
        raise _bad(argument, value, "the port must be 1 to 65535")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise _bad(argument, value, "a proxy URL has nothing after host:port")
    username = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    if username is not None and not username:
        raise _bad(argument, value, "the user name before '@' is empty")
    if username is not None and scheme.startswith("socks"):
        raise _bad(argument, value, "Chrome cannot log in to a SOCKS proxy: give no user name")
    address = f"[{host}]" if ":" in host else host
    server = f"{scheme}://{address}" + (f":{port}" if port is not None else "")
    return ProxyURL(server, username, password)


def proxy_bypass(value: Any, argument: str = "bypass") -> tuple[str, ...]:
    """Check a bypass list: host names or patterns Chrome reaches directly.

    Takes a list of strings or one comma-separated string. Each entry is a
    host (``example.com``), a pattern (``*.example.com``, ``10.0.0.0/8``,
    ``example.com:8080``) or ``<local>`` (plain host names); Chrome's own
    rules apply (see ``--proxy-bypass-list``).

    Raises:
        InvalidArgumentError: not strings, or an entry is empty or holds a
            separator (``,``, ``;`` or white space).
    """
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[Any] = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable) and not isinstance(value, bytes | dict):
        items = list(value)
    else:
        raise _bad(argument, value, "expected host names or patterns (a list, or 'a,b')")
    for item in items:
        if not isinstance(item, str) or not item:
            raise _bad(argument, item, "each bypass entry is a non-empty str")
        if any(ch in _BYPASS_SEPARATORS for ch in item):
            raise _bad(argument, item, "one host or pattern per entry (no ',', ';' or spaces)")
    return tuple(items)
