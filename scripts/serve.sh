#!/usr/bin/env bash
# serve.sh - install what is missing, build (Release) and run mlsysd on
# 127.0.0.1:8080 with its embedded catalog. Extra arguments go to mlsysd
# (see build-release/mlsysd --help), e.g. scripts/serve.sh --port 9000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh serve
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DMLSYSD_TESTS=OFF >/dev/null
cmake --build build-release -j"$(nproc)" --target mlsysd >/dev/null
exec build-release/mlsysd --host "${MLSYSD_HOST:-127.0.0.1}" --port "${MLSYSD_PORT:-8080}" "$@"
