"""CDP round trip on real Chromium: kobrowser vs a bare aiohttp floor vs Playwright.

Measures, on one tab of each contender:

* **latency**: sequential ``Runtime.evaluate("1")`` calls, one at a time;
* **throughput**: 1,000 concurrent calls issued at once, answered calls per second.

Contenders (each with its own browser process, all the same Chromium binary,
all on asyncio):

``floor``       the minimum any Python CDP client must do: ``json.dumps`` the
                call, a dict of futures, one reader task that ``json.loads``
                each message and resolves its future. Nothing else.
``floor pipe``  the same on Chrome's CBOR pipe (kobrowser's pipe transport:
                native encode of the call, native transcode of the answer,
                ``json.loads``, the future). The floor of ``launch()``'s default.
``kobrowser``   ``await tab.cdp.send("Runtime.evaluate", ...)`` (CBOR pipe).
``kobrowser ws``  the same over the WebSocket (``transport="websocket"``).
``playwright``  ``await page.evaluate("1")`` (PyPI ``playwright``, launched with
                ``executable_path`` of the same Chromium).

Floor and kobrowser send ``{"expression": "1", "returnByValue": true}``.
The contenders run interleaved, round after round (the order rotates every
round), so machine noise hits them alike; a warm-up round is not counted.
Figures are medians over all rounds.

Run: ``python -m benchmarks roundtrip [--quick]`` or
``python -m benchmarks.bench_roundtrip [--quick] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import aiohttp

import kobrowser
from benchmarks._common import load
from kobrowser.cdp import ChromeProcess, find_chrome

NAME = "roundtrip"
TITLE = "CDP round trip: Runtime.evaluate latency and 1,000-call throughput"

CONCURRENT = 1000
PARAMS = {"expression": "1", "returnByValue": True}

Call = Callable[[], Awaitable[Any]]


class Floor:
    """A bare CDP client: json.dumps, a dict of futures, a reader task."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse):
        self._session = session
        self._ws = ws
        self._ids = itertools.count(1)
        self._futures: dict[int, asyncio.Future[Any]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, ws_url: str) -> Floor:
        session = aiohttp.ClientSession()
        ws = await session.ws_connect(ws_url, max_msg_size=0, heartbeat=None, compress=0)
        return cls(session, ws)

    async def _read(self) -> None:
        futures = self._futures
        async for msg in self._ws:
            data = json.loads(msg.data)
            future = futures.pop(data.get("id"), None)
            if future is not None:
                future.set_result(data)

    async def call(
        self, method: str, params: dict[str, Any] | None = None, session_id: str | None = None
    ) -> Any:
        call_id = next(self._ids)
        message: dict[str, Any] = {"id": call_id, "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        future = asyncio.get_running_loop().create_future()
        self._futures[call_id] = future
        await self._ws.send_str(json.dumps(message))
        return await future

    async def close(self) -> None:
        self._reader.cancel()
        await self._ws.close()
        await self._session.close()


async def _floor(stack: AsyncExitStack) -> Call:
    chrome = ChromeProcess(find_chrome())
    stack.push_async_callback(chrome.aclose)
    ws_url = await chrome.start(timeout=60)
    drain = asyncio.get_running_loop().create_task(chrome.drain_stderr())
    stack.callback(drain.cancel)
    floor = await Floor.connect(ws_url)
    stack.push_async_callback(floor.close)
    target = (await floor.call("Target.createTarget", {"url": "about:blank"}))["result"]
    attached = await floor.call(
        "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
    )
    session_id = attached["result"]["sessionId"]

    async def call() -> Any:
        return await floor.call("Runtime.evaluate", PARAMS, session_id)

    return call


class PipeFloor(Floor):
    """The bare client on Chrome's CBOR pipe (kobrowser's PipeTransport underneath)."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self._ids = itertools.count(1)
        self._futures = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        futures, receive = self._futures, self._transport.receive
        while True:
            data = json.loads(await receive())
            future = futures.pop(data.get("id"), None)
            if future is not None:
                future.set_result(data)

    async def call(
        self, method: str, params: dict[str, Any] | None = None, session_id: str | None = None
    ) -> Any:
        call_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._futures[call_id] = future
        transport = self._transport
        await transport.send(transport.encode_call(call_id, method, params, session_id))
        return await future

    async def close(self) -> None:
        self._reader.cancel()
        await self._transport.aclose()


async def _floor_pipe(stack: AsyncExitStack) -> Call:
    chrome = ChromeProcess(find_chrome(), transport="pipe-cbor")
    stack.push_async_callback(chrome.aclose)
    floor = PipeFloor(await chrome.open(timeout=60))
    drain = asyncio.get_running_loop().create_task(chrome.drain_stderr())
    stack.callback(drain.cancel)
    stack.push_async_callback(floor.close)
    target = (await floor.call("Target.createTarget", {"url": "about:blank"}))["result"]
    attached = await floor.call(
        "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
    )
    session_id = attached["result"]["sessionId"]

    async def call() -> Any:
        return await floor.call("Runtime.evaluate", PARAMS, session_id)

    return call


async def _kobrowser(stack: AsyncExitStack, transport: str = "pipe-cbor") -> Call:
    browser = await stack.enter_async_context(kobrowser.launch(timeout=60, transport=transport))
    session = (await browser.new_tab()).cdp

    async def call() -> Any:
        return await session.send("Runtime.evaluate", PARAMS)

    return call


async def _kobrowser_ws(stack: AsyncExitStack) -> Call:
    return await _kobrowser(stack, "websocket")


async def _playwright(stack: AsyncExitStack) -> Call:
    from playwright.async_api import async_playwright

    pw = await stack.enter_async_context(async_playwright())
    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    browser = await pw.chromium.launch(executable_path=find_chrome(), headless=True, args=args)
    stack.push_async_callback(browser.close)
    page = await browser.new_page()

    async def call() -> Any:
        return await page.evaluate("1")

    return call


SETUPS: dict[str, Callable[[AsyncExitStack], Awaitable[Call]]] = {
    "floor": _floor,
    "floor pipe": _floor_pipe,
    "kobrowser": _kobrowser,
    "kobrowser ws": _kobrowser_ws,
    "playwright": _playwright,
}


async def _latencies(call: Call, n: int) -> list[float]:
    samples = []
    clock = time.perf_counter
    for _ in range(n):
        start = clock()
        await call()
        samples.append(clock() - start)
    return samples


async def _burst(call: Call, n: int) -> float:
    start = time.perf_counter()
    await asyncio.gather(*(call() for _ in range(n)))
    return time.perf_counter() - start


async def measure(rounds: int, sequential: int) -> dict[str, dict[str, float]]:
    latency: dict[str, list[float]] = {name: [] for name in SETUPS}
    bursts: dict[str, list[float]] = {name: [] for name in SETUPS}
    async with AsyncExitStack() as stack:
        calls = {name: await setup(stack) for name, setup in SETUPS.items()}
        names = list(calls)
        for round_no in range(rounds + 1):  # round 0 warms up
            order = names[round_no % len(names) :] + names[: round_no % len(names)]
            for name in order:
                gc.collect()
                samples = await _latencies(calls[name], sequential)
                elapsed = await _burst(calls[name], CONCURRENT)
                if round_no:
                    latency[name].extend(samples)
                    bursts[name].append(elapsed)
    return {
        name: {
            "latency_us": statistics.median(latency[name]) * 1e6,
            "p90_us": statistics.quantiles(latency[name], n=10)[-1] * 1e6,
            "burst_ms": statistics.median(bursts[name]) * 1e3,
            "calls_per_s": CONCURRENT / statistics.median(bursts[name]),
        }
        for name in names
    }


def table(results: dict[str, dict[str, float]], rounds: int, sequential: int) -> str:
    floor = results["floor pipe"]
    pw = results["playwright"]
    lines = [
        f"{rounds} rounds (+1 warm-up) of {sequential} sequential calls and one burst of "
        f"{CONCURRENT:,} concurrent calls per contender, interleaved; medians. Load average"
        f" (1 min) at the end: {load():.1f} (shared machine: noisy figures).",
        "",
        "| contender | latency (median) | latency p90 | vs floor pipe | vs Playwright "
        f"| {CONCURRENT:,} concurrent | calls/s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['latency_us']:.0f} µs | {r['p90_us']:.0f} µs "
            f"| {r['latency_us'] / floor['latency_us']:.2f}x "
            f"| {r['latency_us'] / pw['latency_us']:.2f}x "
            f"| {r['burst_ms']:.1f} ms | {r['calls_per_s']:,.0f} |"
        )
    k = results["kobrowser"]
    lat_floor = k["latency_us"] / floor["latency_us"]
    lat_pw = k["latency_us"] / pw["latency_us"]
    burst_floor = k["burst_ms"] / floor["burst_ms"]
    lines += [
        "",
        "Targets: kobrowser latency within 1.1x of the floor on its transport (floor pipe) "
        f"(**{lat_floor:.2f}x**, {'met' if lat_floor <= 1.1 else 'missed'}) and at most "
        f"half of Playwright's (**{lat_pw:.2f}x**, {'met' if lat_pw <= 0.5 else 'missed'}); "
        f"{CONCURRENT:,}-call burst {burst_floor:.2f}x the floor's time.",
    ]
    return "\n".join(lines)


def run(quick: bool = False, rounds: int | None = None) -> str:
    """Entry point for the runner: returns the Markdown section body."""
    n = rounds if rounds is not None else (3 if quick else 9)
    sequential = 100 if quick else 300
    results = asyncio.run(measure(n, sequential))
    return table(results, n, sequential)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    args = parser.parse_args(argv)
    print(run(args.quick, args.rounds))


if __name__ == "__main__":
    main()
