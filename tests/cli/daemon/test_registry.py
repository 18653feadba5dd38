"""The daemon's one table of commands (kobrowser.cli._daemon._registry): pure, no daemon."""

from __future__ import annotations

import inspect

import pytest

from kobrowser.cli._client._streaming import STREAMED
from kobrowser.cli._daemon._context import Args
from kobrowser.cli._daemon._registry import COMMANDS, SERVER_COMMANDS
from kobrowser.cli._daemon._requests import DAEMON_COMMANDS

#: The commands that change a tab: one at a time per session (the others, reads
#: and waits, answer while one of these runs).
SERIALIZED = {
    "open", "back", "forward", "reload", "snapshot", "find", "click", "dblclick", "hover",
    "focus", "fill", "type", "press", "select", "check", "uncheck", "upload", "drag",
    "scroll", "scrollintoview", "tab.new", "tab.switch", "tab.close", "eval",
    "batch", "agent", "cookies.set", "cookies.clear", "state.load", "set.viewport",
    "set.device", "set.offline", "set.headers", "set.geo", "set.media", "set.locale",
    "set.timezone", "set.useragent", "set.permissions", "set.reset",
    "record.start", "record.stop",  # the session's one recording: one change at a time
}  # fmt: skip


def test_every_command_of_the_parser_has_one_function() -> None:
    assert set(COMMANDS) | SERVER_COMMANDS == DAEMON_COMMANDS
    assert not set(COMMANDS) & SERVER_COMMANDS
    for name, command in COMMANDS.items():
        assert inspect.iscoroutinefunction(command.run), name


def test_what_runs_one_at_a_time_and_what_streams() -> None:
    assert {name for name, c in COMMANDS.items() if c.serialized} == SERIALIZED
    streaming = {name for name, c in COMMANDS.items() if c.streaming}
    assert streaming == {"batch", "agent", "view"} == set(STREAMED)


def test_args_are_read_by_type() -> None:
    args = Args(
        {"id": 5, "text": "hi", "flag": True, "depth": None, "values": ["a"], "scale": 2,
         "headers": {"a": "b"}, "load": "networkidle"}
    )  # fmt: skip
    assert args.whole("id") == 5
    assert args.optional_whole("depth") is None and args.optional_whole("missing") is None
    assert args.text("text") == "hi" and args.optional_text("depth") is None
    assert args.flag("flag") is True
    assert args.texts("values") == ["a"] and args.optional_texts("depth") is None
    assert args.number("scale") == 2.0 and isinstance(args.number("scale"), float)
    assert args.text_map("headers") == {"a": "b"}
    assert args.load_state("load") == "networkidle"


@pytest.mark.parametrize(
    ("read", "key"),
    [
        (Args.whole, "flag"),  # a bool is not a whole number
        (Args.whole, "text"),
        (Args.whole, "depth"),
        (Args.text, "id"),
        (Args.flag, "id"),
        (Args.texts, "depth"),
        (Args.texts, "mixed"),
        (Args.number, "flag"),
        (Args.text_map, "values"),
        (Args.load_state, "text"),
    ],
)
def test_a_read_of_another_type_is_a_bug_not_bad_input(read: object, key: str) -> None:
    args = Args({"id": 5, "text": "hi", "flag": True, "depth": None, "values": ["a"],
                 "mixed": ["a", 1]})  # fmt: skip
    with pytest.raises(TypeError, match=repr(key)):
        read(args, key)  # type: ignore[operator]
