"""`ko-browser mcp --trace-dir DIR`: the session's actions, one HTML file when it stops."""

from __future__ import annotations

import html
import os
import re
import subprocess
from pathlib import Path

import pytest
from _server import PageServer
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import call, find_id
from .test_transports import MCP, PAGE

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]


@pytest.mark.browser
async def test_stdio_session_writes_its_trace_when_it_stops(
    server: PageServer, tmp_path: Path
) -> None:
    server.set_page("/hello.html", PAGE)
    traces = tmp_path / "traces"
    traces.mkdir()
    params = StdioServerParameters(
        command=MCP[0], args=[*MCP[1:], "--trace-dir", str(traces)], env=dict(os.environ)
    )
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            page = await call(client, "open", url=server.url("/hello.html"))
            page = await call(client, "fill", id=find_id(page, r'^textbox "Name"'), text="Ana")
            await call(client, "click", id=find_id(page, r'^button "Greet"'))
    files = list(traces.iterdir())
    assert len(files) == 1 and re.fullmatch(r"mcp-\d{8}-\d{6}-\d+\.html", files[0].name), files
    text = files[0].read_text()
    steps = [
        html.unescape(s)
        for s in re.findall(r'<li><a href="#step-\d+"[^>]*>(\d+\. [^<]*)<span', text)
    ]
    assert [s.split(" ")[1] for s in steps] == ["open", "fill", "click"], steps
    assert steps[1].endswith('"Ana"')
    assert "tracing into " + str(files[0]) in (tmp_path / "stderr.txt").read_text()


def test_trace_dir_that_does_not_exist_is_refused_before_the_browser(tmp_path: Path) -> None:
    result = subprocess.run(
        [*MCP, "--trace-dir", str(tmp_path / "nope")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "--trace-dir" in result.stderr and "no such directory" in result.stderr
