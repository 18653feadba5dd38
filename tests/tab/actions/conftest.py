"""Fixtures for the real-browser action tests.

``browser`` and ``open_tab`` come from tests/conftest.py (one Chromium per
test module; ``async with open_tab(url) as tab:``).

``page_url``
    ``url = page_url(body, head=..., cross=False)``: serves a small HTML
    document at a fresh path and returns its URL (``cross=True``: the
    localhost origin, another site).

Pages record the events they get with :data:`_pages.RECORDER` (a script
that logs every pointer, mouse, keyboard and form event into
``window.__log``); tests read the log back with :func:`_pages.read_log`,
which evaluates in the frame's own session, so it works for out-of-process
frames too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
from _server import PageServer

from kobrowser import Tab

from ._pages import page

_counter = itertools.count(1)

OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]
PageUrl = Callable[..., str]


@pytest.fixture
def page_url(server: PageServer) -> PageUrl:
    def make(body: str, *, head: str = "", cross: bool = False, path: str | None = None) -> str:
        path = path or f"/act-{next(_counter)}.html"
        server.set_page(path, page(body, head=head))
        return server.cross_url(path) if cross else server.url(path)

    return make
