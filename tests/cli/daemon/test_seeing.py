"""`ko-browser screenshot`, `pdf` and `diff` end to end (a real daemon and Chromium)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from _server import PageServer
from PIL import Image

from ..conftest import Ko

pytestmark = pytest.mark.timeout(300)

PAGE = """<!doctype html><title>Shop</title>
<h1>Cart</h1>
<ul id="list"><li>One</li><li>Two</li></ul>
<label>Email <input id="email" value="ana"></label>
<button>Order</button>
"""


def _image(path: Path) -> Image.Image:
    image = Image.open(io.BytesIO(path.read_bytes()))
    image.load()
    return image


@pytest.mark.shared_session
def test_screenshot_prints_the_path_and_writes_the_image(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    ko.ok("open", server.set_page("/cli-shot.html", PAGE))
    ko.ok("snapshot")
    target = tmp_path / "shot.png"
    assert ko.ok("screenshot", str(target)) == f"{target}\n"
    width, height = _image(target).size
    view = json.loads(
        ko.ok(
            "eval",
            "JSON.stringify([innerWidth, innerHeight, document.documentElement.scrollHeight])",
        )
    )
    assert (width, height) == (view[0], view[1])
    full = tmp_path / "full.png"
    ko.ok("screenshot", str(full), "--full", "--annotate")
    assert _image(full).size == (view[0], view[2])
    # One element: relative paths are the caller's, not the daemon's.
    snap = ko.ok("snapshot")
    button = int(re.search(r"(\d+): button \"Order\"", snap).group(1))  # type: ignore[union-attr]
    result = ko("screenshot", "el.jpg", "--id", str(button), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{tmp_path / 'el.jpg'}\n"
    assert (tmp_path / "el.jpg").read_bytes()[:3] == b"\xff\xd8\xff"
    # No PATH: a timestamped PNG in the current directory.
    result = ko("screenshot", "--annotate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = Path(result.stdout.strip())
    assert written.parent == tmp_path and written.name.startswith("screenshot-")
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = ko.json("screenshot", str(tmp_path / "j.png"))
    assert data["result"]["path"] == str(tmp_path / "j.png")
    assert data["result"]["bytes"] == (tmp_path / "j.png").stat().st_size


@pytest.mark.shared_session
def test_screenshot_errors(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    ko.ok("open", server.set_page("/cli-shot-err.html", PAGE))
    missing = ko("screenshot", str(tmp_path / "nope" / "x.png"))
    assert missing.returncode == 1 and "no such directory" in missing.stderr
    no_snap = ko("screenshot", str(tmp_path / "a.png"), "--annotate")
    assert no_snap.returncode == 1
    assert "take a snapshot first" in no_snap.stderr and "ko-browser snapshot" in no_snap.stderr
    ko.ok("snapshot")
    unknown = ko("screenshot", str(tmp_path / "b.png"), "--id", "999")
    assert unknown.returncode == 1 and "no element 999" in unknown.stderr
    both = ko("screenshot", str(tmp_path / "c.png"), "--id", "1", "--full")
    assert both.returncode == 2 and "cannot be combined" in both.stderr
    bad = ko("screenshot", "--id", "x")
    assert bad.returncode == 2


@pytest.mark.shared_session
def test_pdf(ko: Ko, server: PageServer, tmp_path: Path) -> None:
    ko.ok("open", server.set_page("/cli-pdf.html", PAGE))
    target = tmp_path / "page.pdf"
    assert ko.ok("pdf", str(target), "--paper", "Letter", "--landscape") == f"{target}\n"
    assert target.read_bytes().startswith(b"%PDF")
    assert ko("pdf", str(target), "--scale", "9").returncode == 2
    assert ko("pdf").returncode == 2


@pytest.mark.shared_session
def test_diff_against_the_previous_snapshot_and_a_baseline(
    ko: Ko, server: PageServer, tmp_path: Path
) -> None:
    ko.ok("open", server.set_page("/cli-diff.html", PAGE))
    first = ko("diff")
    assert first.returncode == 1 and "no previous snapshot" in first.stderr
    baseline = tmp_path / "before.txt"
    baseline.write_text(ko.ok("snapshot"))
    assert ko.ok("diff") == "no changes\n"
    ko.ok(
        "eval", "document.getElementById('list').insertAdjacentHTML('afterbegin', '<li>Zero</li>')"
    )
    out = ko.ok("diff").splitlines()
    assert [re.sub(r"\d+", "N", line) for line in out] == ["+ N: listitem", '+ N: text "Zero"']
    # The ids printed are the new snapshot's: the session acts with them.
    text_id = int(out[1].split(":")[0][2:])
    assert ko.ok("get", "text", str(text_id)) == "Zero\n"
    # Nothing changed since the diff's own snapshot.
    assert ko.ok("diff") == "no changes\n"
    # A saved baseline: the change since then, whatever the session's snapshots.
    ko.ok("eval", "document.getElementById('email').value = 'bob'")
    data = ko.json("diff", "--baseline", str(baseline))
    result = data["result"]
    assert result["changed"] is True
    kinds = sorted((e["kind"], e["role"]) for e in result["entries"])
    assert kinds == [("added", "listitem"), ("added", "text"), ("changed", "textbox")]
    changed = next(e for e in result["entries"] if e["kind"] == "changed")
    assert (changed["value"], changed["old_value"]) == ("bob", "ana")
    # The --json output of `snapshot` is a baseline too.
    saved = tmp_path / "snap.json"
    saved.write_text(ko.ok("--json", "snapshot"))
    assert ko.ok("diff", "--baseline", str(saved)) == "no changes\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n")
    failed = ko("diff", "--baseline", str(bad))
    assert failed.returncode == 1 and "not a snapshot" in failed.stderr
    gone = ko("diff", "--baseline", str(tmp_path / "missing.txt"))
    assert gone.returncode == 1 and "cannot read" in gone.stderr


@pytest.mark.shared_session
def test_diff_keeps_the_mode_of_the_previous_snapshot(ko: Ko, server: PageServer) -> None:
    ko.ok("open", server.set_page("/cli-diff-mode.html", PAGE))
    ko.ok("snapshot", "-i")
    # Interactive mode again: no text or list lines appear as "added".
    assert ko.ok("diff") == "no changes\n"
    ko.ok(
        "eval",
        "document.body.insertAdjacentHTML('beforeend', '<p>plain text</p><a href=#x>Go</a>')",
    )
    assert ko.ok("diff") == '+ 3: link "Go"\n'
    # Its own flags win, and become the mode of the next diff.
    out = ko.ok("diff", "--no-clickable", "-c")
    assert "link" not in out and 'text "plain text"' in out
    assert ko.ok("diff") == "no changes\n"


@pytest.mark.shared_session
def test_snapshot_diff_prints_the_change_or_the_whole_snapshot(ko: Ko, server: PageServer) -> None:
    url = server.set_page("/cli-snapdiff.html", PAGE)
    ko.ok("open", url)
    # No snapshot of this tab yet: the whole snapshot.
    whole = ko.ok("snapshot", "--diff")
    assert whole.startswith('Page: "Shop"') and 'button "Order"' in whole
    assert ko.ok("snapshot", "--diff") == "no changes\n"
    ko.ok("eval", "document.body.insertAdjacentHTML('beforeend', '<ul><li>Zero</li></ul>')")
    out = ko.ok("snapshot", "--diff").splitlines()
    assert [re.sub(r"\d+", "N", line) for line in out] == [
        "+ N: list",
        "+ N: listitem",
        '+ N: text "Zero"',
    ]
    text_id = int(out[2].split(":")[0][2:])
    assert ko.ok("get", "text", str(text_id)) == "Zero\n"  # the ids the session acts with
    # Depth-first ids: a line inserted above renumbers the lines below, which a
    # diff leaves out, so the whole snapshot comes (every id it prints holds).
    before = ko.ok("snapshot")
    ko.ok("eval", "document.getElementById('list').insertAdjacentHTML('afterbegin', '<li>Up</li>')")
    shifted = ko.json("snapshot", "--diff")["result"]
    assert shifted["whole"] is True and 'text "Up"' in shifted["text"]
    order = re.search(r'(\d+): button "Order"', shifted["text"])
    assert order and f'{order.group(1)}: button "Order"' not in before  # it was renumbered
    data = ko.json("snapshot", "--diff")["result"]
    assert (data["whole"], data["changed"], data["entries"]) == (False, False, [])
    # After a navigation: the whole snapshot again.
    ko.ok("reload")
    again = ko.json("snapshot", "--diff")["result"]
    assert again["whole"] is True and 'button "Order"' in again["text"]


@pytest.mark.shared_session
def test_snapshot_diff_prints_the_whole_snapshot_when_that_is_shorter(
    ko: Ko, server: PageServer
) -> None:
    items = "".join(f"<li><button>Old item {i}</button></li>" for i in range(6))
    url = server.set_page("/cli-snapdiff-long.html", f"<title>List</title><ul id=l>{items}</ul>")
    ko.ok("open", url)
    ko.ok("snapshot")
    ko.ok("eval", "l.innerHTML = [0,1,2,3,4,5].map(i => `<li><button>New ${i}</button></li>`)")
    # Six lines removed and six added print longer than the page's seven lines.
    data = ko.json("snapshot", "--diff")["result"]
    assert data["whole"] is True and 'button "New 5"' in data["text"]
    assert "Old item" not in data["text"]


def test_a_session_with_stable_ids(ko: Ko, server: PageServer) -> None:
    url = server.set_page("/cli-stable.html", PAGE)
    ko.ok("--ids", "stable", "open", url)
    first = ko.ok("snapshot")
    order = re.search(r"(\d+): button \"Order\"", first).group(1)  # type: ignore[union-attr]
    ko.ok("eval", "document.querySelector('h1').insertAdjacentHTML('afterend', '<p>News</p>')")
    second = ko.ok("snapshot")
    assert f'{order}: button "Order"' in second
    ids = [int(line.split(":")[0]) for line in second.splitlines()[2:]]
    assert ids != sorted(ids)  # document order, not ascending
    ko.ok(
        "eval", "document.querySelector('p').remove(); document.getElementById('email').value='x'"
    )
    out = ko.ok("snapshot", "--diff").splitlines()
    assert out[0].startswith('- text "News" (was ')
    assert re.fullmatch(r'~ \d+: textbox "Email" value="x" \(was value="ana"\)', out[1])
    assert len(out) == 2
    ko.ok("click", order)  # the id from the first snapshot still acts
    # The session keeps its numbering: asking for the other one is refused.
    other = ko("--ids", "depth-first", "snapshot")
    assert other.returncode != 0 and "--ids" in other.stderr
    bad = ko("--ids", "random", "snapshot")
    assert bad.returncode == 2
