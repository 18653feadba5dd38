"""scrape(proxies=..., block_resources=...) against real proxies and pages on 127.0.0.1.

The proxies (tests/_proxy.py) serve the made-up host ``site.test`` from the
page server, so a page loads only through a proxy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import anyio
import pytest
from _proxy import TestProxy
from _server import PageServer

import kobrowser
from kobrowser import InvalidArgumentError, Proxy, Scraper, ScrapeResult

from ._chrome import EndpointChrome

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300), pytest.mark.browser]

TIMEOUT = 60.0
#: A refused password must give its records well within this.
NO_HANG_S = 60


async def collect(urls: Iterable[str], **options: Any) -> list[ScrapeResult]:
    options.setdefault("timeout", TIMEOUT)
    async with kobrowser.scrape(list(urls), **options) as results:
        return [result async for result in results]


def pages_seen(proxy: TestProxy) -> Counter[str]:
    """The pages (not favicons) a proxy let through to site.test."""
    return Counter(
        r.path
        for r in proxy.requests
        if r.host == "site.test" and r.authorized and r.path.endswith(".html")
    )


@pytest.fixture
def proxies(server: PageServer) -> Iterator[list[TestProxy]]:
    with (
        TestProxy(server.port) as one,
        TestProxy(server.port) as two,
        TestProxy(server.port, username="u", password="pw") as three,
    ):
        yield [one, two, three]


async def test_pages_take_the_proxies_in_turn(
    endpoint: EndpointChrome, server: PageServer, proxies: list[TestProxy]
) -> None:
    urls = []
    for i in range(6):
        server.set_page(f"/rr{i}.html", f"<title>Page {i}</title>")
        urls.append(f"http://site.test/rr{i}.html")
    one, two, three = proxies
    given = [one.url, {"server": two.url}, Proxy(server=three.url, username="u", password="pw")]
    results = await collect(urls, endpoints=[endpoint.http], proxies=given, concurrency=1)
    assert sorted(r.url for r in results) == urls
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert {r.title for r in results} == {f"Page {i}" for i in range(6)}
    # Round-robin: each proxy carried two of the six pages, none carried one twice.
    seen = [pages_seen(proxy) for proxy in proxies]
    assert [sum(counter.values()) for counter in seen] == [2, 2, 2]
    assert sum(seen, Counter()) == Counter(f"/rr{i}.html" for i in range(6))


async def test_a_refused_password_is_in_the_record(
    endpoint: EndpointChrome, server: PageServer, proxies: list[TestProxy]
) -> None:
    server.set_page("/locked.html", "<title>Locked</title>")
    login = proxies[2]
    bad = login.url.replace("http://", "http://u:wrong@")
    with anyio.fail_after(NO_HANG_S):
        results = await collect(
            ["http://site.test/locked.html"], endpoints=[endpoint.http], proxies=[bad], retries=2
        )
    [result] = results
    assert not result.ok and result.attempts == 1  # not retried: it would be refused again
    assert result.error is not None
    assert "proxy refused the credentials" in result.error and "407" in result.error
    assert login.url in result.error and "wrong" not in result.error
    assert pages_seen(login) == Counter()


async def test_blocked_resources_never_reach_the_server(
    endpoint: EndpointChrome, server: PageServer
) -> None:
    server.set_page("/b/photo.png", b"\x89PNG\r\n\x1a\n", content_type="image/png")
    server.set_page("/b/deco.woff2", b"wOF2" + bytes(32), content_type="font/woff2")
    server.set_page("/b/style.css", "p { color: blue }", content_type="text/css")
    style = "@font-face { font-family: D; src: url('/b/deco.woff2') } body { font-family: D }"
    body = (
        f"<title>Light</title><style>{style}</style><link rel=stylesheet href=/b/style.css>"
        "<p>still here</p><img src=/b/photo.png alt=photo>"
    )
    urls = [server.set_page(f"/b/page{i}.html", body) for i in range(3)]
    results = await collect(urls, endpoints=[endpoint.http], block_resources="image,font")
    assert all(r.ok and r.snapshot and "still here" in r.snapshot for r in results)
    paths = {r.path for r in server.requests}
    assert "/b/photo.png" not in paths and "/b/deco.woff2" not in paths
    assert "/b/style.css" in paths  # only the types asked for


@pytest.mark.parametrize(
    ("options", "argument", "message"),
    [
        ({"proxies": ["ftp://p.example"]}, "proxies", "scheme"),
        ({"proxies": []}, "proxies", "at least one proxy"),
        ({"proxies": 5}, "proxies", "proxy URLs"),
        ({"proxies": [{"server": "p.example", "user": "u"}]}, "proxies", "unknown key"),
        ({"block_resources": "image,pictures"}, "block_resources", "unknown resource type"),
    ],
)
def test_bad_options_are_refused_up_front(
    options: dict[str, Any], argument: str, message: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=message) as info:
        Scraper(**options)
    assert info.value.argument == argument


def test_one_proxy_may_be_given_alone() -> None:
    scraper = Scraper(proxies="http://u:p@p.example:3128", block_resources=["Font", "image"])
    assert scraper.proxies == (Proxy(server="http://p.example:3128", username="u", password="p"),)
    assert scraper.block_resources == ("font", "image")
