#!/usr/bin/env bash
# Set everything up, then snapshot the bundled demo page (examples/demo/).
# Arguments go to examples/demo.py: -i (interactive only), -c, --serve, --headed,
# --screenshot PATH (an annotated screenshot).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

scripts/setup.sh
exec .venv/bin/python examples/demo.py "$@"
