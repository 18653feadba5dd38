"""The command line of `ko-browser`: argparse subcommands -> one request.

Standard library only: the client builds this parser on every command.

Here: the global options, the command table and parsing; the arguments of
each command are defined beside it (the page commands in
:mod:`._parser_page`, cookies/state/set in :mod:`._parser_state`, network
and console in :mod:`._parser_network`; batch, agent and mcp here).
"""

from __future__ import annotations

import argparse
import os
import sys

from kobrowser.cli._client._argtypes import (
    proxy_url,
    resource_types,
    seconds,
    session_name,
    whole,
)
from kobrowser.cli._client._parser_network import network_commands
from kobrowser.cli._client._parser_page import LOAD_STATES, SELECTOR_STATES, page_commands
from kobrowser.cli._client._parser_state import DEFAULT_SUBCOMMAND, state_commands
from kobrowser.cli._protocol import DEFAULT_SESSION

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    Define = Callable[[argparse.ArgumentParser], None]

__all__ = [
    "COMMANDS",
    "GLOBAL_OPTIONS",
    "LOAD_STATES",
    "SELECTOR_STATES",
    "Parser",
    "build_parser",
    "check_combinations",
    "command_index",
    "command_word",
    "parse",
]

#: Destinations of the global options (everything else is a command argument).
GLOBAL_OPTIONS = (
    "session",
    "headed",
    "json",
    "timeout",
    "executable_path",
    "cdp",
    "idle_timeout",
    "proxy",
    "block",
    "ids",
)

_EPILOG = """\
Ids are the numbers of the latest `ko-browser snapshot` of the current tab.
The first command of a session starts a background daemon that keeps Chrome
open; `ko-browser close` stops both. Exit status: 0 success, 1 the command
failed (one line on stderr says what to do), 2 bad usage.

`ko-browser scrape URLS_FILE -o out.jsonl` scrapes many URLs in the
foreground, without a session (see `ko-browser scrape --help`).
"""


class _Version(argparse.Action):
    """``--version``: print ``ko-browser <version>`` on stdout and exit 0.

    The version is read only then, from the package's ``__init__`` (which
    loads no library module but the exceptions).
    """

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None
    ) -> None:
        from kobrowser import __version__

        sys.stdout.write(f"ko-browser {__version__}\n")
        parser.exit(0)


def _add_globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Global options; on subcommands they default to SUPPRESS so they never
    overwrite a value given before the subcommand."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    group = parser.add_argument_group("global options")
    if top:
        group.add_argument("--version", action=_Version, help="print the version and exit")
    group.add_argument(
        "--session",
        type=session_name,
        default=default(os.environ.get("KOBROWSER_SESSION") or DEFAULT_SESSION),
        metavar="NAME",
        help="session to use: each has its own daemon and Chrome "
        "(default: $KOBROWSER_SESSION or 'default')",
    )
    group.add_argument(
        "--headed",
        action="store_true",
        default=default(False),
        help="show the browser window (when this command starts the session)",
    )
    group.add_argument(
        "--json",
        action="store_true",
        default=default(False),
        help="print one JSON object instead of text",
    )
    group.add_argument(
        "--timeout",
        type=seconds,
        default=default(None),
        metavar="SECONDS",
        help="deadline of this command (default: 30 s)",
    )
    group.add_argument(
        "--executable-path",
        default=default(None),
        metavar="PATH",
        help="Chrome/Chromium to launch (when this command starts the session)",
    )
    group.add_argument(
        "--cdp",
        default=default(None),
        metavar="ENDPOINT",
        help="drive a running Chrome instead of launching one: ws://..., http://host:port "
        "or host:port (when this command starts the session)",
    )
    group.add_argument(
        "--idle-timeout",
        type=seconds,
        default=default(None),
        metavar="SECONDS",
        help="stop the daemon and Chrome after this long without a command "
        "(default: $KOBROWSER_IDLE_TIMEOUT or 1800)",
    )
    group.add_argument(
        "--proxy",
        type=proxy_url,
        default=default(None),
        metavar="URL",
        help="send the browser's traffic through this proxy: http://[user:password@]host:port, "
        "https://..., socks5://host:port (when this command starts the session)",
    )
    group.add_argument(
        "--block",
        type=resource_types,
        default=default(None),
        metavar="TYPES",
        help="never load these resource types, e.g. image,font,media "
        "(when this command starts the session)",
    )
    group.add_argument(
        "--ids",
        choices=("depth-first", "stable"),
        default=default(None),
        help="how snapshots number elements: depth-first (1, 2, 3... renumbered by every "
        "snapshot; the default) or stable (an element keeps its id while it exists) "
        "(when this command starts the session)",
    )


def one_line(text: str) -> str:
    """``text`` on one line: line breaks and other control characters escaped."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


class Parser(argparse.ArgumentParser):
    """A parser whose usage error is one line and exit status 2 (the usage is in --help).

    Every ``ko-browser`` parser is one (``ko-browser scrape``'s too), so bad
    usage reads the same everywhere::

        ko-browser tab switch: error: argument N: got '0'; ... (see `ko-browser tab switch --help`)
    """

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see `{self.prog} --help`)\n")

    def _get_option_tuples(self, option_string: str) -> list[Any]:
        # An option a command defines exactly (`screenshot --id N`) is that
        # command's: never read, before the command takes it, as this
        # parser's abbreviation of a longer global option (`--ids`, `--idle-timeout`).
        if option_string.split("=", 1)[0] in _command_options(self):
            return []
        return list(super()._get_option_tuples(option_string))


def _command_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings of every command below ``parser`` (its subparsers', nested)."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found.update(sub._option_string_actions)
                found.update(_command_options(sub))
    return found


def _sub(
    parent: Any, name: str, help: str, cmd: str, define: Define | None = None
) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = parent.add_parser(name, help=help, description=help)
    _add_globals(sub, top=False)
    sub.set_defaults(_cmd=cmd)
    if define is not None:
        define(sub)
    return sub


def _group(children: list[tuple[str, str, Define | None]], title: str, prefix: str) -> Define:
    """A command with its own subcommands (get text, tab list, ...)."""

    def define(sub: argparse.ArgumentParser) -> None:
        nested = sub.add_subparsers(title=title, metavar=title.upper(), parser_class=Parser)
        nested.required = prefix not in DEFAULT_SUBCOMMAND
        for name, help, child in children:
            _sub(nested, name, help, f"{prefix}.{name}", child)

    return define


def _mcp(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--port", type=whole(0), default=None, metavar="N",
        help="serve streamable HTTP on port N (0: any free port) instead of stdio",
    )  # fmt: skip
    sub.add_argument(
        "--host", default=None, metavar="HOST",
        help="with --port: address to bind (default 127.0.0.1, local clients only; "
        "any other than loopback needs a token)",
    )  # fmt: skip
    sub.add_argument(
        "--token", default=None, metavar="TOKEN",
        help="with --port: every request must send Authorization: Bearer TOKEN "
        "(default: the environment variable KOBROWSER_MCP_TOKEN, if set)",
    )  # fmt: skip
    sub.add_argument(
        "--snapshot", choices=("full", "interactive", "diff", "none"), default="interactive",
        help="what every action replies with (default: interactive; diff: what changed "
        "since the last reply, the whole snapshot first and after navigation)",
    )  # fmt: skip
    _policy(sub)
    sub.add_argument(
        "--tools", choices=("all", "core"), default="all",
        help="all tools (default), or core: navigation, snapshot, element actions, tabs, wait",
    )  # fmt: skip
    sub.add_argument(
        "--allow-upload-from", default=None, metavar="DIR",
        help="let the upload tool take files from DIR (default: uploads refused)",
    )  # fmt: skip
    sub.add_argument(
        "--view", action="store_true",
        help="also serve a live view of the browser on 127.0.0.1 (its URL is said on stderr)",
    )  # fmt: skip
    sub.add_argument(
        "--trace-dir", default=None, metavar="DIR",
        help="write the session's every action as an HTML trace into DIR when it stops",
    )  # fmt: skip


def _policy(sub: argparse.ArgumentParser, *, evaluate: bool = True) -> None:
    """The safety options of the model-facing commands (see docs/security.md).

    ``evaluate``: offer ``--allow-evaluate`` (the MCP server's evaluate tool; the
    agent's action grammar has no such verb).
    """
    if evaluate:
        sub.add_argument(
            "--allow-evaluate", action="store_true",
            help="offer the JavaScript evaluate tool (default: off)",
        )  # fmt: skip
    sub.add_argument(
        "--allow-origin", action="append", default=None, metavar="PATTERN",
        help="load only URLs matching a PATTERN (repeatable; e.g. 'https://*.example.com')",
    )  # fmt: skip
    sub.add_argument(
        "--block-origin", action="append", default=None, metavar="PATTERN",
        help="never load URLs matching PATTERN (repeatable; wins over --allow-origin)",
    )  # fmt: skip
    sub.add_argument(
        "--allow-file-access", default=None, metavar="DIR",
        help="let file:// URLs show files under DIR (default: file:// refused)",
    )  # fmt: skip
    sub.add_argument(
        "--download-dir", default=None, metavar="DIR",
        help="put every download in DIR (default: the browser's temporary directory, "
        "removed when it closes)",
    )  # fmt: skip
    sub.add_argument(
        "--secret", action="append", default=None, metavar="NAME",
        help="a secret the model fills as {{NAME}} without seeing it, read from the "
        "environment variable KOBROWSER_SECRET_NAME (repeatable)",
    )  # fmt: skip


def _trace_start(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--title", default=None, metavar="TEXT", help="the trace page's heading")


def _trace_stop(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("path", metavar="FILE", help="the HTML file to write (e.g. run.html)")


def _view(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--port", type=whole(0), default=0, metavar="N", help="the port (default 0: any free one)"
    )
    sub.add_argument(
        "--host", default=None, metavar="HOST",
        help="address to bind (default 127.0.0.1; any other than loopback needs a token)",
    )  # fmt: skip
    sub.add_argument(
        "--token", default=None, metavar="TOKEN",
        help="every request must carry TOKEN (the printed URL has it; default: the "
        "environment variable KOBROWSER_VIEW_TOKEN, if set)",
    )  # fmt: skip


def _batch(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="action lines (default -: stdin)"
    )
    sub.add_argument(
        "--keep-going", action="store_true", help="run the other actions after one fails"
    )


def _agent(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("goal", metavar="GOAL", help="what to achieve, in words")
    sub.add_argument("--model", default=None, metavar="NAME", help="default: $KOBROWSER_MODEL")
    sub.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1 "
        "(default: $OPENAI_BASE_URL, else OpenAI)",
    )
    sub.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="environment variable that holds the API key (default: OPENAI_API_KEY)",
    )
    sub.add_argument("--max-steps", type=whole(1), default=30, metavar="N", help="default: 30")
    sub.add_argument(
        "-i", "--interactive", action="store_true", help="show the model the -i snapshot"
    )
    sub.add_argument(
        "--trace", default=None, metavar="FILE",
        help="write the run as one HTML page: each step's picture, snapshot, requests, reply",
    )  # fmt: skip
    sub.add_argument(
        "--view", action="store_true",
        help="show the run live in a local web page (its URL is the first line)",
    )  # fmt: skip
    _policy(sub, evaluate=False)


def _record_start(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--format", choices=("webm", "mp4"), default="webm",
        help="WebM (VP8, the default) or MP4 (H.264); `record stop` names a file of it",
    )  # fmt: skip
    sub.add_argument(
        "--size", default=None, metavar="WxH",
        help="video size in pixels (default: the viewport, fit in 800x800)",
    )  # fmt: skip
    sub.add_argument(
        "--fps", type=whole(1, 60), default=25, metavar="N", help="frames a second (default 25)"
    )


def _record_stop(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("path", metavar="FILE", help="where the video goes (.webm or .mp4)")


#: name -> (help, how to define its arguments); the parser is built lazily
#: from this table (only the command on the command line, when it is known).
COMMANDS: dict[str, tuple[str, Define | None]] = {
    **page_commands(_group),
    "batch": ('run action lines (click 5, fill 3 "hi", ...) from FILE or stdin', _batch),
    "agent": ("let a language model reach GOAL in the current tab", _agent),
    "close": ("close the session: its Chrome and daemon", None),
    "view": (
        "show the session's current tab live in a local web page, until Ctrl-C "
        "(prints its URL first; a person can act on it)",
        _view,
    ),
    "trace": (
        "record every action of the session into one HTML page",
        _group(
            [
                ("start", "record every action from now on (any tab, batch, agent)", _trace_start),
                ("stop", "write the recorded steps to FILE and stop recording", _trace_stop),
            ],
            "action",
            "trace",
        ),
    ),
    "record": (
        "record a video of the current tab (needs ko-browser[video])",
        _group(
            [
                ("start", "start recording the current tab", _record_start),
                ("stop", "stop and write the video to FILE", _record_stop),
            ],
            "action",
            "record",
        ),
    ),
    "mcp": ("serve a browser to an MCP host (stdio; HTTP with --port) until it goes", _mcp),
    "session": (
        "sessions of this user",
        _group([("list", "list running sessions", None)], "action", "session"),
    ),
}

COMMANDS.update(state_commands(_group))
COMMANDS.update(network_commands(_group))

_VALUED_GLOBALS = frozenset(
    {
        "--session",
        "--timeout",
        "--executable-path",
        "--cdp",
        "--idle-timeout",
        "--proxy",
        "--block",
        "--ids",
    }
)


def command_index(argv: Sequence[str]) -> int | None:
    """Where the command is named on the command line (after global options), if it is."""
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg == "--":
            return None
        elif arg.startswith("-"):
            skip = arg in _VALUED_GLOBALS
        else:
            return index
    return None


def command_word(argv: Sequence[str]) -> str | None:
    """The command named on the command line (skipping global options), if any."""
    index = command_index(argv)
    return None if index is None else argv[index]


def _one_value_each(parser: argparse.ArgumentParser, namespace: dict[str, Any]) -> None:
    """Refuse what argparse lets through: ``type 1 -- --`` gives TEXT an empty list."""
    stack = [parser]
    while stack:
        current = stack.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif (
                not action.option_strings
                and action.nargs in (None, "?")
                and isinstance(namespace.get(action.dest), list)
            ):
                parser.error(f"argument {action.metavar or action.dest}: expected one value")


def check_combinations(cmd: str, args: dict[str, Any]) -> str:
    """What is wrong with how the arguments of ``cmd`` go together ("" when nothing)."""
    if cmd == "network.route":
        answer = any(args[k] is not None for k in ("body", "status", "content_type", "header"))
        if (args["abort"] is None) == (not answer):
            return "network route needs --abort, or an answer (--body, --status, --header)"
    if cmd == "network.block" and not args["patterns"] and not args["types"]:
        return "network block needs URL patterns or --types"
    if cmd == "wait":
        chosen = [k for k in ("ms", "load", "text", "selector", "url", "fn") if args[k] is not None]
        if len(chosen) != 1:
            return "wait needs exactly one of: MS, --load, --text, --selector, --url, --fn"
        if args["state"] is not None and args["selector"] is None:
            return "wait --state goes with --selector"
    if cmd == "find" and args["role"] is None and args["name"] is None and args["text"] is None:
        return "find needs at least one of --role, --name, --text"
    if cmd == "mcp" and args["host"] is not None and args["port"] is None:
        return "mcp --host goes with --port"
    if cmd == "mcp" and args["token"] is not None and args["port"] is None:
        return "mcp --token goes with --port"
    return ""


def build_parser(prog: str = "ko-browser", only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` the top level plus that one command."""
    parser = Parser(
        prog=prog,
        description="Drive Chrome from the shell through its accessibility tree.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_globals(parser, top=True)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for name, (help, define) in COMMANDS.items():
        if only is None or name == only:
            _sub(commands, name, help, name, define)
    return parser


def parse(argv: list[str], prog: str = "ko-browser") -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Parse a command line into (command, arguments, global options).

    Bad usage prints a message and raises SystemExit(2).
    """
    word = command_word(argv)
    parser = build_parser(prog, only=word if word in COMMANDS else None)
    namespace = vars(parser.parse_args(argv))
    _one_value_each(parser, namespace)
    cmd = namespace.pop("_cmd")
    cmd = DEFAULT_SUBCOMMAND.get(cmd, cmd)
    options = {name: namespace.pop(name) for name in GLOBAL_OPTIONS}
    args = namespace
    problem = check_combinations(cmd, args)
    if problem:
        parser.error(problem)
    if cmd == "click" and args.pop("right", False):
        args["button"] = "right"
    if cmd == "click" and args.pop("double", False):
        args["click_count"] = 2
    return cmd, args, options
