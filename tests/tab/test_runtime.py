"""Page exceptions -> JavaScriptError, from exceptionDetails recorded from Chromium."""

from __future__ import annotations

from typing import Any

import pytest

from kobrowser import JavaScriptError
from kobrowser._tab._runtime import error_from_stack, javascript_error, runtime_value

# Recorded from Runtime.evaluate (returnByValue, awaitPromise) in Chromium.
_THROWN_ERROR: dict[str, Any] = {
    "exceptionId": 6,
    "text": "Uncaught",
    "lineNumber": 0,
    "columnNumber": 23,
    "scriptId": "8",
    "exception": {
        "type": "object",
        "subtype": "error",
        "className": "RangeError",
        "description": "RangeError: deep\n    at f (<anonymous>:1:30)\n    at <anonymous>:1:55",
        "objectId": "1.1.9",
    },
}
_REJECTED_MULTILINE: dict[str, Any] = {
    "exceptionId": 3,
    "text": "Uncaught (in promise) TypeError: bad\nline",
    "exception": {
        "type": "object",
        "subtype": "error",
        "className": "TypeError",
        "description": "TypeError: bad\nline\n    at <anonymous>:1:16",
    },
}
_THROWN_STRING: dict[str, Any] = {
    "exceptionId": 2,
    "text": "Uncaught",
    "exception": {"type": "string", "value": "str"},
}
_THROWN_OBJECT: dict[str, Any] = {
    "exceptionId": 5,
    "text": "Uncaught",
    "exception": {"type": "object", "className": "Object", "description": "Object"},
}


def test_thrown_error_gives_message_and_stack() -> None:
    error = javascript_error(_THROWN_ERROR, "JavaScript error")
    assert error.message == "RangeError: deep"
    assert error.stack == _THROWN_ERROR["exception"]["description"]
    assert str(error) == "JavaScript error: RangeError: deep"


def test_message_over_several_lines_is_kept_whole() -> None:
    error = javascript_error(_REJECTED_MULTILINE, "x")
    assert error.message == "TypeError: bad\nline"
    assert error.stack.endswith("at <anonymous>:1:16")


def test_thrown_values_without_stack() -> None:
    assert javascript_error(_THROWN_STRING, "x").message == "str"
    assert javascript_error(_THROWN_STRING, "x").stack == ""
    assert javascript_error({"exception": {"type": "number", "value": 7}}, "x").message == "7"
    assert javascript_error(_THROWN_OBJECT, "x").message == "Object"
    assert javascript_error({"text": "Uncaught SyntaxError"}, "x").message == "Uncaught SyntaxError"


def test_error_from_stack_text_of_an_in_page_catch() -> None:
    error = error_from_stack("Error: nope\n    at check (<anonymous>:3:9)", "waiting")
    assert (error.message, str(error)) == ("Error: nope", "waiting: Error: nope")
    assert error.stack == "Error: nope\n    at check (<anonymous>:3:9)"
    plain = error_from_stack("just text\n  at the end", "waiting")
    assert plain.message == "just text"  # a frame-like line ends the message
    assert error_from_stack("oops", "w").stack == ""


def test_runtime_value() -> None:
    assert runtime_value({"result": {"type": "number", "value": 3}}, "x") == 3
    with pytest.raises(JavaScriptError, match=r"^eval: RangeError: deep$"):
        runtime_value({"result": {}, "exceptionDetails": _THROWN_ERROR}, "eval")
