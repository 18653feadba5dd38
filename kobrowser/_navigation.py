"""Navigation and waits of a tab."""

from __future__ import annotations

from ._exceptions import NavigationError, ProtocolError
from ._tab_core import TabCore

__all__ = ["NavigationMixin"]


class NavigationMixin(TabCore):
    """Navigation (open, back, forward, reload) and event-driven waits."""

    async def open(self, url: str, *, timeout: float | None = None) -> None:
        """Navigate to ``url`` and wait for its load event.

        Raises:
            NavigationError: invalid URL, DNS or connection failure.
            CDPTimeoutError: no load event within ``timeout`` (default: the browser's).
        """
        deadline = self.timeout if timeout is None else timeout
        with self.cdp.subscribe("Page.loadEventFired") as events:
            try:
                result = await self.cdp.send("Page.navigate", {"url": url}, timeout=deadline)
            except ProtocolError as exc:
                raise NavigationError(f"cannot open {url!r}: {exc.message}") from None
            error = result.get("errorText")
            if error:
                raise NavigationError(f"cannot open {url!r}: {error}")
            if "loaderId" not in result:
                return  # same-document navigation: no load event follows
            try:
                await events.next(timeout=deadline)
            except TimeoutError:
                raise NavigationError(
                    f"{url!r} did not fire its load event within {deadline:g} s"
                ) from None
