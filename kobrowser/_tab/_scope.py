"""The scope of a snapshot: the top document's elements that match a CSS selector.

:func:`resolve_scope` runs beside the AX fetch (:mod:`._fetch`) when a
snapshot is taken with ``selector``; the snapshot keeps only those
elements' subtrees.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import TYPE_CHECKING

import anyio
import msgspec

from kobrowser._exceptions import InvalidSelectorError, KoBrowserError

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["resolve_scope"]


class _RemoteObject(msgspec.Struct):
    objectId: str | None = None
    description: str = ""


class _ExceptionDetails(msgspec.Struct):
    text: str = ""
    exception: _RemoteObject | None = None


class _Evaluated(msgspec.Struct):
    result: _RemoteObject
    exceptionDetails: _ExceptionDetails | None = None


class _Property(msgspec.Struct):
    name: str
    value: _RemoteObject | None = None


class _Properties(msgspec.Struct):
    result: list[_Property]


class _DescribedNode(msgspec.Struct):
    backendNodeId: int


class _Described(msgspec.Struct):
    node: _DescribedNode


_EVALUATED = msgspec.json.Decoder(_Evaluated)
_PROPERTIES = msgspec.json.Decoder(_Properties)
_DESCRIBED = msgspec.json.Decoder(_Described)
_SCOPE_GROUPS = itertools.count(1)


async def resolve_scope(page: CDPSession, selector: str, *, timeout: float) -> set[int]:
    """Backend node ids of the top document's elements matching a CSS selector.

    The query runs as JavaScript and the matches are described by object id:
    ``DOM.getDocument`` would reset the DOM agent's node ids, so concurrent
    scoped snapshots of one tab (or any other user of the DOM domain) would
    invalidate each other's ids.

    Raises:
        InvalidSelectorError: the selector is not valid CSS.
    """
    group = f"kobrowser-scope-{next(_SCOPE_GROUPS)}"
    quoted = msgspec.json.encode(selector).decode()
    evaluated = await page.send_typed(
        "Runtime.evaluate",
        {
            "expression": f"Array.from(document.querySelectorAll({quoted}))",
            "objectGroup": group,
            "silent": True,
        },
        _EVALUATED,
        timeout=timeout,
    )
    try:
        details = evaluated.exceptionDetails
        if details is not None:
            reason = details.exception.description if details.exception else details.text
            raise InvalidSelectorError(f"invalid CSS selector {selector!r}: {reason}")
        array_id = evaluated.result.objectId
        if array_id is None:  # pragma: no cover - an Array is always an object
            return set()
        properties = await page.send_typed(
            "Runtime.getProperties",
            {"objectId": array_id, "ownProperties": True},
            _PROPERTIES,
            timeout=timeout,
        )
        object_ids = [
            prop.value.objectId
            for prop in properties.result
            if prop.name.isdigit() and prop.value is not None and prop.value.objectId
        ]
        found: set[int] = set()

        async def describe(object_id: str) -> None:
            described = await page.send_typed(
                "DOM.describeNode", {"objectId": object_id}, _DESCRIBED, timeout=timeout
            )
            found.add(described.node.backendNodeId)

        async with anyio.create_task_group() as tg:
            for object_id in object_ids:
                tg.start_soon(describe, object_id)
        return found
    finally:
        with anyio.CancelScope(shield=True), contextlib.suppress(KoBrowserError):
            await page.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=timeout)
