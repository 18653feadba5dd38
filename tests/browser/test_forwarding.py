"""Browser's verbs are Tab's, written out: same names, same signatures.

The rule (Browser's docstring): Browser keeps the verbs an agent uses on the
current tab, listed in ``VERBS``, written out with :class:`Tab`'s exact
signatures, and ``TabVerbs`` (the protocol ``tab.browser`` is typed with)
lists exactly them with the same signatures. Every other public member of
:class:`Tab` is in ``NOT_FORWARDED`` with the reason, and Browser has no
member of that name. A new public Tab member fails these tests until it is
put in one of the two lists below.
"""

from __future__ import annotations

import inspect
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from kobrowser import Browser, Tab
from kobrowser._tab._verbs import TabVerbs

VERBS = frozenset(
    {
        # snapshot and scripts
        "snapshot",
        "changes",
        "find",
        "evaluate",
        "title",
        "do",
        # navigation and waits
        "open",
        "reload",
        "back",
        "forward",
        "wait_for_load",
        "wait_for_url",
        "wait_for_text",
        "wait_for_selector",
        "wait_for_function",
        "wait",
        # actions by id
        "click",
        "dblclick",
        "hover",
        "drag",
        "scroll_into_view",
        "scroll",
        "focus",
        "fill",
        "type",
        "press",
        "select",
        "check",
        "uncheck",
        "upload",
        # readers
        "text",
        "html",
        "value",
        "attr",
        "is_visible",
        "is_enabled",
        "is_checked",
        "box",
        # pictures
        "screenshot",
        "pdf",
    }
)

#: Verbs Browser writes out but does not forward: Browser.do runs ``tab N`` too.
OWN_VERBS = frozenset({"do"})

NOT_FORWARDED = {
    "browser": "the tab's browser: on a Browser that is the Browser itself",
    "close": "closing the current tab by a Browser method would read as closing the browser;"
    " Browser.aclose() closes the browser, browser.tab.close() the tab",
    "closed": "tab state; the Browser has no single closed tab (see browser.tab.closed)",
    "context": "tab state: which context a tab lives in (see browser.tab.context)",
    "opener": "tab state: which tab opened this one (see browser.tab.opener)",
    "url": "tab state, a property: a Browser-level URL would hide which tab it reads"
    " (see browser.tab.url)",
    "timeout": "Browser has its own `timeout` attribute, the default every tab uses",
    "last_snapshot": "tab state: each tab keeps its own latest snapshot and id map",
    "set_viewport": "tab state: one tab's own viewport over its context's"
    " (see browser.tab.set_viewport; a context's is BrowserContext.emulate)",
    "network": "a family with its own state: each tab's routes and request log"
    " (browser.tab.network); a route installed on whichever tab is current would"
    " silently move with switch_to",
    "console": "a family with its own state: each tab's console log and callbacks"
    " (browser.tab.console)",
    "dialogs": "a family with its own state: each tab's dialogs and handler (browser.tab.dialogs)",
    "screencast": "a watch of one tab's pictures: on a Browser it would silently stay on the"
    " tab current when it started (browser.tab.screencast())",
    "tracing": "not forwarded: Browser.tracing records every tab, Tab.tracing only its own",
    "start_video": "a recording of one tab: on a Browser it would silently stay on the tab"
    " current when it started (browser.tab.start_video(), or new_context(record_video=))",
}

#: Tab members Browser has under the same name with its own meaning (not forwards).
SAME_NAME_OWN = frozenset({"tracing"})

HOW_TO_FIX = (
    "Every public Tab member must be listed in tests/browser/test_forwarding.py: "
    "add a verb to VERBS, to kobrowser._tab._verbs.TabVerbs and write it out on Browser "
    "(kobrowser/_browser/_browser.py: same signature, calling self.tab.<name> "
    "with every argument, no **kwargs), or add it to NOT_FORWARDED with the reason."
)


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_every_public_tab_member_is_listed() -> None:
    unlisted = _public(Tab) - VERBS - NOT_FORWARDED.keys()
    assert not unlisted, f"Tab members in neither list: {sorted(unlisted)}. {HOW_TO_FIX}"


def test_the_lists_name_only_tab_members() -> None:
    stale = (VERBS | NOT_FORWARDED.keys()) - _public(Tab)
    assert not stale, f"listed but not public on Tab (renamed or removed?): {sorted(stale)}"
    both = VERBS & NOT_FORWARDED.keys()
    assert not both, f"in both lists: {sorted(both)}"
    assert all(reason.strip() for reason in NOT_FORWARDED.values())


def test_the_verbs_protocol_lists_exactly_the_verbs() -> None:
    assert _public(TabVerbs) == VERBS


def test_browser_has_no_other_tab_member() -> None:
    # Families and tab state are reached on browser.tab, never on the Browser.
    shared = (_public(Browser) & _public(Tab)) - VERBS - SAME_NAME_OWN
    assert not shared, f"Browser forwards {sorted(shared)}, which are not verbs. {HOW_TO_FIX}"


@pytest.mark.parametrize("name", sorted(VERBS))
def test_verb_has_tabs_signature_on_browser_and_the_protocol(name: str) -> None:
    assert name in vars(Browser), f"Browser.{name} is missing. {HOW_TO_FIX}"
    tab_method = inspect.getattr_static(Tab, name)
    browser_method = vars(Browser)[name]
    protocol_method = vars(TabVerbs)[name]
    assert inspect.isfunction(tab_method) and inspect.isfunction(browser_method)
    assert inspect.signature(browser_method) == inspect.signature(tab_method), (
        f"Browser.{name}{inspect.signature(browser_method)} differs from "
        f"Tab.{name}{inspect.signature(tab_method)}: write Tab's signature out on Browser"
    )
    assert inspect.signature(protocol_method) == inspect.signature(tab_method), (
        f"TabVerbs.{name}{inspect.signature(protocol_method)} differs from "
        f"Tab.{name}{inspect.signature(tab_method)}: write Tab's signature out on TabVerbs"
    )
    assert inspect.iscoroutinefunction(browser_method) == inspect.iscoroutinefunction(tab_method)
    assert inspect.iscoroutinefunction(protocol_method) == inspect.iscoroutinefunction(tab_method)
    assert browser_method.__doc__ and f":meth:`Tab.{name}`" in browser_method.__doc__


def test_browser_docstring_states_the_rule() -> None:
    doc = Browser.__doc__ or ""
    for name in VERBS:
        assert f":meth:`{name}`" in doc, f"Browser's docstring does not list the verb {name}"
    for family in ("network", "console", "dialogs"):
        assert f"browser.tab.{family}" in doc


def test_browser_is_one_class() -> None:
    assert Browser.__mro__ == (Browser, object)


class _Recorder:
    """Stands in for the current tab: records the call of any method."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        async def method(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            return f"result of {name}"

        return method


def _sample_arguments(signature: inspect.Signature) -> tuple[list[Any], dict[str, Any]]:
    """One distinct value for every parameter (two for ``*args``), nothing left to a default."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in list(signature.parameters.values())[1:]:  # not self
        value = f"<{parameter.name}>"
        if parameter.kind is parameter.POSITIONAL_OR_KEYWORD:
            args.append(value)
        elif parameter.kind is parameter.VAR_POSITIONAL:
            args.extend([f"{value}1", f"{value}2"])
        elif parameter.kind is parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:  # pragma: no cover - Tab's methods take none of the other kinds
            raise AssertionError(f"unexpected parameter {parameter}")
    return args, kwargs


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(VERBS - OWN_VERBS))
async def test_forwarded_method_passes_every_argument(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = _Recorder()
    monkeypatch.setattr(Browser, "tab", property(lambda self: recorder))
    signature = inspect.signature(getattr(Tab, name))
    args, kwargs = _sample_arguments(signature)
    result = await getattr(Browser(), name)(*args, **kwargs)
    assert len(recorder.calls) == 1
    called, call_args, call_kwargs = recorder.calls[0]
    assert called == name
    sent = signature.bind(None, *call_args, **call_kwargs)
    expected = signature.bind(None, *args, **kwargs)
    sent.apply_defaults()
    expected.apply_defaults()
    assert sent.arguments == expected.arguments
    if signature.return_annotation != "None":
        assert result == f"result of {name}"


def test_mypy_rejects_a_misspelt_keyword(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``**options: Any``: a typo in a Browser call is a type error.

    What users reach from a tab above it (``tab.browser``, ``tab.context``)
    and the emulation options (one TypedDict) are typed as well.
    """
    api = pytest.importorskip("mypy.api")
    root = Path(__file__).resolve().parents[2]
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """\
            import kobrowser


            async def main(browser: kobrowser.Browser) -> None:
                await browser.click(5, button="right", click_count=2)
                await browser.fill(3, "text", timeout=1.5)
                await browser.click(5, buton=1)
                tab = browser.tab
                text: str = await tab.browser.text(5)
                context = await browser.new_context(locale="de-DE", viewport=(800, 600))
                assert tab.context is context and tab.context.browser is tab.browser
                await context.emulate(timezone_id="Europe/Berlin", offline=True)
                await tab.network.route("**/*.png", lambda route: route.abort())
                await context.emulate(lcale="de-DE")
            """
        )
    )
    monkeypatch.setenv("MYPYPATH", str(root))  # finds kobrowser from any working directory
    # The project's own mypy settings and cache (scripts/test.sh runs mypy
    # just before pytest, so kobrowser is checked from the cache: ~0.5 s
    # instead of ~7 s; a stale or missing cache is only slower).
    # mypy raises the interpreter's recursion limit to 16384 and leaves it so;
    # later tests that need a RecursionError at the default limit then fail.
    limit = sys.getrecursionlimit()
    try:
        out, err, status = api.run(
            [
                "--config-file",
                str(root / "pyproject.toml"),
                "--cache-dir",
                str(root / ".mypy_cache"),
                "--no-error-summary",
                str(probe),
            ]
        )
    finally:
        sys.setrecursionlimit(limit)
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1, (out, err)
    assert len(errors) == 2, out
    assert f"{probe.name}:7:" in errors[0] or f"{os.sep}probe.py:7:" in errors[0], out
    assert 'Unexpected keyword argument "buton"' in errors[0], out
    assert f"{probe.name}:14:" in errors[1] or f"{os.sep}probe.py:14:" in errors[1], out
    assert 'Unexpected keyword argument "lcale"' in errors[1], out
