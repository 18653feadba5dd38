"""Fixtures for the real-browser snapshot tests (tests/snapshot/test_browser_*.py).

``browser`` and ``open_tab`` come from tests/conftest.py (one Chromium per
test module; ``async with open_tab(url) as tab:``). Each test opens its own
tabs and closes them.

``snap_html``
    ``snap = await snap_html(html, **snapshot_options)``: serves ``html`` at a
    fresh path on the 127.0.0.1 origin, snapshots it in a new tab, checks the
    result with :func:`assert_consistent`, closes the tab.

:func:`_browser_helpers.assert_consistent` is what every browser test checks on every
snapshot: the text parses back (``parse_snapshot``) into exactly the id map's
elements (id, depth, role, printed name, printed value, states), ids are
gapless from 1 in pre-order of ``snap.nodes``, and ``snap.to_dict()`` survives
``json.dumps`` with the same content.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from _server import PageServer

from kobrowser import Tab
from kobrowser._tab._snapshot import Snapshot

from ._browser_helpers import assert_consistent

_counter = itertools.count(1)

OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]
SnapHtml = Callable[..., Awaitable[Snapshot]]


@pytest.fixture
def snap_html(server: PageServer, open_tab: OpenTab) -> SnapHtml:
    async def snap(html: str, **options: Any) -> Snapshot:
        url = server.set_page(f"/snap-{next(_counter)}.html", html)
        async with open_tab(url) as tab:
            result = await tab.snapshot(**options)
        assert result.url == url
        assert_consistent(result)
        return result

    return snap
