"""The scripted 'model' of ``python -m benchmarks agent-steps``: flows, what it saw, how it acts.

A flow is a list of :class:`Intent` ("fill the field labelled Email with
...", "click Sort by price"). The model resolves each intent to an id the
way a language model would: by finding the line with that role and name in
the text it was last given (a whole snapshot replaces what it knew, a diff
updates it), so the ids it uses are always ones it read. It looks at the
page (a snapshot or diff call, counted) after a click or a scroll, and
whenever the element it needs next is not in what it has seen. When an
action fails because the id went stale it looks again and retries once
(counted). Every character of every reply is text the model reads.

The contenders (``benchmarks._steps_drivers``) differ only in how they act
and what their replies say; :class:`View` reads the three formats: kobrowser's
numbered lines and ``+``/``-``/``~`` diffs, Playwright's YAML with ``[ref=eN]``
and agent-browser's lines with ``[ref=eN]`` (its deltas quote them in JSON).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Literal, Protocol

__all__ = ["FLOWS", "Driver", "Intent", "Reply", "Stats", "View", "run_flow"]

Verb = Literal["fill", "click", "select", "check", "scroll"]
FIELD = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
BUTTON = frozenset({"button"})


@dataclass(frozen=True)
class Intent:
    """One thing the model wants done: a verb, the element's roles and exact name, a value."""

    verb: Verb
    name: str = ""
    roles: frozenset[str] = BUTTON
    value: str = ""

    def __str__(self) -> str:
        value = f" = {self.value!r}" if self.value else ""
        return f"{self.verb} {self.name!r}{value}"


def fill(name: str, value: str) -> Intent:
    return Intent("fill", name, FIELD, value)


def click(name: str, roles: frozenset[str] = BUTTON) -> Intent:
    return Intent("click", name, roles)


def select(name: str, value: str) -> Intent:
    return Intent("select", name, frozenset({"combobox", "listbox"}), value)


def check(name: str, role: str = "checkbox") -> Intent:
    return Intent("check", name, frozenset({role}))


def scroll_to(name: str) -> Intent:
    """Scroll down until a button named ``name`` shows (then nothing: the next intent acts)."""
    return Intent("scroll", name)


FLOWS: dict[str, list[Intent]] = {
    "form": [
        fill("Full name", "Ana Lopez"),
        fill("Email", "ana@example.org"),
        fill("Phone", "+43 660 1234567"),
        fill("Street", "Ringstrasse 1"),
        fill("City", "Vienna"),
        fill("Postal code", "1010"),
        select("Country", "Austria"),
        check("Express (next day)", "radio"),
        check("Gift wrap"),
        fill("Delivery notes", "Leave it with the neighbour at number 3."),
        click("Continue to payment"),
        fill("Card number", "4242 4242 4242 4242"),
        fill("Expiry", "12/29"),
        fill("Security code", "123"),
        check("I accept the terms"),
        click("Place order"),
    ],
    "list": [
        fill("Search products", "wool"),
        click("Sort by price"),
        click("Add Wool Socks to cart"),
        select("Category", "Shoes"),
        click("Add Wool Lounger to cart"),
        fill("Search products", ""),
        select("Category", "Hats"),
        click("Sort by name"),
        click("Add Straw Hat to cart"),
        click("Cart (3)"),
    ],
    "table": [
        step
        for item, qty, price in (
            ("Nut M4", "280", "0.06"),
            ("Hinge large", "30", "4.00"),
            ("Screw 4x40", "600", "0.05"),
            ("Rivet", "750", "0.04"),
        )
        for step in (
            click(f"Edit {item}"),
            fill(f"Quantity of {item}", qty),
            fill(f"Price of {item}", price),
            click(f"Save {item}"),
        )
    ],
    "feed": [
        click("Like post 2"),
        scroll_to("Like post 15"),
        click("Like post 15"),
        scroll_to("Like post 27"),
        click("Like post 27"),
        click("Show 2 new posts"),
        click("Like post 102"),
        scroll_to("Like post 38"),
        click("Like post 38"),
    ],
}

#: What each flow's page must report at the end for the flow to count as done.
GOALS: dict[str, Callable[[object], bool]] = {
    "form": lambda s: (
        isinstance(s, dict)
        and isinstance(s.get("placed"), dict)
        and s["placed"].get("speed") == "express"
        and s["placed"].get("Country") == "Austria"
        and s["placed"].get("gift") == "on"
    ),
    "list": lambda s: (
        isinstance(s, dict) and s.get("cart") == ["Wool Socks", "Wool Lounger", "Straw Hat"]
    ),
    "table": lambda s: (
        isinstance(s, list)
        and {(r["name"], r["qty"], r["price"]) for r in s}
        >= {
            ("Nut M4", 280, "0.06"),
            ("Hinge large", 30, "4.00"),
            ("Screw 4x40", 600, "0.05"),
            ("Rivet", 750, "0.04"),
        }
    ),
    "feed": lambda s: isinstance(s, dict) and s.get("liked") == [2, 15, 27, 102, 38],
}


# -- what the model saw ----------------------------------------------------------------

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_KB_LINE = re.compile(rf"^\s*(\d+): ([a-zA-Z]+)(?: {_QUOTED})?")
_KB_ADDED = re.compile(rf"^\+ (\d+): ([a-zA-Z]+)(?: {_QUOTED})?")
_KB_CHANGED = re.compile(rf"^~ (\d+): ([a-zA-Z]+)(?: {_QUOTED})?")
_KB_REMOVED = re.compile(r"^- .*\(was (\d+)\)\s*$")
_REF_LINE = re.compile(r'- ([a-zA-Z]+)(?: \\?"(.*?)\\?")?[^\n]*?\bref=(\w+)')


def _unquote(text: str | None) -> str:
    return (text or "").replace('\\"', '"').replace("\\\\", "\\")


class View:
    """The elements the model knows of: id -> (role, name), in the order it read them."""

    def __init__(self) -> None:
        self.lines: dict[str, tuple[str, str]] = {}
        self.stale = 0  # stale-id errors met

    def find(self, intent: Intent) -> str | None:
        """The id of the element the intent means (the latest read, if several)."""
        found = None
        for ref, (role, name) in self.lines.items():
            if role in intent.roles and name == intent.name:
                found = ref
        return found

    def read_kobrowser(self, text: str) -> None:
        """kobrowser text: a whole snapshot replaces the view, a diff updates it."""
        lines = text.splitlines()
        if any(_KB_ADDED.match(x) or _KB_CHANGED.match(x) or _KB_REMOVED.match(x) for x in lines):
            for line in lines:
                if (m := _KB_ADDED.match(line)) or (m := _KB_CHANGED.match(line)):
                    self.lines.pop(m.group(1), None)  # re-read: latest last
                    self.lines[m.group(1)] = (m.group(2), _unquote(m.group(3)))
                elif m := _KB_REMOVED.match(line):
                    self.lines.pop(m.group(1), None)
            return
        whole = {}
        for line in lines:
            if m := _KB_LINE.match(line):
                whole[m.group(1)] = (m.group(2), _unquote(m.group(3)))
        if whole:
            self.lines = whole

    def read_refs(self, text: str, *, whole: bool) -> None:
        """Lines with ``[ref=eN]`` (Playwright, agent-browser): refs name elements."""
        found = {}
        for line in text.splitlines():
            if m := _REF_LINE.search(line):
                found[m.group(3)] = (m.group(1), _unquote(m.group(2)))
        if whole and found:
            self.lines = found
        else:
            for ref, entry in found.items():
                self.lines.pop(ref, None)
                self.lines[ref] = entry


# -- the run -----------------------------------------------------------------------------


@dataclass
class Reply:
    """What one call answered: its text (all read by the model) and how it went."""

    text: str
    stale: bool = False
    error: bool = False


class Driver(Protocol):
    """A contender: how the model opens, looks and acts (see ``benchmarks._steps_drivers``)."""

    #: The action replies carry the page (no look needed after a click).
    replies_show_page: bool

    async def open(self, url: str) -> Reply: ...

    async def look(self) -> Reply: ...

    async def act(self, intent: Intent, ref: str) -> Reply: ...

    async def scroll(self) -> Reply: ...

    def read(self, view: View, reply: Reply, *, look: bool) -> None: ...


@dataclass
class Stats:
    """What one flow cost one contender."""

    steps: int = 0
    snapshots: int = 0
    stale: int = 0
    tokens: int = 0
    done: bool = False
    biggest: list[tuple[int, str]] = field(default_factory=list)
    failure: str = ""


class FlowFailed(Exception):
    """The model could not go on (an element it needs never showed, an action failed)."""


async def run_flow(
    driver: Driver, url: str, intents: list[Intent], count: Callable[[str], int]
) -> Stats:
    """Run one flow with one contender; returns its counts (``done`` is set by the caller)."""
    stats = Stats()
    view = View()

    async def call(make: Callable[[], Awaitable[Reply]], what: str, *, look: bool) -> Reply:
        reply = await make()
        stats.steps += 1
        tokens = count(reply.text)
        stats.tokens += tokens
        stats.biggest.append((tokens, what))
        if look:
            stats.snapshots += 1
        if os.environ.get("AGENT_STEPS_TRACE"):
            print(f"--- {what} ({tokens} tokens)\n{reply.text}", file=sys.stderr, flush=True)
        driver.read(view, reply, look=look)
        return reply

    async def looked() -> None:
        await call(driver.look, "look", look=True)

    try:
        await _steps(driver, url, intents, view, call, looked)
    except FlowFailed as exc:
        stats.failure = str(exc)
    stats.stale = view.stale
    stats.biggest = sorted(stats.biggest, reverse=True)[:3]
    return stats


async def _steps(
    driver: Driver,
    url: str,
    intents: list[Intent],
    view: View,
    call: Callable[..., Awaitable[Reply]],
    looked: Callable[[], Awaitable[None]],
) -> None:
    reply = await call(lambda: driver.open(url), "open", look=False)
    if reply.error:
        raise FlowFailed(f"open failed: {reply.text[:300]}")
    if not view.lines:
        await looked()
    for intent in intents:
        if intent.verb == "scroll":
            for _ in range(6):
                if view.find(Intent("click", intent.name)) is not None:
                    break
                await call(driver.scroll, "scroll", look=False)
                if not driver.replies_show_page:
                    await looked()
            else:
                raise FlowFailed(f"{intent.name!r} never showed while scrolling")
            continue
        ref = view.find(intent)
        if ref is None:
            await looked()
            ref = view.find(intent)
        if ref is None:
            raise FlowFailed(f"{intent}: not in the page the model saw")
        reply = await call(partial(driver.act, intent, ref), str(intent), look=False)
        if reply.stale:
            view.stale += 1
            if view.find(intent) in (None, ref):
                await looked()
            ref = view.find(intent)
            if ref is None:
                raise FlowFailed(f"{intent}: gone after a stale id")
            retry = partial(driver.act, intent, ref)
            reply = await call(retry, f"{intent} (retry)", look=False)
        if reply.error:
            raise FlowFailed(f"{intent} failed: {reply.text[:300]}")
        if intent.verb == "click" and not driver.replies_show_page:
            await looked()
