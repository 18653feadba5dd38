"""The request log, wait_for_response, console messages and page errors, in real Chromium."""

from __future__ import annotations

import re
from collections.abc import Callable

import anyio
import pytest
from _server import PageServer
from aiohttp import web

from kobrowser import (
    ConsoleMessage,
    InvalidArgumentError,
    RequestRecord,
    TargetClosedError,
    WaitTimeoutError,
)

from ._pages import PNG, OpenTab

pytestmark = pytest.mark.anyio


async def test_request_log_records_status_type_cache_redirect_and_failure(
    open_tab: OpenTab, server: PageServer
) -> None:
    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound("/target.txt")

    server.set_route("/hop", redirect)
    server.set_page("/target.txt", "target", content_type="text/plain")
    server.set_page(
        "/cached.png", PNG, content_type="image/png", headers={"Cache-Control": "max-age=600"}
    )
    url = server.set_page("/log.html", '<title>log</title><img src="/cached.png">')
    async with open_tab(url) as tab:
        await tab.evaluate("fetch('/hop').then(r => r.text())")
        await tab.evaluate("fetch('http://127.0.0.1:1/unsafe').catch(() => 0)")
        records = tab.network.requests
        by_url = {r.url: r for r in records}
        assert by_url[url].resource_type == "document" and by_url[url].status == 200
        hop = by_url[server.url("/hop")]
        assert (hop.status, hop.finished, hop.resource_type) == (302, True, "fetch")
        target = by_url[server.url("/target.txt")]
        assert (target.status, target.method) == (200, "GET")
        unsafe = by_url["http://127.0.0.1:1/unsafe"]
        assert unsafe.status is None and unsafe.failure == "net::ERR_UNSAFE_PORT"
        assert not by_url[server.url("/cached.png")].from_cache
        await tab.evaluate(
            "new Promise(r => { const i = new Image(); i.onload = r; i.src = '/cached.png'; })"
        )
        again = [r for r in tab.network.requests if r.url == server.url("/cached.png")]
        assert any(r.from_cache for r in again[1:]) or len(again) == 1
        tab.network.clear_requests()
        assert tab.network.requests == []


async def test_request_log_is_bounded(open_tab: OpenTab, server: PageServer) -> None:
    server.set_page("/n", "n", content_type="text/plain")
    url = server.set_page("/bounded.html", "<title>bounded</title>")
    async with open_tab(url) as tab:
        tab._net.log.limit = 5
        await tab.evaluate(
            "Promise.all(Array.from({length: 12}, (_, i) => fetch('/n?' + i).then(r => r.text())))"
        )
        records = tab.network.requests
        assert len(records) == 5
        assert records[-1].url.startswith(server.url("/n?"))


async def test_wait_for_response(open_tab: OpenTab, server: PageServer) -> None:
    gate = server.hold("/slow.json")
    server.set_page("/slow.json", '{"ok": 1}', content_type="application/json")
    url = server.set_page("/wait.html", "<title>wait</title>")
    async with open_tab(url) as tab:
        result: list[RequestRecord] = []

        async def waiter() -> None:
            result.append(await tab.network.wait_for_response("**/slow.json"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await anyio.sleep(0.05)
            await tab.cdp.send("Runtime.evaluate", {"expression": "fetch('/slow.json'), 1"})
            await anyio.to_thread.run_sync(gate.wait_arrived)
            gate.release()
        assert result[0].status == 200 and result[0].url == server.url("/slow.json")
        # A regex, and a predicate on the record.
        async with anyio.create_task_group() as tg:

            async def by_predicate() -> None:
                record = await tab.network.wait_for_response(lambda r: r.status == 404)
                result.append(record)

            tg.start_soon(by_predicate)
            await anyio.sleep(0.05)
            await tab.evaluate("fetch('/missing').then(r => r.status)")
        assert result[1].url.endswith("/missing")
        with pytest.raises(WaitTimeoutError, match=re.escape("no response matching '**/never'")):
            await tab.network.wait_for_response("**/never", timeout=0.3)
        with pytest.raises(InvalidArgumentError):
            await tab.network.wait_for_response("**/x", timeout=-1)
        with pytest.raises(InvalidArgumentError):
            await tab.network.wait_for_response("")


async def test_wait_for_response_fails_when_the_tab_closes(open_tab: OpenTab) -> None:
    async with open_tab("about:blank") as tab:
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:

                async def close_soon() -> None:
                    await anyio.sleep(0.2)
                    await tab.close()

                tg.start_soon(close_soon)
                with pytest.raises(TargetClosedError):
                    await tab.network.wait_for_response("**/x", timeout=30)


_CONSOLE_PAGE = """<title>console</title>
<script>
console.log('hello', 42, true, null, undefined, {a: 1}, [1, 2, 3]);
console.warn('careful');
console.error('bad thing');
setTimeout(() => { throw new TypeError('boom'); }, 0);
setTimeout(() => { throw 'just a string'; }, 0);
</script>"""

_FRAME_CONSOLE = """<title>inner</title>
<script>
console.info('from the frame');
setTimeout(() => { throw new RangeError('frame boom'); }, 0);
</script>"""


async def _until(check: Callable[[], object], what: str) -> None:
    with anyio.fail_after(20):
        while True:
            if check():
                return
            await anyio.sleep(0.05)


async def test_console_messages_and_page_errors(open_tab: OpenTab, server: PageServer) -> None:
    url = server.set_page("/console.html", _CONSOLE_PAGE)
    async with open_tab(url) as tab:
        await _until(lambda: len(tab.console.errors) >= 2, "errors")
        messages = tab.console.messages
        assert [(m.level, m.text) for m in messages] == [
            ("log", "hello 42 true null undefined Object Array(3)"),
            ("warning", "careful"),
            ("error", "bad thing"),
        ]
        assert messages[0].url == url and messages[0].line == 2
        errors = tab.console.errors
        assert (errors[0].name, errors[0].message) == ("TypeError", "boom")
        assert "TypeError: boom" in errors[0].stack and errors[0].url == url
        assert (errors[1].name, errors[1].message) == ("", "just a string")
        tab.console.clear()
        assert tab.console.messages == [] and tab.console.errors == []


async def test_console_and_errors_of_a_cross_origin_frame(
    open_tab: OpenTab, server: PageServer
) -> None:
    server.set_page("/frame-console.html", _FRAME_CONSOLE)
    inner = server.cross_url("/frame-console.html")
    url = server.set_page("/frame-outer.html", f'<title>o</title><iframe src="{inner}"></iframe>')
    async with open_tab(url) as tab:
        await _until(lambda: tab.console.errors, "frame error")
        assert tab._frames.frames(), "the iframe is out of process"
        message = next(m for m in tab.console.messages if m.text == "from the frame")
        assert message.level == "info" and message.url == inner
        error = tab.console.errors[0]
        assert (error.name, error.message, error.url) == ("RangeError", "frame boom", inner)


async def test_on_console_callbacks(open_tab: OpenTab, server: PageServer) -> None:
    url = server.set_page("/callbacks.html", "<title>cb</title>")
    async with open_tab(url) as tab:
        got: list[ConsoleMessage] = []
        async_got: list[str] = []

        def broken(message: ConsoleMessage) -> None:
            raise RuntimeError("callback bug")

        async def slow(message: ConsoleMessage) -> None:
            await anyio.sleep(0.01)
            async_got.append(message.text)

        remove = tab.console.on_message(got.append)
        tab.console.on_message(broken)
        tab.console.on_message(slow)
        await tab.evaluate("for (let i = 0; i < 5; i++) console.log('n' + i)")
        await _until(lambda: len(async_got) == 5, "callbacks")
        assert [m.text for m in got] == [f"n{i}" for i in range(5)]
        assert async_got == [f"n{i}" for i in range(5)]
        remove()
        await tab.evaluate("console.log('after')")
        await _until(lambda: len(async_got) == 6, "callbacks")
        assert len(got) == 5
        with pytest.raises(InvalidArgumentError):
            tab.console.on_message("nope")  # type: ignore[arg-type]
