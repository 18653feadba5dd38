"""Print every argument error message, generated from the code (issue 18).

    python scripts/list_argument_errors.py [--markdown]

1. The library: one bad value per rule of ``kobrowser._validate.RULES``
   (what ``InvalidArgumentError`` says, before any browser call).
2. The command line: each argparse ``type`` of every ``ko-browser`` command
   (``ko-browser scrape`` included) given bad text, and each ``choices`` given
   a value outside it (what the one usage line says, exit status 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kobrowser._validate import argument_errors
from kobrowser.cli._client._parser import build_parser
from kobrowser.cli._scrape import build_parser as build_scrape_parser

BAD_TEXTS = ("x", "-1", "0", "nan", "inf", "")


def library() -> list[tuple[str, str]]:
    return argument_errors()


def command_line() -> list[tuple[str, str]]:
    seen: dict[str, str] = {}

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*words, name))
                continue
            where = " ".join(words) or "ko-browser"
            label = (
                action.option_strings[-1]
                if action.option_strings
                else action.metavar or action.dest
            )
            if action.type is not None and callable(action.type):
                for text in BAD_TEXTS:
                    try:
                        action.type(text)
                    except (argparse.ArgumentTypeError, ValueError) as exc:
                        message = f"argument {label}: {exc}"
                        seen.setdefault(message, where)
            if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
                choices = ", ".join(map(repr, action.choices))
                message = f"argument {label}: invalid choice: 'x' (choose from {choices})"
                seen.setdefault(message, where)

    walk(build_parser(), ())
    walk(build_scrape_parser(), ("scrape",))
    return [(where, message) for message, where in seen.items()]


def main() -> int:
    markdown = "--markdown" in sys.argv[1:]
    sections = [
        ("Library (InvalidArgumentError)", library()),
        ("Command line (usage error, exit 2)", command_line()),
    ]
    for title, rows in sections:
        print(f"## {title}\n" if markdown else f"{title}:")
        for key, message in rows:
            print(f"- `{key}`: {message}" if markdown else f"  {key:18} {message}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
