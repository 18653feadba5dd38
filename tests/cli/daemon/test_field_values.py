"""`ko-browser get value` / `get text` print a text field's value exactly (a real daemon)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _server import PageServer

from ..conftest import Ko

pytestmark = pytest.mark.timeout(300)

REPRO = Path(__file__).parent.parent.parent / "pages" / "repros" / "textarea_value.html"


@pytest.mark.shared_session
def test_get_value_and_text_keep_the_whitespace(ko: Ko, server: PageServer) -> None:
    ko.ok("open", server.set_page("/cli-field-value.html", REPRO.read_text()))
    assert ko.ok("snapshot").splitlines()[-1] == (
        '1: textbox value="Leo faucibus, neque," multiline'
    )
    assert ko.ok("get", "value", "1") == "Leo  faucibus, neque, \n"
    assert ko.ok("get", "text", "1") == "Leo  faucibus, neque, \n"
    assert ko.json("get", "value", "1")["result"] == {"value": "Leo  faucibus, neque, "}
