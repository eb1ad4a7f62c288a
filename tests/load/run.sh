#!/usr/bin/env bash
# tests/load/run.sh - load test: wrk at 256 connections against a real mlsysd
# on loopback, over GET and POST /solve and /sweep (tests/load/mix.lua, valid
# requests only).
#
#   tests/load/run.sh [--short] [--binary PATH] [--duration S] [--connections N]
#
# Phases: warm-up (3 bursts), the run (one continuous wrk run: 30 s, --short
# 8 s), cool-down (3 bursts). Bursts last 3 s with a pause after
# each, in which the daemon, with nothing in flight, returns the memory the
# burst freed (server/http.c); RSS is read then. A leak raises that idle RSS
# however much the allocator fragments, and fragmentation only adds upward
# noise to single readings, so each side takes the smallest of its 3 readings.
#
# Pass: zero non-2xx responses and zero socket errors (connect, read, write,
# timeout) in every phase; the idle RSS after the run no more than 10 % above
# the idle RSS after the warm-up; /healthz answers and the daemon exits 0 on
# SIGTERM. Needs wrk (Debian package wrk). LOAD_REPORT=FILE keeps the figures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
binary=${MLSYSD_BINARY:-$root/build/mlsysd}
duration=30
burst=3
conns=256
threads=2
while [ $# -gt 0 ]; do
  case "$1" in
    --short) duration=8; burst=3 ;;
    --binary) binary=$2; shift ;;
    --duration) duration=$2; shift ;;
    --connections) conns=$2; shift ;;
    *) echo "usage: $0 [--short] [--binary PATH] [--duration S] [--connections N]" >&2; exit 2 ;;
  esac
  shift
done
command -v wrk >/dev/null || { echo "load: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
command -v curl >/dev/null || { echo "load: curl is not installed" >&2; exit 2; }
[ -x "$binary" ] || { echo "load: no daemon binary at $binary (build first, or --binary)" >&2; exit 2; }

work=$(mktemp -d /tmp/mlsysd-load.XXXXXX)
log=$work/daemon.log
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A random free port, retried if taken: at --log-level warn (request lines are
# info, and would cost a write per request) the port is not logged.
start_daemon() {
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 30000))
    "$binary" --port "$port" --host 127.0.0.1 --log-level warn --drain-delay 0 --max-connections 1024 \
      >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do
      if ! kill -0 "$pid" 2>/dev/null; then break; fi
      if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then return 0; fi
      sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
  done
  echo "load: the daemon did not start"; cat "$log"; exit 1
}
start_daemon
url=http://127.0.0.1:$port

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }

# Figures from wrk's summary (absent lines mean zero).
non2xx() { awk '/Non-2xx or 3xx responses:/ {print $NF; f=1} END {if (!f) print 0}' "$1"; }
sockerr() { awk '/Socket errors:/ {gsub(",", ""); print $4+$6+$8+$10; f=1} END {if (!f) print 0}' "$1"; }
total() { awk '/requests in/ {print $1; exit}' "$1"; }
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }

all_requests=0
all_non2xx=0
all_errors=0
# wrk for $1 seconds into $2; adds its counts to the totals.
run_wrk() {
  wrk -t"$threads" -c"$conns" -d"$1"s --timeout 10s -s "$here/mix.lua" "$url" >"$2" 2>&1 || true
  all_requests=$((all_requests + $(total "$2")))
  all_non2xx=$((all_non2xx + $(non2xx "$2")))
  all_errors=$((all_errors + $(sockerr "$2")))
}
# Three bursts; burst_min is the smallest idle RSS read after them.
burst_min=0
bursts() { # name
  local r
  burst_min=0
  for i in 1 2 3; do
    run_wrk "$burst" "$work/$1-$i.txt"
    sleep 1.5
    r=$(rss_kb)
    if [ "$burst_min" -eq 0 ] || [ "$r" -lt "$burst_min" ]; then burst_min=$r; fi
    echo "$r" >>"$work/$1.rss"
  done
}

echo "load: $("$binary" --version | head -1) on $url, $conns connections, $threads wrk threads"
bursts warmup
rss_warm=$burst_min
echo "load: warm-up 3 x ${burst}s: idle RSS $(paste -sd' ' "$work/warmup.rss") kB"

# The run: RSS under load, every 0.5 s in its second half (for the record).
wrk -t"$threads" -c"$conns" -d"$duration"s --timeout 10s -s "$here/mix.lua" "$url" >"$work/run.txt" 2>&1 &
wpid=$!
sleep "$(awk -v d="$duration" 'BEGIN {print d / 2}')"
: >"$work/load.rss"
while kill -0 "$wpid" 2>/dev/null; do rss_kb >>"$work/load.rss"; sleep 0.5; done
wait "$wpid" || true
all_requests=$((all_requests + $(total "$work/run.txt")))
all_non2xx=$((all_non2xx + $(non2xx "$work/run.txt")))
all_errors=$((all_errors + $(sockerr "$work/run.txt")))
cat "$work/run.txt"
rss_load=$(sort -n "$work/load.rss" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)] + 0}')

bursts cooldown
rss_after=$burst_min
echo "load: cool-down 3 x ${burst}s: idle RSS $(paste -sd' ' "$work/cooldown.rss") kB"

n=$(total "$work/run.txt"); bad=$(non2xx "$work/run.txt"); errs=$(sockerr "$work/run.txt")
growth=$(awk -v a="$rss_after" -v w="$rss_warm" 'BEGIN {printf "%+.1f", (a - w) * 100 / w}')
fail=0
[ -n "$n" ] && [ "$n" -gt 0 ] || { echo "load: FAIL: wrk completed no request"; fail=1; }
[ "$all_non2xx" -eq 0 ] || { echo "load: FAIL: $all_non2xx non-2xx responses to valid requests"; fail=1; }
[ "$all_errors" -eq 0 ] || { echo "load: FAIL: $all_errors socket errors"; fail=1; }
# A leak raises RSS; a drop is not a failure.
awk -v a="$rss_after" -v w="$rss_warm" 'BEGIN {exit !(a <= w * 1.10)}' ||
  { echo "load: FAIL: idle RSS ${rss_warm} kB after the warm-up, ${rss_after} kB after the run (${growth} %, limit +10 %)"; fail=1; }
curl -fsS "$url/healthz" >/dev/null || { echo "load: FAIL: /healthz does not answer after the run"; fail=1; }
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || { echo "load: FAIL: the daemon exited $rc on SIGTERM"; tail -20 "$log"; fail=1; }

summary="load: ${duration}s at $conns connections: $n requests ($(rps "$work/run.txt") req/s), $bad non-2xx, $errs socket errors (all phases: $all_requests requests, $all_non2xx non-2xx, $all_errors socket errors); idle RSS ${rss_warm} kB after the warm-up, ${rss_after} kB after the run (${growth} %); RSS under load ${rss_load} kB"
echo "$summary"
[ -z "${LOAD_REPORT:-}" ] || { echo "$summary"; cat "$work/run.txt"; } >"$LOAD_REPORT"
if [ "$fail" -eq 0 ]; then echo "load: 1 passed, 0 failed"; else echo "load: 0 passed, 1 failed"; fi
exit "$fail"
