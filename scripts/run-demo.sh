#!/usr/bin/env bash
# `make run`: crawl the bundled demo app (docs/demo) in safe_explore mode and
# write the Discovery Package under out/demo. The crawler serves the folder
# itself on loopback (uiap-crawl crawl DIR).
set -euo pipefail
bin=${1:-build/uiap-crawl}
out=out/demo
mkdir -p out
"$bin" crawl docs/demo -o "$out" --force --screenshots --max-runtime-ms 120000
echo "results: $out/package.json (states in $out/states/, journal in $out/journal.jsonl)"
