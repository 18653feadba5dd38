"""Reading ``Runtime.evaluate`` / ``Runtime.callFunctionOn`` answers.

The one place that turns a page exception into a :class:`JavaScriptError`:
from a CDP ``exceptionDetails`` (:func:`javascript_error`) or from the
``error.stack`` text an in-page wait caught (:func:`error_from_stack`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from kobrowser._exceptions import JavaScriptError

__all__ = ["error_from_stack", "javascript_error", "runtime_value"]

# A V8 stack frame line: "    at f (<anonymous>:1:30)".
_FRAME = re.compile(r"^\s+at\s")


def runtime_value(result: dict[str, Any], what: str) -> Any:
    """The JSON value of a ``Runtime.evaluate``/``callFunctionOn`` result.

    Raises:
        JavaScriptError: the script threw (``what: <the exception>``).
    """
    details = result.get("exceptionDetails")
    if details:
        raise javascript_error(details, what)
    return result.get("result", {}).get("value")


def error_from_stack(text: str, what: str) -> JavaScriptError:
    """The error for ``String(e.stack || e)`` of an exception caught in the page."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if index and _FRAME.match(line):
            return JavaScriptError("\n".join(lines[:index]), stack=text, context=what)
    return JavaScriptError(text, context=what)


def javascript_error(details: dict[str, Any], what: str) -> JavaScriptError:
    """The error for a CDP ``Runtime.ExceptionDetails``."""
    exception = details.get("exception") or {}
    description = exception.get("description")
    if exception.get("subtype") == "error" and description:
        return error_from_stack(description, what)
    if "value" in exception:
        value = exception["value"]
        message = value if isinstance(value, str) else json.dumps(value)
    elif "unserializableValue" in exception:
        message = str(exception["unserializableValue"])
    else:
        message = description or details.get("text") or "unknown exception"
    return JavaScriptError(message, context=what)
