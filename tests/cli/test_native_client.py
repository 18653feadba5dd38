"""The two `ko-browser` clients on one real daemon (Chromium): the same output.

The native client (built from ``kobrowser/cli/_native/ko_browser.c``) and
the Python client run the same command lines in turn against the module's
shared session: every hot command, its ``--json`` form, failures (exit 1,
one line on stderr) and bad usage (exit 2, which the native client leaves to
the Python client). Whether the native client served a command itself or ran
the Python client is checked too, so the comparison is never of Python with
itself.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _server import PageServer

from ._native import PYTHON_CLIENT, Native, build_native
from .conftest import Ko, Runtime

pytestmark = pytest.mark.timeout(300)

CLIENTS = ("python", "native")

PAGE = """<!doctype html><title>Both clients</title>
<label>Name <input id="name"></label>
<label><input type=checkbox> Agree</label>
<button onclick="document.getElementById('out').textContent =
  'Hello ' + document.getElementById('name').value">Greet</button>
<p id="out">nobody yet</p><a href="#x" title="the link">Link é 中</a>
<div style="height: 3000px">tall</div>
"""


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Native]:
    built = build_native(tmp_path_factory.mktemp("native"))
    if built is None:
        pytest.skip("no C compiler: ko-browser is the Python client")
    yield built


def _run(client: str, native: Native, runtime: Runtime, argv: list[str]) -> tuple[int, str, str]:
    command = native.command if client == "native" else PYTHON_CLIENT
    done = subprocess.run(
        command + argv,
        env=runtime.env(LC_ALL="C.UTF-8"),
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


#: Each line in turn, by both clients (the Python client first). Element ids
#: are those of PAGE's snapshot: 1 the text field, 2 the checkbox, 3 the button.
STEPS = [
    ["snapshot"],
    ["snapshot", "-i"],
    ["--json", "snapshot", "-i", "-c"],
    ["snapshot", "-d", "1", "--text-limit", "none", "--no-clickable"],
    ["snapshot", "-s", "p"],
    ["snapshot", "--diff"],
    ["get", "title"],
    ["--json", "get", "url"],
    ["fill", "1", "Ada é"],
    ["get", "value", "1"],
    ["type", "1", "!", "--delay", "0"],
    ["get", "attr", "4", "title"],
    ["--json", "get", "box", "3"],
    ["is", "checked", "2"],
    ["check", "2"],
    ["is", "checked", "2"],
    ["hover", "3"],
    ["focus", "1"],
    ["press", "End"],
    ["eval", "document.title + ' ' + 1.5"],
    ["--json", "eval", "[1.5, null, {a: 'x'}]"],
    ["scroll", "down", "100"],
    ["scrollintoview", "3"],
    ["tab", "list"],
    ["click", "99"],  # fails: one line, exit 1
    ["--json", "click", "99"],
    ["get", "text", "99"],
    ["press", "NoSuchKey"],
    ["--timeout", "5", "get", "title"],
]
#: Lines the native client leaves to the Python client.
PYTHON_ONLY = [
    ["click", "x"],  # bad usage: exit 2
    ["snapshot", "-ic"],
    ["find", "--role", "button"],
    ["wait", "10"],
]


@pytest.mark.shared_session
def test_both_clients_print_the_same(
    ko: Ko, runtime: Runtime, server: PageServer, native: Native
) -> None:
    ko.ok("open", server.set_page("/both.html", PAGE))
    native.fallbacks()
    for argv in STEPS:
        if "--diff" in argv:  # the first shows the change since `snapshot -s p`: not compared
            _run("python", native, runtime, argv)
        python = _run("python", native, runtime, argv)
        mine = _run("native", native, runtime, argv)
        assert mine == python, argv
        assert native.fallbacks() == [], argv  # served by the native client
    for argv in PYTHON_ONLY:
        python = _run("python", native, runtime, argv)
        mine = _run("native", native, runtime, argv)
        assert mine == python, argv
        assert native.fallbacks() == ["run"], argv


@pytest.mark.shared_session
@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_reads_the_page(
    ko: Ko, runtime: Runtime, server: PageServer, native: Native, client: str
) -> None:
    ko.ok("open", server.set_page("/both.html", PAGE))
    status, out, err = _run(client, native, runtime, ["snapshot", "-i"])
    assert (status, err) == (0, "")
    assert '3: button "Greet"' in out and "Link é 中" in out
    assert _run(client, native, runtime, ["fill", "1", "Lovelace"])[0] == 0
    assert _run(client, native, runtime, ["click", "3"])[0] == 0
    assert "Hello Lovelace" in _run(client, native, runtime, ["snapshot"])[1]


@pytest.mark.shared_session
@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_fails_with_one_line_and_its_status(
    ko: Ko, runtime: Runtime, server: PageServer, native: Native, client: str
) -> None:
    ko.ok("open", server.set_page("/both.html", PAGE))
    _run(client, native, runtime, ["snapshot"])
    status, out, err = _run(client, native, runtime, ["click", "99"])
    assert (status, out) == (1, "")
    assert err.startswith("ko-browser: there is no element 99") and err.count("\n") == 1
    status, out, err = _run(client, native, runtime, ["click", "0"])
    assert (status, out) == (2, "")
    assert err.startswith("ko-browser click: error: argument ID:")


def test_the_session_is_started_by_the_python_client(
    ko: Ko, runtime: Runtime, server: PageServer, native: Native, tmp_path: Path
) -> None:
    """No daemon yet: the native client runs the Python client, which starts one."""
    native.fallbacks()
    status, out, err = _run("native", native, runtime, ["open", server.set_page("/b.html", PAGE)])
    assert (status, err) == (0, "") and "Both clients" in out
    assert native.fallbacks() == ["run"]
    assert _run("native", native, runtime, ["get", "title"]) == (0, "Both clients\n", "")
    assert native.fallbacks() == []


@pytest.mark.shared_session
def test_a_text_only_request_gets_no_result(ko: Ko, runtime: Runtime, server: PageServer) -> None:
    """Without --json both clients send text_only: the snapshot's node tree is not built."""
    ko.ok("open", server.set_page("/both.html", PAGE))
    replies = {}
    for text_only in (False, True):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(60)
            sock.connect(str(runtime.path("default", "sock")))
            opts = {"text_only": True} if text_only else {}
            request = {"v": 1, "id": f"t-{text_only}-{time.time_ns()}", "cmd": "snapshot",
                       "args": {}, "opts": opts}  # fmt: skip
            sock.sendall(json.dumps(request).encode() + b"\n")
            replies[text_only] = json.loads(sock.makefile("rb").readline())
    assert replies[True]["ok"] and replies[True]["result"] == {}
    assert replies[True]["text"] == replies[False]["text"]
    assert '3: button "Greet"' in replies[True]["text"]
    assert replies[False]["result"]["nodes"]
