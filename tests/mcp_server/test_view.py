"""`ko-browser mcp --view`: the live view beside the MCP server, fed by its tools' actions."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path

import anyio
import pytest
from _server import PageServer
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import call, find_id
from .test_transports import MCP, PAGE, START_TIMEOUT

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]


def _actions(url: str, count: int) -> list[str]:
    """The first ``count`` action lines of the view's event stream."""
    lines: list[str] = []
    with urllib.request.urlopen(url + "events", timeout=60) as stream:
        kind = ""
        while len(lines) < count:
            raw = stream.readline().decode().rstrip("\n")
            if raw.startswith("event: "):
                kind = raw[7:]
            elif raw.startswith("data: ") and kind == "action":
                lines.append(json.loads(raw[6:])["line"])
    return lines


@pytest.mark.browser
async def test_mcp_view_shows_the_tools_actions(server: PageServer, tmp_path: Path) -> None:
    server.set_page("/hello.html", PAGE)
    log = tmp_path / "stderr.txt"
    params = StdioServerParameters(command=MCP[0], args=[*MCP[1:], "--view"], env=dict(os.environ))
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            page = await call(client, "open", url=server.url("/hello.html"))
            await call(client, "fill", id=find_id(page, r'^textbox "Name"'), text="Ana")
            text = log.read_text()
            found = re.search(r"ko-browser mcp: live view at (http://127\.0\.0\.1:\d+/)\n", text)
            assert found, text
            first = text.splitlines()[0]
            assert first == found.group(0).strip()  # said before serving MCP
            with anyio.fail_after(START_TIMEOUT):
                lines = await anyio.to_thread.run_sync(_actions, found.group(1), 2)
            assert lines[0].startswith("open ") and lines[1].endswith('"Ana"'), lines
