"""The US layout and combo parsing (pure), and key events as the page sees them."""

from __future__ import annotations

import string
from typing import Any

import pytest

from kobrowser._tab._input import modifier_mask
from kobrowser._validate._keys import key_for_char, parse_combo, resolve_key

from ._pages import find, top_log

# -- pure ---------------------------------------------------------------------


def test_every_printable_ascii_character_has_a_key() -> None:
    for char in string.ascii_letters + string.digits + string.punctuation + " ":
        found = key_for_char(char)
        assert found is not None, char
        key, shifted = found
        assert (key.shift_key if shifted else key.key) == char or char == " "
        assert key.text, char


def test_shift_is_needed_exactly_for_upper_case_and_shifted_symbols() -> None:
    assert key_for_char("a") == (resolve_key("a"), False)
    assert key_for_char("A") == (resolve_key("a"), True)
    assert key_for_char("1")[1] is False  # type: ignore[index]
    assert key_for_char("!")[1] is True  # type: ignore[index]
    assert key_for_char("!")[0].code == "Digit1"  # type: ignore[index]
    assert key_for_char("?")[0].code == "Slash"  # type: ignore[index]
    assert key_for_char("é") is None


def test_named_keys_and_aliases() -> None:
    assert resolve_key("Enter").key_code == 13
    assert resolve_key("Return") == resolve_key("Enter")
    assert resolve_key("enter") == resolve_key("Enter")
    assert resolve_key("Esc").key == "Escape"
    assert resolve_key("KeyA").key == "a"
    assert resolve_key("ArrowLeft").code == "ArrowLeft"
    assert resolve_key("F5").key_code == 116
    assert resolve_key("Space").key == " "
    assert resolve_key("Tab").text == "\t"
    with pytest.raises(ValueError, match="unknown key"):
        resolve_key("Hyper")


def test_parse_combo() -> None:
    mods, key, shifted = parse_combo("Control+a")
    assert (mods, key.key, shifted) == (["Control"], "a", False)
    mods, key, shifted = parse_combo("ctrl+shift+ArrowLeft")
    assert (mods, key.key, shifted) == (["Control", "Shift"], "ArrowLeft", False)
    mods, key, shifted = parse_combo("A")
    assert (mods, key.key, shifted) == ([], "a", True)
    mods, key, _ = parse_combo("+")
    assert (mods, key.key) == ([], "=")
    mods, key, shifted = parse_combo("Control++")
    assert (mods, key.code, shifted) == (["Control"], "Equal", True)
    mods, _, _ = parse_combo("Cmd+Alt+Alt+x")
    assert mods == ["Meta", "Alt"]
    for bad in ("", "Control+", "Hyper+a", "Control+Nope"):
        with pytest.raises(ValueError):
            parse_combo(bad)


def test_modifier_mask() -> None:
    assert modifier_mask([]) == 0
    assert modifier_mask(["Alt", "Control", "Meta", "Shift"]) == 15
    assert modifier_mask(["ctrl", "cmd"]) == 2 | 4
    with pytest.raises(ValueError, match="unknown modifier"):
        modifier_mask(["Hyper"])


# -- in the browser -----------------------------------------------------------


@pytest.mark.anyio
async def test_press_combos_reach_the_page(open_tab: Any, page_url: Any) -> None:
    async with open_tab(page_url('<input id="t" aria-label="Field" value="hello world">')) as tab:
        snap = await tab.snapshot()
        field = find(snap, "textbox", "Field")
        await tab.focus(field.id)
        await tab.press("End")
        await tab.press("Shift+ArrowLeft")
        await tab.press("Shift+ArrowLeft")
        await tab.press("Backspace")
        assert await tab.value(field.id) == "hello wor"
        await tab.press("Control+a")
        await tab.press("Delete")
        assert await tab.value(field.id) == ""
        await tab.press("Shift+a")
        await tab.press("?")
        await tab.press("Space")
        assert await tab.value(field.id) == "A? "
        downs = [
            (e["key"], e["code"], e["shift"], e["ctrl"], e["trusted"])
            for e in await top_log(tab, "keydown")
        ]
        assert ("a", "KeyA", False, True, True) in downs  # Control+a
        assert ("A", "KeyA", True, False, True) in downs
        assert ("?", "Slash", True, False, True) in downs
        assert ("Backspace", "Backspace", False, False, True) in downs
        with pytest.raises(ValueError):
            await tab.press("Hyper+x")


@pytest.mark.anyio
async def test_tab_moves_focus_and_enter_submits(open_tab: Any, page_url: Any) -> None:
    body = (
        '<form id="f"><input id="a" aria-label="First"><input id="b" aria-label="Second">'
        "<button>Go</button></form>"
    )
    async with open_tab(page_url(body)) as tab:
        snap = await tab.snapshot()
        await tab.type(find(snap, "textbox", "First").id, "one\ttwo\n")
        assert await tab.evaluate("document.getElementById('a').value") == "one"
        assert await tab.evaluate("document.getElementById('b').value") == "two"
        submits = await top_log(tab, "submit")
        assert [(e["target"], e["trusted"]) for e in submits] == [("f", True)]
