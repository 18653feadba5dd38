"""Stale, unknown and premature ids fail loudly and never act on another element."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from kobrowser import (
    ElementError,
    InvalidArgumentError,
    NoSnapshotError,
    StaleElementError,
    Tab,
    UnknownElementError,
)

from ._pages import eval_in, find, iframe, read_log, top_log

pytestmark = pytest.mark.anyio

COUNTER = """<script>
window.__clicks = [];
document.addEventListener('click', (e) => {
  const el = e.target.closest('[id]');
  window.__clicks.push(el ? el.id : '');
}, true);
</script>"""


def assert_stale_message(exc: ElementError, element_id: int, was: str) -> None:
    message = str(exc)
    assert exc.element_id == element_id
    assert f"element {element_id} " in message, message
    assert was in message, message
    assert "new snapshot" in message, message


async def test_no_snapshot_yet(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url("<button>Go</button>")) as tab:
        with pytest.raises(NoSnapshotError) as info:
            await tab.click(1)
        assert info.value.element_id == 1
        assert "snapshot first" in str(info.value)


async def test_unknown_id_gives_the_valid_range(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url("<button>A</button><button>B</button><a href=#>C</a>")) as tab:
        snap = await tab.snapshot()
        assert len(snap.id_map) == 3
        for bad in (4, 99):
            with pytest.raises(UnknownElementError) as info:
                await tab.click(bad)
            assert info.value.element_id == bad
            assert "valid ids are 1 to 3" in str(info.value)
        for not_an_id in (0, -1, True):
            with pytest.raises(InvalidArgumentError, match="element_id: got"):
                await tab.click(not_an_id)


async def test_after_navigation(open_tab: Any, page_url: Any) -> None:
    # The second page has a button with the same id, role and name.
    first = page_url(f'<button id="old">Go</button>{COUNTER}')
    second = page_url(f'<button id="new">Go</button>{COUNTER}')
    async with open_tab(first) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.open(second)
        with pytest.raises(StaleElementError) as info:
            await tab.click(go.id)
        assert_stale_message(info.value, go.id, 'button "Go"')
        assert "navigated or reloaded" in str(info.value)
        assert await tab.evaluate("window.__clicks") == []
        fresh = find(await tab.snapshot(), "button", "Go")
        await tab.click(fresh.id)
        assert await tab.evaluate("window.__clicks") == ["new"]


async def test_after_reload(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url(f'<button id="b">Go</button>{COUNTER}')) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.reload()
        with pytest.raises(StaleElementError) as info:
            await tab.click(go.id)
        assert_stale_message(info.value, go.id, 'button "Go"')
        assert await tab.evaluate("window.__clicks") == []


async def test_after_removal(open_tab: Any, page_url: Any) -> None:
    body = f'<button id="a">Remove me</button><button id="b">Other</button>{COUNTER}'
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        gone = find(snap, "button", "Remove me")
        await tab.evaluate("document.getElementById('a').remove()")
        with pytest.raises(StaleElementError) as info:
            await tab.click(gone.id)
        assert_stale_message(info.value, gone.id, 'button "Remove me"')
        assert await tab.evaluate("window.__clicks") == []


async def test_after_rename_never_clicks(open_tab: Any, page_url: Any) -> None:
    body = f'<button id="order">Preview order</button>{COUNTER}'
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        preview = find(snap, "button", "Preview order")
        await tab.evaluate("document.getElementById('order').textContent = 'Confirm purchase'")
        with pytest.raises(StaleElementError) as info:
            await tab.click(preview.id)
        assert_stale_message(info.value, preview.id, 'button "Preview order"')
        assert "Confirm purchase" in str(info.value)
        assert await tab.evaluate("window.__clicks") == []
        confirm = find(await tab.snapshot(), "button", "Confirm purchase")
        await tab.click(confirm.id)
        assert await tab.evaluate("window.__clicks") == ["order"]


async def test_after_role_change(open_tab: Any, page_url: Any) -> None:
    body = f'<div id="d" role="button" tabindex="0">Open</div>{COUNTER}'
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        opener = find(snap, "button", "Open")
        await tab.evaluate("document.getElementById('d').setAttribute('role', 'link')")
        with pytest.raises(StaleElementError) as info:
            await tab.click(opener.id)
        assert_stale_message(info.value, opener.id, 'button "Open"')
        assert await tab.evaluate("window.__clicks") == []


@pytest.mark.parametrize("origin", ["same", "cross"])
async def test_frame_navigated_and_renamed(origin: str, open_tab: Any, page_url: Any) -> None:
    cross = origin == "cross"
    inner = page_url(f'<button id="pay">Pay now</button>{COUNTER}', cross=cross)
    other = page_url(f'<button id="pay2">Pay now</button>{COUNTER}', cross=cross)
    async with open_tab(page_url(iframe(inner, 400, 200, "Payment"))) as tab:
        snap = await tab.snapshot()
        pay = find(snap, "button", "Pay now")
        # Rename inside the frame: stale, no click.
        await pay_eval(pay, "document.getElementById('pay').textContent = 'Pay twice'")
        with pytest.raises(StaleElementError) as info:
            await tab.click(pay.id)
        assert_stale_message(info.value, pay.id, 'button "Pay now"')
        assert await pay_eval(pay, "window.__clicks") == []
        # Navigate only the frame to a page with an identical button: stale.
        snap = await tab.snapshot()
        pay = find(snap, "button", "Pay twice")
        await tab.evaluate(f"document.querySelector('iframe').src = {other!r}")
        await tab.wait_for_function(
            "document.querySelector('iframe').contentDocument === null "
            "|| document.querySelector('iframe').contentDocument.getElementById('pay2') !== null"
        )
        with pytest.raises(StaleElementError) as info:
            await tab.click(pay.id)
        assert_stale_message(info.value, pay.id, 'button "Pay twice"')
        fresh = find(await tab.snapshot(), "button", "Pay now")
        await tab.click(fresh.id)
        assert await pay_eval(fresh, "window.__clicks") == ["pay2"]


async def pay_eval(element: Any, expression: str) -> Any:
    return await eval_in(element, f"function() {{ return ({expression}); }}")


Action = Callable[[Tab, int, Path], Awaitable[Any]]

ACTIONS: dict[str, Action] = {
    "click": lambda tab, i, p: tab.click(i, timeout=5),
    "dblclick": lambda tab, i, p: tab.dblclick(i, timeout=5),
    "hover": lambda tab, i, p: tab.hover(i, timeout=5),
    "focus": lambda tab, i, p: tab.focus(i, timeout=5),
    "fill": lambda tab, i, p: tab.fill(i, "x", timeout=5),
    "type": lambda tab, i, p: tab.type(i, "x", timeout=5),
    "select": lambda tab, i, p: tab.select(i, "x", timeout=5),
    "check": lambda tab, i, p: tab.check(i, timeout=5),
    "uncheck": lambda tab, i, p: tab.uncheck(i, timeout=5),
    "upload": lambda tab, i, p: tab.upload(i, p, timeout=5),
    "drag": lambda tab, i, p: tab.drag(i, i, timeout=5),
    "scroll_into_view": lambda tab, i, p: tab.scroll_into_view(i, timeout=5),
    "text": lambda tab, i, p: tab.text(i, timeout=5),
    "html": lambda tab, i, p: tab.html(i, timeout=5),
    "value": lambda tab, i, p: tab.value(i, timeout=5),
    "attr": lambda tab, i, p: tab.attr(i, "id", timeout=5),
    "box": lambda tab, i, p: tab.box(i, timeout=5),
    "is_visible": lambda tab, i, p: tab.is_visible(i, timeout=5),
    "is_enabled": lambda tab, i, p: tab.is_enabled(i, timeout=5),
    "is_checked": lambda tab, i, p: tab.is_checked(i, timeout=5),
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
async def test_every_action_refuses_a_stale_id(
    action: str, open_tab: Any, page_url: Any, tmp_path: Path
) -> None:
    """Each action, given the id of a node replaced by a look-alike, raises and does nothing."""
    upload = tmp_path / "f.txt"
    upload.write_text("x")
    body = '<input id="el" type="checkbox" aria-label="Agree">'
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        agree = find(snap, "checkbox", "Agree")
        await tab.evaluate(
            "(() => { const old = document.getElementById('el'); const twin = old.cloneNode();"
            " twin.id = 'twin'; old.replaceWith(twin); })()"
        )
        with pytest.raises(StaleElementError) as info:
            await ACTIONS[action](tab, agree.id, upload)
        assert_stale_message(info.value, agree.id, 'checkbox "Agree"')
        events = await top_log(tab)
        assert [e for e in events if e["target"] == "twin"] == []
        assert await tab.evaluate("document.getElementById('twin').checked") is False


async def test_log_helper_sees_clicks(open_tab: Any, page_url: Any) -> None:
    """The recorder the staleness tests rely on does record a real click."""
    async with open_tab(page_url('<button id="b">Go</button>')) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.click(go.id)
        assert [e["target"] for e in await read_log(go, "click")] == ["b"]
