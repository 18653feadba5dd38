"""The tools built on library API still to come (find, text_limit), with stand-ins.

``Tab.find`` and ``Tab.snapshot(text_limit=)`` are replaced here by small
stand-ins with the signatures issue 10 gives, so the tools' own logic
(arguments passed, reply text) is tested before the library has them. The real
API is tested in test_tools.py once it is there.
"""

from __future__ import annotations

from typing import Any

import pytest
from _server import PageServer
from mcp import Client

from kobrowser import Browser, Element, Tab
from kobrowser.mcp import _pending, build_server

from .conftest import call, find_id

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("tabs_closed")]

PAGE = """<!doctype html><title>Form</title>
<label>Name <input></label>
<button onclick="this.textContent = 'Hi ' + document.querySelector('input').value">Greet</button>
<button>Greet again</button>
"""


class _WithLimit:
    async def snapshot(self, *, interactive: bool = False, text_limit: int | None = 80) -> None:
        pass


class _WithoutLimit:
    async def snapshot(self, *, interactive: bool = False) -> None:
        pass


def test_text_limit_option() -> None:
    tab: Any = _WithLimit()
    assert _pending.text_limit_option(tab, None) == {}
    assert _pending.text_limit_option(tab, 30) == {"text_limit": 30}
    assert _pending.text_limit_option(tab, 0) == {"text_limit": None}  # 0: the whole text
    old: Any = _WithoutLimit()
    assert _pending.text_limit_option(old, None) == {}
    with pytest.raises(_pending.NotAvailableError, match="text_limit is not available"):
        _pending.text_limit_option(old, 30)


async def test_find_tool(
    browser: Browser, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[dict[str, Any]] = []

    async def find(
        self: Tab,
        role: str | None = None,
        name: str | None = None,
        text: str | None = None,
        exact: bool = False,
    ) -> list[Element]:
        asked.append({"role": role, "name": name, "text": text, "exact": exact})
        snap = await self.snapshot()
        return [
            e
            for e in snap.id_map.values()
            if (role is None or e.role == role)
            and (name is None or name.lower() in e.name.lower())
            and (text is None or text in e.name)
        ]

    monkeypatch.setattr(Tab, "find", find, raising=False)
    server.set_page("/form.html", PAGE)
    async with Client(build_server(browser)) as client:
        await call(client, "open", url=server.url("/form.html"))
        found = await call(client, "find", role="button", name="greet")
        greet, again = find_id(found, 'Greet"$'), find_id(found, "again")
        assert found.splitlines() == [f'{greet}: button "Greet"', f'{again}: button "Greet again"']
        assert asked == [{"role": "button", "name": "greet", "text": None, "exact": False}]
        # find took a new snapshot: its ids are the ones actions use now.
        assert (await call(client, "click", id=greet)).startswith(f"Clicked {greet}.")
        assert await call(client, "find", text="nothing", exact=True) == "No element matches."
        assert asked[-1] == {"role": None, "name": None, "text": "nothing", "exact": True}
