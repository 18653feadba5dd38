"""The contenders of ``python -m benchmarks agent-steps``: how each one acts and looks.

* :class:`KoCli` runs ``ko-browser`` commands against its session daemon
  (``--ids stable`` when asked; looks with ``snapshot -i``, or
  ``snapshot -i --diff``);
* :class:`KoMcp` drives ``ko-browser mcp`` over stdio (``--ids stable``,
  ``--snapshot diff``); its action replies carry the page, so it looks only
  when the element it needs is missing;
* :class:`PlaywrightMcp` drives ``@playwright/mcp`` over stdio: its action
  replies link the snapshot as a file, so the model looks with
  ``browser_snapshot`` (it has no interactive-only or diff mode);
* :class:`AgentBrowser` runs the ``agent-browser`` binary (``snapshot -i``,
  or ``snapshot -i --delta``).

Every one uses the system's Chromium, headless. A reply is everything the
command printed (stdout and stderr) or the tool's text.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from benchmarks._steps_model import Intent, Reply, View

__all__ = ["AgentBrowser", "KoCli", "KoMcp", "PlaywrightMcp", "chrome", "peers_dir"]

ROOT = Path(__file__).resolve().parents[1]
SCROLL_PX = "2000"


def chrome() -> str:
    return shutil.which("chromium") or "/usr/bin/chromium"


def peers_dir() -> Path:
    """Where ``scripts/peers.sh`` installed the peers (it installs them on first use)."""
    import subprocess

    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "peers.sh")],
        capture_output=True, text=True, check=True, timeout=900,
    )  # fmt: skip
    return Path(done.stdout.strip().splitlines()[-1])


async def _run(command: list[str], env: dict[str, str], timeout: float = 120) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    text = out.decode(errors="replace") + err.decode(errors="replace")
    return process.returncode or 0, text


# -- kobrowser, CLI ----------------------------------------------------------------------


class KoCli:
    """``ko-browser`` commands; one session (daemon and Chrome) per contender."""

    replies_show_page = False

    def __init__(self, runtime: str, session: str, *, ids: str, diff: bool) -> None:
        self._ko = str(Path(sys.executable).with_name("ko-browser"))
        self._env = dict(os.environ, KOBROWSER_RUNTIME_DIR=runtime, KOBROWSER_IDLE_TIMEOUT="900")
        self._session = ["--session", session]
        self._start = [*self._session, "--ids", ids, "--executable-path", chrome()]
        self._diff = diff

    async def _cmd(self, *args: str, start: bool = False) -> Reply:
        code, text = await _run([self._ko, *(self._start if start else self._session), *args],
                                self._env)  # fmt: skip
        return Reply(text, stale=code != 0 and "stale" in text, error=code != 0)

    async def open(self, url: str) -> Reply:
        return await self._cmd("open", url, start=True)

    async def look(self) -> Reply:
        return await self._cmd("snapshot", "-i", *(["--diff"] if self._diff else []))

    async def act(self, intent: Intent, ref: str) -> Reply:
        if intent.verb in ("click", "check"):
            return await self._cmd(intent.verb, ref)
        return await self._cmd(intent.verb, ref, intent.value)

    async def scroll(self) -> Reply:
        return await self._cmd("scroll", "down", SCROLL_PX)

    def read(self, view: View, reply: Reply, *, look: bool) -> None:
        if look or reply.stale:
            view.read_kobrowser(reply.text)

    async def close(self) -> None:
        await self._cmd("close")


# -- MCP servers -------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def mcp_client(command: list[str], cwd: str) -> AsyncIterator[Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=cwd
    )
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - once per server
        async with Client(stdio_client(params, errlog=errlog)) as client:
            yield client


async def _tool(client: Any, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(name, arguments)
    text = "\n".join(b.text for b in result.content if getattr(b, "text", None))
    return bool(result.is_error), text


class KoMcp:
    """``ko-browser mcp`` over stdio: every action's reply carries the page (or its change)."""

    replies_show_page = True

    def __init__(self, client: Any) -> None:
        self._client = client

    @staticmethod
    def command(*, ids: str, diff: bool) -> list[str]:
        mode = "diff" if diff else "interactive"
        return [sys.executable, "-m", "kobrowser.cli", "--ids", ids, "mcp",
                "--executable-path", chrome(), "--snapshot", mode]  # fmt: skip

    async def _call(self, name: str, arguments: dict[str, Any]) -> Reply:
        error, text = await _tool(self._client, name, arguments)
        return Reply(text, stale=error and "is stale" in text, error=error)

    async def open(self, url: str) -> Reply:
        return await self._call("open", {"url": url})

    async def look(self) -> Reply:
        return await self._call("snapshot", {})

    async def act(self, intent: Intent, ref: str) -> Reply:
        args: dict[str, Any] = {"id": int(ref)}
        if intent.verb == "fill":
            args["text"] = intent.value
        elif intent.verb == "select":
            args["values"] = [intent.value]
        return await self._call(intent.verb, args)

    async def scroll(self) -> Reply:
        return await self._call("scroll", {"direction": "down", "pixels": int(SCROLL_PX)})

    def read(self, view: View, reply: Reply, *, look: bool) -> None:
        view.read_kobrowser(reply.text)


class PlaywrightMcp:
    """``@playwright/mcp`` over stdio; its replies link the snapshot, so the model asks for it."""

    replies_show_page = False

    def __init__(self, client: Any) -> None:
        self._client = client

    @staticmethod
    def command(peers: Path) -> list[str]:
        script = peers / "node_modules" / "@playwright" / "mcp" / "cli.js"
        command = ["node", str(script), "--headless", "--isolated", "--executable-path", chrome()]
        return [*command, "--no-sandbox"] if os.geteuid() == 0 else command

    async def _call(self, name: str, arguments: dict[str, Any]) -> Reply:
        error, text = await _tool(self._client, name, arguments)
        return Reply(text, stale=error and "not found in the current page snapshot" in text,
                     error=error)  # fmt: skip

    async def open(self, url: str) -> Reply:
        return await self._call("browser_navigate", {"url": url})

    async def look(self) -> Reply:
        return await self._call("browser_snapshot", {})

    async def act(self, intent: Intent, ref: str) -> Reply:
        args: dict[str, Any] = {"element": intent.name, "target": ref}
        if intent.verb == "fill":
            return await self._call("browser_type", {**args, "text": intent.value})
        if intent.verb == "select":
            return await self._call("browser_select_option", {**args, "values": [intent.value]})
        return await self._call("browser_click", args)  # click, and check (a click)

    async def scroll(self) -> Reply:
        return await self._call("browser_press_key", {"key": "End"})

    def read(self, view: View, reply: Reply, *, look: bool) -> None:
        if look:
            view.read_refs(reply.text, whole=True)


# -- agent-browser -----------------------------------------------------------------------


def agent_browser_binary(peers: Path) -> Path:
    machine = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return peers / "node_modules" / "agent-browser" / "bin" / f"agent-browser-linux-{machine}"


class AgentBrowser:
    """The ``agent-browser`` binary; refs ``@eN`` are tied to elements; ``--delta`` diffs."""

    replies_show_page = False

    def __init__(self, binary: Path, session: str, *, delta: bool) -> None:
        self._home = tempfile.mkdtemp(prefix="kbsteps-ab-")
        self._env = dict(os.environ, AGENT_BROWSER_EXECUTABLE_PATH=chrome(), HOME=self._home)
        self._base = [str(binary), "--session", session]
        self._args = ["--args", "--no-sandbox"] if os.geteuid() == 0 else []
        self._delta = delta

    async def _cmd(self, *args: str) -> Reply:
        code, text = await _run([*self._base, *args], self._env)
        return Reply(text, stale=code != 0 and "Unknown ref" in text, error=code != 0)

    async def open(self, url: str) -> Reply:
        reply = await self._cmd(*self._args, "open", url)
        # The open that launches the browser sometimes leaves the tab on
        # about:blank; a model would see that and open again (only that reply is counted).
        _, where = await _run([*self._base, "get", "url"], self._env)
        if where.strip() != url:
            reply = await self._cmd("open", url)
        return reply

    async def look(self) -> Reply:
        return await self._cmd("snapshot", "-i", *(["--delta"] if self._delta else []))

    async def act(self, intent: Intent, ref: str) -> Reply:
        if intent.verb in ("click", "check"):
            return await self._cmd(intent.verb, "@" + ref)
        return await self._cmd(intent.verb, "@" + ref, intent.value)

    async def scroll(self) -> Reply:
        return await self._cmd("scroll", "down", SCROLL_PX)

    def read(self, view: View, reply: Reply, *, look: bool) -> None:
        if look:
            delta = '"kind"' in reply.text or reply.text.startswith("unchanged")
            view.read_refs(reply.text, whole=not delta)

    async def close(self) -> None:
        await self._cmd("close")
        shutil.rmtree(self._home, ignore_errors=True)
