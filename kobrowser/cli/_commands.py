"""Daemon side of the commands: one request -> library calls -> (result, text).

Every command maps onto a public name of :class:`kobrowser.Tab` or
:class:`kobrowser.Browser`, looked up with ``getattr`` when the command runs:
a command whose method the library does not have (yet) fails with
:class:`NotAvailableError` instead of breaking the others.

Here: the handler registry, the helpers every handler uses, and the
handlers of navigation, snapshot, actions, get/is, wait and eval. The
other commands register from their own modules (imported at the end);
the errors and how they reach the client are in :mod:`._errors`.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

import kobrowser
from kobrowser.actions import normalize_url
from kobrowser.cli._errors import CommandError, NotAvailableError, UsageError, describe_error
from kobrowser.snapshot._find import numbered_lines

if TYPE_CHECKING:
    from kobrowser import Browser, Tab

__all__ = [
    "SERIALIZED",
    "STREAMING",
    "CommandError",
    "Context",
    "NotAvailableError",
    "UsageError",
    "describe_error",
    "run_command",
]

#: Commands that change a tab: they run one at a time per session. Everything
#: else (get, is, wait, tab list, status, close) runs as soon as it arrives.
SERIALIZED = frozenset(
    {
        "open", "back", "forward", "reload", "snapshot", "find", "click", "dblclick", "hover",
        "focus", "fill", "type", "press", "select", "check", "uncheck", "upload", "drag",
        "scroll", "scrollintoview", "tab.new", "tab.switch", "tab.close", "eval",
        "batch", "agent", "cookies.set", "cookies.clear", "state.load", "set.viewport",
        "set.device", "set.offline", "set.headers", "set.geo", "set.media", "set.locale",
        "set.timezone", "set.useragent", "set.permissions", "set.reset",
    }
)  # fmt: skip

#: Commands with no overall deadline: they bound each action (and model call)
#: and send a progress line after each (see _protocol.py).
STREAMING = frozenset({"batch", "agent"})


Progress = Callable[[dict[str, Any], str], Awaitable[None]]


class Context:
    """What a command needs: the browser, the deadline it was given, and where
    progress lines go (streaming commands; a no-op elsewhere)."""

    def __init__(
        self, browser: Browser, timeout: float | None, progress: Progress | None = None
    ) -> None:
        self.browser = browser
        self.timeout = timeout
        self.progress: Progress = progress or _no_progress


async def _no_progress(result: dict[str, Any], text: str) -> None:
    return None


Result = tuple[dict[str, Any], str]
Handler = Callable[[Context, dict[str, Any]], Awaitable[Result]]
HANDLERS: dict[str, Handler] = {}


def handler(*names: str) -> Callable[[Handler], Handler]:
    def register(func: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = func
        return func

    return register


async def run_command(ctx: Context, cmd: str, args: dict[str, Any]) -> Result:
    """Run one command; library errors propagate (see :func:`describe_error`)."""
    func = HANDLERS.get(cmd)
    if func is None:
        raise UsageError(f"unknown command {cmd!r}")
    return await func(ctx, {**args, "_name": cmd})


# -- helpers ---------------------------------------------------------------


def _method(obj: Any, name: str, cmd: str) -> Callable[..., Any]:
    func: Callable[..., Any] | None = getattr(obj, name, None)
    if func is None or not callable(func):
        kind = type(obj).__name__
        raise NotAvailableError(
            f"`ko-browser {cmd}` needs {kind}.{name}(), which this kobrowser "
            f"({kobrowser.__version__}) does not have yet"
        )
    return func


async def _call(
    ctx: Context, func: Callable[..., Any], *args: Any, option_of: str = "", **kwargs: Any
) -> Any:
    """Call a library coroutine, passing the command's timeout where accepted.

    Keyword arguments the method does not take are an error (an option the
    library does not support yet), never silently dropped.
    """
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        params = {}  # type: ignore[assignment]
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for key in kwargs:
        if not takes_any and key not in params:
            raise NotAvailableError(
                f"{option_of or func.__name__}: option {key!r} is not supported by this kobrowser"
            )
    if ctx.timeout is not None and (takes_any or "timeout" in params):
        kwargs["timeout"] = ctx.timeout
    return await func(*args, **kwargs)


def _tab(ctx: Context) -> Tab:
    if not ctx.browser.tabs:
        raise CommandError("no open tab", "run `ko-browser open URL` or `ko-browser tab new`")
    return ctx.browser.current_tab


async def _url(tab: Tab) -> str:
    url = getattr(tab, "url", None)
    if callable(url):
        url = await url()
    if isinstance(url, str):
        return url
    return str(await tab.evaluate("location.href"))


async def _page(tab: Tab) -> dict[str, Any]:
    return {"url": await _url(tab), "title": await tab.title()}


def _page_text(page: dict[str, Any]) -> str:
    title = page["title"]
    return f'{page["url"]}  "{title}"' if title else page["url"]


# -- navigation ------------------------------------------------------------


@handler("open")
async def _open(ctx: Context, args: dict[str, Any]) -> Result:
    url = normalize_url(args["url"])
    options = {"wait_until": args["wait_until"]} if args.get("wait_until") else {}
    if ctx.browser.tabs:
        tab = ctx.browser.current_tab
        await _call(ctx, _method(tab, "open", "open"), url, option_of="open", **options)
    else:
        tab = await _call(ctx, ctx.browser.new_tab, "about:blank")
        await _call(ctx, _method(tab, "open", "open"), url, option_of="open", **options)
    page = await _page(tab)
    return page, _page_text(page)


@handler("back", "forward", "reload")
async def _history(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    name = args["_name"]
    await _call(ctx, _method(tab, name, name))
    page = await _page(tab)
    return page, _page_text(page)


# -- snapshot --------------------------------------------------------------


@handler("snapshot")
async def _snapshot(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    snap = await _call(
        ctx,
        tab.snapshot,
        interactive=args["interactive"],
        compact=args["compact"],
        depth=args["depth"],
        selector=args["selector"],
        **_snapshot_options(args),
    )
    from kobrowser.cli._seeing import remember_mode

    remember_mode(tab, args)
    return snap.to_dict(), snap.text.rstrip("\n")


def _snapshot_options(args: dict[str, Any]) -> dict[str, Any]:
    # Passed only when not the default, so a library without them still works.
    options: dict[str, Any] = {}
    if args.get("text_limit", 80) != 80:
        options["text_limit"] = args["text_limit"]
    if not args.get("clickable", True):
        options["clickable"] = False
    return options


@handler("find")
async def _find(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    criteria = {k: args[k] for k in ("role", "name", "text") if args.get(k) is not None}
    found = await _call(ctx, _method(tab, "find", "find"), exact=args["exact"], **criteria)
    if not found:
        raise CommandError("no element matches", "run `ko-browser snapshot` to see the page")
    snap = tab.last_snapshot
    lines = numbered_lines(snap.text) if snap is not None else {}
    text = "\n".join(lines.get(element.id, f"{element.id}: {element.role}") for element in found)
    elements = [{k: v for k, v in e.to_dict().items() if k != "children"} for e in found]
    return {"elements": elements}, text


# -- actions ---------------------------------------------------------------

_PAST = {
    "click": "clicked",
    "dblclick": "double-clicked",
    "hover": "hovered",
    "focus": "focused",
    "check": "checked",
    "uncheck": "unchecked",
    "scrollintoview": "scrolled into view",
}
_METHOD = {"scrollintoview": "scroll_into_view"}


@handler("click", "dblclick", "hover", "focus", "check", "uncheck", "scrollintoview")
async def _element_action(ctx: Context, args: dict[str, Any]) -> Result:
    cmd = args["_name"]
    tab = _tab(ctx)
    element = args["id"]
    options = {k: args[k] for k in ("button", "click_count") if k in args}
    await _call(ctx, _method(tab, _METHOD.get(cmd, cmd), cmd), element, option_of=cmd, **options)
    return {"id": element}, f"{_PAST[cmd]} {element}"


@handler("fill")
async def _fill(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    await _call(ctx, _method(tab, "fill", "fill"), args["id"], args["text"])
    return {"id": args["id"]}, f"filled {args['id']}"


@handler("type")
async def _type(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    options = {"delay": args["delay"]} if args.get("delay") is not None else {}
    await _call(
        ctx, _method(tab, "type", "type"), args["id"], args["text"], option_of="type", **options
    )
    return {"id": args["id"]}, f"typed into {args['id']}"


@handler("press")
async def _press(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    await _call(ctx, _method(tab, "press", "press"), args["key"])
    return {"key": args["key"]}, f"pressed {args['key']}"


@handler("select")
async def _select(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    result = await _call(ctx, _method(tab, "select", "select"), args["id"], *args["values"])
    selected = result if isinstance(result, list) else args["values"]
    return {"id": args["id"], "selected": selected}, f"selected {', '.join(map(str, selected))}"


@handler("upload")
async def _upload(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    files = args["files"]  # made absolute and checked by the client
    await _call(ctx, _method(tab, "upload", "upload"), args["id"], *files)
    return {"id": args["id"], "files": files}, f"uploaded {len(files)} file(s) to {args['id']}"


@handler("drag")
async def _drag(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    await _call(ctx, _method(tab, "drag", "drag"), args["source"], args["target"])
    return {"source": args["source"], "target": args["target"]}, (
        f"dragged {args['source']} to {args['target']}"
    )


@handler("scroll")
async def _scroll(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    extra = () if args["amount"] is None else (args["amount"],)
    await _call(ctx, _method(tab, "scroll", "scroll"), args["direction"], *extra)
    return {"direction": args["direction"], "amount": args["amount"]}, (
        f"scrolled {args['direction']}"
    )


# -- get / is --------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    to_dict = getattr(value, "to_dict", None) or getattr(value, "_asdict", None)
    if callable(to_dict):
        return _jsonable(to_dict())
    fields = getattr(value, "__struct_fields__", None) or getattr(value, "__slots__", None)
    if fields:
        return {name: _jsonable(getattr(value, name)) for name in fields}
    if hasattr(value, "__dict__"):
        return {k: _jsonable(v) for k, v in vars(value).items() if not k.startswith("_")}
    return str(value)


@handler("get.text", "get.html", "get.value", "get.attr", "get.box")
async def _get_element(ctx: Context, args: dict[str, Any]) -> Result:
    what = args["_name"].split(".", 1)[1]
    tab = _tab(ctx)
    extra = (args["name"],) if what == "attr" else ()
    value = _jsonable(await _call(ctx, _method(tab, what, f"get {what}"), args["id"], *extra))
    if what == "box":
        if isinstance(value, dict):
            text = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                            for k, v in value.items())  # fmt: skip
        else:
            text = json.dumps(value)
        return {"box": value}, text
    if value is None:
        return {what: None}, "" if what != "attr" else "(no such attribute)"
    return {what: value}, value if isinstance(value, str) else json.dumps(value)


@handler("get.title")
async def _get_title(ctx: Context, args: dict[str, Any]) -> Result:
    title = await _tab(ctx).title()
    return {"title": title}, title


@handler("get.url")
async def _get_url(ctx: Context, args: dict[str, Any]) -> Result:
    url = await _url(_tab(ctx))
    return {"url": url}, url


@handler("is.visible", "is.enabled", "is.checked")
async def _is(ctx: Context, args: dict[str, Any]) -> Result:
    what = args["_name"].split(".", 1)[1]
    tab = _tab(ctx)
    value = bool(await _call(ctx, _method(tab, f"is_{what}", f"is {what}"), args["id"]))
    return {what: value}, "true" if value else "false"


# -- waits -----------------------------------------------------------------


@handler("wait")
async def _wait(ctx: Context, args: dict[str, Any]) -> Result:
    tab = _tab(ctx)
    if args["ms"] is not None:
        wait = getattr(tab, "wait", None)
        if callable(wait):
            await wait(args["ms"])
        else:
            await anyio.sleep(args["ms"] / 1000)
        return {"waited_ms": args["ms"]}, f"waited {args['ms']} ms"
    if args["load"] is not None:
        await _call(ctx, _method(tab, "wait_for_load", "wait --load"), args["load"])
        return {"load": args["load"]}, f"page reached {args['load']}"
    if args["text"] is not None:
        await _call(ctx, _method(tab, "wait_for_text", "wait --text"), args["text"])
        return {"text": args["text"]}, f"text {args['text']!r} found"
    if args["selector"] is not None:
        options = {"state": args["state"]} if args["state"] else {}
        await _call(
            ctx,
            _method(tab, "wait_for_selector", "wait --selector"),
            args["selector"],
            option_of="wait --selector",
            **options,
        )
        return {"selector": args["selector"], "state": args["state"] or "visible"}, (
            f"selector {args['selector']!r} is {args['state'] or 'visible'}"
        )
    if args["url"] is not None:
        await _call(ctx, _method(tab, "wait_for_url", "wait --url"), args["url"])
        url = await _url(tab)
        return {"url": url}, url
    await _call(ctx, _method(tab, "wait_for_function", "wait --fn"), args["fn"])
    return {"fn": args["fn"]}, "condition is true"


# -- eval ------------------------------------------------------------------


@handler("eval")
async def _eval(ctx: Context, args: dict[str, Any]) -> Result:
    found = await _call(ctx, _tab(ctx).evaluate, args["script"])
    try:
        value = _jsonable(found)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except RecursionError:
        raise CommandError(
            "the script's value is nested too deeply to print",
            "return a part of it, or JSON.stringify it in the script",
        ) from None
    return {"value": value}, text


# Register `batch` and `agent`; `cookies`, `state` and `set`; `network`, `console`,
# `errors`; `screenshot`, `pdf`, `diff`; `tab list|new|switch|close`.
from kobrowser.cli import _batch, _browser_state, _network, _seeing, _tabs  # noqa: E402, F401
