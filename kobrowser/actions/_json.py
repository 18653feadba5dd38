"""Actions written as JSON objects, in the shapes models and other tools use.

Accepted, one action per object::

    {"type": "click", "id": 5}                    # the canonical form (msgspec.json.encode)
    {"action": "click", "id": 5}
    {"type": "input", "node_id": 3, "text": "hi"}  # other tools' verbs and keys
    {"click": {"index": 5}}                        # the verb as the only key
    {"click_element_by_index": {"index": 5}}
    {"open": "https://example.com"}                # the verb's single argument

and several at once: a list of objects, or an object whose ``action`` /
``actions`` value is such a list (``{"thought": "...", "action": [...]}``).
Keys that are not arguments (``thought``, ``reason``...) are ignored.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from kobrowser.actions._types import (
    DIRECTIONS,
    USAGE,
    VERBS,
    Action,
    Done,
    Open,
    Press,
    Scroll,
    SwitchTab,
    Wait,
)

__all__ = ["ALIASES", "from_json", "unknown_verb"]

#: Other tools' names -> (our verb, preset arguments).
ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    **{verb: (verb, {}) for verb in VERBS},
    "click_element": ("click", {}),
    "click_element_by_index": ("click", {}),
    "tap": ("click", {}),
    "double_click": ("dblclick", {}),
    "doubleclick": ("dblclick", {}),
    "hover_element": ("hover", {}),
    "focus_element": ("focus", {}),
    "input": ("fill", {}),
    "input_text": ("fill", {}),
    "fill_text": ("fill", {}),
    "set_value": ("fill", {}),
    "enter_text": ("fill", {}),
    "type_text": ("type", {}),
    "press_key": ("press", {}),
    "send_keys": ("press", {}),
    "keypress": ("press", {}),
    "key": ("press", {}),
    "select_option": ("select", {}),
    "select_dropdown_option": ("select", {}),
    "scroll_down": ("scroll", {"direction": "down"}),
    "scroll_up": ("scroll", {"direction": "up"}),
    "navigate": ("open", {}),
    "goto": ("open", {}),
    "go_to": ("open", {}),
    "go_to_url": ("open", {}),
    "open_url": ("open", {}),
    "visit": ("open", {}),
    "go_back": ("back", {}),
    "go_forward": ("forward", {}),
    "refresh": ("reload", {}),
    "sleep": ("wait", {}),
    "switch_tab": ("tab", {}),
    "switch_to_tab": ("tab", {}),
    "finish": ("done", {}),
    "final_answer": ("done", {}),
    "answer": ("done", {}),
}

_VERB_KEYS = ("action", "type", "verb", "command", "cmd", "name", "op", "tool")
#: Where tool-call shapes put the arguments ({"name": "click", "arguments": "{...}"}).
_NESTED_KEYS = ("arguments", "args", "params", "parameters")
_LIST_KEYS = ("actions", "action")
_ID_KEYS = ("id", "node_id", "nodeId", "element_id", "elementId", "index", "ref", "element")
_TEXT_KEYS = ("text", "value", "input", "content", "string")
_LABEL_KEYS = ("label", "option", "value", "text", "values")
_KEY_KEYS = ("key", "keys", "combo", "value", "text")
_URL_KEYS = ("url", "href", "link", "value")
_AMOUNT_KEYS = ("amount", "pixels", "px", "delta", "by")
_MS_KEYS = ("ms", "milliseconds", "duration_ms", "time_ms")
_SECONDS_KEYS = ("seconds", "secs", "s", "duration", "time")
_TAB_KEYS = ("index", "tab", "tab_id", "page_id", "n", "id", "number")
_ANSWER_KEYS = ("answer", "text", "result", "message", "output", "value")
#: verb -> the keys its single argument may come under ({"open": "https://..."}).
_SINGLE = {
    "press": "key",
    "open": "url",
    "wait": "ms",
    "tab": "index",
    "done": "answer",
    "scroll": "direction",
}


def unknown_verb(word: str) -> str:
    """The error message for an unknown verb, with the nearest action to use."""
    known = ", ".join(VERBS)
    alias = ALIASES.get(_name(word))
    if alias is not None:
        return f"unknown action {word!r}; write `{USAGE[alias[0]]}` (actions: {known})"
    close = difflib.get_close_matches(word.lower(), list(VERBS), n=1)
    hint = f"; did you mean `{USAGE[close[0]]}`?" if close else ""
    return f"unknown action {word!r}{hint} (actions: {known})"


def _name(value: str) -> str:
    return value.strip().lower().replace("-", "_").replace(" ", "_")


def from_json(value: Any) -> list[Action]:
    """The actions of a decoded JSON value (object or list of objects).

    Raises:
        ValueError: a value is not an action (the message says which key is wrong).
    """
    if isinstance(value, list):
        return [action for item in value for action in from_json(item)]
    if not isinstance(value, dict):
        raise ValueError(f"an action is a JSON object, not {type(value).__name__}")
    for key in _LIST_KEYS:
        if isinstance(value.get(key), list | dict) and not _verb_of(value):
            return from_json(value[key])
    found = _verb_of(value)
    if found is not None:
        verb, preset, args = found
        return [_build(verb, {**args, **preset})]
    raise ValueError(
        'no action in this JSON object: name it with "action", as in {"action": "click", "id": 5}'
    )


def _verb_of(obj: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
    """(verb, preset arguments, arguments) of an object, or None when it names none."""
    for key in _VERB_KEYS:
        name = obj.get(key)
        if isinstance(name, str):
            alias = ALIASES.get(_name(name))
            if alias is None:
                raise ValueError(unknown_verb(name))
            rest = {k: v for k, v in obj.items() if k != key}
            return alias[0], alias[1], _flatten(rest)
    if len(obj) == 1:
        ((key, inner),) = obj.items()
        alias = ALIASES.get(_name(key))
        if alias is not None:
            verb, preset = alias
            if isinstance(inner, dict):
                return verb, preset, inner
            if inner is None or inner is True:
                return verb, preset, {}
            single = _SINGLE.get(verb, "id")
            return verb, preset, {single: inner}
    return None


def _flatten(args: dict[str, Any]) -> dict[str, Any]:
    """Merge nested arguments (a dict, or a JSON string as in tool calls) into ``args``."""
    for key in _NESTED_KEYS:
        nested = args.get(key)
        if isinstance(nested, str):
            try:
                nested = json.loads(nested)
            except ValueError:
                raise ValueError(f"{key!r} holds invalid JSON") from None
        if isinstance(nested, dict):
            return {**{k: v for k, v in args.items() if k != key}, **nested}
    return args


def _pick(args: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if args.get(key) is not None:
            return args[key]
    return None


def _need(verb: str, args: dict[str, Any], keys: tuple[str, ...], what: str) -> Any:
    value = _pick(args, keys)
    if value is None:
        raise ValueError(f"{verb} needs {what} (key {keys[0]!r})")
    return value


def _int(value: Any, what: str, verb: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{verb}: {what} must be a number, not {value!r}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("@#").strip("[]").isdigit():
        number = int(value.strip().lstrip("@#").strip("[]").lstrip("@#"))
    else:
        raise ValueError(f"{verb}: {what} must be a number, not {value!r}")
    if number < 0:
        raise ValueError(f"{verb}: {what} must not be negative, not {number}")
    return number


def _element(verb: str, args: dict[str, Any]) -> int:
    number = _int(_need(verb, args, _ID_KEYS, "an element id"), "the id", verb)
    if number < 1:
        raise ValueError(f"{verb}: ids start at 1")
    return number


def _str(value: Any, what: str, verb: str) -> str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{verb}: {what} must be a string, not {value!r}")
    return value if isinstance(value, str) else str(value)


def _build(verb: str, args: dict[str, Any]) -> Action:
    cls = VERBS[verb]
    if verb in ("click", "dblclick", "hover", "focus", "check", "uncheck"):
        return cls(_element(verb, args))
    if verb in ("fill", "type"):
        text = _str(_need(verb, args, _TEXT_KEYS, "a text"), "the text", verb)
        return cls(_element(verb, args), text)
    if verb == "select":
        label = _str(_need(verb, args, _LABEL_KEYS, "an option label"), "the label", verb)
        return cls(_element(verb, args), label)
    if verb == "press":
        key = _str(_need(verb, args, _KEY_KEYS, "a key"), "the key", verb)
        if not key:
            raise ValueError("press needs a key (key 'key')")
        return Press(key)
    if verb == "scroll":
        direction = _str(_pick(args, ("direction", "dir")) or "down", "the direction", verb)
        direction = direction.lower()
        if direction not in DIRECTIONS:
            raise ValueError(f"scroll goes up, down, left or right, not {direction!r}")
        amount = _pick(args, _AMOUNT_KEYS)
        pixels = None if amount is None else _int(amount, "the amount", verb)
        return Scroll(direction, pixels)
    if verb == "open":
        url = _str(_need(verb, args, _URL_KEYS, "a URL"), "the URL", verb)
        if not url.strip():
            raise ValueError("open needs a URL (key 'url')")
        return Open(url)
    if verb == "wait":
        ms = _pick(args, _MS_KEYS)
        if ms is not None:
            return Wait(_int(ms, "ms", verb))
        seconds = _need(verb, args, _SECONDS_KEYS, "a time (key 'ms' or 'seconds')")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ValueError(f"wait: seconds must be a number, not {seconds!r}")
        return Wait(round(seconds * 1000))
    if verb == "tab":
        number = _int(_need(verb, args, _TAB_KEYS, "a tab number"), "the tab number", verb)
        if number < 1:
            raise ValueError("tab: tabs are numbered from 1")
        return SwitchTab(number)
    if verb == "done":
        answer = _pick(args, _ANSWER_KEYS)
        return Done("" if answer is None else _str(answer, "the answer", verb))
    return cls()
