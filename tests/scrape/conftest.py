"""Fixtures of the scrape tests.

``endpoint``
    One headless Chrome per test module, started by the test itself (see
    ``_chrome.py``) and used as a remote CDP endpoint: most tests scrape
    through it, so they do not each launch a browser.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._chrome import EndpointChrome


@pytest.fixture(scope="module")
def endpoint() -> Iterator[EndpointChrome]:
    with EndpointChrome() as chrome:
        yield chrome
