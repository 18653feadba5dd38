"""What every daemon command is given and returns: its context, its arguments, its entry.

A command is a typed async function ``(Context, Args) -> Result`` of its
family's module (:mod:`._page`, :mod:`._elements`, :mod:`._seeing`,
:mod:`._tabs`, :mod:`._network`, :mod:`._console`, :mod:`._browser_state`,
:mod:`._batch`), listed with how it runs (:class:`Command`) in that module's
``COMMANDS``; :mod:`._registry` joins them into the one table the daemon
serves. Each calls the library directly (``tab.click(element, timeout=...)``),
so mypy checks every call against the library's signatures.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from kobrowser._validate import LOAD_STATES
from kobrowser.cli._daemon._errors import CommandError

if TYPE_CHECKING:
    from kobrowser import Browser, Tab
    from kobrowser._tab._pagestate import LoadState

__all__ = [
    "Args",
    "Command",
    "Context",
    "Handler",
    "Progress",
    "Result",
    "json_value",
    "page_info",
    "page_text",
]

#: What a command gives back: the ``--json`` result, and the text printed without it.
Result = tuple[dict[str, Any], str]
#: Sends one progress line (``batch``, ``agent``): its object and its text.
Progress = Callable[[dict[str, Any], str], Awaitable[None]]


async def _no_progress(result: dict[str, Any], text: str) -> None:
    return None


class Context:
    """What a command needs: the browser, the deadline it was given, where
    progress lines go (streaming commands; a no-op elsewhere), and whether the
    client prints only the text (``text_only``: the result is not sent, so a
    command may skip building a large one)."""

    def __init__(
        self,
        browser: Browser,
        timeout: float | None,
        progress: Progress | None = None,
        *,
        text_only: bool = False,
    ) -> None:
        self.browser = browser
        self.timeout = timeout
        self.progress: Progress = progress or _no_progress
        self.text_only = text_only

    def tab(self) -> Tab:
        """The current tab.

        Raises:
            CommandError: no tab is open.
        """
        if not self.browser.tabs:
            raise CommandError("no open tab", "run `ko-browser open URL` or `ko-browser tab new`")
        return self.browser.current_tab


class Args:
    """A command's arguments, as the request check left them, read by type.

    The daemon's request check (:mod:`._requests`) gave every key the type of
    its argparse action, so a read of another type is a bug in kobrowser
    (a ``TypeError``, reported as an internal error), never bad input.
    """

    __slots__ = ("_values",)

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def _get(self, key: str, kind: type | tuple[type, ...]) -> Any:
        value = self._values.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
            raise TypeError(f"argument {key!r}: {value!r} is not {kind}")
        return value

    def whole(self, key: str) -> int:
        value: int = self._get(key, int)
        return value

    def optional_whole(self, key: str) -> int | None:
        value: int | None = self._get(key, (int, type(None)))
        return value

    def number(self, key: str) -> float:
        return float(self._get(key, (int, float)))

    def optional_number(self, key: str) -> float | None:
        value = self._get(key, (int, float, type(None)))
        return None if value is None else float(value)

    def text(self, key: str) -> str:
        value: str = self._get(key, str)
        return value

    def optional_text(self, key: str) -> str | None:
        value: str | None = self._get(key, (str, type(None)))
        return value

    def flag(self, key: str) -> bool:
        value: bool = self._get(key, bool)
        return value

    def texts(self, key: str) -> list[str]:
        """A list of str (``nargs`` ``+``/``*``, or an option given many times)."""
        value = self.optional_texts(key)
        if value is None:
            raise TypeError(f"argument {key!r}: None is not a list")
        return value

    def optional_texts(self, key: str) -> list[str] | None:
        value: list[Any] | None = self._get(key, (list, type(None)))
        if value is not None and not all(isinstance(item, str) for item in value):
            raise TypeError(f"argument {key!r}: {value!r} is not a list of str")
        return value

    def load_state(self, key: str) -> LoadState:
        """One of the library's load states (the parser's choices are those)."""
        value = self.text(key)
        if value not in LOAD_STATES:
            raise TypeError(f"argument {key!r}: {value!r} is not a load state")
        return cast("LoadState", value)

    def text_map(self, key: str) -> dict[str, str]:
        """A JSON object of strings (``set headers``)."""
        value: dict[Any, Any] = self._get(key, dict)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise TypeError(f"argument {key!r}: {value!r} is not an object of str")
        return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


Handler = Callable[[Context, Args], Awaitable[Result]]


@dataclass(frozen=True, slots=True)
class Command:
    """One command of the daemon and how it runs.

    Attributes:
        run: the command's function.
        serialized: it changes a tab, so it runs one at a time per session;
            the others (get, is, wait, tab list, ...) run as soon as they arrive.
        streaming: it sends a progress line per action (``batch``, ``agent``)
            and has no overall deadline: each action and model call has its own.
    """

    run: Handler
    serialized: bool = False
    streaming: bool = False


async def page_info(tab: Tab) -> dict[str, Any]:
    """The tab's URL and title."""
    return {"url": tab.url, "title": await tab.title()}


def page_text(page: dict[str, Any]) -> str:
    """``URL  "title"`` (the URL alone when the page has no title)."""
    title = page["title"]
    return f'{page["url"]}  "{title}"' if title else page["url"]


def json_value(value: Any) -> Any:
    """A JSON-ready copy of a page's value (dict keys as str; anything else as its text).

    Raises:
        RecursionError: nested too deeply.
    """
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    return str(value)
