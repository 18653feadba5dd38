"""Every request checked against the command line's own definition.

The client builds a request from the argparse parser of
:mod:`kobrowser.cli._client._parser`; the daemon checks what it receives
against that same parser, so no second schema can drift from the first.
For a command's arguments (``args``):

* each argparse action of the command (but the global options) gives one
  key: a flag is a bool; a value goes through the action's own ``type``
  (applied to ``str(value)``, which must give the value back: ``5`` for an
  id, never ``"5"`` or ``true``), its ``choices`` and its ``nargs`` (a list
  for ``+``); a missing required one is an error, a missing optional one
  gets the action's default;
* :data:`CLIENT_SIDE` lists the few keys the client adds or removes
  (``click --right`` becomes ``button``; ``batch`` sends the file's text);
* any other key is an error, and so is any unknown top-level field.

The options (``opts``) are checked the same way, against the global options
they come from: ``timeout`` (``--timeout``) and, in ``start``, ``headed``,
``executable_path`` and ``cdp``; ``text_only`` (a bool, sent without ``--json``:
the client prints only the reply's text, so the result is left out).

A bad request gets a ``UsageError`` reply (exit 2); it never reaches the
library and never becomes an internal error.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from kobrowser.cli._client._parser import GLOBAL_OPTIONS, build_parser, check_combinations
from kobrowser.cli._protocol import PROTOCOL_VERSION

__all__ = ["CLIENT_SIDE", "DAEMON_COMMANDS", "RequestError", "check_request"]

#: Top-level fields of a request (see _protocol.py).
FIELDS = frozenset({"v", "id", "cmd", "args", "opts"})
#: Longest request id.
MAX_ID = 200

_STR = (str,)
_OPT_STR = (str, type(None))

#: cmd -> (argparse dests the client removes, keys it adds -> accepted values).
#: A key's accepted values are a tuple of types, or a tuple of the values allowed.
CLIENT_SIDE: dict[str, tuple[frozenset[str], dict[str, tuple[Any, ...]]]] = {
    "click": (
        frozenset({"right", "double"}),
        {"button": ("left", "right", "middle"), "click_count": (1, 2)},
    ),
    "batch": (frozenset({"file"}), {"text": _STR, "source": _STR}),
    "diff": (frozenset(), {"baseline_text": _OPT_STR}),
    "agent": (
        frozenset({"model", "base_url", "api_key_env", "secret"}),
        {"model": _STR, "base_url": _OPT_STR, "api_key": _OPT_STR, "secrets": (dict,)},
    ),
}
#: Keys of ``opts.start``: the global options that say how a session starts.
_START = ("headed", "executable_path", "cdp", "proxy", "block", "ids")
#: Commands the client runs itself: never sent to a daemon.
_CLIENT_ONLY = frozenset({"mcp", "session.list"})


class RequestError(Exception):
    """A request the daemon will not run: malformed, or arguments the CLI would refuse."""


def _commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """cmd (``get.text``) -> the parser of that command."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    cmd = sub.get_default("_cmd")
                    if isinstance(cmd, str) and not any(
                        isinstance(a, argparse._SubParsersAction) for a in sub._actions
                    ):
                        found[cmd] = sub
                    walk(sub)

    walk(top)
    return found


_TOP = build_parser()
_PARSERS = _commands(_TOP)
#: The global options (``--timeout``...) by destination, as the top parser defines them.
_GLOBALS = {action.dest: action for action in _TOP._actions if action.dest in GLOBAL_OPTIONS}
#: Every command a daemon runs (``status`` is the client's own health check).
DAEMON_COMMANDS = frozenset({*(c for c in _PARSERS if c not in _CLIENT_ONLY), "status"})


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _scalar(action: argparse.Action, value: Any, where: str) -> Any:
    """One value of ``action``, checked as the parser would check its text."""
    if action.type is None:
        if not isinstance(value, str):
            raise RequestError(f"{where}: expected a string, got {_short(value)}")
        result: Any = value
    else:
        if isinstance(value, str | int | float):  # bools too: str(True) is "True"
            text = str(value)
        elif isinstance(value, dict | list):  # a type that parses JSON
            text = json.dumps(value)
        else:
            raise RequestError(f"{where}: expected a value, got {_short(value)}")
        try:
            result = action.type(text)  # type: ignore[operator]
        except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
            raise RequestError(f"{where}: {exc}") from None
        if result != value or (
            type(result) is not type(value)
            and not (isinstance(result, float) and type(value) is int)
        ):
            raise RequestError(f"{where}: expected {_short(result)}, got {_short(value)}")
    if action.choices is not None and result not in action.choices:
        choices = ", ".join(map(repr, action.choices))
        raise RequestError(f"{where}: {_short(value)} is not one of {choices}")
    return result


def _argument(cmd: str, action: argparse.Action, value: Any, where: str = "") -> Any:
    where = where or f"{cmd.replace('.', ' ')}: argument {action.dest!r}"
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        if not isinstance(value, bool):
            raise RequestError(f"{where}: expected true or false, got {_short(value)}")
        return value
    if isinstance(action, argparse._AppendAction):
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            raise RequestError(f"{where}: expected a list of values, got {_short(value)}")
        return [_scalar(action, item, where) for item in value]
    if action.nargs in ("+", "*"):
        if not isinstance(value, list) or (action.nargs == "+" and not value):
            raise RequestError(f"{where}: expected a list of values, got {_short(value)}")
        return [_scalar(action, item, where) for item in value]
    if value is None and (action.option_strings or action.nargs == "?"):
        return None
    return _scalar(action, value, where)


def _client_side(cmd: str, key: str, value: Any) -> Any:
    accepted = CLIENT_SIDE[cmd][1][key]
    where = f"{cmd}: argument {key!r}"
    if all(isinstance(a, type) for a in accepted):
        if not isinstance(value, accepted) or (isinstance(value, bool) and bool not in accepted):
            raise RequestError(f"{where}: got {_short(value)}")
    elif value not in accepted or isinstance(value, bool):
        raise RequestError(
            f"{where}: {_short(value)} is not one of {', '.join(map(repr, accepted))}"
        )
    return value


def check_args(cmd: str, args: Any) -> dict[str, Any]:
    """``args`` of ``cmd`` checked and completed with defaults (see the module docstring).

    Raises:
        RequestError: what is wrong, in one line.
    """
    if not isinstance(args, dict):
        raise RequestError(f"{cmd}: args must be an object, not {_short(args)}")
    if cmd == "status":
        if args:
            raise RequestError(f"status takes no arguments, got {sorted(args)}")
        return {}
    parser = _PARSERS[cmd]
    removed, added = CLIENT_SIDE.get(cmd, (frozenset(), {}))
    out: dict[str, Any] = {}
    known: set[str] = set()
    for action in parser._actions:
        dest = action.dest
        if dest in GLOBAL_OPTIONS or dest == "help" or dest in removed:
            continue
        known.add(dest)
        if dest in args:
            out[dest] = _argument(cmd, action, args[dest])
        elif action.required:
            raise RequestError(f"{cmd.replace('.', ' ')}: argument {dest!r} is missing")
        elif action.default is not argparse.SUPPRESS:
            out[dest] = action.default
    for key, value in args.items():
        if key in added:
            out[key] = _client_side(cmd, key, value)
        elif key not in known:
            raise RequestError(f"{cmd.replace('.', ' ')}: unknown argument {_short(key)}")
    for key, accepted in added.items():
        optional = type(None) in accepted or not all(isinstance(a, type) for a in accepted)
        if key not in out and not optional:
            raise RequestError(f"{cmd}: argument {key!r} is missing")
    problem = check_combinations(cmd, out)
    if problem:
        raise RequestError(problem)
    return out


def check_opts(opts: Any) -> dict[str, Any]:
    """``opts`` checked: ``timeout`` (seconds > 0) and ``start`` (how to start the session)."""
    if not isinstance(opts, dict):
        raise RequestError(f"opts must be an object, not {_short(opts)}")
    unknown = set(opts) - {"timeout", "start", "text_only"}
    if unknown:
        raise RequestError(f"unknown option(s) {', '.join(map(_short, sorted(unknown)))}")
    timeout = _argument("opts", _GLOBALS["timeout"], opts.get("timeout"), "opts.timeout")
    out: dict[str, Any] = {"timeout": timeout}
    text_only = opts.get("text_only", False)
    if not isinstance(text_only, bool):
        raise RequestError(f"opts.text_only: expected true or false, got {_short(text_only)}")
    if text_only:
        out["text_only"] = True
    start = opts.get("start", {})
    if not isinstance(start, dict):
        raise RequestError(f"opts.start must be an object, not {_short(start)}")
    for key, value in start.items():
        if key not in _START:
            raise RequestError(f"opts.start: unknown key {_short(key)}")
        if value is None:
            raise RequestError(f"opts.start.{key}: got None")
        _argument("opts", _GLOBALS[key], value, f"opts.start.{key}")
    if start:
        out["start"] = start
    return out


def check_request(request: dict[str, Any]) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """(id, cmd, args, opts) of a decoded request, each checked.

    Raises:
        RequestError: the first problem, in one line.
    """
    unknown = set(request) - FIELDS
    if unknown:
        raise RequestError(
            f"unknown field(s) {', '.join(map(_short, sorted(unknown)))} in a protocol "
            f"version {PROTOCOL_VERSION} request"
        )
    request_id = request.get("id")
    if not isinstance(request_id, str) or not request_id or len(request_id) > MAX_ID:
        raise RequestError(f"a request needs an id (a string of 1 to {MAX_ID} characters)")
    cmd = request.get("cmd")
    if not isinstance(cmd, str) or cmd not in DAEMON_COMMANDS:
        raise RequestError(f"unknown command {_short(cmd)}")
    args = request.get("args")
    opts = request.get("opts")
    args = check_args(cmd, {} if args is None else args)
    opts = check_opts({} if opts is None else opts)
    return request_id, cmd, args, opts
