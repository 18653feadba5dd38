"""A page that tries to open 1,000 popups does not take the browser down.

Chrome's popup blocker (kobrowser never turns it off) lets one click open
one popup; the other 999 calls of ``window.open`` are refused. The browser,
the opener tab and the popup stay usable.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from kobrowser import Browser

pytestmark = pytest.mark.anyio

FLOOD = """<!doctype html><title>Flood</title>
<button onclick="window.opened = 0;
  for (let i = 0; i < 1000; i++) if (window.open('about:blank?' + i)) window.opened++;">
  Flood</button>
<script>
  setTimeout(() => { for (let i = 0; i < 1000; i++) window.open('about:blank?load' + i); }, 0);
</script>"""


@pytest.mark.slow  # load: 1000 popups; scripts/test.sh --fast skips it
async def test_a_thousand_popups_leave_the_browser_usable(browser: Browser, server: Any) -> None:
    before = len(browser.tabs)
    tab = await browser.new_tab(server.set_page("/flood.html", FLOOD))
    try:
        snap = await tab.snapshot()
        button = next(e for e in snap.id_map.values() if e.role == "button")
        await tab.click(button.id)
        assert await tab.evaluate("window.opened") == 1  # the blocker let one through
        popup = await browser.wait_for_tab(timeout=30)
        await anyio.sleep(1)  # give any other popup the time to show up
        assert len(browser.tabs) == before + 2
        assert (await popup.evaluate("1 + 1")) == 2
        assert "Flood" in (await tab.snapshot()).text
        await popup.close()
    finally:
        await tab.close()
    assert len(browser.tabs) == before
