"""Policy.refusal on built URLs: schemes, block and allow patterns, the file directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from kobrowser import InvalidArgumentError, Policy


def test_the_default_refuses_local_and_browser_schemes_and_allows_the_web() -> None:
    policy = Policy()
    for url in (
        "file:///etc/passwd",
        "chrome://settings",
        "devtools://devtools/bundled/inspector.html",
        "view-source:https://example.com",
        "javascript:alert(1)",
    ):
        assert policy.refusal(url) is not None, url
    assert "allow_file_access" in (policy.refusal("file:///etc/passwd") or "")
    for url in ("https://example.com/a", "http://127.0.0.1:8080/", "about:blank", "data:,x"):
        assert policy.refusal(url) is None, url
    assert policy.allow_evaluate is False
    assert policy.upload_dir is None


def test_block_patterns_match_origins_hosts_and_urls_and_name_the_rule() -> None:
    policy = Policy(block_origins=("http://localhost:*", "*.evil.test", "https://a.test/private/*"))
    refusal = policy.refusal("http://localhost:5000/x")
    assert refusal is not None and "block_origins 'http://localhost:*'" in refusal
    assert policy.refusal("http://127.0.0.1:5000/x") is None  # another origin
    assert policy.refusal("https://www.evil.test/") is not None
    assert policy.refusal("https://evil.test.example/") is None
    assert policy.refusal("https://a.test/private/key") is not None
    assert policy.refusal("https://a.test/public") is None
    # A blob URL belongs to the origin inside it.
    assert policy.refusal("blob:http://localhost:5000/0f8e") is not None
    assert policy.refusal("blob:http://127.0.0.1:5000/0f8e") is None


def test_allow_patterns_refuse_everything_else_and_block_wins() -> None:
    policy = Policy(
        allow_origins=("http://127.0.0.1:*", "https://example.com"),
        block_origins=("http://127.0.0.1:9",),
    )
    assert policy.refusal("http://127.0.0.1:8000/") is None
    assert policy.refusal("https://example.com/page") is None  # default port
    assert policy.refusal("https://example.com:8443/") is not None
    refusal = policy.refusal("http://localhost:8000/")
    assert refusal is not None and "allow_origins" in refusal
    assert "block_origins" in (policy.refusal("http://127.0.0.1:9/") or "")
    assert policy.refusal("about:blank") is None


def test_file_access_is_limited_to_one_directory(tmp_path: Path) -> None:
    inside = tmp_path / "site" / "a.html"
    inside.parent.mkdir()
    inside.write_text("x")
    (tmp_path / "site" / "escape.html").symlink_to(tmp_path / "secret.html")
    policy = Policy(allow_file_access=tmp_path / "site")
    assert policy.refusal(inside.as_uri()) is None
    assert "outside allow_file_access" in (policy.refusal("file:///etc/passwd") or "")
    assert policy.refusal((tmp_path / "site" / "escape.html").as_uri()) is not None
    assert policy.refusal((tmp_path / "site" / ".." / "secret.html").as_uri()) is not None


def test_bad_arguments_are_refused_and_secrets_never_show_in_repr() -> None:
    with pytest.raises(InvalidArgumentError):
        Policy(block_origins=("",))
    with pytest.raises(InvalidArgumentError):
        Policy(secrets={"not a name": "x"})
    with pytest.raises(InvalidArgumentError):
        Policy(secrets={"password": ""})
    policy = Policy(secrets={"password": "hunter2-sekret"})
    assert "hunter2-sekret" not in repr(policy)
    assert "password" in repr(policy)


def test_secrets_are_filled_by_name_and_masked_back() -> None:
    policy = Policy(secrets={"password": "hunter2", "pin": "hunter2-and-more"})
    assert policy.fill_text("{{password}}") == "hunter2"
    assert policy.fill_text("a {{pin}} b {{other}}") == "a hunter2-and-more b {{other}}"
    assert policy.fill_text("no reference") == "no reference"
    # The longest value is masked first, so one secret inside another stays whole.
    assert policy.mask('value="hunter2-and-more" / hunter2') == 'value="{{pin}}" / {{password}}'
    assert Policy().mask("hunter2") == "hunter2"
