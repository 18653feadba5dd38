"""`ko-browser scrape --proxy ... --block ...` end to end: processes, proxies, Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from _proxy import TestProxy
from _server import PageServer

from ._chrome import EndpointChrome
from .test_cli_scrape import page, records, run

pytestmark = pytest.mark.timeout(300)


def test_pages_spread_over_the_proxies_and_blocked_types_stay_away(
    server: PageServer, endpoint: EndpointChrome, tmp_path: Path
) -> None:
    server.set_page("/cp/pic.png", b"\x89PNG\r\n\x1a\n", content_type="image/png")
    urls = []
    for i in range(4):
        server.set_page(f"/cp/{i}.html", page(f"Cp {i}") + "<img src=/cp/pic.png>")
        urls.append(f"http://site.test/cp/{i}.html")
    (tmp_path / "urls.txt").write_text("\n".join(urls) + "\n")
    out = tmp_path / "out.jsonl"
    with (
        TestProxy(server.port) as one,
        TestProxy(server.port, username="u", password="pw") as two,
    ):
        login = two.url.replace("http://", "http://u:pw@")
        result = run(
            str(tmp_path / "urls.txt"),
            *("-o", str(out), "--cdp", endpoint.http, "--concurrency", "1"),
            *("--proxy", one.url, "--proxy", login, "--block", "image"),
        )
        assert result.returncode == 0, result.stderr
        found = {r["url"]: r for r in records(out)}
        assert sorted(found) == urls and all(r["ok"] for r in found.values())
        for proxy in (one, two):
            pages = [r.path for r in proxy.requests if r.authorized and r.path.endswith(".html")]
            assert len(pages) == 2
            assert "/cp/pic.png" not in [r.path for r in proxy.requests]


def test_a_refused_proxy_login_is_in_the_records(
    server: PageServer, endpoint: EndpointChrome, tmp_path: Path
) -> None:
    server.set_page("/cp/locked.html", page("Locked"))
    (tmp_path / "urls.txt").write_text("http://site.test/cp/locked.html\n")
    out = tmp_path / "out.jsonl"
    with TestProxy(server.port, username="u", password="pw") as proxy:
        bad = proxy.url.replace("http://", "http://u:hunter2@")
        result = run(
            str(tmp_path / "urls.txt"), "-o", str(out), "--cdp", endpoint.http, "--proxy", bad
        )
    assert result.returncode == 1
    [record] = records(out)
    assert record["ok"] is False and "proxy refused the credentials" in str(record["error"])
    assert "hunter2" not in out.read_text() + result.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--proxy", "ftp://u:hunter2@p.example"], "scheme must be one of"),
        (["--proxy", "socks5://u:hunter2@p.example"], "cannot log in to a SOCKS proxy"),
        (["--block", "image,pictures"], "unknown resource type 'pictures'"),
    ],
)
def test_bad_proxy_and_block_options_are_usage_errors(
    tmp_path: Path, option: list[str], message: str
) -> None:
    (tmp_path / "urls.txt").write_text("http://site.test/\n")
    result = run(str(tmp_path / "urls.txt"), *option)
    assert result.returncode == 2
    assert message in result.stderr and "hunter2" not in result.stderr
