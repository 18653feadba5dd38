"""Finding Chrome, starting it, and leaving nothing behind."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import anyio
import pytest

import kobrowser
from kobrowser import LaunchError
from kobrowser.cdp import _launcher, cbor_codec, find_chrome

from ._procs import assert_gone, leftovers, live_group_members

SOON = 10.0


def make_executable(path: Path, body: str = "exit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def leftover_text(path: Path) -> str:
    return path.read_text()


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Python's temp dir, where kobrowser makes Chrome profiles, private to this test."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


# -- find_chrome (sync) --------------------------------------------------------


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No env override, an empty PATH dir, no common install path."""
    monkeypatch.delenv("KOBROWSER_CHROME", raising=False)
    monkeypatch.delenv("CHROME_PATH", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(_launcher, "COMMON_PATHS", ())
    return bin_dir


def test_find_chrome_env_order(
    clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ko = make_executable(tmp_path / "ko" / "my-chrome")
    cp = make_executable(tmp_path / "cp" / "their-chrome")
    make_executable(clean_env / "chromium")
    monkeypatch.setenv("KOBROWSER_CHROME", str(ko))
    monkeypatch.setenv("CHROME_PATH", str(cp))
    assert find_chrome() == str(ko)
    monkeypatch.delenv("KOBROWSER_CHROME")
    assert find_chrome() == str(cp)
    monkeypatch.delenv("CHROME_PATH")
    assert find_chrome() == str(clean_env / "chromium")


def test_find_chrome_explicit_path_wins(
    clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    explicit = make_executable(tmp_path / "explicit" / "chrome")
    monkeypatch.setenv("KOBROWSER_CHROME", str(make_executable(tmp_path / "ko" / "chrome")))
    assert find_chrome(explicit) == str(explicit)


def test_find_chrome_path_names_in_order(clean_env: Path) -> None:
    make_executable(clean_env / "chrome")
    assert find_chrome() == str(clean_env / "chrome")
    make_executable(clean_env / "google-chrome")
    assert find_chrome() == str(clean_env / "google-chrome")
    make_executable(clean_env / "chromium-browser")
    assert find_chrome() == str(clean_env / "chromium-browser")
    make_executable(clean_env / "chromium")
    assert find_chrome() == str(clean_env / "chromium")


def test_find_chrome_common_paths(
    clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = make_executable(tmp_path / "opt" / "chrome")
    monkeypatch.setattr(_launcher, "COMMON_PATHS", (str(tmp_path / "missing"), str(installed)))
    assert find_chrome() == str(installed)


def test_find_chrome_missing_says_how_to_install(clean_env: Path) -> None:
    (clean_env / "chromium").write_text("not executable")
    with pytest.raises(LaunchError, match="apt-get install chromium") as info:
        find_chrome()
    assert "KOBROWSER_CHROME" in str(info.value)


def test_find_chrome_bad_env_value_is_named(
    clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_executable(clean_env / "chromium")
    monkeypatch.setenv("CHROME_PATH", str(tmp_path / "nope" / "chrome"))
    with pytest.raises(LaunchError, match="CHROME_PATH"):
        find_chrome()


def test_launch_with_missing_executable_raises_before_starting(tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="executable_path"):
        kobrowser.launch(executable_path=tmp_path / "no-such-chrome")


# -- launching ----------------------------------------------------------------

KINDS = ["pipe-cbor", "pipe-json", "websocket"] if cbor_codec() else ["pipe-json", "websocket"]


@pytest.fixture(params=KINDS)
def transport(request: pytest.FixtureRequest) -> str:
    """Each launch test runs on every transport."""
    kind: str = request.param
    return kind


@pytest.mark.anyio
async def test_launch_error_carries_stderr_tail(
    tmp_path: Path, private_tmp: Path, transport: str
) -> None:
    script = make_executable(
        tmp_path / "dying-chrome",
        'echo "starting up" >&2\necho "fatal: libnss3.so: cannot open shared object" >&2\nexit 1\n',
    )
    with anyio.fail_after(SOON), pytest.raises(LaunchError) as info:
        async with kobrowser.launch(executable_path=script, timeout=60, transport=transport):
            pytest.fail("the block must not run")
    assert "fatal: libnss3.so" in info.value.stderr_tail
    assert "fatal: libnss3.so" in str(info.value)
    assert "exited with code 1" in str(info.value)
    assert leftovers(private_tmp) == []


@pytest.mark.anyio
async def test_launch_times_out_when_no_endpoint_is_printed(
    tmp_path: Path, private_tmp: Path, transport: str
) -> None:
    pid_file = tmp_path / "pid"
    script = make_executable(
        tmp_path / "silent-chrome",
        f'echo $$ > "{pid_file}"\necho "thinking..." >&2\nsleep 600\n',
    )
    no_answer = "no DevTools endpoint|did not answer on its DevTools pipe"
    with pytest.raises(LaunchError, match=no_answer) as info:
        # waited out: short, but long enough for the script to start and echo
        async with kobrowser.launch(executable_path=script, timeout=1, transport=transport):
            pytest.fail("the block must not run")
    assert "thinking..." in info.value.stderr_tail
    await assert_gone(pgid=int(leftover_text(pid_file)))
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
async def test_launch_close_leaves_no_process_and_no_profile(
    private_tmp: Path, transport: str
) -> None:
    async with kobrowser.launch(transport=transport) as browser:
        assert browser.connection.transport_kind == transport
        pid = browser.pid
        assert pid is not None
        tab = await browser.new_tab()
        result = await tab.cdp.send(
            "Runtime.evaluate", {"expression": "1+1", "returnByValue": True}
        )
        assert result["result"]["value"] == 2
        assert browser.tabs == [tab]
        profiles = [name for name in leftovers(private_tmp) if "kobrowser-profile-" in name]
        assert len(profiles) == 1, leftovers(private_tmp)
        assert len(live_group_members(pid)) > 1  # browser + renderer/zygote/utility
    await assert_gone(pgid=pid, mentioning=str(private_tmp))
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
async def test_launch_cleans_up_when_the_block_raises(private_tmp: Path, transport: str) -> None:
    pid = None
    with pytest.raises(RuntimeError, match="the body failed"):
        async with kobrowser.launch(transport=transport) as browser:
            pid = browser.pid
            await browser.new_tab()
            raise RuntimeError("the body failed")
    assert pid is not None
    await assert_gone(pgid=pid, mentioning=str(private_tmp))
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
async def test_launch_cleans_up_when_the_block_is_cancelled(
    private_tmp: Path, transport: str
) -> None:
    pid = None
    with anyio.CancelScope() as scope:
        async with kobrowser.launch(transport=transport) as browser:
            pid = browser.pid
            await browser.new_tab()
            scope.cancel()
            await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert pid is not None
    await assert_gone(pgid=pid, mentioning=str(private_tmp))
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3])
async def test_launch_cleans_up_when_cancelled_while_starting(
    private_tmp: Path, delay: float, transport: str
) -> None:
    # Wherever the cancellation lands (spawning, reading the endpoint,
    # connecting, or in the body), nothing may survive.
    with anyio.move_on_after(delay):
        async with kobrowser.launch(transport=transport):
            await anyio.sleep_forever()
    await assert_gone(mentioning=str(private_tmp))
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
async def test_browser_exposes_its_pid_only_when_launched(private_tmp: Path) -> None:
    async with kobrowser.launch() as browser:
        assert browser.pid is not None
        assert os.getpgid(browser.pid) == browser.pid  # its own process group
