"""Unit tests of the argument checks (kobrowser._validate): pure, no browser."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
from _examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import kobrowser
from kobrowser import InvalidArgumentError, KoBrowserError
from kobrowser import _validate as v
from kobrowser._tab._pagestate import LOAD_STATES
from kobrowser.cli._client import _parser as cli_parser


def test_the_error_is_a_kobrowser_error_and_a_value_error() -> None:
    assert issubclass(InvalidArgumentError, KoBrowserError)
    assert issubclass(InvalidArgumentError, ValueError)
    assert issubclass(kobrowser.ActionSyntaxError, InvalidArgumentError)
    assert issubclass(kobrowser.InvalidSelectorError, InvalidArgumentError)
    assert issubclass(kobrowser.InvalidSelectorError, kobrowser.SnapshotError)
    error = InvalidArgumentError("x: got 1; expected 2", argument="x")
    assert error.argument == "x"
    assert InvalidArgumentError("plain").argument is None
    assert kobrowser.ActionSyntaxError("bad", line=2, column=3).argument == "text"


def test_load_states_match_the_library() -> None:
    assert v.LOAD_STATES == LOAD_STATES
    # The client's parser keeps its own copies (it imports no library module).
    assert cli_parser.LOAD_STATES == LOAD_STATES
    assert sorted(cli_parser.SELECTOR_STATES) == sorted(v.SELECTOR_STATES)


@pytest.mark.parametrize(
    "bad",
    [
        *(float("nan"), float("inf"), -float("inf"), -1, -0.001, True, False, "5", b"5", [5], 1j),
        *(10**400, -(10**400)),  # beyond a float: an error, not OverflowError
    ],
)
def test_bad_timeouts(bad: Any) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        v.check(timeout=bad)
    assert info.value.argument == "timeout"
    message = str(info.value)
    assert message.startswith("timeout: got ")
    assert "seconds >= 0" in message and "NaN" in message


@pytest.mark.parametrize("good", [None, 0, 0.0, 1, 2.5, 1e6])
def test_good_timeouts(good: Any) -> None:
    v.check(timeout=good)
    assert v.timeout(good) == (None if good is None else float(good))


def test_positive_seconds() -> None:
    assert v.seconds(3) == 3.0
    with pytest.raises(InvalidArgumentError, match=r"timeout: got 0; expected .* > 0"):
        v.seconds(0, positive=True)
    with pytest.raises(InvalidArgumentError, match="wait: got inf"):
        v.seconds(math.inf, "wait")
    with pytest.raises(InvalidArgumentError, match="wait: got 1000"):
        v.seconds(10**400, "wait", positive=True)
    assert v.seconds(2**1000) == float(2**1000)  # an int a float holds is fine


@pytest.mark.parametrize("keyword", ["ms", "x"])
def test_numbers_beyond_a_float_are_refused_not_overflowing(keyword: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        v.number(10**400, keyword)
    assert info.value.argument == keyword
    assert v.number(-(2**1000), keyword) == -float(2**1000)


@pytest.mark.parametrize("bad", [0, -1, True, False, 1.0, "3", None, 2**63 * -1])
def test_bad_element_ids(bad: Any) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        v.check(element_id=bad)
    assert info.value.argument == "element_id"
    assert f"got {bad!r}" in str(info.value)
    assert "whole number >= 1" in str(info.value)


def test_good_element_ids() -> None:
    for good in (1, 5, 10**9):
        v.check(element_id=good, source_id=good, target_id=good)


def test_each_id_argument_is_named() -> None:
    with pytest.raises(InvalidArgumentError, match=r"^target_id: got 0"):
        v.check(source_id=1, target_id=0)


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://example.com", True),
        ("about:blank", True),
        ("data:text/html,<p>x", True),
        ("http://127.0.0.1:8000/x", True),
        ("file:///tmp/x.html", True),
        ("example.com", False),
        ("/relative/path", False),
        ("", False),
        ("   ", False),
        ("//example.com", False),
        ("1http://x", False),
    ],
)
def test_urls_need_a_scheme(url: str, ok: bool) -> None:
    if ok:
        v.check(url=url)
        return
    with pytest.raises(InvalidArgumentError) as info:
        v.check(url=url)
    assert info.value.argument == "url"
    assert repr(url) in str(info.value)


def test_lone_surrogates_are_refused_with_their_position() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        v.check(text="ab\udc80c")
    message = str(info.value)
    assert message.startswith("text: got 'ab\\udc80c'")
    assert "index 2" in message and "surrogate" in message
    v.check(text="emoji \U0001f600")


def test_keys() -> None:
    for good in ("Enter", "a", "Control+a", "Control++", "+", "Shift+ArrowLeft", "F5"):
        v.check(key=good)
    with pytest.raises(InvalidArgumentError) as info:
        v.check(key="NotAKey")
    assert info.value.argument == "key"
    assert "'NotAKey'" in str(info.value) and "Enter" in str(info.value)
    for bad in ("", "Control+", "Hyper+a", 5, None, "Control+Nope"):
        with pytest.raises(InvalidArgumentError, match=r"^key: "):
            v.check(key=bad)


def test_keyboard_module_raises_the_argument_error() -> None:
    from kobrowser._validate._keys import parse_combo, resolve_key

    with pytest.raises(InvalidArgumentError):
        resolve_key("Nope")
    with pytest.raises(InvalidArgumentError):
        parse_combo("Hyper+a")


def test_choices_list_what_is_accepted() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        v.check(direction="sideways")
    assert str(info.value) == (
        "direction: got 'sideways'; expected one of 'up', 'down', 'left', 'right'"
    )
    with pytest.raises(InvalidArgumentError, match="'networkidle'"):
        v.check(wait_until="idle")
    with pytest.raises(InvalidArgumentError, match=r"^state: .*'hidden'"):
        v.check(selector_state="gone")
    with pytest.raises(InvalidArgumentError, match=r"^button: .*'middle'"):
        v.check(button="back")


def test_selectors() -> None:
    v.check(selector="#a > b", scope=None)
    for bad in ("", "   ", None, 3):
        with pytest.raises(InvalidArgumentError, match=r"^selector: got "):
            v.check(selector=bad)
    with pytest.raises(InvalidArgumentError, match=r"^selector: got ''"):
        v.check(scope="")


def test_snapshot_options() -> None:
    v.check(interactive=True, compact=False, depth=None)
    v.check(depth=0)
    for keyword, bad in (("interactive", 1), ("compact", "yes"), ("depth", -1), ("depth", True)):
        with pytest.raises(InvalidArgumentError, match=rf"^{keyword}: got "):
            v.check(**{keyword: bad})


def test_numbers() -> None:
    v.check(amount=0, delay=0, ms=0, steps=1, click_count=2)
    cases = [
        ("amount", -1),
        ("amount", math.nan),
        ("delay", 10_001),
        ("delay", math.inf),
        ("ms", -5),
        ("steps", 0),
        ("steps", 1001),
        ("click_count", 11),
        ("click_count", 1.0),
    ]
    for keyword, bad in cases:
        with pytest.raises(InvalidArgumentError, match=rf"^{keyword}: got "):
            v.check(**{keyword: bad})


def test_modifiers() -> None:
    v.check(modifiers=["Shift", "ctrl", "cmd"])
    v.check(modifiers=())
    for bad in ("Shift", ["Hyper"], [1], None):
        with pytest.raises(InvalidArgumentError, match=r"^modifiers: got "):
            v.check(modifiers=bad)


def test_values_and_names() -> None:
    v.check(values=("a", "b"), name="href")
    for bad in ((), [], ("a", 3), "ab"):
        with pytest.raises(InvalidArgumentError, match=r"^values: got "):
            v.check(values=bad)
    with pytest.raises(InvalidArgumentError, match=r"^name: got ''"):
        v.check(name="")


def test_files(tmp_path: Path) -> None:
    real = tmp_path / "a.txt"
    real.write_text("x")
    assert v.existing_files([real, str(real)]) == [str(real), str(real)]
    assert v.existing_files([]) == []
    assert v.existing_files(real) == [os.path.abspath(real)]  # one path alone
    with pytest.raises(InvalidArgumentError) as info:
        v.existing_files([real, tmp_path / "missing.txt"])
    assert info.value.argument == "files"
    assert "missing.txt" in str(info.value) and "no such file" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="files: got"):
        v.existing_files([3])
    with pytest.raises(InvalidArgumentError, match="no such file"):
        v.existing_files([tmp_path])  # a directory is not a file
    with pytest.raises(InvalidArgumentError, match="files: got"):
        v.existing_files(["bad\0name"])


def test_launch_and_connect_options() -> None:
    good: dict[str, Any] = {
        "headless": True,
        "executable_path": None,
        "args": [],
        "timeout": 30.0,
        "no_sandbox": None,
        "download_dir": None,
        "transport": None,
    }
    v.launch_options(**good)
    cases = [
        ("timeout", 0),
        ("timeout", math.inf),
        ("args", "--foo"),
        ("args", [3]),
        ("transport", "carrier-pigeon"),
        ("headless", "no"),
        ("executable_path", 5),
    ]
    for keyword, bad in cases:
        with pytest.raises(InvalidArgumentError, match=rf"^{keyword}: got "):
            v.launch_options(**{**good, keyword: bad})
    v.connect_options(endpoint="127.0.0.1:9222", timeout=5, download_dir=None)
    with pytest.raises(InvalidArgumentError, match=r"^endpoint: got ''"):
        v.connect_options(endpoint="", timeout=5, download_dir=None)


def test_launch_refuses_before_looking_for_chrome() -> None:
    with pytest.raises(InvalidArgumentError, match=r"^timeout: got nan"):
        kobrowser.launch(timeout=math.nan, executable_path="/nonexistent/chrome")
    with pytest.raises(InvalidArgumentError, match=r"^timeout: got -1"):
        kobrowser.connect("127.0.0.1:1", timeout=-1)


def test_long_values_are_cut_in_messages() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        v.check(url="x" * 10_000)
    message = str(info.value)
    assert len(message) < 300
    assert "(10000 characters)" in message


def test_every_rule_has_a_message_naming_argument_value_and_what_is_accepted() -> None:
    errors = v.argument_errors()
    assert [keyword for keyword, _ in errors] == list(v.RULES)
    for keyword, message in errors:
        argument = v.RULES[keyword][1]
        assert message.startswith(f"{argument}: "), message
        assert re.search(r"expected|use ", message), message
        assert "\n" not in message


@settings(max_examples=examples(300), deadline=None)
@given(
    keyword=st.sampled_from(sorted(v.RULES)),
    value=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(),
        st.binary(max_size=8),
        st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=3),
        st.tuples(st.text(max_size=5)),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
)
def test_a_rule_accepts_or_raises_the_argument_error(keyword: str, value: Any) -> None:
    """Whatever the value, a rule passes it or raises InvalidArgumentError naming it."""
    try:
        v.check(**{keyword: value})
    except InvalidArgumentError as exc:
        assert exc.argument == v.RULES[keyword][1]
        assert str(exc).startswith(f"{exc.argument}: ")


def test_parse_snapshot_refuses_what_is_not_snapshot_text() -> None:
    with pytest.raises(InvalidArgumentError, match=r"^text: got int") as info:
        kobrowser.parse_snapshot(5)  # type: ignore[arg-type]
    assert info.value.argument == "text"
    with pytest.raises(InvalidArgumentError, match=r"^line 1: ") as info:
        kobrowser.parse_snapshot("x")
    assert info.value.argument == "text" and isinstance(info.value, ValueError)
