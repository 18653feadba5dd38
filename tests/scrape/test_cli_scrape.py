"""`ko-browser scrape` end to end: real command processes, Chromium, JSONL files."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from _server import PageServer

from ._chrome import EndpointChrome, live_group_members

pytestmark = pytest.mark.timeout(300)

COMMAND_TIMEOUT = 240.0


def ko_scrape() -> list[str]:
    script = Path(sys.executable).with_name("ko-browser")
    if script.exists():
        return [str(script), "scrape"]
    return [sys.executable, "-m", "kobrowser.cli", "scrape"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ko_scrape(), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )


def records(path: Path) -> list[dict[str, object]]:
    text = path.read_text()
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def page(title: str) -> str:
    return f"<!doctype html><title>{title}</title><h1>{title}</h1>"


def test_jsonl_out_summary_on_stderr_exit_1_when_any_failed(
    server: PageServer, endpoint: EndpointChrome, tmp_path: Path
) -> None:
    good = [server.set_page(f"/cli/{i}", page(f"Cli {i}")) for i in range(3)]
    missing = server.set_page("/cli/missing", page("Gone"), status=404)
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(["# a comment", *good, "", missing, "not a url", good[0]]) + "\n")
    out = tmp_path / "out.jsonl"
    result = run(str(urls), "-o", str(out), "--cdp", endpoint.http, "--retries", "0")
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    (summary,) = result.stderr.splitlines()  # piped: the summary only, no progress bar
    assert summary.startswith("ko-browser scrape: 5 of 5 URLs: 3 ok, 2 failed in ")
    found = {r["url"]: r for r in records(out)}
    assert len(records(out)) == 5 and sorted(found) == sorted([*good, missing, "not a url"])
    assert all(found[url]["ok"] and found[url]["title"] == f"Cli {i}" for i, url in enumerate(good))
    assert found[missing]["error"] == "HTTP 404 Not Found"
    assert str(found["not a url"]["error"]).startswith("malformed URL")


def test_resume_skips_recorded_urls_and_repairs_a_cut_line(
    server: PageServer, endpoint: EndpointChrome, tmp_path: Path
) -> None:
    urls = [server.set_page(f"/res/{i}", page(f"Res {i}")) for i in range(6)]
    first, everything = tmp_path / "first.txt", tmp_path / "all.txt"
    first.write_text("\n".join(urls[:3]) + "\n")
    everything.write_text("\n".join(urls) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(str(first), "-o", str(out), "--cdp", endpoint.http).returncode == 0
    with out.open("a") as file:
        file.write('{"url": "' + urls[4] + '", "ok": tr')  # a crash in mid-line
    result = run(str(everything), "-o", str(out), "--cdp", endpoint.http, "--resume")
    assert result.returncode == 0, result.stderr
    assert "3 already in" in result.stderr
    lines = records(out)
    assert sorted(str(r["url"]) for r in lines) == sorted(urls)  # each once, cut line gone
    assert all(r["ok"] for r in lines)
    assert [server.request_count(f"/res/{i}") for i in range(6)] == [1] * 6


@pytest.mark.browser
def test_stdin_to_stdout_with_a_local_chrome(server: PageServer) -> None:
    urls = [
        server.set_page(f"/pipe/{i}", page(f"Pipe {i}") + "<button>Go</button>") for i in range(2)
    ]
    result = run("-", "--concurrency", "2", "-i", stdin="\n".join(urls) + "\n")
    assert result.returncode == 0, result.stderr
    found = {r["url"]: r for r in map(json.loads, result.stdout.splitlines())}
    assert sorted(found) == sorted(urls)
    for i, url in enumerate(urls):
        snapshot = found[url]["snapshot"]
        assert found[url]["ok"] and found[url]["title"] == f"Pipe {i}"
        assert 'button "Go"' in snapshot and "heading" not in snapshot  # -i: interactive only


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["{missing}"],
        ["{urls}", "--resume"],
        ["{urls}", "--cdp", "127.0.0.1:9", "--browsers", "2"],
        ["{urls}", "--concurrency", "0"],
        ["{urls}", "--per-host", "-1"],
        ["{urls}", "--text-limit", "0"],
        ["{urls}", "--text-limit", "3"],
        ["{urls}", "--wait-until", "later"],
        ["{urls}", "--json"],
        ["{urls}", "--timeout", "inf"],
        ["{urls}", "--timeout", "nan"],
        ["{urls}", "--timeout", "-1"],
        ["{urls}", "--timeout", "0"],
        ["{urls}", "--retries", "1e3"],
        ["{urls}", "--depth", "-1"],
        ["{urls}", "--browsers", "nan"],
    ],
)
def test_bad_usage_exits_2_without_a_browser(argv: list[str], tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("http://127.0.0.1:9/\n")
    args = [a.format(urls=urls, missing=tmp_path / "missing.txt") for a in argv]
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("ko-browser scrape: error: ")
    assert result.stdout == ""


def test_help_lists_the_options_and_the_main_help_mentions_scrape() -> None:
    result = run("--help")
    assert result.returncode == 0
    for option in ("--concurrency", "--cdp", "--browsers", "--retries", "--resume", "-i"):
        assert option in result.stdout
    assert "--text-limit N|none" in result.stdout and "--per-host" in result.stdout
    main_help = subprocess.run(
        [*ko_scrape()[:-1], "--help"], capture_output=True, text=True, check=False
    )
    assert "ko-browser scrape URLS_FILE" in main_help.stdout


def test_progress_bar_on_a_terminal(
    server: PageServer, endpoint: EndpointChrome, tmp_path: Path
) -> None:
    urls = [server.set_page(f"/bar/{i}", page(f"Bar {i}")) for i in range(4)]
    urls.append("http://nonexistent.invalid/")
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(urls) + "\n")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        process = subprocess.run(
            [*ko_scrape(), str(source), "-o", str(tmp_path / "out.jsonl"), "--cdp", endpoint.http],
            stderr=slave,
            stdout=subprocess.DEVNULL,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    finally:
        os.close(slave)
        reader.join(30)
        os.close(master)
    screen = b"".join(chunks).decode(errors="replace")
    assert process.returncode == 1, screen
    assert "5/5" in screen and "failed=1" in screen and "page/s" in screen  # tqdm's bar
    assert "ko-browser scrape: 5 of 5 URLs: 4 ok, 1 failed" in screen


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.browser
def test_interrupt_leaves_valid_jsonl_and_no_chrome(server: PageServer, tmp_path: Path) -> None:
    fast = server.set_page("/int/fast", page("Fast"))
    server.hold("/int/slow")
    source = tmp_path / "urls.txt"
    source.write_text("\n".join([fast, *(server.url(f"/int/slow?i={i}") for i in range(3))]))
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [*ko_scrape(), str(source), "-o", str(out), "--per-host", "none"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C at a terminal: the command must not inherit an ignored SIGINT
        # (a suite run as a script's background job ignores it, and so did the
        # command then: it ran to its pages' timeouts and exited 1).
        preexec_fn=_sigint_default,
    )
    try:
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while time.monotonic() < deadline and not (out.exists() and out.read_text()):
            time.sleep(0.05)
        while time.monotonic() < deadline and server.request_count("/int/slow") < 3:
            time.sleep(0.05)
        chrome_pids = [pid for pid in _descendants(process.pid) if "chrom" in _cmdline(pid)]
        assert chrome_pids, "no Chrome under the command"
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=COMMAND_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr
    assert [r["url"] for r in records(out)] == [fast]
    for pid in chrome_pids:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and live_group_members(pid):
            time.sleep(0.05)
        assert not live_group_members(pid), f"Chrome {pid} outlived the interrupted command"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        for child in children.get(pid, []):
            found.append(child)
            stack.append(child)
    return found
