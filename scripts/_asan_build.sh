# Sourced by scripts/cbor-asan.sh, with one argument:
# the extension's module path without suffix (kobrowser/cdp/_cbor). Builds that
# C extension with AddressSanitizer and UndefinedBehaviorSanitizer into a copy
# of the package in a temporary folder (removed on exit), and exports what the
# sanitized run needs: ASAN_OPTIONS, UBSAN_OPTIONS, LD_PRELOAD and
# KOBROWSER_ASAN_PKG (the copy, to put first on sys.path). Sets ROOT and PY.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
for lib in libasan.so libubsan.so; do
    if ! command -v gcc >/dev/null 2>&1 || [[ ! -e "$(gcc -print-file-name="$lib")" ]]; then
        printf 'cbor-asan: error: needs gcc with %s (Debian: apt-get install -y gcc)\n' "$lib" >&2
        exit 1
    fi
done
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$ROOT/kobrowser" "$WORK/"
rm -f "$WORK/$1"*.so
INC="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
SUFFIX="$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
gcc -g -O1 -std=c11 -fPIC -shared -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined -I"$INC" "$ROOT/$1.c" \
    -o "$WORK/$1$SUFFIX"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export KOBROWSER_ASAN_PKG="$WORK"
cd "$ROOT"
