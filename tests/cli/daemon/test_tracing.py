"""`ko-browser trace start/stop` and `ko-browser agent --trace`: real processes and Chromium."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from _fake_openai import FakeChat
from _server import PageServer

from ..conftest import Ko
from ..test_cli import FORM, find_id, one_line_error
from .test_batch_agent import agent_argv, secret_policy

pytestmark = pytest.mark.timeout(300)


def _steps(page: str) -> list[str]:
    """The step list of a trace page (``N. line``), as its nav links hold them."""
    found = re.findall(r'<li><a href="#step-\d+"[^>]*>(\d+\. [^<]*)<span', page)
    return [html.unescape(step) for step in found]


@pytest.mark.shared_session
def test_trace_start_and_stop_record_the_commands_between(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    ko.ok("open", server.set_page("/form.html", FORM))
    snap = ko.ok("snapshot")
    name, greet = find_id(snap, 'textbox "Name"'), find_id(snap, 'button "Greet"')
    ko.ok("trace", "start")
    again = ko("trace", "start")
    assert again.returncode == 1 and "already recording" in one_line_error(again)
    ko.ok("fill", str(name), "Ada")
    ko.ok("click", str(greet))
    ko.ok("snapshot")  # not a step; the press acts on it
    ko.ok("press", "Tab")
    out = ko.ok("trace", "stop", str(tmp_path / "run.html"))
    assert out.startswith(str(tmp_path / "run.html")) and "(3 steps" in out
    page = (tmp_path / "run.html").read_text()
    assert [s.split(" ")[1] for s in _steps(page)] == ["fill", "click", "press"]
    assert "data:image/jpeg;base64," in page
    assert "Hello Ada" in page  # the snapshot the press acted on
    # Stopped: nothing records, and another stop says so.
    ko.ok("fill", str(name), "later")
    stop = ko("trace", "stop", str(tmp_path / "again.html"))
    assert stop.returncode == 1 and "no trace is recording" in one_line_error(stop)
    assert not (tmp_path / "again.html").exists()


def test_trace_stop_to_a_missing_directory_is_refused_by_the_client(ko: Ko, tmp_path: Path) -> None:
    result = ko("trace", "stop", str(tmp_path / "nope" / "run.html"))
    assert result.returncode == 1 and "nope" in one_line_error(result)


@pytest.mark.shared_session  # the client reads the secret and sends it with the command
def test_agent_trace_holds_each_step_and_reply_but_never_a_secret(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    chat = FakeChat(server, secret_policy)
    ko.ok("open", server.set_page("/form.html", FORM))
    path = tmp_path / "agent.html"
    env = {"FAKE_KEY": "sk-cli", "KOBROWSER_SECRET_WHO": "Grace Hopper"}
    result = ko(*agent_argv(chat, "--secret", "WHO", "--trace", str(path)), env=env)
    assert result.returncode == 0, result.stderr
    page = path.read_text()
    lines = [s.split(" ", 1)[1] for s in _steps(page)]
    assert re.fullmatch(r'fill \d+ "\{\{WHO\}\}"', lines[0]), lines
    assert lines[1].startswith("click ") and lines[2].startswith('done "Hello {{WHO}}"'), lines
    assert "<h3>Model reply</h3>" in page
    assert "Hello {{WHO}}" in page  # the snapshot the done step acted on, masked
    assert "Grace" not in page


@pytest.mark.shared_session
def test_agent_trace_is_written_when_the_agent_gives_up(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    chat = FakeChat(server, lambda messages: "click 999")
    ko.ok("open", server.set_page("/form.html", FORM))
    path = tmp_path / "gave-up.html"
    result = ko(*agent_argv(chat, "--max-steps", "2", "--trace", str(path)),
                env={"FAKE_KEY": "k"})  # fmt: skip
    assert result.returncode == 1
    assert path.is_file() and "<title>ko-browser agent</title>" in path.read_text()
