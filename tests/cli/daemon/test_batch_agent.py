"""`ko-browser batch` and `ko-browser agent` end to end: real processes, daemon, Chromium,
and a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from _fake_openai import FakeChat
from _server import PageServer

from ..conftest import COMMAND_TIMEOUT, Ko, Runtime
from ..test_cli import FORM, find_id, one_line_error

pytestmark = pytest.mark.timeout(300)

NO_MODEL_ENV = {"OPENAI_API_KEY": "", "KOBROWSER_MODEL": "", "OPENAI_BASE_URL": ""}


def form_ids(ko: Ko, server: PageServer) -> tuple[int, int]:
    ko.ok("open", server.set_page("/form.html", FORM))
    snap = ko.ok("snapshot", "-i")
    return find_id(snap, 'textbox "Name"'), find_id(snap, 'button "Greet"')


@pytest.mark.shared_session
def test_batch_from_a_file(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    name, greet = form_ids(ko, server)
    batch = tmp_path / "actions.txt"
    batch.write_text(f'# a comment line is prose\nfill {name} "Ana \\"A\\""\nclick @{greet}\n')
    out = ko.ok("batch", str(batch))
    assert out.splitlines() == [
        f'fill {name} "Ana \\"A\\"": filled {name}',
        f"click {greet}: clicked {greet}",
        "2 actions done",
    ]
    assert ko.ok("get", "value", str(name)) == 'Ana "A"\n'


@pytest.mark.shared_session
def test_batch_from_stdin_with_json_output(ko: Ko, server: PageServer, runtime: Runtime) -> None:
    name, greet = form_ids(ko, server)
    text = f'{{"action": "fill", "id": {name}, "text": "Bo"}}\nclick {greet}\n'
    result = subprocess.run(
        [*ko.argv(("--json", "batch", "-"), None)],
        input=text,
        capture_output=True,
        text=True,
        env=runtime.env(),
        timeout=COMMAND_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0] == {"index": 1, "action": f'fill {name} "Bo"', "ok": True,
                        "message": f"filled {name}"}  # fmt: skip
    assert lines[1]["action"] == f"click {greet}" and lines[1]["ok"] is True
    assert lines[2]["ok"] is True and lines[2]["command"] == "batch"
    assert lines[2]["result"]["failed"] == [] and len(lines[2]["result"]["outcomes"]) == 2
    assert "Hello Bo" in ko.ok("snapshot")


@pytest.mark.shared_session
def test_batch_stops_at_the_first_error_unless_keep_going(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    name, _ = form_ids(ko, server)
    batch = tmp_path / "bad.txt"
    batch.write_text(f'click 999\nfill {name} "later"\n')
    result = ko("batch", str(batch))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "click 999: UnknownElementError: "
        + result.stdout.split("UnknownElementError: ", 1)[1].splitlines()[0]
    ]
    assert "run `ko-browser snapshot` and use its ids" in result.stdout
    error = one_line_error(result)
    assert "1 of 2 actions failed (line 1 first)" in error and "--keep-going" in error
    assert ko.ok("get", "value", str(name)) == "\n"  # the fill did not run

    kept = ko("batch", "--keep-going", str(batch))
    assert kept.returncode == 1
    lines = kept.stdout.splitlines()
    assert len(lines) == 2 and lines[1] == f'fill {name} "later": filled {name}'
    assert "1 of 2 actions failed" in one_line_error(kept)
    assert ko.ok("get", "value", str(name)) == "later\n"


@pytest.mark.shared_session
def test_batch_syntax_errors_run_nothing(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    name, _ = form_ids(ko, server)
    batch = tmp_path / "typo.txt"
    batch.write_text(f'fill {name} "never"\ntap 5\n')
    result = ko("batch", str(batch))
    assert result.returncode == 2
    line = one_line_error(result)
    assert f"{batch}: line 2, column 1: unknown action 'tap'" in line
    assert "nothing was run" in line
    assert ko.ok("get", "value", str(name)) == "\n"


def test_batch_usage_errors_start_no_daemon(ko: Ko, runtime: Runtime, tmp_path: Path) -> None:
    missing = ko("batch", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "cannot read" in one_line_error(missing)
    empty = ko("batch")  # stdin is empty
    assert empty.returncode == 2 and "no action lines in stdin" in one_line_error(empty)
    assert list(runtime.directory.glob("*.sock")) == []


def greet_policy(messages: list[dict[str, Any]]) -> str:
    """Fill the name, greet, then report the greeting: from the prompt alone."""
    page = messages[-1]["content"].rsplit("\nURL: ", 1)[1]
    greeting = re.search(r'\d+: text "(Hello [^"]*)"', page)
    if greeting:
        return f'done "{greeting.group(1)}"'
    name = re.search(r'(\d+): textbox "Name"', page)
    greet = re.search(r'(\d+): button "Greet"', page)
    assert name and greet, page
    return f'fill {name.group(1)} "Ada"\nclick {greet.group(1)}'


def agent_argv(chat: FakeChat, *extra: str) -> tuple[str, ...]:
    return (
        "agent",
        "Greet Ada and tell me the greeting",
        "--model",
        "fake-model",
        "--base-url",
        chat.base_url,
        "--api-key-env",
        "FAKE_KEY",
        *extra,
    )


@pytest.mark.shared_session  # the client sends the key: nothing of the daemon's start
def test_agent_reaches_the_goal(ko: Ko, server: PageServer) -> None:
    chat = FakeChat(server, greet_policy)
    ko.ok("open", server.set_page("/form.html", FORM))
    result = ko(*agent_argv(chat), env={"FAKE_KEY": "sk-cli"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r'1\. fill \d+ "Ada" -> filled \d+; click \d+ -> clicked \d+', lines[0])
    assert lines[1] == '2. done "Hello Ada" -> done'
    assert lines[2] == "Hello Ada"
    assert len(lines) == 3
    assert [r["auth"] for r in chat.requests] == ["Bearer sk-cli"] * 2
    assert {r["body"]["model"] for r in chat.requests} == {"fake-model"}


def fill_policy(messages: list[dict[str, Any]]) -> str:
    """With the -i snapshot (no text lines): fill the name, then report it."""
    page = messages[-1]["content"].rsplit("\nURL: ", 1)[1]
    if re.search(r'textbox "Name" value="Ada"', page):
        return 'done "filled"'
    name = re.search(r'(\d+): textbox "Name"', page)
    assert name, page
    return f'fill {name.group(1)} "Ada"'


@pytest.mark.shared_session  # the client sends the key: nothing of the daemon's start
def test_agent_json_prints_one_object_per_step(ko: Ko, server: PageServer) -> None:
    chat = FakeChat(server, fill_policy)
    ko.ok("open", server.set_page("/form.html", FORM))
    result = ko("--json", *agent_argv(chat, "-i"), env={"FAKE_KEY": "k"})
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    steps, final = lines[:-1], lines[-1]
    assert [s["step"] for s in steps] == [1, 2]
    assert steps[0]["outcomes"][0]["ok"] and steps[0]["prompt_tokens"] > 0
    assert steps[1]["done"] is True and steps[1]["answer"] == "filled"
    assert final == {
        "ok": True,
        "command": "agent",
        "result": {"done": True, "answer": "filled", "reason": "done", "steps": 2},
    }
    # -i: the model saw the interactive snapshot only (no text lines) at step 1.
    first_prompt = chat.requests[0]["body"]["messages"][1]["content"]
    assert 'textbox "Name"' in first_prompt and "nobody yet" not in first_prompt


@pytest.mark.shared_session  # the client sends the key: nothing of the daemon's start
def test_agent_that_gives_up_exits_1(ko: Ko, server: PageServer) -> None:
    chat = FakeChat(server, lambda messages: "tap 5")
    ko.ok("open", server.set_page("/form.html", FORM))
    result = ko(*agent_argv(chat, "--max-steps", "2"), env={"FAKE_KEY": "k"})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all("unknown action 'tap'" in line for line in lines)
    assert "gave up: 2 steps without reaching the goal" in one_line_error(result)


@pytest.mark.shared_session  # the client sends the key: nothing of the daemon's start
def test_agent_model_errors_exit_1_with_a_hint(ko: Ko, server: PageServer) -> None:
    chat = FakeChat(server, lambda messages: (401, "Incorrect API key provided"))
    ko.ok("open", server.set_page("/form.html", FORM))
    result = ko(*agent_argv(chat), env={"FAKE_KEY": "bad"})
    assert result.returncode == 1
    line = one_line_error(result)
    assert "HTTP 401: Incorrect API key provided" in line
    assert "check --model, --base-url and the API key" in line
    assert "bad" not in line.split("HTTP 401")[0]  # the key is never printed


def test_agent_usage_errors_exit_2_without_a_daemon(ko: Ko, runtime: Runtime) -> None:
    goal = "Do something"
    no_model = ko("agent", goal, env=NO_MODEL_ENV)
    assert no_model.returncode == 2 and "agent needs a model" in one_line_error(no_model)
    assert "--model NAME" in one_line_error(no_model)
    no_var = ko("agent", goal, "--model", "m", "--api-key-env", "KB_UNSET_VAR", env=NO_MODEL_ENV)
    assert no_var.returncode == 2
    assert "$KB_UNSET_VAR is not set" in one_line_error(no_var)
    no_key = ko("agent", goal, "--model", "m", env=NO_MODEL_ENV)
    assert no_key.returncode == 2 and "agent needs an API key" in one_line_error(no_key)
    from_env = ko("agent", goal, env={**NO_MODEL_ENV, "KOBROWSER_MODEL": "m"})
    assert from_env.returncode == 2 and "API key" in one_line_error(from_env)
    assert ko("agent").returncode == 2  # no goal
    blank = ko("agent", " ", "--model", "m", env=NO_MODEL_ENV)
    assert blank.returncode == 2 and "agent needs a goal" in one_line_error(blank)
    assert ko("agent", goal, "--max-steps", "0").returncode == 2
    for result in (no_model, no_var, no_key):
        assert "Traceback" not in result.stderr and result.stdout == ""
    assert list(runtime.directory.glob("*.sock")) == []


def secret_policy(messages: list[dict[str, Any]]) -> str:
    """Fill the name with the secret {{WHO}} (never its value), greet, report."""
    page = messages[-1]["content"].rsplit("\nURL: ", 1)[1]
    greeting = re.search(r'\d+: text "(Hello [^"]*)"', page)
    if greeting:
        return f'done "{greeting.group(1)}"'
    name = re.search(r'(\d+): textbox "Name"', page)
    greet = re.search(r'(\d+): button "Greet"', page)
    assert name and greet, page
    return f'fill {name.group(1)} "{{{{WHO}}}}"\nclick {greet.group(1)}'


@pytest.mark.shared_session  # the client reads the secret and sends it with the command
def test_agent_fills_a_secret_the_model_never_sees(ko: Ko, server: PageServer) -> None:
    chat = FakeChat(server, secret_policy)
    ko.ok("open", server.set_page("/form.html", FORM))
    env = {"FAKE_KEY": "sk-cli", "KOBROWSER_SECRET_WHO": "Grace Hopper"}
    result = ko(*agent_argv(chat, "--secret", "WHO"), env=env)
    assert result.returncode == 0, result.stderr
    # The page got the value; the model, the steps and the answer only the name.
    assert ko.ok("eval", "document.getElementById('out').textContent") == "Hello Grace Hopper\n"
    assert len(chat.requests) == 2
    assert "Grace" not in json.dumps([r["body"] for r in chat.requests])
    assert "Hello {{WHO}}" in json.dumps(chat.requests[-1]["body"])
    assert "Grace" not in result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "Hello {{WHO}}"


def test_agent_secret_missing_from_the_environment_is_a_usage_error(
    ko: Ko, runtime: Runtime, server: PageServer
) -> None:
    chat = FakeChat(server, secret_policy)
    result = ko(*agent_argv(chat, "--secret", "NOPE"), env={"FAKE_KEY": "sk-cli"})
    assert result.returncode == 2
    assert "KOBROWSER_SECRET_NOPE" in one_line_error(result)
    assert chat.requests == []
    assert list(runtime.directory.glob("*.sock")) == []


def open_blocked_policy(target: str) -> Any:
    """Open ``target`` first; once that failed, report what the page is."""

    def reply(messages: list[dict[str, Any]]) -> str:
        history = json.dumps(messages)
        if "NavigationError" in history or "refused by policy" in history:
            return 'done "blocked"'
        return f"open {target}"

    return reply


@pytest.mark.shared_session
def test_agent_block_origin_keeps_the_model_off_an_origin(ko: Ko, server: PageServer) -> None:
    target = server.cross_url("/secret-page.html")  # http://localhost:PORT2: another origin
    server.set_page("/secret-page.html", "<title>secret</title><p>secret</p>")
    chat = FakeChat(server, open_blocked_policy(target))
    ko.ok("open", server.set_page("/form.html", FORM))
    result = ko(
        *agent_argv(chat, "--block-origin", "http://localhost:*"), env={"FAKE_KEY": "sk-cli"}
    )
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"1. open {target} -> failed:"), first
    assert "refused by policy" in first
    assert "/secret-page.html" not in [r.path for r in server.requests]
    assert ko.ok("get", "url") == server.url("/form.html") + "\n"


def click_download(messages: list[dict[str, Any]]) -> str:
    """Click the download link once; then report."""
    if "clicked" in json.dumps(messages):
        return 'done "downloaded"'
    page = messages[-1]["content"].rsplit("\nURL: ", 1)[1]
    link = re.search(r'(\d+): link "get report"', page)
    assert link, page
    return f"click {link.group(1)}"


@pytest.mark.shared_session
def test_agent_download_dir_receives_the_downloads(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    server.set_page(
        "/agent-report.csv",
        "a,b\n1,2\n",
        content_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="agent-report.csv"'},
    )
    chat = FakeChat(server, click_download)
    link = "<a href='/agent-report.csv' download>get report</a>"
    ko.ok("open", server.set_page("/dl.html", link))
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    result = ko(*agent_argv(chat, "--download-dir", str(downloads)), env={"FAKE_KEY": "sk-cli"})
    assert result.returncode == 0, result.stderr
    saved = downloads / "agent-report.csv"
    start = time.monotonic()  # the download may finish after the click's reply
    while not saved.exists() and time.monotonic() - start < COMMAND_TIMEOUT:
        time.sleep(0.05)
    assert saved.read_text() == "a,b\n1,2\n"


def test_agent_download_dir_must_exist(ko: Ko, runtime: Runtime, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    result = ko("agent", "x", "--model", "m", "--download-dir", str(missing),
                env={**NO_MODEL_ENV, "OPENAI_API_KEY": "sk"})  # fmt: skip
    assert result.returncode == 2
    assert f"--download-dir {missing}: no such directory" in one_line_error(result)
    assert list(runtime.directory.glob("*.sock")) == []
