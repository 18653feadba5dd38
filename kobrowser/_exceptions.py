"""Every error kobrowser raises.

All of them derive from one base, so ``except kobrowser.KoBrowserError``
catches anything the library raises on purpose. Third-party errors (aiohttp,
OS, wsproto) never escape: the transport maps them to the classes below.
Cancellation is never wrapped or swallowed.

Every argument of the public API is checked before the browser is asked
anything: a bad one raises :class:`InvalidArgumentError` (a ``ValueError``
too) whose message names the argument, the value given and what is
accepted. The CLI reports it as bad usage (exit status 2).

Hierarchy::

    KoBrowserError
     +-- LaunchError                 Chrome not found, or died while starting
     +-- CDPError                    the protocol layer
     |    +-- ProtocolError          Chrome answered a call with an error
     |    +-- CDPTimeoutError        a call passed its deadline (also TimeoutError)
     |    +-- TargetClosedError      the tab/frame/worker went away (closed, crashed, detached)
     |    +-- ConnectionClosedError  the WebSocket/pipe to the browser is gone
     +-- SnapshotError               a snapshot could not be taken
     |    +-- InvalidSelectorError   a selector is not valid CSS (also InvalidArgumentError)
     |    +-- SnapshotTooLargeError  the page's AX data is over the snapshot size limit
     +-- ElementError                an action by id failed (carries ``element_id``)
     |    +-- NoSnapshotError        no snapshot taken yet on this tab
     |    +-- UnknownElementError    the id is not in the last snapshot
     |    +-- StaleElementError      the element is gone or changed: take a new snapshot
     |    +-- NotInteractableError   hidden, disabled, covered, or never stable
     |    +-- WrongElementKindError  e.g. fill on a button, check on a link
     +-- NavigationError             navigation failed (bad URL, DNS, refused)
     +-- JavaScriptError             a page script threw (carries ``message`` and ``stack``)
     +-- DownloadError               a download was canceled or failed
     +-- WaitTimeoutError            a wait passed its deadline (also TimeoutError)
     +-- CaptureError                a screenshot, PDF, HAR or video could not be made
     +-- ModelError                  the language model failed or could not be reached
     +-- InvalidArgumentError        a bad argument, found before any browser call (also ValueError)
          +-- ActionSyntaxError      an action line breaks the grammar
"""

from __future__ import annotations

__all__ = [
    "ActionSyntaxError",
    "CDPError",
    "CDPTimeoutError",
    "CaptureError",
    "ConnectionClosedError",
    "DownloadError",
    "ElementError",
    "InvalidArgumentError",
    "InvalidSelectorError",
    "JavaScriptError",
    "KoBrowserError",
    "LaunchError",
    "ModelError",
    "NavigationError",
    "NoSnapshotError",
    "NotInteractableError",
    "ProtocolError",
    "SnapshotError",
    "SnapshotTooLargeError",
    "StaleElementError",
    "TargetClosedError",
    "UnknownElementError",
    "WaitTimeoutError",
    "WrongElementKindError",
]


class KoBrowserError(Exception):
    """Base of every error raised by kobrowser."""


class InvalidArgumentError(KoBrowserError, ValueError):
    """An argument is not valid; nothing was done with it.

    Raised before any browser call for an unknown key, a negative, NaN or
    infinite timeout, an id that is not a positive whole number, an empty
    selector, a file to upload that does not exist, a URL without a scheme,
    text with a lone surrogate, a malformed cookie or storage state, and so
    on. The message names the argument, the value given and what is accepted.

    Attributes:
        argument: the name of the offending argument, when known.
    """

    def __init__(self, message: str, *, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


class LaunchError(KoBrowserError):
    """Chrome could not be found or started.

    When Chrome died while starting, ``stderr_tail`` holds the last lines it
    printed.
    """

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        if stderr_tail:
            message = f"{message}\n--- last lines of Chrome's stderr ---\n{stderr_tail}"
        super().__init__(message)
        self.stderr_tail = stderr_tail


class CDPError(KoBrowserError):
    """Base of errors from the Chrome DevTools Protocol layer."""


class ProtocolError(CDPError):
    """Chrome answered a call with an error.

    Attributes:
        code: the CDP error code (e.g. -32000).
        message: Chrome's message.
        method: the CDP method that was called.
    """

    def __init__(self, method: str, code: int, message: str, data: str | None = None) -> None:
        text = f"{method} failed: {message} (code {code})"
        if data:
            text += f": {data}"
        super().__init__(text)
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class CDPTimeoutError(CDPError, TimeoutError):
    """A CDP call got no answer before its deadline."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method} got no answer within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class TargetClosedError(CDPError):
    """The target (tab, frame, worker) of a session is gone: closed, crashed or detached."""


class ConnectionClosedError(CDPError):
    """The connection to the browser is closed or was lost."""


class SnapshotError(KoBrowserError):
    """A snapshot could not be taken."""


class InvalidSelectorError(SnapshotError, InvalidArgumentError):
    """A CSS selector (a snapshot scope, a wait) is not valid CSS."""

    def __init__(self, message: str, *, argument: str | None = "selector") -> None:
        super().__init__(message, argument=argument)


class SnapshotTooLargeError(SnapshotError):
    """The page's accessibility data is larger than the snapshot size limit.

    The limit (:attr:`Browser.snapshot_limit <kobrowser.Browser.snapshot_limit>`)
    keeps a huge page from exhausting memory; raise it, or snapshot part of
    the page (``selector=``).

    Attributes:
        limit: the limit in bytes of AX data.
        size: how many bytes the page's AX data had reached when it stopped.
    """

    def __init__(self, message: str, *, limit: int, size: int) -> None:
        super().__init__(message)
        self.limit = limit
        self.size = size


class ElementError(KoBrowserError):
    """An action on an element (by snapshot id) failed.

    Attributes:
        element_id: the id the caller passed, when there is one.
    """

    def __init__(self, message: str, element_id: int | None = None) -> None:
        super().__init__(message)
        self.element_id = element_id


class NoSnapshotError(ElementError):
    """An action by id was asked for before any snapshot of the tab."""


class UnknownElementError(ElementError, LookupError):
    """The id is not in the last snapshot (the message gives the valid range)."""


class StaleElementError(ElementError):
    """The element of that id navigated away, left the DOM, or changed role/name.

    Take a new snapshot and use the ids it gives.
    """


class NotInteractableError(ElementError):
    """The element is hidden, disabled, covered by another element, or never stable."""


class WrongElementKindError(ElementError, TypeError):
    """The action does not apply to this kind of element (e.g. fill on a button)."""


class NavigationError(KoBrowserError):
    """Navigation failed: invalid URL, DNS or connection failure, aborted load."""


class JavaScriptError(KoBrowserError):
    """A script run in the page threw (or its promise rejected).

    Raised by ``evaluate``, ``wait_for_function`` and the page scripts behind
    actions. ``str(error)`` is ``"<what was running>: <message>"``.

    Attributes:
        message: what the page threw, as JavaScript prints it
            (``"TypeError: x is not a function"``; a thrown non-Error value
            as its text or JSON).
        stack: the JavaScript stack (``error.stack``: the message line, then
            the ``at ...`` frames), or ``""`` when the thrown value has none.
    """

    def __init__(self, message: str, *, stack: str = "", context: str = "") -> None:
        super().__init__(f"{context}: {message}" if context else message)
        self.message = message
        self.stack = stack


class DownloadError(KoBrowserError):
    """A download was canceled (by the page, the user or Chrome) or failed.

    Also raised for a download still running when the browser closed.

    Attributes:
        url: what was being downloaded.
        state: the download's final state (``"canceled"``).
    """

    def __init__(self, message: str, *, url: str = "", state: str = "canceled") -> None:
        super().__init__(message)
        self.url = url
        self.state = state


class WaitTimeoutError(KoBrowserError, TimeoutError):
    """A wait (for load, text, selector, URL, function) passed its deadline."""


class CaptureError(KoBrowserError):
    """A screenshot, PDF, HAR or video could not be made (nothing visible to
    capture, PDF asked of a headed Chrome, Pillow missing for annotations,
    PyAV missing for video, a context that records no HAR, file not writable)."""


class ModelError(KoBrowserError):
    """The language model behind an agent failed: unreachable, refused, or no reply."""


class ActionSyntaxError(InvalidArgumentError):
    """An action (``click 5``, ``fill 3 "hi"``, a JSON object) does not follow the grammar.

    The message starts with the position: ``line 2, column 7: ...``.

    Attributes:
        reason: what is wrong, without the position.
        line: 1-based line of the text that was parsed.
        column: 1-based column in that line.
        source: the text of that line.
    """

    def __init__(self, reason: str, *, line: int = 1, column: int = 1, source: str = "") -> None:
        super().__init__(f"line {line}, column {column}: {reason}", argument="text")
        self.reason = reason
        self.line = line
        self.column = column
        self.source = source
