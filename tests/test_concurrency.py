"""kobrowser._concurrency: plain errors out of task groups, cancellation never swallowed.

Each cancellation test races an error against the caller's cancellation: the
error is raised by a child on its way out (as a CDP call's cleanup may), and
the caller catches that error type. The old "first leaf" unwrapping raised
the error: the caller's ``except`` ran and it went on, its ``move_on_after``
or ``task.cancel()`` lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack

import anyio
import anyio.lowlevel
import pytest

from kobrowser._concurrency import exit_unwrapped, gather, unwrap_group, unwrapping

pytestmark = pytest.mark.anyio
both_backends = pytest.mark.both_backends


class Boom(Exception):
    pass


async def _fail_when_cancelled() -> None:
    """Wait; when cancelled, fail with an error instead (a cleanup that fails)."""
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        raise Boom("cleanup failed") from None


async def _fail_now() -> None:
    raise Boom("failed")


# -- unwrap_group: which leaf (pure) ------------------------------------------------


def test_unwrap_first_error_of_nested_groups() -> None:
    first, second = Boom("first"), ValueError("second")
    group = BaseExceptionGroup("outer", [ExceptionGroup("inner", [first]), second])
    assert unwrap_group(group) is first


def test_unwrap_prefers_cancellation_over_an_error() -> None:
    cancel = asyncio.CancelledError()
    group = BaseExceptionGroup("g", [Boom(), BaseExceptionGroup("inner", [cancel]), ValueError()])
    assert unwrap_group(group) is cancel


def test_unwrap_prefers_keyboard_interrupt_and_system_exit() -> None:
    interrupt = KeyboardInterrupt()
    group = BaseExceptionGroup("g", [Boom(), asyncio.CancelledError(), interrupt])
    assert unwrap_group(group) is interrupt
    leave = SystemExit(3)
    assert unwrap_group(BaseExceptionGroup("g", [asyncio.CancelledError(), leave])) is leave


# -- gather ---------------------------------------------------------------------------


@both_backends
async def test_gather_results_in_order_and_a_plain_error() -> None:
    async def value(n: int) -> int:
        await anyio.sleep(0.01 * (3 - n))
        return n

    assert await gather(lambda: value(0), lambda: value(1), lambda: value(2)) == [0, 1, 2]
    with pytest.raises(Boom, match="failed"):
        await gather(_fail_now, anyio.sleep_forever)


@both_backends
async def test_gather_cancelled_scope_beats_an_error_raised_at_the_same_time() -> None:
    went_on = False
    with anyio.CancelScope() as scope:

        async def cancel_and_fail() -> None:
            scope.cancel()
            raise Boom("failed")

        try:
            await gather(cancel_and_fail, anyio.sleep_forever)
        except Boom:
            went_on = True  # the old code got here and went on inside a cancelled scope
    assert scope.cancelled_caught
    assert not went_on


@both_backends
async def test_gather_move_on_after_works_when_a_child_fails_on_cancellation() -> None:
    went_on = False
    with anyio.move_on_after(0.05) as scope:
        try:
            await gather(_fail_when_cancelled, anyio.sleep_forever)
        except Boom:
            went_on = True
    assert scope.cancelled_caught
    assert not went_on


@both_backends
async def test_gather_error_without_cancellation_stays_the_error() -> None:
    # A shielded scope hides the cancelled outer one: the error is what happened there.
    with anyio.CancelScope() as outer:
        outer.cancel()
        with anyio.CancelScope(shield=True), pytest.raises(Boom):
            await gather(_fail_now, anyio.sleep_forever)
        await anyio.lowlevel.checkpoint()  # the outer cancellation, now visible
    assert outer.cancelled_caught


# -- unwrapping (a callee's task group, as Tab.snapshot's fetch) ------------------------


async def _group_failing_when_cancelled() -> None:
    """A callee running a task group whose child fails when cancelled (raises a group)."""
    async with anyio.create_task_group() as tg:
        tg.start_soon(_fail_when_cancelled)
        await anyio.sleep_forever()


@both_backends
async def test_unwrapping_gives_the_leaf_and_passes_other_errors() -> None:
    async def group_of_one() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_fail_now)
            await anyio.sleep_forever()

    with pytest.raises(Boom, match="failed"):
        async with unwrapping():
            await group_of_one()
    with pytest.raises(ValueError, match="plain"):
        async with unwrapping():
            raise ValueError("plain")


@both_backends
async def test_unwrapping_move_on_after_works_when_a_child_fails_on_cancellation() -> None:
    went_on = False
    with anyio.move_on_after(0.05) as scope:
        try:
            async with unwrapping():
                await _group_failing_when_cancelled()
        except Boom:
            went_on = True  # raise unwrap_group(group) got here and went on
    assert scope.cancelled_caught
    assert not went_on


# -- exit_unwrapped ---------------------------------------------------------------------


async def _stack_with_failing_child() -> AsyncExitStack:
    """An exit stack holding a task group whose child fails when cancelled."""
    stack = AsyncExitStack()
    tg = await stack.enter_async_context(anyio.create_task_group())
    tg.start_soon(_fail_when_cancelled)
    stack.callback(tg.cancel_scope.cancel)  # runs first on exit: the child fails
    return stack


@both_backends
async def test_exit_unwrapped_single_error_is_raised_as_itself() -> None:
    stack = await _stack_with_failing_child()
    with pytest.raises(Boom, match="cleanup failed"):
        await exit_unwrapped(stack, None, None, None)


@both_backends
async def test_exit_unwrapped_keeps_a_cancellation_leaving_the_block() -> None:
    went_on = False
    with anyio.move_on_after(0.05) as scope:
        stack = await _stack_with_failing_child()
        try:
            try:
                await anyio.sleep_forever()
            except BaseException as exc:
                if not await exit_unwrapped(stack, type(exc), exc, exc.__traceback__):
                    raise
        except Boom:
            went_on = True
    assert scope.cancelled_caught
    assert not went_on


@both_backends
async def test_exit_unwrapped_keeps_a_cancellation_arriving_during_exit() -> None:
    went_on = False
    with anyio.CancelScope() as scope:
        stack = AsyncExitStack()
        tg = await stack.enter_async_context(anyio.create_task_group())
        tg.start_soon(_fail_when_cancelled)
        stack.callback(scope.cancel)  # the caller is cancelled as the stack exits
        try:
            await exit_unwrapped(stack, None, None, None)
        except Boom:
            went_on = True
    assert scope.cancelled_caught
    assert not went_on


# -- native asyncio cancellation (task.cancel(), asyncio.timeout): asyncio only ------


async def _assert_native_cancel_wins(body: Callable[[], Awaitable[object]]) -> None:
    """Run ``body`` in a task and ``task.cancel()`` it: the cancel comes out, not ``Boom``."""
    went_on = False

    async def caller() -> None:
        nonlocal went_on
        try:
            await body()
        except Boom:
            went_on = True

    task = asyncio.ensure_future(caller())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not went_on


async def test_gather_native_cancel_is_not_lost() -> None:
    await _assert_native_cancel_wins(lambda: gather(_fail_when_cancelled, anyio.sleep_forever))


async def test_unwrapping_native_cancel_is_not_lost() -> None:
    async def body() -> None:
        async with unwrapping():
            await _group_failing_when_cancelled()

    await _assert_native_cancel_wins(body)


async def test_gather_under_asyncio_timeout_times_out() -> None:
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await gather(_fail_when_cancelled, anyio.sleep_forever)


async def test_exit_unwrapped_native_cancel_is_not_lost() -> None:
    async def body() -> None:
        stack = await _stack_with_failing_child()
        try:
            await asyncio.sleep(3600)
        except BaseException as exc:
            if not await exit_unwrapped(stack, type(exc), exc, exc.__traceback__):
                raise

    await _assert_native_cancel_wins(body)
