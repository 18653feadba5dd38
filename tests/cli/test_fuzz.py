"""Generated `ko-browser` command lines: exit 0, 1 or 2 and one readable line, never a crash.

The commands, flags and positionals come from the argparse parser (the
source of ``--help``), the values from pools of good and bad ones (see
``_argv.py``). Two budgets:

* every command, parsed only (no daemon): ``parse`` returns or exits 2
  with one ``error:`` line;
* the commands a session runs, against one live session (daemon and
  Chrome), in-process through ``kobrowser.cli.main`` so that a Python
  exception anywhere in the client fails the test with its traceback. A
  failing command prints exactly one line on stderr, which is never an
  internal error or a traceback.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.cli import main
from kobrowser.cli._client._parser import parse

from ._argv import TEXTS, argv_strategy, leaf_commands
from .conftest import Ko, Runtime, make_runtime

pytestmark = pytest.mark.timeout(300)

SESSION = "fuzz"
PAGE = """<!doctype html><title>Fuzz</title>
<button onclick="document.title = 'clicked'">Go</button>
<input aria-label=Name><input type=checkbox aria-label=Agree>
<select aria-label=Color><option>Red</option><option>Green</option></select>
<input type=file aria-label=File><a href="#x">Link</a>
<div style="height:3000px">tall</div>"""

ALL = leaf_commands()
#: Commands a live session runs in the fuzz: not the foreground ones (mcp
#: serves until stdin closes, view until Ctrl-C, scrape launches its own
#: Chrome, agent needs a model) and not `close` (each would cost a new Chrome).
SKIPPED = {("mcp",), ("agent",), ("close",), ("view",)}
LIVE = {words: parser for words, parser in ALL.items() if words not in SKIPPED}
#: Mostly a good short deadline (a bad one stops the command at the parser).
SECONDS = ["2"] * 8 + ["0.5", "0.01", "0", "-1", "nan", "inf", "x"]


def test_the_fuzz_covers_every_command_of_the_help() -> None:
    assert {"open", "click", "get", "wait", "tab", "batch", "scroll"} <= {w[0] for w in ALL}
    assert ("get", "attr") in ALL and ("tab", "switch") in ALL and ("session", "list") in ALL
    assert len(LIVE) == len(ALL) - len(SKIPPED)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=st.one_of(argv_strategy(ALL), st.lists(st.sampled_from(TEXTS), max_size=4)))
def test_any_command_line_parses_or_is_one_usage_error(argv: list[str]) -> None:
    err, sys.stderr = sys.stderr, io.StringIO()
    out, sys.stdout = sys.stdout, io.StringIO()
    try:
        parse(argv)
    except SystemExit as exc:
        printed = sys.stderr.getvalue()
        if exc.code == 0:  # --help
            return
        assert exc.code == 2, (argv, exc.code)
        lines = printed.splitlines()
        assert len(lines) == 1 and ": error: " in lines[0], (argv, printed)
    finally:
        sys.stderr, sys.stdout = err, out


class Live:
    def __init__(self, runtime: Runtime, url: str, tmp: Path) -> None:
        self.runtime = runtime
        self.url = url
        self.tmp = tmp


@pytest.fixture(scope="module")
def live(server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with make_runtime() as runtime:
        url = server.set_page("/fuzz.html", PAGE)
        Ko(runtime).ok("open", url, session=SESSION)
        yield Live(runtime, url, tmp_path_factory.mktemp("fuzz"))


def _pools(live: Live) -> dict[str, list[str]]:
    real = live.tmp / "upload.txt"
    real.write_text("hi")
    actions = live.tmp / "actions.txt"
    actions.write_text('snapshot\nclick 1\npress Nope\nfill 2 "x"\n')
    urls = [live.url, "about:blank", "data:text/html,<p>hi", "127.0.0.1:1/x", "", " "]
    urls += ["javascript:1", "http://[bad", "not a url", "\udc80", "file:///nonexistent"]
    return {
        "id": ["1", "2", "3", "5", "0", "-1", "x", "99", "1.5", ""],
        "int": ["0", "1", "10", "-1", "x", "1e3", "nan"],
        "url": urls,
        "files": [str(real), str(live.tmp / "missing.txt"), "", str(live.tmp)],
        "file": [str(actions), str(live.tmp / "missing.txt"), "-", str(live.tmp)],
        "key": ["Enter", "Tab", "Control+a", "NotAKey", "Control+", "", "a", "+", "\udc80"],
        "script": [
            "1 + 1",
            "document.title",
            "throw new Error('boom')",
            "{",
            "",
            "'\\ud800'",
            "undefined",
            "[1, {a: 2}]",
            "new Promise(r => setTimeout(r, 50))",
        ],
        "fn": ["true", "document.title", "0", "{", ""],
        "text": [*TEXTS, "Go"],
        "selector": ["button", "#nope", "", "[[", "input"],
        "name": ["href", "", "aria-label", "\udc80"],
        "values": ["Red", "Green", "Blue", ""],
        "index": ["1", "2", "0", "x", "9"],
        "source": ["1", "2", "0"],
        "target": ["1", "2", "x"],
        "direction": ["down", "up", "sideways"],
        "amount": ["100", "0", "-5", "x"],
    }


def _check_run(argv: list[str], code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in out + err, (argv, err)
    assert "internal error" not in err, (argv, err)
    if code:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("ko-browser"), (argv, err)
    else:
        assert err == "", (argv, err)


@pytest.mark.browser
def test_generated_command_lines_against_a_live_session(
    live: Live, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = live.runtime.env()
    for name in ("KOBROWSER_RUNTIME_DIR", "KOBROWSER_IDLE_TIMEOUT"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("KOBROWSER_SESSION", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.chdir(live.tmp)  # where `screenshot` without a path writes
    counts = {0: 0, 1: 0, 2: 0}

    @settings(
        max_examples=int(os.environ.get("KOBROWSER_FUZZ_EXAMPLES", "150")),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        database=None,
    )
    @given(
        argv=argv_strategy(LIVE, _pools(live), globals_=False),
        timeout=st.sampled_from(SECONDS),
        as_json=st.booleans(),
    )
    def run(argv: list[str], timeout: str, as_json: bool) -> None:
        # Always a short deadline: a wait for text that never comes ends soon.
        full = ["--session", SESSION, "--timeout", timeout, *(["--json"] if as_json else []), *argv]
        code = main(full)
        captured = capsys.readouterr()
        _check_run(full, code, captured.out, captured.err)
        counts[code] += 1

    run()
    print("exit statuses:", counts)
    # Every kind of outcome was seen: the fuzz did reach the browser.
    assert counts[0] and counts[1] and counts[2], counts
    # The session still answers (the fuzz may have closed every tab: open one).
    status = main(["--session", SESSION, "tab", "new", live.url])
    assert status == 0, capsys.readouterr().err
    assert main(["--session", SESSION, "get", "url"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == live.url
    log_path = live.runtime.path(SESSION, "log")
    # One daemon served the whole fuzz: a new one would have moved the log of
    # the one that died aside (and its traceback with it).
    earlier = log_path.with_name(log_path.name + ".1")
    assert not earlier.exists(), earlier.read_text(errors="replace")[-3000:]
    log = log_path.read_text(errors="replace")
    assert "internal error" not in log and "Traceback" not in log, log[-3000:]
