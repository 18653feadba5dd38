"""Build hook for the optional C parts; everything else is in pyproject.toml.

``kobrowser.cdp._cbor`` transcodes Chrome's CBOR (``--remote-debugging-pipe=cbor``)
into JSON. It is optional: without a C compiler the install still succeeds and
``launch()`` talks JSON over the pipe instead.

The ``ko-browser`` command is the native client
(``kobrowser/cli/_native/ko_browser.c``, a program, no Python) when it compiles:
it serves the hot commands itself and runs ``ko-browser-py`` (the Python client,
a console script) for everything else. Without a compiler ``ko-browser`` is a
script that runs the Python client.

Environment:
    KOBROWSER_NO_EXTENSION=1: build neither the extension nor the native client.
    KOBROWSER_REQUIRE_EXTENSION=1: a failed compile (of either) fails the build
        (release wheels and ``scripts/check-package.sh`` set it, so a wheel never
        ships without them by accident).
    KOBROWSER_LIMITED_API=1: build against the stable ABI of Python 3.11
        (``Py_LIMITED_API``, an ``abi3`` wheel that serves 3.11 and later).
        ``_cbor.c`` does not compile that way yet, so release wheels are built
        per Python version; this switch is how to try it.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

from setuptools import Extension, setup

# setuptools' own copy of distutils (setuptools is imported first)
from distutils.ccompiler import new_compiler  # isort: skip
from distutils.command.build_scripts import build_scripts  # isort: skip
from distutils.errors import CCompilerError, DistutilsError  # isort: skip
from distutils.sysconfig import customize_compiler  # isort: skip

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

#: Where the ``ko-browser`` script is made (the native client, or the Python launcher).
SCRIPT = os.path.join("build", "ko-browser-script", "ko-browser")
NATIVE_SOURCE = os.path.join("kobrowser", "cli", "_native", "ko_browser.c")
LAUNCHER = """#!python
# The `ko-browser` command: the Python client (no native client was built).
import sys

from kobrowser.cli import main

sys.exit(main())
"""


class BuildScripts(build_scripts):  # type: ignore[misc]
    """Make ``ko-browser``: compile the native client, or write the Python launcher."""

    def run(self) -> None:
        os.makedirs(os.path.dirname(SCRIPT), exist_ok=True)
        self.native = bool(ext_modules) and os.name == "posix" and self._compile()
        if not self.native:
            with open(SCRIPT, "w", encoding="utf-8") as file:
                file.write(LAUNCHER)
        super().run()

    def _compile(self) -> bool:
        build_temp = os.path.join("build", "ko-browser-native")
        try:
            compiler = new_compiler()
            customize_compiler(compiler)
            objects = compiler.compile(
                [NATIVE_SOURCE], output_dir=build_temp, extra_postargs=["-O2", "-g0", "-std=c11"]
            )
            compiler.link_executable(objects, "ko-browser", output_dir=build_temp)
        except (CCompilerError, DistutilsError, OSError) as exc:
            if _flag("KOBROWSER_REQUIRE_EXTENSION"):
                raise
            print(
                f"ko-browser native client failed to build ({exc}); "
                "ko-browser runs the Python client",
                file=sys.stderr,
            )
            return False
        shutil.copyfile(os.path.join(build_temp, "ko-browser"), SCRIPT)
        return True

    def copy_scripts(self) -> tuple[list[str], list[str]]:
        if not self.native:  # the launcher: its `#!python` line is adjusted
            return super().copy_scripts()  # type: ignore[no-any-return]
        self.mkpath(self.build_dir)
        target = os.path.join(self.build_dir, "ko-browser")
        self.copy_file(SCRIPT, target)
        os.chmod(target, 0o755)
        return [target], [target]

    def get_source_files(self) -> list[str]:
        return []  # the sdist carries the C source (MANIFEST.in), not a built script


setup(
    ext_modules=ext_modules,
    options=options,
    scripts=[SCRIPT],
    cmdclass={"build_scripts": BuildScripts},
)
