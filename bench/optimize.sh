#!/usr/bin/env bash
# optimize.sh - how long POST /optimize takes on the server: bisection over batch 1..10^6
# and the exhaustive search of the same 10^6 points, timed by the daemon itself (the
# duration_ms of its request log line: from the request's arrival to the last byte sent).
#
#   bench/optimize.sh [path/to/mlsysd]    # default: a Release build in $BENCH_BUILD (/tmp/mlsysd-bench-shards)
#
# N_BISECT (default 200) bisection requests, N_EXHAUSTIVE (default 5) exhaustive ones, one
# at a time with curl over loopback. Prints a markdown table of medians and ranges.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-}
if [ -z "$BIN" ]; then
  BUILD=${BENCH_BUILD:-/tmp/mlsysd-bench-shards}
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMLSYSD_TESTS=OFF >/dev/null
  cmake --build "$BUILD" -j2 --target mlsysd >/dev/null
  BIN=$BUILD/mlsysd
fi
N_BISECT=${N_BISECT:-200}
N_EXHAUSTIVE=${N_EXHAUSTIVE:-5}
TMP=$(mktemp -d)
"$BIN" --port 0 --threads 1 >"$TMP/log" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 1 100); do grep -aq "\"listening\"" "$TMP/log" && break; sleep 0.05; done
PORT=$(grep -ao '"port":[0-9]*' "$TMP/log" | head -1 | cut -d: -f2)
URL=http://127.0.0.1:$PORT/optimize
BODY='{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","precision":"fp16"},
 "axes":[{"input":"batch_size","range":{"start":1,"stop":1000000,"step":1}}],
 "constraints":[{"output":"latency","<=":"10 ms"},{"output":"feasible","==":true}],
 "objective":{"maximize":"batch_size"}'
post() { curl -s -o "$TMP/answer" -H 'Content-Type: application/json' -d "$1" "$URL"; }
durations() { grep -a '"path":"/optimize"' "$TMP/log" | grep -ao '"duration_ms":[0-9.]*' | cut -d: -f2; }
stats() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f ms (%.3f–%.3f, n=%d)", m, a[1], a[NR], NR}'; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for _ in $(seq 1 "$N_BISECT"); do post "$BODY}"; done
grep -q '"method":"bisection"' "$TMP/answer" || { echo "not a bisection: $(head -c 300 "$TMP/answer")" >&2; exit 1; }
ev=$(grep -o '"evaluated":[0-9]*' "$TMP/answer" | cut -d: -f2)
bis=$(durations | stats)
: >"$TMP/log.keep"; cp "$TMP/log" "$TMP/log.keep"; : >"$TMP/log"
for _ in $(seq 1 "$N_EXHAUSTIVE"); do post "$BODY,\"method\":\"exhaustive\"}"; done
grep -q '"method":"exhaustive"' "$TMP/answer" || { echo "not exhaustive: $(head -c 300 "$TMP/answer")" >&2; exit 1; }
exh=$(durations | stats)
# the same exhaustive search in one process, its CPU time (one core)
printf '%s,"method":"exhaustive"}' "$BODY" >"$TMP/req.json"
/usr/bin/time -f "%U %S" -o "$TMP/t" "$BIN" optimize --in "$TMP/req.json" >/dev/null
cpu=$(awk '{printf "%.2f s", $1+$2}' "$TMP/t")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| single_node, ResNet50 on A100 fp16, batch 1..10^6, latency <= 10 ms and feasible, maximize batch | server time (duration_ms): median (range, n) |"
echo "|---|---|"
echo "| bisection ($ev points evaluated, top 5 with their /solve answers) | $bis |"
echo "| exhaustive (1,000,000 points evaluated) | $exh |"
echo "| exhaustive, \`mlsysd optimize\` CPU time (user + sys) | $cpu |"
