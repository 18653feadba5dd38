"""Daemon side of `cookies`, `state` and `set`: the session's default context.

Everything applies to the browser's default context (every tab of the
session, and tabs opened later).
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

import kobrowser
from kobrowser.cli._commands import CommandError, Context, Result, _call, _tab, handler

__all__: list[str] = []


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


@handler("cookies.get")
async def _cookies_get(ctx: Context, args: dict[str, Any]) -> Result:
    cookies = await ctx.browser.default_context.cookies(args.get("url"))
    text = "\n".join(_cookie_text(c) for c in cookies) if cookies else "no cookies"
    return {"cookies": cookies}, text


@handler("cookies.set")
async def _cookies_set(ctx: Context, args: dict[str, Any]) -> Result:
    cookie: dict[str, Any] = {"name": args["name"], "value": args["value"]}
    if args["domain"] is not None:
        if args["url"] is not None:
            raise CommandError("give --url or --domain, not both", "see `cookies set --help`")
        cookie.update(domain=args["domain"], path=args["path"] or "/")
    elif args["path"] is not None:
        raise CommandError("--path goes with --domain", "see `cookies set --help`")
    else:
        url = args["url"] or _tab(ctx).url
        if not url.startswith(("http://", "https://")):
            raise CommandError(
                f"the current page ({url}) has no cookies", "pass --url URL or --domain DOMAIN"
            )
        cookie["url"] = url
    if args["expires"] is not None:
        cookie["expires"] = args["expires"]
    if args["http_only"]:
        cookie["httpOnly"] = True
    if args["secure"]:
        cookie["secure"] = True
    if args["same_site"]:
        cookie["sameSite"] = args["same_site"]
    await ctx.browser.default_context.add_cookies([cookie])
    return {"cookie": cookie}, f"cookie {args['name']} set"


@handler("cookies.clear")
async def _cookies_clear(ctx: Context, args: dict[str, Any]) -> Result:
    filters = {k: args[k] for k in ("name", "domain", "path") if args.get(k) is not None}
    context = ctx.browser.default_context
    before = len(await context.cookies())
    await context.clear_cookies(**filters)
    removed = before - len(await context.cookies())
    return {"removed": removed}, f"removed {removed} cookie(s)"


@handler("state.save")
async def _state_save(ctx: Context, args: dict[str, Any]) -> Result:
    state = await _call(ctx, ctx.browser.default_context.storage_state, args["path"])
    cookies, origins = len(state["cookies"]), len(state["origins"])
    return {"path": args["path"], "cookies": cookies, "origins": origins}, (
        f"saved {cookies} cookie(s) and localStorage of {origins} origin(s) to {args['path']}"
    )


@handler("state.load")
async def _state_load(ctx: Context, args: dict[str, Any]) -> Result:
    await _call(ctx, ctx.browser.default_context.set_storage_state, args["path"])
    return {"path": args["path"]}, f"loaded {args['path']}"


def _describe(emulation: kobrowser.Emulation) -> dict[str, Any]:
    """The settings in use, as JSON values (a Geolocation becomes a dict)."""
    described: dict[str, Any] = msgspec.to_builtins(emulation)
    return {name: value for name, value in described.items() if value not in (None, [], False)}


async def _emulate(ctx: Context, text: str, **options: Any) -> Result:
    context = ctx.browser.default_context
    await context.emulate(**options)
    return {"emulation": _describe(context.emulation)}, text


@handler("set.viewport")
async def _set_viewport(ctx: Context, args: dict[str, Any]) -> Result:
    size = (args["width"], args["height"])
    return await _emulate(ctx, f"viewport {size[0]}x{size[1]}", viewport=size)


@handler("set.device")
async def _set_device(ctx: Context, args: dict[str, Any]) -> Result:
    name = " ".join(args["name"])
    if name == "list":
        names = list(kobrowser.devices)
        return {"devices": names}, "\n".join(names)
    device = kobrowser.devices[name]
    width, height = device.viewport
    text = f"emulating {device.name} ({width}x{height}, scale {device.device_scale_factor:g})"
    return await _emulate(ctx, text, device=device)


@handler("set.offline")
async def _set_offline(ctx: Context, args: dict[str, Any]) -> Result:
    state = args["state"]
    return await _emulate(ctx, "offline" if state else "online", offline=state)


@handler("set.headers")
async def _set_headers(ctx: Context, args: dict[str, Any]) -> Result:
    headers = args["headers"]
    text = f"{len(headers)} extra header(s)" if headers else "no extra headers"
    return await _emulate(ctx, text, extra_http_headers=headers)


@handler("set.geo")
async def _set_geo(ctx: Context, args: dict[str, Any]) -> Result:
    where = {"latitude": args["latitude"], "longitude": args["longitude"]}
    where["accuracy"] = args["accuracy"]
    context = ctx.browser.default_context
    await context.set_geolocation(where)
    await context.grant_permissions(["geolocation"])
    return {"emulation": _describe(context.emulation)}, (
        f"geolocation {args['latitude']:g}, {args['longitude']:g}"
    )


@handler("set.media")
async def _set_media(ctx: Context, args: dict[str, Any]) -> Result:
    return await _emulate(ctx, f"color scheme {args['scheme']}", color_scheme=args["scheme"])


@handler("set.locale")
async def _set_locale(ctx: Context, args: dict[str, Any]) -> Result:
    return await _emulate(ctx, f"locale {args['value']}", locale=args["value"])


@handler("set.timezone")
async def _set_timezone(ctx: Context, args: dict[str, Any]) -> Result:
    return await _emulate(ctx, f"time zone {args['value']}", timezone_id=args["value"])


@handler("set.useragent")
async def _set_useragent(ctx: Context, args: dict[str, Any]) -> Result:
    return await _emulate(ctx, "user agent set", user_agent=args["value"])


@handler("set.permissions")
async def _set_permissions(ctx: Context, args: dict[str, Any]) -> Result:
    context = ctx.browser.default_context
    await context.grant_permissions(args["names"], origin=args["origin"])
    where = args["origin"] or "every origin"
    return {"granted": args["names"], "origin": args["origin"]}, (
        f"granted {', '.join(args['names'])} to {where}"
    )


@handler("set.reset")
async def _set_reset(ctx: Context, args: dict[str, Any]) -> Result:
    context = ctx.browser.default_context
    await context.clear_emulation()
    await context.clear_permissions()
    return {"emulation": {}}, "emulation off"
