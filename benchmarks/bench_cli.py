"""Warm `ko-browser` command latency against Python's own start-up.

Median wall time of ``ko-browser get title`` with the session daemon already
running, next to ``python -c pass`` (the floor: the same interpreter, with
the same site-packages), measured interleaved in one run. Target: within
40 ms of the floor.

A third row runs the same client with the ``kobrowser`` package's own
``__init__`` bypassed: what the command costs once importing ``kobrowser.cli``
no longer imports the whole library (the client path itself imports only the
standard library; the package ``__init__`` currently imports aiohttp,
msgspec and anyio).

Run: ``python -m benchmarks cli`` (or ``python benchmarks/bench_cli.py``).
"""

from __future__ import annotations

import compileall
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

NAME = "cli"
TITLE = "CLI: warm `ko-browser get title` vs `python -c pass`"
TARGET_MS = 40.0

_PACKAGE = Path(__file__).resolve().parents[1] / "kobrowser"
_BYPASS = (
    "import sys, types\n"
    "p = types.ModuleType('kobrowser'); p.__path__ = [{pkg!r}]; sys.modules['kobrowser'] = p\n"
    "from kobrowser.cli import main\n"
    "sys.exit(main(['get', 'title']))\n"
)


def _script() -> list[str]:
    script = Path(sys.executable).with_name("ko-browser")
    if not script.exists():
        raise SystemExit(f"{script} is missing: run `pip install -e .` first")
    return [str(script)]


def _time(command: list[str], env: dict[str, str], expect: str | None) -> tuple[float, float]:
    """(wall ms, CPU ms of the process: user + system, far less sensitive to load)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0 or (expect is not None and done.stdout != expect):
        raise RuntimeError(
            f"{command} exited {done.returncode}: {done.stdout!r} {done.stderr.strip()}"
        )
    return elapsed * 1000, cpu * 1000


def _round_trip(path: Path, title: str) -> float:
    request = {"v": 1, "cmd": "get.title", "args": {}, "opts": {}}
    start = time.perf_counter()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        request["id"] = f"bench-{time.time_ns()}"
        sock.sendall(json.dumps(request).encode() + b"\n")
        reply = json.loads(sock.makefile("rb").readline())
    elapsed = time.perf_counter() - start
    if reply.get("text") != title:
        raise RuntimeError(f"unexpected reply {reply}")
    return elapsed * 1000


def run(quick: bool = False) -> str:
    rounds = 10 if quick else 60
    directory = Path(tempfile.mkdtemp(prefix="kbbench-", dir="/tmp"))
    env = dict(os.environ, KOBROWSER_RUNTIME_DIR=str(directory), KOBROWSER_IDLE_TIMEOUT="600")
    ko = _script()
    title = "Benchmark page"
    rows = {
        "python -c pass (floor)": ([sys.executable, "-c", "pass"], None),
        "ko-browser get title": ([*ko, "get", "title"], title + "\n"),
        "same, library __init__ bypassed": (
            [sys.executable, "-c", _BYPASS.format(pkg=str(_PACKAGE))],
            title + "\n",
        ),
    }
    # A wheel install compiles bytecode; an editable one under
    # PYTHONDONTWRITEBYTECODE never does, and compiling every module on every
    # command would be measured instead of the command.
    compileall.compile_dir(str(_PACKAGE), quiet=1)
    times: dict[str, list[float]] = {name: [] for name in rows}
    cpu: dict[str, list[float]] = {name: [] for name in rows}
    round_trips: list[float] = []
    try:
        opened = subprocess.run(
            [*ko, "open", f"data:text/html,<title>{title}</title><p>hi</p>"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if opened.returncode != 0:
            raise RuntimeError(f"ko-browser open failed: {opened.stderr.strip()}")
        for command, expect in rows.values():  # warm the page cache and the daemon
            for _ in range(3):
                _time(command, env, expect)
        for _ in range(rounds):  # interleaved, so load changes hit every row alike
            for name, (command, expect) in rows.items():
                wall, used = _time(command, env, expect)
                times[name].append(wall)
                cpu[name].append(used)
            round_trips.append(_round_trip(directory / "default.sock", title))
    finally:
        subprocess.run([*ko, "close"], env=env, capture_output=True, check=False)
        shutil.rmtree(directory, ignore_errors=True)

    floor = statistics.median(times["python -c pass (floor)"])
    load = loads()
    lines = [
        f"{rounds} interleaved rounds; wall time of the whole process, daemon warm, "
        "kobrowser's bytecode compiled first (as a wheel install does). "
        f"Load average at the end (1/5/15 min): {load} on {os.cpu_count()} CPUs.",
        "",
        "| command | median ms | p10 ms | p90 ms | median over floor ms | CPU median ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, samples in times.items():
        deciles = statistics.quantiles(samples, n=10)
        median = statistics.median(samples)
        lines.append(
            f"| {name} | {median:.1f} | {deciles[0]:.1f} | {deciles[-1]:.1f} "
            f"| {median - floor:+.1f} | {statistics.median(cpu[name]):.1f} |"
        )
    lines.append(
        f"| (in-process: one `get title` request over the socket) "
        f"| {statistics.median(round_trips):.1f} | | | | |"
    )
    warm = statistics.median(times["ko-browser get title"]) - floor
    bypass = statistics.median(times["same, library __init__ bypassed"]) - floor
    verdict = "met" if warm <= TARGET_MS else "missed"
    lines += [
        "",
        f"Target: within {TARGET_MS:g} ms of the floor: **{verdict}** "
        f"({warm:+.1f} ms). With the package `__init__` bypassed: {bypass:+.1f} ms "
        "(the client path alone: standard library, one Unix-socket round trip).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv))
