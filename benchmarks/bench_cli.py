"""Warm `ko-browser` commands: the native client, the Python client and agent-browser.

Side by side in one interleaved run, each tool's daemon (and Chrome) already
running:

1. a no-op command, ``get title`` of a small page, next to ``python -c pass``
   (the interpreter's own start-up, the floor of any Python client);
2. ``snapshot`` of each page of the real-page corpus (the newspaper4k pages
   of ``benchmarks/corpus.py``, served on 127.0.0.1, every other host blocked
   in both browsers), repeated on the loaded page.

Contenders: ``ko-browser`` as installed (the native client,
kobrowser/cli/_native/ko_browser.c, when it was built), ``ko-browser-py`` (the
Python client) and agent-browser 0.41.2's native binary
(``scripts/peers.sh`` installs it; ``AGENT_BROWSER_EXECUTABLE_PATH`` is the same
Chromium). Measured per call: wall time of the whole command, CPU time of the
client process (user + system, far less sensitive to load than wall time) and
of each tool's daemon (read from ``/proc`` around the calls; 10 ms ticks, so
given as a mean over all calls).

Targets (issue 33): warm snapshot median no slower than agent-browser's; a
warm no-op at most 10 ms.

Run: ``python -m benchmarks cli`` (``--quick``: 3 pages, 3 rounds), or
``python -m benchmarks.bench_cli [--quick] [--pages N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._common import loads
from benchmarks.corpus import BLOCK_OTHER_HOSTS, CorpusServer, load_corpus

NAME = "cli"
TITLE = "CLI: warm commands, native and Python client vs agent-browser"
NOOP_TARGET_MS = 10.0
SETTLE = 0.3
"""Seconds after a page loads before the first timed call."""

_HERE = Path(__file__).resolve().parent
_PEERS = _HERE / ".peers" / "node_modules" / "agent-browser" / "bin" / "agent-browser-linux-x64"
_TICK = os.sysconf("SC_CLK_TCK")


def _chrome() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("no Chromium on PATH")


class Tool:
    """One contender: its command line, environment and daemon."""

    def __init__(self, name: str, command: list[str], env: dict[str, str]) -> None:
        self.name = name
        self.command = command
        self.env = env
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.daemon_cpu = 0.0
        self.calls = 0

    def run(self, *args: str, check: bool = True) -> tuple[float, float, str]:
        """(wall ms, client CPU ms, stdout) of one command."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            self.command + list(args), env=self.env, capture_output=True, text=True, check=False
        )
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if check and done.returncode != 0:
            raise RuntimeError(
                f"{self.name} {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}"
            )
        return elapsed * 1000, cpu * 1000, done.stdout


def _daemon_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by these processes (user + system), from /proc."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / _TICK


def _pids_with(marker: str, name: str) -> list[int]:
    """Processes whose environment holds ``marker`` and whose command names ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ and name.encode() in cmdline and b"chrom" not in cmdline:
            found.append(int(entry.name))
    return found


def _measure(tool: Tool, pids: list[int], *args: str) -> tuple[float, float]:
    before = _daemon_cpu(pids)
    wall, cpu, out = tool.run(*args)
    tool.daemon_cpu += _daemon_cpu(pids) - before
    tool.calls += 1
    if not out.strip():
        raise RuntimeError(f"{tool.name} {' '.join(args)} printed nothing")
    return wall, cpu


def _round_trip(path: Path) -> float:
    """One ``get title`` request over the socket, from this process (no client start)."""
    request = {"v": 1, "id": f"bench-{time.time_ns()}", "cmd": "get.title", "args": {}, "opts": {}}
    start = time.perf_counter()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        sock.sendall(json.dumps(request).encode() + b"\n")
        sock.makefile("rb").readline()
    return (time.perf_counter() - start) * 1000


def _row(name: str, wall: list[float], cpu: list[float], daemon: str = "") -> str:
    deciles = statistics.quantiles(wall, n=10) if len(wall) > 1 else [wall[0]] * 9
    return (
        f"| {name} | {statistics.median(wall):.1f} | {deciles[0]:.1f} | {deciles[-1]:.1f} "
        f"| {statistics.median(cpu):.2f} | {daemon} |"
    )


def run(quick: bool = False, pages: int | None = None, rounds: int | None = None) -> str:
    rounds = rounds or (3 if quick else 10)
    noop_rounds = 10 if quick else 60
    limit = pages or (3 if quick else None)
    bin_dir = Path(sys.executable).parent
    native_path, python_path = bin_dir / "ko-browser", bin_dir / "ko-browser-py"
    if not python_path.exists():
        raise SystemExit(f"{python_path} is missing: run `pip install -e .` first")
    native_built = native_path.read_bytes()[:4] == b"\x7fELF"
    if not _PEERS.exists():
        raise SystemExit(f"{_PEERS} is missing: run scripts/peers.sh first")

    work = Path(tempfile.mkdtemp(prefix="kbbench-", dir="/tmp"))
    wrapper = work / "chromium"  # the same flags for kobrowser's Chrome as for agent-browser's
    wrapper.write_text(f"#!/bin/sh\nexec {_chrome()} '{BLOCK_OTHER_HOSTS}' \"$@\"\n")
    wrapper.chmod(0o755)
    runtime = work / "rt"
    runtime.mkdir(mode=0o700)
    ko_env = dict(os.environ, KOBROWSER_RUNTIME_DIR=str(runtime), KOBROWSER_IDLE_TIMEOUT="900")
    ko_env.pop("KOBROWSER_PYTHON_CLIENT", None)
    namespace = f"kbbench{os.getpid()}"
    ab_env = dict(
        os.environ,
        AGENT_BROWSER_EXECUTABLE_PATH=_chrome(),
        AGENT_BROWSER_NAMESPACE=namespace,
        AGENT_BROWSER_ARGS="--no-sandbox\n" + BLOCK_OTHER_HOSTS,
    )
    tools = [Tool("ko-browser-py (Python client)", [str(python_path)], ko_env)]
    if native_built:
        tools.insert(0, Tool("ko-browser (native client)", [str(native_path)], ko_env))
    tools.append(Tool("agent-browser 0.41.2 (native)", [str(_PEERS)], ab_env))
    floor = Tool("python -c pass (floor)", [sys.executable, "-c", "pass"], ko_env)
    snap = {tool.name: Tool(tool.name, tool.command, tool.env) for tool in tools}

    corpus = [p for p in load_corpus() if p.name.startswith("newspaper4k/")]
    corpus = corpus[:limit] if limit else corpus
    per_page: dict[str, list[float]] = {t.name: [] for t in tools}
    per_page_cpu: dict[str, list[float]] = {t.name: [] for t in tools}
    failed: list[str] = []
    round_trips: list[float] = []
    title = "Benchmark page"
    try:
        tools[0].run(
            "--executable-path", str(wrapper), "open", f"data:text/html,<title>{title}</title>"
        )
        tools[-1].run("open", f"data:text/html,<title>{title}</title>")
        ko_pids = [json.loads((runtime / "default.pid").read_text())["pid"]]
        ab_pids = _pids_with(f"AGENT_BROWSER_NAMESPACE={namespace}", "agent-browser")
        pids = {t.name: ab_pids if t is tools[-1] else ko_pids for t in tools}

        # 1. no-op
        for _ in range(3):  # warm the page cache and the daemons
            floor.run()
            for tool in tools:
                tool.run("get", "title")
        for _ in range(noop_rounds):
            wall, cpu, _ = floor.run()
            floor.wall.append(wall)
            floor.cpu.append(cpu)
            for tool in tools:
                wall, cpu = _measure(tool, pids[tool.name], "get", "title")
                tool.wall.append(wall)
                tool.cpu.append(cpu)
            round_trips.append(_round_trip(runtime / "default.sock"))

        # 2. warm snapshot of each corpus page
        with CorpusServer(corpus) as server:
            for page in corpus:
                url = server.url(page)
                samples: dict[str, list[tuple[float, float]]] = {t.name: [] for t in tools}
                try:
                    tools[0].run("open", url)
                    tools[-1].run("open", url)
                    time.sleep(SETTLE)
                    for tool in tools:  # one untimed call each
                        tool.run("snapshot")
                    for _ in range(rounds):
                        for tool in tools:
                            samples[tool.name].append(
                                _measure(snap[tool.name], pids[tool.name], "snapshot")
                            )
                except RuntimeError as exc:
                    failed.append(f"{page.name}: {exc}")
                    continue
                for name, pairs in samples.items():
                    per_page[name].append(statistics.median(w for w, _ in pairs))
                    per_page_cpu[name].append(statistics.median(c for _, c in pairs))
    finally:
        subprocess.run([str(python_path), "close"], env=ko_env, capture_output=True, check=False)
        subprocess.run([str(_PEERS), "close"], env=ab_env, capture_output=True, check=False)
        shutil.rmtree(work, ignore_errors=True)

    load = loads()
    lines = [
        f"Load average at the end (1/5/15 min): {load} on {os.cpu_count()} CPUs. Each tool's "
        "daemon and Chrome were warm; interleaved rounds, wall time of the whole command.",
    ]
    if not native_built:
        lines.append("\n**The native client is not built** (no C compiler at install).")
    lines += [
        "",
        f"**No-op** (`get title` of a small page), {noop_rounds} rounds:",
        "",
        "| command | median ms | p10 ms | p90 ms | client CPU median ms | daemon CPU mean ms |",
        "|---|---:|---:|---:|---:|---:|",
        _row(floor.name, floor.wall, floor.cpu),
    ]
    for tool in tools:
        daemon = f"{tool.daemon_cpu / max(tool.calls, 1) * 1000:.2f}"
        lines.append(_row(tool.name, tool.wall, tool.cpu, daemon))
    lines.append(
        f"| (in-process: one `get title` request over the socket) "
        f"| {statistics.median(round_trips):.1f} | | | | |"
    )
    count = len(next(iter(per_page.values())))
    lines += [
        "",
        f"**Warm `snapshot`** of {count} corpus pages (newspaper4k), {rounds} rounds each; "
        "median over pages of each page's median:",
        "",
        "| client | median ms | client CPU median ms | daemon CPU mean ms |",
        "|---|---:|---:|---:|",
    ]
    for tool in tools:
        s = snap[tool.name]
        if per_page[tool.name]:
            lines.append(
                f"| {tool.name} | {statistics.median(per_page[tool.name]):.1f} "
                f"| {statistics.median(per_page_cpu[tool.name]):.2f} "
                f"| {s.daemon_cpu / max(s.calls, 1) * 1000:.1f} |"
            )
    if failed:
        lines += ["", f"Pages left out ({len(failed)}): " + "; ".join(failed)]
    if native_built and per_page[tools[0].name]:
        ours = statistics.median(per_page[tools[0].name])
        theirs = statistics.median(per_page[tools[-1].name])
        noop = statistics.median(tools[0].wall)
        lines += [
            "",
            f"Targets: warm snapshot median no slower than agent-browser's: "
            f"**{'met' if ours <= theirs else 'missed'}** ({ours:.1f} vs {theirs:.1f} ms, "
            f"{ours / theirs:.2f}x); warm no-op at most {NOOP_TARGET_MS:g} ms: "
            f"**{'met' if noop <= NOOP_TARGET_MS else 'missed'}** ({noop:.1f} ms).",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pages", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    options = parser.parse_args()
    print(run(quick=options.quick, pages=options.pages, rounds=options.rounds))
