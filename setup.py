"""Build hook for the optional C extension; everything else is in pyproject.toml.

``kobrowser.cdp._cbor`` transcodes Chrome's CBOR (``--remote-debugging-pipe=cbor``)
into JSON. It is optional: without a C compiler the install still succeeds and
``launch()`` talks JSON over the pipe instead.

Environment:
    KOBROWSER_NO_EXTENSION=1: do not build the extension at all.
    KOBROWSER_REQUIRE_EXTENSION=1: a failed compile fails the build (release
        wheels and ``scripts/check-package.sh`` set it, so a wheel never ships
        without the codec by accident).
    KOBROWSER_LIMITED_API=1: build against the stable ABI of Python 3.11
        (``Py_LIMITED_API``, an ``abi3`` wheel that serves 3.11 and later).
        ``_cbor.c`` does not compile that way yet, so release wheels are built
        per Python version; this switch is how to try it.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import Extension, setup

LIMITED_API_VERSION = 0x030B0000  # Python 3.11, the oldest version pyproject.toml allows
LIMITED_API_TAG = "cp311"


def _flag(name: str) -> bool:
    return os.environ.get(name) == "1"


ext_modules: list[Extension] = []
options: dict[str, Any] = {}
if not _flag("KOBROWSER_NO_EXTENSION"):
    limited = _flag("KOBROWSER_LIMITED_API")
    flags = ["-O2", "-std=c11"] if os.name != "nt" else []
    if limited and os.name != "nt":
        # A call outside the limited API is undeclared there: make it an error, not a
        # warning and an extension that fails to load (or loads only on this version).
        flags.append("-Werror=implicit-function-declaration")
    ext_modules.append(
        Extension(
            "kobrowser.cdp._cbor",
            sources=["kobrowser/cdp/_cbor.c"],
            # Optional: a failed build is a warning and the JSON pipe is the fallback.
            optional=not _flag("KOBROWSER_REQUIRE_EXTENSION"),
            extra_compile_args=flags,
            define_macros=[("Py_LIMITED_API", hex(LIMITED_API_VERSION))] if limited else [],
            py_limited_api=limited,
        )
    )
    if limited:
        options["bdist_wheel"] = {"py_limited_api": LIMITED_API_TAG}

setup(ext_modules=ext_modules, options=options)
