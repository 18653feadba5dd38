"""The argparse types of every parser: the library's rules, its wording, no import when good."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import kobrowser
from kobrowser import _validate
from kobrowser.cli._client import _argtypes as types
from kobrowser.cli._client._parser import parse
from kobrowser.cli._scrape import build_parser as scrape_parser

#: type, the library rule that must accept whatever the type gives.
TYPES: list[tuple[str, Callable[[str], Any], Callable[[Any], Any]]] = [
    ("whole(0)", types.whole(0), lambda v: _validate.whole(v, "x", 0)),
    ("whole(1)", types.whole(1), lambda v: _validate.whole(v, "x", 1)),
    ("whole(100, 599)", types.whole(100, 599), lambda v: _validate.whole(v, "x", 100, 599)),
    (
        "whole(4, none)",
        types.whole(4, none=True),
        lambda v: v is None or _validate.whole(v, "x", 4),
    ),
    ("number()", types.number(), lambda v: _validate.number(v, "x")),
    ("number(0.1, 2)", types.number(0.1, 2.0), lambda v: _validate.number(v, "x", 0.1, 2.0)),
    ("seconds", types.seconds, lambda v: _validate.seconds(v, "x", positive=True)),
    ("element_id", types.element_id, lambda v: _validate.element_id(v, "x")),
]
TEXTS = ["0", "1", "3", "4", "5", " 7 ", "99", "100", "599", "600", "-1", "+5", "5_0", "1.5"]
TEXTS += ["1e3", "nan", "inf", "-inf", "x", "", " ", "none", "None", "\u00b2", "\u0665", "0.05"]


@pytest.mark.parametrize(("name", "convert", "rule"), TYPES, ids=[t[0] for t in TYPES])
@settings(max_examples=examples(200), deadline=None)
@given(text=st.one_of(st.sampled_from(TEXTS), st.text(max_size=8)))
def test_a_type_gives_what_the_rule_accepts_or_the_rules_message(
    name: str, convert: Callable[[str], Any], rule: Callable[[Any], Any], text: str
) -> None:
    try:
        value = convert(text)
    except argparse.ArgumentTypeError as exc:
        message = str(exc)
        shown = repr(text) if len(repr(text)) <= 60 else repr(text)[:56]  # long texts are cut
        assert message.startswith(f"got {shown}") and "; expected " in message, message
        assert "\n" not in message
    else:
        rule(value)  # raises if the type let through what the library refuses


@pytest.mark.parametrize(
    ("convert", "text", "value"),
    [
        (types.whole(0), "0", 0),
        (types.whole(0), " 12 ", 12),
        (types.whole(1, none=True), "NONE", None),
        (types.whole(100, 599), "599", 599),
        (types.number(), "-12.5", -12.5),
        (types.number(0.1, 2.0), "0.1", 0.1),
        (types.seconds, "0.5", 0.5),
        (types.element_id, "7", 7),
        (types.on_off, "YES", True),
        (types.on_off, "0", False),
        (types.header, "X-A: b", "X-A: b"),
        (types.json_headers, '{"X-A": "b"}', {"X-A": "b"}),
        (types.session_name, "work-2", "work-2"),
    ],
)
def test_good_texts(convert: Callable[[str], Any], text: str, value: Any) -> None:
    assert convert(text) == value


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["snapshot", "-d", "x"], "argument -d/--depth: got 'x'; expected a whole number >= 0"),
        (
            ["snapshot", "--text-limit", "3"],
            "argument --text-limit: got '3'; expected a whole number >= 4, or none",
        ),
        (
            ["--timeout", "0", "get", "url"],
            "argument --timeout: got '0'; expected a number of seconds > 0 (not NaN or infinite)",
        ),
        (
            ["click", "+5"],
            "argument ID: got '+5'; expected an element id from the latest snapshot: "
            "a whole number >= 1",
        ),
        (["tab", "switch", "0"], "argument N: got '0'; expected a whole number >= 1"),
        (
            ["pdf", "a.pdf", "--scale", "3"],
            "argument --scale: got '3'; expected a number from 0.1 to 2 (not NaN or infinite)",
        ),
        (
            ["set", "geo", "nan", "1"],
            "argument LAT: got 'nan'; expected a number of degrees (not NaN or infinite)",
        ),
        (
            ["network", "route", "**", "--status", "99"],
            "argument --status: got '99'; expected a whole number from 100 to 599",
        ),
        (["set", "viewport", "0", "600"], "argument WIDTH: got '0'; expected a whole number >= 1"),
        (
            ["--session", "../evil", "get", "url"],
            "argument --session: got '../evil'; expected a session name: letters, digits, "
            "'_', '.', '-' (up to 64)",
        ),
        (["set", "offline", "maybe"], "argument on|off: got 'maybe'; expected on or off"),
        (
            ["set", "headers", "[1]"],
            "argument JSON: got '[1]'; expected a JSON object of strings, e.g. "
            '\'{"X-Token": "abc"}\'',
        ),
        (
            ["network", "route", "**", "--header", "nocolon"],
            "argument --header: got 'nocolon'; expected a header NAME:VALUE, e.g. 'X-Token: abc'",
        ),
    ],
)
def test_the_parser_says_the_rules_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        parse(argv)
    assert info.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"error: {message} (see `ko-browser " in line, line


def test_scrape_per_host_takes_any_whole_number_from_1_or_none(tmp_path: Path) -> None:
    parser = scrape_parser()
    assert parser.parse_args(["urls.txt", "--per-host", "2"]).per_host == 2
    assert parser.parse_args(["urls.txt", "--per-host", "none"]).per_host is None
    assert parser.parse_args(["urls.txt"]).per_host == 2
    assert parser.parse_args(["urls.txt", "--text-limit", "none"]).text_limit is None
    assert parser.parse_args(["urls.txt", "--timeout", "1.5"]).timeout == 1.5


def test_a_good_command_line_does_not_import_the_rules() -> None:
    """The client's parser runs on the standard library: the rules load only to word an error."""
    package = Path(kobrowser.__file__).parent
    code = f"""
import sys, types
pkg = types.ModuleType("kobrowser"); pkg.__path__ = [{str(package)!r}]
sys.modules["kobrowser"] = pkg  # skip the library's own __init__
from kobrowser.cli._client._parser import parse
parse(["--timeout", "5", "--idle-timeout", "9", "snapshot", "-d", "2", "--text-limit", "none"])
parse(["click", "3"]); parse(["pdf", "a.pdf", "--scale", "0.5"]); parse(["set", "geo", "1", "2"])
parse(["--session", "w1", "set", "offline", "on"]); parse(["set", "headers", '{{"a": "b"}}'])
parse(["network", "route", "**", "--status", "200", "--header", "a: b"])
print("kobrowser._validate" in sys.modules)
try:
    parse(["click", "0"])
except SystemExit:
    print("kobrowser._validate" in sys.modules)
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "True"], result.stderr
    assert "expected an element id" in result.stderr


def test_a_rule_called_without_a_name_words_the_value_only() -> None:
    with pytest.raises(kobrowser.InvalidArgumentError) as info:
        _validate.whole("x", "", 1)
    assert str(info.value) == "got 'x'; expected a whole number >= 1"
    assert info.value.argument is None
