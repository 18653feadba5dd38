#!/usr/bin/env bash
# Build the C snapshot walk (kobrowser/snapshot/_cwalk.c) with AddressSanitizer
# and UndefinedBehaviorSanitizer, then run the differential test against the
# Python walk (slow test included: thousands of random trees, malformed ones
# too) and the pure snapshot tests on that build. Not part of CI (slow); run
# it after changing the C code:   scripts/cwalk-asan.sh [extra pytest args]
source "$(dirname "${BASH_SOURCE[0]}")/_asan_build.sh" kobrowser/snapshot/_cwalk
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
