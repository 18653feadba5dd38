"""Benchmark runner: ``python -m benchmarks [NAME ...] [--quick] [--list] [--no-record]``.

A benchmark is a module ``benchmarks/bench_<name>.py`` that defines:

``NAME``   short name used on the command line (default: the module suffix);
``TITLE``  the heading of its section in ``benchmarks/RESULTS.md``;
``run(quick: bool) -> str``  runs it and returns the Markdown body of its
           section (tables, notes). ``run`` may be ``async``; it then runs on
           asyncio.

Modules without ``run`` (micro-benchmarks meant to be run as scripts) are
skipped. With no names, every benchmark runs, in name order. Each result is
printed, then written to ``benchmarks/RESULTS.md`` as its own section
(replacing that benchmark's previous section, keeping the others) together
with the machine (CPUs, CPU model, RAM, Chromium, Python) and the date.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib
import inspect
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
HEADER = (
    "# Benchmark results\n\n"
    "Written by `python -m benchmarks`; each section is replaced when its benchmark\n"
    "runs again. Figures depend on the machine: compare rows of one section, which\n"
    "were measured in the same interleaved run. What the figures mean, and the\n"
    "measurements behind each change, are in docs/performance.md.\n"
)


@dataclass
class Benchmark:
    name: str
    title: str
    module: ModuleType

    def run(self, quick: bool) -> str:
        result = self.module.run(quick)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        assert isinstance(result, str), f"{self.name}.run() must return Markdown text"
        return result


def discover() -> dict[str, Benchmark]:
    """Every ``benchmarks/bench_*.py`` module that has a ``run`` function."""
    found: dict[str, Benchmark] = {}
    for path in sorted(HERE.glob("bench_*.py")):
        module = importlib.import_module(f"benchmarks.{path.stem}")
        if not callable(getattr(module, "run", None)):
            continue
        name = getattr(module, "NAME", path.stem.removeprefix("bench_"))
        title = getattr(module, "TITLE", name)
        found[name] = Benchmark(name, title, module)
    return found


def _first_line(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (done.stdout.strip().splitlines() or ["unknown"])[0]


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    ram = "unknown"
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        match = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
        if match:
            cpu = match.group(1).strip()
        meminfo = Path("/proc/meminfo").read_text()
        match = re.search(r"^MemTotal:\s*(\d+) kB", meminfo, re.M)
        if match:
            ram = f"{int(match.group(1)) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    try:
        from kobrowser.cdp import find_chrome

        chrome = _first_line([find_chrome(), "--version"])
    except Exception as exc:  # no browser: still record the rest
        chrome = f"not found ({exc})"
    commit = _first_line(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"])
    return {
        "CPUs (nproc)": str(os.cpu_count()),
        "CPU": cpu,
        "RAM": ram,
        "Chromium": chrome,
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "OS": f"{platform.system()} {platform.release()}",
        "kobrowser commit": commit,
    }


def section(bench: Benchmark, body: str, quick: bool, info: dict[str, str]) -> str:
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"<!-- bench:{bench.name} -->",
        f"## {bench.title}",
        "",
        f"`python -m benchmarks {bench.name}{' --quick' if quick else ''}`, {date}.",
        "",
        "Machine: " + "; ".join(f"{key} {value}" for key, value in info.items()) + ".",
        "",
        body.strip(),
        f"<!-- /bench:{bench.name} -->",
    ]
    return "\n".join(lines) + "\n"


def record(name: str, text: str, path: Path = RESULTS) -> None:
    """Put ``text`` as benchmark ``name``'s section of ``path``, keeping the others."""
    current = path.read_text() if path.exists() else HEADER
    pattern = re.compile(
        rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->\n?", re.S
    )
    if pattern.search(current):
        updated = pattern.sub(lambda _: text, current, count=1)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    path.write_text(updated)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds, for a smoke run")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--no-record", action="store_true", help="do not touch RESULTS.md")
    args = parser.parse_args(argv)

    benches = discover()
    if args.list:
        for bench in benches.values():
            print(f"{bench.name:12} {bench.title}")
        return 0
    unknown = [name for name in args.names if name not in benches]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(benches)}")
    chosen = [benches[name] for name in args.names] if args.names else list(benches.values())
    info = machine()
    print("Machine: " + "; ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    for bench in chosen:
        print(f"\n== {bench.name}: {bench.title}", flush=True)
        body = bench.run(args.quick)
        print(body, flush=True)
        if not args.no_record:
            record(bench.name, section(bench, body, args.quick, info))
            print(f"(recorded in {RESULTS})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
