"""The checks of a proxy argument (no browser): URLs, Proxy structs, dicts, bypass lists."""

from __future__ import annotations

from typing import Any

import pytest

import kobrowser
from kobrowser import InvalidArgumentError, Proxy
from kobrowser._browser._proxy import context_proxy_params, launch_proxy_args, to_proxy


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://proxy.example:3128", Proxy(server="http://proxy.example:3128")),
        ("proxy.example:3128", Proxy(server="http://proxy.example:3128")),
        ("HTTPS://Proxy.Example", Proxy(server="https://proxy.example")),
        ("socks5://10.0.0.1:1080", Proxy(server="socks5://10.0.0.1:1080")),
        ("socks4://[::1]:1080/", Proxy(server="socks4://[::1]:1080")),
        (
            "http://user:p%40ss%3Aword@proxy.example:8080",
            Proxy(server="http://proxy.example:8080", username="user", password="p@ss:word"),
        ),
        ("http://user@proxy.example", Proxy(server="http://proxy.example", username="user")),
        (
            {"server": "p.example:1", "username": "u", "password": "p", "bypass": "a.com, b"},
            Proxy(server="http://p.example:1", username="u", password="p", bypass=("a.com", "b")),
        ),
        (
            Proxy(server="https://p.example", bypass=("<local>", "*.internal")),
            Proxy(server="https://p.example", bypass=("<local>", "*.internal")),
        ),
    ],
)
def test_good_proxies(given: Any, expected: Proxy) -> None:
    assert to_proxy(given) == expected


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (3128, "expected a proxy URL"),
        ("", "expected a proxy URL"),
        ("ftp://proxy.example", "scheme must be one of http, https, socks4, socks5"),
        ("http://", "needs a host"),
        ("http://proxy.example:99999", "port"),
        ("http://proxy.example:0", "port must be 1 to 65535"),
        ("http://proxy.example/path", "nothing after host:port"),
        ("http://proxy .example", "whitespace"),
        ("socks5://u:p@proxy.example", "cannot log in to a SOCKS proxy"),
        ({"server": "socks5://p.example", "username": "u"}, "cannot log in to a SOCKS proxy"),
        ({"username": "u"}, "needs a 'server'"),
        ({"server": "p.example", "user": "u"}, "unknown key 'user'"),
        ({"server": "p.example", "password": "p"}, "a password needs a"),
        ({"server": "http://a:b@p.example", "username": "u"}, "not both"),
        ({"server": "p.example", "username": 5}, "username must be a str"),
        ({"server": "p.example", "bypass": ["a.com;b.com"]}, "one host or pattern per entry"),
        ({"server": "p.example", "bypass": [""]}, "non-empty str"),
        ({"server": "p.example", "bypass": 5}, "expected host names or patterns"),
    ],
)
def test_bad_proxies_name_the_argument(given: Any, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message) as info:
        to_proxy(given)
    assert info.value.argument in ("proxy", "proxy.bypass")
    assert str(info.value).startswith("proxy")


def test_the_password_is_never_shown() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        to_proxy("http://user:hunter2@proxy.example/x")
    assert "hunter2" not in str(info.value) and "user:***@" in str(info.value)
    proxy = Proxy(server="http://p.example", username="user", password="hunter2")
    assert "hunter2" not in repr(proxy) and "'***'" in repr(proxy)
    assert proxy.credentials == ("user", "hunter2")
    assert Proxy(server="http://p.example").credentials is None


def test_what_chrome_gets() -> None:
    proxy = Proxy(server="http://p.example:1", username="u", password="p", bypass=("a", "*.b"))
    assert launch_proxy_args(proxy) == [
        "--proxy-server=http://p.example:1",
        "--proxy-bypass-list=a;*.b",
    ]
    assert context_proxy_params(proxy) == {
        "proxyServer": "http://p.example:1",
        "proxyBypassList": "a;*.b",
    }
    assert launch_proxy_args(None) == [] and context_proxy_params(None) == {}
    assert launch_proxy_args(Proxy(server="socks5://s:1")) == ["--proxy-server=socks5://s:1"]


def test_launch_checks_the_proxy_before_starting_anything() -> None:
    with pytest.raises(InvalidArgumentError, match=r"proxy: .*scheme"):
        kobrowser.launch(proxy="gopher://p.example", executable_path="/nonexistent/chrome")
