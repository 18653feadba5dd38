"""`ko-browser scrape`'s own parts (kobrowser.cli._scrape): its input, its resume file, argv.

The command end to end (processes, Chromium, JSONL) is tested in
tests/scrape/test_cli_scrape.py, beside the scrape fixtures it uses.
"""

from __future__ import annotations

from pathlib import Path

from kobrowser.cli._scrape import _without_command, read_urls, recorded


def test_read_urls_skips_blanks_comments_and_repeats(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("# list\nhttp://a/\n\n  http://b/  \nhttp://a/\n#http://c/\n")
    assert read_urls(str(source)) == ["http://a/", "http://b/"]


def test_recorded_reads_ok_and_failed_and_cuts_a_partial_last_line(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(
        b'{"url":"http://a/","ok":true}\n'
        b"not json\n"
        b'{"url":"http://b/","ok":false}\n'
        b'{"url":"http://b/","ok":true}\n'
        b'{"url":"http://c/","ok":false}\n'
        b'{"url":"http://d/","o'
    )
    found = recorded(str(out))
    assert found == {"http://a/": True, "http://b/": True, "http://c/": False}
    assert out.read_bytes().endswith(b'{"url":"http://c/","ok":false}\n')
    assert recorded(str(tmp_path / "none.jsonl")) == {}


def test_the_command_word_is_removed_after_global_options() -> None:
    assert _without_command(["scrape", "u.txt", "-o", "x"]) == ["u.txt", "-o", "x"]
    assert _without_command(["--cdp", "scrape", "scrape", "u"]) == ["--cdp", "scrape", "u"]
    assert _without_command(["--headed", "scrape", "scrape"]) == ["--headed", "scrape"]
