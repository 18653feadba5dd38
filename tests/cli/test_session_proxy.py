"""`ko-browser --proxy URL --block TYPES ...`: how a session's browser is launched."""

from __future__ import annotations

import pytest
from _proxy import TestProxy
from _server import PageServer

from .conftest import Ko

pytestmark = pytest.mark.browser


def test_a_session_through_a_proxy_with_a_login_and_blocks(ko: Ko, server: PageServer) -> None:
    server.set_page("/sp/pic.png", b"\x89PNG\r\n\x1a\n", content_type="image/png")
    server.set_page("/sp/page.html", "<title>Session proxy</title><img src=/sp/pic.png>")
    with TestProxy(server.port, username="u", password="hunter2") as proxy:
        url = proxy.url.replace("http://", "http://u:hunter2@")
        opened = ko("--proxy", url, "--block", "Image", "open", "http://site.test/sp/page.html")
        assert opened.returncode == 0, opened.stderr
        assert ko.ok("get", "title").strip() == "Session proxy"
        pages = [r.path for r in proxy.requests if r.authorized and r.path.startswith("/sp/")]
        assert pages == ["/sp/page.html"]  # the image is blocked
        status = ko.status("default")
        assert status["block"] == "image"
        assert status["proxy"] == proxy.url.replace("http://", "http://u:***@")
        # The password is on no command line of the session's processes.
        for pid in ko.runtime.processes():
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                assert b"hunter2" not in file.read()
        # Another proxy for the running session: refused, the password not echoed.
        other = ko("--proxy", "http://v:other-secret@p.example:1", "get", "title")
        assert other.returncode == 1
        assert "already running with --proxy" in other.stderr
        assert "hunter2" not in other.stderr and "other-secret" not in other.stderr


def test_proxy_and_cdp_do_not_go_together(ko: Ko) -> None:
    result = ko("--proxy", "http://p.example:1", "--cdp", "127.0.0.1:1", "open", "about:blank")
    assert result.returncode == 2 and "--proxy goes with a browser the session launches" in (
        result.stderr
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--proxy", "gopher://u:hunter2@p.example"], "scheme must be one of"),
        (["--block", "pictures"], "unknown resource type 'pictures'"),
    ],
)
def test_bad_session_options_are_usage_errors(ko: Ko, option: list[str], message: str) -> None:
    result = ko(*option, "open", "about:blank")
    assert result.returncode == 2 and message in result.stderr
    assert "hunter2" not in result.stderr
