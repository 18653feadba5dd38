"""`ko-browser --version`: the package's version on stdout, exit 0, no library loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import kobrowser
from kobrowser.cli import main

from ..conftest import ko_command


def test_version_prints_the_package_version_and_exits_0() -> None:
    done = subprocess.run(
        [*ko_command(), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"ko-browser {kobrowser.__version__}\n",
        "",
    )


def test_version_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"ko-browser {kobrowser.__version__}\n"
    # A global option: it may come before a command, and the command is not run.
    assert main(["--version", "get", "title"]) == 0
    assert capsys.readouterr().out == f"ko-browser {kobrowser.__version__}\n"


def test_the_version_is_the_distributions() -> None:
    pyproject = Path(kobrowser.__file__).parents[1] / "pyproject.toml"
    if not pyproject.exists():  # pragma: no cover - an installed copy, not the checkout
        pytest.skip("no pyproject.toml beside the package")
    import tomllib

    project = tomllib.loads(pyproject.read_text())["project"]
    assert project["version"] == kobrowser.__version__


def test_version_loads_no_library_module() -> None:
    code = """
import sys
from kobrowser.cli import main
code = main(["--version"])
light = ("kobrowser.cli", "kobrowser._exceptions")
heavy = sorted(m for m in sys.modules
    if m.split(".")[0] in ("anyio", "aiohttp", "msgspec")
    or (m.startswith("kobrowser.") and not m.startswith(light)))
print(code, ",".join(heavy))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.splitlines()[-1].strip() == "0", done.stdout
