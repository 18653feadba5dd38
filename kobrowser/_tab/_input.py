"""Trusted input: ``Input.dispatchMouseEvent`` / ``Input.dispatchKeyEvent`` on the page.

Everything is sent to the tab's top-level page session in top-page CSS
pixels; Chrome routes each event to the right frame and process itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import anyio

from kobrowser._validate._keys import MODIFIER_BITS, KeyDef, key_for_char, parse_combo, resolve_key

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = ["Mouse", "modifier_mask", "press_combo", "type_text"]

_BUTTON_BITS = {"left": 1, "right": 2, "middle": 4, "none": 0}


def modifier_mask(modifiers: Iterable[str]) -> int:
    """``["Shift", "Control"]`` -> the CDP modifier bit mask.

    Raises:
        ValueError: an unknown modifier name.
    """
    mask = 0
    for name in modifiers:
        canonical = {"ctrl": "Control", "cmd": "Meta"}.get(name.lower(), name.capitalize())
        bit = MODIFIER_BITS.get(canonical)
        if bit is None:
            raise ValueError(f"unknown modifier {name!r}: use Shift, Control, Alt or Meta")
        mask |= bit
    return mask


class Mouse:
    """The mouse of one tab (remembers where it is)."""

    def __init__(self, page: CDPSession) -> None:
        self._page = page
        self.x = 0.0
        self.y = 0.0

    async def _send(self, kind: str, timeout: float, **params: Any) -> None:
        await self._page.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": self.x, "y": self.y, **params},
            timeout=timeout,
        )

    async def move(
        self,
        x: float,
        y: float,
        *,
        timeout: float,
        modifiers: int = 0,
        steps: int = 1,
        buttons: int = 0,
    ) -> None:
        """Move to (x, y) in ``steps`` mouseMoved events.

        ``buttons`` is the mask of buttons held; the pressed ``button`` is sent
        with it, since Chrome starts an HTML5 drag only on moves that name it.
        """
        button = next((name for name, bit in _BUTTON_BITS.items() if bit and buttons & bit), "none")
        start_x, start_y = self.x, self.y
        for i in range(1, steps + 1):
            self.x = start_x + (x - start_x) * i / steps
            self.y = start_y + (y - start_y) * i / steps
            await self._send(
                "mouseMoved", timeout, modifiers=modifiers, button=button, buttons=buttons
            )

    async def down(
        self, *, timeout: float, button: str = "left", click_count: int = 1, modifiers: int = 0
    ) -> None:
        """Press a button where the mouse is."""
        await self._send(
            "mousePressed",
            timeout,
            button=button,
            buttons=_BUTTON_BITS[button],
            clickCount=click_count,
            modifiers=modifiers,
        )

    async def up(
        self, *, timeout: float, button: str = "left", click_count: int = 1, modifiers: int = 0
    ) -> None:
        """Release a button where the mouse is."""
        await self._send(
            "mouseReleased",
            timeout,
            button=button,
            buttons=0,
            clickCount=click_count,
            modifiers=modifiers,
        )

    async def click(
        self,
        x: float,
        y: float,
        *,
        timeout: float,
        button: str = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None:
        """Move to (x, y) and click ``click_count`` times (2 = a double click)."""
        if button not in _BUTTON_BITS or button == "none":
            raise ValueError(f"button must be 'left', 'right' or 'middle', not {button!r}")
        if click_count < 1:
            raise ValueError(f"click_count must be at least 1, not {click_count}")
        await self.move(x, y, timeout=timeout, modifiers=modifiers)
        for count in range(1, click_count + 1):
            await self.down(timeout=timeout, button=button, click_count=count, modifiers=modifiers)
            await self.up(timeout=timeout, button=button, click_count=count, modifiers=modifiers)

    async def wheel(self, x: float, y: float, dx: float, dy: float, *, timeout: float) -> None:
        """Scroll with the wheel at (x, y)."""
        self.x, self.y = x, y
        await self._send("mouseWheel", timeout, deltaX=dx, deltaY=dy)


async def _key(
    page: CDPSession,
    kind: str,
    key: KeyDef,
    *,
    modifiers: int,
    text: str,
    value: str,
    timeout: float,
) -> None:
    params: dict[str, Any] = {
        "type": kind,
        "key": value,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": modifiers,
        "location": key.location,
    }
    if text:
        params["text"] = text
        params["unmodifiedText"] = text
    await page.send("Input.dispatchKeyEvent", params, timeout=timeout)


async def press_combo(page: CDPSession, combo: str, *, timeout: float) -> None:
    """Press and release a key combination such as ``"Enter"`` or ``"Control+a"``.

    Raises:
        ValueError: unknown key or modifier.
    """
    modifiers, key, shifted = parse_combo(combo)
    if shifted and "Shift" not in modifiers:
        modifiers.append("Shift")
    mask = 0
    for name in modifiers:
        mask |= MODIFIER_BITS[name]
        mod_key = resolve_key(name)
        await _key(
            page, "rawKeyDown", mod_key, modifiers=mask, text="", value=name, timeout=timeout
        )
    value = key.shift_key if ("Shift" in modifiers and key.shift_key) else key.key
    # Text is typed only without Control/Alt/Meta (those make shortcuts).
    text = "" if mask & (1 | 2 | 4) else (value if key.text and len(value) == 1 else key.text)
    await _key(
        page,
        "keyDown" if text else "rawKeyDown",
        key,
        modifiers=mask,
        text=text,
        value=value,
        timeout=timeout,
    )
    await _key(page, "keyUp", key, modifiers=mask, text="", value=value, timeout=timeout)
    for name in reversed(modifiers):
        mask &= ~MODIFIER_BITS[name]
        await _key(
            page, "keyUp", resolve_key(name), modifiers=mask, text="", value=name, timeout=timeout
        )


async def type_text(page: CDPSession, text: str, *, delay: float, timeout: float) -> None:
    """Type ``text`` key by key (US layout); other characters are inserted as text."""
    shift = resolve_key("Shift")
    for index, char in enumerate(text):
        if index and delay > 0:
            await anyio.sleep(delay / 1000)
        found = key_for_char(char)
        if found is None:
            await page.send("Input.insertText", {"text": char}, timeout=timeout)
            continue
        key, shifted = found
        mask = MODIFIER_BITS["Shift"] if shifted else 0
        if shifted:
            await _key(
                page, "rawKeyDown", shift, modifiers=mask, text="", value="Shift", timeout=timeout
            )
        value = char if len(key.key) == 1 else key.key
        typed = key.text if key.key in ("Enter", "Tab") else char
        await _key(page, "keyDown", key, modifiers=mask, text=typed, value=value, timeout=timeout)
        await _key(page, "keyUp", key, modifiers=mask, text="", value=value, timeout=timeout)
        if shifted:
            await _key(page, "keyUp", shift, modifiers=0, text="", value="Shift", timeout=timeout)
