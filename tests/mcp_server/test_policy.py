"""The MCP server's policy: in-process, over stdio and over HTTP, with real Chromium.

The page server answers on 127.0.0.1 and on localhost (two origins); a
blocked page is one the server never saw a request for.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from _server import PageServer
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from kobrowser import Browser, Policy
from kobrowser.mcp import build_server

from .conftest import call, find_id

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

MCP = [sys.executable, "-m", "kobrowser.cli", "mcp"]
TARGET = "/mcp-policy-target.html"
START_TIMEOUT = 90.0
SECRET = "correct-horse-9431"
LOGIN = """<!doctype html><title>Login</title><label>User <input></label><script>
document.querySelector('input').oninput = (e) => { document.title = 'typed ' + e.target.value; };
</script>"""


def serve_pages(server: PageServer) -> tuple[str, str]:
    """A start page with a popup button to the blocked origin, and a redirect to it."""
    server.set_page(TARGET, "<title>Target</title><p>secret target</p>")
    start = server.set_page(
        "/mcp-policy-start.html",
        f"<title>Start</title><button onclick=\"window.open('{server.cross_url(TARGET)}')\">"
        'popup</button><a href="file:///etc/passwd">passwords</a>',
    )
    redirect = server.set_page(
        "/mcp-policy-redirect", "", status=302, headers={"Location": server.cross_url(TARGET)}
    )
    return start, redirect


def reached(server: PageServer) -> bool:
    return any(r.path == TARGET for r in server.requests)


async def check_policy(client: Client, server: PageServer) -> None:
    """What a server blocking http://localhost:* answers (any transport)."""
    start, redirect = serve_pages(server)
    refused = await call(client, "open", url="file:///etc/passwd", error=True)
    assert "refused by policy:" in refused and "allow_file_access" in refused
    assert "root:" not in refused
    refused = await call(client, "open", url=server.cross_url(TARGET), error=True)
    assert "block_origins 'http://localhost:*'" in refused
    page = await call(client, "open", url=start)
    assert 'Page: "Start"' in page
    page = await call(client, "click", id=find_id(page, r'^link "passwords"'))
    assert "root:" not in page
    failed = await call(client, "open", url=redirect, error=True)
    assert "BLOCKED_BY_CLIENT" in failed
    page = await call(client, "open", url=start)
    await call(client, "click", id=find_id(page, r'^button "popup"'))
    tabs = await call(client, "tabs", action="list")
    assert "secret target" not in tabs and "Target" not in tabs.replace(TARGET, "")
    assert not reached(server)


async def test_default_policy_in_process(
    browser: Browser, server: PageServer, tabs_closed: Browser
) -> None:
    async with Client(build_server(browser)) as client:
        assert "refused by policy" in await call(
            client, "open", url="view-source:" + server.url("/"), error=True
        )
        assert "file: URLs are off" in await call(
            client, "open", url="file:///etc/passwd", error=True
        )
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "evaluate" not in names
    assert browser.default_context.policy is not None
    policy = Policy(block_origins=("http://localhost:*",))
    async with Client(build_server(browser, policy=policy)) as client:
        await check_policy(client, server)
    assert browser.default_context.policy is policy
    with pytest.raises(ValueError, match="in the policy"):
        build_server(browser, policy=policy, allow_evaluate=True)
    await browser.default_context.set_policy(None)


@pytest.mark.browser
async def test_stdio_flags(server: PageServer, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text("<title>Local</title><h1>local page</h1>")
    params = StdioServerParameters(
        command=MCP[0],
        args=[*MCP[1:], "--block-origin", "http://localhost:*", "--allow-evaluate",
              "--allow-file-access", str(site), "--secret", "password"],
        env={**os.environ, "KOBROWSER_SECRET_password": SECRET},
    )  # fmt: skip
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "evaluate" in names  # --allow-evaluate
            page = await call(client, "open", url=(site / "page.html").as_uri())
            assert 'Page: "Local"' in page
            outside = await call(client, "open", url=(tmp_path / "x.html").as_uri(), error=True)
            assert "outside allow_file_access" in outside
            await check_policy(client, server)
            page = await call(client, "open", url=server.set_page("/mcp-login.html", LOGIN))
            page = await call(client, "fill", id=find_id(page, r'^textbox "User"'),
                              text="{{password}}")  # fmt: skip
            shown = await call(client, "evaluate", expression="document.title")
            assert 'value="{{password}}"' in page and shown == '"typed {{password}}"'
            assert SECRET not in page + shown
            assert SECRET not in (tmp_path / "stderr.txt").read_text()


@pytest.mark.browser
async def test_stdio_download_dir(server: PageServer, tmp_path: Path) -> None:
    server.set_page(
        "/mcp-report.csv",
        "a,b\n1,2\n",
        content_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="mcp-report.csv"'},
    )
    start = server.set_page("/mcp-dl.html", "<a href='/mcp-report.csv' download>get report</a>")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    params = StdioServerParameters(
        command=MCP[0], args=[*MCP[1:], "--download-dir", str(downloads)], env=dict(os.environ)
    )
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            page = await call(client, "open", url=start)
            await call(client, "click", id=find_id(page, r'^link "get report"'))
            saved = downloads / "mcp-report.csv"
            with anyio.fail_after(START_TIMEOUT):  # it may finish after the click's reply
                while not saved.exists():  # noqa: ASYNC110 (another process writes it)
                    await anyio.sleep(0.05)
            assert saved.read_text() == "a,b\n1,2\n"


def test_a_missing_download_dir_stops_the_server_before_it_starts(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    done = subprocess.run(
        [*MCP, "--download-dir", str(missing)], stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"ko-browser mcp: --download-dir {missing}: no such directory\n"


def test_a_missing_secret_stops_the_server_before_it_starts(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOBROWSER_SECRET_")}
    done = subprocess.run(
        [*MCP, "--secret", "password"], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "KOBROWSER_SECRET_password" in done.stderr


@pytest.mark.browser
async def test_http_allow_origin(server: PageServer, tmp_path: Path) -> None:
    start, redirect = serve_pages(server)
    log = tmp_path / "stderr.txt"
    with log.open("wb") as errlog:
        process = await anyio.open_process(
            [*MCP, "--port", "0", "--allow-origin", "http://127.0.0.1:*"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errlog,
        )
    try:
        with anyio.fail_after(START_TIMEOUT):
            while not (match := re.search(r"serving MCP on (http://\S+/mcp) ", log.read_text())):
                assert process.returncode is None, log.read_text()
                await anyio.sleep(0.05)
        async with Client(match.group(1)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "evaluate" not in names
            refused = await call(client, "open", url=server.cross_url(TARGET), error=True)
            assert "matches no pattern of allow_origins" in refused
            assert 'Page: "Start"' in await call(client, "open", url=start)
            assert "BLOCKED_BY_CLIENT" in await call(client, "open", url=redirect, error=True)
            assert "file: URLs are off" in await call(
                client, "open", url="file:///etc/passwd", error=True
            )
        assert not reached(server)
    finally:
        process.terminate()
        with anyio.fail_after(60):
            await process.wait()
