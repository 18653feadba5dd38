"""Build hook for the optional C extension; everything else is in pyproject.toml.

``kobrowser.cdp._cbor`` transcodes Chrome's CBOR (``--remote-debugging-pipe=cbor``)
into JSON. It is optional: without a C compiler the install still succeeds and
``launch()`` talks JSON over the pipe instead. Set ``KOBROWSER_NO_EXTENSION=1``
to skip it on purpose.
"""

from __future__ import annotations

import os

from setuptools import Extension, setup

ext_modules = []
if os.environ.get("KOBROWSER_NO_EXTENSION") != "1":
    flags = ["-O2", "-std=c11"] if os.name != "nt" else []
    ext_modules.append(
        Extension(
            "kobrowser.cdp._cbor",
            sources=["kobrowser/cdp/_cbor.c"],
            optional=True,  # a failed build is a warning; the JSON pipe is the fallback
            extra_compile_args=flags,
        )
    )

setup(ext_modules=ext_modules)
