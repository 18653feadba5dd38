"""HTTP off loopback needs a token; with one, a request without it gets 401."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import anyio
import pytest

from kobrowser.mcp._safety import http_access_problem, is_loopback

pytestmark = pytest.mark.timeout(300)

MCP = [sys.executable, "-m", "kobrowser.cli", "mcp"]
TOKEN = "a-test-token-of-32-characters-xx"
INITIALIZE = (
    b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion":'
    b' "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}'
)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def test_the_rule() -> None:
    assert http_access_problem(None, None) is None  # the default: 127.0.0.1
    assert http_access_problem("127.0.0.2", None) is None
    assert http_access_problem("::1", None) is None
    assert is_loopback("127.0.0.2") and not is_loopback("192.0.2.1")
    for host in ("0.0.0.0", "192.0.2.1", "::", "example.com"):
        problem = http_access_problem(host, None)
        assert problem is not None and "KOBROWSER_MCP_TOKEN" in problem, host
        assert http_access_problem(host, TOKEN) is None
    assert "16 characters" in (http_access_problem(None, "short") or "")


def test_a_public_host_without_a_token_refuses_to_start() -> None:
    env = {k: v for k, v in os.environ.items() if k != "KOBROWSER_MCP_TOKEN"}
    # 192.0.2.1 is a documentation address: were the check missing, binding would fail.
    done = subprocess.run(
        [*MCP, "--port", "0", "--host", "192.0.2.1"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env,
        check=False,
    )  # fmt: skip
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert "is not a loopback address: give a token" in line
    assert "serving" not in done.stderr


@pytest.mark.anyio
@pytest.mark.browser
async def test_every_request_needs_the_token(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("wb") as errlog:
        process = await anyio.open_process(
            [*MCP, "--port", "0", "--host", "127.0.0.1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errlog,
            env={**os.environ, "KOBROWSER_MCP_TOKEN": TOKEN},
        )
    try:
        with anyio.fail_after(90):
            while not (match := re.search(r"serving MCP on (http://\S+/mcp) ", log.read_text())):
                assert process.returncode is None, log.read_text()
                await anyio.sleep(0.05)
        url = match.group(1)
        async with aiohttp.ClientSession() as http:
            for auth in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
                async with http.post(url, data=INITIALIZE, headers={**HEADERS, **auth}) as reply:
                    assert reply.status == 401, auth
                    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
            good = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
            async with http.post(url, data=INITIALIZE, headers=good) as reply:
                assert reply.status == 200
                assert "serverInfo" in await reply.text()
            # The Host check stays (DNS rebinding), token or not.
            port = url.rsplit(":", 1)[1].split("/")[0]
            evil = {**good, "Host": f"evil.example:{port}"}
            async with http.post(url, data=INITIALIZE, headers=evil) as reply:
                assert reply.status == 421
        assert TOKEN not in log.read_text()
    finally:
        process.terminate()
        with anyio.fail_after(60):
            await process.wait()
