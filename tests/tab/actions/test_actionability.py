"""Actionability: covered, half covered, hidden, disabled, late-enabled elements."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from kobrowser import NotInteractableError, StaleElementError
from kobrowser._exceptions import CDPTimeoutError
from kobrowser._tab import _resolve, _scripts

from ._pages import eval_in, find, iframe, read_log, top_log

pytestmark = pytest.mark.anyio

POINTER = ("pointerdown", "mousedown", "pointerup", "mouseup", "click", "mouseover")

TARGET = (
    '<button id="target" style="position:absolute;left:40px;top:80px;width:240px;'
    'height:60px">Place order</button>'
)


def cover(left: int, width: int, *, label: str = "Accept cookies") -> str:
    return (
        f'<div id="cover" role="dialog" aria-label="{label}" style="position:absolute;'
        f"left:{left}px;top:70px;width:{width}px;height:80px;background:rgba(0,0,0,.5);"
        f'z-index:5">{label}</div>'
    )


async def test_half_covered_click_lands_on_the_uncovered_part(open_tab: Any, page_url: Any) -> None:
    # The cover hides the left 60 % of the button, its centre included.
    async with open_tab(page_url(TARGET + cover(30, 180))) as tab:
        snap = await tab.snapshot()
        order = find(snap, "button", "Place order")
        await tab.click(order.id, timeout=10)
        log = await top_log(tab, *POINTER)
        assert [e["target"] for e in log if e["target"] == "cover"] == []
        clicks = [e for e in log if e["type"] == "click"]
        assert [(e["target"], e["trusted"]) for e in clicks] == [("target", True)]
        assert clicks[0]["x"] > 210  # right of the cover


async def test_fully_covered_names_the_cover(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url(TARGET + cover(20, 300))) as tab:
        snap = await tab.snapshot()
        order = find(snap, "button", "Place order")
        with pytest.raises(NotInteractableError) as info:
            await tab.click(order.id, timeout=1)
        message = str(info.value)
        assert info.value.element_id == order.id
        assert 'dialog "Accept cookies"' in message, message
        assert "<div id=cover>" in message, message
        assert f"element {order.id} " in message
        assert await top_log(tab, *POINTER[:-1]) == []


async def test_cover_in_the_parent_frame(open_tab: Any, page_url: Any) -> None:
    """A top-page banner over an out-of-process iframe's button is seen and named."""
    inner = page_url('<button id="pay" style="width:300px;height:60px">Pay</button>', cross=True)
    banner = (
        '<div id="banner" style="position:absolute;left:0;top:0;width:100%;height:{h}px;'
        'background:rgba(0,0,0,.5)">Cookie banner</div>'
    )
    top = '<div style="height:20px"></div>' + iframe(inner, 400, 200, "Pay")
    async with open_tab(page_url(top + banner.format(h=2000))) as tab:
        snap = await tab.snapshot()
        pay = find(snap, "button", "Pay")
        with pytest.raises(NotInteractableError) as info:
            await tab.click(pay.id, timeout=1)
        assert '"Cookie banner"' in str(info.value), str(info.value)
        assert "<div id=banner>" in str(info.value)
        assert await read_log(pay, *POINTER[:-1]) == []
        assert await top_log(tab, *POINTER[:-1]) == []

        # Shrink the banner to cover the top of the button only: the click goes below it.
        await tab.evaluate("document.getElementById('banner').style.height = '105px'")
        await tab.click(pay.id, timeout=10)
        assert [e["type"] for e in await top_log(tab, *POINTER[:-1])] == []
        clicks = await read_log(pay, "click")
        assert [(e["target"], e["trusted"]) for e in clicks] == [("pay", True)]


async def test_out_of_time_in_a_parent_frame_is_not_interactable(
    open_tab: Any, page_url: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline running out on the way up through the frames is reported as
    not actionable (why, and the wait), not as a bare CDP timeout of one call
    (seen on a loaded machine: 'DOM.resolveNode got no answer within 0.1 s')."""
    inner = page_url('<button id="pay">Pay</button>', cross=True)
    async with open_tab(page_url(iframe(inner, 400, 200, "Pay"))) as tab:
        pay = find(await tab.snapshot(), "button", "Pay")
        original = _resolve.call

        async def slow_parent(
            session: Any, object_id: str, function: str, *args: Any, **kw: Any
        ) -> Any:
            if function is _scripts.HOP:  # the parent frame answers too late
                await anyio.sleep(kw["timeout"] + 0.05)
                raise CDPTimeoutError("Runtime.callFunctionOn", kw["timeout"])
            return await original(session, object_id, function, *args, **kw)

        monkeypatch.setattr(_resolve, "call", slow_parent)
        with pytest.raises(NotInteractableError, match=r"is not actionable: .*\(waited 1 s\)"):
            await tab.click(pay.id, timeout=1)
        assert await read_log(pay, "click") == []


async def test_hidden_after_snapshot(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<button id="b">Go</button>')) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.evaluate("document.getElementById('b').style.visibility = 'hidden'")
        with pytest.raises(NotInteractableError, match="not visible"):
            await tab.click(go.id, timeout=0.5)
        assert await tab.is_visible(go.id) is False
        assert await tab.text(go.id) == ""  # innerText of an invisible element
        assert await tab.attr(go.id, "id") == "b"
        assert await top_log(tab, *POINTER[:-1]) == []


async def test_shown_again_clicks_once_it_is_visible(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<button id="b">Go</button>')) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.evaluate(
            "document.getElementById('b').style.visibility = 'hidden';"
            "setTimeout(() => { document.getElementById('b').style.visibility = ''; }, 300); 0"
        )
        await tab.click(go.id, timeout=30)
        assert [e["target"] for e in await top_log(tab, "click")] == ["b"]


async def test_renamed_while_hidden_is_stale_when_shown(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<button id="b">Preview order</button>')) as tab:
        snap = await tab.snapshot()
        preview = find(snap, "button", "Preview order")
        await tab.evaluate(
            "const b = document.getElementById('b'); b.style.visibility = 'hidden';"
            "setTimeout(() => { b.textContent = 'Confirm purchase'; b.style.visibility = ''; },"
            " 300); 0"
        )
        with pytest.raises(StaleElementError, match="Confirm purchase"):
            await tab.click(preview.id, timeout=30)
        assert await top_log(tab, *POINTER[:-1]) == []


async def test_disabled_after_snapshot(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<button id="b">Go</button>')) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.evaluate("document.getElementById('b').disabled = true")
        with pytest.raises(NotInteractableError, match="disabled"):
            await tab.click(go.id, timeout=0.5)
        assert await tab.is_enabled(go.id) is False
        assert await top_log(tab, *POINTER[:-1]) == []


async def test_waits_until_enabled_and_uncovered(open_tab: Any, page_url: Any) -> None:
    body = (
        '<button id="b" disabled>Go</button>'
        '<div id="veil" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>'
    )
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        go = find(snap, "button", "Go")
        await tab.evaluate(
            "setTimeout(() => { document.getElementById('b').disabled = false; }, 200);"
            "setTimeout(() => { document.getElementById('veil').remove(); }, 400); 0"
        )
        await tab.click(go.id, timeout=30)
        clicks = await top_log(tab, "click")
        assert [(e["target"], e["trusted"]) for e in clicks] == [("b", True)]


async def test_offscreen_element_is_scrolled_to(open_tab: Any, page_url: Any) -> None:
    body = '<div style="height:3000px"></div><button id="b">Bottom</button>'
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        bottom = find(snap, "button", "Bottom")
        await tab.click(bottom.id)
        clicks = await top_log(tab, "click")
        assert [e["target"] for e in clicks] == ["b"]
        assert await tab.evaluate("window.scrollY") > 0


async def test_box_matches_the_layout(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url(TARGET)) as tab:
        snap = await tab.snapshot()
        order = find(snap, "button", "Place order")
        assert await tab.box(order.id) == {"x": 40.0, "y": 80.0, "width": 240.0, "height": 60.0}
        assert await eval_in(order, "function() { return this.id; }") == "target"
