#!/usr/bin/env bash
# tests/client/run.sh - what a client generated from the contract sees:
#  1. TypeScript types from the served GET /openapi.json (openapi-typescript), and
#     client.ts type-checked against them with tsc --strict (no casts), then run;
#  2. live traffic through Stoplight Prism's validating proxy (prism proxy --errors):
#     a fixed set of requests covering every route and format, each answered with
#     its expected status and 0 violations of the contract in Prism's log.
# The tools are pinned in package-lock.json (npm ci).
#
#   tests/client/run.sh [--binary PATH]
#
# Exit 0 passed, 1 failed, 77 when npm cannot install the tools (no registry).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/stage.sh
. "$root/tests/lib/stage.sh"
stage_binary client "$@" || exit $?
command -v npm >/dev/null && command -v node >/dev/null || { echo "client: node and npm are not installed"; exit 77; }
command -v curl >/dev/null || { echo "client: curl is required"; exit 1; }
cd "$here" || exit 1
npm_ci_once "$here" || { echo "client: npm ci failed (registry unreachable?)"; exit 77; }
bin=$here/node_modules/.bin

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$work" "$here/work" "$here/out"
}
trap cleanup EXIT

# --- the daemon ---------------------------------------------------------------------------
"$binary" --host 127.0.0.1 --port 0 --drain-delay 0 >"$work/daemon.log" 2>&1 &
pids+=($!)
port=""
for _ in $(seq 1 200); do
  port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9][0-9]*\).*/\1/p' "$work/daemon.log" 2>/dev/null | head -n 1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { cat "$work/daemon.log"; echo "client: mlsysd did not start"; exit 1; }
daemon=http://127.0.0.1:$port

# --- 1. types from the served contract, the client type-checked and run --------------------
rm -rf work out && mkdir -p work
curl -sf "$daemon/openapi.json" -o work/openapi.json || { echo "client: GET /openapi.json failed"; exit 1; }
# properties with a default may be left out of a request: not required in the types either
"$bin/openapi-typescript" work/openapi.json -o work/api.d.ts --default-non-nullable false --silent || { echo "client: openapi-typescript failed"; exit 1; }
cp client.ts work/client.ts
printf 'export const base: string = "%s";\n' "$daemon" > work/target.ts
if grep -nE '\bas [A-Za-z{(]|: any\b|<any>|!\.' work/client.ts; then
  echo "client: client.ts must not cast"; exit 1
fi
"$bin/tsc" -p tsconfig.json || { echo "client: tsc --strict failed on the generated types"; exit 1; }
node out/client.js || { echo "client: the typed client's checks failed"; exit 1; }

# --- 2. live traffic through Prism's validating proxy ------------------------------------------
pport=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$bin/prism" proxy work/openapi.json "$daemon" --host 127.0.0.1 --port "$pport" --errors >"$work/prism.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
  curl -s -o /dev/null "http://127.0.0.1:$pport/healthz" && break
  sleep 0.1
done
proxy=http://127.0.0.1:$pport
json='Content-Type: application/json'
solve='{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":256,"precision":"fp16"}}'
sweep='{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"axes":[{"input":"batch_size","values":[1,32,256]},{"input":"hardware","values":["A100","H100"]}],"outputs":["latency","bottleneck"],"format":"FMT"}'
batch='{"items":[{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"}},{"solver":"data","catalog":"tutorial","inputs":{"workload_data_rate":"1 GB/s","hardware":"H100"}},{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A101"}}]}'
etag=$(curl -sI "$daemon/catalog/hardware/A100" | tr -d '\r' | sed -n 's/^ETag: //p')
# expected status | method | path | extra curl arguments. Every route and format (JSON,
# CSV, NDJSON, YAML, HTML, JavaScript, problems, a 304); not HEAD: Prism 5 reads an empty
# body of a JSON media type as JSON and answers 500 (stoplightio/prism#1361), so HEAD is
# checked against the daemon directly (tests/api/test_consistency.c).
requests=(
  "200|GET|/healthz|" "200|GET|/livez|" "200|GET|/readyz|" "200|GET|/metrics|" "200|GET|/version|"
  "200|GET|/openapi.json|" "200|GET|/openapi.yaml|" "200|GET|/|" "200|GET|/|-H Accept:text/html"
  "200|GET|/ui/dashboard.js|" "200|GET|/ui/dashboard.css|" "404|GET|/ui/nope.js|"
  "200|GET|/solvers|" "200|GET|/solvers/single_node|" "200|GET|/solvers/TransformationModel|" "404|GET|/solvers/nope|"
  "200|GET|/catalog|" "200|GET|/catalog?catalog=tutorial&kind=models|" "200|GET|/catalog?group=Cloud&kind=hardware|"
  "400|GET|/catalog?group=Mainframe|" "400|GET|/catalog?kind=gpus|"
  "200|GET|/catalog/hardware|" "200|GET|/catalog/fabrics|" "200|GET|/catalog/prices?group=cloud|" "404|GET|/catalog/gpus|"
  "200|GET|/catalog/hardware/A100|" "200|GET|/catalog/clusters/Research_256?catalog=tutorial|" "404|GET|/catalog/hardware/A1000|"
  "304|GET|/catalog/hardware/A100|-H If-None-Match:$etag"
  "200|POST|/solve|-d $solve" "404|POST|/solve|-d {\"solver\":\"nope\"}"
  "200|GET|/solve/single_node?model=ResNet50&hardware=A100&batch_size=256&precision=FP16|"
  "200|GET|/solve/pipeline?model=ResNet50&hardware=A100&batch_size=512&sample_size_bytes=500%20KB&cpu_workers=8|"
  "404|GET|/solve/single_node?model=ResNet50&hardware=A10|"
  "200|POST|/sweep|-d ${sweep/FMT/json}" "200|POST|/sweep|-d ${sweep/FMT/csv}" "200|POST|/sweep|-d ${sweep/FMT/ndjson}"
  "200|GET|/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=1,32,256&format=csv|"
  "200|GET|/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=1,32,256&format=ndjson|"
  "200|GET|/sweep/data?workload_data_rate=1,10,100&hardware=A100|"
  "400|GET|/sweep/data?workload_data_rate=1,2&hardware=A100&outputs=nope|"
  "200|POST|/batch|-d $batch"
)
failed=0
for r in "${requests[@]}"; do
  IFS='|' read -r want method path extra <<<"$r"
  args=(-s -o "$work/body" -w '%{http_code}' -X "$method")
  [ "$method" = HEAD ] && args=(-s -o "$work/body" -w '%{http_code}' -I)
  if [ -n "$extra" ]; then
    read -r flag value <<<"$extra"
    if [ "$flag" = -d ]; then args+=(-H "$json" -d "$value"); else args+=(-H "${value/:/: }"); fi
  fi
  got=$(curl "${args[@]}" "$proxy$path")
  if [ "$got" != "$want" ]; then
    echo "client: $method $path through Prism: $got, expected $want: $(head -c 400 "$work/body")"
    failed=1
  fi
done
violations=$(grep -ciE 'violation' "$work/prism.log")
if [ "$violations" -ne 0 ]; then
  grep -iE 'violation' "$work/prism.log" | head -20
  failed=1
fi
echo "client: ${#requests[@]} requests through Prism's proxy, $violations violations of the contract"
exit "$failed"
