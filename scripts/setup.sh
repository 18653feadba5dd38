#!/usr/bin/env bash
# Set up everything kobrowser needs to run and to be tested. Idempotent and
# fast when already done.
#
#   1. .venv with Python >= 3.11 and `pip install -e '.[dev]'` (skipped when
#      the stamp in .venv matches the current pyproject.toml)
#   2. a Chrome/Chromium, found the same way the library finds it; when none is
#      found: installs Debian's `chromium` as root, or prints the command to run
#   3. React 18 UMD builds for the browser tests (only when npm exists), copied
#      to tests/pages/vendor/ (not committed)
#   4. `unshare` (util-linux) and `ip` (iproute2) for tests/scrape_ray/, whose Ray
#      clusters each run in a network namespace of their own (installed as root
#      with apt-get when missing)
#
# Environment: PYTHON (interpreter for a new .venv), KOBROWSER_CHROME /
# CHROME_PATH (explicit browser), KOBROWSER_SKIP_NPM=1 (skip step 3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# --- 1. Python virtual environment ------------------------------------------

py_ok() {  # py_ok INTERPRETER -> true when it is Python >= 3.11
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null
}

find_python() {
    local cand
    for cand in "${PYTHON:-}" python3 python3.13 python3.12 python3.11 python; do
        [[ -n "$cand" ]] || continue
        if command -v "$cand" >/dev/null 2>&1 && py_ok "$cand"; then
            command -v "$cand"
            return 0
        fi
    done
    return 1
}

VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
STAMP="$VENV/.kobrowser-setup-stamp"

if [[ -x "$VPY" ]] && ! py_ok "$VPY"; then
    die "$VENV uses $("$VPY" --version 2>&1); kobrowser needs Python >= 3.11. Remove .venv and re-run with PYTHON=/path/to/python3.11 (or newer)."
fi

if [[ ! -x "$VPY" ]]; then
    PY="$(find_python)" || die "no Python >= 3.11 found (tried \$PYTHON, python3, python3.13, python3.12, python3.11, python; python3 is $(python3 --version 2>&1 || echo 'missing')). Install Python 3.11+ (Debian: apt-get install -y python3 python3-venv) or set PYTHON=/path/to/python3.11."
    say "creating .venv with $PY ($("$PY" --version 2>&1))"
    "$PY" -m venv "$VENV" || die "'$PY -m venv' failed (Debian: apt-get install -y python3-venv)"
fi

# The stamp records what was installed: pyproject.toml's hash and the interpreter.
want_stamp="$( { cat pyproject.toml setup.py kobrowser/cdp/_cbor.c kobrowser/cli/_native/ko_browser.c | sha256sum | cut -d' ' -f1; "$VPY" -c 'import sys; print(sys.version)'; } )"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want_stamp" ]] \
    && "$VPY" -c 'import kobrowser, pytest, ruff, mypy' >/dev/null 2>&1; then
    :  # up to date
else
    say "installing kobrowser with dev extras into .venv (pip install -e '.[dev]')"
    "$VPY" -m pip install --disable-pip-version-check --quiet --upgrade pip
    "$VPY" -m pip install --disable-pip-version-check --quiet -e '.[dev]'
    printf '%s\n' "$want_stamp" > "$STAMP"
fi

# --- 2. Chrome / Chromium -----------------------------------------------------
# Same order as the library's launcher (kobrowser/cdp/_launcher.py: find_chrome):
# KOBROWSER_CHROME, CHROME_PATH, PATH names, then common install paths.

find_chrome() {
    local var name path
    for var in KOBROWSER_CHROME CHROME_PATH; do
        path="${!var:-}"
        if [[ -n "$path" ]]; then
            # An explicit setting wins (a path, or a command name on PATH);
            # a wrong one is an error, not a fallback.
            if [[ "$path" != */* ]]; then
                path="$(command -v "$path" 2>/dev/null)" || path="${!var}"
            fi
            if [[ ! -f "$path" || ! -x "$path" ]]; then
                say "error: $var=${!var} is not an executable file (unset it or fix it)"
                return 2
            fi
            printf '%s\n' "$path"
            return 0
        fi
    done
    for name in chromium chromium-browser google-chrome google-chrome-stable chrome; do
        if path="$(command -v "$name" 2>/dev/null)" && [[ -x "$path" ]]; then
            printf '%s\n' "$path"
            return 0
        fi
    done
    for path in /usr/bin/chromium /usr/lib/chromium/chromium /usr/bin/chromium-browser \
        /usr/bin/google-chrome /opt/google/chrome/chrome /snap/bin/chromium \
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
        /Applications/Chromium.app/Contents/MacOS/Chromium; do
        if [[ -x "$path" ]]; then
            printf '%s\n' "$path"
            return 0
        fi
    done
    return 1
}

APT_CMD="apt-get update && apt-get install -y --no-install-recommends chromium"

chrome_rc=0
chrome="$(find_chrome)" || chrome_rc=$?
if [[ $chrome_rc -eq 2 ]]; then
    exit 1
elif [[ $chrome_rc -ne 0 ]]; then
    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "no Chrome/Chromium found; installing Debian's chromium: $APT_CMD"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q </dev/null
        apt-get install -y -q --no-install-recommends chromium </dev/null
        chrome="$(find_chrome)" || die "installed chromium but still cannot find it"
    else
        printf '\nsetup: error: no Chrome/Chromium found.\n' >&2
        printf 'Install one (Debian/Ubuntu), then re-run this script:\n\n' >&2
        printf '    sudo sh -c "DEBIAN_FRONTEND=noninteractive %s"\n\n' "$APT_CMD" >&2
        printf 'or point kobrowser at an existing browser: export KOBROWSER_CHROME=/path/to/chrome\n' >&2
        exit 1
    fi
fi

# --- 3. React 18 for the browser tests ----------------------------------------

VENDOR="$ROOT/tests/pages/vendor"
NPM_DIR="$ROOT/tests/.npm"
if [[ -f "$VENDOR/react.production.min.js" && -f "$VENDOR/react-dom.production.min.js" ]]; then
    :  # already there
elif [[ "${KOBROWSER_SKIP_NPM:-}" == 1 ]]; then
    say "KOBROWSER_SKIP_NPM=1: not installing React (tests that need it are skipped)"
elif ! command -v npm >/dev/null 2>&1; then
    say "warning: npm not found; React-based tests will be skipped (CI: they fail). Install Node.js + npm and re-run."
else
    say "installing react@18 react-dom@18 with npm into tests/.npm"
    mkdir -p "$NPM_DIR" "$VENDOR"
    if npm install --prefix "$NPM_DIR" --no-audit --no-fund --no-save --loglevel=error \
        react@18 react-dom@18 </dev/null >&2; then
        cp "$NPM_DIR/node_modules/react/umd/react.production.min.js" "$VENDOR/"
        cp "$NPM_DIR/node_modules/react-dom/umd/react-dom.production.min.js" "$VENDOR/"
    else
        say "warning: npm install failed; React-based tests will be skipped (CI: they fail)"
    fi
fi

# --- 4. Network namespaces for the Ray tests -------------------------------------

missing_debs=()
command -v unshare >/dev/null 2>&1 || missing_debs+=(util-linux)
command -v ip >/dev/null 2>&1 || missing_debs+=(iproute2)
if [[ ${#missing_debs[@]} -gt 0 ]]; then
    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "installing ${missing_debs[*]} (unshare, ip) for tests/scrape_ray/"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q </dev/null
        apt-get install -y -q --no-install-recommends "${missing_debs[@]}" </dev/null
    else
        say "warning: ${missing_debs[*]} missing: tests/scrape_ray/ fail without unshare and ip (apt-get install -y ${missing_debs[*]})"
    fi
fi

say "ready: $("$VPY" --version 2>&1) in .venv; browser: $chrome"
