"""The action grammar (``click 5``, ``fill 3 "hi"``) and what running one did.

One action a line, the same words as the CLI::

    click N | dblclick N | hover N | focus N | check N | uncheck N
    fill N "text" | type N "text" | select N "label" | press KEY
    scroll up|down [PX] | open URL | back | forward | reload | wait MS
    tab N | done "answer"

Strings are double-quoted with ``\\"``, ``\\\\`` and ``\\n`` escapes.

The package is pure and imports nothing of the browser: the grammar
(``_types``: one msgspec Struct per verb whose ``str()`` is the canonical
line; ``_parse`` and ``_json``: the tolerant reader) and the
:class:`Outcome` of running one (``_outcome``). The executor is the tab's
(``kobrowser._tab._execute``): ``Tab.do`` and ``Browser.do`` run an action,
and the faces (the agent loop, the CLI's ``batch`` command, the MCP batch
tool) call those, never the executor itself.
"""

from __future__ import annotations

from kobrowser.actions._json import from_json
from kobrowser.actions._outcome import Outcome, normalize_url, to_action
from kobrowser.actions._parse import parse_action, parse_actions
from kobrowser.actions._types import (
    ACTION_TYPES,
    USAGE,
    VERBS,
    Action,
    Back,
    Check,
    Click,
    DblClick,
    Done,
    Fill,
    Focus,
    Forward,
    Hover,
    Open,
    Press,
    Reload,
    Scroll,
    Select,
    SwitchTab,
    Type,
    Uncheck,
    Wait,
    quote,
)

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
    "Outcome",
    "Press",
    "Reload",
    "Scroll",
    "Select",
    "SwitchTab",
    "Type",
    "Uncheck",
    "Wait",
    "from_json",
    "normalize_url",
    "parse_action",
    "parse_actions",
    "quote",
    "to_action",
]
