"""The command line of `ko-browser`: argparse subcommands -> one request.

Standard library only: the client builds this parser on every command.
"""

from __future__ import annotations

import argparse
import os

from ._argtypes import element_id, number, seconds, session_name, whole
from ._parser_network import network_commands
from ._parser_state import DEFAULT_SUBCOMMAND, state_commands
from ._protocol import DEFAULT_SESSION

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Define = Callable[[argparse.ArgumentParser], None]

__all__ = [
    "COMMANDS",
    "GLOBAL_OPTIONS",
    "build_parser",
    "check_combinations",
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
)

LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")
SELECTOR_STATES = ("visible", "hidden", "attached", "detached")

_EPILOG = """\
Ids are the numbers of the latest `ko-browser snapshot` of the current tab.
The first command of a session starts a background daemon that keeps Chrome
open; `ko-browser close` stops both. Exit status: 0 success, 1 the command
failed (one line on stderr says what to do), 2 bad usage.

`ko-browser scrape URLS_FILE -o out.jsonl` scrapes many URLs in the
foreground, without a session (see `ko-browser scrape --help`).
"""


def _add_globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Global options; on subcommands they default to SUPPRESS so they never
    overwrite a value given before the subcommand."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    group = parser.add_argument_group("global options")
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


def one_line(text: str) -> str:
    """``text`` on one line: line breaks and other control characters escaped."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2 (the usage is in --help)
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see `{self.prog} --help`)\n")


def _sub(
    parent: Any, name: str, help: str, cmd: str, define: Define | None = None
) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = parent.add_parser(name, help=help, description=help)
    _add_globals(sub, top=False)
    sub.set_defaults(_cmd=cmd)
    if define is not None:
        define(sub)
    return sub


def _id(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("id", type=element_id, metavar="ID", help="element id from the snapshot")


def _group(children: list[tuple[str, str, Define | None]], title: str, prefix: str) -> Define:
    """A command with its own subcommands (get text, tab list, ...)."""

    def define(sub: argparse.ArgumentParser) -> None:
        nested = sub.add_subparsers(title=title, metavar=title.upper(), parser_class=_Parser)
        nested.required = prefix not in DEFAULT_SUBCOMMAND
        for name, help, child in children:
            _sub(nested, name, help, f"{prefix}.{name}", child)

    return define


def _open(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("url", metavar="URL", help="address; 'example.com' means https://example.com")
    sub.add_argument(
        "--wait-until", choices=LOAD_STATES, default=None, help="load state to wait for"
    )


def _snapshot(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-i", "--interactive", action="store_true", help="interactive elements only")
    sub.add_argument("-c", "--compact", action="store_true", help="drop unnamed structure")
    sub.add_argument(
        "-d", "--depth", type=whole(0), default=None, metavar="N", help="levels to show"
    )
    sub.add_argument(
        "-s", "--selector", default=None, metavar="CSS", help="only the subtrees matching CSS"
    )
    sub.add_argument(
        "--text-limit", type=whole(4, none=True), default=80, metavar="N|none",
        help="cut names and text at N characters (default 80; none: whole)",
    )  # fmt: skip
    sub.add_argument(
        "--no-clickable", dest="clickable", action="store_false",
        help="do not read which elements are clickable (faster)",
    )  # fmt: skip


def _find(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--role", default=None, metavar="ROLE", help="printed role, e.g. button")
    sub.add_argument("--name", default=None, metavar="TEXT", help="text in the element's name")
    sub.add_argument("--text", default=None, metavar="TEXT", help="text the line shows")
    sub.add_argument("--exact", action="store_true", help="whole, case-sensitive match")


def _screenshot(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "path",
        nargs="?",
        default=None,
        metavar="PATH",
        help="image file, .png/.jpg/.webp (default: screenshot-<time>.png here)",
    )
    sub.add_argument("--full", action="store_true", help="the whole page, not only the viewport")
    sub.add_argument(
        "--annotate", action="store_true", help="draw the ids of the last snapshot on the image"
    )
    sub.add_argument(
        "--id", type=element_id, default=None, metavar="N", help="only element N of the snapshot"
    )


def _pdf(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("path", metavar="PATH", help="the PDF file to write")
    sub.add_argument("--landscape", action="store_true", help="landscape orientation")
    sub.add_argument("--paper", choices=("A4", "Letter"), default="A4", help="paper size")
    sub.add_argument("--scale", type=number(0.1, 2.0), default=1.0, help="0.1 to 2 (default 1)")


def _diff(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--baseline",
        default=None,
        metavar="FILE",
        help="compare with this saved snapshot (`ko-browser snapshot > FILE`)",
    )
    _snapshot(sub)


def _click(sub: argparse.ArgumentParser) -> None:
    _id(sub)
    sub.add_argument("--right", action="store_true", help="right button")
    sub.add_argument("--double", action="store_true", help="double click")


def _id_text(sub: argparse.ArgumentParser) -> None:
    _id(sub)
    sub.add_argument("text", metavar="TEXT")


def _type(sub: argparse.ArgumentParser) -> None:
    _id_text(sub)
    sub.add_argument(
        "--delay", type=whole(0), default=None, metavar="MS", help="pause between keys"
    )


def _press(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("key", metavar="KEY")


def _select(sub: argparse.ArgumentParser) -> None:
    _id(sub)
    sub.add_argument("values", nargs="+", metavar="VALUE")


def _upload(sub: argparse.ArgumentParser) -> None:
    _id(sub)
    sub.add_argument("files", nargs="+", metavar="FILE")


def _drag(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("source", type=element_id, metavar="SOURCE_ID")
    sub.add_argument("target", type=element_id, metavar="TARGET_ID")


def _scroll(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("direction", choices=("up", "down", "left", "right"))
    sub.add_argument("amount", type=whole(0), nargs="?", default=None, metavar="PIXELS")


def _attr(sub: argparse.ArgumentParser) -> None:
    _id(sub)
    sub.add_argument("name", metavar="NAME")


def _wait(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("ms", type=whole(0), nargs="?", default=None, metavar="MS")
    sub.add_argument("--load", choices=LOAD_STATES, default=None, metavar="STATE")
    sub.add_argument("--text", default=None, help="text to appear on the page")
    sub.add_argument("--selector", default=None, metavar="CSS")
    sub.add_argument("--state", choices=SELECTOR_STATES, default=None, help="with --selector")
    sub.add_argument("--url", default=None, metavar="PATTERN", help="URL glob, e.g. **/done*")
    sub.add_argument("--fn", default=None, metavar="JS", help="JS expression to become truthy")


def _tab_new(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("url", nargs="?", default=None, metavar="URL")


def _tab_switch(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("index", type=whole(1), metavar="N", help="number from `tab list`")


def _tab_close(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("index", type=whole(1), nargs="?", default=None, metavar="N")


def _eval(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("script", metavar="JS")


def _mcp(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--port", type=whole(0), default=None, metavar="N",
        help="serve streamable HTTP on port N (0: any free port) instead of stdio",
    )  # fmt: skip
    sub.add_argument(
        "--host", default=None, metavar="HOST",
        help="with --port: address to bind (default 127.0.0.1, local clients only)",
    )  # fmt: skip
    sub.add_argument(
        "--snapshot", choices=("full", "interactive", "none"), default="interactive",
        help="what every action replies with (default: interactive)",
    )  # fmt: skip
    sub.add_argument("--no-evaluate", action="store_true", help="no JavaScript evaluate tool")
    sub.add_argument(
        "--allow-upload-from", default=None, metavar="DIR",
        help="let the upload tool take files from DIR (default: uploads refused)",
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


#: name -> (help, how to define its arguments); the parser is built lazily
#: from this table (only the command on the command line, when it is known).
COMMANDS: dict[str, tuple[str, Define | None]] = {
    "open": ("open a URL in the current tab (a new tab if there is none)", _open),
    "back": ("go back in history", None),
    "forward": ("go forward in history", None),
    "reload": ("reload the page", None),
    "snapshot": ("print the numbered accessibility snapshot of the current tab", _snapshot),
    "find": ("print the lines of a new snapshot that match role, name or text", _find),
    "diff": (
        "take a snapshot and print what changed since the previous one (ids of the new one)",
        _diff,
    ),
    "screenshot": ("save a screenshot (optionally with the snapshot ids drawn on it)", _screenshot),
    "pdf": ("print the page to a PDF file (headless Chrome only)", _pdf),
    "click": ("click an element", _click),
    "dblclick": ("double-click an element", _id),
    "hover": ("move the mouse over an element", _id),
    "focus": ("focus an element", _id),
    "fill": ("replace the value of a text field", _id_text),
    "type": ("type text into an element, one key at a time", _type),
    "press": ("press a key or chord (Enter, Tab, Control+a, ...)", _press),
    "select": ("choose options of a select/listbox by label or value", _select),
    "check": ("check a checkbox, radio or switch", _id),
    "uncheck": ("uncheck a checkbox or switch", _id),
    "upload": ("set the files of a file input", _upload),
    "drag": ("drag one element onto another", _drag),
    "scroll": ("scroll the page", _scroll),
    "scrollintoview": ("scroll an element into view", _id),
    "get": (
        "read something from the page or an element",
        _group(
            [
                ("text", "text of an element", _id),
                ("html", "outer HTML of an element", _id),
                ("value", "value of a form field", _id),
                ("attr", "an attribute of an element", _attr),
                ("box", "bounding box of an element (x y width height)", _id),
                ("title", "title of the page", None),
                ("url", "URL of the page", None),
            ],
            "what",
            "get",
        ),
    ),
    "is": (
        "check the state of an element (prints true or false)",
        _group(
            [
                ("visible", "is the element visible", _id),
                ("enabled", "is the element enabled", _id),
                ("checked", "is the element checked", _id),
            ],
            "state",
            "is",
        ),
    ),
    "wait": (
        "wait for a time (ms), a load state, text, a selector, a URL or a JS condition",
        _wait,
    ),
    "tab": (
        "list, open, switch and close tabs",
        _group(
            [
                ("list", "list tabs (the current one is marked *)", None),
                ("new", "open a new tab and make it current", _tab_new),
                ("switch", "make tab N current", _tab_switch),
                ("close", "close tab N (default: the current tab)", _tab_close),
            ],
            "action",
            "tab",
        ),
    ),
    "eval": ("evaluate JavaScript in the page and print the result", _eval),
    "batch": ('run action lines (click 5, fill 3 "hi", ...) from FILE or stdin', _batch),
    "agent": ("let a language model reach GOAL in the current tab", _agent),
    "close": ("close the session: its Chrome and daemon", None),
    "mcp": ("serve a browser to an MCP host (stdio; HTTP with --port) until it goes", _mcp),
    "session": (
        "sessions of this user",
        _group([("list", "list running sessions", None)], "action", "session"),
    ),
}

COMMANDS.update(state_commands(_group))
COMMANDS.update(network_commands(_group))

_VALUED_GLOBALS = frozenset(
    {"--session", "--timeout", "--executable-path", "--cdp", "--idle-timeout"}
)


def command_word(argv: list[str]) -> str | None:
    """The command named on the command line (skipping global options), if any."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--":
            return None
        elif arg.startswith("-"):
            skip = arg in _VALUED_GLOBALS
        else:
            return arg
    return None


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
    return ""


def build_parser(prog: str = "ko-browser", only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` the top level plus that one command."""
    parser = _Parser(
        prog=prog,
        description="Drive Chrome from the shell through its accessibility tree.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_globals(parser, top=True)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
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
