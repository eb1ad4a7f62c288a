#!/usr/bin/env bash
# repeat_timing_tests.sh - runs the timing-dependent API tests many times, under
# CPU load, to show that a slow machine does not make them fail (issue 30 §4;
# docs/HARDENING.md, "Timing-dependent tests").
#   usage: scripts/repeat_timing_tests.sh BUILD_DIR [RUNS] [PARALLEL]
# RUNS runs (default 50) of every test the filter below selects, as PARALLEL
# (default 5) loops of test_api side by side, each with --jobs 2, while
# `stress --cpu 2` (when installed) loads the machine for as long as the runs
# take. Prints one line per failed run (the output of every run, with the
# figures the tests log, is kept in the log
# directory printed at the end) and the count of failed runs; exits non-zero
# when one failed.
set -u
build=${1:?usage: $0 BUILD_DIR [RUNS] [PARALLEL]}
runs=${2:-50}
par=${3:-5}
# every test of limits, ops and faults, and the other tests that time something
filter='@(limits/*|ops/*|faults/*|serving_simulation_api/@(p99_ttft*|ten_thousand*)|sweep_stream/cut_off*)'
bin=$build/tests/test_api
[ -x "$bin" ] || { echo "no $bin (build it first)" >&2; exit 2; }
logs=$(mktemp -d /tmp/mlsysd-timing-XXXXXX)
stress_pid=
if command -v stress >/dev/null; then
    stress --cpu 2 --timeout 3600 >/dev/null 2>&1 &
    stress_pid=$!
fi
loop() {
    local k=$1 i
    for ((i = k; i < runs; i += par)); do
        if ! "$bin" --jobs 2 --verbose --filter "$filter" >"$logs/run-$i.log" 2>&1; then
            echo "run $i failed: $(grep -E '\[FAIL\]|\[----\].*:[0-9]+: ' "$logs/run-$i.log" | head -3 | tr '\n' ' ')"
        fi
    done
}
t0=$(date +%s)
pids=()
for ((k = 0; k < par; k++)); do
    loop "$k" &
    pids+=($!)
done
wait "${pids[@]}"
[ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null
failed=$(grep -L 'Failing: 0 | Crashing: 0' "$logs"/run-*.log | wc -l)
echo "$runs runs of $filter in $build: $failed failed, $(($(date +%s) - t0)) s, logs in $logs"
[ "$failed" -eq 0 ]
