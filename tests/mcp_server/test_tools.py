"""The MCP server in-process: the SDK's client against build_server(), real Chromium.

No subprocess and no port: ``mcp.Client(server)`` talks to the server in
memory (``mode="legacy"`` through JSON-RPC streams, the default mode through
the SDK's direct dispatcher).
"""

from __future__ import annotations

import pytest
from _server import PageServer
from mcp import Client

from kobrowser import Browser
from kobrowser.mcp import CORE_TOOL_NAMES, INSTRUCTIONS, TOOL_NAMES, build_server

from .conftest import call, find_id

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("tabs_closed")]

PAY = """<!doctype html><title>Pay</title>
<form onsubmit="return false">
  <label>Card holder <input id="holder"></label>
  <button type="button" onclick="this.textContent = 'Paid by ' +
    document.getElementById('holder').value">Pay now</button>
</form>
<script>
  addEventListener("message", (event) => {
    if (event.data !== "rerender") return;
    const form = document.querySelector("form");
    form.replaceWith(form.cloneNode(true));  // the same elements, as new nodes
    event.source.postMessage("rerendered", "*");
  });
</script>
"""

CHECKOUT = """<!doctype html><title>Checkout</title>
<h1>Checkout</h1>
<p>Two items, total $41.98</p>
<iframe title="Payment" src="%s"></iframe>
<script>
  window.rerender = () => new Promise((resolve) => {
    addEventListener("message", (event) => {
      if (event.data === "rerendered") resolve(true);
    });
    frames[0].postMessage("rerender", "*");
  });
</script>
"""


def checkout(server: PageServer) -> str:
    server.set_page("/pay.html", PAY)
    server.set_page("/checkout.html", CHECKOUT % server.cross_url("/pay.html"))
    return server.url("/checkout.html")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_tool_list_and_instructions(browser: Browser, mode: str) -> None:
    async with Client(build_server(browser, allow_evaluate=True), mode=mode) as client:
        tools = (await client.list_tools()).tools
        assert client.instructions == INSTRUCTIONS
    assert [tool.name for tool in tools] == list(TOOL_NAMES)
    assert len(TOOL_NAMES) == 23
    for tool in tools:
        assert tool.description and len(tool.description) < 200, tool.name
        assert "\n" not in tool.description and "  " not in tool.description
        properties = tool.input_schema.get("properties", {})
        if "id" in properties:
            assert properties["id"]["description"].startswith("id from the latest snapshot")
    described = {tool.name: tool.description for tool in tools}
    assert "ids replace all earlier ones" in described["snapshot"].lower()
    assert "ids replace all earlier ones" in described["find"].lower()
    assert "latest snapshot" in described["batch"]
    assert "latest snapshot" in INSTRUCTIONS and "never acts on another element" in INSTRUCTIONS
    read_only = {
        tool.name for tool in tools if tool.annotations and tool.annotations.read_only_hint
    }
    assert read_only == {"snapshot", "find", "text"}


async def test_no_evaluate_leaves_the_tool_out(browser: Browser) -> None:
    for server in (build_server(browser, allow_evaluate=False), build_server(browser)):
        async with Client(server) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
        assert "evaluate" not in names  # off unless asked for
        assert names == [name for name in TOOL_NAMES if name != "evaluate"]
    async with Client(build_server(browser, allow_evaluate=True)) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == list(TOOL_NAMES)


async def test_core_tools_leave_out_find_evaluate_and_batch(
    browser: Browser, server: PageServer
) -> None:
    async with Client(build_server(browser, tools="core")) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == list(CORE_TOOL_NAMES)
        assert names == [n for n in TOOL_NAMES if n not in ("find", "evaluate", "batch")]
        # Navigation, snapshot, an element action, reading, tabs and wait all work.
        await call(client, "open", url=server.set_page("/core.html", "<title>T</title><button>Go"))
        snap = await call(client, "snapshot")
        await call(client, "click", id=find_id(snap, 'button "Go"'))
        assert await call(client, "text", id=find_id(snap, 'button "Go"')) == "Go"
        assert "T" in await call(client, "tabs")
        await call(client, "wait_for", text="Go")
        await call(client, "find", error=True, name="Go")
    async with Client(build_server(browser, tools="all", allow_evaluate=True)) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == list(TOOL_NAMES)
    async with Client(build_server(browser, tools="core", allow_evaluate=True)) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == list(CORE_TOOL_NAMES)


def test_unknown_tool_set_is_refused(browser: Browser) -> None:
    with pytest.raises(ValueError, match="tools must be all or core"):
        build_server(browser, tools="some")  # type: ignore[arg-type]


async def test_open_snapshot_fill_click_in_cross_origin_iframe_then_stale_id(
    browser: Browser, server: PageServer
) -> None:
    async with Client(build_server(browser)) as client:
        opened = await call(client, "open", url=checkout(server))
        assert opened.startswith(f"Opened {server.url('/checkout.html')}.\nURL: ")
        assert 'Page: "Checkout"' in opened
        # Interactive by default: the iframe and its controls, not the heading.
        assert 'iframe "Payment"' in opened and "heading" not in opened

        full = await call(client, "snapshot", interactive=False)
        assert full.startswith(f"URL: {server.url('/checkout.html')}\n")
        assert 'heading "Checkout"' in full and 'text "Two items, total $41.98"' in full
        holder = find_id(full, r'^textbox "Card holder"')
        assert holder > find_id(full, r'^iframe "Payment"')

        filled = await call(client, "fill", id=holder, text="Ana")
        assert filled.startswith(f"Filled {holder}.\n")
        assert 'textbox "Card holder" value="Ana"' in filled
        pay = find_id(filled, r'^button "Pay now"')

        clicked = await call(client, "click", id=pay)
        assert clicked.startswith(f"Clicked {pay}.\n")
        paid = find_id(clicked, r'^button "Paid by Ana"')  # the click reached the frame

        # The frame re-renders its form behind the model's back.
        assert await browser.tab.evaluate("rerender()") is True
        error = await call(client, "click", id=paid, error=True)
        message, _, page = error.partition("\nThe page now (use these ids):\n")
        assert message.startswith(f'element {paid} (button "Paid by Ana") is stale')
        assert "Take a new snapshot and use its ids" in message
        assert page.startswith("URL: ")
        fresh = find_id(page, r'^button "Paid by Ana"')

        # The server goes on; the new id acts on the new button.
        again = await call(client, "click", id=fresh)
        assert again.startswith(f"Clicked {fresh}.\n")


async def test_errors_are_tool_errors_and_the_server_goes_on(
    browser: Browser, server: PageServer
) -> None:
    async with Client(build_server(browser)) as client:
        assert await call(client, "click", id=1, error=True) == (
            "no tab is open: call open with a URL first"
        )
        await call(client, "open", url=checkout(server))
        unknown = await call(client, "click", id=99, error=True)
        assert unknown.startswith("there is no element 99 in the last snapshot (valid ids are 1 to")
        assert "The page now (use these ids):" in unknown
        wrong = await call(client, "fill", id=1, text="x", error=True)  # 1 is the iframe
        assert wrong.startswith("cannot fill element 1 (iframe)")
        key = await call(client, "press", key="NoSuchKey", error=True)
        assert key.startswith("key: unknown key 'NoSuchKey'")
        nav = await call(client, "open", url="http://127.0.0.1:1/nothing", error=True)
        assert nav.startswith("cannot open 'http://127.0.0.1:1/nothing'")
        assert await call(client, "wait_for", error=True) == (
            "wait_for needs exactly one of text, selector, url, time"
        )
        bad_args = await call(client, "click", id=0, error=True)
        assert "greater than or equal to 1" in bad_args
        # Still serving, on the same tab (which shows Chrome's error page now).
        assert 'iframe "Payment"' in await call(client, "open", url=server.url("/checkout.html"))
        assert len(browser.tabs) == 1


async def test_snapshot_modes_of_the_replies(browser: Browser, server: PageServer) -> None:
    url = checkout(server)
    async with Client(build_server(browser, snapshot="none")) as client:
        assert await call(client, "open", url=url) == f"Opened {url}.\nURL: {url}"
        # The snapshot tool still works, interactive by default.
        snap = await call(client, "snapshot")
        assert 'iframe "Payment"' in snap and "heading" not in snap
    async with Client(build_server(browser, snapshot="full")) as client:
        reply = await call(client, "reload")
        assert reply.startswith(f"Reloaded {url}.\n")
        assert 'heading "Checkout"' in reply and 'textbox "Card holder"' in reply
        assert "heading" not in await call(client, "snapshot", interactive=True)
    with pytest.raises(ValueError, match="snapshot must be full, interactive, diff or none"):
        build_server(browser, snapshot="delta")  # type: ignore[arg-type]


async def test_snapshot_options(browser: Browser, server: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=checkout(server))
        top = await call(client, "snapshot", interactive=False, depth=1)
        assert 'iframe "Payment"' in top and "Card holder" not in top
        assert "  " not in top  # nothing below the first level
        none = await call(client, "snapshot", selector="#nothing")
        assert none.endswith("(the page shows nothing)")
        bad = await call(client, "snapshot", selector="[[", error=True)
        assert "[[" in bad


async def test_text_limit(browser: Browser, server: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=checkout(server))
        cut = await call(client, "snapshot", interactive=False, text_limit=10)
        assert 'text "Two ite..."' in cut
        whole = await call(client, "snapshot", interactive=False, text_limit=0)
        assert 'text "Two items, total $41.98"' in whole


async def test_text_reads_a_field_value_exactly(browser: Browser, server: PageServer) -> None:
    page = (
        "<!doctype html><title>T</title><textarea></textarea>"
        "<script>document.querySelector('textarea').value = 'Leo  faucibus, neque, '</script>"
    )
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=server.set_page("/mcp-field.html", page))
        snap = await call(client, "snapshot")
        field = find_id(snap, "textbox")
        assert 'value="Leo faucibus, neque,"' in snap
        assert await call(client, "text", id=field) == "Leo  faucibus, neque, "


async def test_find(browser: Browser, server: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=checkout(server))
        found = await call(client, "find", role="button", name="pay now")
        assert len(found.splitlines()) == 1
        pay = find_id(found, r'^button "Pay now"$')
        assert (await call(client, "click", id=pay)).startswith(f"Clicked {pay}.")
        assert await call(client, "find", name="no such thing") == "No element matches."
        assert await call(client, "find", error=True) == "find needs role, name or text"


async def test_batch(browser: Browser, server: PageServer) -> None:
    async with Client(build_server(browser)) as client:
        snap = await call(client, "open", url=checkout(server))
        holder = find_id(snap, r'^textbox "Card holder"')
        pay = find_id(snap, r'^button "Pay now"')
        done = await call(client, "batch", actions=f'fill {holder} "Bo"\nclick {pay}')
        assert done.splitlines()[:2] == [f'ok: fill {holder} "Bo"', f"ok: click {pay}"]
        assert 'button "Paid by Bo"' in done
        failed = await call(client, "batch", actions="click 99\nclick 1", error=True)
        syntax = await call(client, "batch", actions="jump 3", error=True)
        assert "jump" in syntax and "line 1" in syntax
        assert failed.splitlines()[0].startswith("failed: click 99: there is no element 99")
        assert failed.splitlines()[1] == "not run: the 1 action(s) after it"
