"""Reading ``Runtime.evaluate`` / ``Runtime.callFunctionOn`` answers."""

from __future__ import annotations

from typing import Any

from .._exceptions import KoBrowserError

__all__ = ["runtime_value"]


def runtime_value(result: dict[str, Any], what: str) -> Any:
    """The JSON value of a ``Runtime.evaluate``/``callFunctionOn`` result.

    Raises:
        KoBrowserError: the script threw (``what: <the exception>``).
    """
    details = result.get("exceptionDetails")
    if details:
        text = details.get("exception", {}).get("description") or details.get("text")
        raise KoBrowserError(f"{what}: {text}")
    return result.get("result", {}).get("value")
