"""Scale-out: several browsers as CDP endpoints, one killed mid-run, some refusing.

The endpoints are local Chromes the tests start themselves with
``--remote-debugging-port=0`` (see ``_chrome.py``), reached over
``http://host:port``, ``ws://...`` and ``host:port`` alike.
"""

from __future__ import annotations

import os
import signal
import socket
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest
from _server import PageServer
from aiohttp import web

from kobrowser import Scraper, ScrapeResult
from kobrowser.scrape import _pool

from ._chrome import EndpointChrome, live_group_members

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(600)]

TIMEOUT = 60.0


async def wait_for(condition: Any, what: str, timeout: float = 90.0) -> None:
    """Poll ``condition()`` (state of other processes or threads) until true."""
    with anyio.move_on_after(timeout):
        while not condition():  # noqa: ASYNC110 - polling state with no event to wait on
            await anyio.sleep(0.05)
    assert condition(), what


def _page(i: int) -> str:
    return f"<!doctype html><title>Item {i}</title><h1>Item {i}</h1><p>body of {i}</p>"


@pytest.mark.browser
@pytest.mark.slow  # lifecycle: three Chromes, one killed; scripts/test.sh --fast skips it
async def test_one_endpoint_killed_mid_run_every_url_recorded_once(server: PageServer) -> None:
    server.set_page("/item", _page(0))
    gate = server.hold("/item")
    urls = [server.url(f"/item?i={i}") for i in range(24)]
    chromes = [EndpointChrome() for _ in range(3)]
    try:
        endpoints = [chromes[0].http, chromes[1].ws, f"127.0.0.1:{chromes[2].port}"]
        results: list[ScrapeResult] = []
        async with Scraper(
            endpoints=endpoints, concurrency=6, per_host=None, timeout=TIMEOUT, retries=0
        ) as scraper:
            await wait_for(lambda: len(scraper.browsers) == 3, "the endpoints did not come up")
            async with anyio.create_task_group() as tg:

                async def consume() -> None:
                    async for result in scraper.run(urls):
                        results.append(result)

                tg.start_soon(consume)
                # Least loaded first: two pages on each browser, all held at the gate.
                await wait_for(lambda: gate.waiting == 6, "six pages did not start")
                os.killpg(chromes[1].pid, signal.SIGKILL)
                await wait_for(lambda: len(scraper.browsers) == 2, "the kill went unnoticed")
                gate.release()
        await wait_for(lambda: not live_group_members(chromes[1].pid), "the killed Chrome lives")
    finally:
        for chrome in chromes:
            chrome.kill()

    counts = Counter(result.url for result in results)
    assert sorted(counts) == sorted(urls) and set(counts.values()) == {1}  # once each
    assert all(result.ok for result in results), [r.error for r in results if not r.ok]
    lost = [result for result in results if result.attempts > 1]
    assert len(lost) == 2  # the killed browser's two pages, loaded again elsewhere


async def test_refusing_endpoints_are_skipped_and_retried_later(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    server.set_page("/busy/json/version", "too many sessions", status=429)

    async def closing_socket(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.close()
        return ws

    server.set_route("/closing", closing_socket)
    ws_closing = server.url("/closing").replace("http://", "ws://")
    refused = _closed_port()
    urls = [server.set_page(f"/far/{i}", _page(i)) for i in range(6)]
    endpoints = [f"http://127.0.0.1:{server.port}/busy", f"127.0.0.1:{refused}", ws_closing]
    endpoints.append(endpoint.http)
    async with Scraper(endpoints=endpoints, concurrency=3, timeout=TIMEOUT) as scraper:
        results = [result async for result in scraper.run(urls)]
        assert sorted(r.url for r in results) == sorted(urls)
        assert all(r.ok for r in results), [r.error for r in results]
        # The refusing endpoints are tried again, with back-off.
        await wait_for(
            lambda: (
                server.request_count("/busy/json/version") >= 2
                and server.request_count("/closing") >= 2
            ),
            "the refusing endpoints were not retried",
        )


async def test_no_endpoint_reachable_fails_every_page_clearly(
    server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unavailable after 2 refused starts, not 5 (0.5 s of back-off instead of 7.5 s).
    monkeypatch.setattr(_pool, "MAX_FAILURES", 2)
    refused = _closed_port()
    urls = [server.set_page(f"/none/{i}", _page(i)) for i in range(3)]
    async with Scraper(endpoints=[f"127.0.0.1:{refused}"], timeout=TIMEOUT) as scraper:
        results = [result async for result in scraper.run(urls)]
    assert sorted(r.url for r in results) == sorted(urls)
    for result in results:
        assert not result.ok and result.attempts == 0
        assert result.error is not None
        assert result.error.startswith(f"no browser available: 127.0.0.1:{refused}: ")
        assert "could not reach" in result.error


@pytest.mark.browser
async def test_a_lost_local_browser_is_relaunched(server: PageServer) -> None:
    server.set_page("/local", _page(1))
    gate = server.hold("/local")
    urls = [server.url(f"/local?i={i}") for i in range(6)]
    async with Scraper(concurrency=2, per_host=None, timeout=TIMEOUT, retries=0) as scraper:
        await wait_for(lambda: len(scraper.browsers) == 1, "Chrome did not start")
        (first,) = scraper.browsers
        assert first.pid is not None
        results: list[ScrapeResult] = []
        async with anyio.create_task_group() as tg:

            async def consume() -> None:
                async for result in scraper.run(urls):
                    results.append(result)

            tg.start_soon(consume)
            await wait_for(lambda: gate.waiting == 2, "two pages did not start")
            os.killpg(first.pid, signal.SIGKILL)
            await wait_for(
                lambda: scraper.browsers and scraper.browsers[0] is not first,
                "no new Chrome was launched",
            )
            gate.release()
    assert sorted(r.url for r in results) == sorted(urls)
    assert all(r.ok for r in results), [r.error for r in results]
    assert sum(1 for r in results if r.attempts == 2) == 2


async def test_no_chrome_fails_every_page_clearly(server: PageServer, tmp_path: Path) -> None:
    urls = [server.set_page(f"/nochrome/{i}", _page(i)) for i in range(2)]
    missing = tmp_path / "no-such-chrome"
    async with Scraper(executable_path=str(missing), timeout=TIMEOUT) as scraper:
        results = [result async for result in scraper.run(urls)]
    assert sorted(r.url for r in results) == sorted(urls)
    for result in results:
        assert not result.ok and result.attempts == 0 and result.error is not None
        assert result.error.startswith("no browser available: local Chrome #1: ")
        assert "is not an executable file" in result.error


def _closed_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
