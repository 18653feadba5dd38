"""Deadline: the one way a public call bounds its time.

A public call that takes ``timeout=`` (always seconds) makes one
:class:`Deadline` from it, at its start, and hands that object down to
every step it takes: each CDP call gets :meth:`Deadline.remaining`, each
wait runs inside :meth:`Deadline.scope`. However many steps a call has, it
ends by the time the caller asked for::

    deadline = Deadline(timeout)
    target = await resolve(element_id, deadline)
    await session.send("DOM.focus", params, timeout=deadline.remaining())
    with deadline.scope():
        await something_that_waits()
    if deadline.expired:
        raise deadline.error("the element to be focused")
"""

from __future__ import annotations

import anyio

from kobrowser._exceptions import WaitTimeoutError
from kobrowser._validate import seconds

__all__ = ["Deadline"]


class Deadline:
    """An absolute point on the event loop's clock by which a call must be done.

    Args:
        timeout: seconds from now (a finite number >= 0).

    Attributes:
        timeout: the seconds the caller asked for (for messages).
        at: the deadline on ``anyio.current_time()``'s clock.

    Raises:
        InvalidArgumentError: ``timeout`` is not a finite number >= 0.
    """

    __slots__ = ("at", "timeout")

    def __init__(self, timeout: float) -> None:
        self.timeout = seconds(timeout)
        self.at = anyio.current_time() + self.timeout

    @classmethod
    def of(cls, timeout: float | None, default: float) -> Deadline:
        """A deadline ``timeout`` seconds from now, or ``default`` seconds when None.

        Raises:
            InvalidArgumentError: ``timeout`` is not None nor a finite number >= 0.
        """
        return cls(default if timeout is None else timeout)

    def __repr__(self) -> str:
        return f"<Deadline {self.timeout:g} s, {self.remaining():.3f} s left>"

    def remaining(self, floor: float = 0.0) -> float:
        """Seconds left (never below ``floor``: a CDP call needs a moment to fail cleanly)."""
        return max(self.at - anyio.current_time(), floor)

    @property
    def expired(self) -> bool:
        """True once the deadline has passed."""
        return anyio.current_time() >= self.at

    def scope(self) -> anyio.CancelScope:
        """A cancel scope that ends its block at the deadline (check ``cancelled_caught``).

        Cancelling the caller still cancels the block as usual.
        """
        return anyio.CancelScope(deadline=self.at)

    def error(self, what: str) -> WaitTimeoutError:
        """The error for ``what`` not happening in time: ``"<what> within <timeout> s"``."""
        return WaitTimeoutError(f"{what} within {self.timeout:g} s")
