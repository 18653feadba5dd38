"""`ko-browser cookies`, `state` and `set` end to end (real daemon and Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _server import PageServer

import kobrowser
from kobrowser.cli._client._parser import parse

from ..conftest import Ko

pytestmark = pytest.mark.timeout(300)


def test_cookies_set_get_clear_and_state_save_load(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    url = server.set_page("/cli/state.html", "<title>State</title>")
    ko.ok("open", url)
    assert ko.ok("cookies") == "no cookies\n"
    assert ko.ok("cookies", "set", "sid", "abc") == "cookie sid set\n"  # the page's URL
    ko.ok("cookies", "set", "other", "1", "--domain", "localhost", "--secure")
    assert ko.ok("eval", "document.cookie") == "sid=abc\n"
    listed = ko.json("cookies", "get", "--url", url)["result"]["cookies"]
    assert [(c["name"], c["value"], c["domain"]) for c in listed] == [("sid", "abc", "127.0.0.1")]
    assert "other=1  (localhost/, secure" in ko.ok("cookies")
    ko.ok("eval", "localStorage.k = 'v'")

    saved = tmp_path / "state.json"
    out = ko.ok("state", "save", str(saved))
    assert out.startswith("saved 2 cookie(s) and localStorage of 1 origin(s)")
    state = json.loads(saved.read_text())
    assert state["origins"] == [
        {"origin": server.url("/").rstrip("/"), "localStorage": [{"name": "k", "value": "v"}]}
    ]

    assert ko.ok("cookies", "clear", "--name", "other") == "removed 1 cookie(s)\n"
    assert ko.ok("cookies", "clear") == "removed 1 cookie(s)\n"
    ko.ok("eval", "localStorage.clear()")
    assert ko.ok("eval", "document.cookie") == "\n"
    ko.ok("state", "load", str(saved))
    ko.ok("reload")
    assert ko.ok("eval", "document.cookie + ' ' + localStorage.k") == "sid=abc v\n"

    # Bad input: one line on stderr, nothing applied.
    bad = ko("cookies", "set", "x", "1", "--same-site", "None")
    assert bad.returncode == 2 and "secure" in bad.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    failed = ko("state", "load", str(broken))
    assert failed.returncode == 2 and "not valid JSON" in failed.stderr
    missing = ko("state", "load", str(tmp_path / "missing.json"))
    assert missing.returncode == 1 and "no such file" in missing.stderr
    directory = ko("state", "save", str(tmp_path))
    assert directory.returncode == 2 and "cannot write" in directory.stderr
    bad_url = ko("cookies", "get", "--url", "http://[bad")
    assert bad_url.returncode == 2 and "not an http(s) URL" in bad_url.stderr


def test_set_device_viewport_offline_and_reset(ko: Ko, server: PageServer) -> None:
    url = server.set_page(
        "/cli/device.html", '<meta name="viewport" content="width=device-width"><p>d</p>'
    )
    ko.ok("open", url)
    out = ko.ok("set", "device", "Pixel", "7")
    assert out.startswith("emulating Pixel 7 (412x839")
    pixel = kobrowser.devices["Pixel 7"]
    assert ko.ok("eval", "innerWidth") == f"{pixel.viewport[0]}\n"
    assert ko.ok("eval", "navigator.userAgent") == pixel.user_agent + "\n"
    ko.ok("tab", "new", url)  # a new tab emulates it from the start
    assert ko.ok("eval", "innerWidth") == f"{pixel.viewport[0]}\n"
    assert "iPhone 15" in ko.ok("set", "device", "list").splitlines()
    unknown = ko("set", "device", "Nokia")
    assert unknown.returncode == 2 and "unknown device 'Nokia'" in unknown.stderr

    ko.ok("set", "viewport", "640", "480")
    assert ko.ok("eval", "[innerWidth, innerHeight].join('x')") == "640x480\n"
    ko.ok("set", "media", "dark")
    assert ko.ok("eval", "matchMedia('(prefers-color-scheme: dark)').matches") == "true\n"
    ko.ok("set", "timezone", "Asia/Tokyo")
    assert ko.ok("eval", "Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo\n"
    ko.ok("set", "offline", "on")
    assert ko.ok("eval", "navigator.onLine") == "false\n"
    ko.ok("set", "offline", "off")
    assert ko.ok("eval", "navigator.onLine") == "true\n"
    assert ko.json("set", "locale", "de-DE")["result"]["emulation"]["locale"] == "de-DE"
    # A geolocation is answered as JSON too (it once took the daemon down).
    geo = ko.json("set", "geo", "52.5", "13.4")["result"]["emulation"]["geolocation"]
    assert geo == {"latitude": 52.5, "longitude": 13.4, "accuracy": 0.0}
    assert ko.ok("set", "geo", "0", "0") == "geolocation 0, 0\n"
    assert ko.ok("eval", "navigator.language") == "de-DE\n"  # the same daemon still serves
    ko.ok("set", "reset")
    assert ko.ok("eval", "navigator.userAgent") != pixel.user_agent + "\n"
    assert ko.ok("eval", "navigator.language") != "de-DE\n"


@pytest.mark.parametrize(
    ("argv", "command", "args"),
    [
        (["cookies"], "cookies.get", {}),
        (["cookies", "get", "--url", "http://a.test/"], "cookies.get", {"url": ["http://a.test/"]}),
        (["set", "viewport", "390", "844"], "set.viewport", {"width": 390, "height": 844}),
        (["set", "offline", "ON"], "set.offline", {"state": True}),
        (["set", "headers", '{"X-A": "1"}'], "set.headers", {"headers": {"X-A": "1"}}),
        (["set", "geo", "52.5", "13.4"], "set.geo", {"latitude": 52.5, "longitude": 13.4}),
        (["state", "save", "s.json"], "state.save", {"path": "s.json"}),
    ],
)
def test_parse(argv: list[str], command: str, args: dict[str, object]) -> None:
    cmd, parsed, _options = parse(argv)
    assert cmd == command
    assert {k: v for k, v in parsed.items() if k in args} == args


@pytest.mark.parametrize(
    "argv",
    [
        ["set", "viewport", "0", "10"],
        ["set", "offline", "maybe"],
        ["set", "headers", "{nope"],
        ["set", "headers", "[1]"],
        ["set", "media", "black"],
        ["state", "save"],
        ["set"],
    ],
)
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        parse(argv)
    assert caught.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) >= 1
