#!/usr/bin/env bash
# tests/soak/run.sh - the soak: mixed traffic at a fixed rate against a real mlsysd on
# loopback (tests/soak/soak.py has the mix and the targets).
#
#   tests/soak/run.sh [--minutes N] [--rate R] [--binary PATH] [--report FILE] [soak.py options]
#
# The test stage `soak` (scripts/test.sh) runs 2 minutes at 40 requests/s; the bench
# (docs/HARDENING.md, "Soak") runs --minutes 30. Targets: no 5xx or transport error, the
# daemon alive and exiting 0 on SIGTERM, RSS growth after warm-up < 1 MiB, p99 of the
# last window within 20 % (+1 ms) of the first window's. Exit 0 passed, 1 failed,
# 77 cannot run here (no python3).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
args=()
binary=$root/build/mlsysd
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ -x "$binary" ] || { echo "soak: no daemon binary at $binary (build first, or --binary)" >&2; exit 1; }
exec python3 "$here/soak.py" --binary "$binary" "${args[@]}"
