"""Every test under tests/cdp runs on asyncio and on trio."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module", params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend
