"""Daemon side of the actions on snapshot ids and the reads of one element.

click, dblclick, hover, focus, check, uncheck, scrollintoview, fill, type,
press, select, upload, drag, scroll; ``get text|html|value|attr|box`` and
``is visible|enabled|checked``.
"""

from __future__ import annotations

from kobrowser.cli._daemon._context import Args, Command, Context, Result

__all__ = ["COMMANDS"]


async def click(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().click(
        element,
        button=args.optional_text("button") or "left",  # the client's --right
        click_count=args.optional_whole("click_count") or 1,  # the client's --double
        timeout=ctx.timeout,
    )
    return {"id": element}, f"clicked {element}"


async def dblclick(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().dblclick(element, timeout=ctx.timeout)
    return {"id": element}, f"double-clicked {element}"


async def hover(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().hover(element, timeout=ctx.timeout)
    return {"id": element}, f"hovered {element}"


async def focus(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().focus(element, timeout=ctx.timeout)
    return {"id": element}, f"focused {element}"


async def check(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().check(element, timeout=ctx.timeout)
    return {"id": element}, f"checked {element}"


async def uncheck(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().uncheck(element, timeout=ctx.timeout)
    return {"id": element}, f"unchecked {element}"


async def scroll_into_view(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().scroll_into_view(element, timeout=ctx.timeout)
    return {"id": element}, f"scrolled into view {element}"


async def fill(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    await ctx.tab().fill(element, args.text("text"), timeout=ctx.timeout)
    return {"id": element}, f"filled {element}"


async def type_text(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    delay = args.optional_whole("delay")
    await ctx.tab().type(element, args.text("text"), delay=delay or 0, timeout=ctx.timeout)
    return {"id": element}, f"typed into {element}"


async def press(ctx: Context, args: Args) -> Result:
    key = args.text("key")
    await ctx.tab().press(key, timeout=ctx.timeout)
    return {"key": key}, f"pressed {key}"


async def select(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    values = args.texts("values")
    await ctx.tab().select(element, *values, timeout=ctx.timeout)
    return {"id": element, "selected": values}, f"selected {', '.join(values)}"


async def upload(ctx: Context, args: Args) -> Result:
    element = args.whole("id")
    files = args.texts("files")  # made absolute and checked by the client
    await ctx.tab().upload(element, *files, timeout=ctx.timeout)
    return {"id": element, "files": files}, f"uploaded {len(files)} file(s) to {element}"


async def drag(ctx: Context, args: Args) -> Result:
    source, target = args.whole("source"), args.whole("target")
    await ctx.tab().drag(source, target, timeout=ctx.timeout)
    return {"source": source, "target": target}, f"dragged {source} to {target}"


async def scroll(ctx: Context, args: Args) -> Result:
    direction = args.text("direction")
    amount = args.optional_whole("amount")
    tab = ctx.tab()
    if amount is None:
        await tab.scroll(direction, timeout=ctx.timeout)
    else:
        await tab.scroll(direction, amount, timeout=ctx.timeout)
    return {"direction": direction, "amount": amount}, f"scrolled {direction}"


# -- reads ---------------------------------------------------------------------


def _read(what: str, value: str | None, missing: str = "") -> Result:
    if value is None:
        return {what: None}, missing
    return {what: value}, value


async def get_text(ctx: Context, args: Args) -> Result:
    return _read("text", await ctx.tab().text(args.whole("id"), timeout=ctx.timeout))


async def get_html(ctx: Context, args: Args) -> Result:
    return _read("html", await ctx.tab().html(args.whole("id"), timeout=ctx.timeout))


async def get_value(ctx: Context, args: Args) -> Result:
    return _read("value", await ctx.tab().value(args.whole("id"), timeout=ctx.timeout))


async def get_attr(ctx: Context, args: Args) -> Result:
    value = await ctx.tab().attr(args.whole("id"), args.text("name"), timeout=ctx.timeout)
    return _read("attr", value, "(no such attribute)")


async def get_box(ctx: Context, args: Args) -> Result:
    box = await ctx.tab().box(args.whole("id"), timeout=ctx.timeout)
    text = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in box.items())
    return {"box": box}, text


def _state(what: str, value: bool) -> Result:
    return {what: value}, "true" if value else "false"


async def is_visible(ctx: Context, args: Args) -> Result:
    return _state("visible", await ctx.tab().is_visible(args.whole("id"), timeout=ctx.timeout))


async def is_enabled(ctx: Context, args: Args) -> Result:
    return _state("enabled", await ctx.tab().is_enabled(args.whole("id"), timeout=ctx.timeout))


async def is_checked(ctx: Context, args: Args) -> Result:
    return _state("checked", await ctx.tab().is_checked(args.whole("id"), timeout=ctx.timeout))


COMMANDS: dict[str, Command] = {
    "click": Command(click, serialized=True),
    "dblclick": Command(dblclick, serialized=True),
    "hover": Command(hover, serialized=True),
    "focus": Command(focus, serialized=True),
    "check": Command(check, serialized=True),
    "uncheck": Command(uncheck, serialized=True),
    "scrollintoview": Command(scroll_into_view, serialized=True),
    "fill": Command(fill, serialized=True),
    "type": Command(type_text, serialized=True),
    "press": Command(press, serialized=True),
    "select": Command(select, serialized=True),
    "upload": Command(upload, serialized=True),
    "drag": Command(drag, serialized=True),
    "scroll": Command(scroll, serialized=True),
    "get.text": Command(get_text),
    "get.html": Command(get_html),
    "get.value": Command(get_value),
    "get.attr": Command(get_attr),
    "get.box": Command(get_box),
    "is.visible": Command(is_visible),
    "is.enabled": Command(is_enabled),
    "is.checked": Command(is_checked),
}
