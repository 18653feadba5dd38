"""Emulation: what a context (or one tab) pretends to be, and the CDP calls for it.

:class:`EmulationOptions` is the one list of emulation keyword arguments:
:meth:`Browser.new_context <kobrowser.Browser.new_context>`,
:meth:`BrowserContext.emulate <kobrowser.BrowserContext.emulate>` and
:func:`build_emulation` (which checks them) all take
``**options: Unpack[EmulationOptions]``, so a type checker knows each
keyword and its type and no list can drift from another.
:class:`Emulation` holds a context's settings (checked once, when given);
:func:`session_calls` turns them into the calls for one session: the tab's
page session gets the viewport (``Emulation.setDeviceMetricsOverride``),
every session (the page and each out-of-process frame) gets user agent,
locale, time zone, geolocation, media features, touch, network conditions
and extra headers. A tab applies them in one batch when it is set up, before
its first navigation (popups: as soon as they attach), and a context applies
them to all its tabs when changed. Permissions are browser-level, per context.
"""

from __future__ import annotations

import math
import re
import zoneinfo
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import msgspec

from kobrowser._browser._emulation._devices import Device, devices
from kobrowser._exceptions import KoBrowserError, TargetClosedError
from kobrowser._validate import choice, fail, flag, no_surrogates

if TYPE_CHECKING:
    from kobrowser.cdp import CDPSession

__all__ = [
    "COLOR_SCHEMES",
    "EMULATION_OPTIONS",
    "Emulation",
    "EmulationOptions",
    "Geolocation",
    "apply_to_sessions",
    "build_emulation",
    "permission_names",
    "session_calls",
]

COLOR_SCHEMES = ("light", "dark", "no-preference")
REDUCED_MOTION = ("reduce", "no-preference")
_LOCALE = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")
_MAX_SIDE = 10_000_000  # Chrome's limit for an emulated width or height

# Playwright's permission names -> CDP PermissionType.
_PERMISSIONS = {
    "geolocation": "geolocation",
    "notifications": "notifications",
    "camera": "videoCapture",
    "microphone": "audioCapture",
    "midi": "midi",
    "midi-sysex": "midiSysex",
    "background-sync": "backgroundSync",
    "ambient-light-sensor": "sensors",
    "accelerometer": "sensors",
    "gyroscope": "sensors",
    "magnetometer": "sensors",
    "clipboard-read": "clipboardReadWrite",
    "clipboard-write": "clipboardSanitizedWrite",
    "payment-handler": "paymentHandler",
    "storage-access": "storageAccess",
    "local-fonts": "localFonts",
    "idle-detection": "idleDetection",
}


class Geolocation(msgspec.Struct, frozen=True):
    """A position to report: degrees, and accuracy in meters."""

    latitude: float
    longitude: float
    accuracy: float = 0.0


class EmulationOptions(TypedDict, total=False):
    """The emulation keyword arguments, one list for every place that takes them.

    :meth:`Browser.new_context <kobrowser.Browser.new_context>` and
    :meth:`BrowserContext.emulate <kobrowser.BrowserContext.emulate>` take
    exactly these. Each one left out (or None) keeps its setting.

    Attributes:
        device: a name of :data:`kobrowser.devices` (e.g. ``"iPhone 15"``,
            ``"Pixel 7 landscape"``) or a :class:`~kobrowser.Device`: sets
            viewport, scale, mobile, touch and user agent (the other options
            given override it).
        viewport: CSS ``(width, height)`` of the page area (or
            ``{"width": ..., "height": ...}``).
        device_scale_factor: device pixels per CSS pixel, in (0, 10].
        is_mobile: a mobile browser (meta viewport honoured).
        has_touch: touch events and ``navigator.maxTouchPoints``.
        user_agent: the ``User-Agent`` header and ``navigator.userAgent``.
        locale: e.g. ``"de-DE"``: ``navigator.language``, ``Intl`` and
            ``Accept-Language``.
        timezone_id: e.g. ``"Europe/Berlin"``.
        geolocation: ``{"latitude", "longitude", "accuracy"}``,
            ``(latitude, longitude)`` or a :class:`~kobrowser.Geolocation`
            (grant the ``"geolocation"`` permission for pages to read it).
        color_scheme: ``"light"``, ``"dark"`` or ``"no-preference"``.
        reduced_motion: ``"reduce"`` or ``"no-preference"``.
        offline: cut the network off.
        extra_http_headers: headers added to every request.
    """

    device: str | Device | None
    viewport: tuple[int, int] | Mapping[str, int] | None
    device_scale_factor: float | None
    is_mobile: bool | None
    has_touch: bool | None
    user_agent: str | None
    locale: str | None
    timezone_id: str | None
    geolocation: Geolocation | Mapping[str, float] | Sequence[float] | None
    color_scheme: str | None
    reduced_motion: str | None
    offline: bool | None
    extra_http_headers: Mapping[str, str] | None


#: The names of :class:`EmulationOptions`, in their order.
EMULATION_OPTIONS: tuple[str, ...] = tuple(EmulationOptions.__annotations__)
_KNOWN = ", ".join(EMULATION_OPTIONS)


class Emulation(msgspec.Struct, frozen=True):
    """A context's emulation settings; None (or empty) leaves Chrome's own.

    Read it from :attr:`BrowserContext.emulation`; change it with
    :meth:`BrowserContext.emulate` and the ``set_*`` methods.
    """

    viewport: tuple[int, int] | None = None
    device_scale_factor: float | None = None
    is_mobile: bool | None = None
    has_touch: bool | None = None
    user_agent: str | None = None
    locale: str | None = None
    timezone_id: str | None = None
    geolocation: Geolocation | None = None
    color_scheme: str | None = None
    reduced_motion: str | None = None
    offline: bool = False
    extra_http_headers: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing is emulated (a new tab needs no call)."""
        return self == _NOTHING


_NOTHING = Emulation()


def _viewport(value: Any) -> tuple[int, int]:
    given = value
    if isinstance(value, Mapping):
        value = (value.get("width"), value.get("height"))
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise fail("viewport", given, "(width, height) in CSS pixels")
    width, height = value
    for side in (width, height):
        if isinstance(side, bool) or not isinstance(side, int) or not 0 < side <= _MAX_SIDE:
            raise fail("viewport", given, f"(width, height): whole CSS pixels > 0, <= {_MAX_SIDE}")
    return width, height


def _geolocation(value: Any) -> Geolocation:
    numbers: tuple[Any, ...]
    if isinstance(value, Geolocation):
        numbers = (value.latitude, value.longitude, value.accuracy)
    elif isinstance(value, Mapping):
        numbers = (value.get("latitude"), value.get("longitude"), value.get("accuracy", 0.0))
    elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) in (2, 3):
        numbers = (*value, 0.0)[:3]
    else:
        accepted = "{'latitude': ..., 'longitude': ...}, (latitude, longitude) or a Geolocation"
        raise fail("geolocation", value, accepted)
    ranges = "latitude in [-90, 90], longitude in [-180, 180], accuracy >= 0 (meters)"
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
        raise fail("geolocation", value, f"numbers: {ranges}")
    try:
        latitude, longitude, accuracy = (float(n) for n in numbers)
    except OverflowError:  # an int beyond a float's range
        latitude = longitude = accuracy = math.inf
    if not all(math.isfinite(n) for n in (latitude, longitude, accuracy)):
        raise fail("geolocation", value, f"finite numbers: {ranges}")
    if not -90 <= latitude <= 90 or not -180 <= longitude <= 180 or accuracy < 0:
        raise fail("geolocation", value, ranges)
    return Geolocation(latitude, longitude, accuracy)


def _headers(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping):
        raise fail("extra_http_headers", value, "a dict of header name -> value")
    pairs = []
    for name, text in value.items():
        if not isinstance(name, str) or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
            raise fail("extra_http_headers", name, "a header name, e.g. 'X-Token'")
        pairs.append((name, _line("extra_http_headers", text, empty=True)))
    return tuple(pairs)


def _line(argument: str, value: Any, *, empty: bool = False) -> str:
    """One line of valid text (``empty``: may be blank)."""
    if (
        not isinstance(value, str)
        or (not empty and not value.strip())
        or "\n" in value
        or "\r" in value
    ):
        raise fail(argument, value, "one line of text" if empty else "one line of non-empty text")
    return no_surrogates(value, argument)


def _timezone(value: Any) -> str:
    name = _line("timezone_id", value)
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        if zoneinfo.available_timezones():  # no tz database here: let Chrome judge
            raise fail("timezone_id", value, "a known time zone, e.g. 'Europe/Berlin'") from None
    return name


def build_emulation(base: Emulation, **options: Unpack[EmulationOptions]) -> Emulation:
    """``base`` with the given settings changed (None: unchanged), all checked first.

    The one checker of :class:`EmulationOptions`. A ``device`` sets
    viewport, scale, mobile, touch and user agent; the other options given
    override what it sets.

    Raises:
        InvalidArgumentError: an unknown option or device, or a bad value
            (``argument`` names it); nothing is changed then.
    """
    for name, value in options.items():
        if name not in EMULATION_OPTIONS:
            raise fail(name, value, f"no such option; the emulation options: {_KNOWN}")
    changes: dict[str, Any] = {}
    if (device := options.get("device")) is not None:
        found = device if isinstance(device, Device) else devices[device]
        changes.update(
            viewport=found.viewport,
            device_scale_factor=found.device_scale_factor,
            is_mobile=found.is_mobile,
            has_touch=found.has_touch,
            user_agent=found.user_agent,
        )
    if (viewport := options.get("viewport")) is not None:
        changes["viewport"] = _viewport(viewport)
    if (scale := options.get("device_scale_factor")) is not None:
        if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0 < scale <= 10:
            raise fail("device_scale_factor", scale, "a number in (0, 10]")
        changes["device_scale_factor"] = float(scale)
    if (is_mobile := options.get("is_mobile")) is not None:
        changes["is_mobile"] = flag(is_mobile, "is_mobile")
    if (has_touch := options.get("has_touch")) is not None:
        changes["has_touch"] = flag(has_touch, "has_touch")
    if (user_agent := options.get("user_agent")) is not None:
        changes["user_agent"] = _line("user_agent", user_agent)
    if (locale := options.get("locale")) is not None:
        if not isinstance(locale, str) or not _LOCALE.match(locale):
            raise fail("locale", locale, "a language tag like 'de-DE'")
        changes["locale"] = locale.replace("_", "-")
    if (timezone_id := options.get("timezone_id")) is not None:
        changes["timezone_id"] = _timezone(timezone_id)
    if (geolocation := options.get("geolocation")) is not None:
        changes["geolocation"] = _geolocation(geolocation)
    if (color_scheme := options.get("color_scheme")) is not None:
        changes["color_scheme"] = choice(color_scheme, "color_scheme", COLOR_SCHEMES)
    if (reduced_motion := options.get("reduced_motion")) is not None:
        changes["reduced_motion"] = choice(reduced_motion, "reduced_motion", REDUCED_MOTION)
    if (offline := options.get("offline")) is not None:
        changes["offline"] = flag(offline, "offline")
    if (extra_http_headers := options.get("extra_http_headers")) is not None:
        changes["extra_http_headers"] = _headers(extra_http_headers)
    return msgspec.structs.replace(base, **changes)


def permission_names(permissions: Iterable[str]) -> list[str]:
    """Playwright's permission names as CDP's, checked.

    Raises:
        InvalidArgumentError: an unknown permission.
    """
    if isinstance(permissions, str):
        raise fail("permissions", permissions, "a list of names, e.g. ['geolocation']")
    names: list[str] = []
    for name in permissions:
        cdp = _PERMISSIONS.get(name) if isinstance(name, str) else None
        if cdp is None:
            known = ", ".join(map(repr, sorted(_PERMISSIONS)))
            raise fail("permissions", name, f"a known permission: {known}")
        if cdp not in names:
            names.append(cdp)
    return names


# -- CDP calls --------------------------------------------------------------------

Call = tuple[str, dict[str, Any]]


def session_calls(
    emulation: Emulation,
    *,
    page: bool,
    viewport: tuple[int, int] | None = None,
    default_user_agent: str = "",
    reset: bool = False,
) -> list[Call]:
    """The calls that make one session emulate ``emulation``.

    Args:
        emulation: the settings.
        page: the tab's page session (gets the viewport); else a frame's.
        viewport: the tab's own viewport (:meth:`Tab.set_viewport`), over
            the context's.
        default_user_agent: Chrome's own, sent with a locale when no user
            agent is emulated (the call needs one).
        reset: also undo what is not set (for a change on a live session);
            else only set what is (a new session).
    """
    e = emulation
    calls: list[Call] = []
    size = viewport or e.viewport
    if page:
        if size or e.device_scale_factor is not None or e.is_mobile is not None:
            width, height = size or (0, 0)
            calls.append(
                (
                    "Emulation.setDeviceMetricsOverride",
                    {
                        "width": width,
                        "height": height,
                        "deviceScaleFactor": e.device_scale_factor or 0,
                        "mobile": bool(e.is_mobile),
                        "screenWidth": width,
                        "screenHeight": height,
                    },
                )
            )
        elif reset:
            calls.append(("Emulation.clearDeviceMetricsOverride", {}))
    if e.has_touch or reset:
        touch: dict[str, Any] = {"enabled": bool(e.has_touch)}
        if e.has_touch:
            touch["maxTouchPoints"] = 5
        calls.append(("Emulation.setTouchEmulationEnabled", touch))
    if e.user_agent or e.locale:
        agent: dict[str, Any] = {"userAgent": e.user_agent or default_user_agent}
        if e.locale:
            agent["acceptLanguage"] = e.locale
        calls.append(("Emulation.setUserAgentOverride", agent))
    elif reset and default_user_agent:
        calls.append(("Emulation.setUserAgentOverride", {"userAgent": default_user_agent}))
    if e.locale or reset:
        calls.append(("Emulation.setLocaleOverride", {"locale": e.locale} if e.locale else {}))
    if e.timezone_id or reset:
        calls.append(("Emulation.setTimezoneOverride", {"timezoneId": e.timezone_id or ""}))
    if e.geolocation is not None:
        g = e.geolocation
        calls.append(
            (
                "Emulation.setGeolocationOverride",
                {"latitude": g.latitude, "longitude": g.longitude, "accuracy": g.accuracy},
            )
        )
    elif reset:
        calls.append(("Emulation.clearGeolocationOverride", {}))
    features = []
    if e.color_scheme or reset:
        features.append({"name": "prefers-color-scheme", "value": e.color_scheme or ""})
    if e.reduced_motion or reset:
        features.append({"name": "prefers-reduced-motion", "value": e.reduced_motion or ""})
    if features:
        calls.append(("Emulation.setEmulatedMedia", {"features": features}))
    if e.offline or reset:
        calls.append(
            (
                "Network.emulateNetworkConditions",
                {
                    "offline": e.offline,
                    "latency": 0,
                    "downloadThroughput": -1,
                    "uploadThroughput": -1,
                },
            )
        )
    if e.extra_http_headers or reset:
        calls.append(("Network.setExtraHTTPHeaders", {"headers": dict(e.extra_http_headers)}))
    return calls


async def apply_to_sessions(
    targets: Sequence[tuple[CDPSession, list[Call]]], timeout: float, *, strict: bool = False
) -> None:
    """Send each session its calls, all in one batch.

    A session that went away meanwhile is skipped (``strict``: raises).

    Raises:
        ProtocolError: Chrome refused a call (the message names it).
        TargetClosedError: with ``strict``, a session went away.
    """
    batch = [(session, name, params, None) for session, calls in targets for name, params in calls]
    if not batch:
        return
    connection = batch[0][0].connection
    results = await connection.call_many(batch, timeout=timeout)
    for (session, *_), result in zip(batch, results, strict=True):
        if not isinstance(result, KoBrowserError):
            continue
        gone = isinstance(result, TargetClosedError) or session.closed
        if gone and not strict:
            continue
        raise result  # a ProtocolError names the call Chrome refused
