"""A public call's steps share one deadline: the call ends by the time asked for."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from _server import PageServer

from kobrowser._tab import _forms

pytestmark = pytest.mark.anyio

_SLOW_CLICK_S = 0.3


async def test_check_shares_one_deadline_across_its_phases(
    server: PageServer, open_tab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check() reads the state, clicks, reads again: one deadline for all three.

    Each read's timeout is what is left of it, so with a slow click in the
    middle the second read gets less than the first (given the whole
    timeout again, as before, the call could take three times as long).
    """
    url = server.set_page("/check.html", "<label><input type=checkbox> Agree</label>")
    timeouts: list[float] = []
    real_call, real_click = _forms.call, _forms.click

    async def call(*args: Any, timeout: float, **kwargs: Any) -> Any:
        timeouts.append(timeout)
        return await real_call(*args, timeout=timeout, **kwargs)

    async def slow_click(*args: Any, **kwargs: Any) -> None:
        await anyio.sleep(_SLOW_CLICK_S)
        await real_click(*args, **kwargs)

    monkeypatch.setattr(_forms, "call", call)
    monkeypatch.setattr(_forms, "click", slow_click)
    async with open_tab(url) as tab:
        snap = await tab.snapshot()
        [box] = [e for e in snap.id_map.values() if e.role == "checkbox"]
        await tab.check(box.id, timeout=20)
        assert await tab.is_checked(box.id)
    before, after = timeouts
    assert before <= 20
    assert after <= before - _SLOW_CLICK_S  # the click's time came off the same deadline
