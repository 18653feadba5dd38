"""The session daemon survives anything a client sends (one real daemon and Chrome).

Garbage bytes, malformed JSON, requests that break the protocol or the
command line's rules, a huge line, a truncated line, a client that leaves
mid-request, two clients at once: each gets an error reply or a closed
connection, the daemon keeps serving, the page is untouched, and no request
runs twice. Hypothesis drives the generated part with a fixed budget.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.cli._protocol import MAX_LINE, PROTOCOL_VERSION

from ..conftest import Ko, Runtime, make_runtime

# Every test talks to a live daemon (the module fixture `wire`), which drives Chrome.
pytestmark = [pytest.mark.timeout(300), pytest.mark.browser]

SESSION = "wire"
PAGE = """<!doctype html><title>Wire</title><button>Go</button><input aria-label=Name>
<script>
  window.events = 0;
  for (const kind of ['keydown', 'mousedown', 'input', 'wheel', 'focusin'])
    document.addEventListener(kind, () => { window.events++; }, true);
</script>"""


class Wire:
    """One daemon; raw connections to its socket."""

    def __init__(self, runtime: Runtime, ko: Ko, url: str) -> None:
        self.runtime = runtime
        self.ko = ko
        self.url = url
        self.path = str(runtime.path(SESSION, "sock"))
        self.count = 0

    def connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(60)
        sock.connect(self.path)
        return sock

    def new_id(self) -> str:
        self.count += 1
        return f"wire-{time.time_ns()}-{self.count}"

    @staticmethod
    def read_line(sock: socket.socket) -> bytes:
        """One line from the daemon, or b"" when it closed the connection first."""
        data = b""
        while not data.endswith(b"\n"):
            try:
                chunk = sock.recv(1 << 16)
            except ConnectionResetError:
                return b""
            if not chunk:
                return b""
            data += chunk
        return data

    def exchange(self, raw: bytes) -> dict[str, Any] | None:
        """Send raw bytes on a new connection; the reply, or None if it was closed."""
        with self.connect() as sock:
            sock.sendall(raw)
            line = self.read_line(sock)
        if not line:
            return None
        assert line.count(b"\n") == 1, line[:200]
        reply = json.loads(line)
        assert isinstance(reply, dict) and reply.get("v") == PROTOCOL_VERSION
        return reply

    def request(self, cmd: str, args: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
        message = {"v": PROTOCOL_VERSION, "id": self.new_id(), "cmd": cmd, "args": args or {}}
        message.update(more)
        reply = self.exchange(json.dumps(message).encode() + b"\n")
        assert reply is not None
        return reply

    def js(self, script: str) -> Any:
        reply = self.request("eval", {"script": script})
        assert reply["ok"], reply
        return reply["result"]["value"]

    def assert_healthy_and_untouched(self) -> None:
        status = self.request("status")
        assert status["ok"] and not status["result"]["stopping"], status
        assert self.js("location.href") == self.url
        assert self.js("window.events") == 0
        log = self.runtime.path(SESSION, "log").read_text(errors="replace")
        assert "internal error" not in log and "Traceback" not in log, log[-2000:]


@pytest.fixture(scope="module")
def wire(server: Any) -> Iterator[Wire]:
    with make_runtime() as runtime:
        ko = Ko(runtime)
        url = server.set_page("/wire.html", PAGE)
        ko.ok("open", url, session=SESSION)
        yield Wire(runtime, ko, url)


def assert_refused(reply: dict[str, Any] | None) -> None:
    """An error reply (or a closed connection), never a crash or an internal error."""
    if reply is None:
        return
    assert reply["ok"] is False, reply
    error = reply["error"]
    assert error["type"] not in ("InternalError",), error
    assert "internal error" not in error["message"], error
    assert error.get("exit") in (1, 2), error
    assert "\n" not in error["message"]


@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.binary(max_size=300))
def test_garbage_bytes_get_an_error_reply(wire: Wire, data: bytes) -> None:
    line = data.replace(b"\n", b" ") + b"\n"
    assert_refused(wire.exchange(line))


def _valid() -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": "x", "cmd": "click", "args": {"id": 1}, "opts": {}}


#: One-step breakages of a valid request; none of them may run anything.
BROKEN = st.one_of(
    st.builds(lambda k, v: {**_valid(), k: v}, st.sampled_from(["v", "id", "cmd", "args", "opts"]),
              st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers()))),
    st.builds(lambda k: {key: val for key, val in _valid().items() if key != k},
              st.sampled_from(["v", "id", "cmd"])),
    st.builds(lambda k, v: {**_valid(), "args": {"id": 1, k: v}},
              st.text(min_size=1, max_size=8).filter(lambda k: k != "id"), st.integers()),
    st.builds(lambda v: {**_valid(), "args": {"id": v}},
              st.one_of(st.booleans(), st.floats(), st.text(max_size=4), st.integers(max_value=0))),
    st.builds(lambda k: {**_valid(), k: 1}, st.text(min_size=1, max_size=6).filter(
        lambda k: k not in ("v", "id", "cmd", "args", "opts"))),
    st.builds(lambda t: {**_valid(), "opts": {"timeout": t}},
              st.one_of(st.just(float("nan")), st.just(float("inf")), st.floats(max_value=0),
                        st.text(max_size=3), st.booleans())),
    st.builds(lambda c: {**_valid(), "cmd": c},
              st.sampled_from(["mcp", "session.list", "scrape", "", "CLICK", "get", "tab"])),
)  # fmt: skip


@settings(
    max_examples=examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(message=BROKEN)
def test_broken_requests_are_refused_and_run_nothing(wire: Wire, message: dict[str, Any]) -> None:
    if isinstance(message.get("id"), str):
        message["id"] = wire.new_id()  # never refused as a repeat: refused for what is wrong
    reply = wire.exchange(json.dumps(message).encode() + b"\n")
    assert reply is not None
    assert_refused(reply)


def test_after_the_fuzz_the_daemon_serves_and_the_page_is_untouched(wire: Wire) -> None:
    wire.assert_healthy_and_untouched()


def test_malformed_json_and_odd_encodings(wire: Wire) -> None:
    lines = [
        b"{\n",
        b"[" * 100_000 + b"\n",  # deeper than the JSON parser goes
        b'{"v": 1, "id": "a", "cmd": "status"' + b"\n",
        b'{"v": 1, "id": "\xff\xfe", "cmd": "status"}\n',  # not UTF-8
        b'{"v": 1e999, "id": "a", "cmd": "status"}\n',
        b'{"v": NaN, "id": "a", "cmd": "status"}\n',
        b'{"v": 1, "id": "' + b"9" * 5000 + b'", "cmd": "status"}\n',
        b'{"v": 1, "id": 12345678901234567890123456789, "cmd": "status"}\n',
        b'{"v": 1, "v": 2, "id": "a", "cmd": "status"}\n',
        b"\x00\x01\x02\n",
        b"\n",
        b"null\n",
        json.dumps({"v": 2, "id": "a", "cmd": "status"}).encode() + b"\n",
    ]
    for line in lines:
        reply = wire.exchange(line)
        assert reply is not None, line[:40]
        assert_refused(reply)
    wire.assert_healthy_and_untouched()


def test_a_line_over_the_limit_is_refused_and_the_connection_closed(wire: Wire) -> None:
    with wire.connect() as sock:
        chunk = b"a" * (1 << 20)
        try:
            for _ in range(MAX_LINE // len(chunk) + 2):
                sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon closed it while we were still sending
        line = wire.read_line(sock)
        if line:
            reply = json.loads(line)
            assert reply["ok"] is False and "too long" in reply["error"]["message"]
            assert wire.read_line(sock) == b""  # then it closed the connection
    wire.assert_healthy_and_untouched()


def test_a_truncated_request_never_runs(wire: Wire) -> None:
    request = {"v": 1, "id": wire.new_id(), "cmd": "eval", "args": {"script": "window.cut = 1"}}
    with wire.connect() as sock:
        sock.sendall(json.dumps(request).encode())  # no newline: never a whole request
        sock.shutdown(socket.SHUT_WR)
        assert wire.read_line(sock) == b""
    with wire.connect() as sock:
        sock.sendall(json.dumps(request).encode()[:30])  # cut in the middle, then gone
    assert wire.js("window.cut === undefined") is True
    wire.assert_healthy_and_untouched()


def test_a_client_that_leaves_mid_request_and_a_repeat_never_run_twice(wire: Wire) -> None:
    script = "window.ran = (window.ran || 0) + 1; new Promise(r => setTimeout(r, 300))"
    request = {"v": 1, "id": wire.new_id(), "cmd": "eval", "args": {"script": script}}
    raw = json.dumps(request).encode() + b"\n"
    with wire.connect() as sock:
        sock.sendall(raw)  # and leave before the answer
    deadline = time.monotonic() + 30
    while wire.js("window.ran || 0") == 0:
        assert time.monotonic() < deadline, "the request never ran"
        time.sleep(0.05)
    again = wire.exchange(raw)
    assert again is not None and again["ok"] is False
    assert again["error"]["type"] == "DuplicateRequest"
    time.sleep(0.5)
    assert wire.js("window.ran") == 1
    wire.assert_healthy_and_untouched()


def test_two_clients_at_once(wire: Wire) -> None:
    replies: dict[str, dict[str, Any] | None] = {}

    def ask(name: str, cmd: str, args: dict[str, Any]) -> None:
        message = {"v": 1, "id": wire.new_id() + name, "cmd": cmd, "args": args}
        replies[name] = wire.exchange(json.dumps(message).encode() + b"\n")

    threads = [
        threading.Thread(target=ask, args=("slow", "wait", {"ms": 400})),
        threading.Thread(target=ask, args=("eval", "eval", {"script": "1 + 1"})),
        threading.Thread(target=ask, args=("status", "status", {})),
        threading.Thread(target=ask, args=("bad", "click", {"id": "one"})),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert replies["slow"] is not None and replies["slow"]["ok"], replies
    assert replies["eval"] is not None and replies["eval"]["result"]["value"] == 2
    assert replies["status"] is not None and replies["status"]["ok"]
    assert_refused(replies["bad"])
    wire.assert_healthy_and_untouched()


def test_several_requests_on_one_connection_and_silent_connections(wire: Wire) -> None:
    for _ in range(20):
        wire.connect().close()  # connect and leave without a word
    with wire.connect() as sock:
        first = {"v": 1, "id": wire.new_id(), "cmd": "eval", "args": {"script": "3"}}
        second = {"v": 1, "id": wire.new_id(), "cmd": "click", "args": {"id": 0}}
        third = {"v": 1, "id": wire.new_id(), "cmd": "status"}
        sock.sendall(b"".join(json.dumps(m).encode() + b"\n" for m in (first, second, third)))
        data = b""
        while data.count(b"\n") < 3:
            chunk = sock.recv(1 << 16)
            assert chunk, data
            data += chunk
        answers = [json.loads(line) for line in data.splitlines()]
    assert answers[0]["ok"] and answers[0]["result"]["value"] == 3
    assert answers[1]["ok"] is False and answers[1]["error"]["exit"] == 2
    assert answers[2]["ok"]
    wire.assert_healthy_and_untouched()
