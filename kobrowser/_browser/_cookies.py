"""Cookies in Playwright's layout: checked, converted to and from CDP.

A cookie is a plain dict, the same as Playwright's ``context.cookies()``
returns and ``context.add_cookies()`` takes::

    {"name": "sid", "value": "abc", "domain": "example.com", "path": "/",
     "expires": -1, "httpOnly": False, "secure": False, "sameSite": "Lax"}

``expires`` is in Unix seconds, ``-1`` for a session cookie. To add one,
give either ``url`` (domain, path and ``secure`` follow from it) or
``domain`` and ``path``. Everything here is pure; the CDP calls live in
:class:`~kobrowser.BrowserContext`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from kobrowser._exceptions import InvalidArgumentError

__all__ = [
    "cookie_param",
    "cookie_params",
    "filter_cookies",
    "from_cdp",
    "key_of",
    "split_url",
    "urls_list",
]

SAME_SITE = ("Strict", "Lax", "None")
_KEYS = frozenset(
    {"name", "value", "url", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}
)
# Keys Playwright may write that this layout does not use; accepted and ignored.
_IGNORED = frozenset({"partitionKey", "_crHasCrossSiteAncestor", "size", "session", "priority"})
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def split_url(url: str) -> tuple[str, str, str] | None:
    """``(scheme, host, path)`` of an http(s) URL with a host, else None (never raises)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:  # "http://[bad", a port out of range
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    return parts.scheme, host, parts.path


def from_cdp(cookie: Mapping[str, Any]) -> dict[str, Any]:
    """A CDP ``Network.Cookie`` in Playwright's layout."""
    expires = cookie.get("expires", -1)
    if cookie.get("session") or not isinstance(expires, int | float) or expires < 0:
        expires = -1
    return {
        "name": cookie["name"],
        "value": cookie["value"],
        "domain": cookie["domain"],
        "path": cookie["path"],
        "expires": expires,
        "httpOnly": bool(cookie.get("httpOnly", False)),
        "secure": bool(cookie.get("secure", False)),
        "sameSite": cookie.get("sameSite", "Lax"),
    }


def _fail(index: int, message: str, argument: str = "cookies") -> InvalidArgumentError:
    return InvalidArgumentError(f"cookie {index}: {message}", argument=argument)


def cookie_param(cookie: Mapping[str, Any], index: int = 0) -> dict[str, Any]:
    """Check one cookie in Playwright's layout; return CDP's ``CookieParam``.

    Raises:
        InvalidArgumentError: a missing or wrong field (the message says which).
    """
    if not isinstance(cookie, Mapping):
        raise _fail(index, f"must be a dict, not {type(cookie).__name__}")
    unknown = set(cookie) - _KEYS - _IGNORED
    if unknown:
        raise _fail(index, f"unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    for key in ("name", "value"):
        if not isinstance(cookie.get(key), str):
            raise _fail(index, f"{key!r} must be a string")
    if not cookie["name"]:
        raise _fail(index, "'name' must not be empty")
    for key in ("name", "value", "url", "domain", "path"):
        if isinstance(cookie.get(key), str) and not _encodable(cookie[key]):
            raise _fail(index, f"{key!r} holds a lone surrogate (not valid Unicode)")
    param: dict[str, Any] = {"name": cookie["name"], "value": cookie["value"]}
    url = cookie.get("url")
    domain = cookie.get("domain")
    path = cookie.get("path")
    if url is not None:
        if domain is not None or path is not None:
            raise _fail(index, "give either 'url' or 'domain' and 'path', not both")
        if not isinstance(url, str):
            raise _fail(index, "'url' must be a string")
        split = split_url(url)
        if split is None:
            raise _fail(index, f"'url' must be an http(s) URL with a host, not {url!r}")
        scheme, host, url_path = split
        # As a browser would set it from that URL (RFC 6265 default-path).
        param["domain"] = host
        directory = url_path.rsplit("/", 1)[0] if url_path.count("/") > 1 else ""
        param["path"] = directory or "/"
        param["secure"] = scheme == "https"
    else:
        if not isinstance(domain, str) or not domain.strip("."):
            raise _fail(index, "needs a 'url', or a 'domain' and a 'path'")
        if not isinstance(path, str) or not path.startswith("/"):
            raise _fail(index, "needs a 'path' starting with '/' when it has a 'domain'")
        param["domain"] = domain
        param["path"] = path
    expires = cookie.get("expires", -1)
    if (
        isinstance(expires, bool)
        or not isinstance(expires, int | float)
        or not math.isfinite(expires)
        or (expires < 0 and expires != -1)
    ):
        raise _fail(index, f"'expires' must be -1 or Unix seconds >= 0, not {expires!r}")
    if expires != -1:
        param["expires"] = expires
    for key in ("httpOnly", "secure"):
        if key in cookie:
            if not isinstance(cookie[key], bool):
                raise _fail(index, f"{key!r} must be true or false")
            param[key] = cookie[key]
    same_site = cookie.get("sameSite")
    if same_site is not None:
        if same_site not in SAME_SITE:
            raise _fail(index, f"'sameSite' must be one of {', '.join(SAME_SITE)}")
        param["sameSite"] = same_site
        if same_site == "None" and not param.get("secure"):
            raise _fail(index, "'sameSite': 'None' needs 'secure': true (Chrome refuses it)")
    return param


def cookie_params(cookies: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Check every cookie before any is set; see :func:`cookie_param`."""
    if isinstance(cookies, Mapping | str | bytes):
        raise InvalidArgumentError("cookies must be a list of dicts", argument="cookies")
    return [cookie_param(cookie, index) for index, cookie in enumerate(cookies)]


def urls_list(urls: str | Sequence[str] | None) -> list[str]:
    """``urls`` of :meth:`BrowserContext.cookies` as a checked list."""
    if urls is None:
        return []
    items = [urls] if isinstance(urls, str) else list(urls)
    for url in items:
        if not isinstance(url, str) or split_url(url) is None:
            raise InvalidArgumentError(f"not an http(s) URL: {url!r}", argument="urls")
    return items


def filter_cookies(cookies: list[dict[str, Any]], urls: Sequence[str]) -> list[dict[str, Any]]:
    """The cookies a request to any of ``urls`` would carry (all when none is given)."""
    if not urls:
        return cookies
    parsed = [urlsplit(url) for url in urls]
    return [cookie for cookie in cookies if any(_sent_to(cookie, url) for url in parsed)]


def _sent_to(cookie: Mapping[str, Any], url: Any) -> bool:
    host = (url.hostname or "").lower()
    domain = str(cookie["domain"]).lower()
    if not ("." + host).endswith(domain if domain.startswith(".") else "." + domain):
        return False
    if not (url.path or "/").startswith(cookie["path"]):
        return False
    secure_ok = url.scheme == "https" or host in _LOCAL_HOSTS
    return secure_ok or not cookie["secure"]


def key_of(cookie: Mapping[str, Any]) -> tuple[str, str, str]:
    """What makes a cookie unique in a jar: name, domain (no leading dot), path.

    Works on CDP cookies and on :func:`cookie_param` results alike.
    """
    return cookie["name"], str(cookie["domain"]).lstrip(".").lower(), cookie["path"]
