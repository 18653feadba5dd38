"""A context's Policy with real Chromium: open, links, redirects, popups and frames.

The page server answers on 127.0.0.1 and on localhost (two origins); the
tests block localhost and check the blocked page never reached the server.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from _server import PageServer

from kobrowser import Browser, InvalidArgumentError, NavigationError, Policy

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]

BLOCK_CROSS = Policy(block_origins=("http://localhost:*",))
TARGET = "/policy-target.html"


def serve_target(server: PageServer) -> None:
    server.set_page(TARGET, "<title>Target</title><p>reached</p>")


def reached(server: PageServer) -> bool:
    return any(r.path == TARGET for r in server.requests)


async def test_open_refuses_before_navigating_and_the_page_stays(
    browser: Browser, server: PageServer
) -> None:
    start = server.set_page("/policy-start.html", "<title>Start</title>")
    serve_target(server)
    async with await browser.new_context(policy=BLOCK_CROSS) as ctx:
        tab = await ctx.new_tab(start)
        with pytest.raises(NavigationError, match=r"block_origins 'http://localhost:\*'"):
            await tab.open(server.cross_url(TARGET))
        with pytest.raises(NavigationError, match="allow_file_access"):
            await tab.open("file:///etc/passwd")
        with pytest.raises(NavigationError, match="chrome: URLs"):
            await tab.open("chrome://version")
        assert tab.url == start
        assert await tab.title() == "Start"
        assert not reached(server)
        await tab.open(server.url(TARGET))  # its own origin loads
        assert await tab.title() == "Target"


async def test_a_link_to_a_local_file_shows_nothing_of_it(
    browser: Browser, server: PageServer
) -> None:
    start = server.set_page(
        "/policy-link.html",
        '<title>Link</title><a href="file:///etc/passwd">passwords</a>',
    )
    async with await browser.new_context(policy=Policy()) as ctx:
        tab = await ctx.new_tab(start)
        [link] = await tab.find(role="link", name="passwords")
        await tab.click(link.id)
        await anyio.sleep(0.5)
        assert not tab.url.startswith("file:")
        assert "root:" not in (await tab.snapshot()).text
        assert all(not t.url.startswith("file:") for t in ctx.tabs)


async def test_a_redirect_to_a_blocked_origin_is_aborted(
    browser: Browser, server: PageServer
) -> None:
    serve_target(server)
    redirect = server.set_page(
        "/policy-redirect", "", status=302, headers={"Location": server.cross_url(TARGET)}
    )
    async with await browser.new_context(policy=BLOCK_CROSS) as ctx:
        tab = await ctx.new_tab("about:blank")
        with pytest.raises(NavigationError, match="BLOCKED_BY_CLIENT"):
            await tab.open(redirect)
        assert not reached(server)
        assert any(r.path == "/policy-redirect" for r in server.requests)


async def test_a_popup_to_a_blocked_origin_is_aborted(browser: Browser, server: PageServer) -> None:
    serve_target(server)
    start = server.set_page(
        "/policy-popup.html",
        f"<title>Popup</title><button onclick=\"window.open('{server.cross_url(TARGET)}')\">"
        "go</button>",
    )
    async with await browser.new_context(policy=BLOCK_CROSS) as ctx:
        tab = await ctx.new_tab(start)
        [button] = await tab.find(role="button", name="go")
        await tab.click(button.id)
        popup = await browser.wait_for_tab(timeout=10)
        with anyio.move_on_after(2):
            await popup.wait_for_load("load")
        assert popup.url != server.cross_url(TARGET) or await popup.title() != "Target"
        assert not reached(server)


async def test_a_frame_navigated_to_a_blocked_origin_is_aborted(
    browser: Browser, server: PageServer
) -> None:
    serve_target(server)
    server.set_page("/policy-inner.html", "<p>inner</p>")
    start = server.set_page(
        "/policy-frame.html",
        '<title>Frame</title><iframe id="f" src="/policy-inner.html"></iframe>',
    )
    async with await browser.new_context(policy=BLOCK_CROSS) as ctx:
        tab = await ctx.new_tab(start)
        await tab.evaluate(f"document.getElementById('f').src = {server.cross_url(TARGET)!r}")
        await tab.evaluate(
            f"(async () => {{ const f = document.createElement('iframe');"
            f" f.src = {server.cross_url(TARGET + '?2')!r}; document.body.append(f);"
            " await new Promise(r => f.onload = f.onerror = r); })()"
        )
        await anyio.sleep(0.5)
        assert not reached(server)
        assert "reached" not in (await tab.snapshot()).text


async def test_user_routes_neither_lift_nor_outrun_the_policy(
    browser: Browser, server: PageServer
) -> None:
    serve_target(server)
    async with await browser.new_context(policy=BLOCK_CROSS) as ctx:
        await ctx.route("**/*", lambda route: route.continue_())
        assert await ctx.unroute_all() == 1
        await ctx.route("**/*", lambda route: route.continue_())
        tab = await ctx.new_tab("about:blank")
        await tab.network.route("**/*", lambda route: route.continue_())
        redirect = server.set_page(
            "/policy-redirect2", "", status=302, headers={"Location": server.cross_url(TARGET)}
        )
        with pytest.raises(NavigationError):
            await tab.open(redirect)
        assert not reached(server)
        await ctx.set_policy(None)  # lifted: the same redirect now loads
        await tab.open(redirect)
        assert await tab.title() == "Target"
        with pytest.raises(InvalidArgumentError):
            await ctx.set_policy("strict")  # type: ignore[arg-type]


async def test_files_load_only_from_the_allowed_directory(browser: Browser, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text("<title>Local</title>")
    (tmp_path / "secret.html").write_text("<title>Secret</title>")
    async with await browser.new_context(policy=Policy(allow_file_access=site)) as ctx:
        tab = await ctx.new_tab((site / "page.html").as_uri())
        assert await tab.title() == "Local"
        with pytest.raises(NavigationError, match="outside allow_file_access"):
            await tab.open((tmp_path / "secret.html").as_uri())
        assert await tab.title() == "Local"
