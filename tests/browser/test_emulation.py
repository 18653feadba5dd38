"""Emulation against real Chromium: devices, locale, time zone, media, geolocation,
offline, headers; in tabs, popups and out-of-process frames; changes and bad input."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from _server import PageServer
from aiohttp import web

import kobrowser
from kobrowser import Browser, InvalidArgumentError, Tab, devices
from kobrowser.cdp import CDPSession

# Not about the backend: `scripts/test.sh --fast` runs these on trio only (CI: both).
pytestmark = [pytest.mark.anyio, pytest.mark.both_backends(fast="trio")]

_MOBILE = '<meta name="viewport" content="width=device-width"><p>mobile</p>'
_PROBE = """JSON.stringify({
    width: innerWidth, height: innerHeight, ratio: devicePixelRatio,
    agent: navigator.userAgent, touch: navigator.maxTouchPoints,
    language: navigator.language, zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    dark: matchMedia('(prefers-color-scheme: dark)').matches,
    calm: matchMedia('(prefers-reduced-motion: reduce)').matches})"""


async def _probe(tab: Tab) -> dict[str, Any]:
    import json

    value: dict[str, Any] = json.loads(await tab.evaluate(_PROBE))
    return value


async def _probe_frame(session: CDPSession) -> dict[str, Any]:
    import json

    result = await session.send("Runtime.evaluate", {"expression": _PROBE, "returnByValue": True})
    value: dict[str, Any] = json.loads(result["result"]["value"])
    return value


def _headers_route(server: PageServer, path: str, seen: list[dict[str, str]]) -> str:
    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append(dict(request.headers))
        return web.Response(text=_MOBILE, content_type="text/html")

    return server.set_route(path, handler)


async def test_a_phone_in_tabs_popups_and_cross_origin_frames(
    browser: Browser, server: PageServer
) -> None:
    phone = devices["iPhone 15"]
    seen: list[dict[str, str]] = []
    url = _headers_route(server, "/e/phone.html", seen)
    server.set_page("/e/inner.html", _MOBILE)
    framed = server.set_page(
        "/e/framed.html", _MOBILE + f'<iframe src="{server.cross_url("/e/inner.html")}"></iframe>'
    )
    async with await browser.new_context(device="iPhone 15") as ctx:
        tab = await ctx.new_tab(url)
        probe = await _probe(tab)
        assert (probe["width"], probe["ratio"]) == (phone.viewport[0], phone.device_scale_factor)
        assert probe["agent"] == phone.user_agent and probe["touch"] > 0
        assert seen[-1]["User-Agent"] == phone.user_agent  # the request too
        # A popup of that tab.
        await tab.cdp.send(
            "Runtime.evaluate", {"expression": f"window.open('{url}'), 1", "userGesture": True}
        )
        popup = await browser.wait_for_tab()
        await popup.wait_for_load()
        probe = await _probe(popup)
        assert probe["width"] == phone.viewport[0] and probe["agent"] == phone.user_agent
        # An out-of-process frame.
        await tab.open(framed)
        await tab._frames.settled()
        (frame,) = tab._frames.frames()
        probe = await _probe_frame(frame.session)
        assert probe["agent"] == phone.user_agent and probe["touch"] > 0
    # Other contexts are untouched.
    plain = await browser.new_tab(url)
    try:
        assert (await _probe(plain))["agent"] != phone.user_agent
    finally:
        await plain.close()


async def test_a_popup_is_emulated_from_its_first_request(
    browser: Browser, server: PageServer
) -> None:
    seen: list[dict[str, str]] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append(dict(request.headers))
        page = _MOBILE + "<script>window.first = [innerWidth, navigator.userAgent]</script>"
        return web.Response(text=page, content_type="text/html")

    popup_url = server.set_route("/e/first.html", handler)
    opener_url = server.set_page("/e/opener.html", _MOBILE)
    phone = devices["Pixel 7"]
    async with await browser.new_context(device="Pixel 7", extra_http_headers={"X-E": "1"}) as ctx:
        tab = await ctx.new_tab(opener_url)
        for how in ("window.open", "noopener"):
            seen.clear()
            features = ", 'popup', 'noopener'" if how == "noopener" else ""
            await tab.cdp.send(
                "Runtime.evaluate",
                {"expression": f"window.open('{popup_url}'{features}), 1", "userGesture": True},
            )
            popup = await browser.wait_for_tab()
            await popup.wait_for_load()
            assert await popup.evaluate("window.first") == [phone.viewport[0], phone.user_agent]
            assert seen[0]["User-Agent"] == phone.user_agent and seen[0]["X-E"] == "1"
            await popup.close()


async def test_locale_zone_media_headers_in_page_and_frame(
    browser: Browser, server: PageServer
) -> None:
    seen: list[dict[str, str]] = []
    _headers_route(server, "/e/inner.html", seen)
    url = server.set_page(
        "/e/outer.html", f'<iframe src="{server.cross_url("/e/inner.html")}"></iframe>'
    )
    async with await browser.new_context(
        locale="de-DE",
        timezone_id="Asia/Tokyo",
        color_scheme="dark",
        reduced_motion="reduce",
        extra_http_headers={"X-Test": "yes"},
    ) as ctx:
        tab = await ctx.new_tab(url)
        await tab._frames.settled()
        (frame,) = tab._frames.frames()
        for probe in (await _probe(tab), await _probe_frame(frame.session)):
            assert probe["language"] == "de-DE" and probe["zone"] == "Asia/Tokyo"
            assert probe["dark"] and probe["calm"]
        assert seen[-1]["X-Test"] == "yes"
        assert seen[-1]["Accept-Language"].startswith("de-DE")
        assert await tab.evaluate("new Date(0).getHours()") == 9  # UTC+9
        # Changed while open: applied at once, in the frame too.
        await ctx.emulate(timezone_id="Europe/London", color_scheme="light")
        for probe in (await _probe(tab), await _probe_frame(frame.session)):
            assert probe["zone"] == "Europe/London" and not probe["dark"]
            assert probe["language"] == "de-DE"  # unchanged
        assert ctx.emulation.timezone_id == "Europe/London"
        await ctx.clear_emulation()
        probe = await _probe(tab)
        assert probe["language"] != "de-DE" and not probe["calm"]
        await tab.reload()
        assert "X-Test" not in seen[-1]


async def test_geolocation_with_permission(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/e/geo.html", "<p>geo</p>")
    read = """new Promise((ok, fail) => navigator.geolocation.getCurrentPosition(
        p => ok([p.coords.latitude, p.coords.longitude]), e => ok(e.message)))"""
    async with await browser.new_context(
        geolocation={"latitude": 52.5, "longitude": 13.4}, permissions=["geolocation"]
    ) as ctx:
        tab = await ctx.new_tab(url)
        assert await tab.evaluate(read) == [52.5, 13.4]
        await ctx.set_geolocation((-33.9, 151.2))
        assert await tab.evaluate(read) == [-33.9, 151.2]
        state = "navigator.permissions.query({name: 'geolocation'}).then(s => s.state)"
        assert await tab.evaluate(state) == "granted"
        await ctx.clear_permissions()
        assert await tab.evaluate(state) == "prompt"


async def test_offline_and_back(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/e/net.html", "<p>net</p>")
    fetch = "fetch('/e/net.html').then(r => r.status, e => 'failed')"
    async with await browser.new_context() as ctx:
        tab = await ctx.new_tab(url)
        await ctx.set_offline(True)
        assert await tab.evaluate(fetch) == "failed"
        assert await tab.evaluate("navigator.onLine") is False
        later = await ctx.new_tab()  # a new tab is offline from the start
        assert await later.evaluate("navigator.onLine") is False
        await ctx.set_offline(False)
        assert await tab.evaluate(fetch) == 200


async def test_tab_viewport_and_context_viewport(browser: Browser, server: PageServer) -> None:
    url = server.set_page("/e/size.html", "<p>size</p>")
    async with await browser.new_context(viewport=(640, 480)) as ctx:
        one = await ctx.new_tab(url)
        two = await ctx.new_tab(url)
        assert await one.evaluate("[innerWidth, innerHeight]") == [640, 480]
        await one.set_viewport(500, 400)
        assert await one.evaluate("[innerWidth, innerHeight]") == [500, 400]
        await one.reload()
        assert await one.evaluate("[innerWidth, innerHeight]") == [500, 400]
        assert await two.evaluate("[innerWidth, innerHeight]") == [640, 480]
        await ctx.emulate(viewport=(700, 300))  # a tab's own viewport wins
        assert await one.evaluate("innerWidth") == 500
        assert await two.evaluate("[innerWidth, innerHeight]") == [700, 300]
        with pytest.raises(InvalidArgumentError, match="viewport"):
            await one.set_viewport(0, 100)


@pytest.mark.parametrize(
    ("options", "argument", "message"),
    [
        ({"device": "iPhone 51"}, "device", "did you mean 'iPhone 15'"),
        ({"viewport": (0, 10)}, "viewport", "> 0"),
        ({"viewport": "big"}, "viewport", "(width, height)"),
        ({"device_scale_factor": 0}, "device_scale_factor", "(0, 10]"),
        ({"locale": "not a locale"}, "locale", "language tag"),
        ({"timezone_id": "Mars/Olympus"}, "timezone_id", "a known time zone"),
        ({"geolocation": {"latitude": 91, "longitude": 0}}, "geolocation", "[-90, 90]"),
        ({"geolocation": (10**400, 0)}, "geolocation", "finite numbers"),  # not OverflowError
        ({"color_scheme": "black"}, "color_scheme", "'dark'"),
        ({"extra_http_headers": {"Bad Name": "x"}}, "extra_http_headers", "header name"),
        ({"permissions": ["telepathy"]}, "permissions", "a known permission"),
        ({"offline": "yes"}, "offline", "expected True or False"),
        ({"user_agent": "\udc80"}, "user_agent", "valid Unicode"),
        ({"user_agent": "a\nb"}, "user_agent", "one line"),
        ({"timezone": "Europe/Berlin"}, "timezone", "the emulation options: device, "),
    ],
)
async def test_bad_emulation_creates_nothing(
    browser: Browser, options: dict[str, Any], argument: str, message: str
) -> None:
    contexts = list(browser.contexts)
    with pytest.raises(InvalidArgumentError) as caught:
        await browser.new_context(**options)
    assert caught.value.argument == argument
    assert message in str(caught.value)
    if argument != "device":  # the library's one wording (kobrowser._validate.fail)
        assert str(caught.value).startswith(f"{argument}: got "), str(caught.value)
    assert browser.contexts == contexts
    if argument != "permissions":
        async with await browser.new_context(locale="fr-FR") as ctx:
            with pytest.raises(InvalidArgumentError):
                await ctx.emulate(**options)
            assert ctx.emulation.locale == "fr-FR"  # unchanged


#: One good value of every emulation option.
_EVERY_OPTION: dict[str, Any] = {
    "device": "Pixel 7",
    "viewport": (800, 600),
    "device_scale_factor": 2,
    "is_mobile": False,
    "has_touch": True,
    "user_agent": "Probe/1.0",
    "locale": "de-DE",
    "timezone_id": "Europe/Berlin",
    "geolocation": (52.52, 13.4),
    "color_scheme": "dark",
    "reduced_motion": "reduce",
    "offline": True,
    "extra_http_headers": {"X-Probe": "1"},
}


def test_one_list_of_emulation_options() -> None:
    from kobrowser._browser._emulation._settings import (
        EMULATION_OPTIONS,
        EmulationOptions,
        build_emulation,
    )

    assert tuple(_EVERY_OPTION) == EMULATION_OPTIONS
    assert tuple(EmulationOptions.__annotations__) == EMULATION_OPTIONS
    assert kobrowser.EmulationOptions is EmulationOptions
    doc = EmulationOptions.__doc__ or ""
    for name in EMULATION_OPTIONS:
        assert f"        {name}: " in doc, f"EmulationOptions does not describe {name}"
    # Every entry point takes the options as the one TypedDict, and writes
    # none of them out on its own.
    for entry in (Browser.new_context, kobrowser.BrowserContext.emulate, build_emulation):
        parameters = inspect.signature(entry).parameters.values()
        [var] = [p for p in parameters if p.kind is p.VAR_KEYWORD]
        assert var.annotation == "Unpack[EmulationOptions]", entry
        assert not {p.name for p in parameters} & set(EMULATION_OPTIONS), entry


async def test_the_entry_points_accept_exactly_the_same_options(browser: Browser) -> None:
    from kobrowser._browser._emulation._settings import Emulation, build_emulation

    expected = build_emulation(Emulation(), **_EVERY_OPTION)
    assert expected.viewport == (800, 600) and expected.has_touch and expected.offline
    async with await browser.new_context(**_EVERY_OPTION) as made:
        assert made.emulation == expected
    async with await browser.new_context() as changed:
        await changed.emulate(**_EVERY_OPTION)
        assert changed.emulation == expected
        with pytest.raises(InvalidArgumentError) as caught:
            await browser.new_context(timezone="Europe/Berlin")  # type: ignore[call-arg]
        assert caught.value.argument == "timezone"
        with pytest.raises(InvalidArgumentError) as caught:
            await changed.emulate(timezone="Europe/Berlin")  # type: ignore[call-arg]
        assert caught.value.argument == "timezone"
        assert changed.emulation == expected  # unchanged
    with pytest.raises(InvalidArgumentError) as caught:
        build_emulation(Emulation(), timezone="Europe/Berlin")  # type: ignore[call-arg]
    assert caught.value.argument == "timezone"


def test_the_device_table() -> None:
    assert devices["iphone 15"] is devices["iPhone 15"]
    turned = devices["Pixel 7 landscape"]
    assert turned.viewport == devices["Pixel 7"].viewport[::-1]
    assert turned.name == "Pixel 7 landscape" and turned.is_mobile
    assert "iPad Mini" in devices and "Nokia 3310" not in devices
    assert devices.get("Nokia 3310") is None
    with pytest.raises(kobrowser.InvalidArgumentError, match="unknown device 'Nokia 3310'"):
        devices["Nokia 3310"]
    assert all(device.name == name for name, device in devices.items())
    desktop = devices["Desktop Chrome"]
    assert not desktop.is_mobile and not desktop.has_touch


def test_calls_for_new_sessions_and_resets() -> None:
    from kobrowser._browser._emulation._settings import Emulation, build_emulation, session_calls

    assert session_calls(Emulation(), page=True) == []  # a new tab costs nothing
    assert Emulation().empty and not build_emulation(Emulation(), offline=True).empty
    phone = build_emulation(Emulation(), device="iPhone 15", locale="fr-FR")
    page = dict(session_calls(phone, page=True))
    assert page["Emulation.setDeviceMetricsOverride"]["width"] == 393
    assert page["Emulation.setUserAgentOverride"]["acceptLanguage"] == "fr-FR"
    frame = dict(session_calls(phone, page=False))
    assert "Emulation.setDeviceMetricsOverride" not in frame  # sized by its parent
    assert frame["Emulation.setTouchEmulationEnabled"]["enabled"] is True
    own = dict(session_calls(phone, page=True, viewport=(500, 400)))
    assert own["Emulation.setDeviceMetricsOverride"]["width"] == 500
    reset = dict(session_calls(Emulation(), page=True, default_user_agent="UA", reset=True))
    assert reset["Emulation.setUserAgentOverride"] == {"userAgent": "UA"}
    assert reset["Emulation.setTimezoneOverride"] == {"timezoneId": ""}
    assert reset["Network.setExtraHTTPHeaders"] == {"headers": {}}
    assert "Emulation.clearDeviceMetricsOverride" in reset
    assert "Emulation.clearGeolocationOverride" in reset


async def test_a_bad_permission_origin_is_refused(browser: Browser) -> None:
    async with await browser.new_context() as ctx:
        with pytest.raises(InvalidArgumentError, match=r"^origin: got 'ftp://x'; expected an http"):
            await ctx.grant_permissions(["geolocation"], origin="ftp://x")
        with pytest.raises(InvalidArgumentError, match=r"^permissions: got 'geolocation'; "):
            await ctx.grant_permissions("geolocation")
