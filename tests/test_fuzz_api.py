"""Generated arguments for every public Tab method raise only KoBrowserError subclasses.

The methods and their parameters are read off :class:`kobrowser.Tab` and the
classes of the objects on it (``tab.network``, ``tab.console``,
``tab.dialogs``) with ``inspect``, so a new method is fuzzed without touching
this file. Each
parameter gets a mix of good and bad values chosen by its name (unknown
names get anything at all). The deadlines drawn are short, so a wait that
never ends ends soon. Fixed budget: a few hundred calls on one tab.
"""

from __future__ import annotations

import inspect
import math
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kobrowser
from kobrowser import Browser, KoBrowserError, Tab

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

PAGE = """<!doctype html><title>API fuzz</title>
<button onclick="document.title = 'clicked'">Go</button>
<input aria-label=Name><input type=checkbox aria-label=Agree>
<select aria-label=Color multiple><option>Red</option><option>Green</option></select>
<input type=file aria-label=File><a href="#x">Link</a><p>Some text</p>
<div style="height:2000px">tall</div>"""

#: Not fuzzed: close() ends the tab for the next examples (it is called last).
SKIPPED = {"close"}

#: The objects on a tab whose methods are fuzzed too, as ``"network.route"``...
FAMILIES = {
    "network": kobrowser.Network,
    "console": kobrowser.Console,
    "dialogs": kobrowser.Dialogs,
}

ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**64), 2**64),
    st.floats(),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    st.just(object()),
)


def _short(value: Any) -> bool:
    """Not a real number of milliseconds above 2 s (``wait(81374)`` sleeps 81 s, as asked)."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return not (is_number and value > 2000)


IDS = st.one_of(st.integers(-2, 12), st.sampled_from([True, False, 1.0, "1", None, 2**70]))
TIMEOUTS = st.sampled_from([0.3, 1, 1, 0, -1, math.nan, math.inf, "1", True, [1]])
TEXT = st.one_of(
    st.sampled_from(["Go", "hello", "", " ", "Enter", "\ud800", "a" * 2000, "Some text"]),
    st.text(max_size=12),
    ANYTHING,
)


def strategies(path: Path, url: str) -> dict[str, st.SearchStrategy[Any]]:
    """Parameter name -> values (good and bad)."""
    return {
        "element_id": IDS,
        "source_id": IDS,
        "target_id": IDS,
        "timeout": TIMEOUTS,
        "url": st.one_of(
            st.sampled_from([url, "about:blank", "data:text/html,<p>x", "example.com", ""]),
            st.sampled_from(["http://[bad", "\udc80", "javascript:void 0", "**/fuzz*"]),
            st.just(re.compile("fuzz")),
            st.just(lambda u: True),
            ANYTHING,
        ),
        "wait_until": st.sampled_from(["commit", "load", "domcontentloaded", "x", None, 1]),
        "state": st.sampled_from(["load", "visible", "hidden", "attached", "nope", None]),
        "referrer": st.one_of(st.none(), st.sampled_from([url, "x", ""]), ANYTHING),
        "selector": st.one_of(
            st.none(), st.sampled_from(["button", "#nope", "", "[[", "p", "body *"]), ANYTHING
        ),
        "interactive": st.one_of(st.booleans(), ANYTHING),
        "compact": st.one_of(st.booleans(), ANYTHING),
        "depth": st.one_of(st.none(), st.integers(-1, 4), ANYTHING),
        "key": st.one_of(
            st.sampled_from(["Enter", "Tab", "Control+a", "a", "+", "Nope", "", "Shift+"]), TEXT
        ),
        "button": st.sampled_from(["left", "right", "middle", "back", "", None]),
        "click_count": st.one_of(st.integers(-1, 4), st.sampled_from([10**9, True, 1.5])),
        "modifiers": st.one_of(
            st.lists(st.sampled_from(["Shift", "Control", "Alt", "Meta", "Hyper", 3]), max_size=2),
            ANYTHING,
        ),
        "steps": st.one_of(st.integers(-1, 5), st.sampled_from([10**6, 2.5])),
        "direction": st.sampled_from(["up", "down", "left", "right", "sideways", None]),
        "amount": st.one_of(st.integers(-100, 500), st.floats(), ANYTHING),
        "delay": st.one_of(st.sampled_from([0, 1, -1, math.nan, 10**9]), ANYTHING),
        # wait(ms) sleeps as long as asked: a long real sleep is not a hang.
        "ms": st.one_of(
            st.sampled_from([0, 10, 100, -1, math.nan, math.inf, "5"]), ANYTHING.filter(_short)
        ),
        "value": TEXT,
        "text": TEXT,
        "name": st.one_of(st.sampled_from(["href", "aria-label", "", "\ud800"]), ANYTHING),
        "values": st.lists(st.one_of(st.sampled_from(["Red", "Green", "Blue", ""]), ANYTHING),
                           max_size=3),
        "files": st.lists(st.one_of(st.just(str(path)), st.just(str(path.parent / "no.txt")),
                                    ANYTHING), max_size=2),
        "expression": st.one_of(
            st.sampled_from(["1 + 1", "document.title", "{", "throw 1", "", "true", "null"]),
            ANYTHING,
        ),
        "handler": st.one_of(st.none(), st.just(lambda dialog: None), ANYTHING),
        "action": st.one_of(
            st.sampled_from(["click 1", "press Enter", "bogus 3", 'fill 2 "x"', ""]), ANYTHING
        ),
        "path": st.one_of(
            st.none(), st.just(str(path.parent / "out.png")), st.just(str(path.parent)), ANYTHING
        ),
        "width": st.one_of(st.integers(-1, 2000), ANYTHING),
        "height": st.one_of(st.integers(-1, 2000), ANYTHING),
    }  # fmt: skip


def good_values(path: Path, url: str) -> dict[str, st.SearchStrategy[Any]]:
    """Parameter name -> values a careful caller passes (drawn two times in three)."""
    return {
        "element_id": st.integers(1, 9),
        "source_id": st.integers(1, 9),
        "target_id": st.integers(1, 9),
        "timeout": st.sampled_from([0.3, 1.0]),
        "url": st.sampled_from([url, "about:blank"]),
        "wait_until": st.sampled_from(["commit", "load"]),
        "key": st.sampled_from(["Enter", "Tab", "a", "Control+a"]),
        "text": st.sampled_from(["hello", "Go", ""]),
        "value": st.sampled_from(["hello", ""]),
        "selector": st.sampled_from(["button", "p"]),
        "expression": st.sampled_from(["1 + 1", "document.title"]),
        "direction": st.sampled_from(["up", "down"]),
        "amount": st.integers(0, 300),
        "ms": st.integers(0, 20),
        "values": st.lists(st.sampled_from(["Red", "Green"]), min_size=1, max_size=2),
        "files": st.just([str(path)]),
    }


def public_methods() -> dict[str, inspect.Signature]:
    found = {}
    for prefix, cls in [("", Tab)] + [(f"{name}.", cls) for name, cls in FAMILIES.items()]:
        for name, member in inspect.getmembers(cls):
            if name.startswith("_") or name in SKIPPED or not callable(member):
                continue
            if isinstance(inspect.getattr_static(cls, name), property):
                continue
            found[prefix + name] = inspect.signature(member)
    return found


METHODS = public_methods()


def test_every_public_method_is_fuzzed() -> None:
    for wanted in ("click", "fill", "press", "snapshot", "open", "wait_for_selector", "upload"):
        assert wanted in METHODS
    for wanted in ("network.route", "network.block", "console.on_message", "dialogs.handle"):
        assert wanted in METHODS
    assert set(FAMILIES) <= {name for name in dir(Tab) if not name.startswith("_")}
    # Parameters without a strategy of their own get ANYTHING.
    for name in ("click", "fill", "open"):
        assert set(METHODS[name].parameters) - {"self"} <= set(strategies(Path("/x"), "http://x/"))


@st.composite
def calls(draw: Any, path: Path, url: str) -> tuple[str, list[Any], dict[str, Any]]:
    by_name = strategies(path, url)
    for name, good in good_values(path, url).items():
        by_name[name] = st.one_of(good, good, by_name[name])
    name = draw(st.sampled_from(sorted(METHODS)))
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in list(METHODS[name].parameters.values())[1:]:
        values = by_name.get(parameter.name, ANYTHING)
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            args += draw(values if parameter.name in ("values", "files") else st.lists(values))
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            if parameter.name == "timeout" or draw(st.booleans()):
                kwargs[parameter.name] = draw(values)
        elif parameter.default is inspect.Parameter.empty or draw(st.booleans()):
            args.append(draw(values))
    return name, args, kwargs


@pytest.fixture
async def tab(browser: Browser, server: Any) -> AsyncIterator[Tab]:
    tab = await browser.new_tab(server.set_page("/api-fuzz.html", PAGE))
    try:
        yield tab
    finally:
        await tab.close()


async def test_generated_calls_raise_only_kobrowser_errors(
    tab: Tab, server: Any, tmp_path: Path
) -> None:
    upload = tmp_path / "upload.txt"
    upload.write_text("hi")
    url = server.url("/api-fuzz.html")
    await tab.snapshot()
    seen: dict[str, int] = {}
    portal = anyio.from_thread  # the hypothesis loop runs in a worker thread

    @settings(
        max_examples=int(os.environ.get("KOBROWSER_FUZZ_EXAMPLES", "200")),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(call=calls(upload, url))
    def run(call: tuple[str, list[Any], dict[str, Any]]) -> None:
        name, args, kwargs = call
        outcome = portal.run(attempt, name, args, kwargs)
        seen[outcome] = seen.get(outcome, 0) + 1

    async def attempt(name: str, args: list[Any], kwargs: dict[str, Any]) -> str:
        owner, _, attribute = name.rpartition(".")
        method = getattr(getattr(tab, owner) if owner else tab, attribute)
        try:
            with anyio.fail_after(60):  # a hang is a failure too
                result = method(*args, **kwargs)
                if inspect.isawaitable(result):
                    await result
        except KoBrowserError as exc:
            return type(exc).__name__
        except TimeoutError:
            pytest.fail(f"{name}(*{args!r}, **{kwargs!r}) hung")
        except Exception as exc:
            pytest.fail(f"{name}(*{args!r}, **{kwargs!r}) raised {exc!r}, not a KoBrowserError")
        if tab.closed:
            pytest.fail(f"{name} closed the tab")
        if tab.url != url:
            await tab.open(url)  # back to the page for the next examples
        if tab.last_snapshot is None or tab.last_snapshot.url != tab.url:
            await tab.snapshot()
        return "ok"

    await anyio.to_thread.run_sync(run)
    print("outcomes:", seen)
    assert seen.get("ok") and seen.get("InvalidArgumentError"), seen
    assert isinstance(tab, kobrowser.Tab)
