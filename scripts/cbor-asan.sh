#!/usr/bin/env bash
# Build the CBOR codec (kobrowser/cdp/_cbor.c) with AddressSanitizer and
# UndefinedBehaviorSanitizer, then run its unit tests (projections included),
# the pipe transport tests and a mutation fuzzer (random bytes, truncations
# and bit flips of Chrome-shaped messages) against that build. scripts/test.sh
# runs it with a short fuzz budget; after changing the C code run it longer:
#   scripts/cbor-asan.sh [fuzz seconds, default 60]
# Needs gcc and its sanitizer runtimes (libasan, libubsan: Debian's gcc
# brings them).
source "$(dirname "${BASH_SOURCE[0]}")/_asan_build.sh" kobrowser/cdp/_cbor
"$PY" - <<'PYTEST'
import os, sys
sys.path.insert(0, os.environ["KOBROWSER_ASAN_PKG"])
import kobrowser.cdp._cbor as codec
assert codec.__file__.startswith(os.environ["KOBROWSER_ASAN_PKG"]), codec.__file__
import pytest
code = pytest.main(["tests/cdp/test_cbor.py", "tests/cdp/test_cbor_lean.py",
                    "tests/cdp/test_cbor_lean_clickable.py",
                    "tests/cdp/test_cbor_clickable_map.py", "tests/cdp/test_keep.py",
                    "tests/cdp/test_pipe.py",
                    "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                    "-W", "ignore::pytest.PytestAssertRewriteWarning"])
print("sanitized codec:", codec.__file__)
sys.exit(code)
PYTEST
"$PY" "$ROOT/scripts/cbor_fuzz.py" "${1:-60}"
