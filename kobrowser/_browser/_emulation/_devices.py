"""A short built-in table of common phones, tablets and desktops to emulate.

``kobrowser.devices["iPhone 15"]`` is a :class:`Device`;
``new_context(device="iPhone 15")`` emulates it. Names are matched without
regard to case, and ``"<name> landscape"`` turns any of them sideways.
Viewports are the CSS size of the page area in portrait, as the device's
default browser shows it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping

import msgspec

from kobrowser._exceptions import InvalidArgumentError

__all__ = ["Device", "DeviceTable", "devices"]


class Device(msgspec.Struct, frozen=True):
    """What :meth:`Browser.new_context` sets up to look like one device.

    Attributes:
        name: the table's name of it.
        viewport: CSS width and height of the page area.
        device_scale_factor: device pixels per CSS pixel.
        is_mobile: a mobile browser (meta viewport honoured, overlay scrollbars).
        has_touch: touch events and ``maxTouchPoints`` > 0.
        user_agent: the ``User-Agent`` header and ``navigator.userAgent``.
    """

    name: str
    viewport: tuple[int, int]
    device_scale_factor: float
    is_mobile: bool
    has_touch: bool
    user_agent: str

    def landscape(self) -> Device:
        """The same device turned sideways (width and height swapped)."""
        width, height = self.viewport
        return msgspec.structs.replace(
            self, name=f"{self.name} landscape", viewport=(height, width)
        )


_IOS_17 = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
_IOS_16 = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1"
)
_IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)


def _android(model: str, version: int, *, mobile: bool = True) -> str:
    kind = "Mobile Safari" if mobile else "Safari"
    return (
        f"Mozilla/5.0 (Linux; Android {version}; {model}) AppleWebKit/537.36 "
        f"(KHTML, like Gecko) Chrome/126.0.0.0 {kind}/537.36"
    )


_DESKTOP_CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
)
_MAC_CHROME = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
)

_TABLE = [
    # name, viewport, scale, mobile, touch, user agent
    ("iPhone SE", (375, 667), 2.0, True, True, _IOS_16),
    ("iPhone 13", (390, 664), 3.0, True, True, _IOS_16),
    ("iPhone 14", (390, 664), 3.0, True, True, _IOS_16),
    ("iPhone 15", (393, 659), 3.0, True, True, _IOS_17),
    ("iPhone 15 Pro", (393, 659), 3.0, True, True, _IOS_17),
    ("iPhone 15 Pro Max", (430, 739), 3.0, True, True, _IOS_17),
    ("Pixel 5", (393, 727), 2.75, True, True, _android("Pixel 5", 13)),
    ("Pixel 7", (412, 839), 2.625, True, True, _android("Pixel 7", 14)),
    ("Pixel 8", (412, 839), 2.625, True, True, _android("Pixel 8", 14)),
    ("Galaxy S23", (360, 712), 3.0, True, True, _android("SM-S911B", 14)),
    ("Galaxy A54", (384, 772), 2.8125, True, True, _android("SM-A546B", 14)),
    ("iPad Mini", (768, 1024), 2.0, True, True, _IPAD),
    ("iPad Air", (820, 1180), 2.0, True, True, _IPAD),
    ("iPad Pro 11", (834, 1194), 2.0, True, True, _IPAD),
    ("Galaxy Tab S9", (800, 1280), 2.0, True, True, _android("SM-X710", 14, mobile=False)),
    ("Desktop Chrome", (1280, 720), 1.0, False, False, _DESKTOP_CHROME),
    ("Desktop Chrome HiDPI", (1280, 720), 2.0, False, False, _MAC_CHROME),
    ("Desktop 1080p", (1920, 1080), 1.0, False, False, _DESKTOP_CHROME),
]


class DeviceTable(Mapping[str, Device]):
    """Read-only name -> :class:`Device` table; lookups ignore case.

    ``table["Pixel 7 landscape"]`` gives the device turned sideways. An
    unknown name raises :class:`~kobrowser.InvalidArgumentError` naming the
    closest ones (not ``KeyError``: probe with ``in`` or :meth:`get`).
    """

    def __init__(self, entries: list[Device]) -> None:
        self._entries = {device.name: device for device in entries}
        self._folded = {device.name.casefold(): device for device in entries}

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name) is not None

    def _find(self, name: str) -> Device | None:
        folded = " ".join(name.split()).casefold()
        device = self._folded.get(folded)
        if device is None and folded.endswith(" landscape"):
            portrait = self._folded.get(folded.removesuffix(" landscape"))
            return portrait.landscape() if portrait is not None else None
        return device

    def __getitem__(self, name: str) -> Device:
        device = self._find(name) if isinstance(name, str) else None
        if device is None:
            close = difflib.get_close_matches(str(name), list(self._entries), n=3, cutoff=0.4)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise InvalidArgumentError(
                f"unknown device {name!r}{hint} (known: {', '.join(self._entries)})",
                argument="device",
            )
        return device

    def get(self, name: str, default: Device | None = None) -> Device | None:  # type: ignore[override]
        """The device of that name, or ``default``."""
        return self._find(name) if isinstance(name, str) and name in self else default


#: The built-in devices, by name.
devices = DeviceTable([Device(*entry) for entry in _TABLE])
