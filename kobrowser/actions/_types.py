"""The actions of the grammar, one msgspec Struct per verb.

``str(action)`` is the canonical line (``fill 3 "hello"``), which
:func:`~kobrowser.actions.parse_action` reads back to an equal action.
``msgspec.json.encode(action)`` is the canonical JSON object
(``{"type":"fill","id":3,"text":"hello"}``), also read back by the parser.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

import msgspec

from kobrowser._validate import element_id, fail, whole

__all__ = [
    "ACTION_TYPES",
    "USAGE",
    "VERBS",
    "Action",
    "Back",
    "Check",
    "Click",
    "DblClick",
    "Done",
    "Fill",
    "Focus",
    "Forward",
    "Hover",
    "Open",
    "Press",
    "Reload",
    "Scroll",
    "Select",
    "SwitchTab",
    "Type",
    "Uncheck",
    "Wait",
    "quote",
]

Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r'[\\"\n\r\t]')
# A word printed without quotes must read back as itself: no space, no quote
# or backslash, and no trailing punctuation (the parser drops one . , ;).
_BARE = re.compile(r"""[^\s"'`\\]*[^\s"'`\\.,;]""")


def quote(text: str) -> str:
    """``text`` as a double-quoted string with ``\\"``, ``\\\\``, ``\\n`` (``\\r``, ``\\t``)."""
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES[m.group()], text) + '"'


def _word(text: str) -> str:
    """``text`` bare when it reads back as itself, else quoted."""
    return text if _BARE.fullmatch(text) else quote(text)


def _check_str(value: object, what: str) -> None:
    if not isinstance(value, str):
        raise fail(what, value, "a str")


class Action(msgspec.Struct, frozen=True, tag_field="type"):
    """One action of the grammar; ``str(action)`` is its canonical line.

    The concrete actions are :class:`Click`, :class:`DblClick`,
    :class:`Hover`, :class:`Focus`, :class:`Fill`, :class:`Type`,
    :class:`Press`, :class:`Select`, :class:`Check`, :class:`Uncheck`,
    :class:`Scroll`, :class:`Open`, :class:`Back`, :class:`Forward`,
    :class:`Reload`, :class:`Wait`, :class:`SwitchTab` and :class:`Done`.
    """

    #: The word that starts the action's line.
    verb: ClassVar[str] = ""

    def __str__(self) -> str:
        return self.verb

    @property
    def element_id(self) -> int | None:
        """The snapshot id the action acts on, if any."""
        return None


class _OnElement(Action, frozen=True):
    id: int

    def __post_init__(self) -> None:
        element_id(self.id, "id")

    def __str__(self) -> str:
        return f"{self.verb} {self.id}"

    @property
    def element_id(self) -> int | None:
        return self.id


class Click(_OnElement, frozen=True, tag="click"):
    """``click 5``: click element 5."""

    verb = "click"


class DblClick(_OnElement, frozen=True, tag="dblclick"):
    """``dblclick 5``: double-click element 5."""

    verb = "dblclick"


class Hover(_OnElement, frozen=True, tag="hover"):
    """``hover 5``: move the mouse over element 5."""

    verb = "hover"


class Focus(_OnElement, frozen=True, tag="focus"):
    """``focus 5``: give element 5 the keyboard focus."""

    verb = "focus"


class Check(_OnElement, frozen=True, tag="check"):
    """``check 4``: check a checkbox, radio or switch."""

    verb = "check"


class Uncheck(_OnElement, frozen=True, tag="uncheck"):
    """``uncheck 4``: uncheck a checkbox or switch."""

    verb = "uncheck"


class _WithText(Action, frozen=True):
    id: int
    text: str

    def __post_init__(self) -> None:
        element_id(self.id, "id")
        _check_str(self.text, "text")

    def __str__(self) -> str:
        return f"{self.verb} {self.id} {quote(self.text)}"

    @property
    def element_id(self) -> int | None:
        return self.id


class Fill(_WithText, frozen=True, tag="fill"):
    """``fill 3 "text"``: replace the value of field 3."""

    verb = "fill"


class Type(_WithText, frozen=True, tag="type"):
    """``type 3 "text"``: type into element 3 key by key."""

    verb = "type"


class Select(_WithText, frozen=True, tag="select"):
    """``select 7 "label"``: choose the option of select 7 with that label (or value)."""

    verb = "select"


class Press(Action, frozen=True, tag="press"):
    """``press Enter``: press a key or chord (``Control+a``) on the focused element."""

    verb = "press"
    key: str

    def __post_init__(self) -> None:
        _check_str(self.key, "key")
        if not self.key:
            raise fail("key", self.key, "a key or chord such as 'Enter' or 'Control+a'")

    def __str__(self) -> str:
        return f"press {_word(self.key)}"


class Scroll(Action, frozen=True, tag="scroll"):
    """``scroll down [PX]``: scroll the page (up, down, left or right; 600 px by default)."""

    verb = "scroll"
    direction: Direction = "down"
    amount: int | None = None

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise fail("direction", self.direction, "one of 'up', 'down', 'left', 'right'")
        if self.amount is not None:
            whole(self.amount, "amount", 0, unit="pixels")

    def __str__(self) -> str:
        if self.amount is None:
            return f"scroll {self.direction}"
        return f"scroll {self.direction} {self.amount}"


class Open(Action, frozen=True, tag="open"):
    """``open URL``: navigate the tab (``example.com`` means ``https://example.com``)."""

    verb = "open"
    url: str

    def __post_init__(self) -> None:
        _check_str(self.url, "url")
        if not self.url.strip():
            raise fail("url", self.url, "a non-empty URL")

    def __str__(self) -> str:
        return f"open {_word(self.url)}"


class Back(Action, frozen=True, tag="back"):
    """``back``: go back in history."""

    verb = "back"


class Forward(Action, frozen=True, tag="forward"):
    """``forward``: go forward in history."""

    verb = "forward"


class Reload(Action, frozen=True, tag="reload"):
    """``reload``: reload the page."""

    verb = "reload"


class Wait(Action, frozen=True, tag="wait"):
    """``wait MS``: sleep that many milliseconds."""

    verb = "wait"
    ms: int

    def __post_init__(self) -> None:
        whole(self.ms, "ms", 0, unit="milliseconds")

    def __str__(self) -> str:
        return f"wait {self.ms}"


class SwitchTab(Action, frozen=True, tag="tab"):
    """``tab N``: make tab N (1 = the oldest open tab) the current tab."""

    verb = "tab"
    index: int

    def __post_init__(self) -> None:
        whole(self.index, "tab index", 1)

    def __str__(self) -> str:
        return f"tab {self.index}"


class Done(Action, frozen=True, tag="done"):
    """``done "answer"``: the goal is reached (or cannot be); ends an agent's run."""

    verb = "done"
    answer: str = ""

    def __post_init__(self) -> None:
        _check_str(self.answer, "answer")

    def __str__(self) -> str:
        return f"done {quote(self.answer)}"


#: Every concrete action class, in the order of the grammar.
ACTION_TYPES: tuple[type[Action], ...] = (
    Click,
    DblClick,
    Hover,
    Focus,
    Fill,
    Type,
    Press,
    Select,
    Check,
    Uncheck,
    Scroll,
    Open,
    Back,
    Forward,
    Reload,
    Wait,
    SwitchTab,
    Done,
)

#: verb -> action class.
VERBS: dict[str, type[Action]] = {cls.verb: cls for cls in ACTION_TYPES}

#: verb -> an example line (the grammar, one example per verb).
USAGE: dict[str, str] = {
    "click": "click 5",
    "dblclick": "dblclick 5",
    "hover": "hover 5",
    "focus": "focus 5",
    "fill": 'fill 3 "text"',
    "type": 'type 3 "text"',
    "press": "press Enter",
    "select": 'select 7 "Option label"',
    "check": "check 4",
    "uncheck": "uncheck 4",
    "scroll": "scroll down 600",
    "open": "open https://example.com",
    "back": "back",
    "forward": "forward",
    "reload": "reload",
    "wait": "wait 1000",
    "tab": "tab 2",
    "done": 'done "answer"',
}
