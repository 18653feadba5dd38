"""A launched Chrome never outlives its Python process; stale profiles are swept.

Also: which transport a launch picks (option, environment, the fallback to
the JSON pipe when the native codec cannot be imported).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import types
from pathlib import Path

import anyio
import pytest

import kobrowser
from kobrowser import LaunchError
from kobrowser.cdp import _codec, _pipe, choose_transport, sweep_stale_profiles

from ._procs import leftovers, live_group_members, pid_alive

GENEROUS = 60.0  # a deadline for polling, not a speed assertion: the machine is shared


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.fixture
def no_codec(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing kobrowser.cdp._cbor fails, as on a machine without a C compiler."""
    monkeypatch.setitem(sys.modules, "kobrowser.cdp._cbor", None)
    monkeypatch.setattr(_codec, "_warned", False)


# -- choosing the transport -------------------------------------------------------


def test_the_codec_is_built_on_ci() -> None:
    # scripts/setup.sh installs with gcc and the Python headers: a build that
    # failed quietly (the extension is optional) must not pass CI unseen.
    if not os.environ.get("CI"):
        pytest.skip("only checked under CI")
    assert _codec.cbor_codec() is not None, "kobrowser.cdp._cbor did not build"


def test_transport_from_option_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KOBROWSER_TRANSPORT", raising=False)
    cbor = "pipe-cbor" if _codec.cbor_codec() is not None else "pipe-json"
    assert choose_transport() == cbor
    assert choose_transport("pipe") == cbor
    assert choose_transport("websocket") == "websocket"
    monkeypatch.setenv("KOBROWSER_TRANSPORT", "pipe-json")
    assert choose_transport() == "pipe-json"
    assert choose_transport("websocket") == "websocket"  # the option wins
    with pytest.raises(LaunchError, match="unknown transport 'tcp'"):
        choose_transport("tcp")
    monkeypatch.setenv("KOBROWSER_TRANSPORT", "bogus")
    with pytest.raises(LaunchError, match="unknown transport 'bogus'"):
        kobrowser.launch()


def test_without_the_codec_pipe_means_json_warned_once(
    no_codec: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KOBROWSER_TRANSPORT", raising=False)
    assert _codec.cbor_codec() is None
    with caplog.at_level(logging.DEBUG, logger="kobrowser"):
        assert choose_transport() == "pipe-json"
        assert choose_transport("pipe") == "pipe-json"
        assert choose_transport("pipe-json") == "pipe-json"  # asked for: nothing to say
    said = [r for r in caplog.records if "_cbor is not built" in r.getMessage()]
    assert len(said) == 1
    assert said[0].levelno == logging.WARNING
    assert said[0].name == "kobrowser"
    assert "launch() uses the JSON pipe" in said[0].getMessage()
    with pytest.raises(LaunchError, match="needs the native codec"):
        choose_transport("pipe-cbor")
    with pytest.raises(ValueError, match="not built"):
        _pipe.PipeTransport(-1, -1, cbor=True)


def test_the_built_codec_reports_the_abi_this_code_calls() -> None:
    codec = _codec.cbor_codec()
    if codec is None:
        pytest.skip("kobrowser.cdp._cbor is not built")
    assert codec.ABI == _codec.CODEC_ABI


@pytest.fixture
def stale_codec(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """kobrowser.cdp._cbor imports, but is a build of an older _cbor.c."""
    old = types.ModuleType("kobrowser.cdp._cbor")  # an ABI 1 build had no ABI constant
    monkeypatch.setitem(sys.modules, "kobrowser.cdp._cbor", old)
    monkeypatch.setattr(_codec, "_warned", False)
    return old


@pytest.mark.parametrize("abi", [None, 1, 2, 3, _codec.CODEC_ABI - 1, _codec.CODEC_ABI + 1])
def test_a_stale_codec_is_not_used_warned_once(
    stale_codec: types.ModuleType,
    abi: int | None,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("KOBROWSER_TRANSPORT", raising=False)
    if abi is not None:
        stale_codec.ABI = abi  # type: ignore[attr-defined]
    with caplog.at_level(logging.DEBUG, logger="kobrowser"):
        assert _codec.cbor_codec() is None
        assert choose_transport() == "pipe-json"
        assert choose_transport("pipe") == "pipe-json"
    said = [r for r in caplog.records if "_cbor is stale" in r.getMessage()]
    assert len(said) == 1
    assert said[0].levelno == logging.WARNING
    assert f"ABI {abi}, this code needs {_codec.CODEC_ABI}" in said[0].getMessage()
    with pytest.raises(LaunchError, match="not built or is stale"):
        choose_transport("pipe-cbor")
    with pytest.raises(ValueError, match="is stale"):
        _pipe.PipeTransport(-1, -1, cbor=True)


@pytest.mark.browser
@pytest.mark.anyio
async def test_launch_with_a_stale_codec_uses_the_json_pipe(
    stale_codec: types.ModuleType, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KOBROWSER_TRANSPORT", raising=False)
    async with kobrowser.launch() as browser:
        assert browser.connection.transport_kind == "pipe-json"
        tab = await browser.new_tab("data:text/html;charset=utf-8,<button>Go</button>")
        assert '1: button "Go"' in (await tab.snapshot()).text
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
async def test_launch_without_the_codec_uses_the_json_pipe(
    no_codec: None, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KOBROWSER_TRANSPORT", raising=False)
    async with kobrowser.launch() as browser:
        assert browser.connection.transport_kind == "pipe-json"
        tab = await browser.new_tab("data:text/html;charset=utf-8,<button>名前 😀</button>")
        assert '1: button "名前 😀"' in (await tab.snapshot()).text
    assert leftovers(private_tmp) == []


# -- SIGKILL -------------------------------------------------------------------------

_HOLDER = textwrap.dedent(
    """
    import asyncio, sys, tempfile
    import kobrowser

    tempfile.tempdir = sys.argv[2]  # Python's only: Chrome's own TMPDIR stays short

    async def main():
        async with kobrowser.launch(transport=sys.argv[1]) as browser:
            await browser.new_tab("about:blank")
            profile = browser._process.profile_dir
            print(browser.pid, profile, flush=True)
            await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


def _is_dir(path: str) -> bool:
    return Path(path).is_dir()


def _spawn_holder(tmp: Path, transport: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, transport, str(tmp)], stdout=subprocess.PIPE, text=True
    )


async def _run_holder(tmp: Path, transport: str) -> tuple[subprocess.Popen[str], int, str]:
    holder = _spawn_holder(tmp, transport)
    assert holder.stdout is not None
    with anyio.fail_after(GENEROUS):
        line = await anyio.to_thread.run_sync(holder.stdout.readline, abandon_on_cancel=True)
    chrome_pid, profile = line.split()
    return holder, int(chrome_pid), profile


@pytest.mark.browser
@pytest.mark.slow  # lifecycle: a Python process SIGKILLed; scripts/test.sh --fast skips it
@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["pipe", "websocket"])
async def test_sigkill_of_python_takes_chrome_down_and_next_launch_sweeps(
    private_tmp: Path, transport: str
) -> None:
    holder, chrome_pid, profile = await _run_holder(private_tmp, transport)
    try:
        assert pid_alive(chrome_pid)
        assert _is_dir(profile)
        assert Path(profile).parent == private_tmp
        holder.send_signal(signal.SIGKILL)
        await anyio.to_thread.run_sync(holder.wait)
        # Chrome reads EOF on its DevTools pipe and quits, with its helpers.
        with anyio.move_on_after(GENEROUS):
            while live_group_members(chrome_pid):  # noqa: ASYNC110 - polling /proc
                await anyio.sleep(0.1)
        assert not pid_alive(chrome_pid), "Chrome outlived the Python process that launched it"
        assert live_group_members(chrome_pid) == []
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
        if live_group_members(chrome_pid):
            os.killpg(chrome_pid, signal.SIGKILL)
    assert _is_dir(profile)  # what SIGKILL leaves: the profile
    async with kobrowser.launch():
        assert not _is_dir(profile)  # swept by the next launch
    assert leftovers(private_tmp) == []


@pytest.mark.browser
@pytest.mark.anyio
async def test_interpreter_exit_without_close_kills_chrome_and_removes_profile(
    private_tmp: Path,
) -> None:
    script = textwrap.dedent(
        """
        import asyncio, sys, tempfile
        import kobrowser

        tempfile.tempdir = sys.argv[1]

        async def main():
            browser = await kobrowser.launch().__aenter__()  # never closed
            print(browser.pid, browser._process.profile_dir, flush=True)

        asyncio.run(main())
        """
    )
    done = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [sys.executable, "-c", script, str(private_tmp)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    )
    chrome_pid, profile = done.stdout.split()
    with anyio.move_on_after(GENEROUS):
        while live_group_members(int(chrome_pid)):  # noqa: ASYNC110 - polling /proc
            await anyio.sleep(0.1)
    assert live_group_members(int(chrome_pid)) == []
    assert not _is_dir(profile), done.stderr


# -- sweeping ------------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_sweep_removes_only_profiles_of_dead_owners(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = tmp_path / f"kobrowser-profile-{dead}-abc"
    downloads = tmp_path / f"kobrowser-downloads-{dead}-abc"
    downloads.mkdir()
    (stale / "Default").mkdir(parents=True)
    (stale / "Default" / "Cookies").write_text("x")
    mine = tmp_path / f"kobrowser-profile-{os.getpid()}-def"
    parent = tmp_path / f"kobrowser-profile-{os.getppid()}-ghi"
    old_format = tmp_path / "kobrowser-profile-xyz123"
    chrome_alive = tmp_path / f"kobrowser-profile-{dead}-jkl"
    other = tmp_path / f"something-{dead}-else"
    foreign = tmp_path / f"kobrowser-profile-{dead}-mno"
    for path in (mine, parent, old_format, chrome_alive, other, foreign):
        path.mkdir()
    # locked by a Chrome of another host (a container sharing this temp dir)
    os.symlink(f"not-{os.uname().nodename}-{dead}", foreign / "SingletonLock")
    # a Chrome still holds this one (its SingletonLock names a live pid)
    os.symlink(f"{os.uname().nodename}-{os.getpid()}", chrome_alive / "SingletonLock")
    # a stale lock (dead Chrome) does not keep a profile
    os.symlink(f"{os.uname().nodename}-{dead}", stale / "SingletonLock")
    assert sorted(sweep_stale_profiles(str(tmp_path))) == [str(downloads), str(stale)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (mine, parent, old_format, chrome_alive, other, foreign)
    )
    assert sweep_stale_profiles(str(tmp_path / "missing")) == []
