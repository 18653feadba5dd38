"""Arguments of the page commands (stdlib only): open and history, snapshot,
find, diff, screenshot, pdf, the element actions, get, is, wait, tab and eval.

``_parser`` puts :func:`page_commands` first in its command table.
"""

from __future__ import annotations

import argparse

from kobrowser.cli._client._argtypes import element_id, existing_file, number, whole

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable

    Define = Callable[[argparse.ArgumentParser], None]
    Group = Callable[[list[tuple[str, str, Define | None]], str, str], Define]

__all__ = ["LOAD_STATES", "SELECTOR_STATES", "page_commands"]

LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")
SELECTOR_STATES = ("visible", "hidden", "attached", "detached")


def _id(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("id", type=element_id, metavar="ID", help="element id from the snapshot")


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


def _snapshot_command(sub: argparse.ArgumentParser) -> None:
    _snapshot(sub)
    sub.add_argument(
        "--diff", action="store_true",
        help="print only what changed since the previous snapshot of the tab (the whole "
        "snapshot when there is none, or the page navigated since)",
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
    sub.add_argument("files", nargs="+", type=existing_file, metavar="FILE", help="files to upload")


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


def page_commands(group: Group) -> dict[str, tuple[str, Define | None]]:
    """name -> (help, how to define its arguments) of the page commands, in help order."""
    return {
        "open": ("open a URL in the current tab (a new tab if there is none)", _open),
        "back": ("go back in history", None),
        "forward": ("go forward in history", None),
        "reload": ("reload the page", None),
        "snapshot": (
            "print the numbered accessibility snapshot of the current tab",
            _snapshot_command,
        ),
        "find": ("print the lines of a new snapshot that match role, name or text", _find),
        "diff": (
            "take a snapshot and print what changed since the previous one (ids of the new one)",
            _diff,
        ),
        "screenshot": (
            "save a screenshot (optionally with the snapshot ids drawn on it)",
            _screenshot,
        ),
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
            group(
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
            group(
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
            group(
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
    }
