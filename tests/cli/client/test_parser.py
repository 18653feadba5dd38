"""The command line itself: parsing, usage errors, help; no daemon involved."""

from __future__ import annotations

import pytest

from kobrowser.cli._client._parser import build_parser, command_word, parse


def test_click_options_map_onto_the_library_arguments() -> None:
    cmd, args, options = parse(["click", "5", "--right", "--double"])
    assert cmd == "click"
    assert args == {"id": 5, "button": "right", "click_count": 2}
    assert options["session"] == "default"


def test_plain_click_passes_no_button() -> None:
    assert parse(["click", "7"])[1] == {"id": 7}


def test_the_ids_option() -> None:
    assert parse(["--ids", "stable", "snapshot"])[2]["ids"] == "stable"
    assert parse(["snapshot"])[2]["ids"] is None  # the session's (depth-first when it starts)
    with pytest.raises(SystemExit):
        parse(["--ids", "random", "snapshot"])


def test_global_options_before_and_after_the_command() -> None:
    _, _, before = parse(["--session", "a", "--json", "--timeout", "5", "get", "title"])
    _, _, after = parse(["get", "title", "--session", "a", "--json", "--timeout", "5"])
    assert before == after
    assert before["session"] == "a" and before["json"] is True and before["timeout"] == 5.0


def test_snapshot_flags() -> None:
    cmd, args, _ = parse(["snapshot", "-i", "-c", "-d", "3", "-s", "#main"])
    assert cmd == "snapshot"
    assert args == {
        "interactive": True,
        "compact": True,
        "depth": 3,
        "selector": "#main",
        "text_limit": 80,
        "clickable": True,
        "diff": False,
    }
    assert parse(["snapshot", "--text-limit", "none", "--no-clickable", "--diff"])[1] == {
        "interactive": False,
        "compact": False,
        "depth": None,
        "selector": None,
        "text_limit": None,
        "clickable": False,
        "diff": True,
    }
    assert parse(["snapshot", "--text-limit", "NONE"])[1]["text_limit"] is None
    assert parse(["snapshot", "--text-limit", "4"])[1]["text_limit"] == 4


def test_find_flags() -> None:
    cmd, args, _ = parse(["find", "--role", "button", "--name", "Pay", "--exact"])
    assert cmd == "find"
    assert args == {"role": "button", "name": "Pay", "text": None, "exact": True}
    assert parse(["find", "--text", "total"])[1] == {
        "role": None,
        "name": None,
        "text": "total",
        "exact": False,
    }


def test_find_without_a_criterion_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["find"], ["find", "--exact"]):
        with pytest.raises(SystemExit) as info:
            parse(argv)
        assert info.value.code == 2
        assert "find needs at least one of --role, --name, --text" in capsys.readouterr().err


def test_nested_commands() -> None:
    assert parse(["get", "attr", "4", "href"])[:2] == ("get.attr", {"id": 4, "name": "href"})
    assert parse(["is", "checked", "9"])[:2] == ("is.checked", {"id": 9})
    assert parse(["tab", "close"])[:2] == ("tab.close", {"index": None})
    assert parse(["select", "3", "a", "b"])[1] == {"id": 3, "values": ["a", "b"]}


def test_wait_takes_one_condition() -> None:
    assert parse(["wait", "500"])[1]["ms"] == 500
    assert parse(["wait", "--selector", "#x", "--state", "hidden"])[1]["state"] == "hidden"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["click"],
        ["click", "abc"],
        ["click", "0"],
        ["click", "-3"],
        ["get"],
        ["get", "attr", "4"],
        ["wait"],
        ["wait", "100", "--text", "x"],
        ["wait", "--state", "hidden"],
        ["scroll", "sideways"],
        ["snapshot", "-d", "-1"],
        ["snapshot", "--text-limit", "3"],
        ["snapshot", "--text-limit", "0"],
        ["snapshot", "--text-limit", "all"],
        ["snapshot", "--text-limit"],
        ["find", "--role"],
        ["--session", "../evil", "get", "url"],
        ["--timeout", "0", "get", "url"],
    ],
)
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        parse(argv)
    assert info.value.code == 2
    assert "error:" in capsys.readouterr().err


def _commands(parser: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    import argparse

    found = []
    assert isinstance(parser, argparse.ArgumentParser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((*prefix, name))
                found += _commands(sub, (*prefix, name))
    return found


def test_every_command_of_the_issue_exists() -> None:
    commands = {" ".join(c) for c in _commands(build_parser())}
    wanted = [
        *("open", "back", "forward", "reload", "snapshot", "click", "dblclick", "hover"),
        *("focus", "fill", "type", "press", "select", "check", "uncheck", "upload", "drag"),
        *("scroll", "scrollintoview", "get", "text", "html", "value", "attr", "box", "title"),
        *("url", "is", "visible", "enabled", "checked", "wait", "tab", "list", "new", "switch"),
        *("close", "eval", "session", "find"),
    ]
    for word in wanted:
        assert any(word in c.split() for c in commands), word
    for pair in ["get text", "get title", "is visible", "tab switch", "session list"]:
        assert pair in commands


@pytest.mark.parametrize("command", _commands(build_parser()), ids=" ".join)
def test_every_command_has_help(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        parse([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ko-browser " + " ".join(command))
    assert "--session" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--session", "s1", "click", "3", "--right"],
        ["--timeout=5", "get", "attr", "2", "href", "--json"],
        ["--cdp", "get", "wait", "500"],  # an option value that looks like a command
        ["tab", "new", "example.com"],
    ],
)
def test_the_one_command_parser_equals_the_full_parser(argv: list[str]) -> None:
    full = vars(build_parser().parse_args(argv))
    assert command_word(argv) in {"click", "get", "wait", "tab"}
    assert vars(build_parser(only=command_word(argv)).parse_args(argv)) == full


def test_mcp_diff_replies_and_stable_ids() -> None:
    cmd, args, options = parse(["mcp", "--snapshot", "diff", "--ids", "stable"])
    assert (cmd, args["snapshot"], options["ids"]) == ("mcp", "diff", "stable")


def test_a_commands_own_option_is_not_an_abbreviation_of_a_global_one() -> None:
    # `--id` is screenshot's; `--ids` and `--idle-timeout` are global options.
    assert parse(["screenshot", "x.png", "--id", "5"])[1]["id"] == 5
    assert parse(["--ids", "stable", "screenshot", "--id", "5"])[2]["ids"] == "stable"
    assert parse(["--idle", "60", "get", "title"])[2]["idle_timeout"] == 60.0  # abbreviations stay
    with pytest.raises(SystemExit):
        parse(["--id", "5", "get", "title"])  # before the command: ambiguous
