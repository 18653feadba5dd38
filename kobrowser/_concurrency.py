"""Run a few coroutines at once and get plain exceptions back.

anyio task groups raise ``ExceptionGroup``; callers of kobrowser should see
the one error that matters (a ``StaleElementError``, a ``CDPTimeoutError``),
not a group. Cancellation is never swallowed: which leaf is raised in place
of a group, in order of precedence:

1. ``KeyboardInterrupt``, ``SystemExit`` and any other ``BaseException`` that
   is neither an ``Exception`` nor a cancellation: they must reach the top.
2. The backend's cancellation (``asyncio.CancelledError``, ``trio.Cancelled``)
   when the group holds one, or when the caller is being cancelled although
   the group holds none (anyio on asyncio leaves the host task's
   ``CancelledError`` out of the group when a child failed): an error raised
   while the caller's scope is being torn down is secondary, and raising it
   instead would let the caller go on as if only that error had happened
   (``except ProtocolError: retry``) while its ``move_on_after`` or its
   ``task.cancel()`` is lost.
3. The first ordinary error.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from types import TracebackType
from typing import Any, NoReturn

import anyio
import anyio.lowlevel

__all__ = ["exit_unwrapped", "gather", "unwrap_group", "unwrapping"]


def _is_cancellation(error: BaseException) -> bool:
    if isinstance(error, asyncio.CancelledError):
        return True
    trio = sys.modules.get("trio")  # only a trio run can hold a trio.Cancelled
    return trio is not None and isinstance(error, trio.Cancelled)


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            found.extend(_leaves(error))
        else:
            found.append(error)
    return found


def unwrap_group(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The leaf of a (possibly nested) exception group to raise in its place.

    A ``KeyboardInterrupt`` / ``SystemExit`` (any ``BaseException`` that is
    not an ``Exception`` nor a cancellation) comes first, then the first
    cancellation, then the first ordinary error. This looks at the group
    only; :func:`gather` and :func:`exit_unwrapped` also raise the caller's
    cancellation when anyio left it out of the group.
    """
    leaves = _leaves(group)
    for leaf in leaves:
        if not isinstance(leaf, Exception) and not _is_cancellation(leaf):
            return leaf
    for leaf in leaves:
        if _is_cancellation(leaf):
            return leaf
    return leaves[0]


def _cancel_requests() -> int:
    """How many native cancellations the current asyncio task has pending (0 under trio)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no asyncio loop running: trio
        return 0
    return 0 if task is None else task.cancelling()


async def _raise_cancellation_if_due(cancel_requests_before: int) -> None:
    """Raise the caller's cancellation if it is being cancelled; else return.

    Called while handling an error group whose chosen leaf is an ordinary
    error (the exception being handled becomes the cancellation's context).
    """
    if anyio.current_effective_deadline() == -math.inf:
        # A cancelled anyio / trio scope is level-triggered: the next
        # checkpoint raises its cancellation, which that scope catches.
        await anyio.lowlevel.checkpoint()
    if _cancel_requests() > cancel_requests_before:
        # A native ``task.cancel()`` (asyncio.timeout, wait_for, a caller's
        # cancel) landed meanwhile and the task group kept it out of the group.
        raise asyncio.CancelledError


async def _raise_leaf(group: BaseExceptionGroup[BaseException], cancel_requests: int) -> NoReturn:
    error = unwrap_group(group)
    if isinstance(error, Exception):
        await _raise_cancellation_if_due(cancel_requests)
    raise error from None


async def gather(*functions: Callable[[], Awaitable[Any]]) -> list[Any]:
    """Run the functions concurrently; return their results in order.

    If any raises, the others are cancelled and the first error is raised as
    itself (not wrapped in an exception group).

    Cancellation: cancelling the caller cancels every function and raises the
    cancellation, also when a function fails with an error on the way out
    (the cancellation wins over that error; see the module docstring).
    """
    results: list[Any] = [None] * len(functions)

    async def run(index: int, function: Callable[[], Awaitable[Any]]) -> None:
        results[index] = await function()

    async with unwrapping(), anyio.create_task_group() as tg:
        for index, function in enumerate(functions):
            tg.start_soon(run, index, function)
    return results


@asynccontextmanager
async def unwrapping() -> AsyncIterator[None]:
    """Raise an exception group that escapes the block as its one leaf.

    For code whose callees run task groups (``async with unwrapping(): await
    fetch(...)``): the leaf is chosen as :func:`unwrap_group` does, and the
    caller's own cancellation wins over an ordinary error when the caller is
    being cancelled although the group does not hold it (see the module
    docstring). Anything that is not a group passes through unchanged.
    """
    cancel_requests = _cancel_requests()
    try:
        yield
    except BaseExceptionGroup as group:
        await _raise_leaf(group, cancel_requests)


async def exit_unwrapped(
    stack: AsyncExitStack,
    exc_type: type[BaseException] | None,
    exc: BaseException | None,
    tb: TracebackType | None,
) -> bool | None:
    """Exit ``stack``; a task group's single-error ``ExceptionGroup`` becomes that error.

    A task group that spans the user's ``async with`` block would wrap a
    ``LaunchError`` or the user's own exception in a group; callers expect
    ``except LaunchError`` (or their own type) to work. Several distinct
    errors stay a group.

    Cancellation: when the block is left by a cancellation (``exc``), the
    group holds one, or the caller is being cancelled, errors raised by the
    stack's exit do not replace the cancellation: the cancellation is raised.
    A ``KeyboardInterrupt`` / ``SystemExit`` in the group is raised as itself.
    """
    cancel_requests = _cancel_requests()
    try:
        return await stack.__aexit__(exc_type, exc, tb)
    except BaseExceptionGroup as group:
        error = unwrap_group(group)
        if not isinstance(error, Exception):  # KeyboardInterrupt, a cancellation
            raise error from None
        if exc is not None and _is_cancellation(exc):
            raise exc from group  # anyio on asyncio leaves it out of the group
        await _raise_cancellation_if_due(cancel_requests)
        if len(_leaves(group)) == 1:
            raise error from None
        raise
