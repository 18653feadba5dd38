"""The shared access rules of the live view and MCP over HTTP (pure)."""

from __future__ import annotations

from kobrowser.view._access import (
    http_access_problem,
    is_loopback,
    local_request_problem,
    token_matches,
)

TOKEN = "0123456789abcdef-token"


def test_off_loopback_needs_a_long_enough_token() -> None:
    assert http_access_problem(None, None, "ENV") is None
    assert http_access_problem("127.0.0.5", None, "ENV") is None
    assert http_access_problem("::1", None, "ENV") is None
    problem = http_access_problem("0.0.0.0", None, "KOBROWSER_VIEW_TOKEN")
    assert problem is not None and "KOBROWSER_VIEW_TOKEN" in problem
    assert http_access_problem("0.0.0.0", TOKEN, "ENV") is None
    short = http_access_problem("0.0.0.0", "short", "ENV")
    assert short is not None and "16 characters" in short
    assert is_loopback("::ffff:127.0.0.1") and not is_loopback("10.0.0.1")


def test_the_token_comes_as_a_bearer_header_or_a_query_value() -> None:
    assert token_matches(TOKEN, f"Bearer {TOKEN}", None)
    assert token_matches(TOKEN, None, TOKEN)
    assert not token_matches(TOKEN, None, None)
    assert not token_matches(TOKEN, TOKEN, None)  # not a bearer header
    assert not token_matches(TOKEN, f"Bearer {TOKEN}x", TOKEN[:-1])
    assert not token_matches(TOKEN, "Bearer é", "é")  # non-ASCII is simply wrong


def test_on_loopback_host_and_origin_must_be_this_server() -> None:
    assert local_request_problem("127.0.0.1:8123", None, 8123) is None
    assert local_request_problem("localhost:8123", "http://localhost:8123", 8123) is None
    assert local_request_problem("[::1]:8123", "null", 8123) is None
    assert local_request_problem(None, None, 8123) == "no Host header"
    assert "Host" in (local_request_problem("evil.example:8123", None, 8123) or "")
    assert "Host" in (local_request_problem("127.0.0.1:9999", None, 8123) or "")
    assert "Origin" in (local_request_problem("127.0.0.1:8123", "http://evil.example", 8123) or "")
    assert "Origin" in (
        local_request_problem("127.0.0.1:8123", "https://127.0.0.1:8123", 8123) or ""
    )
