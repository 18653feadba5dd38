"""Fixtures for the real-browser snapshot tests (tests/snapshot/test_browser_*.py).

``browser`` and ``open_tab`` come from tests/conftest.py (one Chromium per
test module; ``async with open_tab(url) as tab:``). Each test opens its own
tabs and closes them.

``which_walk`` (autouse)
    Runs the pure example tests (not ``test_browser_*``, not Hypothesis
    tests) twice: with the C walk (``kobrowser.snapshot._cwalk``, skipped
    when it is not built) and with the Python walk (``_tree.USE_CWALK =
    False``), so both stay tested. Hypothesis tests draw hundreds of random
    trees (most of their time): they run once, on the default walk (C when
    built), and ``test_cwalk`` compares the two walks on such trees.

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
from kobrowser._snapshot import Snapshot
from kobrowser.snapshot import _tree

from ._browser_helpers import assert_consistent

_counter = itertools.count(1)

# Modules run on the default walk only (see the module docstring).
_ONE_WALK = ("test_browser_", "test_cwalk")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    name = metafunc.module.__name__.rpartition(".")[2]
    if (
        "which_walk" in metafunc.fixturenames
        and not name.startswith(_ONE_WALK)
        and not getattr(metafunc.function, "is_hypothesis_test", False)
    ):
        metafunc.parametrize("which_walk", ["c", "python"], indirect=True)


@pytest.fixture(autouse=True)
def which_walk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The walk full builds use: "c", "python", or "default" (C when built)."""
    which: str = getattr(request, "param", "default")
    if which == "python":
        monkeypatch.setattr(_tree, "USE_CWALK", False)
    elif which == "c" and _tree._CWALK is None:
        pytest.skip("kobrowser.snapshot._cwalk is not built")
    return which


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
