#!/usr/bin/env bash
# rss-crawl.sh BIN LABEL [CRAWL_ARGS...]: the crawler's own peak RSS over a whole
# crawl of the bench synth app with 80 routes (one worker, --max-states 1000 and
# the defaults otherwise: issue #26's setting), sampled from /proc/PID/status
# (VmHWM) every 0.2 s until it exits; Chromium (a child) is not counted.
# Prints one line: LABEL rc wall states transitions VmHWM. BENCH_DIR (default
# /tmp/bench) holds the generated app, the bench server's port and out-LABEL/.
set -u
BIN=$1; LABEL=$2; shift 2
B=${BENCH_DIR:-/tmp/bench}; SHARED=${SHARED:-../shared}
[ -d $B/synth-r80 ] || python3 $SHARED/bench/synthapp/gen.py --routes 80 --out $B/synth-r80 >/dev/null
if [ ! -s $B/port ] || ! curl -sf http://127.0.0.1:$(cat $B/port)/__hits >/dev/null; then
  (python3 $SHARED/bench/serve.py --root $B --port 0 > $B/serve.out 2>/dev/null &)
  for _ in $(seq 50); do [ -s $B/serve.out ] && break; sleep 0.1; done
  head -1 $B/serve.out | grep -o '[0-9]*$' > $B/port
fi
P=$(cat $B/port)
curl -s http://127.0.0.1:$P/__reset >/dev/null
OUT=$B/out-$LABEL; rm -rf $OUT
T0=$(date +%s)
"$BIN" crawl "http://127.0.0.1:$P/synth-r80/" --mode safe_explore --allow-beacon /__state -o $OUT --quiet \
  --workers 1 --max-states 1000 "$@" &
PID=$!
hwm=0
while kill -0 $PID 2>/dev/null; do
  v=$(awk '/VmHWM/{print $2}' /proc/$PID/status 2>/dev/null); [ -n "$v" ] && hwm=$v
  sleep 0.2
done
wait $PID; rc=$?
echo "$LABEL rc=$rc wall=$(( $(date +%s) - T0 ))s states=$(jq '.coverage.statesVisited' $OUT/package.json)" \
  "transitions=$(jq '.coverage.transitionsRecorded' $OUT/package.json) VmHWM=${hwm}kB"
