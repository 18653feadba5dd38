"""`ko-browser view`: the session's tab live in a page, opened in a second Chromium by kobrowser.

An action made through the CLI shows in the view's log and picture; a click
made on the view's picture reaches the page; off loopback the view needs a
token (refused to start without one; 401 for a request without it or with
a wrong one); on loopback a foreign Host or Origin is refused.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import urllib.error
import urllib.request

import anyio
import pytest
from _server import PageServer

import kobrowser

from ..conftest import Ko
from ..test_cli import FORM, find_id, one_line_error

pytestmark = pytest.mark.timeout(300)

COUNTER = """<!doctype html><title>Counter</title>
<style>button{position:fixed;inset:0;width:100%;height:100%;font-size:48px}</style>
<button onclick="this.textContent = 'clicked ' + (++window.n)">start</button>
<script>window.n = 0</script>"""

TOKEN = "a-test-token-of-32-characters-xx"


def _first_line(process: subprocess.Popen[str], timeout: float = 120.0) -> str:
    """The view's first stdout line (its URL), read in a thread with a hang guard."""
    box: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        box.append(process.stdout.readline().strip())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    assert box and box[0], f"no URL line; exit {process.poll()}"
    return box[0]


def _stop(process: subprocess.Popen[str]) -> int:
    """Stop the view as a service manager does (SIGTERM); its exit status."""
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 0, errors
    return process.returncode


def _get(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> int:
    """The status of a request (0: nothing listens there any more)."""
    request = urllib.request.Request(url, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except urllib.error.URLError:
        return 0


def _port(url: str) -> int:
    match = re.match(r"http://[^/]+:(\d+)/", url)
    assert match, url
    return int(match.group(1))


@pytest.mark.anyio
async def test_cli_actions_show_live_and_a_click_on_the_picture_reaches_the_page(
    ko: Ko, server: PageServer
) -> None:
    ko.ok("open", server.set_page("/counter.html", COUNTER))
    button = find_id(ko.ok("snapshot"), r'button "start"')
    process = ko.popen("view")
    try:
        url = _first_line(process)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url), url
        async with kobrowser.launch(timeout=60) as second:
            viewer = await second.new_tab(url)
            await viewer.wait_for_selector("#picture", state="visible")
            before = await viewer.evaluate("document.getElementById('picture').src")

            await anyio.to_thread.run_sync(ko.ok, "click", str(button))
            await viewer.wait_for_text(f"1. click {button}")
            # The picture follows the page (the button now reads "clicked 1").
            await viewer.wait_for_function(
                f"document.getElementById('picture').src !== {json.dumps(before)}"
            )
            seen = await viewer.snapshot(text_limit=None)
            entries = [e.name for e in seen.id_map.values() if re.match(r"\d+\. ", e.name)]
            assert len(entries) == 1 and re.fullmatch(
                rf"1\. click {button} \(\d+ ms\)", entries[0]
            ), entries
            # The latest snapshot of the session, with its ids.
            assert f'{button}: button "start"' in seen.text

            # A person's click on the picture: at its centre, where the button is.
            picture = next(e for e in seen.id_map.values() if e.name == "Live page")
            await viewer.click(picture.id)
            await viewer.wait_for_text("2. (person) click at")
            await viewer.wait_for_function(
                "document.getElementById('status').textContent.startsWith('you have control')"
            )
            handed = await viewer.snapshot()
            back = next(e for e in handed.id_map.values() if e.name == "Hand back")
            await viewer.click(back.id)
            await viewer.wait_for_function(
                "document.getElementById('status').textContent === 'live'"
            )
        # The page got both clicks: the CLI's and the person's.
        assert ko.ok("eval", "window.n") == "2\n"
    finally:
        assert _stop(process) == 0
    # The view closes with its command (the daemon sees the client gone at a heartbeat).
    with anyio.fail_after(60):  # a hang guard only
        while await anyio.to_thread.run_sync(_get, url) == 200:  # noqa: ASYNC110 - another process
            await anyio.sleep(0.2)


def test_off_loopback_without_a_token_is_refused(ko: Ko) -> None:
    result = ko("view", "--host", "0.0.0.0")
    assert result.returncode == 2
    assert "not a loopback address: give a token" in one_line_error(result)
    short = ko("view", "--host", "0.0.0.0", "--token", "short")
    assert short.returncode == 2 and "at least 16 characters" in one_line_error(short)


def test_off_loopback_every_request_needs_the_token(ko: Ko, server: PageServer) -> None:
    ko.ok("open", server.set_page("/counter.html", COUNTER))
    process = ko.popen("view", "--host", "0.0.0.0", "--token", TOKEN)
    try:
        url = _first_line(process)
        assert re.fullmatch(rf"http://0\.0\.0\.0:\d+/\?token={TOKEN}", url), url
        base = f"http://127.0.0.1:{_port(url)}/"
        assert _get(base) == 401
        assert _get(base + "?token=wrong-token-of-32-characters-xxx") == 401
        assert _get(base, {"Authorization": "Bearer wrong"}) == 401
        assert _get(base + "events?token=nope") == 401
        assert _get(base + f"?token={TOKEN}") == 200
        assert _get(base, {"Authorization": f"Bearer {TOKEN}"}) == 200
        # Input without the token never reaches the page.
        click = json.dumps({"type": "click", "x": 10, "y": 10}).encode()
        typed = {"Content-Type": "application/json"}
        assert _get(base + "input", typed, click) == 401
    finally:
        assert _stop(process) == 0
    assert ko.ok("eval", "window.n") == "0\n"


def test_on_loopback_a_foreign_host_or_origin_is_refused(ko: Ko, server: PageServer) -> None:
    ko.ok("open", server.set_page("/counter.html", COUNTER))
    process = ko.popen("view")
    try:
        url = _first_line(process)
        port = _port(url)
        assert _get(url) == 200
        assert _get(url, {"Host": f"evil.example:{port}"}) == 403
        click = json.dumps({"type": "click", "x": 10, "y": 10}).encode()
        typed = {"Content-Type": "application/json"}
        assert _get(url + "input", {**typed, "Origin": "http://evil.example"}, click) == 403
        # A form post (not JSON) is refused even from the view's own origin.
        form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": url.rstrip("/")}
        assert _get(url + "input", form, b"type=click") == 415
        assert _get(url + "control", {**typed, "Origin": url.rstrip("/")}, b'{"take": 1}') == 400
    finally:
        assert _stop(process) == 0
    assert ko.ok("eval", "window.n") == "0\n"


@pytest.mark.shared_session  # the client sends the key: nothing of the daemon's start
def test_agent_view_prints_its_url_first_and_closes_with_the_run(
    ko: Ko, server: PageServer
) -> None:
    from _fake_openai import FakeChat

    from .test_batch_agent import agent_argv, greet_policy

    chat = FakeChat(server, greet_policy)
    ko.ok("open", server.set_page("/form.html", FORM))
    result = ko(*agent_argv(chat, "--view"), env={"FAKE_KEY": "sk-cli"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", lines[0]), lines
    assert lines[1].startswith("1. fill ") and lines[-1] == "Hello Ada"
    assert _get(lines[0]) == 0  # closed with the run
