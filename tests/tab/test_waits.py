"""Waits: each is released by a page change the server holds back until the
test lets it through, so a wait that returned early (or polled past the
change) fails the ordering assertions."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
import anyio.lowlevel
import pytest
from _server import PageServer

import kobrowser
from kobrowser import (
    Browser,
    InvalidArgumentError,
    InvalidSelectorError,
    JavaScriptError,
    Tab,
    WaitTimeoutError,
)
from kobrowser._tab._waits import glob_to_regex

# Not about the backend: `scripts/test.sh --fast` runs these on trio only (CI: both).
pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]

# After /gate answers, the page runs `then` (a JS statement).
_AFTER_GATE = "<script>fetch('/gate').then((r) => r.text()).then(() => {{ {then} }});</script>"


@pytest.fixture
async def tab(browser: Browser) -> AsyncIterator[Tab]:
    tab = await browser.new_tab()
    try:
        yield tab
    finally:
        await tab.close()


async def _released_before(server: PageServer, wait: Callable[[], Awaitable[object]]) -> None:
    """Run ``wait`` while /gate is held; assert it returns only after the release."""
    gate = server.hold("/gate")
    server.set_page("/gate", "ok", content_type="text/plain")
    events: list[str] = []

    async def waiter() -> None:
        await wait()
        events.append("returned")

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await gate.arrived()
        events.append("released")
        gate.release()
    assert events == ["released", "returned"]


async def _open_after_gate(server: PageServer, tab: Tab, body: str, then: str) -> None:
    url = server.set_page(
        f"/w-{abs(hash((body, then)))}.html", body + _AFTER_GATE.format(then=then)
    )
    await tab.open(url, wait_until="domcontentloaded")


# -- text -----------------------------------------------------------------------


async def test_wait_for_text(server: PageServer, tab: Tab) -> None:
    await _released_before(
        server,
        lambda: _open_then_wait(
            server,
            tab,
            "<p id=t>Working</p>",
            "document.getElementById('t').textContent = 'All done'",
            lambda: tab.wait_for_text("All done"),
        ),
    )


async def test_wait_for_text_ignores_hidden_text_and_times_out(
    server: PageServer, tab: Tab
) -> None:
    url = server.set_page("/hidden-text.html", "<p style='display:none'>Secret</p><p>Shown</p>")
    await tab.open(url)
    await tab.wait_for_text("Shown")
    with pytest.raises(WaitTimeoutError, match="Secret"):
        await tab.wait_for_text("Secret", timeout=0.5)


async def test_wait_for_text_survives_navigation(server: PageServer, tab: Tab) -> None:
    server.set_page("/second.html", "<p>Second page</p>")
    await _released_before(
        server,
        lambda: _open_then_wait(
            server,
            tab,
            "<p>First page</p>",
            "location.href = '/second.html'",
            lambda: tab.wait_for_text("Second page"),
        ),
    )
    assert tab.url == server.url("/second.html")


async def _open_then_wait(
    server: PageServer, tab: Tab, body: str, then: str, wait: Callable[[], Awaitable[object]]
) -> None:
    await _open_after_gate(server, tab, body, then)
    await wait()


# -- selector -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "then", "state"),
    [
        ("<div id=box></div>", "box.innerHTML = '<b id=x>x</b>'", "attached"),
        ("<b id=x>x</b>", "x.remove()", "detached"),
        ("<b id=x style='display:none'>x</b>", "x.style.display = 'inline'", "visible"),
        (
            "<div id=p class=off><b id=x>x</b></div><style>.off{visibility:hidden}</style>",
            "p.className = ''",
            "visible",
        ),
        ("<b id=x>x</b>", "x.style.visibility = 'hidden'", "hidden"),
        ("<b id=x>x</b>", "x.remove()", "hidden"),
    ],
)
async def test_wait_for_selector_states(
    server: PageServer, tab: Tab, body: str, then: str, state: str
) -> None:
    await _released_before(
        server,
        lambda: _open_then_wait(
            server, tab, body, then, lambda: tab.wait_for_selector("#x", state=state)
        ),
    )


async def test_wait_for_selector_already_true_and_errors(server: PageServer, tab: Tab) -> None:
    await tab.open(server.set_page("/sel.html", "<b id=x>x</b><i id=h hidden>h</i>"))
    await tab.wait_for_selector("#x")  # visible already
    await tab.wait_for_selector("#h", state="attached")
    await tab.wait_for_selector("#h", state="hidden")
    with pytest.raises(WaitTimeoutError, match="#h"):
        await tab.wait_for_selector("#h", state="visible", timeout=0.5)
    with pytest.raises(InvalidSelectorError, match=r"#\[bad") as caught:
        await tab.wait_for_selector("#[bad")
    assert isinstance(caught.value, InvalidArgumentError)
    assert caught.value.argument == "selector"
    with pytest.raises(ValueError, match="state"):
        await tab.wait_for_selector("#x", state="shown")


# -- URL ------------------------------------------------------------------------


def test_glob_to_regex() -> None:
    assert glob_to_regex("**/checkout*").fullmatch("https://shop.test/cart/checkout?step=2")
    assert not glob_to_regex("**/checkout*").fullmatch("https://shop.test/checkout/done")
    assert glob_to_regex("https://*.test/**").fullmatch("https://shop.test/a/b")
    assert not glob_to_regex("https://*.test/**").fullmatch("https://a/b.test/c")
    assert glob_to_regex("**/*.{png,jpg}").fullmatch("http://x/a/b.jpg")
    assert not glob_to_regex("**/a?b").fullmatch("http://x/axb")  # ? is literal
    assert glob_to_regex("**/a?b").fullmatch("http://x/a?b")


async def test_wait_for_url_glob_on_navigation(server: PageServer, tab: Tab) -> None:
    server.set_page("/checkout", "<title>Checkout</title>")
    await _released_before(
        server,
        lambda: _open_then_wait(
            server,
            tab,
            "<p>cart</p>",
            "location.href = '/checkout?step=2'",
            lambda: tab.wait_for_url("**/checkout*"),
        ),
    )
    assert tab.url == server.url("/checkout?step=2")
    assert await tab.title() == "Checkout"  # wait_until="load" by default


async def test_wait_for_url_regex_and_callable_on_history_api(server: PageServer, tab: Tab) -> None:
    await _released_before(
        server,
        lambda: _open_then_wait(
            server,
            tab,
            "<p>spa</p>",
            "history.pushState({}, '', '/spa/step-3')",
            lambda: tab.wait_for_url(re.compile(r"/spa/step-\d$")),
        ),
    )
    await tab.wait_for_url(lambda url: url.endswith("step-3"))
    with pytest.raises(WaitTimeoutError, match="it is"):
        await tab.wait_for_url("**/never", timeout=0.5)


# -- load state, function, wait ---------------------------------------------------


async def test_wait_for_load_networkidle_after_a_click(server: PageServer, tab: Tab) -> None:
    # The page is loaded; a later script-started fetch keeps the network busy.
    await _released_before(
        server,
        lambda: _open_then_wait(
            server, tab, "<p>x</p>", "window.done = 1", lambda: tab.wait_for_load("networkidle")
        ),
    )
    assert await tab.evaluate("window.done") == 1


async def test_wait_for_load_of_a_started_navigation(server: PageServer, tab: Tab) -> None:
    gate = server.hold("/slow-next.html")
    server.set_page("/slow-next.html", "<title>Next</title>")
    await tab.open(server.set_page("/start.html", "<a href='/slow-next.html'>next</a>"))
    await tab.evaluate("setTimeout(() => document.querySelector('a').click(), 0), 1")
    await gate.arrived()
    # The request can reach the server before the tab has read Chrome's word
    # that the navigation started (another channel; CI saw it). Until then,
    # no wait can know of it.
    with anyio.fail_after(10):
        while not tab._page.navigating:
            await tab._waits.changed()
    events: list[str] = []

    async def waiter() -> None:
        await tab.wait_for_load()
        events.append("loaded")

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await anyio.lowlevel.checkpoint()
        events.append("released")
        gate.release()
    assert events == ["released", "loaded"]
    assert await tab.title() == "Next"


async def test_wait_for_function(server: PageServer, tab: Tab) -> None:
    await _released_before(
        server,
        lambda: _open_then_wait(
            server,
            tab,
            "<p>x</p>",
            "window.answer = {n: 42}",
            lambda: tab.wait_for_function("window.answer && window.answer.n"),
        ),
    )
    assert await tab.wait_for_function("() => window.answer") == {"n": 42}
    with pytest.raises(JavaScriptError, match="nope") as caught:
        await tab.wait_for_function("(() => { throw new Error('nope') })()")
    assert caught.value.message == "Error: nope"
    assert caught.value.stack.startswith("Error: nope\n    at ")
    with pytest.raises(JavaScriptError, match="SyntaxError"):
        await tab.wait_for_function("}{")
    with pytest.raises(WaitTimeoutError):
        await tab.wait_for_function("window.never", timeout=0.5)


async def test_wait_for_function_on_raf_without_mutations(tab: Tab) -> None:
    # Only time changes, no DOM mutation: animation frames drive the re-check.
    # The clock starts at the first check, so that check is always false; the
    # value comes only from a later check that saw the condition true, so a
    # wait that returns at once (or without ever seeing it true) fails here.
    result = await tab.wait_for_function(
        """() => {
            window.t0 ??= performance.now();
            window.checks = (window.checks ?? 0) + 1;
            const elapsed = performance.now() - window.t0;
            return elapsed > 100 && {elapsed, checks: window.checks};
        }"""
    )
    assert isinstance(result, dict), result
    assert result["elapsed"] > 100
    assert result["checks"] >= 2
    assert await tab.evaluate("performance.now() - window.t0") >= result["elapsed"]


async def test_wait_sleeps(tab: Tab) -> None:
    before = await tab.evaluate("performance.now()")
    await tab.wait(50)
    after = await tab.evaluate("performance.now()")
    assert after - before >= 50


async def test_wait_fails_when_the_tab_closes(browser: Browser, server: PageServer) -> None:
    tab = await browser.new_tab(server.set_page("/closing.html", "<p>x</p>"))
    errors: list[BaseException] = []

    async def waiter() -> None:
        try:
            await tab.wait_for_url("**/never")
        except kobrowser.TargetClosedError as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await anyio.sleep(0.05)
        await tab.close()
    assert len(errors) == 1
