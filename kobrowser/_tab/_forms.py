"""Keyboard and form actions of a tab: focus, fill, type, press, select, check, upload.

Each resolves the id like the pointer actions (``_pointer``) and fails with
a clear error when the element is not of the kind the action needs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from kobrowser._exceptions import (
    InvalidArgumentError,
    NotInteractableError,
    ProtocolError,
    WrongElementKindError,
)
from kobrowser._tab import _scripts
from kobrowser._tab._acting import ActionContext, left
from kobrowser._tab._input import press_combo, type_text
from kobrowser._tab._pointer import click
from kobrowser._tab._resolve import Target, call, locate, object_id_of
from kobrowser._validate import existing_files

if TYPE_CHECKING:
    from kobrowser._deadline import Deadline

__all__ = ["check", "fill", "focus", "press", "select", "type_into", "uncheck", "upload"]

_CHECKABLE = ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")


async def focus(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> None:
    """Give element ``element_id`` the keyboard focus."""

    async def body(target: Target, deadline: Deadline) -> None:
        await _focus(target, deadline)

    await ctx.run(element_id, deadline, body)


async def _focus(target: Target, deadline: Deadline) -> None:
    try:
        await target.session.send(
            "DOM.focus", {"objectId": target.object_id}, timeout=left(deadline)
        )
    except ProtocolError as exc:
        raise NotInteractableError(
            f"element {target.element.id} cannot take the keyboard focus: {exc.message}",
            target.element.id,
        ) from None
    await _keys_routed(target, deadline)


async def _keys_routed(target: Target, deadline: Deadline) -> None:
    """Wait (up to 1 s) until the browser sends keys to the element's frame.

    Keys go to the frame the browser believes focused. An out-of-process
    frame tells the browser about its focus on another channel than the
    DevTools reply, so a key sent right after the focus could still go to
    the page. Each parent document in another process learns of the focus
    from the browser: once its ``<iframe>`` is the active element there, the
    browser knows. Same-process frames need no wait. A frame that never
    shows it (the page moved the focus away at once) is not an error.
    """
    child = target.session
    for parent, owner in target.chain:
        if parent is not child:
            try:
                owner_id = await object_id_of(parent, owner, timeout=left(deadline))
                if owner_id is not None:
                    await call(
                        parent,
                        owner_id,
                        _scripts.FRAME_FOCUSED,
                        timeout=left(deadline),
                        await_promise=True,
                    )
            except ProtocolError:
                pass  # the parent document changed: nothing to wait for
        child = parent


async def fill(ctx: ActionContext, element_id: int, value: str, *, deadline: Deadline) -> None:
    """Replace the value of element ``element_id``; see :meth:`Tab.fill`."""

    async def body(target: Target, deadline: Deadline) -> None:
        await locate(target, deadline=deadline, hit=False)
        prepared = await call(
            target.session,
            target.object_id,
            _scripts.FILL_PREPARE,
            value,
            timeout=left(deadline),
        )
        if prepared.get("error"):
            raise WrongElementKindError(
                f"cannot fill element {element_id} ({target.element.role}): {prepared['error']}",
                element_id,
            )
        if prepared.get("done"):
            return
        await _keys_routed(target, deadline)
        if value:
            await ctx.page.send("Input.insertText", {"text": value}, timeout=left(deadline))
        else:
            await press_combo(ctx.page, "Delete", timeout=left(deadline))

    await ctx.run(element_id, deadline, body)


async def type_into(
    ctx: ActionContext,
    element_id: int,
    text: str,
    *,
    delay: float = 0,
    deadline: Deadline,
) -> None:
    """Focus element ``element_id`` and type ``text``; see :meth:`Tab.type`."""

    async def body(target: Target, deadline: Deadline) -> None:
        await locate(target, deadline=deadline, hit=False)
        await _focus(target, deadline)
        await type_text(ctx.page, text, delay=delay, timeout=left(deadline))

    await ctx.run(element_id, deadline, body)


async def press(ctx: ActionContext, key: str, *, deadline: Deadline) -> None:
    """Press ``key`` on the focused element; see :meth:`Tab.press`."""
    await press_combo(ctx.page, key, timeout=left(deadline))


async def select(ctx: ActionContext, element_id: int, *values: str, deadline: Deadline) -> None:
    """Select options of a ``<select>``; see :meth:`Tab.select`."""

    async def body(target: Target, deadline: Deadline) -> None:
        await locate(target, deadline=deadline, hit=False)
        result = await call(
            target.session,
            target.object_id,
            _scripts.SELECT_OPTIONS,
            list(values),
            timeout=left(deadline),
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
                f"values: got {len(values)}; element {element_id} allows only one selected option",
                argument="values",
            )

    await ctx.run(element_id, deadline, body)


async def check(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> None:
    """Make a checkbox, radio or switch checked (no-op when it already is)."""
    await _set_checked(ctx, element_id, True, deadline)


async def uncheck(ctx: ActionContext, element_id: int, *, deadline: Deadline) -> None:
    """Make a checkbox or switch unchecked (no-op when it already is)."""
    await _set_checked(ctx, element_id, False, deadline)


async def _set_checked(
    ctx: ActionContext, element_id: int, wanted: bool, deadline: Deadline
) -> None:
    target = await ctx.resolve(element_id, deadline)
    state = await call(target.session, target.object_id, _scripts.CHECKED, timeout=left(deadline))
    if state is None or target.element.role not in (*_CHECKABLE, "button"):
        raise WrongElementKindError(
            f"element {element_id} ({target.element.role}) cannot be checked", element_id
        )
    if state is wanted:
        return
    await click(ctx, element_id, deadline=deadline)
    # Toggling keeps the node, role and name: the same handle reads the new state.
    state = await call(target.session, target.object_id, _scripts.CHECKED, timeout=left(deadline))
    if state is not wanted:
        raise NotInteractableError(
            f"clicking element {element_id} did not {'check' if wanted else 'uncheck'} it",
            element_id,
        )


async def upload(
    ctx: ActionContext,
    element_id: int,
    *files: str | os.PathLike[str],
    deadline: Deadline,
) -> None:
    """Set the files of an ``<input type=file>``; see :meth:`Tab.upload`."""
    paths = existing_files(files)

    async def body(target: Target, deadline: Deadline) -> None:
        kind = await call(
            target.session,
            target.object_id,
            _scripts.INFO,
            "kind",
            timeout=left(deadline),
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
            timeout=left(deadline),
        )

    await ctx.run(element_id, deadline, body)
