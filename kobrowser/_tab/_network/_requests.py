"""A paused request and the :class:`Route` that settles it.

Chrome pauses a request that a route's pattern covers (``Fetch.requestPaused``);
the route's handler gets a :class:`Route` and settles the request exactly
once: :meth:`Route.continue_` (maybe changed), :meth:`Route.fulfill` (a
made-up response, the network is never asked) or :meth:`Route.abort`.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from kobrowser._exceptions import (
    InvalidArgumentError,
    KoBrowserError,
    ProtocolError,
    TargetClosedError,
)

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["ABORT_REASONS", "Request", "Route"]

_log = logging.getLogger("kobrowser.network")

# abort() reasons (Playwright's names) -> Chrome's Network.ErrorReason.
ABORT_REASONS: dict[str, str] = {
    "aborted": "Aborted",
    "accessdenied": "AccessDenied",
    "addressunreachable": "AddressUnreachable",
    "blockedbyclient": "BlockedByClient",
    "blockedbyresponse": "BlockedByResponse",
    "connectionaborted": "ConnectionAborted",
    "connectionclosed": "ConnectionClosed",
    "connectionfailed": "ConnectionFailed",
    "connectionrefused": "ConnectionRefused",
    "connectionreset": "ConnectionReset",
    "internetdisconnected": "InternetDisconnected",
    "namenotresolved": "NameNotResolved",
    "timedout": "TimedOut",
    "failed": "Failed",
}


class Request(msgspec.Struct, frozen=True):
    """A request as a route (or a predicate) sees it.

    Attributes:
        url: the full URL (no ``#fragment``).
        method: ``"GET"``, ``"POST"``...
        headers: the request headers.
        resource_type: ``"document"``, ``"image"``, ``"script"``, ``"xhr"``...
            (lower case; see :meth:`kobrowser.Network.block` for the list).
        frame_id: the id of the frame that made it.
        post_data: the request body, when it has one and Chrome sent it.
    """

    url: str
    method: str
    headers: dict[str, str]
    resource_type: str
    frame_id: str = ""
    post_data: str | None = None

    @property
    def is_navigation(self) -> bool:
        """True for a document request (a frame navigating)."""
        return self.resource_type == "document"


def _header_list(headers: Mapping[str, str], what: str) -> list[dict[str, str]]:
    if not isinstance(headers, Mapping):
        raise InvalidArgumentError(f"{what} must be a mapping of str to str", argument=what)
    result = []
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str) or not name:
            raise InvalidArgumentError(
                f"{what} must map non-empty str names to str values, got {name!r}: {value!r}",
                argument=what,
            )
        result.append({"name": name, "value": value})
    return result


class Route:
    """A paused request, handed to a route handler, to be settled exactly once.

    Attributes:
        request: the :class:`Request`.
        ABORT_REASONS: the reasons :meth:`abort` takes, each with Chrome's name.
    """

    ABORT_REASONS = ABORT_REASONS

    def __init__(self, session: CDPSession, request_id: str, request: Request, timeout: float):
        self.request = request
        self._session = session
        self._request_id = request_id
        self._timeout = timeout
        self._settled = anyio.Event()
        self._claimed = False
        self.outcome: str | None = None  # "continued", "fulfilled", "aborted" (for the log)

    def __repr__(self) -> str:
        return f"<Route {self.request.method} {self.request.url} {self.outcome or 'pending'}>"

    @property
    def settled(self) -> bool:
        """True once continued, fulfilled or aborted."""
        return self._claimed

    async def continue_(
        self,
        *,
        url: str | None = None,
        method: str | None = None,
        headers: Mapping[str, str] | None = None,
        post_data: str | bytes | None = None,
    ) -> None:
        """Let the request go on to the network, maybe changed.

        Args:
            url: another URL (same scheme; the page does not see the change).
            method: another HTTP method.
            headers: replace all request headers with these.
            post_data: another request body.

        Raises:
            InvalidArgumentError: a bad argument (nothing was settled).
            KoBrowserError: the request was settled already.
        """
        params: dict[str, Any] = {"requestId": self._request_id}
        if url is not None:
            if not isinstance(url, str) or not url:
                raise InvalidArgumentError("url must be a non-empty str", argument="url")
            params["url"] = url
        if method is not None:
            if not isinstance(method, str) or not method.isalpha():
                raise InvalidArgumentError(f"method {method!r} is not valid", argument="method")
            params["method"] = method.upper()
        if headers is not None:
            params["headers"] = _header_list(headers, "headers")
        if post_data is not None:
            params["postData"] = _base64(post_data, "post_data")
        await self._settle("Fetch.continueRequest", params, "continued")

    async def fulfill(
        self,
        status: int = 200,
        body: str | bytes = b"",
        headers: Mapping[str, str] | None = None,
        content_type: str | None = None,
    ) -> None:
        """Answer the request with this response; the network is never asked.

        Args:
            status: the HTTP status (100-599).
            body: the body (a str is sent as UTF-8).
            headers: response headers.
            content_type: sets ``Content-Type`` (default: from ``headers``, else
                ``text/plain; charset=utf-8`` for a str body).

        Raises:
            InvalidArgumentError: a bad argument (nothing was settled).
            KoBrowserError: the request was settled already.
        """
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise InvalidArgumentError(
                f"status must be an int from 100 to 599, not {status!r}", argument="status"
            )
        header_list = _header_list(headers or {}, "headers")
        names = {item["name"].lower() for item in header_list}
        if content_type is not None:
            if not isinstance(content_type, str) or not content_type:
                raise InvalidArgumentError(
                    "content_type must be a non-empty str", argument="content_type"
                )
            header_list = [h for h in header_list if h["name"].lower() != "content-type"]
            header_list.append({"name": "Content-Type", "value": content_type})
        elif "content-type" not in names and isinstance(body, str):
            header_list.append({"name": "Content-Type", "value": "text/plain; charset=utf-8"})
        params = {
            "requestId": self._request_id,
            "responseCode": status,
            "responseHeaders": header_list,
            "body": _base64(body, "body"),
        }
        await self._settle("Fetch.fulfillRequest", params, "fulfilled")

    async def abort(self, reason: str = "failed") -> None:
        """Fail the request as a network error.

        Args:
            reason: ``"failed"`` (default), ``"aborted"``, ``"blockedbyclient"``,
                ``"timedout"``, ``"accessdenied"``, ``"connectionrefused"``,
                ``"namenotresolved"``, ``"internetdisconnected"``... (the keys of
                ``ABORT_REASONS``, as in Playwright).

        Raises:
            InvalidArgumentError: an unknown reason (nothing was settled).
            KoBrowserError: the request was settled already.
        """
        code = ABORT_REASONS.get(str(reason).lower()) if isinstance(reason, str) else None
        if code is None:
            raise InvalidArgumentError(
                f"unknown abort reason {reason!r}; known: {', '.join(ABORT_REASONS)}",
                argument="reason",
            )
        params = {"requestId": self._request_id, "errorReason": code}
        await self._settle("Fetch.failRequest", params, "aborted")

    async def _settle(self, method: str, params: dict[str, Any], outcome: str) -> None:
        if self._claimed:
            raise KoBrowserError(
                f"the route of {self.request.url} was settled already ({self.outcome})"
            )
        self._claimed = True
        self.outcome = outcome
        try:
            await self._session.send(method, params, timeout=self._timeout)
        except (ProtocolError, TargetClosedError) as exc:
            # The page navigated away or closed: the request is gone anyway.
            _log.debug("%s of %s: %s", method, self.request.url, exc)
        finally:
            self._settled.set()

    async def _go_on(self) -> None:
        """Continue a paused request no route wanted."""
        self._claimed = True
        self.outcome = "continued"
        try:
            await self._session.send(
                "Fetch.continueRequest", {"requestId": self._request_id}, timeout=self._timeout
            )
        except KoBrowserError as exc:
            _log.debug("continuing %s: %s", self.request.url, exc)
        finally:
            self._settled.set()

    async def _fail_unsettled(self, why: str) -> None:
        """Fail the request if the handler did not settle it (logged)."""
        if self._claimed:
            return
        _log.error("route handler for %s %s; the request fails", self.request.url, why)
        self._claimed = True
        self.outcome = "aborted"
        try:
            await self._session.send(
                "Fetch.failRequest",
                {"requestId": self._request_id, "errorReason": "Failed"},
                timeout=self._timeout,
            )
        except KoBrowserError as exc:
            _log.debug("failing %s: %s", self.request.url, exc)
        finally:
            self._settled.set()


def _base64(data: str | bytes, what: str) -> str:
    if isinstance(data, str):
        data = data.encode()
    elif not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidArgumentError(f"{what} must be str or bytes", argument=what)
    return base64.b64encode(bytes(data)).decode("ascii")
