#!/usr/bin/env bash
# Set everything up, then run the whole check: ruff, mypy, the CBOR codec under
# sanitizers (its tests and a 20 s fuzz, scripts/cbor-asan.sh), the docs build,
# the package build, pytest.
# Arguments go to pytest: scripts/test.sh tests/cdp -k crash -x
# --fast (first argument) skips the long soak/load/lifecycle tests marked
# `slow` (pytest -m "not slow") and runs a fifth of each property test's
# hypothesis examples (KOBROWSER_TEST_FAST=1); CI (.ci/run) runs everything.
# All of them run even when one fails; the exit status is non-zero if any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

pytest_args=()
if [[ ${1:-} == --fast ]]; then
    shift
    pytest_args=(-m "not slow")
    export KOBROWSER_TEST_FAST=1
fi
pytest_args+=("$@")

scripts/setup.sh

failed=()

step() { printf '\n==> %s\n' "$*" >&2; }

step "ruff check . && ruff format --check ."
.venv/bin/ruff check . || failed+=("ruff")
.venv/bin/ruff format --check . || failed+=("ruff format")

step "lint-imports (the layer contract: [tool.importlinter] in pyproject.toml)"
.venv/bin/lint-imports || failed+=("lint-imports")

step "mypy (config in pyproject.toml)"
.venv/bin/mypy || failed+=("mypy")

step "CBOR codec with AddressSanitizer and UBSan: its tests, then 20 s of fuzzing"
scripts/cbor-asan.sh 20 || failed+=("cbor-asan")

step "mkdocs build --strict (the documentation site of docs/; config in mkdocs.yml)"
docs_site="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$docs_site" || failed+=("mkdocs")
rm -rf "$docs_site"

step "package (scripts/check-package.sh: sdist and wheel into fresh virtualenvs)"
scripts/check-package.sh || failed+=("package")

step "pytest ${pytest_args[*]}"
rc=0
.venv/bin/python -m pytest "${pytest_args[@]}" || rc=$?
if [[ $rc -eq 5 ]]; then
    printf '\ntest: error: pytest collected no tests (exit code 5); check the paths and -k/-m filters: %s\n' "${pytest_args[*]}" >&2
    failed+=("pytest (no tests collected)")
elif [[ $rc -ne 0 ]]; then
    failed+=("pytest (exit code $rc)")
fi

if [[ ${#failed[@]} -gt 0 ]]; then
    joined="$(printf '%s, ' "${failed[@]}")"
    printf '\ntest: FAILED: %s\n' "${joined%, }" >&2
    exit 1
fi
printf '\ntest: all passed (ruff, lint-imports, mypy, cbor-asan, mkdocs, package, pytest)\n' >&2
