"""Answering a proxy's login challenge (``Fetch.authRequired``) in a tab's sessions.

Chrome asks for credentials only on requests its ``Fetch`` domain pauses
(``handleAuthRequests``), so while the tab's context has proxy credentials
the routing (:class:`~._routing.TabNetwork`) pauses every request: those no
route wants go on at once, and a challenge is answered here:

* a proxy's first challenge for a request gets the credentials;
* a second challenge for the same request means the proxy refused them: the
  login is cancelled (Chrome then shows the proxy's 407 answer) and the URL
  is remembered, so a navigation to it fails with a
  :class:`~kobrowser.NavigationError` that says so instead of returning
  the 407 page, and nothing waits for a login that cannot succeed;
* a web server's challenge (HTTP 401) is declined: the page gets the 401
  answer, as it does without a proxy.

Chrome remembers accepted credentials per proxy and sends them with later
requests itself, so a challenge comes about once per proxy and context.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from kobrowser._exceptions import KoBrowserError

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["ProxyAuth", "refused_message"]

_log = logging.getLogger("kobrowser.network")

Credentials = Callable[[], "tuple[str, str] | None"]
Spawn = Callable[[Callable[[], Any]], None]

#: Request ids remembered (challenged once) and refused URLs kept, at most.
_REMEMBERED = 1024


class _Challenge(msgspec.Struct):
    source: str = "Server"


class _AuthRequest(msgspec.Struct):
    url: str


class _AuthRequired(msgspec.Struct):
    requestId: str
    request: _AuthRequest
    authChallenge: _Challenge


_AUTH_REQUIRED = msgspec.json.Decoder(_AuthRequired)


def refused_message(url: str) -> str:
    """The text of the error of a navigation whose proxy refused the credentials."""
    return (
        f"cannot open {url!r}: the proxy refused the credentials "
        "(HTTP 407 Proxy Authentication Required); check the proxy's username and password"
    )


class ProxyAuth:
    """Answers the login challenges of one tab's sessions (see the module docstring).

    Args:
        credentials: the tab's context's proxy credentials now (None: none).
        spawn: runs a coroutine function in the browser's task group.
        timeout: the tab's default deadline (a callable: it may change).
    """

    def __init__(
        self, credentials: Credentials, spawn: Spawn, timeout: Callable[[], float]
    ) -> None:
        self._credentials = credentials
        self._spawn = spawn
        self._timeout = timeout
        self._answered: OrderedDict[str, None] = OrderedDict()
        self._refused: OrderedDict[str, None] = OrderedDict()

    @property
    def wanted(self) -> bool:
        """Whether the sessions must hand challenges over (the context logs in to a proxy)."""
        return self._credentials() is not None

    def watch(self, session: CDPSession) -> None:
        """Answer the challenges of ``session``'s requests."""
        session.add_listener("Fetch.authRequired", lambda raw: self._on_auth(session, raw))

    def refused(self, url: str) -> bool:
        """Whether the proxy refused the credentials on a request for ``url``."""
        return url in self._refused

    def _on_auth(self, session: CDPSession, raw: msgspec.Raw) -> None:
        event = _AUTH_REQUIRED.decode(raw)
        request_id = event.requestId
        credentials = self._credentials()
        response: dict[str, str]
        if event.authChallenge.source != "Proxy" or credentials is None:
            # No login: the page gets the 401 answer, as without a proxy
            # (Chrome's "Default" here fails the request instead).
            response = {"response": "CancelAuth"}
        elif request_id in self._answered:
            del self._answered[request_id]
            _remember(self._refused, event.request.url)
            _log.warning("the proxy refused the credentials for %s", event.request.url)
            response = {"response": "CancelAuth"}
        else:
            _remember(self._answered, request_id)
            self._refused.pop(event.request.url, None)
            username, password = credentials
            response = {
                "response": "ProvideCredentials",
                "username": username,
                "password": password,
            }
        params = {"requestId": request_id, "authChallengeResponse": response}

        async def answer() -> None:
            try:
                await session.send("Fetch.continueWithAuth", params, timeout=self._timeout())
            except KoBrowserError as exc:  # the request or the session went away
                _log.debug("answering the login challenge of %s: %s", event.request.url, exc)

        self._spawn(answer)


def _remember(entries: OrderedDict[str, None], key: str) -> None:
    entries[key] = None
    entries.move_to_end(key)
    while len(entries) > _REMEMBERED:
        entries.popitem(last=False)
