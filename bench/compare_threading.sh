#!/usr/bin/env bash
# compare_threading.sh - libmicrohttpd threading modes on this machine, under wrk.
#
#   bench/compare_threading.sh
#
# Builds the daemon three times (Release) from the working tree: as it is (a pool of
# --threads internal polling threads on epoll, the default 2 on 2 cores; poll when there
# is one thread), a copy whose server/http.c is patched to one thread per connection
# (MHD_USE_THREAD_PER_CONNECTION with poll; no pool), and a copy that uses epoll even
# for one thread (what http.c did before; it stalls at 256 connections). Then, round by
# round, runs wrk -t2 at -c64 and -c256 against /healthz and GET /solve/single_node on:
# the pool with 1 (poll), 2 and 4 threads, one epoll thread, and thread-per-connection.
# Prints requests/s (median of BENCH_ROUNDS rounds, default 3, BENCH_DURATION seconds
# each, default 4) and the peak RSS of each daemon.
# Loopback only; every loop is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_BUILD_DIR:-/tmp/mlsysd-bench}/threading
rounds=${BENCH_ROUNDS:-3}
dur=${BENCH_DURATION:-4}
mkdir -p "$work"

echo "== building the three variants in $work"
sel='(cfg->threads > 1 ? MHD_USE_EPOLL : MHD_USE_POLL)'
grep -qF "$sel" "$root/server/http.c" || { echo "compare_threading.sh: server/http.c no longer selects the mode as expected" >&2; exit 1; }
for v in tpc epoll; do
  rm -rf "$work/src-$v"
  mkdir -p "$work/src-$v"
  tar -C "$root" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$work/src-$v" -xf -
done
sed -i -e "s/(cfg->threads > 1 ? MHD_USE_EPOLL : MHD_USE_POLL)/MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL/" \
       -e 's/MHD_OPTION_THREAD_POOL_SIZE, (unsigned)cfg->threads,/MHD_OPTION_THREAD_POOL_SIZE, 1u,/' "$work/src-tpc/server/http.c"
sed -i -e "s/(cfg->threads > 1 ? MHD_USE_EPOLL : MHD_USE_POLL)/MHD_USE_EPOLL/" "$work/src-epoll/server/http.c"
grep -q MHD_USE_THREAD_PER_CONNECTION "$work/src-tpc/server/http.c" || { echo "compare_threading.sh: could not patch http.c" >&2; exit 1; }
for v in pool tpc epoll; do
  src=$root
  if [ $v != pool ]; then src=$work/src-$v; rm -rf "$work/build-$v"; fi
  cmake -S "$src" -B "$work/build-$v" -DCMAKE_BUILD_TYPE=Release -DMLSYSD_TESTS=OFF >/dev/null
  cmake --build "$work/build-$v" -j"$(nproc)" --target mlsysd >/dev/null
done

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  exit 1
}
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT

q='model=ResNet50&hardware=A100&batch_size=256&precision=fp16'
variants=("one-thread-poll:pool:1" "pool-2:pool:2" "pool-4:pool:4" "one-thread-epoll:epoll:1" "thread-per-connection:tpc:2")
: >"$work/results.txt"
for r in $(seq 1 "$rounds"); do
  for v in "${variants[@]}"; do
    IFS=: read -r name build threads <<<"$v"
    up=0
    for _ in 1 2 3; do # a port taken between free_port and bind: try another
      port=$(free_port)
      "$work/build-$build/mlsysd" --port "$port" --threads "$threads" --drain-delay 0 --max-connections 2048 >/dev/null 2>&1 &
      pid=$!
      for _ in $(seq 1 300); do
        if curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; then up=1; break; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
      done
      [ $up = 1 ] && break
      kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    done
    [ $up = 1 ] || { echo "compare_threading.sh: $name did not start" >&2; exit 1; }
    for c in 64 256; do
      h=$( (wrk -t2 -c"$c" -d"${dur}s" "http://127.0.0.1:$port/healthz" || true) | awk '/^Requests\/sec:/ {print $2}')
      g=$( (wrk -t2 -c"$c" -d"${dur}s" "http://127.0.0.1:$port/solve/single_node?$q" || true) | awk '/^Requests\/sec:/ {print $2}')
      echo "$name $c ${h:-0} ${g:-0} $(awk '$1 == "VmHWM:" {print $2}' "/proc/$pid/status")" >>"$work/results.txt"
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  done
  echo "  round $r done"
done

echo
echo "| mode | wrk -c | /healthz req/s | GET /solve req/s | solve / healthz | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
for v in "${variants[@]}"; do
  name=${v%%:*}
  for c in 64 256; do
    sel() { awk -v n="$name" -v c="$c" -v i="$1" '$1 == n && $2 == c {print $i}' "$work/results.txt" | median; }
    rat=$(awk -v n="$name" -v c="$c" '$1 == n && $2 == c && $3 > 0 {print $4 / $3}' "$work/results.txt" | median)
    printf '| %s | %s | %.0f | %.0f | %.2f | %.1f |\n' "$name" "$c" "$(sel 3)" "$(sel 4)" "$rat" "$(awk -v k="$(sel 5)" 'BEGIN {print k / 1024}')"
  done
done
