"""`ko-browser network har` and `ko-browser record start/stop` end to end (real
daemon and Chromium): the HAR holds the session's requests and is valid HAR
1.2; the video decodes, at its size, and shows the page change; bad input."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from _har_spec import har_problems
from _server import PageServer

from ..conftest import Ko

pytestmark = pytest.mark.timeout(300)

_PAGE = (
    "<!doctype html><title>rec</title><body style='margin:0;height:100vh;"
    "background:rgb(220,20,20)' onclick=\"document.body.style.background='rgb(20,200,40)'\">"
    "<img src='/cli-rec/pic.svg'></body>"
)
_SVG = "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'></svg>"


@pytest.mark.shared_session
def test_network_har(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    server.set_page("/cli-rec/pic.svg", _SVG, content_type="image/svg+xml")
    url = server.set_page("/cli-rec/page.html", _PAGE)
    ko.ok("open", url)
    ko.ok("eval", "fetch('/cli-rec/page.html?again=1').then(r => r.status)")
    out = tmp_path / "session.har"
    said = ko.ok("network", "har", str(out))
    assert said.startswith("wrote ") and said.rstrip().endswith(str(out))
    document = json.loads(out.read_text())
    assert har_problems(document) == []
    urls = [entry["request"]["url"] for entry in document["log"]["entries"]]
    for wanted in (url, server.url("/cli-rec/pic.svg"), url + "?again=1"):
        assert urls.count(wanted) == 1, wanted
    # A relative path is the client's working directory's, as for screenshots.
    result = ko("network", "har", "relative.har", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert har_problems(json.loads((tmp_path / "relative.har").read_text())) == []
    # A directory that does not exist: a usage error naming the argument.
    bad = ko("network", "har", str(tmp_path / "missing" / "x.har"))
    assert bad.returncode == 2 and "path" in bad.stderr


@pytest.mark.shared_session
def test_record_start_stop(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    av = pytest.importorskip("av")
    server.set_page("/cli-rec/pic.svg", _SVG, content_type="image/svg+xml")
    ko.ok("open", server.set_page("/cli-rec/page.html", _PAGE))
    assert ko("record", "stop", str(tmp_path / "none.webm")).returncode == 1  # nothing to stop
    assert ko.ok("record", "start", "--size", "320x180", "--fps", "10").startswith("recording")
    again = ko("record", "start")
    assert again.returncode == 1 and "running already" in again.stderr
    time.sleep(1)  # the recording's length; nothing here measures speed
    ko.ok("eval", "document.body.click()")
    time.sleep(1)
    wrong = ko("record", "stop", str(tmp_path / "out.mp4"))  # recorded as WebM
    assert wrong.returncode == 2 and "webm" in wrong.stderr
    out = tmp_path / "out.webm"
    said = json.loads(ko.ok("--json", "record", "stop", str(out)))
    assert said["ok"] and said["result"]["path"] == str(out)
    with av.open(str(out)) as container:
        frames = [f.to_image() for f in container.decode(container.streams.video[0])]
    assert len(frames) == said["result"]["frames"] >= 10
    assert {f.size for f in frames} == {(320, 180)}
    first, last = (f.convert("RGB").getpixel((160, 90)) for f in (frames[0], frames[-1]))
    assert first[0] > 150 and first[1] < 100, first  # red
    assert last[1] > 150 and last[0] < 100, last  # green after the click
    bad = ko("record", "start", "--size", "big")
    assert bad.returncode == 2 and "size" in bad.stderr
