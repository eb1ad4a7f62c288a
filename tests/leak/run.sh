#!/usr/bin/env bash
# tests/leak/run.sh - leak check: the daemon under valgrind --leak-check=full
# serves 10,000 mixed requests (valid and malformed: tests/load/mix.lua with
# MIX_BAD=1, every route, every error path, sweeps in all three formats), then
# stops on SIGTERM. Pass: valgrind reports no error, and nothing definitely,
# indirectly or possibly lost; the daemon exits 0.
#
#   tests/leak/run.sh [--short] [--binary PATH] [--requests N]
#
# --short (CI): 2,000 requests. Needs valgrind and wrk. Use a normal build
# (build/mlsysd), not a sanitizer build: valgrind and ASan do not mix (the
# ASan build has its own leak check, LeakSanitizer, run by the test suite).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
binary=${MLSYSD_BINARY:-$root/build/mlsysd}
requests=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --short) requests=2000 ;;
    --binary) binary=$2; shift ;;
    --requests) requests=$2; shift ;;
    *) echo "usage: $0 [--short] [--binary PATH] [--requests N]" >&2; exit 2 ;;
  esac
  shift
done
for tool in valgrind wrk curl; do
  command -v "$tool" >/dev/null || { echo "leak: $tool is not installed" >&2; exit 2; }
done
[ -x "$binary" ] || { echo "leak: no daemon binary at $binary (build first, or --binary)" >&2; exit 2; }

work=$(mktemp -d /tmp/mlsysd-leak.XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Small body limit: the mix's 70 KB body is a 413. Random port, retried if taken.
for _ in $(seq 1 20); do
  port=$((20000 + RANDOM % 30000))
  valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --error-exitcode=99 --track-origins=no --num-callers=30 --log-file="$work/valgrind.txt" \
    "$binary" --port "$port" --host 127.0.0.1 --log-level warn --drain-delay 0 --threads 2 --max-body-bytes 65536 \
    >"$work/daemon.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do # valgrind starts slowly: up to 30 s
    kill -0 "$pid" 2>/dev/null || break
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.05
  done
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
done
[ -n "$pid" ] || { echo "leak: the daemon did not start under valgrind"; cat "$work/daemon.log"; exit 1; }

# One wrk thread, 4 connections; mix.lua exits after N responses.
t0=$(date +%s)
MIX_BAD=1 MIX_REQUESTS="$requests" wrk -t1 -c4 -d600s --timeout 30s -s "$root/tests/load/mix.lua" \
  "http://127.0.0.1:$port" >"$work/wrk.txt" 2>&1 || true
served=$(awk '/^mix: [0-9]+ responses/ {print $2; exit}' "$work/wrk.txt")
grep '^mix:' "$work/wrk.txt" || true
echo "leak: $served requests in $(( $(date +%s) - t0 )) s under valgrind"

kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
sed -n '/HEAP SUMMARY/,$p' "$work/valgrind.txt"
fail=0
[ -n "$served" ] && [ "$served" -ge "$requests" ] || { echo "leak: FAIL: only ${served:-0} of $requests requests served"; cat "$work/wrk.txt"; fail=1; }
[ "$rc" -eq 0 ] || { echo "leak: FAIL: the daemon exited $rc (99: valgrind found errors or leaks)"; fail=1; }
grep -q "ERROR SUMMARY: 0 errors" "$work/valgrind.txt" || { echo "leak: FAIL: valgrind reported errors"; grep -B2 -A25 "Invalid\|uninitialised\|definitely lost in\|indirectly lost in\|possibly lost in" "$work/valgrind.txt" | head -120; fail=1; }
for kind in "definitely lost" "indirectly lost" "possibly lost"; do
  if grep -q "$kind:" "$work/valgrind.txt" && ! grep -q "$kind: 0 bytes in 0 blocks" "$work/valgrind.txt"; then
    echo "leak: FAIL: $(grep "$kind:" "$work/valgrind.txt" | sed 's/^==[0-9]*== *//')"; fail=1
  fi
done
[ -z "${LEAK_REPORT:-}" ] || cp "$work/valgrind.txt" "$LEAK_REPORT"
if [ "$fail" -eq 0 ]; then echo "leak: 1 passed, 0 failed"; else echo "leak: 0 passed, 1 failed"; fi
exit "$fail"
