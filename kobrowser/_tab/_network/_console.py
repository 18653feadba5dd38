"""What a tab's scripts logged and threw: console messages and page errors.

Fed by ``Runtime.consoleAPICalled`` and ``Runtime.exceptionThrown`` on the
page session and every out-of-process frame's session (listeners inline on
the reader; bounded) into a :class:`ConsoleLog`. Callbacks of
:meth:`Console.on_message` never run on the reader: one task per tab
delivers the messages to them in order. :class:`Console` is the public face
of one tab's log: ``tab.console``.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio
import msgspec
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from kobrowser._exceptions import InvalidArgumentError

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["Console", "ConsoleCallback", "ConsoleLog", "ConsoleMessage", "PageError"]

_log = logging.getLogger("kobrowser.console")

MAX_ENTRIES = 1000
_TEXT_LIMIT = 10_000

Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class ConsoleMessage(msgspec.Struct, frozen=True):
    """One ``console.*`` call of the page or one of its frames.

    Attributes:
        level: ``"log"``, ``"info"``, ``"debug"``, ``"warning"``, ``"error"``,
            ``"trace"``, ``"assert"``, ``"table"``, ``"dir"``... (the console method).
        text: the arguments as text, separated by spaces (objects by their
            description, e.g. ``Array(3)``).
        url: the script that logged it ("" when unknown).
        line: 0-based line in ``url``.
        column: 0-based column in ``url``.
        timestamp: milliseconds since the epoch.
    """

    level: str
    text: str
    url: str = ""
    line: int = 0
    column: int = 0
    timestamp: float = 0.0


class PageError(msgspec.Struct, frozen=True):
    """An exception a script of the page (or a frame) threw and nobody caught.

    Attributes:
        name: the error's class, e.g. ``"TypeError"`` ("" for a thrown non-Error).
        message: its message.
        stack: the JavaScript description with the stack, as Chrome prints it.
        url: the script it came from ("" when unknown).
        line: 0-based line.
        column: 0-based column.
        timestamp: milliseconds since the epoch.
    """

    name: str
    message: str
    stack: str = ""
    url: str = ""
    line: int = 0
    column: int = 0
    timestamp: float = 0.0


ConsoleCallback = Callable[[ConsoleMessage], Any]


class _Remote(msgspec.Struct):
    type: str = "undefined"
    subtype: str | None = None
    value: Any = None
    unserializableValue: str | None = None
    description: str | None = None
    className: str | None = None


class _Frame(msgspec.Struct):
    url: str = ""
    lineNumber: int = 0
    columnNumber: int = 0


class _Stack(msgspec.Struct):
    callFrames: list[_Frame] = []


class _ConsoleCalled(msgspec.Struct):
    type: str
    args: list[_Remote] = []
    timestamp: float = 0.0
    stackTrace: _Stack | None = None


class _Details(msgspec.Struct):
    text: str = ""
    url: str = ""
    lineNumber: int = 0
    columnNumber: int = 0
    exception: _Remote | None = None
    stackTrace: _Stack | None = None


class _Thrown(msgspec.Struct):
    timestamp: float = 0.0
    exceptionDetails: _Details = msgspec.field(default_factory=_Details)


_CONSOLE = msgspec.json.Decoder(_ConsoleCalled)
_THROWN = msgspec.json.Decoder(_Thrown)


def _text_of(arg: _Remote) -> str:
    if arg.type == "string":
        return str(arg.value)
    if arg.unserializableValue is not None:
        return arg.unserializableValue
    if arg.type in ("number", "boolean"):
        return msgspec.json.encode(arg.value).decode()
    if arg.type == "undefined":
        return "undefined"
    if arg.subtype == "null":
        return "null"
    return arg.description or arg.type


def _location(stack: _Stack | None) -> _Frame:
    if stack is not None and stack.callFrames:
        return stack.callFrames[0]
    return _Frame()


class ConsoleLog:
    """The bounded console messages and page errors of one tab, and their callbacks."""

    def __init__(self, spawn: Spawn, limit: int = MAX_ENTRIES) -> None:
        self._spawn = spawn
        self.messages: deque[ConsoleMessage] = deque(maxlen=limit)
        self.errors: deque[PageError] = deque(maxlen=limit)
        self._callbacks: list[ConsoleCallback] = []
        self._send: MemoryObjectSendStream[ConsoleMessage] | None = None
        self.dropped = 0  # messages callbacks did not get (they were too slow)
        #: Messages and errors seen so far, never lowered (a trace slices a step's by them).
        self.message_count = 0
        self.error_count = 0
        self._closed = False

    def watch(self, session: CDPSession) -> None:
        """Follow ``session``'s console and exceptions (before ``Runtime.enable``)."""
        session.add_listener("Runtime.consoleAPICalled", self._on_console)
        session.add_listener("Runtime.exceptionThrown", self._on_exception)

    def clear(self) -> None:
        """Forget the messages and errors seen so far."""
        self.messages.clear()
        self.errors.clear()

    def close(self) -> None:
        """The tab went away: stop delivering to callbacks."""
        self._closed = True
        if self._send is not None:
            self._send.close()
            self._send = None

    def on_message(self, callback: ConsoleCallback) -> Callable[[], None]:
        """Call ``callback(message)`` for every new message; returns a remover."""
        if not callable(callback):
            raise InvalidArgumentError("callback must be callable", argument="callback")
        self._callbacks.append(callback)
        if self._send is None and not self._closed:
            send, receive = anyio.create_memory_object_stream[ConsoleMessage](1000)
            self._send = send
            self._spawn(lambda: self._deliver(receive))

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return remove

    async def _deliver(self, receive: MemoryObjectReceiveStream[ConsoleMessage]) -> None:
        async with receive:
            async for message in receive:
                for callback in tuple(self._callbacks):
                    try:
                        result = callback(message)
                        if inspect.isawaitable(result):
                            await result
                    except Exception:
                        _log.exception("console callback %r failed", callback)

    # -- listeners (inline on the reader) -----------------------------------

    def _on_console(self, raw: msgspec.Raw) -> None:
        event = _CONSOLE.decode(raw)
        text = " ".join(_text_of(arg) for arg in event.args)
        if len(text) > _TEXT_LIMIT:
            text = text[:_TEXT_LIMIT] + "…"
        where = _location(event.stackTrace)
        level = "warning" if event.type == "warn" else event.type
        message = ConsoleMessage(
            level, text, where.url, where.lineNumber, where.columnNumber, event.timestamp
        )
        self.messages.append(message)
        self.message_count += 1
        if self._send is not None and self._callbacks:
            try:
                self._send.send_nowait(message)
            except anyio.WouldBlock:
                self.dropped += 1
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._send = None

    def _on_exception(self, raw: msgspec.Raw) -> None:
        event = _THROWN.decode(raw)
        details = event.exceptionDetails
        exc = details.exception
        name = ""
        stack = ""
        if exc is None:
            message = details.text
        elif exc.type == "object" and exc.subtype == "error":
            stack = exc.description or ""
            name = exc.className or "Error"
            first = stack.split("\n", 1)[0]
            message = first[len(name) + 2 :] if first.startswith(name + ": ") else first
            if first == name:
                message = ""
        else:
            message = _text_of(exc)
        where = _location(details.stackTrace)
        url = details.url or where.url
        self.errors.append(
            PageError(
                name,
                message,
                stack,
                url,
                details.lineNumber,
                details.columnNumber,
                event.timestamp,
            )
        )
        self.error_count += 1

    def messages_since(self, mark: int) -> list[ConsoleMessage]:
        """The messages seen after :attr:`message_count` was ``mark`` (those still kept)."""
        count = min(self.message_count - mark, len(self.messages))
        return list(self.messages)[-count:] if count > 0 else []

    def errors_since(self, mark: int) -> list[PageError]:
        """The errors seen after :attr:`error_count` was ``mark`` (those still kept)."""
        count = min(self.error_count - mark, len(self.errors))
        return list(self.errors)[-count:] if count > 0 else []


class Console:
    """A tab's console: ``tab.console``, the messages and uncaught errors of its scripts.

    Covers the page and all its frames (out-of-process ones too), from the
    tab's start; each list keeps the newest 1000 entries.
    """

    def __init__(self, log: ConsoleLog) -> None:
        self._log = log

    def __repr__(self) -> str:
        return f"<Console {len(self._log.messages)} messages, {len(self._log.errors)} errors>"

    @property
    def messages(self) -> list[ConsoleMessage]:
        """The ``console.*`` calls of the page and all its frames, oldest first (a copy)."""
        return list(self._log.messages)

    @property
    def errors(self) -> list[PageError]:
        """The uncaught exceptions of the page and all its frames, oldest first (a copy)."""
        return list(self._log.errors)

    def clear(self) -> None:
        """Forget the messages and errors seen so far."""
        self._log.clear()

    def on_message(self, callback: ConsoleCallback) -> Callable[[], None]:
        """Call ``callback(message)`` (sync or async) for each new console message.

        Callbacks run in order in one task of the browser, never on the
        connection's reader; one that raises is logged and stays registered.
        A callback too slow to keep up misses messages (they stay in
        :attr:`messages`).

        Returns:
            A function that removes the callback.

        Raises:
            InvalidArgumentError: ``callback`` is not callable.
        """
        return self._log.on_message(callback)
