"""`ko-browser network`, `console` and `errors` end to end (real daemon and Chromium)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from _server import PageServer

from ..conftest import Ko

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

pytestmark = pytest.mark.timeout(300)

_PAGE = """<title>net</title>
<img id=i src="/cli-net/pic.png">
<script>
console.log('hello from the page');
console.warn('careful');
setTimeout(() => { throw new TypeError('cli boom'); }, 0);
window.imageState = () => new Promise(resolve => {
  const img = document.getElementById('i');
  const report = () => resolve(img.naturalWidth > 0 ? 'loaded' : 'failed');
  if (img.complete) report(); else { img.onload = report; img.onerror = report; }
});
</script>"""


@pytest.mark.shared_session
def test_block_route_requests(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    server.set_page("/cli-net/pic.png", PNG, content_type="image/png")
    url = server.set_page("/cli-net/page.html", _PAGE)
    ko.ok("open", url)
    assert ko.ok("network", "block", "--types", "image,font") == "blocking types image,font\n"
    ko.ok("reload")
    assert ko.ok("eval", "imageState()") == "failed\n"
    listed = ko.ok("network", "requests", "--filter", "pic.png")
    assert listed.splitlines()[-1].startswith(
        "FAILED net::ERR_BLOCKED_BY_CLIENT.Inspector  GET image"
    )
    assert server.request_count("/cli-net/pic.png") == 1  # the first load only
    assert ko.ok("network", "unblock") == "removed 1 block(s)\n"
    ko.ok("reload")
    assert ko.ok("eval", "imageState()") == "loaded\n"

    body = tmp_path / "data.json"
    body.write_text('{"mocked": true}')
    out = ko.ok(
        "network", "route", "**/api/data", "--body", str(body), "--status", "201",
        "--content-type", "application/json", "--header", "X-Mock: yes",
    )  # fmt: skip
    assert out == "**/api/data: answer 201 (16 bytes)\n"
    fetched = ko.ok(
        "eval",
        "fetch('/api/data').then(r => r.text().then(t =>"
        " [r.status, r.headers.get('content-type'), r.headers.get('x-mock'), t].join(' ')))",
    )
    assert fetched == '201 application/json yes {"mocked": true}\n'
    assert server.request_count("/api/data") == 0
    ko.ok("network", "route", "--regex", r"/gone$", "--abort", "connectionrefused")
    failed = ko.ok("eval", "fetch('/gone').then(() => 'ok', e => 'failed')")
    assert failed == "failed\n"
    records = ko.json("network", "requests", "--filter", "/gone")["result"]["requests"]
    assert records[-1]["failure"] == "net::ERR_CONNECTION_REFUSED"
    assert ko.ok("network", "unroute", "--regex", r"/gone$") == "removed 1 route(s)\n"
    assert ko.ok("network", "unroute") == "removed 1 route(s)\n"
    ko.ok("network", "requests", "--clear")
    assert ko.ok("network", "requests") == "no requests\n"


@pytest.mark.shared_session
def test_console_and_errors(ko: Ko, server: PageServer) -> None:
    server.set_page("/cli-net/pic.png", PNG, content_type="image/png")
    url = server.set_page("/cli-net/console.html", _PAGE)
    ko.ok("open", url)
    ko.ok("wait", "--fn", "true")
    out = ko.ok("console")
    assert f"[log] hello from the page  ({url}:4)" in out
    assert "[warning] careful" in out
    assert ko.ok("console", "--level", "warning").startswith("[warning] careful")
    errors = ko.json("errors")["result"]["errors"]
    assert [(e["name"], e["message"]) for e in errors] == [("TypeError", "cli boom")]
    assert ko.ok("errors").startswith("TypeError: cli boom")
    ko.ok("console", "--clear")
    assert ko.ok("console") == "no console messages\n"
    assert ko.ok("errors") == "no errors\n"


@pytest.mark.shared_session
def test_bad_usage(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    ko.ok("open", server.set_page("/cli-net/bad.html", "<title>bad</title>"))
    nothing = ko("network", "route", "**/x")
    assert nothing.returncode == 2 and "needs --abort, or an answer" in nothing.stderr
    both = ko("network", "route", "**/x", "--abort", "--status", "200")
    assert both.returncode == 2
    missing = ko("network", "route", "**/x", "--body", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    types = ko("network", "block", "--types", "pictures")
    assert types.returncode == 2 and "unknown resource type 'pictures'" in types.stderr
    reason = ko("network", "route", "**/x", "--abort", "sideways")
    assert reason.returncode == 2 and "unknown abort reason" in reason.stderr
    glob = ko("network", "route", "**/{x", "--abort")
    assert glob.returncode == 2 and "unclosed" in glob.stderr
    assert json.loads(ko.ok("--json", "network", "unroute"))["result"] == {"removed": 0}
