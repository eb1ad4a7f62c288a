#!/usr/bin/env bash
# run.sh - every benchmark of docs/BENCHMARKS.md in one run, on this machine.
#
#   bench/run.sh            build Release, run everything (about 5 minutes on 2 cores)
#   bench/run.sh --quick    shorter runs (a smoke test of the harness; figures are noisy)
#
# Environment: BENCH_BUILD_DIR (default /tmp/mlsysd-bench), BENCH_OUT (the markdown
# file written, default $BENCH_BUILD_DIR/results.md), BENCH_ROUNDS (wrk rounds, 3),
# BENCH_DURATION (seconds per wrk run, 5), MLSYSD_BIN (benchmark this daemon binary
# instead of the one built here; bench_core always measures the tree's libraries),
# BENCH_DAEMON_FLAGS (extra daemon flags for the wrk runs, e.g. "--log-level warn": at the
# default level every /solve writes an access-log line while a successful /healthz does not).
#
# What runs, in order (all traffic goes to 127.0.0.1 only, every loop is bounded):
#   1. bench_core: ns per solve (single_node, pipeline, the serving and training cases, and
#      every solver's descriptor example), measured mode against mlsysim mode on the same
#      inputs, the solver call alone and a whole POST /solve (single_node, serving at tp 2,
#      distributed; issue 24's budget, at most 1.10 x, is per POST /solve), fmt_double, the
#      request handler in process, the formatting bound and an in-process sweep
#      (bench/bench_core.c)
#   2. HTTP with wrk -t2 (median of BENCH_ROUNDS rounds; each round runs the endpoints back
#      to back, so every ratio compares runs seconds apart): /healthz (the no-op baseline),
#      GET /solve/single_node?..., POST /solve (bench/solve_post.lua), a small GET /sweep,
#      at -c64 and -c256
#   3. sweeps over HTTP: 1M and 10M points as CSV and as JSON (curl, a fresh daemon with
#      --sweep-max-points 20000000 for each), points/s and the daemon's peak RSS (VmHWM);
#      the 1M CSV sweep again with --sweep-threads 1 (its rows on one thread);
#      then 100,000 points of serving_capacity as CSV (qps 0.001..100 req/s, the range of
#      docs/tutorials/sizing-an-llm-service.md), points/s against the same formatting bound
#   4. start-up: exec to the first 200 from /healthz, median of 20, and the idle RSS
#   5. bench_search: parallelism's exhaustive search on Research_256, Training_1K and
#      Mega_100K (bench/bench_search.c)
# Prints a table and writes the same figures as markdown to BENCH_OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
quick=0
[ "${1:-}" = --quick ] && quick=1

build=${BENCH_BUILD_DIR:-/tmp/mlsysd-bench}
out=${BENCH_OUT:-$build/results.md}
rounds=${BENCH_ROUNDS:-3}
dur=${BENCH_DURATION:-5}
big=10000   # efficiency values of the 10M sweep (x 1000 batch sizes)
if [ $quick = 1 ]; then rounds=1; dur=2; big=2000; fi

scripts/deps.sh test >/dev/null || { echo "run.sh: could not install the dependencies" >&2; exit 1; }
echo "== building Release in $build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMLSYSD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target mlsysd bench_core bench_startup bench_search >/dev/null
bin=${MLSYSD_BIN:-$build/mlsysd}

declare -A R   # results: key -> value
note() { printf '%s\n' "$*" >&2; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# --- daemons -----------------------------------------------------------------------------
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "run.sh: no free port" >&2; exit 1
}

# start_daemon VAR_PORT VAR_PID [flags...]: request log lines go to /dev/null. A port that no one
# listens on may still be taken (the local end of another program's connection): a daemon that
# exits at once is tried again on another port.
start_daemon() {
  local -n _port=$1 _pid=$2; shift 2
  for _ in 1 2 3 4 5; do
    _port=$(free_port)
    "$bin" --port "$_port" --drain-delay 0 "$@" >/dev/null 2>&1 &
    _pid=$!
    pids+=("$_pid")
    for _ in $(seq 1 500); do
      curl -sf -o /dev/null "http://127.0.0.1:$_port/healthz" && return 0
      kill -0 "$_pid" 2>/dev/null || break
      sleep 0.01
    done
    kill -0 "$_pid" 2>/dev/null && break
  done
  echo "run.sh: the daemon did not start" >&2; exit 1
}

stop_daemon() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

status_kib() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }

# --- 1. core -------------------------------------------------------------------------------
echo "== bench_core"
core_args=()
[ $quick = 1 ] && core_args=(--quick)
while read -r tag key value unit; do
  [ "$tag" = RESULT ] || continue
  R[$key]=$value
  printf '  %-28s %12s %s\n' "$key" "$value" "$unit"
done < <("$build/bench/bench_core" "${core_args[@]}")

# --- 2. HTTP ---------------------------------------------------------------------------------
q='model=ResNet50&hardware=A100&batch_size=256&precision=fp16'
sweep_q='model=ResNet50&hardware=A100&precision=fp16&batch_size=1,2,4,8,16,32,64,128&format=csv'
# shellcheck disable=SC2086
start_daemon port pid --sweep-max-points 20000000 ${BENCH_DAEMON_FLAGS:-}

# the daemon's CPU time (user + system) in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wrk_rps CONNECTIONS PATH [LUA]: requests/s, p99 and the daemon's CPU µs per request; fails on
# any non-2xx answer or socket error
wrk_rps() {
  local c=$1 path=$2 lua=${3:-} out t0
  t0=$(cpu_ticks "$pid")
  if [ -n "$lua" ]; then
    out=$(wrk -t2 -c"$c" -d"${dur}s" --latency -s "$lua" "http://127.0.0.1:$port$path")
  else
    out=$(wrk -t2 -c"$c" -d"${dur}s" --latency "http://127.0.0.1:$port$path")
  fi
  if grep -q -E 'Non-2xx|Socket errors' <<<"$out"; then
    echo "run.sh: wrk $path: $(grep -E 'Non-2xx|Socket errors' <<<"$out")" >&2; exit 1
  fi
  local rps p99 n us
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  n=$(awk '/requests in/ {print $1}' <<<"$out")
  us=$(awk -v t="$(($(cpu_ticks "$pid") - t0))" -v hz="$(getconf CLK_TCK)" -v n="$n" 'BEGIN {printf "%.2f", t / hz * 1e6 / n}')
  echo "$rps $p99 $us"
}

for c in 64 256; do
  echo "== HTTP, wrk -t2 -c$c -d${dur}s, $rounds round(s)"
  : >"$build/wrk-$c.txt"
  for r in $(seq 1 "$rounds"); do
    read -r h hp hu <<<"$(wrk_rps "$c" /healthz)"
    read -r g gp gu <<<"$(wrk_rps "$c" "/solve/single_node?$q")"
    read -r p pp pu <<<"$(wrk_rps "$c" /solve "$root/bench/solve_post.lua")"
    read -r s sp su <<<"$(wrk_rps "$c" "/sweep/single_node?$sweep_q")"
    read -r a ap au <<<"$(wrk_rps "$c" /catalog/hardware/A100)"
    echo "$h $g $p $s $hp $gp $pp $sp $hu $gu $pu $su $a $au" >>"$build/wrk-$c.txt"
    printf '  round %d: healthz %s  solve GET %s  solve POST %s  sweep(8 pts) %s  static 3 KB %s req/s\n' "$r" "$h" "$g" "$p" "$s" "$a"
  done
  col() { awk -v i="$1" '{print $i}' "$build/wrk-$c.txt" | median; }
  ratio() { awk -v a="$1" -v b="$2" '{print $a / $b}' "$build/wrk-$c.txt" | median; }
  R[healthz_rps_c$c]=$(col 1); R[solve_get_rps_c$c]=$(col 2); R[solve_post_rps_c$c]=$(col 3)
  R[sweep8_rps_c$c]=$(col 4)
  R[healthz_p99_c$c]=$(awk '{print $5}' "$build/wrk-$c.txt" | head -1)
  R[solve_get_p99_c$c]=$(awk '{print $6}' "$build/wrk-$c.txt" | head -1)
  R[get_ratio_c$c]=$(ratio 2 1); R[post_ratio_c$c]=$(ratio 3 1); R[sweep8_ratio_c$c]=$(ratio 4 1)
  R[healthz_us_c$c]=$(col 9); R[solve_get_us_c$c]=$(col 10); R[solve_post_us_c$c]=$(col 11); R[sweep8_us_c$c]=$(col 12)
  R[static3k_rps_c$c]=$(col 13); R[static3k_us_c$c]=$(col 14)
  R[get_static_ratio_c$c]=$(ratio 2 13); R[post_static_ratio_c$c]=$(ratio 3 13)
done
echo "== static answers (prebuilt at start-up), wrk -t2 -c64 -d${dur}s, one round"
read -r "R[static_healthz]" _ _ <<<"$(wrk_rps 64 /healthz)"
static_paths=(/openapi.json /solvers /catalog /catalog/hardware/A100)
for path in "${static_paths[@]}"; do
  read -r "R[static_$path]" _ _ <<<"$(wrk_rps 64 "$path")"
  printf '  %-24s %s req/s\n' "$path" "${R[static_$path]}"
done
R[rss_after_wrk_mib]=$(awk -v k="$(status_kib "$pid" VmRSS)" 'BEGIN {printf "%.1f", k / 1024}')
stop_daemon "$pid"

# --- 3. sweeps ------------------------------------------------------------------------------
sweep_body() { # FORMAT EFFICIENCY_COUNT
  printf '{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","precision":"fp16"},"axes":[{"input":"batch_size","range":{"start":1,"stop":1000,"step":1}},{"input":"efficiency","geomspace":{"start":0.01,"stop":1,"count":%d}}],"format":"%s"}' "$2" "$1"
}
echo "== sweeps over HTTP (curl; a fresh daemon each; 1000 batch sizes x N efficiencies)"
for fmt in csv json ndjson; do
  sizes=(1000 "$big")
  [ "$fmt" = ndjson ] && sizes=(1000)
  for n in "${sizes[@]}"; do
    start_daemon port pid --sweep-max-points 20000000
    idle=$(status_kib "$pid" VmRSS)
    read -r t bytes code < <(curl -s -o /dev/null -w '%{time_total} %{size_download} %{http_code}\n' \
      -H 'Content-Type: application/json' -d "$(sweep_body "$fmt" "$n")" "http://127.0.0.1:$port/sweep")
    [ "$code" = 200 ] || { echo "run.sh: sweep answered $code" >&2; exit 1; }
    hwm=$(status_kib "$pid" VmHWM)
    stop_daemon "$pid"
    pts=$((1000 * n))
    key=${fmt}_$((pts / 1000000))M
    R[sweep_${key}_pps]=$(awk -v p="$pts" -v t="$t" 'BEGIN {printf "%.0f", p / t}')
    R[sweep_${key}_s]=$t
    R[sweep_${key}_mb]=$(awk -v b="$bytes" 'BEGIN {printf "%.0f", b / 1e6}')
    R[sweep_${key}_hwm_mib]=$(awk -v k="$hwm" 'BEGIN {printf "%.1f", k / 1024}')
    R[sweep_${key}_idle_mib]=$(awk -v k="$idle" 'BEGIN {printf "%.1f", k / 1024}')
    printf '  %-9s %9d points  %7.2f s  %9s points/s  %6s MB  peak RSS %s MiB (idle %s)\n' "$fmt" "$pts" "$t" \
      "${R[sweep_${key}_pps]}" "${R[sweep_${key}_mb]}" "${R[sweep_${key}_hwm_mib]}" "${R[sweep_${key}_idle_mib]}"
  done
done
# The 1M-point CSV sweep again with its rows on one thread (--sweep-threads 1)
start_daemon port pid --sweep-max-points 20000000 --sweep-threads 1
read -r t bytes code < <(curl -s -o /dev/null -w '%{time_total} %{size_download} %{http_code}\n' \
  -H 'Content-Type: application/json' -d "$(sweep_body csv 1000)" "http://127.0.0.1:$port/sweep")
[ "$code" = 200 ] || { echo "run.sh: sweep answered $code" >&2; exit 1; }
stop_daemon "$pid"
R[sweep_csv1_1M_pps]=$(awk -v t="$t" 'BEGIN {printf "%.0f", 1000000 / t}')
printf '  csv, one thread  %9d points  %7.2f s  %9s points/s\n' 1000000 "$t" "${R[sweep_csv1_1M_pps]}"
# serving_capacity: Llama-3-70B on a B200 at fp8, 4k prompts, 256 output tokens, P99 15 s
serving_body='{"solver":"serving_capacity","inputs":{"model":"Llama3_70B","hardware":"B200","precision":"fp8","seq_len":4096,"output_tokens":256,"target_p99_latency_ms":15000},"axes":[{"input":"qps","range":{"start":0.001,"stop":100,"step":0.001}}],"format":"csv"}'
start_daemon port pid
read -r t bytes code < <(curl -s -o /dev/null -w '%{time_total} %{size_download} %{http_code}\n' \
  -H 'Content-Type: application/json' -d "$serving_body" "http://127.0.0.1:$port/sweep")
[ "$code" = 200 ] || { echo "run.sh: serving_capacity sweep answered $code" >&2; exit 1; }
stop_daemon "$pid"
R[sweep_serving_pps]=$(awk -v t="$t" 'BEGIN {printf "%.0f", 100000 / t}')
R[sweep_serving_s]=$t
R[sweep_serving_mb]=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')
printf '  serving_capacity csv %9d points  %7.2f s  %9s points/s  %6s MB\n' 100000 "$t" "${R[sweep_serving_pps]}" \
  "${R[sweep_serving_mb]}"
R[serving_vs_bound]=$(awk -v a="${R[sweep_serving_pps]}" -v b="${R[fmtbound_csv_pps]}" 'BEGIN {printf "%.2f", a / b}')
small=csv_1M; large=csv_$((1000 * big / 1000000))M
R[csv_vs_bound]=$(awk -v a="${R[sweep_${small}_pps]}" -v b="${R[fmtbound_csv_pps]}" 'BEGIN {printf "%.2f", a / b}')
R[json_vs_bound]=$(awk -v a="${R[sweep_json_1M_pps]}" -v b="${R[fmtbound_json_pps]}" 'BEGIN {printf "%.2f", a / b}')
R[ndjson_vs_bound]=$(awk -v a="${R[sweep_ndjson_1M_pps]}" -v b="${R[fmtbound_ndjson_pps]}" 'BEGIN {printf "%.2f", a / b}')
R[csv1_vs_bound]=$(awk -v a="${R[sweep_csv1_1M_pps]}" -v b="${R[fmtbound_csv_pps]}" 'BEGIN {printf "%.2f", a / b}')

# --- 4. start-up ----------------------------------------------------------------------------
echo "== start-up (exec to first 200 from /healthz)"
while read -r tag key value unit; do
  [ "$tag" = RESULT ] || continue
  R[$key]=$value
  printf '  %-28s %12s %s\n' "$key" "$value" "$unit"
done < <("$build/bench/bench_startup" "$bin" 20)

# --- 5. parallelism search -------------------------------------------------------------------
echo "== bench_search"
while read -r tag key value unit; do
  [ "$tag" = RESULT ] || continue
  R[$key]=$value
  printf '  %-34s %12s %s\n' "$key" "$value" "$unit"
done < <("$build/bench/bench_search" "${core_args[@]}")

# --- the table ----------------------------------------------------------------------------
mode_cases=(single_node serving serving_tp2 distributed)   # bench_core's MODES
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
pass() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN {ok = (op == ">=") ? v >= t : v < t; print ok ? "yes" : "NO"}'; }
fmt2() { awk -v v="$1" 'BEGIN {printf "%.2f", v}'; }
k() { awk -v v="$1" 'BEGIN {printf "%.0f", v}'; }
{
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/run.sh$([ $quick = 1 ] && echo ' --quick')\` on $(nproc) cores ($cpu),"
  echo "kernel $(uname -r), load average at the end $(cut -d' ' -f1-3 /proc/loadavg); revision $(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' + local changes')."
  echo "wrk: -t2, ${dur} s per run, median of $rounds round(s); the daemon with default settings (2 worker threads)${BENCH_DAEMON_FLAGS:+ and $BENCH_DAEMON_FLAGS}, access log to /dev/null."
  echo
  echo "| target | measured | met |"
  echo "|---|---|---|"
  # issue 29's checks, then issue 24's cost budget (a whole POST /solve, each body naming its mode)
  echo "| GET /solve >= 0.80 x /healthz req/s (-c64) | $(fmt2 "${R[get_ratio_c64]}") ($(k "${R[solve_get_rps_c64]}") vs $(k "${R[healthz_rps_c64]}") req/s) | $(pass "${R[get_ratio_c64]}" 0.80 '>=') |"
  echo "| POST /solve >= 0.80 x /healthz req/s (-c64) | $(fmt2 "${R[post_ratio_c64]}") ($(k "${R[solve_post_rps_c64]}") req/s) | $(pass "${R[post_ratio_c64]}" 0.80 '>=') |"
  echo "| GET /solve >= 0.80 x /healthz req/s (-c256) | $(fmt2 "${R[get_ratio_c256]}") ($(k "${R[solve_get_rps_c256]}") vs $(k "${R[healthz_rps_c256]}") req/s) | $(pass "${R[get_ratio_c256]}" 0.80 '>=') |"
  echo "| POST /solve >= 0.80 x /healthz req/s (-c256) | $(fmt2 "${R[post_ratio_c256]}") ($(k "${R[solve_post_rps_c256]}") req/s) | $(pass "${R[post_ratio_c256]}" 0.80 '>=') |"
  echo "| (not a target) GET / POST /solve ÷ a static answer of the same size, /catalog/hardware/A100 (-c64) | $(fmt2 "${R[get_static_ratio_c64]}") / $(fmt2 "${R[post_static_ratio_c64]}") ($(k "${R[static3k_rps_c64]}") req/s) | |"
  echo "| in-process GET /solve <= 2.0 us | $(fmt2 "$(awk -v n="${R[app_solve_get_ns]}" 'BEGIN {print n / 1000}')") us | $(pass "${R[app_solve_get_ns]}" 2000.001 '<') |"
  echo "| in-process POST /solve <= 2.5 us | $(fmt2 "$(awk -v n="${R[app_solve_post_ns]}" 'BEGIN {print n / 1000}')") us | $(pass "${R[app_solve_post_ns]}" 2500.001 '<') |"
  echo "| CSV sweep over HTTP >= 0.75 x formatting bound (1M points) | ${R[csv_vs_bound]} ($(k "${R[sweep_csv_1M_pps]}") vs $(k "${R[fmtbound_csv_pps]}") points/s) | $(pass "${R[csv_vs_bound]}" 0.75 '>=') |"
  echo "| the same on one thread (--sweep-threads 1) | ${R[csv1_vs_bound]} ($(k "${R[sweep_csv1_1M_pps]}") points/s) | |"
  echo "| JSON sweep over HTTP >= 0.75 x its bound (1M points, with transitions) | ${R[json_vs_bound]} ($(k "${R[sweep_json_1M_pps]}") vs $(k "${R[fmtbound_json_pps]}") points/s) | $(pass "${R[json_vs_bound]}" 0.75 '>=') |"
  echo "| NDJSON sweep over HTTP >= 0.75 x its bound (1M points) | ${R[ndjson_vs_bound]} ($(k "${R[sweep_ndjson_1M_pps]}") vs $(k "${R[fmtbound_ndjson_pps]}") points/s) | $(pass "${R[ndjson_vs_bound]}" 0.75 '>=') |"
  echo "| serving_capacity CSV sweep over HTTP >= 0.5 x formatting bound (100,000 points) | ${R[serving_vs_bound]} ($(k "${R[sweep_serving_pps]}") vs $(k "${R[fmtbound_csv_pps]}") points/s) | $(pass "${R[serving_vs_bound]}" 0.5 '>=') |"
  echo "| peak RSS flat from 1M to 10M CSV points | ${R[sweep_${small}_hwm_mib]} -> ${R[sweep_${large}_hwm_mib]} MiB | $(pass "$(awk -v a="${R[sweep_${small}_hwm_mib]}" -v b="${R[sweep_${large}_hwm_mib]}" 'BEGIN {print b - a}')" 1 '<') |"
  echo "| RSS at ready <= 10 MiB | ${R[rss_at_ready_mib]} MiB | $(pass "${R[rss_at_ready_mib]}" 10.001 '<') |"
  echo "| ready <= 30 ms after exec (median of ${R[startup_runs]}) | ${R[ready_median_ms]} ms (min ${R[ready_min_ms]}, max ${R[ready_max_ms]}) | $(pass "${R[ready_median_ms]}" 30.001 '<') |"
  for c in single_node serving distributed; do
    [ -n "${R[app_mode_${c}_ratio]:-}" ] || continue
    echo "| measured mode <= 1.10 x mlsysim mode per POST /solve, $c | $(fmt2 "${R[app_mode_${c}_ratio]}") (${R[app_mode_${c}_measured_ns]} vs ${R[app_mode_${c}_mlsysim_ns]} ns) | $(pass "${R[app_mode_${c}_ratio]}" 1.10 '<') |"
  done
  echo
  over() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.2f", a - b}'; }
  echo "| HTTP (wrk -t2) | -c64 req/s | ratio to /healthz | daemon CPU µs per request (over /healthz) | -c256 req/s | ratio to /healthz |"
  echo "|---|---|---|---|---|---|"
  echo "| GET /healthz | $(k "${R[healthz_rps_c64]}") | 1 | ${R[healthz_us_c64]} | $(k "${R[healthz_rps_c256]}") | 1 |"
  echo "| GET /solve/single_node?$q | $(k "${R[solve_get_rps_c64]}") | $(fmt2 "${R[get_ratio_c64]}") | ${R[solve_get_us_c64]} ($(over "${R[solve_get_us_c64]}" "${R[healthz_us_c64]}")) | $(k "${R[solve_get_rps_c256]}") | $(fmt2 "${R[get_ratio_c256]}") |"
  echo "| POST /solve (same inputs) | $(k "${R[solve_post_rps_c64]}") | $(fmt2 "${R[post_ratio_c64]}") | ${R[solve_post_us_c64]} ($(over "${R[solve_post_us_c64]}" "${R[healthz_us_c64]}")) | $(k "${R[solve_post_rps_c256]}") | $(fmt2 "${R[post_ratio_c256]}") |"
  echo "| GET /catalog/hardware/A100 (a static answer of 3.1 KB) | $(k "${R[static3k_rps_c64]}") | $(fmt2 "$(awk -v a="${R[static3k_rps_c64]}" -v b="${R[healthz_rps_c64]}" 'BEGIN {print a / b}')") | ${R[static3k_us_c64]} ($(over "${R[static3k_us_c64]}" "${R[healthz_us_c64]}")) | $(k "${R[static3k_rps_c256]}") | $(fmt2 "$(awk -v a="${R[static3k_rps_c256]}" -v b="${R[healthz_rps_c256]}" 'BEGIN {print a / b}')") |"
  echo "| GET /sweep/single_node, 8 points, CSV | $(k "${R[sweep8_rps_c64]}") | $(fmt2 "${R[sweep8_ratio_c64]}") | ${R[sweep8_us_c64]} ($(over "${R[sweep8_us_c64]}" "${R[healthz_us_c64]}")) | $(k "${R[sweep8_rps_c256]}") | $(fmt2 "${R[sweep8_ratio_c256]}") |"
  echo
  echo "p99 latency at -c64 (first round): /healthz ${R[healthz_p99_c64]}, GET /solve ${R[solve_get_p99_c64]}; RSS after the wrk runs ${R[rss_after_wrk_mib]} MiB."
  echo
  echo "| static answer (prebuilt at start-up), -c64, one round | req/s | ratio to /healthz ($(k "${R[static_healthz]}") req/s) |"
  echo "|---|---|---|"
  for path in "${static_paths[@]}"; do
    echo "| GET $path | $(k "${R[static_$path]}") | $(fmt2 "$(awk -v a="${R[static_$path]}" -v b="${R[static_healthz]}" 'BEGIN {print a / b}')") |"
  done
  echo
  echo "| sweep over HTTP (POST /sweep, curl) | points/s | seconds | MB sent | daemon peak RSS (VmHWM) |"
  echo "|---|---|---|---|---|"
  for key in csv_1M "$large" json_1M json_$((1000 * big / 1000000))M ndjson_1M; do
    echo "| ${key/_/ } | $(k "${R[sweep_${key}_pps]}") | ${R[sweep_${key}_s]} | ${R[sweep_${key}_mb]} | ${R[sweep_${key}_hwm_mib]} MiB |"
  done
  echo
  echo "| in process (bench_core) | value |"
  echo "|---|---|"
  echo "| formatting bound, CSV rows (no solve, no HTTP) | $(k "${R[fmtbound_csv_pps]}") points/s (${R[fmtbound_csv_bytes_per_row]} B/row) |"
  echo "| formatting bound, JSON rows | $(k "${R[fmtbound_json_pps]}") points/s |"
  echo "| formatting bound, NDJSON rows | $(k "${R[fmtbound_ndjson_pps]}") points/s |"
  echo "| sweep in process, CSV (solve + format, no HTTP) | $(k "${R[inproc_sweep_csv_pps]}") points/s |"
  echo "| sweep in process, JSON | $(k "${R[inproc_sweep_json_pps]}") points/s |"
  echo "| sweep in process, NDJSON | $(k "${R[inproc_sweep_ndjson_pps]}") points/s |"
  echo "| one single_node solve | ${R[solve_single_node_ns]} ns |"
  echo "| one pipeline solve | ${R[solve_pipeline_ns]} ns |"
  for key in "${!R[@]}"; do
    case $key in solve_single_node_ns | solve_pipeline_ns) ;; solve_*_ns) echo "$key" ;; esac
  done | sort | while read -r key; do
    name=${key#solve_}; name=${name%_ns}
    echo "| one $name solve$([ "$name" = batching_optimizer_per_batch ] && echo ', per batch size searched') | ${R[$key]} ns (< 2 µs: $(pass "${R[$key]}" 2000 '<')) |"
  done
  for key in "${!R[@]}"; do
    case $key in example_*_ns) echo "$key" ;; esac
  done | sort | while read -r key; do
    name=${key#example_}; name=${name%_ns}
    echo "| one $name solve, its descriptor's example | ${R[$key]} ns |"
  done
  echo "| generic input checks of one point | ${R[inputs_check_ns]} ns |"
  echo "| fmt_double, a value of the sweep's outputs | ${R[fmt_double_ns]} ns (previous printf+strtod search: ${R[fmt_double_ref_ns]} ns) |"
  echo "| fmt_double, random bit patterns | ${R[fmt_double_random_ns]} ns (previous: ${R[fmt_double_random_ref_ns]} ns) |"
  echo "| app_handle GET /healthz (routing floor) | ${R[app_healthz_ns]} ns |"
  echo "| app_handle GET /solve/single_node | ${R[app_solve_get_ns]} ns |"
  echo "| app_handle POST /solve | ${R[app_solve_post_ns]} ns |"
  echo
  echo "| the solver call alone, same inputs, measured against mlsysim mode (bench_core, runs alternating) | mlsysim | measured | measured / mlsysim |"
  echo "|---|---|---|---|"
  for c in "${mode_cases[@]}"; do
    for q in "" _quiet; do
      [ -n "${R[mode_${c}${q}_ratio]:-}" ] || continue
      echo "| $c$([ -n "$q" ] && echo ', no trace (a sweep point)') | ${R[mode_${c}${q}_mlsysim_ns]} ns | ${R[mode_${c}${q}_measured_ns]} ns | $(fmt2 "${R[mode_${c}${q}_ratio]}") |"
    done
  done
  echo
  echo "| parallelism, exhaustive, Llama-3-70B (bench_search) | one search | configurations/s |"
  echo "|---|---|---|"
  for key in "${!R[@]}"; do
    case $key in search_*_ms) echo "${key%_ms}" ;; esac
  done | sort | while read -r key; do
    echo "| ${key#search_} | ${R[${key}_ms]} ms | $(k "${R[${key}_cps]}") |"
  done
  echo
  echo "| start-up | value |"
  echo "|---|---|"
  echo "| exec to first 200 from /healthz, median of ${R[startup_runs]} | ${R[ready_median_ms]} ms |"
  echo "| RSS at ready / after 200 ms idle | ${R[rss_at_ready_mib]} / ${R[rss_idle_mib]} MiB |"
} >"$out"
echo
cat "$out"
echo
echo "markdown written to $out"
