"""URL patterns: glob and regex matching, and the Chrome patterns derived from them."""

from __future__ import annotations

import fnmatch
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kobrowser import InvalidArgumentError, Request
from kobrowser._tab._network._patterns import (
    RequestMatcher,
    URLMatcher,
    check_resource_types,
    glob_to_regex,
)


def _request(url: str, kind: str = "image") -> Request:
    return Request(url, "GET", {}, kind)


def _chrome_match(wildcard: str, url: str) -> bool:
    """Chrome's wildcard match (``*`` any run, ``?`` one char, ``\\`` escapes)."""
    regex = ""
    i = 0
    while i < len(wildcard):
        char = wildcard[i]
        if char == "\\" and i + 1 < len(wildcard):
            regex += re.escape(wildcard[i + 1])
            i += 2
            continue
        regex += ".*" if char == "*" else "." if char == "?" else re.escape(char)
        i += 1
    return re.fullmatch(regex, url, re.DOTALL) is not None


@pytest.mark.parametrize(
    ("glob", "url", "expected"),
    [
        ("**/*.png", "http://a.test/x/y.png", True),
        ("**/*.png", "http://a.test/x/y.png?v=1", False),
        ("**/*.png*", "http://a.test/x/y.png?v=1", True),
        ("http://a.test/*.js", "http://a.test/app.js", True),
        ("http://a.test/*.js", "http://a.test/lib/app.js", False),
        ("**/api/**", "http://a.test/api/v1/users", True),
        ("**/*.{png,jpg}", "http://a.test/p.jpg", True),
        ("**/*.{png,jpg}", "http://a.test/p.gif", False),
        ("**/page?x=1", "http://a.test/page?x=1", True),
        ("**/page?x=1", "http://a.test/pageAx=1", False),
        ("**/a\\*b", "http://a.test/a*b", True),
        ("**/a\\*b", "http://a.test/aXb", False),
    ],
)
def test_glob_matches_the_whole_url(glob: str, url: str, expected: bool) -> None:
    matcher = URLMatcher(glob)
    assert matcher.matches_url(url) is expected
    # Whatever the glob matches, Chrome's derived pattern pauses.
    if expected:
        wildcards = matcher.wildcards()
        assert wildcards is not None
        assert any(_chrome_match(w, url) for w in wildcards)


def test_glob_wildcards_are_narrow() -> None:
    assert URLMatcher("**/*.png").wildcards() == ["*/*.png"]
    assert URLMatcher("**/*.{png,jpg}").wildcards() == ["*/*.jpg", "*/*.png"]
    assert URLMatcher("http://a.test/a?b").wildcards() == ["http://a.test/a\\?b"]


@pytest.mark.parametrize("bad", ["", "{a,b", "a}b", "**/a\\", "{a,{b}}"])
def test_malformed_globs_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        URLMatcher(bad)
    assert info.value.argument == "pattern"


def test_patterns_of_other_types_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="glob string, a compiled regex or a callable"):
        URLMatcher(42)
    with pytest.raises(InvalidArgumentError, match="bytes"):
        URLMatcher(re.compile(rb"x"))


@pytest.mark.parametrize(
    ("regex", "wildcard"),
    [
        (r"\.png$", "*.png"),
        (r"^http://a\.test/api/", "http://a.test/api/*"),
        (r"/api/v\d+/users", "*/api/v*/users*"),
        (r"(?i)\.png$", None),
        (r"[a-z]+", None),
        (r"a|b", None),
    ],
)
def test_regex_wildcards(regex: str, wildcard: str | None) -> None:
    derived = URLMatcher(re.compile(regex)).wildcards()
    assert derived == (None if wildcard is None else [wildcard])


_URL_CHARS = st.sampled_from(list("abc./:?*-_=&0"))


@settings(deadline=None)
@given(
    st.text(_URL_CHARS, min_size=1, max_size=12),
    st.lists(st.text(_URL_CHARS, max_size=20), min_size=1, max_size=8),
)
def test_regex_wildcard_covers_every_match(literal: str, urls: list[str]) -> None:
    regex = re.compile(re.escape(literal) + r"\d*" + re.escape(literal[::-1]))
    wildcards = URLMatcher(regex).wildcards()
    assert wildcards is not None
    for url in [*urls, "http://x/" + literal + "12" + literal[::-1] + "?q"]:
        if regex.search(url):
            assert _chrome_match(wildcards[0], url)


@settings(deadline=None)
@given(st.text(_URL_CHARS, min_size=1, max_size=12), st.text(_URL_CHARS, max_size=20))
def test_glob_wildcard_covers_every_match(stem: str, url: str) -> None:
    glob = "**/" + stem.replace("*", "\\*") + "*"
    matcher = URLMatcher(glob)
    wildcards = matcher.wildcards()
    assert wildcards is not None
    for candidate in (url, "http://h/" + stem + url):
        if matcher.matches_url(candidate):
            assert any(_chrome_match(w, candidate) for w in wildcards)


def test_glob_to_regex_agrees_with_fnmatch_on_simple_globs() -> None:
    assert glob_to_regex("**x.js").fullmatch("http://a/b/x.js")
    assert fnmatch.fnmatchcase("http://a/b/x.js", "*x.js")


def test_predicate_needs_every_request_paused() -> None:
    matcher = RequestMatcher(lambda request: request.method == "POST")
    assert matcher.fetch_patterns() == [{"urlPattern": "*", "requestStage": "Request"}]
    assert not matcher.matches(_request("http://a/"))


def test_resource_types() -> None:
    assert check_resource_types("image, Font") == frozenset({"image", "font"})
    matcher = RequestMatcher(None, ["media", "image"])
    assert matcher.fetch_patterns() == [
        {"urlPattern": "*", "requestStage": "Request", "resourceType": "Image"},
        {"urlPattern": "*", "requestStage": "Request", "resourceType": "Media"},
    ]
    assert matcher.matches(_request("http://a/x.png", "image"))
    assert not matcher.matches(_request("http://a/x.js", "script"))
    with pytest.raises(InvalidArgumentError, match="unknown resource type 'picture'"):
        check_resource_types(["image", "picture"])


@pytest.mark.parametrize("bad", [False, 3, b"image", {"image": 1}, [1], ["image", None]])
def test_resource_types_of_other_kinds_are_rejected(bad: object) -> None:
    # block(types=False) raised TypeError from deep inside (found by the API fuzz).
    with pytest.raises(InvalidArgumentError, match=r"^types: got .*; expected resource type names"):
        check_resource_types(bad)  # type: ignore[arg-type]
