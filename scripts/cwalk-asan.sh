#!/usr/bin/env bash
# Build the C snapshot walk (kobrowser/snapshot/_cwalk.c) with AddressSanitizer
# and UndefinedBehaviorSanitizer, then run the differential test against the
# Python walk (slow test included: thousands of random trees, malformed ones
# too) and the pure snapshot tests on that build. Not part of CI (slow); run
# it after changing the C code:   scripts/cwalk-asan.sh [extra pytest args]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$ROOT/kobrowser" "$WORK/"
rm -f "$WORK"/kobrowser/snapshot/_cwalk*.so
INC="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
SUFFIX="$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
gcc -g -O1 -std=c11 -fPIC -shared -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined -I"$INC" "$ROOT/kobrowser/snapshot/_cwalk.c" \
    -o "$WORK/kobrowser/snapshot/_cwalk$SUFFIX"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export KOBROWSER_ASAN_PKG="$WORK"
cd "$ROOT"
"$PY" - "$@" <<'PYTEST'
import os, sys
os.environ.pop("LD_PRELOAD")  # loaded here; not for the browsers some tests start
sys.path.insert(0, os.environ["KOBROWSER_ASAN_PKG"])
import kobrowser.snapshot._cwalk as cwalk
from kobrowser.snapshot import _tree
assert cwalk.__file__.startswith(os.environ["KOBROWSER_ASAN_PKG"]), cwalk.__file__
assert _tree._CWALK is not None
import pytest
code = pytest.main(["tests/snapshot", "--ignore-glob=*test_browser_*", "-q", "-p", "no:randomly",
                    "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning",
                    *sys.argv[1:]])
print("sanitized walk:", cwalk.__file__)
sys.exit(code)
PYTEST
