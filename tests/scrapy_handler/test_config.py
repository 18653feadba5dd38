"""The handler's settings and request meta, checked without a browser or a crawl."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from scrapy.settings import Settings

import kobrowser
from kobrowser.scrapy import Config
from kobrowser.scrapy._config import DEFAULT_DOWNLOAD_TIMEOUT, page_options

#: Any executable passes kobrowser.launch()'s checks; nothing is started.
FAKE_CHROME = sys.executable


def config(**settings: Any) -> Config:
    settings.setdefault("KOBROWSER_LAUNCH_OPTIONS", {"executable_path": FAKE_CHROME})
    return Config.from_settings(Settings(settings))


def test_defaults() -> None:
    got = config(CONCURRENT_REQUESTS=5)
    assert got.concurrency == 5  # CONCURRENT_REQUESTS when KOBROWSER_CONCURRENCY is unset
    assert got.text_limit == 80
    assert got.wait_until == "load"
    assert got.snapshot is True
    assert got.proxy is None
    assert dict(got.launch_options) == {"executable_path": FAKE_CHROME}
    assert got.download_timeout == 180.0  # Scrapy's DOWNLOAD_TIMEOUT


def test_values_as_python_and_as_command_line_text() -> None:
    got = config(
        KOBROWSER_CONCURRENCY="3",
        KOBROWSER_TEXT_LIMIT="None",
        KOBROWSER_WAIT_UNTIL="networkidle",
        KOBROWSER_SNAPSHOT="False",
        DOWNLOAD_TIMEOUT="12.5",
    )
    assert (got.concurrency, got.text_limit, got.wait_until) == (3, None, "networkidle")
    assert (got.snapshot, got.download_timeout) == (False, 12.5)
    assert config(KOBROWSER_TEXT_LIMIT=None).text_limit is None
    assert config(KOBROWSER_TEXT_LIMIT=200).text_limit == 200
    assert config(DOWNLOAD_TIMEOUT=0).download_timeout == DEFAULT_DOWNLOAD_TIMEOUT


def test_the_proxy_is_added_to_chromes_arguments() -> None:
    got = config(
        KOBROWSER_PROXY="http://127.0.0.1:3128",
        KOBROWSER_LAUNCH_OPTIONS={"executable_path": FAKE_CHROME, "args": ["--mute-audio"]},
    )
    assert got.proxy == "http://127.0.0.1:3128"
    assert tuple(got.launch_options["args"]) == (
        "--mute-audio",
        "--proxy-server=http://127.0.0.1:3128",
    )
    assert config(KOBROWSER_PROXY="").proxy is None


def test_launch_options_from_json_text() -> None:
    got = config(KOBROWSER_LAUNCH_OPTIONS=f'{{"executable_path": "{FAKE_CHROME}", "timeout": 9}}')
    assert dict(got.launch_options) == {"executable_path": FAKE_CHROME, "timeout": 9}


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"KOBROWSER_CONCURRENCY": 0},
            "KOBROWSER_CONCURRENCY: got 0; expected a whole number >= 1",
        ),
        ({"KOBROWSER_CONCURRENCY": "many"}, "KOBROWSER_CONCURRENCY: got 'many'"),
        ({"KOBROWSER_CONCURRENCY": True}, "KOBROWSER_CONCURRENCY: got True"),
        ({"KOBROWSER_TEXT_LIMIT": 3}, "KOBROWSER_TEXT_LIMIT: got 3; expected a whole number >= 4"),
        ({"KOBROWSER_WAIT_UNTIL": "soon"}, "KOBROWSER_WAIT_UNTIL: got 'soon'; expected one of"),
        ({"KOBROWSER_SNAPSHOT": "maybe"}, "KOBROWSER_SNAPSHOT: got 'maybe'; expected True or"),
        ({"KOBROWSER_PROXY": "a proxy"}, "KOBROWSER_PROXY: got 'a proxy'; expected a proxy"),
        ({"KOBROWSER_PROXY": 3128}, "KOBROWSER_PROXY: got 3128"),
        ({"DOWNLOAD_TIMEOUT": "long"}, "DOWNLOAD_TIMEOUT: got 'long'"),
        ({"KOBROWSER_LAUNCH_OPTIONS": "[1]"}, "KOBROWSER_LAUNCH_OPTIONS: got '[1]'"),
        (
            {"KOBROWSER_LAUNCH_OPTIONS": {"headles": True}},
            "KOBROWSER_LAUNCH_OPTIONS: got {'headles': True}; expected only kobrowser.launch() "
            "arguments",
        ),
        (
            {"KOBROWSER_LAUNCH_OPTIONS": {"executable_path": FAKE_CHROME, "timeout": -1}},
            "KOBROWSER_LAUNCH_OPTIONS: timeout",
        ),
        (
            {
                "KOBROWSER_PROXY": "host:1",
                "KOBROWSER_LAUNCH_OPTIONS": {"executable_path": FAKE_CHROME, "args": "--x"},
            },
            "KOBROWSER_LAUNCH_OPTIONS: got",
        ),
    ],
)
def test_a_bad_setting_names_itself(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(kobrowser.InvalidArgumentError) as caught:
        config(**settings)
    assert str(caught.value).startswith(message)
    assert caught.value.argument == message.split(":")[0]


def test_a_missing_chrome_is_a_launch_error_at_start_up(tmp_path: Any) -> None:
    with pytest.raises(kobrowser.LaunchError, match=r"^KOBROWSER_LAUNCH_OPTIONS: "):
        config(KOBROWSER_LAUNCH_OPTIONS={"executable_path": str(tmp_path / "no-chrome")})


def test_page_options_from_meta() -> None:
    base = config(KOBROWSER_TEXT_LIMIT=40, DOWNLOAD_TIMEOUT=20)
    plain = page_options(base, {})
    assert (plain.wait_until, plain.timeout) == ("load", 20.0)
    assert dict(plain.snapshot or {}) == {"fresh": True, "text_limit": 40}
    got = page_options(
        base,
        {
            "kobrowser_wait_until": "commit",
            "download_timeout": 5,
            "kobrowser_snapshot_options": {"interactive": True, "text_limit": None},
        },
    )
    assert (got.wait_until, got.timeout) == ("commit", 5.0)
    assert dict(got.snapshot or {}) == {"fresh": True, "text_limit": None, "interactive": True}
    assert page_options(base, {"kobrowser_snapshot_options": False}).snapshot is None
    off = config(KOBROWSER_SNAPSHOT=False)
    assert page_options(off, {}).snapshot is None
    assert page_options(off, {"kobrowser_snapshot_options": {}}).snapshot == {
        "fresh": True,
        "text_limit": 80,
    }


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"kobrowser_wait_until": "later"}, "kobrowser_wait_until: got 'later'"),
        ({"kobrowser_snapshot_options": "all"}, "kobrowser_snapshot_options: got 'all'"),
        (
            {"kobrowser_snapshot_options": {"timeout": 3}},
            "kobrowser_snapshot_options: got {'timeout': 3}; expected only clickable, compact",
        ),
        ({"download_timeout": "soon"}, "download_timeout: got 'soon'"),
    ],
)
def test_bad_meta_names_its_key(meta: dict[str, Any], message: str) -> None:
    with pytest.raises(kobrowser.InvalidArgumentError) as caught:
        page_options(config(), meta)
    assert str(caught.value).startswith(message)
    assert caught.value.argument == message.split(":")[0]
