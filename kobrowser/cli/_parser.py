"""The command line of `ko-browser`: argparse subcommands -> one request.

Standard library only: the client builds this parser on every command.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._protocol import DEFAULT_SESSION, valid_session_name

__all__ = ["GLOBAL_OPTIONS", "build_parser", "parse"]

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
"""


def element_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(
            f"invalid id {text!r}: use a number from `ko-browser snapshot`, e.g. 5"
        )
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
    return value


def _session_name(text: str) -> str:
    if not valid_session_name(text):
        raise argparse.ArgumentTypeError(
            f"invalid session name {text!r}: letters, digits, '_', '.', '-' (up to 64)"
        )
    return text


def _add_globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Global options; on subcommands they default to SUPPRESS so they never
    overwrite a value given before the subcommand."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    group = parser.add_argument_group("global options")
    group.add_argument(
        "--session",
        type=_session_name,
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
        type=_positive_float,
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
        type=_positive_float,
        default=default(None),
        metavar="SECONDS",
        help="stop the daemon and Chrome after this long without a command "
        "(default: $KOBROWSER_IDLE_TIMEOUT or 1800)",
    )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2
        self.print_usage()
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser(prog: str = "ko-browser") -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog,
        description="Drive Chrome from the shell through its accessibility tree.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_globals(parser, top=True)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def command(
        name: str, help: str, cmd: str | None = None, parent: Any = commands
    ) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = parent.add_parser(name, help=help, description=help)
        _add_globals(sub, top=False)
        sub.set_defaults(_cmd=cmd or name)
        return sub

    def with_id(name: str, help: str, cmd: str | None = None, parent: Any = commands) -> Any:
        sub = command(name, help, cmd, parent)
        sub.add_argument("id", type=element_id, metavar="ID", help="element id from the snapshot")
        return sub

    # navigation
    sub = command("open", "open a URL in the current tab (a new tab if there is none)")
    sub.add_argument("url", metavar="URL", help="address; 'example.com' means https://example.com")
    sub.add_argument(
        "--wait-until", choices=LOAD_STATES, default=None, help="load state to wait for"
    )
    command("back", "go back in history")
    command("forward", "go forward in history")
    command("reload", "reload the page")

    # snapshot
    sub = command("snapshot", "print the numbered accessibility snapshot of the current tab")
    sub.add_argument("-i", "--interactive", action="store_true", help="interactive elements only")
    sub.add_argument("-c", "--compact", action="store_true", help="drop unnamed structure")
    sub.add_argument(
        "-d", "--depth", type=_non_negative_int, default=None, metavar="N", help="levels to show"
    )
    sub.add_argument(
        "-s", "--selector", default=None, metavar="CSS", help="only the subtrees matching CSS"
    )

    # actions
    sub = with_id("click", "click an element")
    sub.add_argument("--right", action="store_true", help="right button")
    sub.add_argument("--double", action="store_true", help="double click")
    with_id("dblclick", "double-click an element")
    with_id("hover", "move the mouse over an element")
    with_id("focus", "focus an element")
    sub = with_id("fill", "replace the value of a text field")
    sub.add_argument("text", metavar="TEXT")
    sub = with_id("type", "type text into an element, one key at a time")
    sub.add_argument("text", metavar="TEXT")
    sub.add_argument(
        "--delay", type=_non_negative_int, default=None, metavar="MS", help="pause between keys"
    )
    sub = command("press", "press a key or chord (Enter, Tab, Control+a, ...)")
    sub.add_argument("key", metavar="KEY")
    sub = with_id("select", "choose options of a select/listbox by label or value")
    sub.add_argument("values", nargs="+", metavar="VALUE")
    with_id("check", "check a checkbox, radio or switch")
    with_id("uncheck", "uncheck a checkbox or switch")
    sub = with_id("upload", "set the files of a file input")
    sub.add_argument("files", nargs="+", metavar="FILE")
    sub = command("drag", "drag one element onto another")
    sub.add_argument("source", type=element_id, metavar="SOURCE_ID")
    sub.add_argument("target", type=element_id, metavar="TARGET_ID")
    sub = command("scroll", "scroll the page")
    sub.add_argument("direction", choices=("up", "down", "left", "right"))
    sub.add_argument("amount", type=_non_negative_int, nargs="?", default=None, metavar="PIXELS")
    with_id("scrollintoview", "scroll an element into view")

    # get / is
    get = command("get", "read something from the page or an element")
    get_cmds = get.add_subparsers(title="what", metavar="WHAT", parser_class=_Parser)
    get_cmds.required = True
    with_id("text", "text of an element", "get.text", get_cmds)
    with_id("html", "outer HTML of an element", "get.html", get_cmds)
    with_id("value", "value of a form field", "get.value", get_cmds)
    sub = with_id("attr", "an attribute of an element", "get.attr", get_cmds)
    sub.add_argument("name", metavar="NAME")
    with_id("box", "bounding box of an element (x y width height)", "get.box", get_cmds)
    command("title", "title of the page", "get.title", get_cmds)
    command("url", "URL of the page", "get.url", get_cmds)

    is_ = command("is", "check the state of an element (prints true or false)")
    is_cmds = is_.add_subparsers(title="state", metavar="STATE", parser_class=_Parser)
    is_cmds.required = True
    with_id("visible", "is the element visible", "is.visible", is_cmds)
    with_id("enabled", "is the element enabled", "is.enabled", is_cmds)
    with_id("checked", "is the element checked", "is.checked", is_cmds)

    # waits
    sub = command(
        "wait", "wait for a time (ms), a load state, text, a selector, a URL or a JS condition"
    )
    sub.add_argument("ms", type=_non_negative_int, nargs="?", default=None, metavar="MS")
    sub.add_argument("--load", choices=LOAD_STATES, default=None, metavar="STATE")
    sub.add_argument("--text", default=None, help="text to appear on the page")
    sub.add_argument("--selector", default=None, metavar="CSS")
    sub.add_argument("--state", choices=SELECTOR_STATES, default=None, help="with --selector")
    sub.add_argument("--url", default=None, metavar="PATTERN", help="URL glob, e.g. **/done*")
    sub.add_argument("--fn", default=None, metavar="JS", help="JS expression to become truthy")

    # tabs
    tab = command("tab", "list, open, switch and close tabs")
    tab_cmds = tab.add_subparsers(title="action", metavar="ACTION", parser_class=_Parser)
    tab_cmds.required = True
    command("list", "list tabs (the current one is marked *)", "tab.list", tab_cmds)
    sub = command("new", "open a new tab and make it current", "tab.new", tab_cmds)
    sub.add_argument("url", nargs="?", default=None, metavar="URL")
    sub = command("switch", "make tab N current", "tab.switch", tab_cmds)
    sub.add_argument("index", type=element_id, metavar="N", help="number from `tab list`")
    sub = command("close", "close tab N (default: the current tab)", "tab.close", tab_cmds)
    sub.add_argument("index", type=element_id, nargs="?", default=None, metavar="N")

    sub = command("eval", "evaluate JavaScript in the page and print the result")
    sub.add_argument("script", metavar="JS")

    command("close", "close the session: its Chrome and daemon")

    session = command("session", "sessions of this user")
    session_cmds = session.add_subparsers(title="action", metavar="ACTION", parser_class=_Parser)
    session_cmds.required = True
    command("list", "list running sessions", "session.list", session_cmds)
    return parser


def parse(argv: list[str], prog: str = "ko-browser") -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Parse a command line into (command, arguments, global options).

    Bad usage prints a message and raises SystemExit(2).
    """
    parser = build_parser(prog)
    namespace = vars(parser.parse_args(argv))
    cmd = namespace.pop("_cmd")
    options = {name: namespace.pop(name) for name in GLOBAL_OPTIONS}
    args = namespace
    if cmd == "wait":
        chosen = [k for k in ("ms", "load", "text", "selector", "url", "fn") if args[k] is not None]
        if len(chosen) != 1:
            parser.error("wait needs exactly one of: MS, --load, --text, --selector, --url, --fn")
        if args["state"] is not None and args["selector"] is None:
            parser.error("wait --state goes with --selector")
    if cmd == "click" and args.pop("right", False):
        args["button"] = "right"
    if cmd == "click" and args.pop("double", False):
        args["click_count"] = 2
    return cmd, args, options
