#!/usr/bin/env bash
# Installs the Debian packages uiap-crawl needs, only those that are missing.
# Run as root (CI and fresh machines are root); prints what it installs.
set -euo pipefail
need=()
pkgs=(build-essential cmake pkg-config libwebsockets-dev libcjson-dev libxxhash-dev liburiparser-dev zlib1g-dev
      libcriterion-dev chromium dpkg-dev file nodejs npm clang libclang-rt-14-dev xvfb libhiredis-dev redis-server
      libssl-dev openssl)
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
# node/npm may come from elsewhere (the image ships its own): accept any node on PATH.
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${need[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done
  need=("${tmp[@]+"${tmp[@]}"}")
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Test-only npm clients (playwright-core, run by Debian's node against
# Debian's chromium; ws, the listen test's WebSocket client; ajv and
# ajv-formats, tests/support/validate_api.mjs for the API exports), pinned in
# tests/support/package-lock.json.
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/tests/support/package-lock.json" ] && { [ ! -d "$here/tests/support/node_modules/playwright-core" ] || [ ! -d "$here/tests/support/node_modules/@modelcontextprotocol/sdk" ] || [ ! -d "$here/tests/support/node_modules/ws" ] || [ ! -d "$here/tests/support/node_modules/ajv-formats" ]; }; then
  echo "deps: npm ci in tests/support" >&2
  (cd "$here/tests/support" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
# The soak suite's real third-party apps (tests/e2e/soak.c), pinned in
# tests/soak/package-lock.json.
if [ -f "$here/tests/soak/package-lock.json" ] && [ ! -f "$here/tests/soak/node_modules/.package-lock.json" ]; then
  echo "deps: npm ci in tests/soak" >&2
  (cd "$here/tests/soak" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
