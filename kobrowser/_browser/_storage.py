"""Storage state: a context's cookies and each origin's localStorage, as JSON.

The layout is Playwright's, so files move between the two both ways::

    {"cookies": [{"name": ..., "value": ..., "domain": ..., "path": ...,
                  "expires": -1, "httpOnly": false, "secure": false,
                  "sameSite": "Lax"}],
     "origins": [{"origin": "https://example.com",
                  "localStorage": [{"name": "k", "value": "v"}]}]}

As in Playwright, an origin's storage is its own (first-party) one: what a
top-level document of that origin sees. (An embedded frame's storage is
partitioned by the top site in Chrome and is not part of the state.)
Saving reads localStorage of each tab's top document straight from
DevTools; other origins the context's frames visited are read in a scratch
tab of the context whose every request is answered locally with an empty
page (no network, no site script). Loading sets cookies in one call and
localStorage in such a scratch tab.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import anyio
import msgspec

from kobrowser._browser._cookies import cookie_params
from kobrowser._exceptions import InvalidArgumentError, KoBrowserError
from kobrowser._tab._recording import unrecorded

if TYPE_CHECKING:
    from kobrowser._tab._network import Route
    from kobrowser._tab._tab import Tab
    from kobrowser.cdp import CDPSession

__all__ = ["StorageState", "StoredContext", "load_state", "parse_state", "read_state"]


class StoredContext(Protocol):
    """What saving and loading need of a context (a :class:`~kobrowser.BrowserContext`)."""

    @property
    def tabs(self) -> list[Tab]:
        """The context's open tabs."""
        ...

    async def cookies(self, urls: str | Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The context's cookies in Playwright's layout."""
        ...

    async def _set_cookie_params(self, params: list[dict[str, Any]]) -> None:
        """Set CDP cookie params, all or none."""
        ...

    async def _scratch_tab(self, timeout: float) -> Tab:
        """A new blank tab of the context that does not become the current tab."""
        ...


class StorageState(msgspec.Struct, frozen=True):
    """A checked storage state: CDP cookie params and origin -> localStorage items."""

    cookies: list[dict[str, Any]]
    origins: dict[str, list[tuple[str, str]]]


def _bad(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"storage_state: {message}", argument="storage_state")


def normalize_origin(origin: Any) -> str:
    """``https://Example.com/`` -> ``https://example.com``; raise if not an origin."""
    if not isinstance(origin, str):
        raise _bad(f"an origin must be a string, not {type(origin).__name__}")
    try:
        parts = urlsplit(origin)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        ok = False
    if not ok:
        raise _bad(f"not an http(s) origin: {origin!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise _bad(f"an origin has no path, query or fragment: {origin!r}")
    return f"{parts.scheme}://{parts.netloc.lower()}"


async def _read_source(source: str | os.PathLike[str] | Mapping[str, Any]) -> Any:
    if isinstance(source, Mapping):
        return source
    if not isinstance(source, str | os.PathLike):
        raise _bad(f"give a path or a dict, not {type(source).__name__}")
    path = anyio.Path(source)
    try:
        text = await path.read_bytes()
    except OSError as exc:
        raise _bad(f"cannot read {os.fspath(source)!r}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad(f"{os.fspath(source)!r} is not valid JSON: {exc}") from None


async def parse_state(source: str | os.PathLike[str] | Mapping[str, Any]) -> StorageState:
    """Read and check a storage state file (or dict) before anything is applied.

    Raises:
        InvalidArgumentError: unreadable, not JSON, or not the layout above.
    """
    data = await _read_source(source)
    if not isinstance(data, Mapping):
        raise _bad("must be a JSON object with 'cookies' and 'origins'")
    cookies = data.get("cookies", [])
    origins = data.get("origins", [])
    if not isinstance(cookies, list):
        raise _bad("'cookies' must be a list")
    if not isinstance(origins, list):
        raise _bad("'origins' must be a list")
    try:
        params = cookie_params(cookies)
    except InvalidArgumentError as exc:
        raise _bad(str(exc)) from None
    storage: dict[str, list[tuple[str, str]]] = {}
    for index, entry in enumerate(origins):
        if not isinstance(entry, Mapping) or "origin" not in entry:
            raise _bad(f"origin {index}: must be an object with 'origin' and 'localStorage'")
        items = entry.get("localStorage", [])
        if not isinstance(items, list):
            raise _bad(f"origin {index}: 'localStorage' must be a list")
        pairs: list[tuple[str, str]] = []
        for item in items:
            if (
                not isinstance(item, Mapping)
                or not isinstance(item.get("name"), str)
                or not isinstance(item.get("value"), str)
            ):
                raise _bad(f"origin {index}: each localStorage item needs string name and value")
            pairs.append((item["name"], item["value"]))
        storage.setdefault(normalize_origin(entry["origin"]), []).extend(pairs)
    return StorageState(params, storage)


# -- reading -----------------------------------------------------------------


async def _top_origin(session: CDPSession, found: dict[str, CDPSession]) -> None:
    try:
        tree = await session.send("Page.getFrameTree")
    except KoBrowserError:
        return  # the tab went away meanwhile
    origin = tree.get("frameTree", {}).get("frame", {}).get("securityOrigin", "")
    if origin.startswith(("http://", "https://")):
        found.setdefault(origin, session)


async def _dom_storage(session: CDPSession, origin: str) -> list[tuple[str, str]] | None:
    try:
        result = await session.send(
            "DOMStorage.getDOMStorageItems",
            {"storageId": {"securityOrigin": origin, "isLocalStorage": True}},
        )
    except KoBrowserError:
        return None  # navigated away meanwhile: read it in the scratch tab
    return [(str(k), str(v)) for k, v in result.get("entries", [])]


_READ_JS = "Object.keys(localStorage).map(k => [k, localStorage.getItem(k)])"
_WRITE_JS = "(items => { for (const [k, v] of items) localStorage.setItem(k, v); return 1; })(%s)"


async def read_state(
    context: StoredContext, origins: Sequence[str], timeout: float
) -> dict[str, Any]:
    """The context's storage state in Playwright's layout.

    Args:
        context: the context to read.
        origins: origins visited earlier, read too when no frame shows them.
        timeout: deadline of each step.
    """
    cookies = await context.cookies()
    # Only top documents: an embedded frame's storage is partitioned by the
    # top site, and the state holds each origin's own (first-party) storage.
    live: dict[str, CDPSession] = {}
    async with anyio.create_task_group() as group:
        for tab in context.tabs:
            group.start_soon(_top_origin, tab.cdp, live)
    storage: dict[str, list[tuple[str, str]]] = {}

    async def read_live(origin: str, session: CDPSession) -> None:
        items = await _dom_storage(session, origin)
        if items is not None:
            storage[origin] = items

    async with anyio.create_task_group() as group:
        for origin, session in live.items():
            group.start_soon(read_live, origin, session)
    missing = [origin for origin in dict.fromkeys(origins) if origin not in storage]
    if missing:

        async def read(tab: Tab, origin: str) -> None:
            storage[origin] = [(str(k), str(v)) for k, v in await tab.evaluate(_READ_JS) or ()]

        await _in_scratch_tab(context, missing, read, timeout)
    return {
        "cookies": cookies,
        "origins": [
            {"origin": origin, "localStorage": [{"name": k, "value": v} for k, v in items]}
            for origin, items in storage.items()
            if items
        ],
    }


async def load_state(context: StoredContext, state: StorageState, timeout: float) -> None:
    """Apply a checked storage state to ``context`` (cookies, then localStorage)."""
    if state.cookies:
        await context._set_cookie_params(state.cookies)
    origins = {origin: items for origin, items in state.origins.items() if items}
    if not origins:
        return

    async def write(tab: Tab, origin: str) -> None:
        await tab.evaluate(_WRITE_JS % json.dumps(origins[origin]))

    await _in_scratch_tab(context, list(origins), write, timeout)


# -- the scratch tab -----------------------------------------------------------

_EMPTY_PAGE = b"<!doctype html><title></title>"


async def _in_scratch_tab(
    context: StoredContext,
    origins: Sequence[str],
    step: Callable[[Tab, str], Any],
    timeout: float,
) -> None:
    """Run ``step(tab, origin)`` on an empty document of each origin, in a tab of ``context``.

    Every request of the tab is answered locally with an empty page (CDP
    Fetch), so nothing reaches the network and no site script runs.
    """
    with unrecorded():  # the library's own tab: never a step of a trace
        await _run_scratch(context, origins, step, timeout)


async def _run_scratch(
    context: StoredContext,
    origins: Sequence[str],
    step: Callable[[Tab, str], Any],
    timeout: float,
) -> None:
    tab = await context._scratch_tab(timeout)
    try:

        async def empty_page(route: Route) -> None:
            await route.fulfill(
                200,
                body=_EMPTY_PAGE,
                headers={"Cache-Control": "no-store"},
                content_type="text/html",
            )

        # Through the tab's own routing, which owns the Fetch domain of its sessions.
        await tab.network.route("**", empty_page)
        for origin in origins:
            await tab.open(origin + "/", wait_until="load", timeout=timeout)
            await step(tab, origin)
    finally:
        with anyio.CancelScope(shield=True):
            await tab.close()
