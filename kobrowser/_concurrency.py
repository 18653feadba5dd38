"""Run a few coroutines at once and get plain exceptions back.

anyio task groups raise ``ExceptionGroup``; callers of kobrowser should see
the one error that matters (a ``StaleElementError``, a ``CDPTimeoutError``),
not a group. Cancellation is never swallowed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import anyio

__all__ = ["exit_unwrapped", "gather", "unwrap_group"]


def unwrap_group(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf exception of a (possibly nested) exception group."""
    first: BaseException = group
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    return first


async def gather(*functions: Callable[[], Awaitable[Any]]) -> list[Any]:
    """Run the functions concurrently; return their results in order.

    If any raises, the others are cancelled and the first error is raised as
    itself (not wrapped in an exception group).
    """
    results: list[Any] = [None] * len(functions)

    async def run(index: int, function: Callable[[], Awaitable[Any]]) -> None:
        results[index] = await function()

    try:
        async with anyio.create_task_group() as tg:
            for index, function in enumerate(functions):
                tg.start_soon(run, index, function)
    except BaseExceptionGroup as group:
        error = unwrap_group(group)
        raise error from None
    return results


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            found.extend(_leaves(error))
        else:
            found.append(error)
    return found


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
    """
    try:
        return await stack.__aexit__(exc_type, exc, tb)
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise
