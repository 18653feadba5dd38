"""The CDP layer against a real Chromium: concurrency, crashes, kills, connect()."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

import kobrowser
from kobrowser import ConnectionClosedError, TargetClosedError
from kobrowser.cdp import CDPSession, find_chrome

from ._procs import assert_gone

pytestmark = pytest.mark.anyio

LONG = 60.0  # a call's own deadline
SOON = 10.0  # the test's deadline for "failed at once"
NEVER_RESOLVES = {"expression": "new Promise(() => {})", "awaitPromise": True}


async def evaluate(session: CDPSession, expression: str, timeout: float = LONG) -> Any:
    result = await session.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=timeout
    )
    assert "exceptionDetails" not in result, result
    return result["result"]["value"]


async def expect_failure(
    session: CDPSession, params: dict[str, Any], errors: list[BaseException]
) -> None:
    try:
        await session.send("Runtime.evaluate", params, timeout=LONG)
    except Exception as exc:
        errors.append(exc)
    else:
        errors.append(AssertionError("the call succeeded"))


async def no_call_left(browser: kobrowser.Browser) -> None:
    """No call is left in flight: the browser's own background calls (target
    set-up, a tab's watchers) may still be answering on a loaded machine, so
    wait for them; a leaked call would stay pending for its whole deadline
    (LONG), past SOON."""
    with anyio.fail_after(SOON):
        while browser.connection.pending_count:  # noqa: ASYNC110 - no event for this
            await anyio.sleep(0.01)


async def wait_pending(session: CDPSession, count: int) -> None:
    """Wait until ``count`` calls are in flight (sent, unanswered)."""
    with anyio.fail_after(SOON):
        while session.connection.pending_count < count:  # noqa: ASYNC110 - no event for this
            await anyio.sleep(0.01)
    await anyio.sleep(0.1)  # let the sends reach Chrome


@pytest.mark.browser
@pytest.mark.slow  # load: 1000 calls over 10 tabs; scripts/test.sh --fast skips it
async def test_1000_concurrent_evaluates_over_10_tabs() -> None:
    async with kobrowser.launch(timeout=LONG) as browser:
        tabs = [await browser.new_tab() for _ in range(10)]
        for k, tab in enumerate(tabs):
            await evaluate(tab.cdp, f"window.__k = {k}")
        results: dict[int, Any] = {}

        async def one(i: int) -> None:
            results[i] = await evaluate(tabs[i % 10].cdp, f"window.__k * 100000 + {i} * 3")

        async with anyio.create_task_group() as tg:
            for i in range(1000):
                tg.start_soon(one, i)
        assert results == {i: (i % 10) * 100000 + i * 3 for i in range(1000)}
        await no_call_left(browser)


@pytest.mark.browser
async def test_page_crash_fails_the_tabs_waiting_call_at_once() -> None:
    async with kobrowser.launch(timeout=LONG) as browser:
        tab = await browser.new_tab()
        other = await browser.new_tab()
        errors: list[BaseException] = []
        with anyio.fail_after(SOON):
            async with anyio.create_task_group() as tg:
                tg.start_soon(expect_failure, tab.cdp, NEVER_RESOLVES, errors)
                await wait_pending(tab.cdp, 1)
                with pytest.raises(TargetClosedError):  # Chrome never answers Page.crash
                    await tab.cdp.send("Page.crash", timeout=LONG)
        assert len(errors) == 1
        assert isinstance(errors[0], TargetClosedError), repr(errors[0])
        assert "Runtime.evaluate" in str(errors[0])
        assert tab.closed
        with anyio.fail_after(SOON), pytest.raises(TargetClosedError):
            await tab.cdp.send("Runtime.evaluate", {"expression": "1"})
        assert await evaluate(other.cdp, "20 + 22") == 42  # the other tab lives on
        await no_call_left(browser)


@pytest.mark.browser
async def test_closing_a_target_fails_its_waiting_calls() -> None:
    async with kobrowser.launch(timeout=LONG) as browser:
        tab = await browser.new_tab()
        errors: list[BaseException] = []
        with anyio.fail_after(SOON):
            async with anyio.create_task_group() as tg:
                tg.start_soon(expect_failure, tab.cdp, NEVER_RESOLVES, errors)
                await wait_pending(tab.cdp, 1)
                await browser.cdp.send("Target.closeTarget", {"targetId": tab.target_id})
        assert len(errors) == 1
        assert isinstance(errors[0], TargetClosedError), repr(errors[0])


@pytest.mark.browser
async def test_killing_chrome_fails_every_waiting_call_at_once() -> None:
    async with kobrowser.launch(timeout=LONG) as browser:
        pid = browser.pid
        assert pid is not None
        tabs = [await browser.new_tab() for _ in range(2)]
        errors: list[BaseException] = []
        with anyio.fail_after(SOON):
            async with anyio.create_task_group() as tg:
                for tab in (*tabs, tabs[0]):
                    tg.start_soon(expect_failure, tab.cdp, NEVER_RESOLVES, errors)
                await wait_pending(tabs[0].cdp, 3)
                os.kill(pid, signal.SIGKILL)
        assert len(errors) == 3
        for error in errors:
            assert isinstance(error, ConnectionClosedError), repr(error)
        assert browser.connection.closed
        with anyio.fail_after(SOON), pytest.raises(ConnectionClosedError):
            await browser.cdp.send("Browser.getVersion")
    await assert_gone(pgid=pid)


# -- connect() to a Chrome started outside the SDK -----------------------------


class ExternalChrome:
    def __init__(self, profile: Path) -> None:
        command = [
            find_chrome(),
            "--headless=new",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ]
        if os.geteuid() == 0:
            command.append("--no-sandbox")
        command.append("about:blank")
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        self.ws_url = self._wait_endpoint(timeout=60)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self._lines.put(raw.decode(errors="replace"))
        self._lines.put(None)

    def _wait_endpoint(self, timeout: float) -> str:
        seen = []
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            if match:
                return match.group(1)
        self.stop()
        raise RuntimeError("external Chrome printed no endpoint:\n" + "".join(seen[-20:]))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self._reader.join(10)
        if self.process.stderr is not None:
            self.process.stderr.close()


@pytest.fixture(scope="module")
def external_chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExternalChrome]:
    chrome = ExternalChrome(tmp_path_factory.mktemp("external-chrome-profile"))
    try:
        yield chrome
    finally:
        chrome.stop()


@pytest.mark.browser
@pytest.mark.parametrize("form", ["ws", "http", "host:port"])
async def test_connect_to_an_external_chrome(external_chrome: ExternalChrome, form: str) -> None:
    ws_url = external_chrome.ws_url
    host_port = urlsplit(ws_url).netloc
    endpoint = {"ws": ws_url, "http": f"http://{host_port}", "host:port": host_port}[form]
    async with kobrowser.connect(endpoint, timeout=LONG) as browser:
        assert browser.pid is None
        version = await browser.cdp.send("Browser.getVersion")
        assert "Chrome" in version["product"]
        tab = await browser.new_tab()
        assert await evaluate(tab.cdp, "6 * 7") == 42
        target_id = tab.target_id

    # Leaving the block closed our tab and the connection, never the browser.
    assert external_chrome.process.poll() is None
    async with kobrowser.connect(ws_url, timeout=LONG) as again:
        with anyio.fail_after(SOON):
            while True:
                targets = (await again.cdp.send("Target.getTargets"))["targetInfos"]
                if all(info["targetId"] != target_id for info in targets):
                    break
                await anyio.sleep(0.05)
        assert any(info["type"] == "page" for info in targets)  # the browser's own tab


async def test_connect_to_nothing_fails_fast() -> None:
    with anyio.fail_after(SOON):
        with pytest.raises(ConnectionClosedError):
            async with kobrowser.connect("127.0.0.1:1", timeout=LONG):
                pytest.fail("connected to nothing")
        with pytest.raises(ConnectionClosedError, match="not a CDP endpoint"):
            async with kobrowser.connect("just some words", timeout=LONG):
                pytest.fail("connected to nothing")
