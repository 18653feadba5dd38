"""Arguments of the browser-state commands: cookies, state, set (stdlib only).

``_parser`` adds :func:`state_commands` to its command table.
"""

from __future__ import annotations

import argparse

from kobrowser.cli._client._argtypes import json_headers, number, on_off, whole

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable

    Define = Callable[[argparse.ArgumentParser], None]
    Group = Callable[[list[tuple[str, str, Define | None]], str, str], Define]

__all__ = ["DEFAULT_SUBCOMMAND", "state_commands"]

#: Commands that run a subcommand when none is named (``cookies`` = ``cookies get``).
DEFAULT_SUBCOMMAND = {"cookies": "cookies.get"}

SAME_SITE = ("Strict", "Lax", "None")
COLOR_SCHEMES = ("light", "dark", "no-preference")


def _cookies_get(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--url", action="append", default=None, metavar="URL",
        help="only cookies sent to this URL (repeatable)",
    )  # fmt: skip


def _cookies_set(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("name", metavar="NAME")
    sub.add_argument("value", metavar="VALUE")
    sub.add_argument(
        "--url", default=None, metavar="URL", help="the cookie's URL (default: the current page's)"
    )
    sub.add_argument("--domain", default=None, metavar="DOMAIN", help="instead of --url")
    sub.add_argument("--path", default=None, metavar="PATH", help="with --domain (default: /)")
    sub.add_argument(
        "--expires", type=number(unit="seconds"), default=None, metavar="UNIX_SECONDS",
        help="default: a session cookie",
    )  # fmt: skip
    sub.add_argument("--http-only", action="store_true", help="hidden from scripts")
    sub.add_argument("--secure", action="store_true", help="sent over https only")
    sub.add_argument("--same-site", choices=SAME_SITE, default=None)


def _cookies_clear(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--name", default=None, metavar="NAME", help="only cookies of this name")
    sub.add_argument("--domain", default=None, metavar="DOMAIN", help="only of this domain")
    sub.add_argument("--path", default=None, metavar="PATH", help="only of this path")


def _path(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("path", metavar="PATH", help="JSON file (Playwright's storage state layout)")


def _viewport(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("width", type=whole(1), metavar="WIDTH")
    sub.add_argument("height", type=whole(1), metavar="HEIGHT")


def _device(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "name", nargs="+", metavar="NAME",
        help="e.g. 'iPhone 15', 'Pixel 7 landscape' (`set device list` lists them)",
    )  # fmt: skip


def _offline(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("state", type=on_off, metavar="on|off")


def _headers_arg(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "headers", type=json_headers, metavar="JSON",
        help='headers for every request, e.g. \'{"X-Token": "abc"}\' ({} to stop)',
    )  # fmt: skip


def _geo(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("latitude", type=number(unit="degrees"), metavar="LAT")
    sub.add_argument("longitude", type=number(unit="degrees"), metavar="LON")
    sub.add_argument(
        "accuracy", type=number(unit="meters"), nargs="?", default=0.0, metavar="METERS"
    )


def _media(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("scheme", choices=COLOR_SCHEMES, metavar="light|dark|no-preference")


def _text(name: str, help: str) -> Define:
    def define(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("value", metavar=name, help=help)

    return define


def _permissions(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "names", nargs="+", metavar="NAME",
        help="e.g. geolocation notifications clipboard-read",
    )  # fmt: skip
    sub.add_argument("--origin", default=None, metavar="ORIGIN", help="default: every origin")


def state_commands(group: Group) -> dict[str, tuple[str, Define | None]]:
    """``name -> (help, define)`` of the cookies, state and set commands."""
    cookies = group(
        [
            ("get", "list cookies (the default)", _cookies_get),
            ("set", "set a cookie", _cookies_set),
            ("clear", "remove cookies (all, or those matching the filters)", _cookies_clear),
        ],
        "action",
        "cookies",
    )
    state = group(
        [
            ("save", "save cookies and localStorage to a JSON file", _path),
            ("load", "load cookies and localStorage from a JSON file", _path),
        ],
        "action",
        "state",
    )
    emulate = group(
        [
            ("viewport", "set the page area to WIDTH x HEIGHT CSS pixels", _viewport),
            ("device", "emulate a phone, tablet or desktop", _device),
            ("offline", "cut the network off or restore it", _offline),
            ("headers", "send extra HTTP headers with every request", _headers_arg),
            ("geo", "report this geolocation (and grant the permission)", _geo),
            ("media", "prefer a color scheme", _media),
            ("locale", "language and formats", _text("LOCALE", "e.g. de-DE")),
            ("timezone", "time zone", _text("ZONE", "e.g. Europe/Berlin")),
            ("useragent", "User-Agent header and navigator.userAgent", _text("UA", "")),
            ("permissions", "grant permissions", _permissions),
            ("reset", "stop emulating anything", None),
        ],
        "what",
        "set",
    )
    return {
        "cookies": ("list, set or clear cookies (`cookies` alone lists them)", cookies),
        "state": ("save or load cookies and localStorage (Playwright's JSON)", state),
        "set": ("emulate a device, viewport, network state, locale...", emulate),
    }
