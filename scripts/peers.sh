#!/usr/bin/env bash
# Installs the peers that benchmarks compare against, offline-friendly (npm registry only):
#   agent-browser (its native Linux binary runs with AGENT_BROWSER_EXECUTABLE_PATH=<system Chromium>)
#   @playwright/mcp (Playwright's MCP server, run with --executable-path <system Chromium>)
# into benchmarks/.peers (git-ignored). Playwright for Python comes with the [dev] extra.
# Prints nothing but the install directory on success; re-running is cheap.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/benchmarks/.peers"
AGENT_BROWSER_VERSION="0.41.2"
PLAYWRIGHT_MCP_VERSION="0.0.86"
mkdir -p "$DIR"
if [ ! -f "$DIR/node_modules/agent-browser/package.json" ] \
   || ! grep -q "\"version\": \"$AGENT_BROWSER_VERSION\"" "$DIR/node_modules/agent-browser/package.json" \
   || [ ! -f "$DIR/node_modules/@playwright/mcp/package.json" ]; then
    command -v npm >/dev/null 2>&1 || { echo "peers.sh: npm is needed (Debian: apt-get install npm)" >&2; exit 1; }
    npm install --prefix "$DIR" --no-audit --no-fund --no-save --loglevel=error \
        "agent-browser@$AGENT_BROWSER_VERSION" "@playwright/mcp@$PLAYWRIGHT_MCP_VERSION" >&2
fi
chmod +x "$DIR"/node_modules/agent-browser/bin/agent-browser-linux-* 2>/dev/null || true
echo "$DIR"
