"""Daemon side of ``cookies``, ``state`` and ``set``: the session's default context.

Everything applies to the browser's default context (every tab of the
session, and tabs opened later).
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

import kobrowser
from kobrowser.cli._daemon._context import Args, Command, Context, Result
from kobrowser.cli._daemon._errors import CommandError

__all__ = ["COMMANDS"]


def _cookie_text(cookie: dict[str, Any]) -> str:
    flags = [cookie["domain"] + cookie["path"]]
    if cookie["secure"]:
        flags.append("secure")
    if cookie["httpOnly"]:
        flags.append("httpOnly")
    if cookie.get("sameSite"):
        flags.append(f"sameSite={cookie['sameSite']}")
    if cookie["expires"] >= 0:
        left = cookie["expires"] - time.time()
        flags.append(f"expires in {left / 3600:.1f} h" if left > 0 else "expired")
    return f"{cookie['name']}={cookie['value']}  ({', '.join(flags)})"


async def cookies_get(ctx: Context, args: Args) -> Result:
    cookies = await ctx.browser.default_context.cookies(args.optional_texts("url"))
    text = "\n".join(_cookie_text(c) for c in cookies) if cookies else "no cookies"
    return {"cookies": cookies}, text


async def cookies_set(ctx: Context, args: Args) -> Result:
    name = args.text("name")
    cookie: dict[str, Any] = {"name": name, "value": args.text("value")}
    url, domain, path = (
        args.optional_text("url"),
        args.optional_text("domain"),
        args.optional_text("path"),
    )
    if domain is not None:
        if url is not None:
            raise CommandError("give --url or --domain, not both", "see `cookies set --help`")
        cookie.update(domain=domain, path=path or "/")
    elif path is not None:
        raise CommandError("--path goes with --domain", "see `cookies set --help`")
    else:
        url = url or ctx.tab().url
        if not url.startswith(("http://", "https://")):
            raise CommandError(
                f"the current page ({url}) has no cookies", "pass --url URL or --domain DOMAIN"
            )
        cookie["url"] = url
    expires = args.optional_number("expires")
    if expires is not None:
        cookie["expires"] = expires
    if args.flag("http_only"):
        cookie["httpOnly"] = True
    if args.flag("secure"):
        cookie["secure"] = True
    same_site = args.optional_text("same_site")
    if same_site:
        cookie["sameSite"] = same_site
    await ctx.browser.default_context.add_cookies([cookie])
    return {"cookie": cookie}, f"cookie {name} set"


async def cookies_clear(ctx: Context, args: Args) -> Result:
    context = ctx.browser.default_context
    before = len(await context.cookies())
    await context.clear_cookies(
        name=args.optional_text("name"),
        domain=args.optional_text("domain"),
        path=args.optional_text("path"),
    )
    removed = before - len(await context.cookies())
    return {"removed": removed}, f"removed {removed} cookie(s)"


async def state_save(ctx: Context, args: Args) -> Result:
    path = args.text("path")
    state = await ctx.browser.default_context.storage_state(path, timeout=ctx.timeout)
    cookies, origins = len(state["cookies"]), len(state["origins"])
    return {"path": path, "cookies": cookies, "origins": origins}, (
        f"saved {cookies} cookie(s) and localStorage of {origins} origin(s) to {path}"
    )


async def state_load(ctx: Context, args: Args) -> Result:
    path = args.text("path")
    await ctx.browser.default_context.set_storage_state(path, timeout=ctx.timeout)
    return {"path": path}, f"loaded {path}"


def _emulating(context: kobrowser.BrowserContext, text: str) -> Result:
    """The settings in use, as JSON values (a Geolocation becomes a dict), and ``text``."""
    described: dict[str, Any] = msgspec.to_builtins(context.emulation)
    in_use = {name: value for name, value in described.items() if value not in (None, [], False)}
    return {"emulation": in_use}, text


async def set_viewport(ctx: Context, args: Args) -> Result:
    width, height = args.whole("width"), args.whole("height")
    context = ctx.browser.default_context
    await context.emulate(viewport=(width, height))
    return _emulating(context, f"viewport {width}x{height}")


async def set_device(ctx: Context, args: Args) -> Result:
    name = " ".join(args.texts("name"))
    if name == "list":
        names = list(kobrowser.devices)
        return {"devices": names}, "\n".join(names)
    device = kobrowser.devices[name]
    width, height = device.viewport
    context = ctx.browser.default_context
    await context.emulate(device=device)
    scale = device.device_scale_factor
    return _emulating(context, f"emulating {device.name} ({width}x{height}, scale {scale:g})")


async def set_offline(ctx: Context, args: Args) -> Result:
    offline = args.flag("state")
    context = ctx.browser.default_context
    await context.emulate(offline=offline)
    return _emulating(context, "offline" if offline else "online")


async def set_headers(ctx: Context, args: Args) -> Result:
    headers = args.text_map("headers")
    context = ctx.browser.default_context
    await context.emulate(extra_http_headers=headers)
    return _emulating(context, f"{len(headers)} extra header(s)" if headers else "no extra headers")


async def set_geo(ctx: Context, args: Args) -> Result:
    latitude, longitude = args.number("latitude"), args.number("longitude")
    accuracy = args.optional_number("accuracy")
    where = {"latitude": latitude, "longitude": longitude, "accuracy": accuracy or 0.0}
    context = ctx.browser.default_context
    await context.set_geolocation(where)
    await context.grant_permissions(["geolocation"])
    return _emulating(context, f"geolocation {latitude:g}, {longitude:g}")


async def set_media(ctx: Context, args: Args) -> Result:
    scheme = args.text("scheme")
    context = ctx.browser.default_context
    await context.emulate(color_scheme=scheme)
    return _emulating(context, f"color scheme {scheme}")


async def set_locale(ctx: Context, args: Args) -> Result:
    locale = args.text("value")
    context = ctx.browser.default_context
    await context.emulate(locale=locale)
    return _emulating(context, f"locale {locale}")


async def set_timezone(ctx: Context, args: Args) -> Result:
    zone = args.text("value")
    context = ctx.browser.default_context
    await context.emulate(timezone_id=zone)
    return _emulating(context, f"time zone {zone}")


async def set_useragent(ctx: Context, args: Args) -> Result:
    context = ctx.browser.default_context
    await context.emulate(user_agent=args.text("value"))
    return _emulating(context, "user agent set")


async def set_permissions(ctx: Context, args: Args) -> Result:
    names, origin = args.texts("names"), args.optional_text("origin")
    await ctx.browser.default_context.grant_permissions(names, origin=origin)
    return {"granted": names, "origin": origin}, (
        f"granted {', '.join(names)} to {origin or 'every origin'}"
    )


async def set_reset(ctx: Context, args: Args) -> Result:
    context = ctx.browser.default_context
    await context.clear_emulation()
    await context.clear_permissions()
    return {"emulation": {}}, "emulation off"


COMMANDS: dict[str, Command] = {
    "cookies.get": Command(cookies_get),
    "cookies.set": Command(cookies_set, serialized=True),
    "cookies.clear": Command(cookies_clear, serialized=True),
    "state.save": Command(state_save),
    "state.load": Command(state_load, serialized=True),
    "set.viewport": Command(set_viewport, serialized=True),
    "set.device": Command(set_device, serialized=True),
    "set.offline": Command(set_offline, serialized=True),
    "set.headers": Command(set_headers, serialized=True),
    "set.geo": Command(set_geo, serialized=True),
    "set.media": Command(set_media, serialized=True),
    "set.locale": Command(set_locale, serialized=True),
    "set.timezone": Command(set_timezone, serialized=True),
    "set.useragent": Command(set_useragent, serialized=True),
    "set.permissions": Command(set_permissions, serialized=True),
    "set.reset": Command(set_reset, serialized=True),
}
