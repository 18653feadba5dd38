"""The handler's options: Scrapy settings read once at start-up, and per-request meta.

Every bad value is an :class:`~kobrowser.InvalidArgumentError` whose message
and ``argument`` name the setting (or meta key), raised when the handler is
built, so a crawl with a typo fails at start-up instead of on every page.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import kobrowser

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = [
    "DEFAULT_DOWNLOAD_TIMEOUT",
    "DEFAULT_TEXT_LIMIT",
    "LOAD_STATES",
    "SNAPSHOT_KEYS",
    "Config",
    "PageOptions",
    "page_options",
]

#: The snapshot's own default text limit (code points of names and text lines).
DEFAULT_TEXT_LIMIT = 80
#: What ``KOBROWSER_WAIT_UNTIL`` and ``meta["kobrowser_wait_until"]`` accept.
LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")
#: The keys ``meta["kobrowser_snapshot_options"]`` accepts (``Tab.snapshot``'s
#: arguments but its timeout: the request's download timeout is the deadline).
SNAPSHOT_KEYS = frozenset(
    {"interactive", "compact", "depth", "selector", "clickable", "text_limit", "fresh"}
)
#: Scrapy's own default of ``DOWNLOAD_TIMEOUT``, used when it is 0 or unset:
#: every page load has a deadline.
DEFAULT_DOWNLOAD_TIMEOUT = 180.0
_PROXY = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?[^\s/'\"]+$", re.IGNORECASE)


def _bad(name: str, value: object, expected: str) -> kobrowser.InvalidArgumentError:
    return kobrowser.InvalidArgumentError(
        f"{name}: got {value!r}; expected {expected}", argument=name
    )


def _whole(name: str, value: object, minimum: int) -> int:
    """``value`` (an int, or its decimal text as ``scrapy -s`` gives) as an int >= minimum."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        number = int(value)
    if number is None or number < minimum:
        raise _bad(name, value, f"a whole number >= {minimum}")
    return number


def _text_limit(name: str, value: object) -> int | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        return None
    return _whole(name, value, 4)


def _load_state(name: str, value: object) -> str:
    if value not in LOAD_STATES:
        raise _bad(name, value, "one of " + ", ".join(LOAD_STATES))
    assert isinstance(value, str)
    return value


def _proxy(name: str, value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _PROXY.match(value):
        raise _bad(name, value, "a proxy address such as 'http://host:3128' or 'host:3128'")
    return value


def _launch_options(name: str, settings: BaseSettings, proxy: str | None) -> dict[str, Any]:
    """``KOBROWSER_LAUNCH_OPTIONS`` checked by :func:`kobrowser.launch` itself (nothing starts)."""
    try:
        options = dict(settings.getdict(name))
    except (TypeError, ValueError) as exc:
        raise _bad(name, settings.get(name), "a dict of kobrowser.launch() arguments") from exc
    accepted = set(inspect.signature(kobrowser.launch).parameters)
    unknown = sorted(str(key) for key in options if key not in accepted)
    if unknown:
        raise _bad(
            name,
            options,
            f"only kobrowser.launch() arguments ({', '.join(sorted(accepted))}); "
            f"unknown: {', '.join(unknown)}",
        )
    if proxy is not None:
        args = options.get("args", ())
        if isinstance(args, str) or not isinstance(args, list | tuple):
            raise _bad(name, options, "'args' as a list of strings")
        options["args"] = (*args, f"--proxy-server={proxy}")
    try:
        kobrowser.launch(**options)  # checks every argument, finds Chrome; starts nothing
    except kobrowser.InvalidArgumentError as exc:
        raise kobrowser.InvalidArgumentError(f"{name}: {exc}", argument=name) from exc
    except kobrowser.LaunchError as exc:
        raise kobrowser.LaunchError(f"{name}: {exc}") from exc
    return options


@dataclass(frozen=True)
class Config:
    """The handler's settings, checked.

    Attributes:
        concurrency: tabs loading at once (``KOBROWSER_CONCURRENCY``; default
            ``CONCURRENT_REQUESTS``).
        text_limit: the snapshot's text limit (``KOBROWSER_TEXT_LIMIT``;
            default 80, ``None`` for whole texts).
        wait_until: the load state each page must reach (``KOBROWSER_WAIT_UNTIL``;
            default ``"load"``).
        snapshot: take a snapshot of every page (``KOBROWSER_SNAPSHOT``; default True).
        proxy: the proxy Chrome uses (``KOBROWSER_PROXY``; default none).
        launch_options: arguments of :func:`kobrowser.launch`
            (``KOBROWSER_LAUNCH_OPTIONS``, with the proxy added to ``args``).
        download_timeout: seconds for a page when its request has no
            ``download_timeout`` meta (``DOWNLOAD_TIMEOUT``).
    """

    concurrency: int
    text_limit: int | None = DEFAULT_TEXT_LIMIT
    wait_until: str = "load"
    snapshot: bool = True
    proxy: str | None = None
    launch_options: Mapping[str, Any] = field(default_factory=dict)
    download_timeout: float = DEFAULT_DOWNLOAD_TIMEOUT

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Config:
        """Read and check the ``KOBROWSER_*`` settings (and ``DOWNLOAD_TIMEOUT``).

        Raises:
            InvalidArgumentError: a setting has a bad value (the message names it).
            LaunchError: no Chrome found for ``KOBROWSER_LAUNCH_OPTIONS``.
        """
        concurrency = settings.get("KOBROWSER_CONCURRENCY")
        if concurrency is None:
            concurrency = settings.get("CONCURRENT_REQUESTS", 16)
        text_limit: int | None = DEFAULT_TEXT_LIMIT
        if "KOBROWSER_TEXT_LIMIT" in settings:
            text_limit = _text_limit("KOBROWSER_TEXT_LIMIT", settings.get("KOBROWSER_TEXT_LIMIT"))
        try:
            snapshot = settings.getbool("KOBROWSER_SNAPSHOT", True)
        except ValueError as exc:
            raise _bad(
                "KOBROWSER_SNAPSHOT", settings.get("KOBROWSER_SNAPSHOT"), "True or False"
            ) from exc
        proxy = _proxy("KOBROWSER_PROXY", settings.get("KOBROWSER_PROXY"))
        return cls(
            concurrency=_whole("KOBROWSER_CONCURRENCY", concurrency, 1),
            text_limit=text_limit,
            wait_until=_load_state(
                "KOBROWSER_WAIT_UNTIL", settings.get("KOBROWSER_WAIT_UNTIL", "load")
            ),
            snapshot=snapshot,
            proxy=proxy,
            launch_options=_launch_options("KOBROWSER_LAUNCH_OPTIONS", settings, proxy),
            download_timeout=_seconds(settings.get("DOWNLOAD_TIMEOUT"), "DOWNLOAD_TIMEOUT"),
        )


def _seconds(value: object, name: str) -> float:
    """A positive number of seconds; 0 or None (no timeout in Scrapy) gives the default."""
    if value is None or value == "":
        return DEFAULT_DOWNLOAD_TIMEOUT
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise _bad(name, value, "a number of seconds") from exc
    if math.isnan(number) or number < 0:
        raise _bad(name, value, "a number of seconds >= 0")
    if number == 0 or math.isinf(number):
        return DEFAULT_DOWNLOAD_TIMEOUT
    return number


@dataclass(frozen=True)
class PageOptions:
    """What one request asks of its tab (settings overridden by its meta).

    Attributes:
        wait_until: the load state to reach.
        timeout: seconds for the whole page (load, HTML, snapshot).
        snapshot: ``Tab.snapshot`` arguments, or None for no snapshot.
    """

    wait_until: str
    timeout: float
    snapshot: Mapping[str, Any] | None


def page_options(config: Config, meta: Mapping[str, Any]) -> PageOptions:
    """The options of one request: ``config`` overridden by its ``meta``.

    Meta keys: ``kobrowser_wait_until`` (a load state),
    ``kobrowser_snapshot_options`` (a dict of ``Tab.snapshot`` arguments over
    the settings' ones, or False for no snapshot) and Scrapy's
    ``download_timeout``.

    Raises:
        InvalidArgumentError: a bad meta value (the message names the key).
    """
    wait_until = config.wait_until
    if "kobrowser_wait_until" in meta:
        wait_until = _load_state("kobrowser_wait_until", meta["kobrowser_wait_until"])
    timeout = config.download_timeout
    if meta.get("download_timeout") is not None:
        timeout = _seconds(meta["download_timeout"], "download_timeout")
    snapshot: dict[str, Any] | None = None
    if config.snapshot:
        snapshot = {"fresh": True, "text_limit": config.text_limit}
    overrides = meta.get("kobrowser_snapshot_options")
    if overrides is False:
        snapshot = None
    elif overrides is not None:
        if not isinstance(overrides, Mapping):
            raise _bad(
                "kobrowser_snapshot_options",
                overrides,
                "a dict of Tab.snapshot arguments, or False for no snapshot",
            )
        unknown = sorted(str(key) for key in overrides if key not in SNAPSHOT_KEYS)
        if unknown:
            raise _bad(
                "kobrowser_snapshot_options",
                dict(overrides),
                f"only {', '.join(sorted(SNAPSHOT_KEYS))}; unknown: {', '.join(unknown)}",
            )
        snapshot = {"fresh": True, "text_limit": config.text_limit, **overrides}
    return PageOptions(wait_until=wait_until, timeout=timeout, snapshot=snapshot)
