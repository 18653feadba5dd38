"""What a scrape yields per URL, and how a failed attempt is judged.

:class:`ScrapeResult` is the record (one JSON line in ``ko-browser scrape``).
:func:`check_url` rejects what no browser could load before a browser is
asked; :class:`Failure` says, for a failed attempt, whether to try again and
whether the tab that failed can serve the next page.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import msgspec

__all__ = [
    "RETRY_STATUSES",
    "Failure",
    "ScrapeResult",
    "check_url",
    "host_key",
    "navigation_failure",
]

#: HTTP statuses worth another attempt (as Scrapy's RETRY_HTTP_CODES).
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

_SCHEMES = frozenset({"http", "https", "file", "data", "about"})
_NET_ERROR = re.compile(r"net::(ERR_[A-Z0-9_]+)")

# Chrome network errors that another attempt will not change.
_PERMANENT_PREFIXES = (
    "ERR_NAME_NOT_RESOLVED",  # NXDOMAIN; ERR_NAME_RESOLUTION_FAILED (resolver down) is retried
    "ERR_CERT_",
    "ERR_SSL_",
    "ERR_BLOCKED_",
    "ERR_UNSAFE_",
    "ERR_INVALID_",
    "ERR_DISALLOWED_",
    "ERR_UNKNOWN_URL_SCHEME",
    "ERR_TOO_MANY_REDIRECTS",
    "ERR_FILE_NOT_FOUND",
    "ERR_ACCESS_DENIED",
    "ERR_ABORTED",
)

_EXPLAINED = {
    "ERR_NAME_NOT_RESOLVED": "DNS lookup failed: no such host",
    "ERR_NAME_RESOLUTION_FAILED": "DNS lookup failed: the resolver did not answer",
    "ERR_CONNECTION_REFUSED": "connection refused",
    "ERR_CONNECTION_RESET": "connection reset",
    "ERR_CONNECTION_CLOSED": "connection closed before a response",
    "ERR_EMPTY_RESPONSE": "the server sent an empty response",
    "ERR_CONNECTION_TIMED_OUT": "connection timed out",
    "ERR_TIMED_OUT": "the request timed out",
    "ERR_UNSAFE_PORT": "Chrome refuses this port",
    "ERR_TOO_MANY_REDIRECTS": "too many redirects",
    "ERR_ABORTED": "the load was aborted (an empty 204 response, or the page "
    "navigated away while loading)",
    "ERR_PROXY_CONNECTION_FAILED": "cannot connect to the proxy",
    "ERR_TUNNEL_CONNECTION_FAILED": "the proxy did not open a tunnel to the site",
    "ERR_PROXY_AUTH_UNSUPPORTED": "the proxy asks for a login Chrome cannot give",
}
#: What a NavigationError says when the proxy refused the credentials.
_PROXY_REFUSED = "the proxy refused the credentials"


class ScrapeResult(msgspec.Struct, kw_only=True):
    """The outcome of one URL of a scrape.

    Encode with ``msgspec.json.encode(result)`` or :meth:`to_dict`; every
    field is plain JSON.

    Attributes:
        url: the URL as given (surrounding white space removed).
        ok: True when the page loaded with an HTTP status below 400 (or no
            HTTP status, e.g. ``file:``), was snapshotted, and ``extract``
            (if any) succeeded.
        final_url: the page's URL at the end (after redirects), when it loaded.
        status: the document's HTTP status, when there was a response.
        title: the document title, when it loaded.
        snapshot: the snapshot text (see the snapshot format), when it loaded.
        error: why ``ok`` is False, in one line; None when ok.
        attempts: how many times the page was loaded (0: rejected before
            loading, e.g. a malformed URL).
        elapsed: seconds from the first attempt's start to this record
            (retries and their back-off included).
        data: what ``extract`` returned, when it ran and succeeded.
    """

    url: str
    ok: bool
    final_url: str | None = None
    status: int | None = None
    title: str | None = None
    snapshot: str | None = None
    error: str | None = None
    attempts: int = 0
    elapsed: float = 0.0
    data: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (the same fields as the JSON line)."""
        return {field: getattr(self, field) for field in self.__struct_fields__}


class Failure(Exception):
    """One failed attempt: what to record, whether to retry, whether the tab is spent.

    Attributes:
        message: the record's ``error``.
        retry: another attempt may succeed (charged to the page's retries).
        retire: the tab must not serve another page (crashed, hung, unknown state).
        lost: the browser itself was lost; the attempt is not charged to the
            page (see :class:`~kobrowser.scrape.Scraper`).
        partial: fields already known (status, title, snapshot...) for the record.
    """

    def __init__(
        self,
        message: str,
        *,
        retry: bool = False,
        retire: bool = False,
        lost: bool = False,
        partial: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retry = retry
        self.retire = retire
        self.lost = lost
        self.partial = partial or {}


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be scraped (a one-line error), or None when it can."""
    if not url:
        return "malformed URL: empty"
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        return "malformed URL: it contains whitespace or control characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"malformed URL: {exc}"
    scheme = parts.scheme.lower()
    if not scheme:
        return "malformed URL: no scheme (write http:// or https://)"
    if scheme not in _SCHEMES:
        return f"unsupported URL scheme {scheme!r}: use http, https, file, data or about"
    if scheme in ("http", "https"):
        if not parts.hostname:
            return "malformed URL: no host"
        if port == 0:
            return "malformed URL: port 0"
    return None


def host_key(url: str) -> str:
    """The key ``per_host`` counts by: the lower-case host name, or the scheme."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    return parts.hostname or parts.scheme.lower()


def navigation_failure(
    message: str, *, download: str | None = None, proxy: str | None = None
) -> Failure:
    """Judge a :class:`~kobrowser.NavigationError` from ``Tab.open``.

    Args:
        message: the error's text (it names Chrome's ``net::ERR_*`` code).
        download: a description of the download the navigation turned into, if any.
        proxy: the server of the proxy the page went through, if any (named
            in errors of the proxy).
    """
    if download is not None:
        return Failure(f"the URL is a download, not a page ({download})")
    via = f" (proxy {proxy})" if proxy else ""
    if _PROXY_REFUSED in message:  # the same credentials will be refused again
        return Failure(
            f"{_PROXY_REFUSED}{via}: HTTP 407 Proxy Authentication Required; "
            "check the proxy's username and password"
        )
    if "invalid URL" in message:
        return Failure("malformed URL: Chrome cannot navigate to it")
    match = _NET_ERROR.search(message)
    if match is None:
        return Failure(f"navigation failed: {message}", retry=True)
    code = match.group(1)
    explained = _EXPLAINED.get(code)
    text = f"{explained} ({code})" if explained else f"navigation failed ({code})"
    if "PROXY" in code or "TUNNEL" in code:
        text += via
    return Failure(text, retry=not code.startswith(_PERMANENT_PREFIXES))
