"""The native client (kobrowser/cli/_native/ko_browser.c) against the Python client.

No Chrome here: a fake daemon gives both clients the same reply. Checked:

* parsing: every command line the native client serves, it reads as the
  Python parser does (the request the daemon checks is the same); generated
  lines (``_argv.py``) and hand-picked awkward spellings;
* printing: for each reply (text, ``--json``, errors, odd Unicode, replies it
  hands over) both clients print the same bytes on stdout and stderr and exit
  with the same status, and the request reached the daemon once;
* what goes to the Python client: unknown commands, help, no daemon
  (the Python client starts one), an unknown locale, ``KOBROWSER_PYTHON_CLIENT=1``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from kobrowser.cli._client._parser import GLOBAL_OPTIONS, parse
from kobrowser.cli._daemon._requests import check_args

from .._argv import argv_strategy, leaf_commands
from .._native import PYTHON_CLIENT, FakeDaemon, Native, build_native, ok

#: The commands the native client serves (its COMMANDS table).
HOT = {
    ("snapshot",), ("get", "title"), ("get", "url"), ("get", "text"), ("get", "html"),
    ("get", "value"), ("get", "box"), ("get", "attr"), ("is", "visible"), ("is", "enabled"),
    ("is", "checked"), ("click",), ("dblclick",), ("hover",), ("focus",), ("check",),
    ("uncheck",), ("scrollintoview",), ("fill",), ("type",), ("press",), ("open",), ("back",),
    ("forward",), ("reload",), ("scroll",), ("tab", "list"), ("eval",),
}  # fmt: skip


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Native:
    built = build_native(tmp_path_factory.mktemp("native"))
    if built is None:
        pytest.skip("no C compiler: ko-browser is the Python client")
    return built


@pytest.fixture
def runtime() -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="kbn-", dir="/tmp"))  # a short socket path
    directory.chmod(0o700)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def _env(runtime: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOBROWSER_")}
    env.pop("PYTHONIOENCODING", None)
    env.update(KOBROWSER_RUNTIME_DIR=str(runtime), LC_ALL="C.UTF-8", KOBROWSER_IDLE_TIMEOUT="60")
    env.update(extra)
    return env


def _run(command: list[str], argv: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    done = subprocess.run(
        command + argv, env=env, capture_output=True, stdin=subprocess.DEVNULL, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


def test_the_hot_commands_exist_in_the_python_parser() -> None:
    assert set(leaf_commands()) >= HOT


# -- parsing ------------------------------------------------------------------------


def _dry_run(native: Native, argv: list[str], **env: str) -> dict[str, Any] | None:
    done = subprocess.run(
        native.command + argv,
        env={**os.environ, "KOBROWSER_NATIVE_DRY_RUN": "1", **env},
        capture_output=True,
        check=True,
    )
    parsed: dict[str, Any] | None = json.loads(done.stdout)
    return parsed


def _same_reading(native: Native, argv: list[str]) -> bool:
    """Assert the native reading of argv (if it has one) is Python's; True if it has one."""
    mine = _dry_run(native, argv)
    if mine is None:
        return False
    cmd, args, options = parse(argv)  # must not exit: the native client took it as good
    assert mine["cmd"] == cmd
    assert check_args(cmd, mine["args"]) == check_args(cmd, args), argv
    assert mine["session"] == options["session"]
    assert mine["json"] == options["json"]
    assert mine["timeout"] == options["timeout"]
    for name in GLOBAL_OPTIONS:
        if name not in ("session", "json", "timeout"):
            assert not options[name], (argv, name)
    return True


GOOD = [
    ["snapshot"],
    ["snapshot", "-i", "-c", "-d", "3", "-s", "#main", "--text-limit", "none", "--no-clickable"],
    ["snapshot", "--depth=0", "--selector=a b", "--text-limit=4", "--diff", "--json"],
    ["--session", "w-1.x", "--timeout", "2.5", "snapshot", "--timeout", "0.25", "-i"],
    ["--json", "get", "title"],
    ["get", "attr", "007", "href"],
    ["click", "5", "--right", "--double"],
    ["click", "--double", "5"],
    ["fill", "3", ""],
    ["fill", "3", "é \u00a0 中 \U0001f600 \"'\\\t\n"],
    ["type", "2", "hello", "--delay", "10"],
    ["press", "Control+a"],
    ["open", "example.com", "--wait-until", "networkidle"],
    ["scroll", "down"],
    ["scroll", "left", "120"],
    ["eval", "document.title"],
    ["tab", "list"],
]
#: Spellings the native client leaves to the Python client (which reads some of
#: them, refuses others).
AWKWARD = [
    [],
    ["--help"],
    ["snapshot", "--help"],
    ["snapshot", "-ic"],
    ["snapshot", "-d3"],
    ["snapshot", "--inter"],
    ["snapshot", "-d", "-1"],
    ["snapshot", "-d", " 3"],
    ["snapshot", "--text-limit", "3"],
    ["snapshot", "--text-limit", "NONE"],
    ["snapshot", "--depth="],
    ["snapshot", "--selector=-x"],
    ["snapshot", "--interactive=1"],
    ["snapshot", "extra"],
    ["click"],
    ["click", "0"],
    ["click", "x"],
    ["click", "5", "6"],
    ["click", "--", "5"],
    ["click", "\u0663"],
    ["click", "1" * 19],
    ["fill", "3", "-x"],
    ["fill", "3", "\udc80"],
    ["press", "-"],
    ["get"],
    ["get", "--json", "title"],
    ["get", "titl"],
    ["scroll", "sideways"],
    ["--timeout", "0", "get", "title"],
    ["--timeout", "nan", "get", "title"],
    ["--timeout", "1e3", "get", "title"],
    ["--timeout", ".5", "get", "title"],
    ["--session", "-x", "get", "title"],
    ["--session", "a/b", "get", "title"],
    ["--headed", "get", "title"],
    ["--ids", "stable", "snapshot"],
    ["close"],
    ["wait", "100"],
    ["batch"],
    ["session", "list"],
]


@pytest.mark.parametrize("argv", GOOD, ids=repr)
def test_a_good_line_is_read_as_python_reads_it(native: Native, argv: list[str]) -> None:
    assert _same_reading(native, argv)


@pytest.mark.parametrize("argv", AWKWARD, ids=repr)
def test_an_awkward_line_goes_to_the_python_client(native: Native, argv: list[str]) -> None:
    assert _dry_run(native, argv) is None


def test_an_invalid_session_variable_goes_to_the_python_client(native: Native) -> None:
    assert _dry_run(native, ["get", "title"], KOBROWSER_SESSION="a b") is None
    assert _dry_run(native, ["get", "title"], KOBROWSER_SESSION="work")["session"] == "work"  # type: ignore[index]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(argv=argv_strategy({w: p for w, p in leaf_commands().items() if w in HOT}))
def test_generated_lines_are_read_as_python_does(native: Native, argv: list[str]) -> None:
    _same_reading(native, argv)


# -- printing: the same reply, the same output ------------------------------------------


def _line(reply: dict[str, Any]) -> bytes:
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"


def _reply(**fields: Any) -> Any:
    def answer(request: dict[str, Any]) -> bytes:
        return _line({"v": 1, "id": request["id"], **fields})

    return answer


def _raw(text: str) -> Any:
    """A reply line given as text, with ID replaced by the request's id."""

    def answer(request: dict[str, Any]) -> bytes:
        return text.replace("ID", request["id"]).encode()

    return answer


SERVED = {  # served by the native client from start to end
    "text": _reply(ok=True, result={"title": "T"}, text="T"),
    "unicode text": _reply(ok=True, result={}, text="é\u00a0中\U0001f600\x00\x7f\r\n\t end"),
    "no text": _reply(ok=True, result={}),
    "null text": _reply(ok=True, result={}, text=None),
    "empty text": _reply(ok=True, result={}, text=""),
    "numbers": _reply(
        ok=True,
        result={
            "a": [1.5, -0.0, 1e-07, 1e22, 12345678901234567890, float("inf"), float("nan")],
            "b": {},
            "c": [],
            "d": [{"e": None, "f": True, "g": "x\u2028\ud800"}],
        },
        text="n",
    ),
    "no result": _reply(ok=True, text="t"),
    "error with hint": _reply(
        ok=False,
        error={
            "type": "StaleElementError",
            "message": "element 5 is gone...",
            "hint": "run  `ko-browser snapshot`\nagain",
            "exit": 1,
        },
    ),
    "error without hint": _reply(
        ok=False, error={"type": "UsageError", "message": "bad\u2003\u00a0 value\x1c.", "exit": 2}
    ),
    "error with an empty hint": _reply(
        ok=False, error={"type": "E", "message": "m.", "hint": "", "exit": 1}
    ),
    "error with an empty message": _reply(
        ok=False, error={"type": "E", "message": "", "hint": "h", "exit": 1}
    ),
    "error with exit 3": _reply(ok=False, error={"type": "E", "message": "m", "exit": 3}),
    "error with fields missing": _reply(ok=False, error={"message": "only this"}),
    "error with more fields": _reply(
        ok=False, error={"type": "E", "message": "m", "exit": 2, "extra": [1, {"x": 2}]}
    ),
    "no id": _raw('{"v":1,"ok":true,"text":"anonymous"}\n'),
    "spaces and a CR": _raw(' {"v": 1, "id": "ID", "ok": true, "text": "spaced"} \r\n'),
    "duplicate keys": _raw('{"v":1,"id":"ID","ok":false,"text":"x","ok":true}\n'),
    "closed before a line": _raw('{"v":1,"id":"ID","ok":tr'),
    "closed at once": _raw(""),
}
HANDED = {  # received by the native client, printed by the Python client
    "lone surrogate in the text": _reply(ok=True, result={}, text="a\ud800b"),
    "lone surrogate in a message": _reply(
        ok=False, error={"type": "E", "message": "m\udfff", "exit": 1}
    ),
    "NUL in a message": _reply(ok=False, error={"type": "E", "message": "a\x00b", "exit": 1}),
    "text not a string": _reply(ok=True, result={}, text=5),
    "ok not a bool": _reply(ok=1, result={}, text="t"),
    "no ok": _reply(result={}, text="t"),
    "empty error": _reply(ok=False, error={}),
    "no error": _reply(ok=False),
    "exit not whole": _reply(ok=False, error={"type": "E", "message": "m", "exit": 2.0}),
    "exit a bool": _reply(ok=False, error={"type": "E", "message": "m", "exit": True}),
    "hint not a string": _reply(ok=False, error={"type": "E", "message": "m", "hint": 1}),
    "other version": _raw('{"v":2,"id":"ID","ok":true,"text":"t"}\n'),
    "version 1.0": _raw('{"v":1.0,"id":"ID","ok":true,"text":"t"}\n'),
    "other id": _raw('{"v":1,"id":"other","ok":true,"text":"t"}\n'),
    "malformed": _raw('{"v":1,"id":"ID","ok":true,"text":"t",}\n'),
    "not an object": _raw("[1]\n"),
    "escaped key": _raw('{"v":1,"id":"ID","\\u006fk":false,"ok":true,"text":"t"}\n'),
    "raw UTF-8": _raw('{"v":1,"id":"ID","ok":true,"text":"\xe9"}\n'),
    "NaN version": _raw('{"v":NaN,"id":"ID","ok":true,"text":"t"}\n'),
}

#: Hand-overs of a text the native client prints only without --json.
TEXT_ONLY = {"lone surrogate in the text", "text not a string"}


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("case", [*SERVED, *HANDED])
def test_both_clients_print_a_reply_alike(
    native: Native, runtime: Path, case: str, as_json: bool
) -> None:
    answer = SERVED.get(case) or HANDED[case]
    daemon = FakeDaemon(runtime, answer)
    try:
        argv = ["--json", "get", "title"] if as_json else ["get", "title"]
        native.fallbacks()
        mine = _run(native.command, argv, _env(runtime))
        went = native.fallbacks()
        python = _run(PYTHON_CLIENT, argv, _env(runtime))
    finally:
        daemon.close()
    assert mine == python
    assert len(daemon.requests) == 2  # once each: a hand-over never sends it again
    assert daemon.requests[0]["cmd"] == "get.title"
    if case in SERVED or (as_json and case in TEXT_ONLY):
        assert went == []
    else:  # handed over: FD:ID of the request sent
        assert len(went) == 1 and went[0].endswith(f":{daemon.requests[0]['id']}"), went


def test_a_reply_past_the_deadline(native: Native, runtime: Path) -> None:
    daemon = FakeDaemon(runtime, lambda request: None)
    env = _env(runtime, KOBROWSER_ANSWER_GRACE="0")
    try:
        argv = ["--json", "--timeout", "0.3", "snapshot"]
        mine = _run(native.command, argv, env)
        python = _run(PYTHON_CLIENT, argv, env)
    finally:
        daemon.close()
    assert mine == python
    assert mine[0] == 1 and b"no answer from session 'default' within 0.3 s" in mine[2]
    assert native.fallbacks() == []


def test_a_large_snapshot_and_a_closed_stdout(native: Native, runtime: Path) -> None:
    text = "\n".join(f'{i}: button "B{i}"' for i in range(1, 60000))
    daemon = FakeDaemon(runtime, _reply(ok=True, result={}, text=text))
    try:
        mine = _run(native.command, ["snapshot"], _env(runtime))
        head = subprocess.run(
            " ".join(native.command) + " snapshot | head -c 10",
            shell=True, env=_env(runtime), capture_output=True, timeout=60,
        )  # fmt: skip
    finally:
        daemon.close()
    assert mine == (0, text.encode() + b"\n", b"")
    assert (head.returncode, head.stdout, head.stderr) == (0, text[:10].encode(), b"")


# -- what goes to the Python client ---------------------------------------------------------


def test_no_daemon_goes_to_the_python_client(native: Native, runtime: Path) -> None:
    """The Python client starts the session (here it fails: no such browser)."""
    env = _env(runtime, KOBROWSER_CHROME="/nonexistent/chrome")
    native.fallbacks()
    mine = _run(native.command, ["get", "title"], env)
    assert native.fallbacks() == ["run"]
    assert mine[0] == 1 and b"/nonexistent/chrome" in mine[2]


@pytest.mark.parametrize(
    "env",
    [
        {"KOBROWSER_PYTHON_CLIENT": "1"},
        {"PYTHONIOENCODING": "latin-1"},
        {"KOBROWSER_ANSWER_GRACE": "1e3"},
    ],
    ids=repr,
)
def test_what_the_native_client_leaves_to_python(
    native: Native, runtime: Path, env: dict[str, str]
) -> None:
    daemon = FakeDaemon(runtime, ok("T"))
    try:
        native.fallbacks()
        mine = _run(native.command, ["get", "title"], _env(runtime, **env))
    finally:
        daemon.close()
    assert native.fallbacks() == ["run"]
    assert mine[0] == 0 and mine[1] == b"T\n"


def test_a_private_runtime_directory_is_required(native: Native, runtime: Path) -> None:
    runtime.chmod(0o755)  # the Python client makes it private again
    daemon = FakeDaemon(runtime, ok("T"))
    try:
        native.fallbacks()
        first = _run(native.command, ["get", "title"], _env(runtime))
        went = native.fallbacks()
        second = _run(native.command, ["get", "title"], _env(runtime))
    finally:
        daemon.close()
    assert went == ["run"] and first == (0, b"T\n", b"")
    assert native.fallbacks() == [] and second == first
    assert runtime.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("client", ["python", "native"])
def test_text_only_is_asked_without_json_and_never_by_close(
    native: Native, runtime: Path, client: str
) -> None:
    """text_only leaves the result out; `close` never sends it, so it stops an older daemon."""
    command = native.command if client == "native" else PYTHON_CLIENT
    daemon = FakeDaemon(runtime, ok("closed"))
    try:
        for argv in (["snapshot"], ["--json", "snapshot"], ["close"]):
            assert _run(command, argv, _env(runtime))[0] == 0
    finally:
        daemon.close()
    assert [r["opts"] for r in daemon.requests] == [{"text_only": True}, {}, {}]
