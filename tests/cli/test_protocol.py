"""Runtime directory choice and safety, and the wire format (no daemon)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kobrowser.cli._protocol import (
    PROTOCOL_VERSION,
    ProtocolMismatch,
    RuntimeDirError,
    decode,
    encode,
    runtime_dir,
    valid_session_name,
)


def test_runtime_dir_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KOBROWSER_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert runtime_dir(create=False) == tmp_path / "kobrowser"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "missing"))
    assert runtime_dir(create=False) == Path(f"/tmp/kobrowser-{os.getuid()}")
    monkeypatch.setenv("KOBROWSER_RUNTIME_DIR", str(tmp_path / "mine"))
    assert runtime_dir(create=False) == tmp_path / "mine"


def test_runtime_dir_is_created_0700_and_tightened(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KOBROWSER_RUNTIME_DIR", str(tmp_path / "rt"))
    path = runtime_dir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    path.chmod(0o777)
    runtime_dir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_runtime_dir_that_is_a_file_or_symlink_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("KOBROWSER_RUNTIME_DIR", str(tmp_path / "file"))
    with pytest.raises(RuntimeDirError, match="not a directory"):
        runtime_dir()
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.setenv("KOBROWSER_RUNTIME_DIR", str(tmp_path / "link"))
    with pytest.raises(RuntimeDirError, match="not a directory"):
        runtime_dir()


def test_session_names() -> None:
    assert valid_session_name("default") and valid_session_name("agent-7.b_c")
    for bad in ("", ".hidden", "a/b", "../x", "a b", "x" * 65):
        assert not valid_session_name(bad), bad


def test_wire_format_round_trip_and_version_check() -> None:
    message = {"v": PROTOCOL_VERSION, "id": "1", "cmd": "fill", "args": {"text": "a\nb é"}}
    line = encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == message
    with pytest.raises(ProtocolMismatch):
        decode(encode({**message, "v": PROTOCOL_VERSION + 1}))
    with pytest.raises(ValueError):
        decode(b"[1, 2]\n")
