"""Shared test fixtures.

``server``
    Session-scoped :class:`_server.PageServer`: two HTTP origins on 127.0.0.1,
    served from a background thread with its own event loop (works under
    asyncio and trio tests alike). ``server.url(path)`` is
    ``http://127.0.0.1:PORT/path``, ``server.cross_url(path)`` is
    ``http://localhost:PORT2/path`` (a different site, so an out-of-process
    iframe in Chrome). Routes, gates and the request log are reset after every
    test. See tests/_server.py for the whole API.

``anyio_backend``
    Async tests use ``@pytest.mark.anyio`` and run on asyncio. Tests also
    marked ``@pytest.mark.both_backends`` run twice, on asyncio and on trio::

        pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

    ``both_backends(fast="trio")``: under ``scripts/test.sh --fast`` only on
    that backend (for modules whose subject is not the backend: the rest of
    the suite runs on asyncio, so trio keeps them different); CI runs both.

    A directory's own conftest.py may override ``anyio_backend`` entirely
    (for example ``params=["asyncio", "trio"]`` for every test below it).

``browser`` / ``open_tab``
    One Chromium per test module (``anyio_backend`` is module-scoped, so a
    module-scoped async fixture is allowed), with a generous 60 s default
    deadline (the machine is shared). A module marked
    ``@pytest.mark.each_transport`` runs once per transport to Chrome (CBOR
    pipe, JSON pipe, WebSocket: ``kobrowser_transport``), each on its own
    Chromium; under ``--fast`` without the JSON pipe (it hands the same JSON
    to the same decoders as the WebSocket). ``async with open_tab(url) as
    tab:`` opens a tab on ``url`` and closes it on exit. A module that needs
    other launch options defines its own ``browser``.

Hypothesis budgets
    ``scripts/test.sh --fast`` sets ``KOBROWSER_TEST_FAST=1``: property tests
    run a fifth of their examples (``tests/_examples.py``); CI runs them all.

``react_vendor``
    Path prefix (``/vendor``) of the React 18 UMD builds that
    scripts/setup.sh copies into tests/pages/vendor/: skips the test when
    they are missing, fails it under CI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest

import kobrowser
from kobrowser import Browser, Tab

_TESTS_DIR = Path(__file__).resolve().parent
if str(_TESTS_DIR) not in sys.path:  # so `import _server` works in any import mode
    sys.path.insert(0, str(_TESTS_DIR))

from _examples import FAST  # noqa: E402
from _server import PageServer  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402

# `scripts/test.sh --fast`: property tests without their own budget run 20
# examples (tests/_examples.py scales the explicit budgets).
hypothesis_settings.register_profile("fast", max_examples=20)
if FAST:
    hypothesis_settings.load_profile("fast")

BACKENDS = ("asyncio", "trio")
_session_server: PageServer | None = None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "both_backends(fast=None): run this anyio test on asyncio and on trio "
        "(use together with @pytest.mark.anyio); fast='asyncio'|'trio': only that one "
        "under scripts/test.sh --fast, for tests whose subject is not the backend",
    )
    config.addinivalue_line(
        "markers",
        "each_transport: run this module's browser tests over the CBOR pipe, the JSON pipe "
        "and the WebSocket (the `browser` fixture is launched once per transport); "
        "scripts/test.sh --fast leaves out the JSON pipe",
    )
    config.addinivalue_line(
        "markers",
        "browser: the test drives a real Chromium (set on every test that uses a browser "
        "fixture, and on modules that launch one themselves); -m 'not browser' runs the "
        "pure suite",
    )


#: Fixtures that start a real Chromium (directly or through one of these): a
#: test that uses any of them is marked ``browser``.
BROWSER_FIXTURES = frozenset(
    {
        "browser",  # here
        "open_tab",  # here
        "snap_html",  # tests/snapshot/conftest.py
        "tabs_closed",  # tests/mcp_server/conftest.py
        "endpoint",  # tests/scrape/conftest.py
        "make_runtime",  # tests/cli/conftest.py: a daemon with its browser
        "shared_runtime",
        "runtime",
        "ko",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    both = metafunc.definition.get_closest_marker("both_backends")
    if both is not None and "anyio_backend" in metafunc.fixturenames:
        backends: tuple[str, ...] = BACKENDS
        fast_backend = both.kwargs.get("fast")
        if FAST and fast_backend is not None:
            assert fast_backend in BACKENDS, f"both_backends(fast={fast_backend!r})"
            backends = (fast_backend,)
        metafunc.parametrize("anyio_backend", backends, indirect=True, scope="module")
    if (
        metafunc.definition.get_closest_marker("each_transport") is not None
        and "kobrowser_transport" in metafunc.fixturenames
    ):
        from kobrowser.cdp import cbor_codec

        # The JSON pipe and the WebSocket hand the same JSON text to the same
        # decoders (their framing is tested in tests/cdp): --fast runs the
        # WebSocket only of the two; CI runs all three.
        kinds = ["websocket"] if FAST else ["pipe-json", "websocket"]
        if cbor_codec() is not None or os.environ.get("CI"):
            kinds.insert(0, "pipe-cbor")  # under CI a missing codec fails these
        metafunc.parametrize("kobrowser_transport", kinds, indirect=True, scope="module")


@pytest.fixture(scope="module")
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """asyncio, or the backend a ``both_backends`` parametrization asks for."""
    backend: str = getattr(request, "param", "asyncio")
    return backend


@pytest.fixture(scope="session")
def server() -> Iterator[PageServer]:
    global _session_server
    srv = PageServer().start()
    _session_server = srv
    try:
        yield srv
    finally:
        _session_server = None
        srv.stop()


@pytest.fixture(autouse=True)
def _reset_server() -> Iterator[None]:
    """Every test starts from an empty route table (when the server is running)."""
    yield
    if _session_server is not None:
        _session_server.reset()


@pytest.fixture
def react_vendor() -> str:
    vendor = _TESTS_DIR / "pages" / "vendor"
    needed = ("react.production.min.js", "react-dom.production.min.js")
    missing = [name for name in needed if not (vendor / name).is_file()]
    if missing:
        msg = f"React UMD builds missing in {vendor} ({', '.join(missing)}): run scripts/setup.sh"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return "/vendor"


OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]


@pytest.fixture(scope="module")
def kobrowser_transport(request: pytest.FixtureRequest) -> str | None:
    """The transport ``browser`` is launched with (None: the default)."""
    kind: str | None = getattr(request, "param", None)
    return kind


@pytest.fixture(scope="module")
async def browser(anyio_backend: str, kobrowser_transport: str | None) -> AsyncIterator[Browser]:
    async with kobrowser.launch(timeout=60, transport=kobrowser_transport) as b:
        if kobrowser_transport is not None:
            assert b.connection.transport_kind == kobrowser_transport
        yield b


@pytest.fixture
def open_tab(browser: Browser) -> OpenTab:
    @asynccontextmanager
    async def opener(url: str) -> AsyncIterator[Tab]:
        tab = await browser.new_tab(url)
        try:
            yield tab
        finally:
            await tab.close()

    return opener
