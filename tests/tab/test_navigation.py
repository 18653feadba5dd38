"""Tab navigation: wait_until states on pages whose resources the server holds,
network failures, HTTP error pages, history, URL and title."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import anyio
import pytest
from _server import PageServer

import kobrowser
from kobrowser import Browser, InvalidArgumentError, NavigationError, Tab, WaitTimeoutError

# Not about the backend: `scripts/test.sh --fast` runs these on trio only (CI: both).
pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]


@pytest.fixture
async def tab(browser: Browser) -> AsyncIterator[Tab]:
    tab = await browser.new_tab()
    try:
        yield tab
    finally:
        await tab.close()


async def _ready_state(tab: Tab) -> str:
    return str(await tab.evaluate("document.readyState"))


# -- wait_until ---------------------------------------------------------------


async def test_commit_returns_while_a_parser_blocking_script_is_held(
    server: PageServer, tab: Tab
) -> None:
    gate = server.hold("/commit-script.js")
    server.set_page("/commit-script.js", "window.ran = true", content_type="application/javascript")
    url = server.set_page("/commit.html", "<p>top</p><script src='/commit-script.js'></script>")
    response = await tab.open(url, wait_until="commit")
    assert response is not None and response.status == 200
    assert tab.url == url
    await gate.arrived()
    assert await _ready_state(tab) == "loading"
    gate.release()
    await tab.wait_for_load("load")
    assert await tab.evaluate("window.ran") is True


async def test_domcontentloaded_returns_while_an_image_is_held(
    server: PageServer, tab: Tab
) -> None:
    gate = server.hold("/dcl.png")
    url = server.set_page("/dcl.html", "<p>text</p><img src='/dcl.png'>")
    await tab.open(url, wait_until="domcontentloaded")
    await gate.arrived()
    assert await _ready_state(tab) == "interactive"
    gate.release()
    await tab.wait_for_load("load")
    assert await _ready_state(tab) == "complete"


async def test_load_waits_for_a_held_image(server: PageServer, tab: Tab) -> None:
    gate = server.hold("/load.png")
    url = server.set_page("/load.html", "<p>text</p><img src='/load.png'>")
    events: list[str] = []

    async def navigate() -> None:
        await tab.open(url, wait_until="load")
        events.append("loaded")

    async with anyio.create_task_group() as tg:
        tg.start_soon(navigate)
        await gate.arrived()
        events.append("released")
        gate.release()
    assert events == ["released", "loaded"]
    assert await _ready_state(tab) == "complete"


async def test_networkidle_waits_for_a_fetch_started_after_load(
    server: PageServer, tab: Tab
) -> None:
    gate = server.hold("/idle-api")
    server.set_page("/idle-api", "{}", content_type="application/json")
    url = server.set_page(
        "/idle.html",
        "<script>onload = () => fetch('/idle-api').then((r) => r.text())"
        ".then(() => { window.fetched = true; });"
        "</script><p>idle</p>",
    )
    # "load" does not wait for it...
    await tab.open(url, wait_until="load")
    await gate.arrived()
    assert gate.waiting == 1
    # ...networkidle does.
    events: list[str] = []

    async def navigate() -> None:
        await tab.open(url, wait_until="networkidle")
        events.append("idle")

    gate = server.hold("/idle-api")
    async with anyio.create_task_group() as tg:
        tg.start_soon(navigate)
        await gate.arrived()
        events.append("released")
        gate.release()
    assert events == ["released", "idle"]
    assert await tab.evaluate("window.fetched") is True


async def test_networkidle_counts_requests_of_out_of_process_frames(
    server: PageServer, tab: Tab
) -> None:
    gate = server.hold("/oopif-api")
    server.set_page("/oopif-api", "{}", content_type="application/json")
    server.set_page(
        "/oopif-frame.html",
        "<script>onload = () => fetch('/oopif-api').then((r) => r.text())"
        ".then(() => { window.fetched = true; });"
        "</script><p>frame</p>",
    )
    url = server.set_page(
        "/oopif-top.html", f"<iframe src='{server.cross_url('/oopif-frame.html')}'></iframe>"
    )
    events: list[str] = []

    async def navigate() -> None:
        await tab.open(url, wait_until="networkidle")
        events.append("idle")

    async with anyio.create_task_group() as tg:
        tg.start_soon(navigate)
        await gate.arrived()
        events.append("released")
        gate.release()
    assert events == ["released", "idle"]
    assert tab._frames.frames(), "the frame should be out-of-process"


async def test_timeout_names_the_state(server: PageServer, tab: Tab) -> None:
    server.hold("/never.png")
    url = server.set_page("/never.html", "<img src='/never.png'>")
    with pytest.raises(WaitTimeoutError, match="'load'"):
        await tab.open(url, wait_until="load", timeout=1)
    # The document did commit; only its load is missing.
    assert tab.url == url


async def test_unknown_wait_until_is_rejected(tab: Tab) -> None:
    with pytest.raises(ValueError, match="networkidle"):
        await tab.open("about:blank", wait_until="idle")  # type: ignore[arg-type]


# -- failures and HTTP errors -------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_closed_port_is_a_navigation_error(tab: Tab) -> None:
    with pytest.raises(NavigationError, match="ERR_CONNECTION_REFUSED"):
        await tab.open(f"http://127.0.0.1:{_closed_port()}/")


async def test_invalid_url_is_a_navigation_error(tab: Tab) -> None:
    with pytest.raises(NavigationError, match="invalid URL"):
        await tab.open("http://[not-an-address/")


async def test_url_without_scheme_is_an_argument_error(tab: Tab) -> None:
    with pytest.raises(InvalidArgumentError, match=r"^url: got 'not a url'; expected an absolute"):
        await tab.open("not a url")


async def test_dns_failure_is_a_navigation_error(tab: Tab) -> None:
    with pytest.raises(NavigationError, match="ERR_NAME_NOT_RESOLVED"):
        await tab.open("http://no-such-host.invalid/")


@pytest.mark.parametrize(
    ("status", "body"), [(404, "<h1>Not here</h1>"), (500, "<h1>Broken</h1>"), (500, "")]
)
async def test_http_error_pages_are_responses(
    server: PageServer, tab: Tab, status: int, body: str
) -> None:
    url = server.set_page(f"/status-{status}-{len(body)}.html", body, status=status)
    response = await tab.open(url)
    assert response is not None
    assert response.status == status
    assert not response.ok
    assert response.url == url
    assert tab.url == url


async def test_response_follows_redirects(server: PageServer, tab: Tab) -> None:
    target = server.set_page("/redirected.html", "<title>There</title>")
    server.set_page("/redirect", "", status=302, headers={"Location": "/redirected.html"})
    response = await tab.open(server.url("/redirect"))
    assert response is not None and response.status == 200 and response.ok
    assert response.url == target == tab.url
    assert await tab.title() == "There"


# -- history, URL, title, evaluate ----------------------------------------------


async def test_back_forward_reload(server: PageServer, tab: Tab) -> None:
    first = server.set_page("/h1.html", "<title>One</title>")
    second = server.set_page("/h2.html", "<title>Two</title>")
    await tab.open(first)
    await tab.open(second)
    assert (tab.url, await tab.title()) == (second, "Two")

    response = await tab.back()
    assert response is not None and response.url == first
    assert (tab.url, await tab.title()) == (first, "One")

    response = await tab.forward()
    assert response is not None and response.url == second
    assert (tab.url, await tab.title()) == (second, "Two")
    assert await tab.forward() is None  # nothing ahead

    await tab.evaluate("window.marker = 1")
    response = await tab.reload()
    assert response is not None and response.status == 200
    assert await tab.evaluate("window.marker") is None  # a new document
    assert tab.url == second


async def test_back_at_the_start_of_history_returns_none(tab: Tab) -> None:
    assert await tab.back() is None


async def test_same_document_navigation(server: PageServer, tab: Tab) -> None:
    url = server.set_page("/frag.html", "<title>Frag</title><p id=x>x</p>")
    await tab.open(url)
    assert await tab.open(url + "#x") is None
    assert tab.url == url + "#x"
    await tab.evaluate("history.pushState({}, '', '/pushed')")
    await tab.wait_for_url("**/pushed")
    assert tab.url == server.url("/pushed")
    assert await tab.back() is None  # same document again
    assert tab.url == url + "#x"


async def test_url_follows_script_navigation(server: PageServer, tab: Tab) -> None:
    target = server.set_page("/scripted-target.html", "<title>Target</title>")
    url = server.set_page(
        "/scripted.html", "<script>location.replace('/scripted-target.html')</script>"
    )
    await tab.open(url)  # replaced while loading: the new document is awaited
    assert tab.url == target
    assert await tab.title() == "Target"


async def test_evaluate_and_title(server: PageServer, tab: Tab) -> None:
    await tab.open(server.set_page("/eval.html", "<title> Eval page </title>"))
    assert await tab.title() == "Eval page"
    assert await tab.evaluate("1 + 2") == 3
    assert await tab.evaluate("Promise.resolve({a: [1, 'b']})") == {"a": [1, "b"]}
    with pytest.raises(kobrowser.JavaScriptError, match="boom"):
        await tab.evaluate("(() => { throw new Error('boom') })()")


async def test_evaluate_raises_javascript_error_with_message_and_stack(
    server: PageServer, tab: Tab
) -> None:
    await tab.open(server.set_page("/throw.html", "<title>Throw</title>"))
    with pytest.raises(kobrowser.JavaScriptError) as caught:
        await tab.evaluate("throw new Error('boom')")
    error = caught.value
    assert error.message == "Error: boom"
    assert error.stack.startswith("Error: boom\n    at ")
    assert str(error) == "JavaScript error: Error: boom"
    assert isinstance(error, kobrowser.KoBrowserError)

    # Frames of a named function are in the stack; a message over two lines stays whole.
    with pytest.raises(kobrowser.JavaScriptError) as caught:
        await tab.evaluate(
            "(() => { function deep() { throw new RangeError('one\\ntwo') } deep() })()"
        )
    assert caught.value.message == "RangeError: one\ntwo"
    assert "at deep (" in caught.value.stack

    # A rejected promise, a thrown string.
    with pytest.raises(kobrowser.JavaScriptError) as caught:
        await tab.evaluate("Promise.reject(new TypeError('late'))")
    assert caught.value.message == "TypeError: late"
    with pytest.raises(kobrowser.JavaScriptError) as caught:
        await tab.evaluate("throw 'plain'")
    assert (caught.value.message, caught.value.stack) == ("plain", "")
