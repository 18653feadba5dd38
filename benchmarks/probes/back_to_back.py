"""Back-to-back snapshots of a big page: does the AX mirror take over, and when?

One tab on the benchmark table (``--rows``, 1,500 by default: about 25,000
AX nodes), ``--calls`` ``tab.snapshot()`` calls with no pause between them
(a polling agent, a monitoring loop). Per call it prints what does not
depend on the machine's load, and the wall time for the shape only:

- whether the mirror served it (its ``served`` count moved);
- the CDP calls sent meanwhile, by method (the snapshot's own and the
  background crawl's), and the bytes received;
- this process's CPU and Chrome's renderer CPU (``/proc``);
- how many nodes the mirror holds and its state.

Run: ``.venv/bin/python -m benchmarks.probes.back_to_back [--rows N] [--calls N] [--mirror off]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections import Counter
from typing import Any

from benchmarks._common import cpu_times, descendants
from benchmarks.bench_mirror import page_server


def _renderer_cpu(pids: list[int]) -> float:
    return sum(s for _pid, (cmd, s) in cpu_times(pids).items() if "--type=renderer" in cmd)


async def run(rows: int, calls: int, mirror_on: bool, fresh: bool) -> None:
    import kobrowser
    from kobrowser import AXMirrorSettings
    from kobrowser.cdp import find_chrome

    server = page_server(rows).start()
    try:
        async with kobrowser.launch(executable_path=find_chrome(), timeout=120) as browser:
            browser.ax_mirror = AXMirrorSettings(enabled=mirror_on)
            tab = await browser.new_tab(server.url("/table"))
            connection: Any = tab.cdp.connection
            sent: Counter[str] = Counter()
            encode = connection._encode_call

            def counting(call_id: int, method: str, params: Any, session_id: Any) -> bytes:
                sent[method] += 1
                return bytes(encode(call_id, method, params, session_id))

            connection._encode_call = counting
            snapshotter: Any = tab._snapshotter
            pids = descendants(os.getpid())
            for call in range(1, calls + 1):
                sent.clear()
                mirror = snapshotter.mirror.mirror
                served = mirror.stats["served"] if mirror is not None else 0
                wall, cpu, renderer = time.perf_counter(), time.process_time(), _renderer_cpu(pids)
                await tab.snapshot(fresh=fresh)
                wall = time.perf_counter() - wall
                cpu = time.process_time() - cpu
                renderer = _renderer_cpu(pids) - renderer
                mirror = snapshotter.mirror.mirror
                now = mirror.stats["served"] if mirror is not None else 0
                state = "-" if mirror is None else f"{mirror.state} {len(mirror)} nodes"
                methods = ", ".join(
                    f"{m.split('.')[-1]} {n}" for m, n in sorted(sent.items(), key=lambda x: -x[1])
                )
                print(
                    f"call {call:2d}: {'MIRROR' if now > served else 'full  '} "
                    f"py {cpu * 1000:5.0f} ms, renderer {renderer * 1000:5.0f} ms, "
                    f"wall {wall * 1000:5.0f} ms; mirror {state}; calls: {methods}",
                    flush=True,
                )
            if snapshotter.mirror.mirror is not None:
                print("mirror stats:", snapshotter.mirror.mirror.stats)
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1500)
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--mirror", choices=("on", "off"), default="on")
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()
    asyncio.run(run(args.rows, args.calls, args.mirror == "on", args.fresh))


if __name__ == "__main__":
    main()
