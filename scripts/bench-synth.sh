#!/usr/bin/env bash
# bench-synth.sh R LABEL -- CRAWL_ARGS...: crawl the bench synth app with R routes to completion
# (frontier empty); print wall time, true states, true pairs and danger hits from the bench
# server (../shared/bench/serve.py, started once and kept: BENCH_DIR/port). docs/scale.md.
set -u
R=$1; LABEL=$2; shift 2; [ "$1" = "--" ] && shift
B=${BENCH_DIR:-/tmp/bench}
[ -d $B/synth-r$R ] || python3 ${SHARED:-../shared}/bench/synthapp/gen.py --routes $R --out $B/synth-r$R >/dev/null
if [ ! -s $B/port ] || ! curl -sf http://127.0.0.1:$(cat $B/port)/__hits >/dev/null; then
  (python3 ${SHARED:-../shared}/bench/serve.py --root $B --port 0 > $B/serve.out 2>/dev/null &)
  for _ in $(seq 50); do [ -s $B/serve.out ] && break; sleep 0.1; done
  head -1 $B/serve.out | grep -o '[0-9]*$' > $B/port
fi
P=$(cat $B/port)
curl -s http://127.0.0.1:$P/__reset >/dev/null
OUT=$B/out-$LABEL; rm -rf $OUT
T0=$(date +%s.%N)
${UIAP_BIN:-build/uiap-crawl} crawl "http://127.0.0.1:$P/synth-r$R/" --mode safe_explore --allow-beacon /__state -o $OUT --quiet "$@"
RC=$?
T1=$(date +%s.%N)
H=$(curl -s http://127.0.0.1:$P/__hits)
python3 - "$H" "$LABEL" "$RC" "$T0" "$T1" $B/synth-r$R/ground-truth.json <<'PY'
import json,sys
h=json.loads(sys.argv[1]); gt=json.load(open(sys.argv[6]))
print(f"{sys.argv[2]}: rc={sys.argv[3]} wall={float(sys.argv[5])-float(sys.argv[4]):.1f}s true_states={h['states_seen']}/{gt['counts']['states']} pairs={h['pairs_seen']}/{gt['counts'].get('transitions','?')} danger={sum(h.get('danger',{}).values()) if isinstance(h.get('danger'),dict) else h.get('danger')}")
PY
