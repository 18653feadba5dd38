"""Tab.pdf / Browser.pdf against real Chromium: the document, its options, bad input."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from _server import PageServer

from kobrowser import Browser, CaptureError, InvalidArgumentError, Tab

pytestmark = pytest.mark.anyio

PAGE = (
    "<!doctype html><title>Invoice</title><body style='background:rgb(200,30,30)'>"
    "<h1>Invoice 42</h1><p>Total: 12.50</p></body>"
)


@pytest.fixture
async def tab(browser: Browser, server: PageServer) -> AsyncIterator[Tab]:
    tab = await browser.new_tab(server.set_page("/pdf.html", PAGE))
    try:
        yield tab
    finally:
        await tab.close()


def _media_box(data: bytes) -> tuple[float, float]:
    """Width and height in points of the first page's MediaBox."""
    match = re.search(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert match is not None
    x0, y0, x1, y1 = (float(v) for v in match.groups())
    return x1 - x0, y1 - y0


async def test_pdf_bytes_and_file(tab: Tab, tmp_path: Path) -> None:
    target = tmp_path / "out.pdf"
    data = await tab.pdf(target)
    assert data.startswith(b"%PDF")
    assert target.read_bytes() == data
    width, height = _media_box(data)
    # A4 is 595.3 x 841.9 points; Chrome rounds to whole points.
    assert abs(width - 595.3) <= 1 and abs(height - 841.9) <= 1


async def test_paper_and_landscape(tab: Tab) -> None:
    letter = await tab.pdf(paper="Letter")
    assert tuple(round(v) for v in _media_box(letter)) == (612, 792)
    wide = await tab.pdf(paper="letter", landscape=True)
    assert tuple(round(v) for v in _media_box(wide)) == (792, 612)
    plain = await tab.pdf(print_background=False, scale=0.5)
    assert plain.startswith(b"%PDF") and plain != letter


async def test_browser_pdf_is_the_current_tab(browser: Browser, tab: Tab) -> None:
    await browser.switch_to(tab)
    assert (await browser.pdf()).startswith(b"%PDF")


async def test_bad_arguments(tab: Tab) -> None:
    with pytest.raises(InvalidArgumentError, match="paper: got 'A3'; expected 'A4' or 'Letter'"):
        await tab.pdf(paper="A3")
    for bad in (0, 2.5, float("nan"), True, "1"):
        with pytest.raises(InvalidArgumentError, match="scale: got"):
            await tab.pdf(scale=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="landscape: got 1"):
        await tab.pdf(landscape=1)  # type: ignore[arg-type]
    with pytest.raises(CaptureError, match="cannot write the PDF"):
        await tab.pdf("/nonexistent-dir/x/out.pdf")


async def test_headed_chrome_gets_a_clear_error(
    browser: Browser, tab: Tab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A headed Chrome cannot be started here (no display): the browser reports headed.
    assert tab.browser is browser
    process = browser._process
    assert process is not None
    monkeypatch.setattr(process, "headless", False)
    with pytest.raises(CaptureError, match="PDF needs a headless Chrome"):
        await tab.pdf()
