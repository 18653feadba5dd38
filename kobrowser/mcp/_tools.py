"""The MCP tools: each maps one request onto kobrowser's public API.

Each method of :class:`BrowserTools` below is one tool; its docstring is the
tool's description (what the model reads, so it is short) and its
parameters' ``Field`` descriptions are the argument docs. How a tool runs
and what its reply shows is :class:`~kobrowser.mcp._runner.ToolRunner`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Literal

import anyio
from mcp.types import CallToolResult
from pydantic import Field

import kobrowser
from kobrowser.actions import normalize_url
from kobrowser.mcp._replies import element_line, json_text, page_block
from kobrowser.mcp._runner import BatchFailed, SnapshotMode, ToolRunner
from kobrowser.mcp._safety import RefusedError, upload_files

if TYPE_CHECKING:
    from kobrowser import Browser, Response, Tab

__all__ = ["BrowserTools"]

ElementId = Annotated[int, Field(ge=1, description="id from the latest snapshot")]
Text = Annotated[str, Field(description="the text")]


class BrowserTools:
    """The tools of one MCP server over one open :class:`kobrowser.Browser`."""

    def __init__(
        self, browser: Browser, *, snapshot: SnapshotMode, policy: kobrowser.Policy
    ) -> None:
        self._browser = browser
        self._upload_dir = policy.upload_dir
        self._mode: SnapshotMode = snapshot
        runner = ToolRunner(browser, snapshot, policy)
        self._run = runner.run
        self._tab = runner.tab
        self._shown = runner.shown

    async def _element(
        self, summary: str, act: Callable[[Tab], Awaitable[object]]
    ) -> CallToolResult:
        async def body() -> str:
            await act(self._tab())
            return summary

        return await self._run(body, page=True)

    # -- navigation --------------------------------------------------------------

    async def open(
        self, url: Annotated[str, Field(description="address to open")]
    ) -> CallToolResult:
        """Open a URL in the current tab (a new tab when none is open)."""

        async def body() -> str:
            target = normalize_url(url)
            tab = (
                self._browser.tab
                if self._browser.tabs
                else await self._browser.new_tab("about:blank")
            )
            return _navigated("Opened", target, await tab.open(target))

        return await self._run(body, page=True)

    async def back(self) -> CallToolResult:
        """Go back in the current tab's history."""
        return await self._history("back")

    async def forward(self) -> CallToolResult:
        """Go forward in the current tab's history."""
        return await self._history("forward")

    async def reload(self) -> CallToolResult:
        """Reload the current page."""

        async def body() -> str:
            tab = self._tab()
            return _navigated("Reloaded", tab.url, await tab.reload())

        return await self._run(body, page=True)

    async def _history(self, way: Literal["back", "forward"]) -> CallToolResult:
        async def body() -> str:
            tab = self._tab()
            url = tab.url
            response = await (tab.back() if way == "back" else tab.forward())
            if response is None and tab.url == url:
                return f"There is no page to go {way} to."
            return _navigated(f"Went {way} to", tab.url, response)

        return await self._run(body, page=True)

    # -- seeing the page -------------------------------------------------------------

    async def snapshot(
        self,
        interactive: Annotated[
            bool | None, Field(description="only interactive elements (default: server setting)")
        ] = None,
        selector: Annotated[
            str | None, Field(description="only the subtrees matching this CSS selector")
        ] = None,
        depth: Annotated[int | None, Field(ge=1, description="levels to show")] = None,
        text_limit: Annotated[
            int | None, Field(ge=0, description="characters of names and text (default 80; 0: all)")
        ] = None,
    ) -> CallToolResult:
        """Numbered accessibility snapshot of the current tab, iframes included.
        Its ids replace all earlier ones."""

        async def body() -> str:
            tab = self._tab()
            only_interactive = self._mode != "full" if interactive is None else interactive
            snap = await tab.snapshot(
                interactive=only_interactive,
                selector=selector,
                depth=depth,
                # None: the default (80); 0: the whole text (None for the library).
                text_limit=80 if text_limit is None else text_limit or None,
            )
            if only_interactive and selector is None and depth is None and text_limit in (None, 80):
                self._shown(tab, snap)  # the snapshot replies' own options
            return page_block(snap)

        return await self._run(body, page=False)

    async def find(
        self,
        role: Annotated[str | None, Field(description="ARIA role, e.g. button")] = None,
        name: Annotated[str | None, Field(description="text in the accessible name")] = None,
        text: Annotated[str | None, Field(description="text the element shows")] = None,
        exact: Annotated[bool, Field(description="whole, case-sensitive match")] = False,
    ) -> CallToolResult:
        """Find elements by role, name or text in a new snapshot; replies with their lines.
        Their ids replace all earlier ones."""

        async def body() -> str:
            if role is None and name is None and text is None:
                raise RefusedError("find needs role, name or text")
            found = await self._tab().find(role=role, name=name, text=text, exact=exact)
            if not found:
                return "No element matches."
            return "\n".join(element_line(element) for element in found)

        return await self._run(body, page=False)

    async def text(self, id: ElementId) -> CallToolResult:
        """The whole text of element `id`; a text field's exact value (spaces kept)."""

        async def body() -> str:
            return await self._tab().text(id) or f"(element {id} has no text)"

        return await self._run(body, page=False)

    # -- acting on elements ------------------------------------------------------------

    async def click(
        self,
        id: ElementId,
        button: Annotated[
            Literal["left", "right", "middle"], Field(description="mouse button")
        ] = "left",
    ) -> CallToolResult:
        """Click element `id`."""
        return await self._element(f"Clicked {id}.", lambda tab: tab.click(id, button=button))

    async def dblclick(self, id: ElementId) -> CallToolResult:
        """Double-click element `id`."""
        return await self._element(f"Double-clicked {id}.", lambda tab: tab.dblclick(id))

    async def hover(self, id: ElementId) -> CallToolResult:
        """Move the mouse over element `id`."""
        return await self._element(f"Hovered {id}.", lambda tab: tab.hover(id))

    async def fill(self, id: ElementId, text: Text) -> CallToolResult:
        """Replace the value of text field `id` with `text`."""
        return await self._element(f"Filled {id}.", lambda tab: tab.fill(id, text))

    async def type(self, id: ElementId, text: Text) -> CallToolResult:
        """Type `text` into element `id` key by key (adds to its value; fill replaces it)."""
        return await self._element(f"Typed into {id}.", lambda tab: tab.type(id, text))

    async def press(
        self, key: Annotated[str, Field(description="Enter, Tab, ArrowDown, Control+a, ...")]
    ) -> CallToolResult:
        """Press a key or key combination on the focused element."""

        async def body() -> str:
            await self._tab().press(key)
            return f"Pressed {key}."

        return await self._run(body, page=True)

    async def select(
        self,
        id: ElementId,
        values: Annotated[list[str], Field(min_length=1, description="option labels or values")],
    ) -> CallToolResult:
        """Select options of select element `id`."""
        return await self._element(f"Selected in {id}.", lambda tab: tab.select(id, *values))

    async def check(self, id: ElementId) -> CallToolResult:
        """Check checkbox, radio or switch `id`."""
        return await self._element(f"Checked {id}.", lambda tab: tab.check(id))

    async def uncheck(self, id: ElementId) -> CallToolResult:
        """Uncheck checkbox or switch `id`."""
        return await self._element(f"Unchecked {id}.", lambda tab: tab.uncheck(id))

    async def upload(
        self,
        id: ElementId,
        paths: Annotated[list[str], Field(description="files (only from the allowed directory)")],
    ) -> CallToolResult:
        """Set the files of file input `id`."""

        async def body() -> str:
            files = upload_files(paths, self._upload_dir)
            await self._tab().upload(id, *files)
            return f"Uploaded {len(files)} file(s) to {id}."

        return await self._run(body, page=True)

    async def drag(
        self,
        source: Annotated[int, Field(ge=1, description="id of the element to drag")],
        target: Annotated[int, Field(ge=1, description="id of the element to drop on")],
    ) -> CallToolResult:
        """Drag element `source` onto element `target`."""
        return await self._element(
            f"Dragged {source} to {target}.", lambda tab: tab.drag(source, target)
        )

    async def scroll(
        self,
        direction: Literal["up", "down", "left", "right"] = "down",
        pixels: Annotated[int, Field(ge=1)] = 600,
        id: Annotated[
            int | None,
            Field(ge=1, description="id from the latest snapshot: scroll it into view instead"),
        ] = None,
    ) -> CallToolResult:
        """Scroll the page, or bring element `id` into view."""

        async def body() -> str:
            tab = self._tab()
            if id is not None:
                await tab.scroll_into_view(id)
                return f"Scrolled {id} into view."
            await tab.scroll(direction, pixels)
            return f"Scrolled {direction} {pixels} px."

        return await self._run(body, page=True)

    # -- waiting, tabs, scripts, batches ------------------------------------------------------

    async def wait_for(
        self,
        text: Annotated[str | None, Field(description="text to appear on the page")] = None,
        selector: Annotated[str | None, Field(description="CSS selector to become visible")] = None,
        url: Annotated[str | None, Field(description="URL glob to reach, e.g. **/done*")] = None,
        time: Annotated[float | None, Field(ge=0, description="seconds to wait")] = None,
    ) -> CallToolResult:
        """Wait for one of: text, a selector, a URL, or a time."""

        async def body() -> str:
            chosen = [v for v in (text, selector, url, time) if v is not None]
            if len(chosen) != 1:
                raise RefusedError("wait_for needs exactly one of text, selector, url, time")
            tab = self._tab()
            if text is not None:
                await tab.wait_for_text(text)
                return f"Text {text!r} is on the page."
            if selector is not None:
                await tab.wait_for_selector(selector)
                return f"{selector!r} is visible."
            if url is not None:
                await tab.wait_for_url(url)
                return f"Reached {tab.url}"
            assert time is not None
            await tab.wait(time * 1000)
            return f"Waited {time:g} s."

        return await self._run(body, page=True)

    async def tabs(
        self,
        action: Literal["list", "new", "switch", "close"] = "list",
        index: Annotated[int | None, Field(ge=1, description="tab number from list")] = None,
        url: Annotated[str | None, Field(description="for new: address to open")] = None,
    ) -> CallToolResult:
        """List, open, switch to or close tabs (close: default the current one)."""
        if action == "list":
            return await self._run(self._tab_list, page=False)

        async def body() -> str:
            browser = self._browser
            if action == "new":
                tab = await browser.new_tab(normalize_url(url) if url else "about:blank")
                return f"Opened tab {browser.tabs.index(tab) + 1}."
            tab = self._tab_at(index)
            number = browser.tabs.index(tab) + 1
            if action == "switch":
                await browser.switch_to(tab)
                return f"Switched to tab {number}."
            await tab.close()
            if not browser.tabs:
                return f"Closed tab {number}."
            await browser.switch_to(browser.tab)
            current = browser.tabs.index(browser.tab) + 1
            return f"Closed tab {number}; tab {current} is current."

        return await self._run(body, page=True)

    def _tab_at(self, index: int | None) -> Tab:
        if index is None:
            return self._tab()
        tabs = self._browser.tabs
        if not 1 <= index <= len(tabs):
            raise RefusedError(f"there is no tab {index}: {len(tabs)} open")
        return tabs[index - 1]

    async def _tab_list(self) -> str:
        tabs = self._browser.tabs
        if not tabs:
            return "No tab is open."
        current = self._browser.tab
        lines = []
        for index, tab in enumerate(tabs, 1):
            title = ""
            with anyio.move_on_after(5), contextlib.suppress(kobrowser.KoBrowserError):
                title = await tab.title()
            mark = "*" if tab is current else " "
            lines.append(
                f'{mark} {index}: {tab.url} "{title}"' if title else f"{mark} {index}: {tab.url}"
            )
        return "\n".join(lines)

    async def evaluate(
        self, expression: Annotated[str, Field(description="JavaScript expression")]
    ) -> CallToolResult:
        """Evaluate JavaScript in the current page; replies with the JSON value (no snapshot)."""

        async def body() -> str:
            return json_text(await self._tab().evaluate(expression))

        return await self._run(body, page=False)

    async def batch(
        self,
        actions: Annotated[str, Field(description='action lines, e.g. fill 3 "hi" / click 5')],
    ) -> CallToolResult:
        """Run several actions, one a line (same words as the tools), with ids of the latest
        snapshot; stops at the first failure."""

        async def body() -> str:
            parsed = kobrowser.parse_actions(actions)
            if not parsed:
                raise RefusedError("batch got no action lines")
            done: list[str] = []
            for number, action in enumerate(parsed, 1):
                outcome = await self._tab().do(action)
                if not outcome.ok:
                    left = len(parsed) - number
                    done.append(f"failed: {action}: {outcome.message}")
                    if left:
                        done.append(f"not run: the {left} action(s) after it")
                    raise BatchFailed("\n".join(done))
                done.append(f"ok: {action}")
            return "\n".join(done)

        return await self._run(body, page=True)


def _navigated(verb: str, url: str, response: Response | None) -> str:
    if response is None or response.ok:
        return f"{verb} {url}."
    reason = f" {response.status_text}" if response.status_text else ""
    return f"{verb} {url} (HTTP {response.status}{reason})."
