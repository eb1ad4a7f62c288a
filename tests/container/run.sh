#!/usr/bin/env bash
# Container and deployment test for mlsysd.
#
#   bash tests/container/run.sh
#
# 1. Makes Docker usable (../shared/tools/docker-offline.sh, when present, starts a daemon and
#    provides debian:bookworm-slim on machines without a registry).
# 2. Builds the image from the Dockerfile (which compiles the daemon and runs ctest inside).
# 3. Checks the image's metadata, runs it read-only on a random loopback port and checks
#    /healthz, a golden POST /solve, the uid, the read-only root, the HEALTHCHECK, the drain on
#    SIGTERM and that `docker stop` ends it cleanly within the default 10 s grace period, and
#    that `--cpus 1` gives one worker and one sweep thread.
# 4. Validates deploy/docker-compose.yml when a compose client is installed.
# 5. Renders the kustomize base deploy/k8s and checks every object's required fields.
#
# Prints one "PASS: ..." / "FAIL: ..." / "SKIP: ..." line per check and a closing line
# "container: N passed, N failed, N skipped"; exits 1 if any check failed.
#
# Environment:
#   MLSYSD_TEST_IMAGE=ref   test this existing image instead of building one (it is not removed)
#   MLSYSD_TEST_KEEP=1      keep the built image afterwards (tag printed at the end)
# The image of the Dockerfile's build-deps stage stays tagged mlsysd-test-cache:build-deps as a
# build cache (the apt-get of the -dev packages is the slow part); every other container and
# image the test creates is removed on exit.
#   MLSYSD_TEST_BUILD_TIMEOUT=seconds   limit for `docker build` (default 1200)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

PASSED=0 FAILED=0 SKIPPED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS: %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL: %s\n' "$*"; }
skip() { SKIPPED=$((SKIPPED + 1)); printf 'SKIP: %s\n' "$*"; }
info() { printf '  .. %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$(now)"; }

command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is required by this test"; exit 1; }

SUFFIX="$$-$RANDOM"
IMAGE="mlsysd-test:$SUFFIX"
CNAME="mlsysd-test-$SUFFIX"
CNAME_DRAIN="mlsysd-test-drain-$SUFFIX"
CNAME_CPUS="mlsysd-test-cpus-$SUFFIX"
BUILT_IMAGE=""
BUILT_STAGE=""
TMP=$(mktemp -d /tmp/mlsysd-container-test.XXXXXX)

SUMMARY_DONE=0
ERR_LINE=""
trap 'ERR_LINE=$LINENO' ERR
cleanup() {
  local rc=$?
  if [ "$SUMMARY_DONE" = 0 ]; then
    fail "test script aborted (exit code $rc${ERR_LINE:+, last error at line $ERR_LINE})"
    echo "container: $PASSED passed, $FAILED failed, $SKIPPED skipped"
    [ "$rc" != 0 ] || rc=1
  fi
  if command -v docker >/dev/null 2>&1; then
    docker rm -f "$CNAME" "$CNAME_DRAIN" "$CNAME_CPUS" >/dev/null 2>&1 || true
    # Removing the tags also removes their untagged parent layers, down to the kept
    # build-deps cache image and the base image.
    if [ "${MLSYSD_TEST_KEEP:-0}" != 1 ]; then
      [ -z "$BUILT_IMAGE" ] || docker rmi -f "$BUILT_IMAGE" >/dev/null 2>&1 || true
    fi
    [ -z "$BUILT_STAGE" ] || docker rmi -f "$BUILT_STAGE" >/dev/null 2>&1 || true
    # The legacy builder leaves the untagged layers of a failed build behind: remove those named
    # in this run's log that have no tag (shared cached layers refuse to go, which is fine).
    if [ -f "$TMP/build.log" ]; then
      local id
      for id in $(grep -Eo '^ ---> [0-9a-f]{12}$' "$TMP/build.log" | awk '{print $2}' | tac); do
        [ "$(docker image inspect -f '{{len .RepoTags}}' "$id" 2>/dev/null)" = 0 ] || continue
        docker rmi "$id" >/dev/null 2>&1 || true
      done
    fi
  fi
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# http METHOD URL [JSON_BODY] -> first line: status (0 when no answer), then the body.
# Proxies from the environment are ignored: the target is always loopback.
http() {
  python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
method, url = sys.argv[1], sys.argv[2]
data = sys.argv[3].encode() if len(sys.argv) > 3 else None
req = urllib.request.Request(url, data=data, method=method,
                             headers={"Content-Type": "application/json"} if data else {})
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    with opener.open(req, timeout=3) as r:
        print(r.status); sys.stdout.write(r.read().decode("utf-8", "replace"))
except urllib.error.HTTPError as e:
    print(e.code); sys.stdout.write(e.read().decode("utf-8", "replace"))
except Exception as e:  # connection refused, reset, timeout
    print(0); sys.stdout.write(str(e))
PY
}
status_of() { { http GET "$1" || true; } | sed -n 1p; }

# ---------------------------------------------------------------------------------------------
# 1. Docker
# ---------------------------------------------------------------------------------------------
DOCKER_OK=0
if ! command -v docker >/dev/null 2>&1 && [ ! -f ../shared/tools/docker-offline.sh ]; then
  fail "docker: no docker client on this machine"
else
  if [ -f ../shared/tools/docker-offline.sh ]; then
    info "preparing Docker with ../shared/tools/docker-offline.sh"
    bash ../shared/tools/docker-offline.sh || info "docker-offline.sh exited non-zero"
  fi
  if docker info >/dev/null 2>&1; then
    DOCKER_OK=1
    pass "docker daemon answers (server $(docker version -f '{{.Server.Version}}' 2>/dev/null || echo '?'))"
  else
    fail "docker daemon does not answer (docker info failed)"
  fi
fi

# ---------------------------------------------------------------------------------------------
# 2. Image build
# ---------------------------------------------------------------------------------------------
VERSION=$(sed -n 's/^project(mlsysd VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt | head -n 1)
VERSION=${VERSION:-dev}
REVISION=$(git rev-parse --verify -q HEAD 2>/dev/null || echo unknown)
SOURCE="local-test"
CACHE_TAG="mlsysd-test-cache:build-deps"
IMAGE_OK=0
dbuild() {
  printf '\n$ docker build %s\n' "$*" >>"$TMP/build.log"
  timeout "${MLSYSD_TEST_BUILD_TIMEOUT:-1200}" docker build --force-rm "$@" >>"$TMP/build.log" 2>&1
}
if [ "$DOCKER_OK" = 1 ]; then
  if [ -n "${MLSYSD_TEST_IMAGE:-}" ]; then
    IMAGE="$MLSYSD_TEST_IMAGE"
    if docker image inspect "$IMAGE" >/dev/null 2>&1; then
      IMAGE_OK=1; skip "docker build (testing the given image $IMAGE)"
    else
      fail "image $IMAGE (MLSYSD_TEST_IMAGE) does not exist"
    fi
  else
    # Three steps of one Dockerfile: the -dev packages stage (tagged $CACHE_TAG and kept, so the
    # slow apt-get survives the cleanup and later runs reuse it), the compile+ctest stage, the image.
    info "building $IMAGE (log: $TMP/build.log is shown on failure)"
    t0=$(now)
    step=""
    if step="build-deps stage" && dbuild --target build-deps -t "$CACHE_TAG" . \
       && step="build stage (compile + ctest)" && BUILT_STAGE="mlsysd-test-build:$SUFFIX" \
       && dbuild --target build -t "$BUILT_STAGE" . \
       && step="runtime image" && BUILT_IMAGE="$IMAGE" \
       && dbuild --build-arg VERSION="$VERSION" --build-arg REVISION="$REVISION" \
            --build-arg SOURCE="$SOURCE" -t "$IMAGE" .; then
      IMAGE_OK=1
      ctest_line=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$TMP/build.log" | tail -n 1 || true)
      pass "docker build in $(elapsed "$t0") s (ctest in the build stage: ${ctest_line:-not rerun, layer cached})"
      size=$(docker image inspect -f '{{.Size}}' "$IMAGE" 2>/dev/null || echo 0)
      info "image size: $((size / 1024 / 1024)) MiB"
    else
      fail "docker build: $step failed after $(elapsed "$t0") s; last lines of the log:"
      tail -n 60 "$TMP/build.log" | sed 's/^/    | /'
    fi
  fi
fi

# ---------------------------------------------------------------------------------------------
# 3. Image metadata and running container
# ---------------------------------------------------------------------------------------------
if [ "$IMAGE_OK" = 1 ]; then
  meta() { docker image inspect -f "$1" "$IMAGE"; }
  user=$(meta '{{.Config.User}}')
  case "$user" in
    10001|10001:*) pass "image USER is $user (fixed uid 10001)" ;;
    *) fail "image USER is '$user', expected 10001[:gid]" ;;
  esac
  ports=$(meta '{{range $p, $v := .Config.ExposedPorts}}{{$p}} {{end}}')
  [[ " $ports " == *" 8080/tcp "* ]] && pass "image EXPOSEs 8080/tcp" || fail "image exposes '$ports', expected 8080/tcp"
  stopsig=$(meta '{{.Config.StopSignal}}')
  [ "$stopsig" = SIGTERM ] && pass "image STOPSIGNAL SIGTERM" || fail "image STOPSIGNAL is '$stopsig'"
  hc=$(meta '{{if .Config.Healthcheck}}{{join .Config.Healthcheck.Test " "}}{{end}}')
  [[ "$hc" == *"--healthcheck"* && "$hc" != *curl* ]] \
    && pass "image HEALTHCHECK: $hc" || fail "image HEALTHCHECK is '$hc', expected mlsysd --healthcheck"
  envs=$(meta '{{range .Config.Env}}{{.}} {{end}}')
  [[ " $envs " == *" MLSYSD_HOST=0.0.0.0 "* ]] && pass "image ENV MLSYSD_HOST=0.0.0.0" || fail "image ENV lacks MLSYSD_HOST=0.0.0.0: $envs"
  lv=$(meta '{{index .Config.Labels "org.opencontainers.image.version"}}')
  lr=$(meta '{{index .Config.Labels "org.opencontainers.image.revision"}}')
  ls=$(meta '{{index .Config.Labels "org.opencontainers.image.source"}}')
  if [ -n "${MLSYSD_TEST_IMAGE:-}" ]; then
    [ -n "$lv" ] && [ -n "$lr" ] && [ -n "$ls" ] \
      && pass "OCI labels version=$lv revision=$lr source=$ls" || fail "OCI labels missing: version='$lv' revision='$lr' source='$ls'"
  else
    [ "$lv" = "$VERSION" ] && [ "$lr" = "$REVISION" ] && [ "$ls" = "$SOURCE" ] \
      && pass "OCI labels version=$lv revision=${lr:0:12} source=$ls" \
      || fail "OCI labels: version='$lv' revision='$lr' source='$ls', expected '$VERSION' '$REVISION' '$SOURCE'"
  fi
  if out=$(docker run --rm "$IMAGE" --version 2>&1); then
    pass "mlsysd --version in the image: $(printf '%s' "$out" | head -n 1)"
  else
    fail "mlsysd --version in the image failed: $out"
  fi

  # --- the long-running container: read-only root, random loopback port, fast healthcheck ---
  if ! docker run -d --name "$CNAME" --read-only --cap-drop ALL --security-opt no-new-privileges \
         --health-interval=1s --health-timeout=2s --health-retries=3 --health-start-period=1s \
         -p 127.0.0.1::8080 "$IMAGE" >/dev/null 2>"$TMP/run.err"; then
    fail "docker run: $(cat "$TMP/run.err")"
  else
    t0=$(now)
    PORT=$(docker port "$CNAME" 8080/tcp | sed -n 's/^127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' | head -n 1)
    BASE="http://127.0.0.1:$PORT"
    info "container $CNAME published on $BASE"

    ok=0
    for _ in $(seq 1 50); do
      if [ "$(status_of "$BASE/healthz")" = 200 ]; then ok=1; break; fi
      sleep 0.1
      if python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 5 else 1)' "$t0" "$(now)"; then break; fi
    done
    if [ "$ok" = 1 ]; then
      pass "GET /healthz 200 within $(elapsed "$t0") s of docker run"
    else
      fail "GET /healthz did not answer 200 within 5 s; container logs:"
      docker logs --tail 30 "$CNAME" 2>&1 | sed 's/^/    | /'
    fi

    # Golden value (ResNet50 on A100, batch 256, fp16).
    body='{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":256,"precision":"fp16"}}'
    http POST "$BASE/solve" "$body" >"$TMP/solve.out" || true
    if verdict=$(python3 - "$TMP/solve.out" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n", 1)
status, body = lines[0], (lines[1] if len(lines) > 1 else "")
if status != "200":
    print("status %s: %s" % (status, body[:300])); sys.exit(1)
try:
    res = json.loads(body)["result"]
    lat, bn = float(res["latency"]), res["bottleneck"]
except Exception as e:
    print("unexpected body (%s): %s" % (e, body[:300])); sys.exit(1)
want = 13.971410256410255
rel = abs(lat - want) / want
msg = "latency=%r (rel err %.1e) bottleneck=%r" % (lat, rel, bn)
print(msg)
sys.exit(0 if rel <= 1e-9 and bn == "Compute" else 1)
PY
    ); then
      pass "POST /solve golden ResNet50/A100/256/fp16: $verdict"
    else
      fail "POST /solve golden ResNet50/A100/256/fp16: $verdict (want latency 13.971410256410255, bottleneck Compute)"
    fi

    s_live=$(status_of "$BASE/livez"); s_ready=$(status_of "$BASE/readyz")
    [ "$s_live" = 200 ] && [ "$s_ready" = 200 ] \
      && pass "GET /livez 200 and /readyz 200 (Kubernetes probes)" \
      || fail "GET /livez -> $s_live, /readyz -> $s_ready (want 200, 200)"

    # uid of the daemon (PID 1 in the container), read from the container's own /proc.
    if uids=$(docker exec "$CNAME" cat /proc/1/status 2>/dev/null | awk '/^Uid:/ {print $2, $3, $4, $5}') && [ -n "$uids" ]; then :; else
      pid=$(docker inspect -f '{{.State.Pid}}' "$CNAME")
      uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status" 2>/dev/null || true)
    fi
    case " $uids " in
      "  ") fail "could not read the daemon's uid" ;;
      *" 0 "*) fail "daemon runs with uid 0 somewhere in (real effective saved fs) = ($uids)" ;;
      *) pass "daemon process uid is not 0: (real effective saved fs) = ($uids)" ;;
    esac

    ro=$(docker inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$CNAME")
    if werr=$(docker exec "$CNAME" sh -c 'echo x > /tmp/.mlsysd-write-probe' 2>&1); then
      fail "container root filesystem is writable (ReadonlyRootfs=$ro): wrote /tmp/.mlsysd-write-probe"
    elif [ "$ro" = true ] && [[ "$werr" == *"Read-only"* ]]; then
      pass "container runs with --read-only (write to /tmp refused: read-only file system)"
    else
      fail "read-only check: ReadonlyRootfs=$ro, write error: $werr"
    fi

    health=""
    for _ in $(seq 1 40); do
      health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$CNAME")
      [ "$health" = healthy ] && break
      sleep 0.5
    done
    if [ "$health" = healthy ]; then
      pass "HEALTHCHECK status healthy after $(elapsed "$t0") s (--health-interval=1s)"
    else
      fail "HEALTHCHECK status '$health' after 20 s; last probe results:"
      docker inspect -f '{{range .State.Health.Log}}{{.ExitCode}} {{.Output}}{{"\n"}}{{end}}' "$CNAME" 2>&1 | tail -n 5 | sed 's/^/    | /'
    fi

    # docker stop: SIGTERM, default 10 s grace, with the image's own drain settings.
    t1=$(now)
    docker stop "$CNAME" >/dev/null 2>&1 || true
    took=$(elapsed "$t1")
    state=$(docker inspect -f '{{.State.Running}} {{.State.ExitCode}} {{.State.OOMKilled}}' "$CNAME" 2>&1 || true)
    if [ "$state" = "false 0 false" ] && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 10 else 1)' "$took"; then
      pass "docker stop: exit code 0 after $took s (< 10 s grace)"
    else
      fail "docker stop: took $took s, state (running exitcode oomkilled) = $state; logs:"
      docker logs --tail 30 "$CNAME" 2>&1 | sed 's/^/    | /'
    fi
  fi

  # --- drain: after SIGTERM /readyz turns 503 during the drain delay, then exit 0 ---
  if docker run -d --name "$CNAME_DRAIN" --read-only -e MLSYSD_DRAIN_DELAY=3 -e MLSYSD_DRAIN_TIMEOUT=3 \
       -p 127.0.0.1::8080 "$IMAGE" >/dev/null 2>"$TMP/run2.err"; then
    PORT2=$(docker port "$CNAME_DRAIN" 8080/tcp | sed -n 's/^127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' | head -n 1)
    for _ in $(seq 1 50); do [ "$(status_of "http://127.0.0.1:$PORT2/readyz")" = 200 ] && break; sleep 0.1; done
    before=$(status_of "http://127.0.0.1:$PORT2/readyz")
    docker kill -s TERM "$CNAME_DRAIN" >/dev/null 2>&1 || true
    during=""
    for _ in $(seq 1 20); do
      during=$(status_of "http://127.0.0.1:$PORT2/readyz")
      [ "$during" = 503 ] && break
      sleep 0.1
    done
    code=$(timeout 15 docker wait "$CNAME_DRAIN" 2>/dev/null || echo timeout)
    if [ "$before" = 200 ] && [ "$during" = 503 ] && [ "$code" = 0 ]; then
      pass "SIGTERM drain: /readyz 200 -> 503 while draining, then exit code 0"
    else
      fail "SIGTERM drain: /readyz before=$before during=$during, exit code=$code (want 200, 503, 0)"
      docker logs --tail 20 "$CNAME_DRAIN" 2>&1 | sed 's/^/    | /'
    fi
  else
    fail "docker run (drain container): $(cat "$TMP/run2.err")"
  fi

  # --- a CPU limit sizes the thread defaults (not the host's CPU count) ---
  if docker run -d --name "$CNAME_CPUS" --read-only --cpus 1 "$IMAGE" >/dev/null 2>"$TMP/run3.err"; then
    line=""
    for _ in $(seq 1 50); do
      line=$(docker logs "$CNAME_CPUS" 2>&1 | grep '"msg":"listening"' | head -n 1 || true)
      [ -n "$line" ] && break
      sleep 0.1
    done
    if grep -q '"threads":1,' <<<"$line" && grep -q '"sweep_threads":1,' <<<"$line"; then
      pass "--cpus 1: one worker thread and one sweep thread (the cgroup's CPU limit, not the host's $(nproc) CPUs)"
    else
      fail "--cpus 1: the listening line says: ${line:-nothing}"
    fi
    docker rm -f "$CNAME_CPUS" >/dev/null 2>&1 || true
  elif grep -qi 'cgroup\|cpu' "$TMP/run3.err"; then
    skip "--cpus 1: this Docker cannot set a CPU limit ($(head -c 200 "$TMP/run3.err"))"
  else
    fail "docker run --cpus 1: $(cat "$TMP/run3.err")"
  fi
elif [ "$DOCKER_OK" = 1 ]; then
  skip "image and container checks (no image)"
else
  skip "image and container checks (no docker)"
fi

# ---------------------------------------------------------------------------------------------
# 4. docker-compose.yml
# ---------------------------------------------------------------------------------------------
compose=()
if [ "$DOCKER_OK" = 1 ] && docker compose version >/dev/null 2>&1; then compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then compose=(docker-compose)
fi
if [ ${#compose[@]} -gt 0 ]; then
  if out=$("${compose[@]}" -f deploy/docker-compose.yml config -q 2>&1); then
    pass "deploy/docker-compose.yml is valid (${compose[*]} config)"
  else
    fail "deploy/docker-compose.yml: ${compose[*]} config: $out"
  fi
else
  skip "deploy/docker-compose.yml validation (no docker compose / docker-compose client)"
fi

# ---------------------------------------------------------------------------------------------
# 5. Kubernetes: kustomize base renders and has the required fields
# ---------------------------------------------------------------------------------------------
if ! command -v kubectl >/dev/null 2>&1; then
  skip "kustomize base deploy/k8s (kubectl not installed)"
elif ! kubectl kustomize deploy/k8s >"$TMP/k8s.yaml" 2>"$TMP/k8s.err"; then
  fail "kubectl kustomize deploy/k8s: $(cat "$TMP/k8s.err")"
else
  pass "kubectl kustomize deploy/k8s renders ($(grep -c '^kind:' "$TMP/k8s.yaml") objects)"
  # PyYAML when present; otherwise let kubectl turn the YAML into JSON offline.
  if python3 -c 'import yaml' 2>/dev/null; then
    fmt=yaml; cp "$TMP/k8s.yaml" "$TMP/k8s.in"
  elif kubectl annotate --local -f "$TMP/k8s.yaml" mlsysd.test/unused- -o json >"$TMP/k8s.in" 2>"$TMP/k8s.err"; then
    fmt=json
  else
    fmt=""
    fail "could not parse the rendered YAML (no PyYAML, kubectl JSON conversion failed: $(cat "$TMP/k8s.err"))"
  fi
  if [ -n "$fmt" ]; then
    python3 - "$fmt" "$TMP/k8s.in" >"$TMP/k8s.checks" 2>&1 <<'PY' || true
import json, re, sys

fmt, path = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
if fmt == "yaml":
    import yaml
    docs = [d for d in yaml.safe_load_all(text) if d]
else:
    docs, dec, i = [], json.JSONDecoder(), 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        obj, i = dec.raw_decode(text, i)
        docs.extend(obj.get("items", []) if obj.get("kind") == "List" else [obj])

def check(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "k8s " + what)

def g(obj, *keys, default=None):
    for k in keys:
        if isinstance(obj, dict) and k in obj:
            obj = obj[k]
        elif isinstance(obj, list) and isinstance(k, int) and -len(obj) <= k < len(obj):
            obj = obj[k]
        else:
            return default
    return obj

def qty_cpu(v):
    v = str(v)
    return float(v[:-1]) / 1000 if v.endswith("m") else float(v)

by_kind = {}
for d in docs:
    by_kind.setdefault(d.get("kind"), []).append(d)
kinds = sorted(by_kind)
want = ["Deployment", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Service"]
check(all(len(by_kind.get(k, [])) == 1 for k in want), "objects: one each of %s (found %s)" % (", ".join(want), kinds))

dep = (by_kind.get("Deployment") or [{}])[0]
svc = (by_kind.get("Service") or [{}])[0]
hpa = (by_kind.get("HorizontalPodAutoscaler") or [{}])[0]
pdb = (by_kind.get("PodDisruptionBudget") or [{}])[0]

pod = g(dep, "spec", "template", "spec", default={})
pod_labels = g(dep, "spec", "template", "metadata", "labels", default={}) or {}
cs = pod.get("containers") or [{}]
c = cs[0]
def matches(sel):
    return bool(sel) and all(pod_labels.get(k) == v for k, v in sel.items())

check(dep.get("apiVersion") == "apps/v1" and g(dep, "spec", "replicas") == 2, "Deployment apps/v1 with replicas 2 (got %r)" % g(dep, "spec", "replicas"))
check(matches(g(dep, "spec", "selector", "matchLabels")), "Deployment selector matches its pod labels")
check(bool(c.get("image")), "Deployment container image set (%s)" % c.get("image"))

ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
check(ports.get("http") == 8080, "container port 8080 named http (got %r)" % ports)
def probe_ok(name, path):
    p = c.get(name) or {}
    port = g(p, "httpGet", "port")
    port = ports.get(port, port)
    return g(p, "httpGet", "path") == path and port == 8080
check(probe_ok("livenessProbe", "/livez"), "livenessProbe GET /livez on 8080")
check(probe_ok("readinessProbe", "/readyz"), "readinessProbe GET /readyz on 8080")
if c.get("startupProbe"):
    check(g(c, "startupProbe", "httpGet", "path") in ("/livez", "/healthz", "/readyz"), "startupProbe on a health endpoint")

req, lim = g(c, "resources", "requests", default={}) or {}, g(c, "resources", "limits", default={}) or {}
check(all(k in req for k in ("cpu", "memory")) and all(k in lim for k in ("cpu", "memory"))
      and qty_cpu(req["cpu"]) <= qty_cpu(lim["cpu"]),
      "resources requests %s, limits %s" % (req, lim))

psc, csc = pod.get("securityContext") or {}, c.get("securityContext") or {}
def eff(key):  # container-level overrides pod-level
    return csc.get(key, psc.get(key))
check(eff("runAsNonRoot") is True, "securityContext runAsNonRoot true")
check(eff("runAsUser") == 10001, "securityContext runAsUser 10001 (got %r)" % eff("runAsUser"))
check(csc.get("readOnlyRootFilesystem") is True, "securityContext readOnlyRootFilesystem true")
check(csc.get("allowPrivilegeEscalation") is False, "securityContext allowPrivilegeEscalation false")
check("ALL" in (g(csc, "capabilities", "drop", default=[]) or []), "securityContext capabilities drop ALL")
check(g(eff("seccompProfile") or {}, "type") == "RuntimeDefault", "securityContext seccompProfile RuntimeDefault")

env = {e.get("name"): e.get("value") for e in c.get("env", []) if "value" in e}
links = pod.get("enableServiceLinks", True)
check(links is False or "MLSYSD_PORT" in env,
      "MLSYSD_PORT safe from service-link env injection (enableServiceLinks=%r, MLSYSD_PORT=%r)" % (links, env.get("MLSYSD_PORT")))
delay = float(env.get("MLSYSD_DRAIN_DELAY", 5))
dtimeout = float(env.get("MLSYSD_DRAIN_TIMEOUT", 20))
pre = g(c, "lifecycle", "preStop", default={}) or {}
sleep = None
if "sleep" in pre:
    sleep = float(g(pre, "sleep", "seconds", default=0))
else:
    m = re.search(r"sleep\D*(\d+(?:\.\d+)?)", " ".join(map(str, g(pre, "exec", "command", default=[]) or [])))
    sleep = float(m.group(1)) if m else None
grace = pod.get("terminationGracePeriodSeconds", 30)
check(sleep is not None and sleep > 0, "preStop sleep hook (%r s)" % sleep)
check(sleep is not None and grace > sleep + delay + dtimeout,
      "terminationGracePeriodSeconds %r > preStop %r + drain-delay %r + drain-timeout %r" % (grace, sleep, delay, dtimeout))
tsc = pod.get("topologySpreadConstraints") or []
check(bool(tsc) and all(matches(g(t, "labelSelector", "matchLabels")) and t.get("topologyKey") for t in tsc),
      "topologySpreadConstraints (%s)" % ", ".join(t.get("topologyKey", "?") for t in tsc))

sp = (g(svc, "spec", "ports") or [{}])[0]
tp = sp.get("targetPort")
check(svc.get("apiVersion") == "v1" and g(svc, "spec", "type", default="ClusterIP") == "ClusterIP"
      and sp.get("port") == 80 and ports.get(tp, tp) == 8080 and sp.get("name") == "http"
      and matches(g(svc, "spec", "selector")),
      "Service ClusterIP port 80 -> 8080 named http, selector matches pods")

m = (g(hpa, "spec", "metrics") or [{}])[0]
check(hpa.get("apiVersion") == "autoscaling/v2"
      and g(hpa, "spec", "scaleTargetRef", "kind") == "Deployment"
      and g(hpa, "spec", "scaleTargetRef", "name") == g(dep, "metadata", "name")
      and g(hpa, "spec", "minReplicas") == 2 and g(hpa, "spec", "maxReplicas") == 10
      and m.get("type") == "Resource" and g(m, "resource", "name") == "cpu"
      and g(m, "resource", "target", "type") == "Utilization"
      and g(m, "resource", "target", "averageUtilization") == 70,
      "HorizontalPodAutoscaler autoscaling/v2 on the Deployment, CPU 70 %, 2..10")
check(pdb.get("apiVersion") == "policy/v1" and g(pdb, "spec", "minAvailable") == 1
      and matches(g(pdb, "spec", "selector", "matchLabels")),
      "PodDisruptionBudget policy/v1 minAvailable 1, selector matches pods")
PY
    while IFS= read -r line; do
      case "$line" in
        PASS:\ *) pass "${line#PASS: }" ;;
        FAIL:\ *) fail "${line#FAIL: }" ;;
        *) fail "k8s checker: $line" ;;
      esac
    done <"$TMP/k8s.checks"
  fi
fi

# ---------------------------------------------------------------------------------------------
if [ -n "$BUILT_IMAGE" ] && [ "${MLSYSD_TEST_KEEP:-0}" = 1 ]; then info "kept image $BUILT_IMAGE"; fi
SUMMARY_DONE=1
echo "container: $PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
