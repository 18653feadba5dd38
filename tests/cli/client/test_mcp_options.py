"""`ko-browser mcp --tools`: the parser's side (the server's side is in tests/mcp_server)."""

from __future__ import annotations

import pytest

from kobrowser.cli._client._parser import parse


def test_tools_defaults_to_all_and_takes_core() -> None:
    assert parse(["mcp"])[1]["tools"] == "all"
    assert parse(["mcp", "--tools", "core"])[1]["tools"] == "core"


def test_an_unknown_tool_set_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["mcp", "--tools", "some"])
    assert "--tools" in capsys.readouterr().err
