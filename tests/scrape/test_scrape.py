"""kobrowser.scrape / Scraper against real Chromium and pages served on 127.0.0.1.

Most tests scrape through one Chrome per module that the test starts itself
(``endpoint``), as a remote endpoint; the ones about local browsers (bad
input with popups, cancellation) let the Scraper launch its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
import msgspec
import pytest
from _server import PageServer
from aiohttp import web

import kobrowser
from kobrowser import Scraper, ScrapeResult, Snapshot, Tab

from ._chrome import EndpointChrome, live_group_members, pid_alive

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]

#: Page deadline for the tests: generous, the machine is shared.
TIMEOUT = 60.0
#: Page deadline of the runs whose held pages must be stopped by cancellation:
#: longer than ``wait_for``'s 60 s, so held pages that only stop at their own
#: deadline leave their tabs open past the wait and fail the test.
HELD_TIMEOUT = 240.0


def page(title: str, body: str = "") -> str:
    return f"<!doctype html><title>{title}</title><h1>{title}</h1>{body}"


async def collect(urls: Iterable[str], **options: Any) -> list[ScrapeResult]:
    options.setdefault("timeout", TIMEOUT)
    async with kobrowser.scrape(list(urls), **options) as results:
        return [result async for result in results]


def by_url(results: list[ScrapeResult]) -> dict[str, ScrapeResult]:
    counts = Counter(result.url for result in results)
    assert [url for url, n in counts.items() if n > 1] == []
    return {result.url: result for result in results}


async def wait_for(condition: Any, what: str, timeout: float = 60.0) -> None:
    """Poll ``condition()`` (state of another process or thread) until true."""
    with anyio.move_on_after(timeout):
        while not condition():  # noqa: ASYNC110 - polling state with no event to wait on
            await anyio.sleep(0.05)
    assert condition(), what


@pytest.mark.both_backends
async def test_basic_run_one_record_per_url(server: PageServer, endpoint: EndpointChrome) -> None:
    urls = [
        server.set_page(f"/basic/{i}", page(f"Page {i}", "<a href=/x>Next</a>")) for i in range(6)
    ]
    results = await collect([*urls, urls[0]], endpoints=[endpoint.http], concurrency=3)
    found = by_url(results)
    assert sorted(found) == sorted(urls)  # the repeated URL is scraped once
    for i, url in enumerate(urls):
        result = found[url]
        assert result.ok, result.error
        assert (result.status, result.title, result.final_url) == (200, f"Page {i}", url)
        assert result.snapshot is not None
        assert f'heading "Page {i}"' in result.snapshot and 'link "Next"' in result.snapshot
        assert result.error is None and result.attempts == 1 and result.elapsed >= 0
        assert server.request_count(f"/basic/{i}") == 1
    decoded = msgspec.json.decode(msgspec.json.encode(results[0]))
    assert decoded == results[0].to_dict()
    assert list(decoded) == [
        *("url", "ok", "final_url", "status", "title", "snapshot", "error", "attempts"),
        *("elapsed", "data"),
    ]


async def test_tabs_are_reused(server: PageServer, endpoint: EndpointChrome) -> None:
    urls = [server.set_page(f"/reuse/{i}", page(f"R{i}")) for i in range(8)]

    async def extract(tab: Tab, snapshot: Snapshot) -> dict[str, Any]:
        return {"target": tab.target_id}

    results = await collect(
        urls, endpoints=[endpoint.http], concurrency=2, per_host=None, extract=extract
    )
    assert all(r.ok for r in results)
    targets = {r.data["target"] for r in results if r.data}
    assert 1 <= len(targets) <= 2  # two tabs served eight pages


class _InFlight:
    """A route that counts requests in flight per host and holds the first ones together."""

    def __init__(self, hold_until: int) -> None:
        self.hold_until = hold_until
        self.lock = threading.Lock()
        self.now: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self.released = False

    async def handler(self, request: web.Request) -> web.StreamResponse:
        host = request.host.rsplit(":", 1)[0]
        with self.lock:
            self.now[host] += 1
            self.peak[host] = max(self.peak[host], self.now[host])
        try:
            for _ in range(1200):  # hold the first group until it is whole (60 s at most)
                if self.released or sum(self.now.values()) >= self.hold_until:
                    break
                await asyncio.sleep(0.05)
            self.released = True
            await asyncio.sleep(0.2)  # a third page of a host would arrive meanwhile
        finally:
            with self.lock:
                self.now[host] -= 1
        return web.Response(
            text=page("Counted"), content_type="text/html", headers={"Cache-Control": "no-store"}
        )


async def test_per_host_limits_pages_of_one_host(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    counter = _InFlight(hold_until=4)  # two per host, two hosts
    server.set_route("/counted", counter.handler)
    urls = [server.url(f"/counted?i={i}") for i in range(4)]
    urls += [server.cross_url(f"/counted?i={i}") for i in range(4)]
    results = await collect(urls, endpoints=[endpoint.http], concurrency=6, per_host=2)
    assert all(r.ok for r in results) and len(results) == 8
    assert counter.peak == {"127.0.0.1": 2, "localhost": 2}


async def test_without_per_host_limit_the_concurrency_is_the_limit(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    counter = _InFlight(hold_until=3)
    server.set_route("/counted", counter.handler)
    urls = [server.url(f"/counted?i={i}") for i in range(6)]
    results = await collect(urls, endpoints=[endpoint.http], concurrency=3, per_host=None)
    assert all(r.ok for r in results)
    assert counter.peak == {"127.0.0.1": 3}


async def test_retries_then_ok_or_error_with_the_last_page(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    hits = Counter[str]()

    async def flaky(request: web.Request) -> web.StreamResponse:
        hits[request.path] += 1
        headers = {"Cache-Control": "no-store"}
        if request.path == "/flaky" and hits[request.path] > 2:
            return web.Response(text=page("Flaky"), content_type="text/html", headers=headers)
        return web.Response(
            text=page("Down"), status=503, content_type="text/html", headers=headers
        )

    flaky_url = server.set_route("/flaky", flaky)
    down_url = server.set_route("/down", flaky)
    results = by_url(await collect([flaky_url], endpoints=[endpoint.http], retries=2))
    assert results[flaky_url].ok and results[flaky_url].attempts == 3
    assert results[flaky_url].status == 200 and hits["/flaky"] == 3

    results = by_url(await collect([down_url], endpoints=[endpoint.http], retries=1))
    down = results[down_url]
    assert not down.ok and down.attempts == 2 and hits["/down"] == 2
    assert down.status == 503 and down.error == "HTTP 503 Service Unavailable"
    assert down.title == "Down" and down.snapshot is not None  # the last page is kept


async def test_http_404_is_not_retried(server: PageServer, endpoint: EndpointChrome) -> None:
    url = server.set_page("/missing", page("Not here"), status=404)
    (result,) = await collect([url], endpoints=[endpoint.http], retries=2)
    assert not result.ok and result.status == 404 and result.error == "HTTP 404 Not Found"
    assert result.attempts == 1 and server.request_count("/missing") == 1


async def test_extract_goes_into_the_record_and_its_errors_do_not_stop_the_run(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    good = server.set_page("/x/good", page("Good", "<p class=price>12.50</p>"))
    boom = server.set_page("/x/boom", page("Boom"))
    not_json = server.set_page("/x/set", page("Set"))
    not_dict = server.set_page("/x/list", page("List"))

    async def extract(tab: Tab, snapshot: Snapshot) -> Any:
        if tab.url == boom:
            raise ValueError("no price on this page")
        if tab.url == not_json:
            return {"tags": {1}, "when": object()}
        if tab.url == not_dict:
            return ["a"]
        price = await tab.evaluate("document.querySelector('.price').textContent")
        return {"price": price, "lines": len(snapshot.text.splitlines())}

    results = by_url(
        await collect([good, boom, not_json, not_dict], endpoints=[endpoint.http], extract=extract)
    )
    lines = len((results[good].snapshot or "").splitlines())
    assert results[good].ok and results[good].data == {"price": "12.50", "lines": lines}
    assert results[good].data == msgspec.json.decode(msgspec.json.encode(results[good]))["data"]
    assert results[boom].error == "extract failed: ValueError: no price on this page"
    assert results[boom].title == "Boom" and results[boom].data is None
    assert results[boom].attempts == 1  # user code is not retried
    assert (results[not_json].error or "").startswith(
        "extract returned a value that is not JSON: Encoding objects of type object"
    )
    assert results[not_dict].error == "extract must return a dict, not list"
    assert not any(results[url].ok for url in (boom, not_json, not_dict))


async def test_the_snapshot_of_each_page_starts_no_mirror(
    server: PageServer, endpoint: EndpointChrome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One snapshot per page: read in full, with no accessibility-tree mirror
    (and its background crawl) started, even where every page would get one."""
    monkeypatch.setenv("KOBROWSER_AX_MIRROR", "always")
    url = server.set_page("/x/mirror", page("Mirror", "<p>text</p>" * 50))

    async def extract(tab: Tab, snapshot: Snapshot) -> Any:
        policy = tab._snapshotter.mirror  # type: ignore[attr-defined]
        assert policy.enabled  # the mirror would be used...
        return {"mirror": policy.mirror is not None}  # ...but none was started

    [result] = await collect([url], endpoints=[endpoint.http], extract=extract)
    assert result.ok and result.data == {"mirror": False}, result


async def test_a_crashed_tab_is_replaced_and_the_page_retried(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    urls = [server.set_page(f"/crash/{i}", page(f"C{i}")) for i in range(3)]
    crashed: list[Tab] = []

    async def extract(tab: Tab, snapshot: Snapshot) -> dict[str, Any]:
        if tab.url == urls[1] and not crashed:
            crashed.append(tab)
            await tab.cdp.send("Page.crash")
        return {"target": tab.target_id}

    results = by_url(await collect(urls, endpoints=[endpoint.http], concurrency=1, extract=extract))
    assert all(r.ok for r in results.values()), [r.error for r in results.values()]
    assert results[urls[1]].attempts == 2 and crashed and crashed[0].closed
    assert results[urls[1]].data is not None
    assert results[urls[1]].data["target"] != crashed[0].target_id  # a new tab


@pytest.mark.browser
async def test_bad_input_each_gets_a_record_and_none_stops_the_run(server: PageServer) -> None:
    first = server.set_page("/bad/first", page("First"))
    last = server.set_page("/bad/last", page("Last"))
    never = server.url("/bad/never")
    server.hold("/bad/never")
    download = server.set_page(
        "/bad/file.zip",
        b"PK" + b"0" * 4000,
        headers={"Content-Disposition": "attachment; filename=file.zip"},
        content_type="application/zip",
    )
    server.set_page("/bad/popped", page("Popped"))
    popups = server.set_page(
        "/bad/popups",
        page("Opener", "<script>window.open('/bad/popped'); window.open('/bad/popped')</script>"),
    )
    missing = server.set_page("/bad/missing", page("Missing"), status=404)
    urls = [first, "http://exa mple.com/", "example.com/page", "http://nonexistent.invalid/"]
    urls += [never, download, popups, missing, "javascript:alert(1)", last]

    async with Scraper(
        concurrency=4,
        per_host=None,
        timeout=10,  # the never-loading page waits this long
        retries=0,
        args=["--disable-popup-blocking"],  # so the popups really open
    ) as scraper:
        results = by_url([r async for r in scraper.run(urls)])
        (browser,) = scraper.browsers
        assert server.request_count("/bad/popped") >= 1  # the popups did open
        await wait_for(
            lambda: not any(t.url.endswith("/bad/popped") for t in browser.tabs),
            "the popups were not closed",
        )

    assert sorted(results) == sorted(urls)
    assert results[first].ok and results[last].ok
    assert results[popups].ok and results[popups].title == "Opener"  # popups: closed, page ok
    bad = {url: results[url] for url in urls if url not in (first, last, popups)}
    assert not any(r.ok for r in bad.values())
    assert bad["http://exa mple.com/"].error == (
        "malformed URL: it contains whitespace or control characters"
    )
    assert bad["example.com/page"].error == "malformed URL: no scheme (write http:// or https://)"
    assert bad["javascript:alert(1)"].error is not None
    assert "unsupported URL scheme 'javascript'" in bad["javascript:alert(1)"].error
    assert all(bad[u].attempts == 0 for u in ("http://exa mple.com/", "example.com/page"))
    dns = bad["http://nonexistent.invalid/"]
    assert dns.error == "DNS lookup failed: no such host (ERR_NAME_NOT_RESOLVED)"
    assert dns.attempts == 1
    assert bad[never].error is not None and "did not finish loading" in bad[never].error
    assert "'load'" in bad[never].error and "10 s" in bad[never].error
    assert bad[download].error == (
        f"the URL is a download, not a page ('file.zip' from {download})"
    )
    assert bad[missing].status == 404 and bad[missing].error == "HTTP 404 Not Found"


async def test_an_error_of_the_url_iterable_stops_the_run_and_is_raised(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    first = server.set_page("/it/first", page("First"))

    def urls() -> Iterable[object]:
        yield first
        yield 42

    seen: list[ScrapeResult] = []
    with pytest.raises(TypeError, match="urls must give strings, not int: 42"):
        async with kobrowser.scrape(urls(), endpoints=[endpoint.http]) as results:  # type: ignore[arg-type]
            async for result in results:
                seen.append(result)
    assert all(r.url == first for r in seen)
    with pytest.raises(TypeError, match="not a single string"):
        async with kobrowser.scrape(first, endpoints=[endpoint.http]) as results:
            async for _ in results:
                pass


async def test_scrape_must_be_used_with_async_with() -> None:
    results = kobrowser.scrape(["http://127.0.0.1/"])
    with pytest.raises(TypeError, match=r"async with kobrowser\.scrape"):
        async for _ in results:
            pass


def test_kobrowser_scrape_is_callable_even_after_the_package_is_imported() -> None:
    import kobrowser.scrape as package

    assert callable(kobrowser.scrape) and callable(package)
    assert isinstance(package(["http://127.0.0.1/"]), kobrowser.scrape.Scrape)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"concurrency": 0}, "concurrency"),
        ({"per_host": 0}, "per_host"),
        ({"retries": -1}, "retries"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": float("inf")}, "timeout"),
        ({"timeout": float("nan")}, "timeout"),
        ({"concurrency": True}, "concurrency"),
        ({"wait_until": "idle"}, "wait_until"),
        ({"endpoints": []}, "endpoints"),
        ({"endpoints": ["127.0.0.1:9"], "browsers": 2}, "not both"),
        ({"extract": "title"}, "extract"),
    ],
)
def test_bad_options_raise_value_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(kobrowser.InvalidArgumentError, match=message) as info:
        Scraper(**options)
    assert isinstance(info.value, ValueError)


async def test_text_limit_passes_through(server: PageServer, endpoint: EndpointChrome) -> None:
    long = "word " * 40
    url = server.set_page("/long", page("Long", f"<p>{long}</p>"))
    (whole,) = await collect([url], endpoints=[endpoint.http], text_limit=None)
    assert whole.ok and long.strip() in (whole.snapshot or "")
    (cut,) = await collect([url], endpoints=[endpoint.http], text_limit=12)
    assert cut.ok and 'text "word word..."' in (cut.snapshot or "")
    for bad in (0, 3, 4.5, "80"):
        with pytest.raises(ValueError, match="text_limit"):
            Scraper(text_limit=bad)  # type: ignore[arg-type]


@pytest.mark.browser
@pytest.mark.both_backends
async def test_cancelling_closes_every_browser_and_task(server: PageServer) -> None:
    server.hold("/cancel/slow")
    urls = [server.url(f"/cancel/slow?i={i}") for i in range(4)]
    pids: list[int] = []
    tasks_before = set(asyncio.all_tasks()) if _on_asyncio() else set()

    async def consume(task_status: anyio.abc.TaskStatus[None]) -> None:
        async with Scraper(browsers=2, concurrency=4, per_host=None, timeout=TIMEOUT) as s:
            await wait_for(lambda: len(s.browsers) == 2, "the browsers did not start")
            pids.extend(b.pid for b in s.browsers if b.pid is not None)
            task_status.started()
            async for _ in s.run(urls):
                raise AssertionError("no page can finish")

    async with anyio.create_task_group() as tg:
        await tg.start(consume)
        await wait_for(lambda: server.request_count("/cancel/slow") >= 2, "no page started")
        tg.cancel_scope.cancel()

    assert len(pids) == 2
    for pid in pids:
        await wait_for(lambda pid=pid: not live_group_members(pid), f"Chrome {pid} lives on")
        assert not pid_alive(pid)
    if _on_asyncio():
        await anyio.lowlevel.checkpoint()
        assert set(asyncio.all_tasks()) - tasks_before == set()


async def test_break_cancels_the_run_and_closes_its_tabs(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    fast = server.set_page("/brk/fast", page("Fast"))
    server.hold("/brk/slow")  # per_host=None: the fast page must not queue behind these
    slow = [server.url(f"/brk/slow?i={i}") for i in range(2)]
    async with Scraper(
        endpoints=[endpoint.http], concurrency=3, per_host=None, timeout=HELD_TIMEOUT
    ) as scraper:
        async for result in scraper.run([*slow, fast]):
            assert result.url == fast
            await wait_for(lambda: server.request_count("/brk/slow") == 2, "pages did not start")
            break
        (browser,) = scraper.browsers
        # The slow pages' tabs are closed; the fast page's tab stays idle for reuse.
        await wait_for(lambda: len(browser.tabs) <= 1 + _blank_tabs(browser), "tabs left open")
        results = [r async for r in scraper.run([fast])]  # the Scraper still works
        assert [r.ok for r in results] == [True]


async def test_aclose_of_a_run_stops_it(server: PageServer, endpoint: EndpointChrome) -> None:
    fast = server.set_page("/acl/fast", page("Fast"))
    server.hold("/acl/slow")
    slow = [server.url(f"/acl/slow?i={i}") for i in range(2)]
    async with Scraper(
        endpoints=[endpoint.http], concurrency=3, per_host=None, timeout=HELD_TIMEOUT
    ) as scraper:
        run = scraper.run([*slow, fast])
        assert (await run.__anext__()).url == fast
        await wait_for(lambda: server.request_count("/acl/slow") == 2, "pages did not start")
        await run.aclose()
        (browser,) = scraper.browsers
        await wait_for(lambda: len(browser.tabs) <= 1 + _blank_tabs(browser), "tabs left open")


async def test_cancelling_the_consumer_stops_the_run(
    server: PageServer, endpoint: EndpointChrome
) -> None:
    server.hold("/cc/slow")
    async with Scraper(endpoints=[endpoint.http], concurrency=2, timeout=TIMEOUT) as scraper:
        run = scraper.run([server.url("/cc/slow?i=1"), server.url("/cc/slow?i=2")])
        async with anyio.create_task_group() as tg:

            async def consume() -> None:
                async for _ in run:
                    raise AssertionError("no page can finish")

            tg.start_soon(consume)
            await wait_for(lambda: server.request_count("/cc/slow") == 2, "pages did not start")
            tg.cancel_scope.cancel()
        (browser,) = scraper.browsers
        await wait_for(lambda: len(browser.tabs) <= _blank_tabs(browser), "tabs left open")


def _blank_tabs(browser: kobrowser.Browser) -> int:
    """Tabs of the endpoint browser that are not the scraper's (its start page)."""
    return sum(1 for tab in browser.tabs if tab.context is None)


def _on_asyncio() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
