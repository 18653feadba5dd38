"""The ``ray`` option's checks: bad values, Ray missing, trio, and ``--ray`` on the command line.

None of these starts Ray (errors come before), so they run outside a network
namespace.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import kobrowser
from kobrowser import InvalidArgumentError, KoBrowserError
from kobrowser.cli._scrape import build_parser


@pytest.mark.parametrize("value", ["", "nope", "auto-ish", "http://head:6379", "head", 5, True])
def test_a_bad_ray_value_is_a_clear_error(value: Any) -> None:
    with pytest.raises(InvalidArgumentError, match=r"^ray: got .*expected \"auto\"") as info:
        kobrowser.Scraper(ray=value)
    assert info.value.argument == "ray"
    with pytest.raises(InvalidArgumentError, match=r"^ray: "):
        kobrowser.scrape(["http://127.0.0.1/"], ray=value)


@pytest.mark.parametrize("value", ["auto", "127.0.0.1:6379", "head-1.local:10001", "ray://h:10001"])
def test_good_ray_values_are_kept(value: str) -> None:
    assert kobrowser.Scraper(ray=value).ray == value
    assert kobrowser.Scraper().ray is None
    assert kobrowser.Scraper().ray_status is None


@pytest.mark.anyio
async def test_ray_missing_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    scraper = kobrowser.Scraper(ray="auto")
    with pytest.raises(KoBrowserError, match=r"pip install 'ko-browser\[ray\]'"):
        async with scraper:
            pass


@pytest.mark.parametrize("anyio_backend", ["trio"])
@pytest.mark.anyio
async def test_ray_on_trio_is_refused() -> None:
    with pytest.raises(KoBrowserError, match="asyncio only"):
        async with kobrowser.Scraper(ray="auto"):
            pass


def test_cli_ray_option() -> None:
    parser = build_parser()
    assert parser.parse_args(["u.txt"]).ray is None
    assert parser.parse_args(["u.txt", "--ray"]).ray == "auto"
    assert parser.parse_args(["u.txt", "--ray", "10.0.0.5:6379"]).ray == "10.0.0.5:6379"
    done = subprocess.run(
        [sys.executable, "-m", "kobrowser.cli", "scrape", "u.txt", "--ray", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--ray: got 'nope'; expected" in done.stderr
