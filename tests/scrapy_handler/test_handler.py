"""kobrowser.scrapy.DownloadHandler in real Scrapy crawls of pages served on 127.0.0.1.

Scrapy's reactor is process-global, so every crawl runs in a subprocess
(``_crawl.py``, as scrapy-playwright's tests do) against the session's page
server, which runs in this process. Most checks read the records of one
crawl that loads every kind of page (``main``); the others need a crawl of
their own (other settings, pages held while the test watches).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _server import PageServer
from aiohttp import web

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CRAWL = Path(__file__).resolve().parent / "_crawl.py"
#: Seconds a crawl subprocess may take before the test fails (the machine is shared).
CRAWL_TIMEOUT = 240.0
#: ``download_timeout`` of the page that never answers.
HELD_TIMEOUT = 3
NAVIGATION_ERROR = "kobrowser._exceptions.NavigationError"
INVALID_ARGUMENT = "kobrowser._exceptions.InvalidArgumentError"

JS_PAGE = """<!doctype html><title>Made by JS</title><div id="raw">in the HTML</div>
<script>
const p = document.createElement("p");
p.id = "made";
p.textContent = ["made", "by", "script"].join(" ");
document.body.append(p);
const a = document.createElement("a");
a.href = "/scrapy/next.html";
a.textContent = "to the next page";
document.body.append(a);
</script>"""
LONG_NAME = "A heading whose name is much longer than twenty code points"


class Crawl:
    """The outcome of one crawl: its records, kobrowser stats, stderr and leftover children."""

    def __init__(self, result: dict[str, Any], stderr: str) -> None:
        self.records: list[dict[str, Any]] = result["records"]
        self.stats: dict[str, Any] = result["stats"]
        self.children: list[str] = result["children"]
        self.result = result
        self.stderr = stderr

    def of(self, url: str) -> dict[str, Any]:
        """The one record of the request for ``url``."""
        found = [r for r in self.records if r["request_url"] == url]
        assert len(found) == 1, (url, found, self.stderr[-3000:])
        return found[0]

    def response(self, url: str, **match: Any) -> dict[str, Any]:
        found = [
            r
            for r in self.records
            if r["kind"] == "response"
            and r["request_url"] == url
            and all(r.get(k) == v for k, v in match.items())
        ]
        assert len(found) == 1, (url, match, self.records, self.stderr[-3000:])
        return found[0]


def write_job(tmp: Path, requests: list[dict[str, Any]], **job: Any) -> Path:
    path = tmp / "job.json"
    path.write_text(json.dumps({"requests": requests, "out": str(tmp / "out.json"), **job}))
    return path


def start_crawl(tmp: Path, requests: list[dict[str, Any]], **job: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CRAWL), str(write_job(tmp, requests, **job))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish_crawl(tmp: Path, process: subprocess.Popen[str]) -> Crawl:
    try:
        _, stderr = process.communicate(timeout=CRAWL_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
        pytest.fail(f"the crawl did not end within {CRAWL_TIMEOUT:g} s:\n{stderr[-5000:]}")
    assert process.returncode == 0, stderr[-5000:]
    return Crawl(json.loads((tmp / "out.json").read_text()), stderr)


def crawl(tmp: Path, requests: list[dict[str, Any]], **job: Any) -> Crawl:
    return finish_crawl(tmp, start_crawl(tmp, requests, **job))


def closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def user_agent(request: web.Request) -> web.Response:
    agent = request.headers.get("User-Agent", "")
    return web.Response(
        text=f"<title>agent</title><p id=agent>{agent}</p>", content_type="text/html"
    )


# -- one crawl of every kind of page ----------------------------------------------


@pytest.fixture(scope="module")
def main(server: PageServer, tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    server.set_page("/scrapy/js.html", JS_PAGE)
    server.set_page("/scrapy/next.html", "<title>Next</title><h1>the next page</h1>")
    server.set_page("/scrapy/target.html", "<title>Target</title><h1>redirected here</h1>")
    server.set_page("/scrapy/redirect", "", status=302, headers={"Location": "/scrapy/target.html"})
    server.set_page("/scrapy/missing.html", "<title>Gone</title><h1>no such page</h1>", status=404)
    server.set_page(
        "/scrapy/long.html",
        f"<title>Long</title><h1>{LONG_NAME}</h1><button>Press</button>",
    )
    server.set_page("/scrapy/proxied.html", "<title>Proxied</title><h1>through the proxy</h1>")
    server.set_route("/scrapy/agent", user_agent)
    held = server.hold("/scrapy/held.html")
    dead = f"http://127.0.0.1:{closed_port()}/nothing.html"
    kob = {"kobrowser": True}
    requests: list[dict[str, Any]] = [
        {"url": server.url("/scrapy/js.html"), "meta": kob, "follow": True},
        {"url": server.url("/scrapy/js.html")},  # Scrapy's own handler
        {"url": server.url("/scrapy/agent"), "meta": kob},
        {"url": server.url("/scrapy/agent")},
        {"url": server.url("/scrapy/redirect"), "meta": kob},
        {"url": server.url("/scrapy/missing.html"), "meta": {**kob, "handle_httpstatus_all": True}},
        {"url": dead, "meta": kob},
        {"url": server.url("/scrapy/held.html"), "meta": {**kob, "download_timeout": HELD_TIMEOUT}},
        {"url": server.url("/scrapy/long.html"), "meta": kob},
        {
            "url": server.url("/scrapy/long.html?interactive"),
            "meta": {**kob, "kobrowser_snapshot_options": {"interactive": True}},
        },
        {
            "url": server.url("/scrapy/long.html?none"),
            "meta": {**kob, "kobrowser_snapshot_options": False},
        },
        {
            "url": server.url("/scrapy/long.html?soon"),
            "meta": {**kob, "kobrowser_wait_until": "soon"},
        },
        {"url": server.url("/scrapy/long.html?post"), "meta": kob, "method": "POST"},
        # Loopback is never proxied; a made-up host is, and only the proxy can serve it.
        {"url": "http://proxied.invalid/scrapy/proxied.html", "meta": kob},
    ]
    settings = {
        "KOBROWSER_CONCURRENCY": 3,
        "KOBROWSER_TEXT_LIMIT": 20,
        "KOBROWSER_PROXY": server.origin,
    }
    try:
        return crawl(tmp_path_factory.mktemp("main"), requests, settings=settings)
    finally:
        held.release()


def test_rendered_html_is_the_page_after_its_scripts(main: Crawl, server: PageServer) -> None:
    record = main.response(server.url("/scrapy/js.html"), followed_from=None, flags=["kobrowser"])
    assert record["status"] == 200
    assert record["url"] == server.url("/scrapy/js.html")
    body = record["body"]
    assert body.startswith("<!DOCTYPE html>\n<html>")
    assert '<p id="made">made by script</p>' in body
    assert '<a href="/scrapy/next.html">to the next page</a>' in body
    snapshot = record["snapshot"]
    assert snapshot.startswith('Page: "Made by JS"')
    assert 'text "made by script"' in snapshot
    assert 'link "to the next page"' in snapshot


def test_a_request_without_the_meta_goes_through_scrapys_own_handler(
    main: Crawl, server: PageServer
) -> None:
    raw = main.response(server.url("/scrapy/js.html"), flags=[])
    assert raw["body"] == JS_PAGE  # as served: no element made by the script
    assert 'id="made"' not in raw["body"]
    assert not raw["has_snapshot_key"]
    scrapy_agent = main.response(server.url("/scrapy/agent"), flags=[])["body"]
    chrome_agent = main.response(server.url("/scrapy/agent"), flags=["kobrowser"])["body"]
    assert "Scrapy/" in scrapy_agent and "Chrome/" not in scrapy_agent
    assert "Chrome/" in chrome_agent and "Scrapy/" not in chrome_agent


def test_a_link_of_the_rendered_page_is_followed(main: Crawl, server: PageServer) -> None:
    # The link exists only in the rendered page: Scrapy's handler never sees it.
    record = main.response(server.url("/scrapy/next.html"))
    assert record["followed_from"] == server.url("/scrapy/js.html")
    assert record["flags"] == ["kobrowser"]
    assert "<h1>the next page</h1>" in record["body"]
    assert record["snapshot"].startswith('Page: "Next"')


def test_a_redirect_gives_the_final_url(main: Crawl, server: PageServer) -> None:
    record = main.of(server.url("/scrapy/redirect"))
    assert record["kind"] == "response"
    assert record["url"] == server.url("/scrapy/target.html")
    assert record["status"] == 200
    assert "<h1>redirected here</h1>" in record["body"]


def test_the_status_is_the_documents_http_status(main: Crawl, server: PageServer) -> None:
    record = main.of(server.url("/scrapy/missing.html"))
    assert record["kind"] == "response"
    assert record["status"] == 404
    assert "<h1>no such page</h1>" in record["body"]
    assert main.stats["kobrowser/response_status_count/404"] == 1


def test_a_dead_port_fails_the_request_with_the_kobrowser_error(main: Crawl) -> None:
    dead = [r for r in main.records if "/nothing.html" in (r["request_url"] or "")]
    assert len(dead) == 1
    assert dead[0]["kind"] == "failure"
    assert dead[0]["type"] == NAVIGATION_ERROR
    assert "ERR_CONNECTION_REFUSED" in dead[0]["message"]


def test_a_page_that_never_answers_fails_at_its_download_timeout(
    main: Crawl, server: PageServer
) -> None:
    record = main.of(server.url("/scrapy/held.html"))
    assert record["kind"] == "failure"
    assert record["type"] == "kobrowser._exceptions.WaitTimeoutError"


def test_snapshot_text_limit_and_per_request_options(main: Crawl, server: PageServer) -> None:
    default = main.of(server.url("/scrapy/long.html"))["snapshot"]
    # Cut at KOBROWSER_TEXT_LIMIT = 20 code points (the mark included).
    assert '1: heading "A heading whose n..."' in default
    assert LONG_NAME not in default
    assert 'button "Press"' in default
    interactive = main.of(server.url("/scrapy/long.html?interactive"))["snapshot"]
    assert 'button "Press"' in interactive
    assert "heading" not in interactive
    none = main.of(server.url("/scrapy/long.html?none"))
    assert none["snapshot"] is None and none["has_snapshot_key"]
    assert "<button>Press</button>" in none["body"]


def test_bad_meta_and_methods_fail_their_request_only(main: Crawl, server: PageServer) -> None:
    soon = main.of(server.url("/scrapy/long.html?soon"))
    assert (soon["kind"], soon["type"]) == ("failure", INVALID_ARGUMENT)
    assert soon["message"].startswith("kobrowser_wait_until: got 'soon'")
    post = main.of(server.url("/scrapy/long.html?post"))
    assert (post["kind"], post["type"]) == ("failure", INVALID_ARGUMENT)
    assert "only GET requests" in post["message"]


def test_the_proxy_setting_reaches_chrome(main: Crawl) -> None:
    record = main.of("http://proxied.invalid/scrapy/proxied.html")
    assert record["kind"] == "response", record
    assert record["url"] == "http://proxied.invalid/scrapy/proxied.html"
    assert "<h1>through the proxy</h1>" in record["body"]


def test_one_browser_closed_when_the_crawl_ends(main: Crawl) -> None:
    assert main.stats["kobrowser/browser_count"] == 1
    assert main.stats["kobrowser/tab_count/max_concurrent"] <= 3
    assert main.children == []  # Chrome was closed and reaped


# -- crawls of their own ---------------------------------------------------------


def test_concurrency_holds_the_tabs_in_use(server: PageServer, tmp_path: Path) -> None:
    paths = [f"/scrapy/slow{i}.html" for i in range(4)]
    gates = []
    for path in paths:
        server.set_page(path, f"<title>{path}</title>")
        gates.append(server.hold(path))
    process = start_crawl(
        tmp_path,
        [{"url": server.url(path), "meta": {"kobrowser": True}} for path in paths],
        settings={"KOBROWSER_CONCURRENCY": 2, "CONCURRENT_REQUESTS": 8},
    )
    try:
        deadline = time.monotonic() + CRAWL_TIMEOUT
        while sum(gate.waiting for gate in gates) < 2 and process.poll() is None:
            assert time.monotonic() < deadline, "two pages never reached the server"
            time.sleep(0.05)
    finally:
        for gate in gates:
            gate.release()
    result = finish_crawl(tmp_path, process)
    assert sorted(r["request_url"] for r in result.records if r["kind"] == "response") == sorted(
        server.url(path) for path in paths
    )
    assert result.stats["kobrowser/tab_count/max_concurrent"] == 2


def test_a_bad_setting_is_a_clear_error_at_start_up(server: PageServer, tmp_path: Path) -> None:
    server.set_page("/scrapy/page.html", "<title>page</title>")
    result = crawl(
        tmp_path,
        [{"url": server.url("/scrapy/page.html"), "meta": {"kobrowser": True}}],
        settings={"KOBROWSER_CONCURRENCY": 0},
    )
    assert "InvalidArgumentError: KOBROWSER_CONCURRENCY: got 0; expected a whole number >= 1" in (
        result.stderr
    )
    [record] = result.records
    assert record["type"] == "scrapy.exceptions.NotSupported"
    assert "KOBROWSER_CONCURRENCY" in record["message"]
    assert result.children == []


def test_another_reactor_is_a_clear_error(server: PageServer, tmp_path: Path) -> None:
    server.set_page("/scrapy/page.html", "<title>page</title>")
    result = crawl(
        tmp_path,
        [{"url": server.url("/scrapy/page.html"), "meta": {"kobrowser": True}}],
        settings={"TWISTED_REACTOR": "twisted.internet.selectreactor.SelectReactor"},
    )
    assert "TWISTED_REACTOR: kobrowser.scrapy.DownloadHandler runs on Scrapy's asyncio reactor" in (
        result.stderr
    )
    assert "SelectReactor" in result.stderr
    [record] = result.records
    assert record["type"] == "scrapy.exceptions.NotSupported"
    assert "TWISTED_REACTOR" in record["message"]


def test_driven_by_twisted_coroutines_relaunched_and_closed_directly(
    server: PageServer, tmp_path: Path
) -> None:
    server.set_page("/scrapy/direct.html", JS_PAGE)
    server.set_page("/scrapy/again.html", "<title>Again</title><h1>a new browser</h1>")
    kob = {"kobrowser": True}
    result = crawl(
        tmp_path,
        [
            {"url": server.url("/scrapy/direct.html"), "meta": kob, "kill_browser_after": True},
            {"url": server.url("/scrapy/again.html"), "meta": kob},
        ],
        mode="direct",
    )
    first, second = result.records
    assert first["kind"] == "response", first
    assert '<p id="made">made by script</p>' in first["body"]
    # The killed browser is replaced on the next request.
    assert second["kind"] == "response", second
    assert "<h1>a new browser</h1>" in second["body"]
    assert result.stats["kobrowser/browser_count"] == 2
    [killed] = result.result["killed_pids"]
    pid = result.result["browser_pid"]
    assert pid is not None and pid != killed
    assert result.result["closed_pool_browser"] is True
    assert result.children == []  # both Chromes reaped
    assert not Path(f"/proc/{pid}").exists()
