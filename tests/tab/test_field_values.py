"""A text field's value read by id keeps its whitespace exactly (``Tab.text``, ``Tab.value``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _server import PageServer

from kobrowser import Browser

pytestmark = pytest.mark.anyio

REPRO = Path(__file__).parent.parent / "pages" / "repros" / "textarea_value.html"
VALUE = "Leo  faucibus, neque, "


async def test_a_textarea_value_set_by_script_reads_exactly(
    browser: Browser, server: PageServer
) -> None:
    tab = await browser.new_tab(server.set_page("/field-value.html", REPRO.read_text()))
    try:
        snap = await tab.snapshot()
        assert snap.text.splitlines()[-1] == '1: textbox value="Leo faucibus, neque," multiline'
        assert await tab.value(1) == VALUE
        assert await tab.text(1) == VALUE
    finally:
        await tab.close()


async def test_inputs_and_line_breaks_read_exactly(browser: Browser, server: PageServer) -> None:
    page = (
        "<!doctype html><title>T</title>"
        '<textarea aria-label="Notes"></textarea><input aria-label="Name">'
        '<input type="checkbox" aria-label="Agree"><p>  spaced   text </p>'
        "<script>document.querySelector('textarea').value = '\\n  two\\tlines \\n';"
        "document.querySelector('input').value = ' a  b ';</script>"
    )
    tab = await browser.new_tab(server.set_page("/field-values.html", page))
    try:
        snap = await tab.snapshot()
        ids = {element.role + (element.name or ""): i for i, element in snap.id_map.items()}
        notes, name, agree = ids["textboxNotes"], ids["textboxName"], ids["checkboxAgree"]
        assert await tab.text(notes) == "\n  two\tlines \n"
        assert await tab.value(notes) == "\n  two\tlines \n"
        assert await tab.text(name) == " a  b "
        assert await tab.text(agree) == ""  # not a text field: its rendered text
        assert await tab.value(agree) == "on"
    finally:
        await tab.close()
