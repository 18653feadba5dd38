"""Check an installed kobrowser (a wheel or an sdist install), not the checkout.

Run it with the environment's interpreter in isolated mode from outside the
source tree, so ``import kobrowser`` cannot find the checkout::

    python -I scripts/check_install.py --codec required   # a release wheel
    python -I scripts/check_install.py --codec absent     # built without a compiler

It checks that the package and its CDP layer import from that environment's
site-packages, that the type stubs and ``py.typed`` are installed, and that
the native CBOR codec is present and used (``--codec required``) or absent
with launches falling back to the JSON pipe (``--codec absent``).
scripts/check-package.sh and cibuildwheel's test command (pyproject.toml) run it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path


def check(codec: str) -> list[str]:
    """Return what is wrong with the installed package (empty when it is right)."""
    import kobrowser
    import kobrowser.cdp

    problems: list[str] = []
    root = Path(kobrowser.__file__).resolve().parent
    prefix = Path(sys.prefix).resolve()
    if not root.is_relative_to(prefix):
        problems.append(f"kobrowser was imported from {root}, not from this environment ({prefix})")
    for name in ("py.typed", "cdp/_cbor.pyi"):
        if not (root / name).is_file():
            problems.append(f"{name} is not installed (package data)")
    if list(root.rglob("*.c")):
        problems.append("C sources were installed with the package (they belong in the sdist)")

    os.environ.pop("KOBROWSER_TRANSPORT", None)  # ask for the default choice
    spec = importlib.util.find_spec("kobrowser.cdp._cbor")
    transport = kobrowser.cdp.choose_transport()
    if codec == "required":
        if spec is None:
            problems.append("the native codec kobrowser.cdp._cbor is not installed")
        if transport != "pipe-cbor":
            problems.append(f"launch() would use {transport!r}, not the codec ('pipe-cbor')")
    else:
        if spec is not None:
            problems.append(f"kobrowser.cdp._cbor is installed ({spec.origin}); expected none")
        if transport != "pipe-json":
            problems.append(f"launch() would use {transport!r}, not the JSON fallback")
    print(f"kobrowser {root}: launch() transport {transport}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--codec",
        choices=("required", "absent"),
        required=True,
        help="whether the native CBOR codec must be installed or must be missing",
    )
    problems = check(parser.parse_args().codec)
    for problem in problems:
        print(f"check_install: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
