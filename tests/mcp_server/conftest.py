"""Helpers for the MCP server tests (the directory is not named ``mcp``: with
``tests/`` on ``sys.path`` that name would shadow the MCP SDK).

``call(client, tool, **arguments)`` calls a tool and returns its reply text;
it fails the test when the reply is a tool error (``error=True`` expects one).
``find_id(text, pattern)`` is the id of the first snapshot line matching
``pattern``. ``alive``, ``wait_gone`` and ``chrome_profile`` look at the
processes a server subprocess started. The ``tabs_closed`` fixture closes
every tab of the module's browser after the test, so each test starts with
no tab.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from kobrowser import Browser


async def call(client: Client, tool: str, *, error: bool = False, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert len(result.content) == 1
    content = result.content[0]
    assert isinstance(content, TextContent)
    assert result.is_error is error, (
        f"{tool}({arguments}) -> is_error={result.is_error}:\n{content.text}"
    )
    return content.text


def find_id(text: str, pattern: str) -> int:
    for line in text.splitlines():
        match = re.match(r"\s*(\d+): (.*)", line)
        if match and re.search(pattern, match.group(2)):
            return int(match.group(1))
    raise AssertionError(f"no line matching {pattern!r} in:\n{text}")


@pytest.fixture
async def tabs_closed(browser: Browser) -> AsyncIterator[Browser]:
    yield browser
    for tab in browser.tabs:
        await tab.close()


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def wait_gone(pid: int, timeout: float = 60.0) -> bool:
    """Wait until ``pid`` is gone; False when it still runs after ``timeout`` (a hang guard)."""
    with anyio.move_on_after(timeout):
        while alive(pid):  # noqa: ASYNC110 - polling /proc, there is no event to wait on
            await anyio.sleep(0.05)
        return True
    return False


def chrome_profile(pid: int) -> Path:
    """The ``--user-data-dir`` of the running Chrome ``pid``."""
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    [profile] = [arg.split("=", 1)[1] for arg in argv if arg.startswith("--user-data-dir=")]
    return Path(profile)
