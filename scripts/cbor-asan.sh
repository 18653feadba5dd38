#!/usr/bin/env bash
# Build the CBOR codec (kobrowser/cdp/_cbor.c) with AddressSanitizer and
# UndefinedBehaviorSanitizer, then run its unit tests, the pipe transport
# tests and a mutation fuzzer (random bytes, truncations and bit flips of
# Chrome-shaped messages) against that build. Not part of CI (slow); run it
# after changing the C code:   scripts/cbor-asan.sh [fuzz seconds, default 60]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$ROOT/kobrowser" "$WORK/"
rm -f "$WORK"/kobrowser/cdp/_cbor*.so
INC="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
SUFFIX="$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
gcc -g -O1 -std=c11 -fPIC -shared -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined -I"$INC" "$ROOT/kobrowser/cdp/_cbor.c" \
    -o "$WORK/kobrowser/cdp/_cbor$SUFFIX"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export KOBROWSER_ASAN_PKG="$WORK"
cd "$ROOT"
"$PY" - <<'PYTEST'
import os, sys
sys.path.insert(0, os.environ["KOBROWSER_ASAN_PKG"])
import kobrowser.cdp._cbor as codec
assert codec.__file__.startswith(os.environ["KOBROWSER_ASAN_PKG"]), codec.__file__
import pytest
code = pytest.main(["tests/cdp/test_cbor.py", "tests/cdp/test_cbor_lean.py",
                    "tests/cdp/test_cbor_lean_clickable.py", "tests/cdp/test_pipe.py",
                    "-q", "-p", "no:randomly",
                    "-W", "ignore::pytest.PytestAssertRewriteWarning"])
print("sanitized codec:", codec.__file__)
sys.exit(code)
PYTEST
"$PY" "$ROOT/scripts/cbor_fuzz.py" "${1:-60}"
