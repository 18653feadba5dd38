"""Bad arguments of the public API on a real browser: InvalidArgumentError, nothing sent.

Each case calls a public method with one bad argument and checks that it
raises :class:`kobrowser.InvalidArgumentError` naming that argument, that
not one CDP call left the calling task, and that the page saw nothing.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import kobrowser
from kobrowser import Browser, InvalidArgumentError, Tab

pytestmark = pytest.mark.anyio

PAGE = """<!doctype html><title>args</title>
<button id=b onclick="window.clicks = (window.clicks || 0) + 1">Go</button>
<input id=t aria-label=Name>
<input id=f type=file aria-label=File>
<select id=s aria-label=Color><option>Red</option><option>Green</option></select>
<input id=c type=checkbox aria-label=Agree>
<script>
  window.events = [];
  for (const kind of ['keydown', 'input', 'mousedown', 'wheel', 'focusin', 'change'])
    document.addEventListener(kind, (e) => window.events.push(kind), true);
</script>
"""


@contextmanager
def calls_from_this_task(browser: Browser) -> Iterator[list[str]]:
    """CDP methods the calling task sends (background tasks of the browser not counted)."""
    connection = browser.connection
    task = asyncio.current_task()
    sent: list[str] = []
    call, call_many = connection.call, connection.call_many

    async def counted_call(method: str, *args: Any, **kwargs: Any) -> Any:
        if asyncio.current_task() is task:
            sent.append(method)
        return await call(method, *args, **kwargs)

    async def counted_many(requests: Any, **kwargs: Any) -> Any:
        if asyncio.current_task() is task:
            sent.extend(request[1] for request in requests)
        return await call_many(requests, **kwargs)

    connection.call = counted_call  # type: ignore[method-assign]
    connection.call_many = counted_many  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        del connection.call, connection.call_many


@pytest.fixture
async def tab(browser: Browser, server: Any) -> AsyncIterator[Tab]:
    tab = await browser.new_tab(server.set_page("/args.html", PAGE))
    await tab.snapshot()
    try:
        yield tab
    finally:
        await tab.close()


NAN, INF = math.nan, math.inf


def tab_cases(missing: str) -> list[tuple[str, tuple[Any, ...], dict[str, Any], str]]:
    """(method, args, kwargs, the argument named) of one bad call each.

    ``method`` is a Tab method, or one of an object on the tab (``dialogs.wait``).
    """
    return [
        ("click", (True,), {}, "element_id"),
        ("click", (0,), {}, "element_id"),
        ("click", (-2,), {}, "element_id"),
        ("click", ("1",), {}, "element_id"),
        ("click", (1.0,), {}, "element_id"),
        ("click", (1,), {"timeout": NAN}, "timeout"),
        ("click", (1,), {"timeout": -1}, "timeout"),
        ("click", (1,), {"timeout": INF}, "timeout"),
        ("click", (1,), {"button": "back"}, "button"),
        ("click", (1,), {"click_count": 0}, "click_count"),
        ("click", (1,), {"click_count": 10**9}, "click_count"),
        ("click", (1,), {"modifiers": ["Hyper"]}, "modifiers"),
        ("click", (1,), {"modifiers": "Shift"}, "modifiers"),
        ("dblclick", (False,), {}, "element_id"),
        ("hover", (1,), {"timeout": "5"}, "timeout"),
        ("focus", (None,), {}, "element_id"),
        ("fill", (2, 5), {}, "value"),
        ("fill", (2, "a\ud800b"), {}, "value"),
        ("fill", (2, "x"), {"timeout": -0.5}, "timeout"),
        ("type", (2, None), {}, "text"),
        ("type", (2, "x"), {"delay": -1}, "delay"),
        ("type", (2, "x"), {"delay": NAN}, "delay"),
        ("press", ("NotAKey",), {}, "key"),
        ("press", ("Control+",), {}, "key"),
        ("press", ("Hyper+a",), {}, "key"),
        ("press", ("",), {}, "key"),
        ("press", (13,), {}, "key"),
        ("press", ("Enter",), {"timeout": NAN}, "timeout"),
        ("select", (4,), {}, "values"),
        ("select", (4, 3), {}, "values"),
        ("check", (True,), {}, "element_id"),
        ("uncheck", (1,), {"timeout": INF}, "timeout"),
        ("upload", (3, missing), {}, "files"),
        ("upload", (3, 42), {}, "files"),
        ("drag", (1, 0), {}, "target_id"),
        ("drag", (1, 2), {"steps": 0}, "steps"),
        ("scroll", ("sideways",), {}, "direction"),
        ("scroll", ("down", NAN), {}, "amount"),
        ("scroll", ("down", -600), {}, "amount"),
        ("scroll_into_view", (1,), {"timeout": -3}, "timeout"),
        ("text", (0,), {}, "element_id"),
        ("html", (1,), {"timeout": INF}, "timeout"),
        ("value", (True,), {}, "element_id"),
        ("attr", (1, ""), {}, "name"),
        ("attr", (1, None), {}, "name"),
        ("box", (-1,), {}, "element_id"),
        ("is_visible", (1,), {"timeout": NAN}, "timeout"),
        ("is_enabled", ("x",), {}, "element_id"),
        ("is_checked", (1,), {"timeout": -1}, "timeout"),
        ("snapshot", (), {"depth": -1}, "depth"),
        ("snapshot", (), {"depth": True}, "depth"),
        ("snapshot", (), {"selector": ""}, "selector"),
        ("snapshot", (), {"interactive": "yes"}, "interactive"),
        ("snapshot", (), {"timeout": NAN}, "timeout"),
        ("evaluate", (b"1",), {}, "expression"),
        ("evaluate", ("1",), {"timeout": -1}, "timeout"),
        ("open", ("example.com",), {}, "url"),
        ("open", ("",), {}, "url"),
        ("open", ("https://x.test/\udc00",), {}, "url"),
        ("open", ("about:blank",), {"wait_until": "done"}, "wait_until"),
        ("open", ("about:blank",), {"timeout": INF}, "timeout"),
        ("reload", (), {"wait_until": "idle"}, "wait_until"),
        ("back", (), {"timeout": NAN}, "timeout"),
        ("forward", (), {"wait_until": None}, "wait_until"),
        ("wait_for_load", ("ready",), {}, "state"),
        ("wait_for_load", (), {"timeout": -1}, "timeout"),
        ("wait_for_url", (42,), {}, "url"),
        ("wait_for_url", ("**",), {"wait_until": "x"}, "wait_until"),
        ("wait_for_text", (None,), {}, "text"),
        ("wait_for_text", ("x",), {"timeout": NAN}, "timeout"),
        ("wait_for_selector", ("",), {}, "selector"),
        ("wait_for_selector", ("#b",), {"state": "shown"}, "state"),
        ("wait_for_function", ("",), {}, "expression"),
        ("dialogs.wait", (), {"timeout": -1}, "timeout"),
        ("wait", (NAN,), {}, "ms"),
        ("wait", (-5,), {}, "ms"),
    ]


async def test_every_bad_argument_is_refused_before_any_cdp_call(
    browser: Browser, tab: Tab, tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.txt")
    for method, args, kwargs, argument in tab_cases(missing):
        with (
            calls_from_this_task(browser) as sent,
            pytest.raises(InvalidArgumentError) as info,
        ):
            owner, _, name = method.rpartition(".")
            await getattr(getattr(tab, owner) if owner else tab, name)(*args, **kwargs)
        where = f"{method}{args}{kwargs}"
        assert sent == [], f"{where} sent {sent}"
        assert info.value.argument == argument, (where, info.value)
        assert str(info.value).startswith(f"{argument}: "), (where, info.value)
        assert isinstance(info.value, ValueError)
    # The page saw nothing at all.
    assert await tab.evaluate("window.events") == []
    assert await tab.evaluate("window.clicks || 0") == 0


async def test_browser_and_context_arguments(browser: Browser, tab: Tab) -> None:
    context = await browser.new_context()
    try:
        cases: list[tuple[Callable[[], Any], str]] = [
            (lambda: browser.new_tab("example.com"), "url"),
            (lambda: browser.new_tab("about:blank", timeout=NAN), "timeout"),
            (lambda: browser.new_tab("about:blank", wait_until="later"), "wait_until"),
            (lambda: context.new_tab("/no/scheme"), "url"),
            (lambda: browser.wait_for_tab(timeout=-1), "timeout"),
            (lambda: browser.wait_for_download(timeout=INF), "timeout"),
            (lambda: browser.wait_for_download(tab="tab"), "tab"),  # type: ignore[arg-type]
            (lambda: browser.switch_to(None), "tab"),  # type: ignore[arg-type]
            (lambda: browser.set_download_dir(5), "path"),  # type: ignore[arg-type]
            (lambda: browser.new_context(download_dir=""), "download_dir"),
            (lambda: browser.new_context(locale="not a locale"), "locale"),
            (lambda: browser.new_context(bogus=1), "bogus"),  # type: ignore[call-arg]
            (lambda: context.emulate(timezone_id="Mars/Olympus"), "timezone_id"),
            (lambda: context.emulate(viewport=(0, 10)), "viewport"),
            (lambda: browser.click(True), "element_id"),
            (lambda: browser.press("NotAKey"), "key"),
            (lambda: browser.snapshot(depth=-1), "depth"),
        ]
        tabs_before = len(browser.tabs)
        for make, argument in cases:
            with (
                calls_from_this_task(browser) as sent,
                pytest.raises(InvalidArgumentError) as info,
            ):
                await make()
            assert sent == [], (argument, sent)
            assert info.value.argument == argument, info.value
        assert len(browser.tabs) == tabs_before
    finally:
        await context.close()


async def test_on_dialog_refuses_what_is_not_a_function(tab: Tab) -> None:
    with pytest.raises(InvalidArgumentError, match=r"^handler: got 'accept'"):
        tab.dialogs.handle("accept")  # type: ignore[arg-type]
    tab.dialogs.handle(None)


async def test_valid_calls_still_work_after_refusals(browser: Browser, tab: Tab) -> None:
    snap = await tab.snapshot(interactive=True)
    button = next(e for e in snap.id_map.values() if e.role == "button")
    with pytest.raises(InvalidArgumentError):
        await tab.click(button.id, timeout=NAN)
    assert tab.browser is browser
    with calls_from_this_task(browser) as sent:
        await tab.click(button.id, timeout=30)
    assert "Input.dispatchMouseEvent" in sent  # the counter sees real calls
    assert await tab.evaluate("window.clicks") == 1
    await tab.press("Tab")
    with pytest.raises(kobrowser.UnknownElementError):
        await tab.click(999)


async def test_fill_of_a_megabyte_of_text(tab: Tab) -> None:
    snap = await tab.snapshot()
    field = next(e for e in snap.id_map.values() if e.role == "textbox")
    text = "abcdefghij" * 100_000
    await tab.fill(field.id, text)
    assert await tab.evaluate("document.getElementById('t').value.length") == len(text)
