#!/usr/bin/env bash
# Short run of every libFuzzer target in BUILD_DIR on a scratch copy of its
# seed corpus (tests/fuzz/corpus/<name>/); fails on any finding.
set -euo pipefail
build=${1:-build-fuzz}
secs=${2:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
found=0
for bin in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin"); short=${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$here/tests/fuzz/corpus/$short" ] && cp -r "$here/tests/fuzz/corpus/$short/." "$work/"
  dict=()
  [ -f "$here/tests/fuzz/$short.dict" ] && dict=(-dict="$here/tests/fuzz/$short.dict")
  if ! "$bin" "$work" "${dict[@]}" -max_total_time="$secs" -print_final_stats=1 >"$work.log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -40 "$work.log"; found=1
  else
    echo "fuzz: $name ok: $(grep -m1 'stat::number_of_executed_units' "$work.log" | awk '{print $2}') executions in ${secs}s"
  fi
  rm -rf "$work" "$work.log"
done
ls "$build"/tests/fuzz/fuzz_* >/dev/null 2>&1 || { echo "fuzz: no targets built in $build"; exit 1; }
exit $found
