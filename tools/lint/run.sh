#!/usr/bin/env bash
# tools/lint/run.sh - lint the contract the daemon serves (/openapi.json: the
# hand-written openapi.yaml merged with the parts generated from the solver
# descriptors) with Redocly CLI, pinned in package.json / package-lock.json
# and installed here (tools/lint/node_modules) by `npm ci` when missing.
# Pass: 0 errors (warnings are printed, not fatal).
#
#   tools/lint/run.sh [--binary PATH]
#
# MLSYSD_LINT_KEEP=FILE keeps a copy of the linted (indented) document, to
# read the lines the problems name.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../tests/lib/stage.sh
. "$root/tests/lib/stage.sh"
stage_binary lint "$@" || exit $?
for tool in node npm curl; do
  command -v "$tool" >/dev/null || { echo "lint: $tool is not installed (scripts/deps.sh test)" >&2; exit 2; }
done

redocly=$here/node_modules/.bin/redocly
want=$(node -p "require('$here/package-lock.json').packages['node_modules/@redocly/cli'].version")
have=$( [ -x "$redocly" ] && node -p "require('$here/node_modules/@redocly/cli/package.json').version" 2>/dev/null || echo none)
if [ "$have" != "$want" ]; then
  echo "lint: installing @redocly/cli $want (npm ci in tools/lint)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi

work=$(mktemp -d /tmp/mlsysd-lint.XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
  [ -n "${MLSYSD_LINT_KEEP:-}" ] && cp "$work/openapi.json" "$MLSYSD_LINT_KEEP"; rm -rf "$work"
}
trap cleanup EXIT
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 30000))
  "$binary" --port "$port" --host 127.0.0.1 --log-level warn --drain-delay 0 >"$work/daemon.log" 2>&1 &
  pid=$!
  for _ in $(seq 50); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill "$pid" 2>/dev/null || true
  pid=
done
[ -n "$pid" ] || { echo "lint: the daemon did not start"; cat "$work/daemon.log"; exit 1; }
curl -fsS "http://127.0.0.1:$port/openapi.json" -o "$work/served.json"
# the same document, indented, so that problems are reported by line
node -e "const fs = require('fs'); fs.writeFileSync(process.argv[2], JSON.stringify(JSON.parse(fs.readFileSync(process.argv[1])), null, 1))" \
  "$work/served.json" "$work/openapi.json"

# Exit status: non-zero when there are errors.
(cd "$here" && "$redocly" lint --config "$here/redocly.yaml" --format stylish --max-problems 1000 "$work/openapi.json")
