# tests/lib/stage.sh - sourced by the test stages that run a daemon binary and
# node tools (tests/browser/run.sh, tests/client/run.sh, tools/lint/run.sh).
# The caller sets $root (the repository) before sourcing it.
#
#   stage_binary NAME "$@"   sets $binary from --binary PATH (default
#                            $root/build/mlsysd), made absolute so the stage may
#                            change directory; prints usage and returns 2 on an
#                            unknown argument, 1 when there is no such binary.
#   npm_ci_once DIR          npm ci in DIR unless its node_modules was installed
#                            from the same package-lock.json; npm's status.

stage_binary() {
  local name=$1
  shift
  binary=$root/build/mlsysd
  while [ $# -gt 0 ]; do
    case "$1" in
      --binary) binary=$2; shift ;;
      *) echo "usage: $0 [--binary PATH]" >&2; return 2 ;;
    esac
    shift
  done
  [ -x "$binary" ] || { echo "$name: no daemon binary at $binary (build first, or --binary)"; return 1; }
  binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
}

npm_ci_once() {
  local dir=$1
  cmp -s "$dir/package-lock.json" "$dir/node_modules/.mlsysd-lock" 2>/dev/null && return 0
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || return
  cp "$dir/package-lock.json" "$dir/node_modules/.mlsysd-lock"
}
