"""The live view: a local web page showing a browser's current tab as it changes.

:class:`LiveView` serves, at ``http://127.0.0.1:PORT/``, a page with the
current tab's screencast, its latest snapshot (the one the agent's ids refer
to: the view never takes a snapshot itself, so ids never move under an
agent) and the log of actions as they happen, fed by the same hook as
tracing (``kobrowser._tab._recording``): the library, the CLI daemon, MCP and
the agent loop all reach it.

A person can act on the picture: a click, the wheel and keys are sent to the
tab as trusted input. Acting takes over: from then on every action of the
library (an agent's next step, a CLI command) waits before it starts until
the person hands back (the page's button, or closing the view).

Access (see :mod:`._access`): loopback only by default; another address
needs a token, without which every request gets 401; on loopback the Host
and Origin headers must be local; input is a JSON ``POST`` (a plain form
from another site cannot send one).

The server is aiohttp's, so the view needs the asyncio backend.
"""

from __future__ import annotations

import base64
import collections
import json
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import anyio
from aiohttp import web
from anyio.streams.memory import MemoryObjectSendStream

from kobrowser._exceptions import InvalidArgumentError, KoBrowserError
from kobrowser._tab._recording import Step, unrecorded
from kobrowser.actions._types import quote
from kobrowser.view._access import (
    bind_listener,
    http_access_problem,
    is_loopback,
    local_request_problem,
    token_matches,
)
from kobrowser.view._page import PAGE

if TYPE_CHECKING:
    from kobrowser._browser import Browser
    from kobrowser._tab import Tab

__all__ = ["TOKEN_ENV", "LiveView"]

#: The environment variable ``ko-browser view`` reads the token from.
TOKEN_ENV: Final = "KOBROWSER_VIEW_TOKEN"
_LOG_KEPT: Final = 500
_FOLLOW_EVERY: Final = 0.25  # seconds between checks of which tab is current
_KEYS: Final = frozenset(
    {
        "Enter", "Tab", "Backspace", "Delete", "Escape", "ArrowUp", "ArrowDown",
        "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown", "Space",
    }
)  # fmt: skip


class LiveView:
    """A live, local web view of a browser's current tab (see the module).

    Args:
        browser: the browser to show (its current tab, following switches).
        host: the address to bind (default 127.0.0.1); any other than
            loopback needs ``token``.
        port: the port (0: any free one).
        token: the secret every request must carry (``Authorization:
            Bearer TOKEN`` or ``?token=TOKEN``; the printed URL has it).

    Raises:
        InvalidArgumentError: a host that is not loopback without a token,
            or a token shorter than 16 characters.
    """

    def __init__(
        self,
        browser: Browser,
        *,
        host: str | None = None,
        port: int = 0,
        token: str | None = None,
    ) -> None:
        problem = http_access_problem(host, token, TOKEN_ENV)
        if problem is not None:
            raise InvalidArgumentError(problem, argument="token")
        self.browser = browser
        self._host = host or "127.0.0.1"
        self._local = is_loopback(self._host)
        self._port = port
        self._token = token
        self.url = ""
        self._log: collections.deque[dict[str, Any]] = collections.deque(maxlen=_LOG_KEPT)
        self._count = 0
        self._subscribers: set[MemoryObjectSendStream[tuple[str, str]]] = set()
        self._frame: dict[str, Any] | None = None
        self._snapshot: dict[str, Any] | None = None
        self._shown_snapshot: object = None
        self._cast_tab: Tab | None = None
        self._cast_scope: anyio.CancelScope | None = None
        self._handed_back = anyio.Event()
        self._handed_back.set()

    @property
    def controlled(self) -> bool:
        """True while a person has taken over (library actions wait)."""
        return not self._handed_back.is_set()

    # -- the recorder (kobrowser._tab._recording.Recorder) -----------------------

    async def begin(self, step: Step) -> None:
        """Hold the step back while a person has taken over."""
        while not self._handed_back.is_set():
            await self._handed_back.wait()

    async def end(self, step: Step) -> None:
        """Log the step and show the snapshot its tab has now."""
        tab = step.tab
        mask: Callable[[str], str] = tab._context._mask_text
        self._add(
            mask(step.line),
            ok=step.ok,
            error=None if step.error is None else mask(step.error),
            ms=step.duration * 1000,
            source="library",
        )
        self._show_snapshot(tab)
        self._follow()

    # -- state pushed to the pages ------------------------------------------------

    def _add(self, line: str, *, ok: bool, error: str | None, ms: float, source: str) -> None:
        self._count += 1
        entry = {
            "n": self._count,
            "line": line,
            "ok": ok,
            "error": error,
            "ms": round(ms),
            "source": source,
            "time": time.time(),
        }
        self._log.append(entry)
        self._publish("action", entry)

    def _show_snapshot(self, tab: Tab) -> None:
        snap = tab.last_snapshot
        if snap is None or snap is self._shown_snapshot:
            return
        self._shown_snapshot = snap
        self._snapshot = {"url": snap.url, "text": tab._context._mask_text(snap.text)}
        self._publish("snapshot", self._snapshot)

    def _publish(self, kind: str, payload: dict[str, Any]) -> None:
        data = json.dumps(payload)
        for subscriber in tuple(self._subscribers):
            try:
                subscriber.send_nowait((kind, data))
            except anyio.WouldBlock:  # a slow page loses this one (frames mostly)
                pass
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._subscribers.discard(subscriber)

    def _current(self) -> Tab | None:
        tab: Tab | None = self.browser._targets.current
        return None if tab is None or tab.closed else tab

    def _follow(self) -> None:
        """Restart the screencast on the current tab when it is another one."""
        if self._cast_scope is not None and self._current() is not self._cast_tab:
            self._cast_scope.cancel()

    # -- serving --------------------------------------------------------------

    async def run(self, ready: Callable[[str], Awaitable[None]]) -> None:
        """Serve until cancelled; ``ready(url)`` is awaited once the page can be opened.

        Raises:
            OSError: the port could not be bound.

        Cancelling it closes the server, hands control back and detaches
        the view from the browser.
        """
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/events", self._events)
        app.router.add_post("/input", self._input)
        app.router.add_post("/control", self._control)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        try:
            sock = bind_listener(self._host, self._port, backlog=128)
            sock.setblocking(False)
            self._port = sock.getsockname()[1]
            await web.SockSite(runner, sock).start()
            shown = f"[{self._host}]" if ":" in self._host else self._host
            self.url = f"http://{shown}:{self._port}/"
            if self._token is not None:
                self.url += f"?token={self._token}"
            self.browser._attach_recorder(self)
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._frames)
                    tg.start_soon(self._watch_tab)
                    await ready(self.url)
                    await anyio.sleep_forever()
            finally:
                self.browser._detach_recorder(self)
                self._handed_back.set()
        finally:
            for subscriber in tuple(self._subscribers):
                subscriber.close()
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await runner.cleanup()

    async def _watch_tab(self) -> None:
        while True:
            await anyio.sleep(_FOLLOW_EVERY)
            self._follow()
            tab = self._current()
            if tab is not None:
                self._show_snapshot(tab)

    async def _frames(self) -> None:
        """Show the current tab's screencast, following the current tab."""
        while True:
            tab = self._current()
            if tab is None:
                await anyio.sleep(_FOLLOW_EVERY)
                continue
            with anyio.CancelScope() as scope:
                self._cast_scope, self._cast_tab = scope, tab
                try:
                    async with tab.screencast(
                        quality=60, max_width=1280, max_height=1280, max_fps=10
                    ) as cast:
                        async for frame in cast:
                            self._frame = {
                                "jpeg": base64.b64encode(frame.data).decode("ascii"),
                                "width": frame.device_width,
                                "height": frame.device_height,
                                "url": tab.url,
                            }
                            self._publish("frame", self._frame)
                except KoBrowserError:
                    pass  # the tab went away: the next current one is shown
            self._cast_scope = None
            await anyio.sleep(_FOLLOW_EVERY)

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if self._token is not None and not token_matches(
            self._token, request.headers.get("Authorization"), request.query.get("token")
        ):
            return web.Response(
                status=401,
                text="this view needs its token: open the URL it printed",
                headers={"WWW-Authenticate": 'Bearer realm="kobrowser"'},
            )
        if self._local:
            problem = local_request_problem(
                request.headers.get("Host"), request.headers.get("Origin"), self._port
            )
            if problem is not None:
                return web.Response(status=403, text=problem)
            peer = request.remote or ""
            if not is_loopback(peer):
                return web.Response(status=403, text="only local clients may use this view")
        else:
            origin = request.headers.get("Origin")
            if origin not in (None, "null") and origin.split("://", 1)[-1] != request.host:
                return web.Response(status=403, text=f"Origin {origin!r} is not this view")
        if request.method == "POST" and request.content_type != "application/json":
            return web.Response(status=415, text="send JSON")
        return await handler(request)

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.Response(
            text=PAGE,
            content_type="text/html",
            headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"},
        )

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        await response.prepare(request)
        first = [("hello", json.dumps({"controlled": self.controlled}))]
        first += [("action", json.dumps(entry)) for entry in self._log]
        if self._snapshot is not None:
            first.append(("snapshot", json.dumps(self._snapshot)))
        if self._frame is not None:
            first.append(("frame", json.dumps(self._frame)))
        send, receive = anyio.create_memory_object_stream[tuple[str, str]](len(first) + 256)
        for item in first:
            send.send_nowait(item)
        self._subscribers.add(send)
        try:
            async with receive:
                async for kind, data in receive:
                    await response.write(f"event: {kind}\ndata: {data}\n\n".encode())
        except (ConnectionResetError, ConnectionError):
            pass
        finally:
            self._subscribers.discard(send)
            send.close()
        return response

    async def _control(self, request: web.Request) -> web.StreamResponse:
        body = await _json(request)
        take = body.get("take")
        if not isinstance(take, bool):
            return web.json_response({"error": "send {take: true|false}"}, status=400)
        self._set_control(take)
        return web.json_response({"controlled": self.controlled})

    def _set_control(self, take: bool) -> None:
        if take and not self.controlled:
            self._handed_back = anyio.Event()
        elif not take:
            self._handed_back.set()
        self._publish("control", {"controlled": self.controlled})

    async def _input(self, request: web.Request) -> web.StreamResponse:
        body = await _json(request)
        tab = self._current()
        if tab is None:
            return web.json_response({"error": "no open tab"}, status=409)
        self._set_control(True)  # acting on the page takes over
        clock = time.perf_counter()
        try:
            line = await _act(tab, body)
        except (KoBrowserError, ValueError, TypeError, TimeoutError) as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            self._add(
                f"(person) {body.get('type')}",
                ok=False,
                error=message,
                ms=(time.perf_counter() - clock) * 1000,
                source="person",
            )
            return web.json_response({"error": message}, status=400)
        self._add(line, ok=True, error=None, ms=(time.perf_counter() - clock) * 1000,
                  source="person")  # fmt: skip
        return web.json_response({"ok": True, "line": line})


async def _json(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="expected a JSON object")
    return body


def _number(body: dict[str, Any], key: str) -> float:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{key}: expected a number")
    return float(value)


async def _act(tab: Tab, body: dict[str, Any]) -> str:
    """Send one input of the view's page to ``tab``; the log line says what it was."""
    kind = body.get("type")
    send = tab.cdp.send
    if kind == "click":
        x, y = _number(body, "x"), _number(body, "y")
        point = {"x": x, "y": y, "button": "left", "clickCount": 1}
        await send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        await send("Input.dispatchMouseEvent", {"type": "mousePressed", **point, "buttons": 1})
        await send("Input.dispatchMouseEvent", {"type": "mouseReleased", **point, "buttons": 0})
        return f"(person) click at {x:.0f},{y:.0f}"
    if kind == "scroll":
        x, y, dy = _number(body, "x"), _number(body, "y"), _number(body, "dy")
        await send(
            "Input.dispatchMouseEvent",
            {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": dy},
        )
        return f"(person) scroll {'down' if dy > 0 else 'up'} {abs(dy):.0f} px"
    if kind == "text":
        text = body.get("text")
        if not isinstance(text, str) or not text:
            raise ValueError("text: expected a non-empty string")
        await send("Input.insertText", {"text": text})
        return f"(person) type {quote(tab._context._mask_text(text))}"
    if kind == "key":
        key = body.get("key")
        if key not in _KEYS:
            raise ValueError(f"key: expected one of {', '.join(sorted(_KEYS))}")
        with unrecorded():
            await tab.press(str(key))
        return f"(person) press {key}"
    raise ValueError("type: expected click, scroll, text or key")
