"""HAR 1.2 from recorded requests (pure: no I/O).

:class:`Entry` is one request as :mod:`._har` records it from Chrome's
Network events; :func:`build_har` turns the entries and pages into the HAR
1.2 document (http://www.softwareishard.com/blog/har-12-spec/). Times: the
``startedDateTime`` of an entry is Chrome's wall time of the request; its
``timings`` come from Chrome's resource timing (milliseconds after the
request started), ``receive`` from the time the load finished; a phase that
did not happen is -1, as the spec says. Sizes: ``headersSize`` is the raw
header block's length when Chrome gave it (else -1); ``bodySize`` is the
bytes received for the body (0 from the cache).
"""

from __future__ import annotations

import datetime
import importlib.metadata
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = ["Entry", "Page", "build_har"]


def _version() -> str:
    try:
        return importlib.metadata.version("ko-browser")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _iso(epoch: float) -> str:
    moment = datetime.datetime.fromtimestamp(epoch, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _header_list(headers: Any) -> list[dict[str, str]]:
    """CDP's ``{name: value}`` (values joined by newlines) as HAR's list of pairs."""
    if not isinstance(headers, dict):
        return []
    pairs = []
    for name, value in headers.items():
        for line in str(value).split("\n"):
            pairs.append({"name": str(name), "value": line})
    return pairs


def _header(headers: list[dict[str, str]], name: str) -> list[str]:
    wanted = name.lower()
    return [pair["value"] for pair in headers if pair["name"].lower() == wanted]


def _request_cookies(headers: list[dict[str, str]]) -> list[dict[str, Any]]:
    cookies = []
    for line in _header(headers, "cookie"):
        for part in line.split(";"):
            name, sep, value = part.strip().partition("=")
            if sep and name:
                cookies.append({"name": name, "value": value})
    return cookies


def _response_cookies(headers: list[dict[str, str]]) -> list[dict[str, Any]]:
    cookies = []
    for line in _header(headers, "set-cookie"):
        first, *attributes = line.split(";")
        name, sep, value = first.strip().partition("=")
        if not sep or not name:
            continue
        cookie: dict[str, Any] = {"name": name, "value": value}
        for attribute in attributes:
            key, _, given = attribute.strip().partition("=")
            key = key.lower()
            if key == "path":
                cookie["path"] = given
            elif key == "domain":
                cookie["domain"] = given
            elif key == "expires":
                cookie["expires"] = given
            elif key == "httponly":
                cookie["httpOnly"] = True
            elif key == "secure":
                cookie["secure"] = True
        cookies.append(cookie)
    return cookies


def _http_version(protocol: Any) -> str:
    if not isinstance(protocol, str) or not protocol:
        return ""
    return {"h2": "HTTP/2", "h3": "HTTP/3", "http/1.1": "HTTP/1.1", "http/1.0": "HTTP/1.0"}.get(
        protocol.lower(), protocol.upper()
    )


class Page:
    """One top-level document of a tab (HAR's ``pages``)."""

    __slots__ = ("content_loaded", "id", "loaded", "monotonic", "started", "title")

    def __init__(self, id: str, started: float, monotonic: float, title: str) -> None:
        self.id = id
        self.started = started  # wall time, seconds since the epoch
        self.monotonic = monotonic  # Chrome's monotonic seconds at the same moment
        self.title = title
        self.content_loaded: float | None = None  # monotonic seconds
        self.loaded: float | None = None

    def to_har(self) -> dict[str, Any]:
        """HAR's page object."""

        def since(moment: float | None) -> float:
            if moment is None or moment < self.monotonic:
                return -1
            return round((moment - self.monotonic) * 1000, 3)

        return {
            "startedDateTime": _iso(self.started),
            "id": self.id,
            "title": self.title,
            "pageTimings": {
                "onContentLoad": since(self.content_loaded),
                "onLoad": since(self.loaded),
            },
        }


class Entry:
    """One request (one hop of a redirect chain) as recorded from Network events."""

    __slots__ = (
        "body",
        "body_base64",
        "decoded_size",
        "encoded_data",
        "encoded_length",
        "failure",
        "finished_at",
        "frame_id",
        "from_cache",
        "method",
        "pageref",
        "post_data",
        "raw_request_headers",
        "redirect_url",
        "request_headers",
        "resource_type",
        "response",
        "response_extra",
        "started",
        "started_at",
        "status",
        "url",
    )

    def __init__(
        self,
        url: str,
        method: str,
        headers: Any,
        post_data: str | None,
        resource_type: str,
        frame_id: str,
        started: float,
        started_at: float,
        pageref: str | None,
    ) -> None:
        self.url = url
        self.method = method
        self.request_headers = headers
        self.raw_request_headers: Any = None  # what went on the wire, when Chrome tells
        self.post_data = post_data
        self.resource_type = resource_type
        self.frame_id = frame_id
        self.started = started  # wall time of the request
        self.started_at = started_at  # Chrome's monotonic seconds of the request
        self.pageref = pageref
        self.status: int | None = None
        self.response: dict[str, Any] = {}
        self.response_extra: dict[str, Any] | None = None
        self.from_cache = False
        self.decoded_size = 0
        self.encoded_data = 0  # sum of dataReceived's encodedDataLength
        self.encoded_length = -1  # loadingFinished's encodedDataLength
        self.finished_at: float | None = None
        self.failure: str | None = None
        self.redirect_url = ""
        self.body: str | None = None
        self.body_base64 = False

    @classmethod
    def from_request(cls, event: dict[str, Any], pageref: str | None) -> Entry:
        """The entry of a ``Network.requestWillBeSent`` event."""
        request = event.get("request") or {}
        url = str(request.get("url", "")) + str(request.get("urlFragment", "") or "")
        post = request.get("postData")
        if post is None and request.get("postDataEntries"):
            post = "".join(
                str(part.get("bytes", "")) for part in request["postDataEntries"] if part
            )
        return cls(
            url=url,
            method=str(request.get("method", "GET")),
            headers=request.get("headers") or {},
            post_data=post if isinstance(post, str) else None,
            resource_type=str(event.get("type", "Other")).lower(),
            frame_id=str(event.get("frameId", "")),
            started=float(event.get("wallTime", 0.0)),
            started_at=float(event.get("timestamp", 0.0)),
            pageref=pageref,
        )

    def respond(self, response: dict[str, Any], timestamp: Any) -> None:
        """Chrome's ``Response`` arrived (or a redirect's)."""
        self.response = response
        self.status = int(response.get("status", 0))
        if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
            self.from_cache = True

    def finish(self, timestamp: Any, failure: str | None) -> None:
        """The load finished (or failed) at Chrome's monotonic ``timestamp``."""
        self.finished_at = float(timestamp) if isinstance(timestamp, int | float) else 0.0
        self.failure = failure

    # -- HAR --------------------------------------------------------------

    def _timings(self) -> tuple[float, dict[str, float]]:
        timing = self.response.get("timing") if self.status is not None else None
        end = self.finished_at if self.finished_at else self.started_at
        total = max(0.0, (end - self.started_at) * 1000)
        if not isinstance(timing, dict):
            # No network timing (cache, data:, failed before the response).
            return round(total, 3), {"send": 0, "wait": round(total, 3), "receive": 0}
        base = float(timing.get("requestTime", self.started_at))

        def span(start: str, stop: str) -> float:
            first, last = float(timing.get(start, -1)), float(timing.get(stop, -1))
            return round(last - first, 3) if first >= 0 and last >= first else -1

        send_start = float(timing.get("sendStart", 0))
        starts = [float(timing.get(k, -1)) for k in ("dnsStart", "connectStart", "sendStart")]
        first_start = next((s for s in starts if s >= 0), 0.0)
        blocked = max(0.0, (base - self.started_at) * 1000 + first_start)
        headers_end = float(timing.get("receiveHeadersEnd", send_start))
        finished = (end - base) * 1000 if self.finished_at else headers_end
        timings = {
            "blocked": round(blocked, 3),
            "dns": span("dnsStart", "dnsEnd"),
            "connect": span("connectStart", "connectEnd"),
            "ssl": span("sslStart", "sslEnd"),
            "send": max(0.0, span("sendStart", "sendEnd")),
            "wait": round(max(0.0, headers_end - float(timing.get("sendEnd", send_start))), 3),
            "receive": round(max(0.0, finished - headers_end), 3),
        }
        time = sum(v for k, v in timings.items() if k != "ssl" and v > 0)
        return round(time, 3), timings

    def to_har(self, content: str) -> dict[str, Any]:
        """HAR's entry object."""
        request_headers = _header_list(self.raw_request_headers or self.request_headers)
        extra = self.response_extra or {}
        response_headers = _header_list(extra.get("headers") or self.response.get("headers"))
        headers_text = extra.get("headersText") or self.response.get("headersText")
        headers_size = len(headers_text.encode()) if isinstance(headers_text, str) else -1
        request_text = self.response.get("requestHeadersText")
        request_size = len(request_text.encode()) if isinstance(request_text, str) else -1
        post = self.post_data
        if self.from_cache:
            body_size = 0
        elif self.encoded_length >= 0 and headers_size >= 0:
            body_size = max(0, self.encoded_length - headers_size)
        else:
            body_size = self.encoded_data
        time, timings = self._timings()
        mime = str(self.response.get("mimeType") or "x-unknown")
        body: dict[str, Any] = {"size": self.decoded_size, "mimeType": mime}
        if content == "embed" and self.body is not None:
            body["text"] = self.body
            if self.body_base64:
                body["encoding"] = "base64"
        request: dict[str, Any] = {
            "method": self.method,
            "url": self.url,
            "httpVersion": _http_version(self.response.get("protocol")) or "HTTP/1.1",
            "cookies": _request_cookies(request_headers),
            "headers": request_headers,
            "queryString": [
                {"name": name, "value": value}
                for name, value in parse_qsl(urlsplit(self.url).query, keep_blank_values=True)
            ],
            "headersSize": request_size,
            "bodySize": len(post.encode()) if post is not None else 0,
        }
        if post is not None:
            mime_type = next(iter(_header(request_headers, "content-type")), "")
            request["postData"] = {"mimeType": mime_type, "text": post}
        status = self.status if self.status is not None else 0
        entry: dict[str, Any] = {
            "startedDateTime": _iso(self.started),
            "time": time,
            "request": request,
            "response": {
                "status": status,
                "statusText": str(extra.get("statusText", self.response.get("statusText", ""))),
                "httpVersion": _http_version(self.response.get("protocol")),
                "cookies": _response_cookies(response_headers),
                "headers": response_headers,
                "content": body,
                "redirectURL": self.redirect_url,
                "headersSize": headers_size,
                "bodySize": body_size if self.status is not None else -1,
            },
            "cache": {},
            "timings": timings,
            "_resourceType": self.resource_type,
            "_frameId": self.frame_id,
        }
        if self.pageref is not None:
            entry["pageref"] = self.pageref
        address = self.response.get("remoteIPAddress")
        if isinstance(address, str) and address:
            entry["serverIPAddress"] = address.strip("[]")
        connection = self.response.get("connectionId")
        if connection:
            entry["connection"] = str(connection)
        if self.failure is not None:
            entry["_failureText"] = self.failure
        if self.from_cache:
            entry["_fromCache"] = True
        return entry


def build_har(
    pages: list[Page], entries: list[Entry], content: str, browser_version: str = ""
) -> dict[str, Any]:
    """The HAR 1.2 document: pages and entries in the order they started."""
    log: dict[str, Any] = {
        "version": "1.2",
        "creator": {"name": "kobrowser", "version": _version()},
    }
    if browser_version:
        name, _, version = browser_version.partition("/")
        log["browser"] = {"name": name or "Chrome", "version": version or browser_version}
    log["pages"] = [page.to_har() for page in sorted(pages, key=lambda p: p.started)]
    log["entries"] = [entry.to_har(content) for entry in sorted(entries, key=lambda e: e.started)]
    return {"log": log}
