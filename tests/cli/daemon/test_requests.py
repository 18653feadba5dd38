"""The daemon's request checks (kobrowser.cli._daemon._requests) against the parser: no daemon."""

from __future__ import annotations

import io
import math
import sys
from typing import Any

import pytest
from _examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kobrowser.cli._client._parser import parse
from kobrowser.cli._daemon._requests import DAEMON_COMMANDS, RequestError, check_request
from kobrowser.cli._protocol import PROTOCOL_VERSION

from .._argv import argv_strategy, leaf_commands

COMMANDS = {w: p for w, p in leaf_commands().items() if w[0] not in ("mcp", "session")}


def client_args(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
    """What the client sends for parsed ``args`` (batch and agent are prepared)."""
    args = dict(args)
    if cmd == "batch":
        args.pop("file")
        args.update(text="click 1\n", source="stdin")
    if cmd == "agent":
        for key in ("model", "base_url", "api_key_env", "secret"):
            args.pop(key)
        args.update(model="m", base_url=None, api_key="k", secrets={})
    return args


def request(cmd: str, args: Any, **more: Any) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": "r-1", "cmd": cmd, "args": args, "opts": {}, **more}


def test_every_command_of_the_parser_is_a_daemon_command() -> None:
    names = {".".join(words) for words in COMMANDS}
    assert names | {"status"} == DAEMON_COMMANDS
    assert "mcp" not in DAEMON_COMMANDS and "session.list" not in DAEMON_COMMANDS


@settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(argv=argv_strategy(COMMANDS))
def test_what_the_parser_accepts_the_daemon_accepts_unchanged(argv: list[str]) -> None:
    stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        cmd, args, options = parse(argv)
    except SystemExit as exc:
        assert exc.code == 2
        return
    finally:
        sys.stderr = stderr
    sent = client_args(cmd, args)
    request_id, checked_cmd, checked, opts = check_request(
        request(cmd, sent, opts={"timeout": options["timeout"]})
    )
    assert (request_id, checked_cmd) == ("r-1", cmd)
    assert checked == sent
    assert opts["timeout"] == options["timeout"]


@pytest.mark.parametrize(
    ("cmd", "args", "wanted"),
    [
        ("click", {"id": "5"}, "argument 'id'"),
        ("click", {"id": True}, "argument 'id'"),
        ("click", {"id": 0}, "expected an element id from the latest snapshot"),
        ("click", {"id": 1.5}, "argument 'id'"),
        ("click", {}, "'id' is missing"),
        ("click", {"id": 1, "button": "back"}, "button"),
        ("click", {"id": 1, "click_count": 3}, "click_count"),
        ("click", {"id": 1, "force": True}, "unknown argument 'force'"),
        ("fill", {"id": 1, "text": 5}, "expected a string"),
        ("select", {"id": 1, "values": []}, "list"),
        ("select", {"id": 1, "values": "a"}, "list"),
        ("scroll", {"direction": "sideways", "amount": None}, "is not one of"),
        ("snapshot", {"depth": -1}, "argument 'depth'"),
        ("snapshot", {"interactive": "yes"}, "true or false"),
        ("wait", {"ms": 5, "text": "x"}, "exactly one"),
        ("wait", {}, "exactly one"),
        ("get.attr", {"id": 1}, "'name' is missing"),
        ("batch", {"text": "click 1"}, "'source' is missing"),
        ("batch", {"file": "-", "text": "x", "source": "s"}, "unknown argument 'file'"),
        ("status", {"x": 1}, "no arguments"),
        ("open", [], "args must be an object"),
    ],
)
def test_bad_arguments_are_refused(cmd: str, args: Any, wanted: str) -> None:
    with pytest.raises(RequestError, match=wanted):
        check_request(request(cmd, args))


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        ({"v": 1, "id": "a", "cmd": "nope"}, "unknown command"),
        ({"v": 1, "id": "a", "cmd": "mcp"}, "unknown command"),
        ({"v": 1, "id": "a", "cmd": 5}, "unknown command"),
        ({"v": 1, "cmd": "status"}, "needs an id"),
        ({"v": 1, "id": "", "cmd": "status"}, "needs an id"),
        ({"v": 1, "id": "x" * 201, "cmd": "status"}, "needs an id"),
        ({"v": 1, "id": ["a"], "cmd": "status"}, "needs an id"),
        ({"v": 1, "id": "a", "cmd": "status", "extra": 1}, "unknown field"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"timeout": -1}}, "opts.timeout"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"timeout": math.nan}}, "opts.timeout"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"timeout": True}}, "opts.timeout"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"retry": 1}}, "unknown option"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"text_only": 1}}, "opts.text_only"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"start": {"headed": 1}}}, "headed"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": {"start": {"x": 1}}}, "unknown key"),
        ({"v": 1, "id": "a", "cmd": "status", "opts": []}, "opts must be an object"),
    ],
)
def test_bad_requests_are_refused(message: dict[str, Any], wanted: str) -> None:
    with pytest.raises(RequestError, match=wanted):
        check_request(message)


def test_defaults_are_filled_in() -> None:
    _, _, args, opts = check_request(request("snapshot", {}))
    wanted = {"interactive": False, "compact": False, "depth": None, "selector": None}
    assert wanted.items() <= args.items()
    assert opts == {"timeout": None}
    _, _, args, _ = check_request(request("status", None))
    assert args == {}
    _, _, _, opts = check_request(request("snapshot", {}, opts={"text_only": True}))
    assert opts == {"timeout": None, "text_only": True}
    _, _, _, opts = check_request(request("snapshot", {}, opts={"text_only": False}))
    assert opts == {"timeout": None}


@settings(max_examples=examples(300), deadline=None)
@given(
    cmd=st.sampled_from(sorted(DAEMON_COMMANDS)),
    args=st.dictionaries(
        st.sampled_from(["id", "text", "values", "ms", "url", "x", "key", "depth", "file"]),
        st.one_of(
            st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
            st.lists(st.integers(), max_size=2),
        ),
        max_size=4,
    ),
)  # fmt: skip
def test_any_args_are_accepted_or_refused_with_one_line(cmd: str, args: dict[str, Any]) -> None:
    try:
        check_request(request(cmd, args))
    except RequestError as exc:
        assert "\n" not in str(exc) and str(exc)
