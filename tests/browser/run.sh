#!/usr/bin/env bash
# tests/browser/run.sh - the dashboard in a real browser: installs Debian's
# chromium (and node + npm when missing) through scripts/deps.sh, the pinned
# puppeteer-core from package-lock.json (npm ci), and runs dashboard.test.mjs
# under node's test runner against the daemon binary.
#
#   tests/browser/run.sh [--binary PATH]
#
# Exit 0 passed, 1 failed, 77 when chromium cannot be installed or started on
# this machine (the last line says why). Screenshots: tests/browser/artifacts/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/stage.sh
. "$root/tests/lib/stage.sh"
stage_binary browser "$@" || exit $?
if ! "$root/scripts/deps.sh" browser; then
  echo "chromium, node or npm could not be installed from Debian"; exit 77
fi
chromium=$(command -v chromium) || { echo "no chromium after installing it"; exit 77; }
cd "$here" || exit 1
npm_ci_once "$here" || { echo "browser: npm ci failed"; exit 1; }
rm -rf artifacts
MLSYSD_BINARY=$binary CHROMIUM=$chromium DBUS_SESSION_BUS_ADDRESS=disabled: \
  node --test --test-concurrency=1 dashboard.test.mjs
rc=$?
# the test writes this file when puppeteer cannot start chromium at all
if [ "$rc" -ne 0 ] && [ -f artifacts/launch-failed ]; then
  echo "chromium does not start here: $(head -c 300 artifacts/launch-failed)"; exit 77
fi
exit "$rc"
