#!/usr/bin/env bash
# Check the release packaging, outside the checkout (scripts/test.sh runs it):
#
#   1. python -m build makes an sdist and, from it, an abi3 wheel with the native
#      CBOR codec built against the stable ABI (KOBROWSER_LIMITED_API=1, as the
#      release wheels are; a failed compile fails the build: KOBROWSER_REQUIRE_EXTENSION=1);
#      the sdist holds the C sources and the stubs, the wheel the compiled codec
#      and `ko-browser` as the native client (a program) beside `ko-browser-py`.
#   2. The wheel goes into a fresh virtualenv in a temporary directory:
#      `ko-browser --help` runs and scripts/check_install.py finds the package
#      and its codec there (launch() would use the CBOR pipe), and `ko-browser`
#      is the native client.
#   3. The sdist is built again with the compiler disabled (CC=/bin/false):
#      the build still succeeds, and installed into another fresh virtualenv
#      the package imports and falls back to the JSON pipe, and `ko-browser`
#      is the script that runs the Python client.
#
# It builds what git sees in the working tree (tracked and untracked files, not
# ignored ones), copied to the temporary directory, so uncommitted changes count
# and nothing is written into the checkout. Builds run without isolation on
# .venv's setuptools and build (the dev extra); the fresh environments install
# the runtime dependencies with pip (PyPI or pip's cache).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"

say() { printf 'check-package: %s\n' "$*" >&2; }
die() { printf 'check-package: FAILED: %s\n' "$*" >&2; exit 1; }

[[ -x "$PY" ]] || die "no .venv; run scripts/setup.sh first"
"$PY" -c 'import build' 2>/dev/null || die "the 'build' package is missing from .venv (pip install -e '.[dev]')"
command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 \
    || die "needs a git checkout (it builds the files git sees)"

TMP="$(mktemp -d -t kobrowser-package.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
SRC="$TMP/src"
DIST="$TMP/dist"
mkdir -p "$SRC" "$DIST" "$TMP/nocc"

# The build must not inherit a caller's choice about the extension or the pipe.
unset KOBROWSER_NO_EXTENSION KOBROWSER_LIMITED_API KOBROWSER_REQUIRE_EXTENSION KOBROWSER_TRANSPORT
PIP=("$PY" -m pip --disable-pip-version-check --no-input)

# --- 1. sdist and wheel --------------------------------------------------------

say "copying the working tree (git ls-files) to a temporary directory"
git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$SRC"

say "python -m build (sdist, then the wheel from it, with the C codec)"
log="$TMP/build.log"
if ! KOBROWSER_REQUIRE_EXTENSION=1 KOBROWSER_LIMITED_API=1 "$PY" -m build --no-isolation --outdir "$DIST" "$SRC" \
    >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "python -m build failed (log above)"
fi
sdist=("$DIST"/*.tar.gz)
wheel=("$DIST"/*.whl)
[[ ${#sdist[@]} -eq 1 && -f "${sdist[0]}" ]] || die "expected one sdist in dist/, got: ${sdist[*]}"
[[ ${#wheel[@]} -eq 1 && -f "${wheel[0]}" ]] || die "expected one wheel in dist/, got: ${wheel[*]}"
say "built $(basename "${sdist[0]}") and $(basename "${wheel[0]}")"

# What each archive must and must not hold.
"$PY" - "${sdist[0]}" "${wheel[0]}" <<'PYCHECK' || die "the archives' contents are wrong (above)"
import re
import sys
import tarfile
import zipfile

sdist, wheel = sys.argv[1:]
with tarfile.open(sdist) as tar:
    # "ko_browser-0.1.0/kobrowser/..." -> "kobrowser/..."
    in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
with zipfile.ZipFile(wheel) as whl:
    in_wheel = set(whl.namelist())

rules = [
    ("sdist", in_sdist, True, r"kobrowser/cdp/_cbor\.c", "the codec's C source"),
    ("sdist", in_sdist, True, r"kobrowser/cli/_native/ko_browser\.c", "the native client's source"),
    ("sdist", in_sdist, True, r"kobrowser/cdp/_cbor\.pyi", "the codec's type stub"),
    ("sdist", in_sdist, True, r"kobrowser/py\.typed", "py.typed"),
    ("sdist", in_sdist, True, r"setup\.py", "setup.py"),
    ("sdist", in_sdist, True, r"kobrowser/cli/__init__\.py", "the CLI package"),
    ("sdist", in_sdist, False, r"tests/.*", "tests"),
    ("sdist", in_sdist, False, r".*\.(so|pyd|pyc)", "compiled files"),
    ("wheel", in_wheel, True, r"kobrowser/cdp/_cbor\.[^/]*\.so", "the compiled codec"),
    ("wheel", in_wheel, True, r"kobrowser/cdp/_cbor\.pyi", "the codec's type stub"),
    ("wheel", in_wheel, True, r"kobrowser/py\.typed", "py.typed"),
    ("wheel", in_wheel, True, r"ko_browser-[^/]*\.data/scripts/ko-browser", "the native client"),
    ("wheel", in_wheel, False, r".*\.[ch]", "C sources"),
    ("wheel", in_wheel, False, r"tests/.*", "tests"),
]
bad = 0
with zipfile.ZipFile(wheel) as whl:
    for name in in_wheel:
        if re.fullmatch(r"ko_browser-[^/]*\.data/scripts/ko-browser", name):
            if not whl.read(name).startswith(b"\x7fELF"):
                print("check-package: the wheel's ko-browser is not a program", file=sys.stderr)
                bad += 1
for kind, names, wanted, pattern, what in rules:
    found = sorted(n for n in names if re.fullmatch(pattern, n))
    if wanted and not found:
        print(f"check-package: the {kind} lacks {what} ({pattern})", file=sys.stderr)
        bad += 1
    elif not wanted and found:
        print(f"check-package: the {kind} holds {what}: {found[:5]}", file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PYCHECK

# install_into DIR WHEEL: a fresh virtualenv in DIR (no pip of its own: .venv's pip
# installs into it with --python) with WHEEL and its dependencies.
install_into() {
    local env="$1" whl="$2" log="$TMP/pip-install.log"
    "$PY" -m venv --without-pip "$env" || die "could not create a virtualenv in $env"
    if ! "${PIP[@]}" --python "$env/bin/python" install "$whl" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "pip install $(basename "$whl") failed (log above)"
    fi
}

# check_env DIR CODEC CLIENT: run the installed CLI and the import check from outside
# the checkout; CLIENT: native (ko-browser is a program) or python (a script).
check_env() {
    local env="$1" codec="$2" client="$3"
    (
        cd "$TMP"
        "$env/bin/ko-browser" --help >/dev/null || die "ko-browser --help failed in $env"
        "$env/bin/ko-browser-py" --help >/dev/null || die "ko-browser-py --help failed in $env"
        # An unknown command goes to the Python client either way: its usage error, status 2.
        status=0
        "$env/bin/ko-browser" no-such-command >/dev/null 2>&1 || status=$?
        [[ $status -eq 2 ]] || die "ko-browser no-such-command exited $status in $env, not 2"
        magic="$(head -c 4 "$env/bin/ko-browser" | od -An -c | tr -d ' ')"
        if [[ "$client" == native ]]; then
            [[ "$magic" == '177ELF' ]] || die "ko-browser in $env is not the native client"
        else
            [[ "$magic" == '#!'* ]] || die "ko-browser in $env is not the Python script"
        fi
        "$env/bin/python" -I "$SRC/scripts/check_install.py" --codec "$codec" >&2 \
            || die "the install in $env is wrong (above)"
    )
}

# --- 2. the wheel in a fresh virtualenv ------------------------------------------

say "installing the wheel into a fresh virtualenv"
install_into "$TMP/wheel-env" "${wheel[0]}"
check_env "$TMP/wheel-env" required native

# --- 3. the sdist without a compiler -----------------------------------------------

say "building the sdist with the compiler disabled (CC=/bin/false)"
log="$TMP/nocc.log"
if ! CC=/bin/false "${PIP[@]}" wheel --verbose --no-build-isolation --no-deps \
    --wheel-dir "$TMP/nocc" "${sdist[0]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "the sdist did not build without a compiler (log above)"
fi
# The compile must have been tried and have failed (not skipped).
grep -q 'kobrowser\.cdp\._cbor.*failed' "$log" \
    || { tail -n 40 "$log" >&2; die "the build log does not show the codec's compile failing"; }
grep -q 'ko-browser native client failed to build' "$log" \
    || { tail -n 40 "$log" >&2; die "the build log does not show the native client's compile failing"; }
nocc=("$TMP/nocc"/*.whl)
[[ ${#nocc[@]} -eq 1 && -f "${nocc[0]}" ]] || die "expected one wheel from the sdist, got: ${nocc[*]}"

say "installing it into another fresh virtualenv"
install_into "$TMP/nocc-env" "${nocc[0]}"
check_env "$TMP/nocc-env" absent python

say "ok: the wheel carries the codec and the native client; without a compiler the sdist installs, uses the JSON pipe and the Python client"
