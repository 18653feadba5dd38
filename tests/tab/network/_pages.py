"""Shared bits of the network tests."""

from __future__ import annotations

import base64
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from kobrowser import Tab

# The root conftest's ``open_tab`` fixture.
OpenTab = Callable[[str], AbstractAsyncContextManager[Tab]]

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
