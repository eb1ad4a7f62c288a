#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh Debian 12 machine: installs
# what is missing, then runs every stage and prints one summary line.
#   1. unit + API tests (Criterion; the API tests start the real daemon)
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   3. the tutorial document, run as written against the daemon
#   4. fuzzers (libFuzzer), each for a bounded time
#   5. load test (wrk) and leak check, short forms
#   6. the container image: build, run, probe, stop (needs a Docker engine)
# Golden parity tests read ../shared/golden and skip with a message without it.
# Environment: MLSYSD_SKIP="fuzz load container" skips stages by name.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test || { echo "deps: could not install the test dependencies"; exit 1; }

jobs=$(nproc)
passed=0; failed=0; failed_names=()
skip=" ${MLSYSD_SKIP:-} "
stage() {
  local name=$1; shift
  if [[ "$skip" == *" $name "* ]]; then echo "=== $name: skipped (MLSYSD_SKIP)"; return; fi
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "=== $name: passed ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failed_names+=("$name"); echo "=== $name: FAILED ($((SECONDS - t0)) s)"
  fi
}

# ctest -V shows what the Criterion binaries print: failures, [SKIP] lines with
# their reason, each binary's Synthesis line and the golden counts; the log
# feeds the summary line.
build_and_ctest() {
  local dir=$1; shift
  cmake -S . -B "$dir" "$@" >/dev/null && cmake --build "$dir" -j"$jobs" >/dev/null &&
    ctest --test-dir "$dir" -V > "$dir/ctest.log" 2>&1
  local rc=$?
  grep -E '^[0-9]+: (\[(FAIL|SKIP|----)\]|\[====\] Synthesis|golden: [0-9])' "$dir/ctest.log" | sed 's/^[0-9]*: //'
  return $rc
}

# "N passed, F failed, S skipped" over the Criterion binaries of one build.
test_counts() {
  local log=$1/ctest.log
  [ -f "$log" ] || { echo "not run"; return; }
  local passing failing skipped
  passing=$(grep -oE 'Synthesis: .*Passing: [0-9]+' "$log" | grep -oE 'Passing: [0-9]+' | awk '{s+=$2} END {print s+0}')
  failing=$(grep -oE 'Synthesis: .*' "$log" | grep -oE '(Failing|Crashing): [0-9]+' | awk '{s+=$2} END {print s+0}')
  skipped=$(grep -cE '^[0-9]+: \[SKIP\]' "$log")
  echo "$passing passed, $failing failed, $skipped skipped"
}

# RelWithDebInfo: optimisation turns on warnings (-Wformat-truncation, ...) that Debug misses.
unit_and_api() { build_and_ctest build -DCMAKE_BUILD_TYPE=RelWithDebInfo; }
sanitizers() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    build_and_ctest build-asan -DCMAKE_BUILD_TYPE=Debug -DMLSYSD_SANITIZE=ON -DCMAKE_C_COMPILER=clang
}
tutorial() { tests/docs/check_tutorial.sh build/mlsysd && DOC=docs/pipeline.md tests/docs/check_tutorial.sh build/mlsysd; }

fuzz() {
  CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLSYSD_FUZZ=ON -DMLSYSD_TESTS=OFF \
    -DCMAKE_C_COMPILER=clang >/dev/null &&
    cmake --build build-fuzz -j"$jobs" >/dev/null &&
    tests/fuzz/run.sh --seconds "${MLSYSD_FUZZ_SECONDS:-60}" --build build-fuzz
}
load() { tests/load/run.sh --short --binary build/mlsysd; }
leak() { tests/leak/run.sh --binary build/mlsysd; }

stage unit-api unit_and_api
stage sanitizers sanitizers
stage tutorial tutorial
stage fuzz fuzz
stage load load
stage leak leak
container() {
  if ! docker info >/dev/null 2>&1 && [ ! -x ../shared/tools/docker-offline.sh ]; then
    echo "container: no Docker engine here (install docker.io, or set MLSYSD_SKIP=container); not run"
    return 1
  fi
  bash tests/container/run.sh
}
stage container container

echo "tests (unit + API): $(test_counts build)"
if [ -f build/tests/golden-summary.txt ]; then cat build/tests/golden-summary.txt; else echo "golden: not run"; fi
echo "stages: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed stages: ${failed_names[*]}"; exit 1; }
