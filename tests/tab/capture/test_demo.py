"""examples/demo.py --screenshot makes the README's annotated picture as documented."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.browser
def test_demo_writes_an_annotated_screenshot(tmp_path: Path) -> None:
    target = tmp_path / "demo.png"
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), "--screenshot", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert 'iframe "Payment"' in result.stdout
    image = Image.open(io.BytesIO(target.read_bytes()))
    image.load()
    committed = Image.open(io.BytesIO((ROOT / "docs" / "demo-annotated.png").read_bytes()))
    assert image.size == committed.size  # the committed picture is of the same page and size
    assert f"annotated screenshot: {target}" in result.stderr


def test_the_readme_shows_the_committed_picture() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "](docs/demo-annotated.png)" in readme
    assert (ROOT / "docs" / "demo-annotated.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
