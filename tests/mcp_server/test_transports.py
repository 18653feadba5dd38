"""`ko-browser mcp` as a process: stdio with the SDK's stdio client, streamable HTTP.

Each test starts the real command (its own Chromium) and checks that the
browser and its profile are gone once the server stops.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import anyio
import anyio.abc
import pytest
from _server import PageServer
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from kobrowser.cli._client._parser import parse
from kobrowser.mcp import TOOL_NAMES

from .conftest import alive, call, chrome_profile, find_id, wait_gone

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

MCP = [sys.executable, "-m", "kobrowser.cli", "mcp"]
PAGE = """<!doctype html><title>Hello</title><h1>Hello</h1>
<label>Name <input></label><button onclick="this.textContent = 'Hi ' +
  document.querySelector('input').value">Greet</button>
"""
#: Hang guard only: a server starting Chrome on a loaded machine may be slow.
START_TIMEOUT = 90.0


async def _serving_line(log: Path, process: anyio.abc.Process | None = None) -> str:
    with anyio.fail_after(START_TIMEOUT):
        while True:
            path = anyio.Path(log)
            text = await path.read_text() if await path.exists() else ""
            match = re.search(r"^ko-browser mcp: serving MCP on .*$", text, re.M)
            if match:
                return match.group(0)
            if process is not None and process.returncode is not None:
                raise AssertionError(f"the server exited ({process.returncode}):\n{text}")
            await anyio.sleep(0.05)


def _pids(line: str) -> tuple[int, int]:
    match = re.search(r"\(pid (\d+), Chrome pid (\d+)\)$", line)
    assert match, line
    return int(match.group(1)), int(match.group(2))


@pytest.mark.browser
async def test_stdio_subprocess(server: PageServer, tmp_path: Path) -> None:
    server.set_page("/hello.html", PAGE)
    log = tmp_path / "stderr.txt"
    params = StdioServerParameters(command=MCP[0], args=MCP[1:], env=dict(os.environ))
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert names == [name for name in TOOL_NAMES if name != "evaluate"]  # off by default
            line = await _serving_line(log)
            assert line.startswith("ko-browser mcp: serving MCP on stdio (pid ")
            server_pid, chrome = _pids(line)
            profile = chrome_profile(chrome)
            assert profile.is_dir()

            page = await call(client, "open", url=server.url("/hello.html"))
            page = await call(client, "fill", id=find_id(page, r'^textbox "Name"'), text="Ana")
            page = await call(client, "click", id=find_id(page, r'^button "Greet"'))
            assert 'button "Hi Ana"' in page
            bad = await call(client, "click", id=42, error=True)
            assert bad.startswith("there is no element 42 in the last snapshot")
    # The client closed the server's stdin (and waited for it to exit).
    assert await wait_gone(server_pid), "the server process is still running"
    assert await wait_gone(chrome), "Chrome outlived the server"
    assert not profile.exists(), "the browser profile was left behind"
    assert log.read_text().rstrip().endswith("ko-browser mcp: stopped")


@pytest.mark.browser
async def test_streamable_http_on_localhost(server: PageServer, tmp_path: Path) -> None:
    server.set_page("/hello.html", PAGE)
    log = tmp_path / "stderr.txt"
    with log.open("wb") as errlog:
        process = await anyio.open_process(
            [*MCP, "--port", "0", "--snapshot", "full"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errlog,
        )
    try:
        line = await _serving_line(log, process)
        match = re.match(r"ko-browser mcp: serving MCP on (http://127\.0\.0\.1:(\d+)/mcp) ", line)
        assert match, line
        url, port = match.group(1), match.group(2)
        _, chrome = _pids(line)
        profile = chrome_profile(chrome)

        async with Client(url) as client:
            assert len((await client.list_tools()).tools) == len(TOOL_NAMES) - 1  # no evaluate
            page = await call(client, "open", url=server.url("/hello.html"))
            assert 'Page: "Hello"' in page and 'heading "Hello"' in page  # --snapshot full

        # A page elsewhere that resolves to 127.0.0.1 (DNS rebinding) is refused.
        request = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        async with aiohttp.ClientSession() as http:
            async with http.post(
                url, data=request, headers={**headers, "Host": f"evil.example:{port}"}
            ) as reply:
                assert reply.status == 421
            origin = {**headers, "Origin": "http://evil.example"}
            async with http.post(url, data=request, headers=origin) as reply:
                assert reply.status == 403

        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(START_TIMEOUT):
            await process.wait()
        assert process.returncode == 0, log.read_text()
        assert await wait_gone(chrome), "Chrome outlived the server"
        assert not profile.exists(), "the browser profile was left behind"
        text = log.read_text()
        assert "got SIGTERM" in text and text.rstrip().endswith("ko-browser mcp: stopped")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.browser
async def test_sigterm_stops_a_stdio_server_whose_stdin_is_open(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("wb") as errlog:
        process = await anyio.open_process(
            MCP, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errlog
        )
    try:
        _, chrome = _pids(await _serving_line(log, process))
        profile = chrome_profile(chrome)
        process.send_signal(signal.SIGTERM)  # stdin stays open: the host still holds it
        with anyio.fail_after(START_TIMEOUT):
            await process.wait()
        assert process.returncode == 0, log.read_text()
        assert await wait_gone(chrome), "Chrome outlived the server"
        assert not profile.exists(), "the browser profile was left behind"
        assert "got SIGTERM" in log.read_text()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await process.aclose()


def test_launch_failure_is_one_line_and_exit_1(tmp_path: Path) -> None:
    missing = tmp_path / "no-chrome"
    done = subprocess.run(
        [*MCP, "--executable-path", str(missing)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("ko-browser mcp: ") and str(missing) in line


def test_upload_directory_must_exist(tmp_path: Path) -> None:
    done = subprocess.run(
        [*MCP, "--allow-upload-from", str(tmp_path / "missing")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert (
        done.stderr
        == f"ko-browser mcp: --allow-upload-from {tmp_path / 'missing'}: no such directory\n"
    )


def test_parser() -> None:
    cmd, args, options = parse(
        ["--headed", "mcp", "--port", "0", "--snapshot", "none", "--allow-evaluate",
         "--allow-upload-from", "/srv/files", "--cdp", "localhost:9222",
         "--allow-origin", "https://*.example.com", "--allow-origin", "http://127.0.0.1:*",
         "--block-origin", "*.evil.test", "--allow-file-access", "/srv/site"]
    )  # fmt: skip
    assert cmd == "mcp"
    assert args == {
        "port": 0,
        "host": None,
        "snapshot": "none",
        "allow_evaluate": True,
        "allow_upload_from": "/srv/files",
        "allow_origin": ["https://*.example.com", "http://127.0.0.1:*"],
        "block_origin": ["*.evil.test"],
        "allow_file_access": "/srv/site",
        "download_dir": None,
        "secret": None,
        "token": None,
        "tools": "all",
        "trace_dir": None,
        "view": False,
    }
    assert options["headed"] and options["cdp"] == "localhost:9222"
    assert parse(["mcp"])[1] == {
        "port": None,
        "host": None,
        "snapshot": "interactive",
        "allow_evaluate": False,
        "allow_upload_from": None,
        "allow_origin": None,
        "block_origin": None,
        "allow_file_access": None,
        "download_dir": None,
        "secret": None,
        "token": None,
        "tools": "all",
        "trace_dir": None,
        "view": False,
    }
    assert parse(["mcp", "--port", "0", "--token", "t" * 20, "--secret", "pw"])[1]["token"] == (
        "t" * 20
    )
    with pytest.raises(SystemExit):
        parse(["mcp", "--token", "t" * 20])  # only over HTTP
    with pytest.raises(SystemExit):
        parse(["mcp", "--no-evaluate"])  # gone: evaluate is off unless --allow-evaluate
    with pytest.raises(SystemExit) as exc:
        parse(["mcp", "--host", "0.0.0.0"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        parse(["mcp", "--snapshot", "delta"])
    assert parse(["mcp", "--snapshot", "diff"])[1]["snapshot"] == "diff"


def test_alive_helper_sees_this_process() -> None:
    assert alive(os.getpid())
