"""The action grammar (``click 5``, ``fill 3 "hi"``) and its executor.

One action a line, the same words as the CLI::

    click N | dblclick N | hover N | focus N | check N | uncheck N
    fill N "text" | type N "text" | select N "label" | press KEY
    scroll up|down [PX] | open URL | back | forward | reload | wait MS
    tab N | done "answer"

Strings are double-quoted with ``\\"``, ``\\\\`` and ``\\n`` escapes.

Layers: the grammar (``_types``: one msgspec Struct per verb whose ``str()``
is the canonical line; ``_parse`` and ``_json``: the tolerant reader) is pure
and imports nothing of the browser. The executor (``_execute``) runs an
action through the public methods of :class:`~kobrowser.Tab` and
:class:`~kobrowser.Browser` only. Both are library code: ``Tab.do`` uses the
executor, and the faces (the agent loop in :mod:`kobrowser.agent`, the CLI's
``batch`` command, the MCP batch tool) use the grammar and the executor,
never the other way round.
"""

from __future__ import annotations

from ._execute import Outcome, execute, normalize_url, to_action
from ._json import from_json
from ._parse import parse_action, parse_actions
from ._types import (
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
    "execute",
    "from_json",
    "normalize_url",
    "parse_action",
    "parse_actions",
    "quote",
    "to_action",
]
