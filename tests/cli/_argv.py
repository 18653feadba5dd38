"""Hypothesis strategies of `ko-browser` command lines, read off the argparse parser.

The commands, their flags and positionals come from the parser itself (what
``--help`` prints), so a new command or flag is fuzzed without touching the
tests. Values are drawn per argument from a pool of good and bad ones
chosen by the argument's ``type``, ``choices`` and ``nargs``.
"""

from __future__ import annotations

import argparse
from typing import Any

from hypothesis import strategies as st

from kobrowser.cli._client._parser import GLOBAL_OPTIONS, build_parser

#: Values any text argument may get (odd ones included).
TEXTS = [
    "hello",
    "Enter",
    "#b",
    "button",
    "",
    " ",
    "\n",
    "-x",
    "--",
    "é \u00a0 中",
    "\udc80",  # a byte that is not UTF-8, as Python decodes argv
    "x" * 300,
    "a\tb",
    "%s%n{}",
    "'\"",
]
#: Values a number argument may get.
NUMBERS = ["0", "1", "2", "3", "-1", "1.5", "nan", "inf", "-inf", "1e309", "x", "", " 2", "٣"]
SECONDS = ["0.5", "3", "0", "-1", "nan", "inf", "1e-9", "x", ""]


def leaf_commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Command words (``("get", "text")``) -> the parser of that command."""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, prefix: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    words = (*prefix, name)
                    nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                    if nested:
                        walk(sub, words)
                    else:
                        found[words] = sub

    walk(build_parser(), ())
    return found


def _values(action: argparse.Action, pools: dict[str, list[str]]) -> st.SearchStrategy[str]:
    name = getattr(action.type, "__name__", "")
    if action.choices is not None:
        return st.one_of(st.sampled_from(list(action.choices)), st.sampled_from(TEXTS[:6]))
    if name == "element_id":
        return st.sampled_from(pools.get("id", NUMBERS))
    if name in ("seconds", "number"):  # kobrowser.cli._client._argtypes
        return st.sampled_from(SECONDS)
    if name == "whole":
        return st.sampled_from(pools.get("int", NUMBERS))
    return st.sampled_from(pools.get(action.dest, TEXTS))


def argv_strategy(
    commands: dict[tuple[str, ...], argparse.ArgumentParser],
    pools: dict[str, list[str]] | None = None,
    *,
    globals_: bool = True,
) -> st.SearchStrategy[list[str]]:
    """Command lines: a command, some of its options, its positionals (sometimes wrong)."""
    pools = pools or {}

    @st.composite
    def build(draw: Any) -> list[str]:
        words = draw(st.sampled_from(sorted(commands)))
        parser = commands[words]
        argv: list[str] = []
        if globals_ and draw(st.booleans()):
            argv += ["--timeout", draw(st.sampled_from(SECONDS))]
        if globals_ and draw(st.integers(0, 9)) == 0:
            argv.append("--json")
        argv += list(words)
        positionals: list[str] = []
        for action in parser._actions:
            if action.dest in GLOBAL_OPTIONS or action.dest == "help":
                continue
            if action.option_strings:
                if draw(st.integers(0, 2)):  # each option: one time in three
                    continue
                flag = draw(st.sampled_from(action.option_strings))
                if action.nargs == 0:
                    argv.append(flag)
                else:
                    argv += [flag, draw(_values(action, pools))]
                continue
            count = {"?": (0, 1), "+": (1, 3), "*": (0, 2)}.get(str(action.nargs), (1, 1))
            for _ in range(draw(st.integers(*count))):
                positionals.append(draw(_values(action, pools)))
        if draw(st.integers(0, 14)) == 0 and positionals:
            positionals.pop()  # one missing
        if draw(st.integers(0, 14)) == 0:
            positionals.append(draw(st.sampled_from(TEXTS)))  # one too many
        if any(p.startswith("-") for p in positionals):
            argv.append("--")
        return argv + positionals

    return build()
