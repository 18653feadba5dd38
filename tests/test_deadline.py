"""Deadline: one absolute deadline per public call, shared by all its steps."""

from __future__ import annotations

import math

import anyio
import pytest

from kobrowser import InvalidArgumentError, WaitTimeoutError
from kobrowser._deadline import Deadline

pytestmark = pytest.mark.anyio


async def test_remaining_counts_down_from_the_timeout() -> None:
    deadline = Deadline(30)
    first = deadline.remaining()
    assert 0 < first <= 30
    await anyio.sleep(0.01)
    assert deadline.remaining() < first  # absolute: time spent is gone
    assert deadline.timeout == 30.0
    assert not deadline.expired


async def test_an_expired_deadline() -> None:
    deadline = Deadline(0)
    assert deadline.expired
    assert deadline.remaining() == 0
    assert deadline.remaining(floor=0.05) == 0.05


async def test_scope_ends_its_block_at_the_deadline() -> None:
    deadline = Deadline(0.01)
    with deadline.scope() as scope:
        await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert deadline.expired


async def test_scope_lets_the_caller_cancel() -> None:
    with anyio.CancelScope() as outer:
        with Deadline(30).scope() as inner:
            outer.cancel()
            await anyio.sleep_forever()
    assert outer.cancelled_caught
    assert not inner.cancelled_caught


async def test_of_uses_the_default_only_for_none() -> None:
    assert Deadline.of(None, 12).timeout == 12
    assert Deadline.of(0, 12).timeout == 0
    assert Deadline.of(2.5, 12).timeout == 2.5


async def test_error_names_what_and_the_timeout() -> None:
    error = Deadline(1.5).error("the page did not reach 'load'")
    assert isinstance(error, WaitTimeoutError)
    assert str(error) == "the page did not reach 'load' within 1.5 s"


@pytest.mark.parametrize("bad", [-1, math.nan, math.inf, "5", True, None])
async def test_a_bad_timeout_is_an_argument_error(bad: object) -> None:
    with pytest.raises(InvalidArgumentError, match="timeout"):
        Deadline(bad)  # type: ignore[arg-type]
