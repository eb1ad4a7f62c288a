#!/usr/bin/env bash
# deps.sh - install the Debian 12 packages mlsysd needs, only those missing.
#   scripts/deps.sh build   # compiler, CMake, libmicrohttpd, jansson, yajl, libyaml, zlib
#   scripts/deps.sh serve   # + curl and jq, which the README's examples use
#   scripts/deps.sh test    # + Criterion, libcurl, clang (fuzzing, sanitizers), jq, wrk, valgrind,
#                           #   node + npm (the contract lint, tools/lint) unless already on PATH
#   scripts/deps.sh browser # chromium, node + npm unless on PATH (the dashboard's browser test, tests/browser)
set -euo pipefail
want=(build-essential cmake pkg-config libmicrohttpd-dev libjansson-dev libyajl-dev libyaml-dev zlib1g-dev)
if [ "${1:-build}" = serve ]; then
  want+=(curl jq)
fi
if [ "${1:-build}" = test ]; then
  want+=(libcriterion-dev libcurl4-openssl-dev clang libclang-rt-14-dev jq wrk valgrind curl python3)
fi
if [ "${1:-build}" = browser ]; then
  want=(chromium)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from elsewhere (nodesource bundles npm in its nodejs): only ask Debian when absent
if [ "${1:-build}" = test ] || [ "${1:-build}" = browser ]; then
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}" >&2
# debconf's notes (no apt-utils, no terminal) are noise here; real errors still show.
quiet() { "$@" 2> >(grep -v '^debconf' >&2) >/dev/null; }
quiet $sudo apt-get update -qq
quiet $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
