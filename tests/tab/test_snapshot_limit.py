"""Browser.snapshot_limit: a page with too much AX data fails clearly, naming the limit."""

from __future__ import annotations

from typing import Any

import pytest

from kobrowser import Browser, SnapshotError, SnapshotTooLargeError
from kobrowser._browser._browser import SNAPSHOT_LIMIT

pytestmark = pytest.mark.anyio

BUTTONS = "".join(f"<button>Button number {i}</button>" for i in range(300))


async def test_a_snapshot_over_the_limit_fails_naming_it(
    browser: Browser, open_tab: Any, server: Any
) -> None:
    server.set_page("/limit-child.html", f"<title>child</title>{BUTTONS}")
    child = server.cross_url("/limit-child.html")  # another site: an out-of-process frame
    top = server.set_page(
        "/limit-top.html", f'<title>top</title><button>Top</button><iframe src="{child}"></iframe>'
    )
    assert browser.snapshot_limit == SNAPSHOT_LIMIT == 50 * 1024 * 1024
    async with open_tab(top) as tab:
        await tab.wait_for_function("document.querySelector('iframe').contentWindow !== null")
        full = await tab.snapshot()
        assert "Button number 299" in full.text  # the child frame is in it
        top_only = len(await tab.cdp.send_raw("Accessibility.getFullAXTree"))
        try:
            # The top document fits; with its cross-origin frame it does not.
            browser.snapshot_limit = top_only + 200
            with pytest.raises(SnapshotTooLargeError) as info:
                await tab.snapshot()
            error = info.value
            assert isinstance(error, SnapshotError)
            assert error.limit == top_only + 200 and error.size > error.limit
            assert f"{top_only + 200:,} bytes" in str(error)
            assert "snapshot_limit" in str(error)
            assert tab.last_snapshot is full  # the previous snapshot is kept

            browser.snapshot_limit = 100  # not even the top document
            with pytest.raises(SnapshotTooLargeError, match="limit of 100 bytes"):
                await tab.snapshot(interactive=True)

            browser.snapshot_limit = None  # no limit
            assert (await tab.snapshot()).text == full.text
        finally:
            browser.snapshot_limit = SNAPSHOT_LIMIT
        assert (await tab.snapshot()).text == full.text
