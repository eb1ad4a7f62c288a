#!/usr/bin/env bash
# tests/fuzz/run.sh - run the libFuzzer targets for a bounded time each.
#
#   tests/fuzz/run.sh [--seconds N] [--build DIR] [--keep DIR] [target...]
#
# Targets: fuzz_units fuzz_query fuzz_request fuzz_body_scan (default: all four), built by
#   CC=clang cmake -S . -B build-fuzz -DMLSYSD_FUZZ=ON -DMLSYSD_TESTS=OFF
#   cmake --build build-fuzz -j2
# Each target starts from its committed seed corpus (tests/fuzz/corpus/<target>)
# copied into a scratch directory, so the repository does not grow; --keep DIR
# keeps the grown corpora in DIR/<target> (to minimise and commit by hand).
# A crash, sanitizer report, leak, 500 (the targets abort on one) or a
# 10-second hang fails the run; the reproducer is saved as
# <scratch>/<target>-crash-* and printed in base64.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=60
build=$root/build-fuzz
keep=
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift ;;
    --build) build=$2; shift ;;
    --keep) keep=$2; shift ;;
    fuzz_*) targets+=("$1") ;;
    *) echo "usage: $0 [--seconds N] [--build DIR] [--keep DIR] [fuzz_units|fuzz_query|fuzz_request...]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_units fuzz_query fuzz_request fuzz_body_scan)

scratch=$(mktemp -d /tmp/mlsysd-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
passed=0
failed=0
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/$t
  if [ ! -x "$bin" ]; then
    echo "fuzz: $t: not built ($bin)"; failed=$((failed + 1)); continue
  fi
  mkdir -p "$scratch/$t"
  cp "$here/corpus/$t"/* "$scratch/$t/" 2>/dev/null || true
  # -max_len 8192: the request body and query targets need room for real requests (a /batch
  # of examples, an hf_config model). The dictionary (tests/fuzz/dict, written by
  # make_corpus.py) holds the members, input names, enum values and units of the inputs.
  dict=()
  [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  "$bin" "$scratch/$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$scratch/$t-" >"$scratch/$t.log" 2>&1
  rc=$?
  runs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$scratch/$t.log")
  cov=$(grep -o 'cov: [0-9]*' "$scratch/$t.log" | tail -1 | cut -d' ' -f2)
  corp=$(ls "$scratch/$t" | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $t: ok, ${runs:-?} executions in ${seconds}s, coverage ${cov:-?} edges, corpus $corp inputs"
    passed=$((passed + 1))
  else
    echo "fuzz: $t: FAILED (exit $rc) after ${runs:-?} executions"
    grep -A40 -E '==ERROR|runtime error|ALARM|fuzz: ' "$scratch/$t.log" | head -60
    for a in "$scratch/$t"-*; do
      [ -f "$a" ] && { echo "reproducer $(basename "$a") (base64):"; base64 -w0 "$a"; echo; }
    done
    failed=$((failed + 1))
  fi
  if [ -n "$keep" ]; then mkdir -p "$keep/$t" && cp "$scratch/$t"/* "$keep/$t/" 2>/dev/null; fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
