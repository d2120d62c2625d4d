#!/usr/bin/env bash
# Behaviour-neutral changes (issue #26): what one binary writes, kept so two
# binaries compare.
#   scripts/compare-outputs.sh BIN OUT [INPUTS]
# Offline (byte for byte): `report` rebuilds package.json and writes the
# reports from the same crawl directories (INPUTS/raw/*, default OUT's own
# live crawls, plus the recorded journals in tests/fixtures), `diff` and
# `validate` read them; only timestamps and run ids are normalised. Give both
# binaries the same INPUTS and `diff -r OUT1/offline OUT2/offline` is empty.
# Live: the demo app and a few fixtures crawled (one worker), each reduced to
# its sorted states and transitions (OUT/live/NAME.summary; the crawl
# directories as written stay in OUT/raw); a live crawl
# differs between two runs of one binary in node ids and timing, not in these.
set -euo pipefail
bin=$(readlink -f "$1"); out=$(readlink -f "$2"); inputs=${3:+$(readlink -f "$3")}
root=$(cd "$(dirname "$0")/.." && pwd)
norm=$root/scripts/compare-normalise.py
targets=(docs/demo tests/fixtures/spa tests/fixtures/restore tests/fixtures/paging
         tests/fixtures/select tests/fixtures/signals tests/fixtures/scope)
rm -rf "$out"; mkdir -p "$out/raw" "$out/live" "$out/offline"
cd "$root"
for t in "${targets[@]}"; do
  n=${t//\//_}; d=$out/raw/$n
  UIAP_WORKERS=1 "$bin" crawl "$t" -o "$d" --force --max-runtime-ms 60000 --quiet \
    >"$d.stdout" 2>"$d.stderr" || echo "exit $?" >>"$d.stderr"
  mv "$d.stdout" "$d.stderr" "$out/live/"
  jq -r '.stateCatalog.states[]?.stateId' "$d/package.json" | sort >"$out/live/$n.summary"
  jq -r '.transitionGraph.transitions[]? | [.fromStateId, .toStateId, .viaActionId,
         (.target.role // ""), (.target.name // "")] | @tsv' "$d/package.json" | sort >>"$out/live/$n.summary"
done
src=${inputs:-$out}
for d in "$src"/raw/*/ tests/fixtures/journals/normal/ tests/fixtures/journals/evidence/ \
         tests/fixtures/journals/interrupted/ tests/fixtures/merge/single/; do
  [ -f "$d/journal.jsonl" ] || continue
  name=$(basename "$d"); [ "${d#tests/}" != "$d" ] && name=fx_$(echo "$d" | tr / _)
  o=$out/offline/$name
  cp -r "$d" "$o"; rm -f "$o"/*.png "$o"/report.html "$o"/graph.dot "$o"/review.sarif "$o"/junit.xml
  "$bin" report "$o" --layout builtin --quiet >"$o.stdout" 2>"$o.stderr" || echo "report exit $?" >>"$o.stderr"
  "$bin" validate "$o" >>"$o.stdout" 2>>"$o.stderr" || echo "validate exit $?" >>"$o.stderr"
done
a=$out/offline/docs_demo; b=$out/offline/tests_fixtures_spa
for f in text json; do
  "$bin" diff "$a" "$b" --format $f >"$out/offline/diff.$f" 2>&1 || echo "diff exit $?" >>"$out/offline/diff.$f"
done
find "$out/live" "$out/offline" -type f ! -name '*.png' -print0 | xargs -0 python3 "$norm"
find "$out/offline" -name '*.png' -delete
