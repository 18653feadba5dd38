"""Arguments of the network and console commands (stdlib only).

``_parser`` adds :func:`network_commands` to its command table.
"""

from __future__ import annotations

import argparse

from kobrowser.cli._client._argtypes import existing_file, header, whole

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable

    Define = Callable[[argparse.ArgumentParser], None]
    Group = Callable[[list[tuple[str, str, Define | None]], str, str], Define]

__all__ = ["network_commands"]


def _pattern(sub: argparse.ArgumentParser, required: bool = True) -> None:
    sub.add_argument(
        "pattern", metavar="PATTERN", nargs=None if required else "?", default=None,
        help="URL glob ('**/api/*': ** any text, * any text but /, {a,b} either)",
    )  # fmt: skip
    sub.add_argument("--regex", action="store_true", help="PATTERN is a regular expression")


def _route(sub: argparse.ArgumentParser) -> None:
    _pattern(sub)
    sub.add_argument(
        "--abort", nargs="?", const="failed", default=None, metavar="REASON",
        help="fail the requests (REASON: failed, aborted, blockedbyclient, timedout,"
        " connectionrefused, ...)",
    )  # fmt: skip
    sub.add_argument(
        "--body", type=existing_file, default=None, metavar="FILE", help="answer with FILE"
    )
    sub.add_argument(
        "--status", type=whole(100, 599), default=None, metavar="N", help="answer status"
    )
    sub.add_argument("--content-type", default=None, metavar="TYPE", help="of the answer")
    sub.add_argument(
        "--header", type=header, action="append", default=None, metavar="NAME:VALUE",
        help="an answer header (repeatable)",
    )  # fmt: skip


def _unroute(sub: argparse.ArgumentParser) -> None:
    _pattern(sub, required=False)


def _block(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("patterns", nargs="*", metavar="PATTERN", help="URL globs to block")
    sub.add_argument(
        "--types", default=None, metavar="T1,T2",
        help="resource types: image, font, media, stylesheet, script, xhr, fetch, ...",
    )  # fmt: skip


def _requests(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--filter", default=None, metavar="TEXT", help="only URLs containing TEXT")
    sub.add_argument("--limit", type=whole(1), default=None, metavar="N", help="the last N only")
    sub.add_argument("--clear", action="store_true", help="then empty the log")


def _har(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("path", metavar="FILE", help="the .har file to write (HAR 1.2, no bodies)")


def _console(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--clear", action="store_true", help="then forget the messages and errors")
    sub.add_argument("--level", default=None, metavar="LEVEL", help="only this level (e.g. error)")


def _errors(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--clear", action="store_true", help="then forget the messages and errors")


def network_commands(group: Group) -> dict[str, tuple[str, Define | None]]:
    """``name -> (help, define)`` of the network, console and errors commands."""
    network = group(
        [
            ("route", "answer or fail the requests matching PATTERN", _route),
            ("unroute", "remove the routes of PATTERN (all routes without one)", _unroute),
            ("block", "fail requests by URL pattern or resource type", _block),
            ("unblock", "remove every block", None),
            ("requests", "list the current tab's recent requests", _requests),
            ("har", "write every request of the session so far to a HAR file", _har),
        ],
        "action",
        "network",
    )
    return {
        "network": ("route, block, list the session's requests, write a HAR", network),
        "console": ("print the current tab's console messages", _console),
        "errors": ("print the current tab's uncaught JavaScript errors", _errors),
    }
