"""The action methods of a tab: act on elements by their snapshot id.

Every action resolves the id through the tab's last snapshot and verifies
the element is still the one that snapshot showed (same document, same
role and name) before touching it; then it waits for actionability and
dispatches trusted input. A stale id raises
:class:`~kobrowser.StaleElementError` and never acts on another element.

Cancelling an action abandons it between CDP calls; input already
dispatched is not undone.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

import anyio

from .._exceptions import (
    InvalidArgumentError,
    KoBrowserError,
    NotInteractableError,
    ProtocolError,
    TargetClosedError,
    WrongElementKindError,
)
from .._validate import check, existing_files
from . import _scripts
from ._input import modifier_mask, press_combo, type_text
from ._readers import ReadersMixin
from ._resolve import Target, call, locate

__all__ = ["ActionsMixin"]

_GUARD_MS = 5000  # cleared right after each action; only a safety net
_HOVER_TRIES = 3  # moves sent before hover gives up on a frame that never sees them
_GUARD_READ_S = 5.0  # deadline floor for reading a guard after input was sent
_CHECKABLE = ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")


class ActionsMixin(ReadersMixin):
    """Act on elements by their snapshot id."""

    async def click(
        self,
        element_id: int,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: Sequence[str] = (),
        timeout: float | None = None,
    ) -> None:
        """Click element ``element_id`` of the last snapshot with a trusted mouse click.

        Waits (up to ``timeout``) until the element is visible, stable,
        enabled and is what receives the pointer; a point of the element not
        covered by another is chosen. Pointer events that would reach any
        other element (the page changed between the check and the click)
        are blocked and the click is retried.

        Args:
            element_id: the id from the latest snapshot.
            button: ``"left"``, ``"right"`` or ``"middle"``.
            click_count: 2 for a double click.
            modifiers: keys held during the click, e.g. ``["Shift"]``.
            timeout: seconds (default: the browser's timeout).

        Raises:
            NoSnapshotError, UnknownElementError, StaleElementError,
            NotInteractableError (names the covering element),
            InvalidArgumentError.
        """
        check(element_id=element_id, button=button, click_count=click_count, modifiers=modifiers)
        mask = modifier_mask(modifiers)
        limit = self._limit(timeout)
        deadline = anyio.current_time() + limit
        for _ in range(5):
            target = await self._resolve(element_id, self._left(deadline))
            x, y, _rect = await locate(target, timeout=self._left(deadline), guard_ms=_GUARD_MS)
            await self._mouse.click(
                x,
                y,
                timeout=self._left(deadline),
                button=button,
                click_count=click_count,
                modifiers=mask,
            )
            guards = await self._read_guards(target, deadline, wait={"mouseup": click_count})
            if guards is None or not guards[1]:
                return
            if guards[0]:
                raise NotInteractableError(
                    f"element {element_id} moved while it was clicked: part of the click "
                    "was blocked before it reached another element. Take a new snapshot.",
                    element_id,
                )
        raise NotInteractableError(
            f"element {element_id} kept moving away from the pointer; no click was delivered",
            element_id,
        )

    async def _read_guards(
        self,
        target: Target,
        deadline: float,
        *,
        keep: bool = False,
        wait: dict[str, int] | None = None,
    ) -> tuple[int, int, int] | None:
        """Read (and unless ``keep``, disarm) the pointer guards ``locate`` armed.

        The guard is armed in the element's frame and in every parent frame
        (around the ``<iframe>`` on the way), so all of them are read: an
        event blocked in a parent frame never reached the element either.

        Returns:
            (events that reached the element, events blocked in any frame,
            mouse moves the element's frame saw), or None when the element's
            frame is gone (the click navigated).
        """
        own = await self._guard_call(target.session, target.object_id, keep, deadline, wait)
        if own is None:
            return None
        blocked = int(own.get("blocked", 0))
        for parent_session, owner in target.chain:
            try:
                resolved = await parent_session.send(
                    "DOM.resolveNode",
                    {"backendNodeId": owner, "objectGroup": "kobrowser"},
                    timeout=self._left(deadline),
                )
            except KoBrowserError:
                continue
            owner_id = resolved.get("object", {}).get("objectId")
            if owner_id is None:
                continue
            guard = await self._guard_call(parent_session, owner_id, keep, deadline, None)
            if guard is not None:
                blocked += int(guard.get("blocked", 0))
        return int(own.get("ok", 0)), blocked, int(own.get("moves", 0))

    async def _guard_call(
        self,
        session: Any,
        object_id: str,
        keep: bool,
        deadline: float,
        wait: dict[str, int] | None,
    ) -> dict[str, int] | None:
        try:
            guard = await call(
                session,
                object_id,
                _scripts.GUARD_READ,
                keep,
                wait,
                # The input is already sent: finding out where it went must
                # not be cut short by the action's own (nearly spent) deadline.
                timeout=max(self._left(deadline), _GUARD_READ_S),
                await_promise=True,
            )
        except (ProtocolError, TargetClosedError):
            return None  # the input navigated or closed the frame: it was delivered
        return guard if isinstance(guard, dict) else None

    async def dblclick(self, element_id: int, *, timeout: float | None = None) -> None:
        """Double-click element ``element_id`` (see :meth:`click`)."""
        await self.click(element_id, click_count=2, timeout=timeout)

    async def hover(self, element_id: int, *, timeout: float | None = None) -> None:
        """Move the mouse over element ``element_id`` (waits for actionability).

        Returns once the element's frame has seen the pointer; a move that
        Chrome delivered elsewhere (an out-of-process frame whose input
        routing was not ready) is sent again.

        Raises:
            NoSnapshotError, UnknownElementError, StaleElementError,
            NotInteractableError (covered, or its frame never received the
            pointer after three moves).
        """

        async def body(target: Target, deadline: float) -> None:
            x, y, _ = await locate(
                target, timeout=self._left(deadline), enabled=False, guard_ms=_GUARD_MS
            )
            moved = (x, y) != (self._mouse.x, self._mouse.y)
            await self._mouse.move(x, y, timeout=self._left(deadline))
            if not moved:
                await self._read_guards(target, deadline)
                return
            # Returns once the element's frame has seen the move (an
            # out-of-process frame gets it after the page acknowledged it).
            for _ in range(_HOVER_TRIES):
                guards = await self._read_guards(target, deadline, keep=True, wait={"mousemove": 1})
                if guards is None:
                    return  # the frame went away
                if guards[2]:
                    await self._read_guards(target, deadline)
                    return
                # The frame never saw the pointer: Chrome sent the move to the
                # page (an out-of-process frame's input routing not ready yet,
                # on a loaded machine). Step aside and come back.
                await self._mouse.move(x + 1, y, timeout=self._left(deadline))
                await self._mouse.move(x, y, timeout=self._left(deadline))
            await self._read_guards(target, deadline)
            raise NotInteractableError(
                f"the mouse moved over element {element_id}, but its frame never "
                "received the pointer. Take a new snapshot and try again.",
                element_id,
            )

        await self._run(element_id, timeout, body)

    async def drag(
        self, source_id: int, target_id: int, *, steps: int = 8, timeout: float | None = None
    ) -> None:
        """Drag element ``source_id`` onto element ``target_id`` with the mouse.

        Works for pointer-driven drags and for HTML5 drag and drop.
        """
        check(source_id=source_id, target_id=target_id, steps=steps, timeout=timeout)
        limit = self._limit(timeout)
        deadline = anyio.current_time() + limit
        source = await self._resolve(source_id, limit)
        x1, y1, _ = await locate(source, timeout=self._left(deadline), guard_ms=_GUARD_MS)
        kind = await call(
            source.session, source.object_id, _scripts.INFO, "kind", timeout=self._left(deadline)
        )
        # An HTML5-draggable source starts a drag the browser reports (and we
        # must wait for, however slow the machine); a pointer-driven one never does.
        drag_wait = 2.0 if isinstance(kind, dict) and kind.get("draggable") else 0.05
        dest = await self._resolve(target_id, self._left(deadline))
        x2, y2, _ = await locate(dest, timeout=self._left(deadline), enabled=False)
        page, mouse = self.cdp, self._mouse
        await page.send("Input.setInterceptDrags", {"enabled": True}, timeout=self._left(deadline))
        try:
            with page.subscribe("Input.dragIntercepted") as drags:
                await mouse.move(x1, y1, timeout=self._left(deadline))
                await mouse.down(timeout=self._left(deadline))
                # The guard only protects the press: the release happens over
                # the drop target, which the guard would block.
                pressed = await self._read_guards(
                    source, deadline, keep=True, wait={"mousedown": 1}
                )
                if pressed is not None and pressed[1]:
                    await mouse.up(timeout=self._left(deadline))
                    await self._read_guards(source, deadline)
                    raise NotInteractableError(
                        f"element {source_id} moved as the drag started: the press was "
                        "blocked before it reached another element. Take a new snapshot.",
                        source_id,
                    )
                await self._read_guards(source, deadline)
                await mouse.move(x2, y2, timeout=self._left(deadline), steps=steps, buttons=1)
                data = None
                with anyio.move_on_after(min(drag_wait, self._left(deadline))):
                    data = (await drags.next()).params.get("data")
                if data is not None:
                    for kind in ("dragEnter", "dragOver", "drop"):
                        await page.send(
                            "Input.dispatchDragEvent",
                            {"type": kind, "x": x2, "y": y2, "data": data},
                            timeout=self._left(deadline),
                        )
                await mouse.up(timeout=self._left(deadline))
        finally:
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(2),
                contextlib.suppress(KoBrowserError),
            ):
                await page.send("Input.setInterceptDrags", {"enabled": False}, timeout=2)

    async def scroll_into_view(self, element_id: int, *, timeout: float | None = None) -> None:
        """Scroll element ``element_id`` into view (in every frame on the way)."""

        async def body(target: Target, deadline: float) -> None:
            await locate(target, timeout=self._left(deadline), hit=False, enabled=False)

        await self._run(element_id, timeout, body)

    async def scroll(
        self, direction: str = "down", amount: float = 600, *, timeout: float | None = None
    ) -> None:
        """Scroll the page with the mouse wheel at the viewport's centre.

        Args:
            direction: ``"up"``, ``"down"``, ``"left"`` or ``"right"``.
            amount: CSS pixels.
        """
        check(direction=direction, amount=amount, timeout=timeout)
        vectors = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
        limit = self._limit(timeout)
        metrics = await self.cdp.send("Page.getLayoutMetrics", timeout=limit)
        viewport = metrics.get("cssLayoutViewport", {})
        x = viewport.get("clientWidth", 800) / 2
        y = viewport.get("clientHeight", 600) / 2
        dx, dy = vectors[direction]
        await self._mouse.wheel(x, y, dx * amount, dy * amount, timeout=limit)
        # Let the scroll land before the next snapshot reads the page.
        await self.cdp.send(
            "Runtime.evaluate",
            {
                "expression": "new Promise(r => requestAnimationFrame(() => r()))",
                "awaitPromise": True,
            },
            timeout=limit,
        )

    # -- keyboard and forms --------------------------------------------------

    async def focus(self, element_id: int, *, timeout: float | None = None) -> None:
        """Give element ``element_id`` the keyboard focus."""

        async def body(target: Target, deadline: float) -> None:
            await self._focus(target, deadline)

        await self._run(element_id, timeout, body)

    async def _focus(self, target: Target, deadline: float) -> None:
        try:
            await target.session.send(
                "DOM.focus", {"objectId": target.object_id}, timeout=self._left(deadline)
            )
        except ProtocolError as exc:
            raise NotInteractableError(
                f"element {target.element.id} cannot take the keyboard focus: {exc.message}",
                target.element.id,
            ) from None

    async def fill(self, element_id: int, value: str, *, timeout: float | None = None) -> None:
        """Replace the value of a text field, textarea or contenteditable element.

        Uses real text input (``Input.insertText``), so frameworks that
        control the input (React, Vue) see normal input events. Date, color,
        range and similar inputs get their value set directly.

        Raises:
            WrongElementKindError: the element is not something that can be filled.
        """
        check(element_id=element_id, value=value, timeout=timeout)

        async def body(target: Target, deadline: float) -> None:
            await locate(target, timeout=self._left(deadline), hit=False)
            prepared = await call(
                target.session,
                target.object_id,
                _scripts.FILL_PREPARE,
                value,
                timeout=self._left(deadline),
            )
            if prepared.get("error"):
                raise WrongElementKindError(
                    f"cannot fill element {element_id} ({target.element.role}): "
                    f"{prepared['error']}",
                    element_id,
                )
            if prepared.get("done"):
                return
            if value:
                await self.cdp.send(
                    "Input.insertText", {"text": value}, timeout=self._left(deadline)
                )
            else:
                await press_combo(self.cdp, "Delete", timeout=self._left(deadline))

        await self._run(element_id, timeout, body)

    async def type(
        self, element_id: int, text: str, *, delay: float = 0, timeout: float | None = None
    ) -> None:
        """Focus element ``element_id`` and type ``text`` with real key events.

        Args:
            delay: milliseconds between key presses.
        """
        check(element_id=element_id, text=text, delay=delay, timeout=timeout)

        async def body(target: Target, deadline: float) -> None:
            await locate(target, timeout=self._left(deadline), hit=False)
            await self._focus(target, deadline)
            await type_text(self.cdp, text, delay=delay, timeout=self._left(deadline))

        await self._run(element_id, timeout, body)

    async def press(self, key: str, *, timeout: float | None = None) -> None:
        """Press a key or combination on the focused element: ``"Enter"``, ``"Control+a"``.

        Raises:
            InvalidArgumentError: unknown key or modifier.
        """
        check(key=key, timeout=timeout)
        await press_combo(self.cdp, key, timeout=self._limit(timeout))

    async def select(self, element_id: int, *values: str, timeout: float | None = None) -> None:
        """Select options of a ``<select>`` by value or label (several if ``multiple``).

        Raises:
            WrongElementKindError: the element is not a select.
            InvalidArgumentError: no values given, or an option is missing (the
                message lists the available ones).
        """
        check(element_id=element_id, values=values, timeout=timeout)

        async def body(target: Target, deadline: float) -> None:
            await locate(target, timeout=self._left(deadline), hit=False)
            result = await call(
                target.session,
                target.object_id,
                _scripts.SELECT_OPTIONS,
                list(values),
                timeout=self._left(deadline),
            )
            error = result.get("error")
            if error == "kind":
                raise WrongElementKindError(
                    f"element {element_id} ({target.element.role}) is not a <select>",
                    element_id,
                )
            if error == "missing":
                raise InvalidArgumentError(
                    f"values: element {element_id} has no option {result['wanted']!r}; "
                    f"expected one of its options: {', '.join(result['available'])}",
                    argument="values",
                )
            if error == "disabled":
                raise NotInteractableError(
                    f"option {result['wanted']!r} of element {element_id} is disabled",
                    element_id,
                )
            if error == "single":
                raise InvalidArgumentError(
                    f"values: got {len(values)}; element {element_id} allows only one "
                    "selected option",
                    argument="values",
                )

        await self._run(element_id, timeout, body)

    async def check(self, element_id: int, *, timeout: float | None = None) -> None:
        """Make a checkbox, radio or switch checked (no-op when it already is)."""
        await self._set_checked(element_id, True, timeout)

    async def uncheck(self, element_id: int, *, timeout: float | None = None) -> None:
        """Make a checkbox or switch unchecked (no-op when it already is)."""
        await self._set_checked(element_id, False, timeout)

    async def _set_checked(self, element_id: int, wanted: bool, timeout: float | None) -> None:
        limit = self._limit(timeout)
        target = await self._resolve(element_id, limit)
        state = await call(target.session, target.object_id, _scripts.CHECKED, timeout=limit)
        if state is None or target.element.role not in (*_CHECKABLE, "button"):
            raise WrongElementKindError(
                f"element {element_id} ({target.element.role}) cannot be checked", element_id
            )
        if state is wanted:
            return
        await self.click(element_id, timeout=timeout)
        # Toggling keeps the node, role and name: the same handle reads the new state.
        state = await call(target.session, target.object_id, _scripts.CHECKED, timeout=limit)
        if state is not wanted:
            raise NotInteractableError(
                f"clicking element {element_id} did not {'check' if wanted else 'uncheck'} it",
                element_id,
            )

    async def upload(
        self, element_id: int, *files: str | os.PathLike[str], timeout: float | None = None
    ) -> None:
        """Set the files of an ``<input type=file>``.

        Raises:
            InvalidArgumentError: a file does not exist.
            WrongElementKindError: the element is not a file input.
        """
        check(element_id=element_id, timeout=timeout)
        paths = existing_files(files)

        async def body(target: Target, deadline: float) -> None:
            kind = await call(
                target.session,
                target.object_id,
                _scripts.INFO,
                "kind",
                timeout=self._left(deadline),
            )
            if kind.get("tag") != "input" or kind.get("type") != "file":
                raise WrongElementKindError(
                    f"element {element_id} ({target.element.role}) is not a file input",
                    element_id,
                )
            if len(paths) > 1 and not kind.get("multiple"):
                raise InvalidArgumentError(
                    f"files: got {len(paths)}; element {element_id} accepts one file",
                    argument="files",
                )
            await target.session.send(
                "DOM.setFileInputFiles",
                {"files": paths, "objectId": target.object_id},
                timeout=self._left(deadline),
            )

        await self._run(element_id, timeout, body)
