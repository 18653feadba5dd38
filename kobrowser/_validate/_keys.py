"""A full US keyboard layout and key-combination parsing (pure, no I/O).

``press("Control+Shift+ArrowLeft")`` becomes modifier key-downs, the key,
then modifier key-ups, each described by what ``Input.dispatchKeyEvent``
needs: DOM ``key`` and ``code``, the Windows virtual key code, the text it
types, and the location (left/right/numpad).
"""

from __future__ import annotations

import msgspec

from kobrowser._exceptions import InvalidArgumentError

__all__ = ["MODIFIER_BITS", "KeyDef", "key_for_char", "parse_combo", "resolve_key"]


class KeyDef(msgspec.Struct, frozen=True):
    """One physical key as the browser sees it."""

    key: str
    code: str
    key_code: int
    text: str = ""
    shift_key: str | None = None  # the key value with Shift held, for printable keys
    location: int = 0


MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
_MODIFIER_ALIASES = {
    "alt": "Alt",
    "option": "Alt",
    "control": "Control",
    "ctrl": "Control",
    "meta": "Meta",
    "cmd": "Meta",
    "command": "Meta",
    "super": "Meta",
    "shift": "Shift",
}


def _build() -> tuple[dict[str, KeyDef], dict[str, tuple[KeyDef, bool]]]:
    keys: dict[str, KeyDef] = {}
    chars: dict[str, tuple[KeyDef, bool]] = {}

    def add(k: KeyDef, *aliases: str) -> None:
        keys[k.key] = k
        keys.setdefault(k.code, k)
        for alias in aliases:
            keys[alias] = k

    for letter in "abcdefghijklmnopqrstuvwxyz":
        k = KeyDef(letter, f"Key{letter.upper()}", ord(letter.upper()), letter, letter.upper())
        add(k)
        chars[letter] = (k, False)
        chars[letter.upper()] = (k, True)
    shifted_digits = ")!@#$%^&*("
    for digit in "0123456789":
        k = KeyDef(digit, f"Digit{digit}", ord(digit), digit, shifted_digits[int(digit)])
        add(k)
        chars[digit] = (k, False)
        chars[shifted_digits[int(digit)]] = (k, True)
    punctuation = [
        ("`", "~", "Backquote", 192),
        ("-", "_", "Minus", 189),
        ("=", "+", "Equal", 187),
        ("[", "{", "BracketLeft", 219),
        ("]", "}", "BracketRight", 221),
        ("\\", "|", "Backslash", 220),
        (";", ":", "Semicolon", 186),
        ("'", '"', "Quote", 222),
        (",", "<", "Comma", 188),
        (".", ">", "Period", 190),
        ("/", "?", "Slash", 191),
    ]
    for plain, shifted, code, key_code in punctuation:
        k = KeyDef(plain, code, key_code, plain, shifted)
        add(k)
        chars[plain] = (k, False)
        chars[shifted] = (k, True)
    space = KeyDef(" ", "Space", 32, " ", " ")
    add(space, "Space", "Spacebar")
    chars[" "] = (space, False)
    enter = KeyDef("Enter", "Enter", 13, "\r")
    add(enter, "Return")
    chars["\n"] = (enter, False)
    chars["\r"] = (enter, False)
    tab = KeyDef("Tab", "Tab", 9, "\t")
    add(tab)
    chars["\t"] = (tab, False)
    named = [
        ("Backspace", "Backspace", 8),
        ("Escape", "Escape", 27),
        ("Delete", "Delete", 46),
        ("Insert", "Insert", 45),
        ("Home", "Home", 36),
        ("End", "End", 35),
        ("PageUp", "PageUp", 33),
        ("PageDown", "PageDown", 34),
        ("ArrowLeft", "ArrowLeft", 37),
        ("ArrowUp", "ArrowUp", 38),
        ("ArrowRight", "ArrowRight", 39),
        ("ArrowDown", "ArrowDown", 40),
        ("CapsLock", "CapsLock", 20),
        ("Pause", "Pause", 19),
        ("PrintScreen", "PrintScreen", 44),
        ("ScrollLock", "ScrollLock", 145),
        ("NumLock", "NumLock", 144),
        ("ContextMenu", "ContextMenu", 93),
    ]
    for key, code, key_code in named:
        add(KeyDef(key, code, key_code))
    for n in range(1, 13):
        add(KeyDef(f"F{n}", f"F{n}", 111 + n))
    add(KeyDef("Shift", "ShiftLeft", 16, location=1))
    add(KeyDef("Control", "ControlLeft", 17, location=1))
    add(KeyDef("Alt", "AltLeft", 18, location=1))
    add(KeyDef("Meta", "MetaLeft", 91, location=1))
    for alias, target in {
        "Esc": "Escape",
        "Del": "Delete",
        "Left": "ArrowLeft",
        "Right": "ArrowRight",
        "Up": "ArrowUp",
        "Down": "ArrowDown",
    }.items():
        keys[alias] = keys[target]
    return keys, chars


_KEYS, _CHARS = _build()
_KEYS_LOWER = {name.lower(): k for name, k in _KEYS.items()}


def resolve_key(name: str) -> KeyDef:
    """The key named ``name`` (``"Enter"``, ``"a"``, ``"KeyA"``, ``"ArrowLeft"``, ``"F5"``).

    Raises:
        InvalidArgumentError: no such key on a US keyboard (also a ValueError).
    """
    k = _KEYS.get(name)
    if k is None and len(name) == 1 and name in _CHARS:
        k = _CHARS[name][0]
    if k is None and len(name) > 1:
        k = _KEYS_LOWER.get(name.lower())
    if k is None:
        raise InvalidArgumentError(
            f"unknown key {name!r}: use a character or a key name such as Enter, Tab, "
            "Backspace, Escape, ArrowLeft, Home, PageDown, F5, Space",
            argument="key",
        )
    return k


def key_for_char(char: str) -> tuple[KeyDef, bool] | None:
    """The key typing ``char`` on a US layout and whether Shift is needed, or None."""
    return _CHARS.get(char)


def parse_combo(combo: str) -> tuple[list[str], KeyDef, bool]:
    """Split ``"Control+Shift+a"`` into modifiers, the main key, and a shifted flag.

    ``"+"`` alone and a trailing ``"++"`` (Control++) name the plus key.
    An upper-case letter or a shifted symbol implies Shift.

    Raises:
        InvalidArgumentError: empty combination, unknown modifier or key.
    """
    if not combo:
        raise InvalidArgumentError("empty key combination", argument="key")
    if combo == "+":
        parts = ["+"]
    elif combo.endswith("++"):
        parts = [*combo[:-2].split("+"), "+"]
    else:
        parts = combo.split("+")
    *mods, main = parts
    if not main:
        raise InvalidArgumentError(
            f"key combination {combo!r} has no key after its modifiers", argument="key"
        )
    modifiers: list[str] = []
    for mod in mods:
        canonical = _MODIFIER_ALIASES.get(mod.lower())
        if canonical is None:
            raise InvalidArgumentError(
                f"unknown modifier {mod!r} in {combo!r}: use Shift, Control, Alt or Meta",
                argument="key",
            )
        if canonical not in modifiers:
            modifiers.append(canonical)
    shifted = False
    if len(main) == 1 and main in _CHARS:
        k, shifted = _CHARS[main]
    else:
        k = resolve_key(main)
    return modifiers, k, shifted
