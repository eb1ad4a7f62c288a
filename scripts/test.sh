#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh Debian 12 machine: installs
# what is missing, then runs every stage and prints one summary line.
#   1. unit + API tests (Criterion; the API tests start the real daemon)
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer; the calibration
#      check (build/calibrate --check: measured mode refitted to validation/measurements,
#      fails if a family's leave-one-source-out median error rose above the recorded one
#      or core/calibration_fit.c / docs/validation.md are not what the data give)
#   3. the tutorial document, run as written against the daemon; the served
#      contract (/openapi.json) linted by Redocly CLI (tools/lint), 0 errors
#   4. fuzzers (libFuzzer), each for a bounded time
#   5. load test (wrk) and leak check, short forms; the soak (2 minutes of mixed traffic
#      at 40 requests/s: no 5xx, RSS growth < 1 MiB after warm-up, p99 steady)
#   6. the container image: build, run, probe, stop (needs a Docker engine)
#   7. the dashboard in a real browser (Debian's chromium + puppeteer-core)
#   8. a typed client of the served contract (openapi-typescript + tsc --strict) and
#      live traffic through Stoplight Prism's validating proxy, 0 violations
# Golden parity tests read tests/golden (vendored), plus ../shared/golden's files
# not vendored when that folder is present.
# A stage this machine cannot run (container without a Docker engine) is
# skipped and named in the summary; the run still passes.
# Environment (also in the README):
#   MLSYSD_SKIP="fuzz load container"  skip stages by name
#   MLSYSD_REQUIRE="container"         a stage that cannot run fails instead of skipping (CI sets it)
#   MLSYSD_FUZZ_SECONDS=60             seconds per fuzz target
#   MLSYSD_SOAK_MINUTES=2              minutes of the soak stage
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test || { echo "deps: could not install the test dependencies"; exit 1; }

jobs=$(nproc)
# The summary reads this run's unit and API counts: none from an earlier run when that stage is skipped.
rm -f build/ctest.log build/tests/golden-summary.txt
passed=0; failed=0; skipped=0; failed_names=(); skipped_names=()
skip=" ${MLSYSD_SKIP:-} "
require=" ${MLSYSD_REQUIRE:-} "
# A stage returns 0 (passed), 1 (failed) or 77 (cannot run on this machine:
# skipped, with its reason as the last line it printed, unless MLSYSD_REQUIRE
# names it, when it fails).
stage() {
  local name=$1; shift
  if [[ "$skip" == *" $name "* ]]; then
    skipped=$((skipped + 1)); skipped_names+=("$name: MLSYSD_SKIP"); echo "=== $name: skipped (MLSYSD_SKIP)"; return
  fi
  echo "=== $name"
  local t0=$SECONDS rc=0 out
  out=$(mktemp)
  "$@" 2>&1 | tee "$out"; rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 77 ] && [[ "$require" != *" $name "* ]]; then
    local why; why=$(tail -n 1 "$out"); why=${why#"$name: "}
    skipped=$((skipped + 1)); skipped_names+=("$name: $why"); echo "=== $name: skipped ($why)"
  elif [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); echo "=== $name: passed ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failed_names+=("$name"); echo "=== $name: FAILED ($((SECONDS - t0)) s)"
  fi
  rm -f "$out"
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
tutorial() {
    tests/docs/check_tutorial.sh build/mlsysd && DOC=docs/pipeline.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/tutorials/where-to-train.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/tutorials/first-order-against-measurements.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/tutorials/training-on-a-cluster.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/tutorials/sizing-an-llm-service.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/optimize.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/tutorials/serving-70b-under-load.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/hf-config.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=docs/plans.md tests/docs/check_tutorial.sh build/mlsysd &&
        DOC=README.md tests/docs/check_tutorial.sh build/mlsysd
}
contract_lint() { tools/lint/run.sh --binary build/mlsysd; }

fuzz() {
  CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLSYSD_FUZZ=ON -DMLSYSD_TESTS=OFF \
    -DCMAKE_C_COMPILER=clang >/dev/null &&
    cmake --build build-fuzz -j"$jobs" >/dev/null &&
    tests/fuzz/run.sh --seconds "${MLSYSD_FUZZ_SECONDS:-60}" --build build-fuzz
}
load() { tests/load/run.sh --short --binary build/mlsysd; }
leak() { tests/leak/run.sh --binary build/mlsysd; }
soak() { tests/soak/run.sh --minutes "${MLSYSD_SOAK_MINUTES:-2}" --rate 40 --binary build/mlsysd; }

calibration() { build/calibrate --check --root .; }

stage unit-api unit_and_api
stage calibration calibration
stage sanitizers sanitizers
stage tutorial tutorial
stage contract-lint contract_lint
stage fuzz fuzz
stage load load
stage leak leak
stage soak soak
# The container stage needs a Docker engine. Where none answers it is skipped,
# unless MLSYSD_REQUIRE names it (CI does): then ../shared/tools/docker-offline.sh,
# when present, starts one (these machines reach no registry).
container() {
  if ! docker info >/dev/null 2>&1 && ! { [[ "$require" == *" container "* ]] && [ -x ../shared/tools/docker-offline.sh ]; }; then
    if [[ "$require" == *" container "* ]]; then
      echo "no Docker engine and no ../shared/tools/docker-offline.sh to start one"; return 1
    fi
    echo "no Docker engine (MLSYSD_REQUIRE=container makes this a failure)"; return 77
  fi
  bash tests/container/run.sh
}
stage container container
# The dashboard in headless chromium (tests/browser/run.sh installs chromium and the
# pinned puppeteer-core itself); skipped only when chromium cannot be installed or started.
browser() { tests/browser/run.sh --binary build/mlsysd; }
stage browser browser
# The contract as a client generator and a validating proxy read it (tests/client/run.sh
# installs the pinned tools from npm); skipped only when npm cannot install them.
client() { tests/client/run.sh --binary build/mlsysd; }
stage client client

echo "tests (unit + API): $(test_counts build)"
if [ -f build/tests/golden-summary.txt ]; then cat build/tests/golden-summary.txt; else echo "golden: not run"; fi
summary="stages: $passed passed, $failed failed, $skipped skipped"
[ "$skipped" -eq 0 ] || summary+=" ($(IFS=';'; echo "${skipped_names[*]}" | sed 's/;/; /g'))"
echo "$summary"
[ "$failed" -eq 0 ] || { echo "failed stages: ${failed_names[*]}"; exit 1; }
