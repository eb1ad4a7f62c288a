#!/usr/bin/env bash
# sweep_job.sh - the sharded-sweep Job of deploy/k8s/sweep, without a cluster.
#
#   tests/deploy/sweep_job.sh path/to/mlsysd
#
# 1. Checks the manifests' structure: the fields a Kubernetes API server and the
#    Job controller act on (no schema validator installs from the registries these
#    machines reach, so this is the check), and that `kubectl kustomize` renders
#    them when kubectl is installed.
# 2. Runs the shard Job's pod command as the kubelet would, once per index in
#    scrambled order: the container's args with $(VAR) expanded from the settings
#    ConfigMap and JOB_COMPLETION_INDEX, the volume mounts mapped to directories;
#    then the merge Job's command. The merged file must equal the unsharded
#    `mlsysd sweep` output byte for byte; a missing part must fail the merge.
# Prints PASS/FAIL lines; exits 0, 1 on a failure, 77 when python3 with PyYAML or
# deploy/ is missing (ctest reports that as skipped).
set -uo pipefail
BIN=${1:?usage: sweep_job.sh path/to/mlsysd}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ ! -d "$ROOT/deploy/k8s/sweep" ]; then
  echo "no deploy/k8s/sweep here (the container build context leaves deploy/ out)"; exit 77
fi
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "python3 with PyYAML is needed (Debian: python3-yaml)"; exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

rendered=""
if command -v kubectl >/dev/null 2>&1; then
  if kubectl kustomize "$ROOT/deploy/k8s/sweep" >"$TMP/rendered.yaml" 2>"$TMP/kustomize.err"; then
    rendered=$TMP/rendered.yaml
  else
    echo "FAIL: kubectl kustomize deploy/k8s/sweep: $(cat "$TMP/kustomize.err")"; exit 1
  fi
fi

exec python3 - "$BIN" "$ROOT/deploy/k8s/sweep" "$TMP" "$rendered" <<'PY'
import os, random, re, shutil, subprocess, sys
import yaml

binary, base, tmp, rendered = sys.argv[1:5]
failed = 0

def check(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what)
    failed += not ok
    return ok

def load(name):
    with open(os.path.join(base, name), encoding="utf-8") as f:
        return yaml.safe_load(f)

def g(obj, *keys, default=None):
    for k in keys:
        if isinstance(obj, dict) and k in obj:
            obj = obj[k]
        elif isinstance(obj, list) and isinstance(k, int) and -len(obj) <= k < len(obj):
            obj = obj[k]
        else:
            return default
    return obj

kust = load("kustomization.yaml")
job, merge, pvc = load("job.yaml"), load("merge-job.yaml"), load("pvc.yaml")
gens = {c["name"]: c for c in kust.get("configMapGenerator", [])}
check(sorted(kust.get("resources", [])) == ["job.yaml", "merge-job.yaml", "pvc.yaml"],
      "kustomization lists job.yaml, merge-job.yaml, pvc.yaml (%s)" % kust.get("resources"))
check(any(i.get("name") == "mlsysd" for i in kust.get("images", [])), "kustomization sets the mlsysd image")
for c in gens.values():
    for f in c.get("files", []):
        check(os.path.isfile(os.path.join(base, f)), "generator file %s exists" % f)

# The settings ConfigMap, as the pods' environment.
settings_name = "mlsysd-sweep-settings"
settings = dict(l.split("=", 1) for l in g(gens, settings_name, "literals", default=[]))
check(all(k in settings for k in ("SWEEP_STUDY", "SWEEP_SHARDS", "SWEEP_FORMAT", "SWEEP_DATA")),
      "settings ConfigMap has SWEEP_STUDY, SWEEP_SHARDS, SWEEP_FORMAT, SWEEP_DATA (%s)" % settings)
shards = int(settings.get("SWEEP_SHARDS", "0"))

# --- the shard Job ---------------------------------------------------------------------
spec = job.get("spec", {})
pod = g(spec, "template", "spec", default={})
c = (pod.get("containers") or [{}])[0]
check(job.get("apiVersion") == "batch/v1" and job.get("kind") == "Job", "shard Job is batch/v1 Job")
check(spec.get("completionMode") == "Indexed", "completionMode Indexed")
check(spec.get("completions") == shards and shards > 0,
      "completions %r = SWEEP_SHARDS %r" % (spec.get("completions"), shards))
check(isinstance(spec.get("parallelism"), int) and 1 <= spec["parallelism"] <= shards, "1 <= parallelism <= completions")
check(pod.get("restartPolicy") == "Never", "restartPolicy Never (podFailurePolicy and backoffLimitPerIndex need it)")
rules = g(spec, "podFailurePolicy", "rules", default=[]) or []
check(any(r.get("action") == "FailJob" and g(r, "onExitCodes", "operator") == "In"
          and 2 in (g(r, "onExitCodes", "values") or []) and g(r, "onExitCodes", "containerName") == c.get("name")
          for r in rules), "podFailurePolicy fails the Job on exit code 2 (bad input) of the shard container")
check(isinstance(spec.get("activeDeadlineSeconds"), int), "activeDeadlineSeconds bounds the study")
args = c.get("args") or []
def after(flag):
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else ""
check(args[:1] == ["sweep"], "the container runs `mlsysd sweep` (args %s)" % args)
check(after("--shard") == "$(JOB_COMPLETION_INDEX)/$(SWEEP_SHARDS)", "--shard $(JOB_COMPLETION_INDEX)/$(SWEEP_SHARDS)")
check("$(JOB_COMPLETION_INDEX)" in after("--out"), "--out names the part by $(JOB_COMPLETION_INDEX)")
check(any(g(e, "configMapRef", "name") == settings_name for e in c.get("envFrom", [])), "shard pods read the settings (envFrom)")
vols = {v["name"]: v for v in pod.get("volumes", [])}
mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
claim = g(pvc, "metadata", "name")
data_mount = [p for p, n in mounts.items() if g(vols, n, "persistentVolumeClaim", "claimName") == claim]
check(len(data_mount) == 1, "shard pods mount the claim %s" % claim)
check(bool(data_mount) and settings.get("SWEEP_DATA") == data_mount[0],
      "SWEEP_DATA %r is the claim's mount path %r" % (settings.get("SWEEP_DATA"), data_mount))
req_mount = [p for p, n in mounts.items() if g(vols, n, "configMap", "name") == "mlsysd-sweep-request"]
check(len(req_mount) == 1 and after("--in") == req_mount[0] + "/request.json",
      "--in reads request.json from the request ConfigMap's mount")
psc, csc = pod.get("securityContext") or {}, c.get("securityContext") or {}
eff = lambda k: csc.get(k, psc.get(k))
check(eff("runAsNonRoot") is True and eff("runAsUser") == 10001 and psc.get("fsGroup") == 10001,
      "runs as uid 10001, non-root, fsGroup 10001 (the claim is writable)")
check(csc.get("readOnlyRootFilesystem") is True and csc.get("allowPrivilegeEscalation") is False
      and "ALL" in (g(csc, "capabilities", "drop", default=[]) or []), "read-only root, no escalation, no capabilities")
req, lim = g(c, "resources", "requests", default={}) or {}, g(c, "resources", "limits", default={}) or {}
check(all(k in req and k in lim for k in ("cpu", "memory")), "shard resources requests and limits set")

# --- the claim and the merge Job -------------------------------------------------------
check(pvc.get("apiVersion") == "v1" and pvc.get("kind") == "PersistentVolumeClaim"
      and "ReadWriteMany" in g(pvc, "spec", "accessModes", default=[]) and g(pvc, "spec", "resources", "requests", "storage"),
      "PersistentVolumeClaim ReadWriteMany with a size")
mpod = g(merge, "spec", "template", "spec", default={})
mc = (mpod.get("containers") or [{}])[0]
mvols = {v["name"]: v for v in mpod.get("volumes", [])}
mmounts = {m["mountPath"]: m["name"] for m in mc.get("volumeMounts", [])}
check(merge.get("apiVersion") == "batch/v1" and g(merge, "spec", "completions", default=1) == 1
      and mpod.get("restartPolicy") in ("Never", "OnFailure"), "merge Job: batch/v1, one completion")
check([p for p, n in mmounts.items() if g(mvols, n, "persistentVolumeClaim", "claimName") == claim] == data_mount,
      "merge Job mounts the same claim at the same path")
script_mount = [p for p, n in mmounts.items() if g(mvols, n, "configMap", "name") == "mlsysd-sweep-merge"]
check(len(script_mount) == 1 and (mc.get("command") or [])[-1:] == [script_mount[0] + "/merge.sh"],
      "merge Job runs merge.sh from its ConfigMap")
check(any(g(e, "configMapRef", "name") == settings_name for e in mc.get("envFrom", [])), "merge pod reads the settings (envFrom)")

if rendered:
    docs = [d for d in yaml.safe_load_all(open(rendered, encoding="utf-8")) if d]
    kinds = sorted(d["kind"] for d in docs)
    check(kinds == ["ConfigMap"] * 3 + ["Job", "Job", "PersistentVolumeClaim"], "kubectl kustomize renders %s" % kinds)
    cms = {d["metadata"]["name"] for d in docs if d["kind"] == "ConfigMap"}
    refs = set()
    for d in docs:
        if d["kind"] == "Job":
            ps = g(d, "spec", "template", "spec", default={})
            refs |= {g(v, "configMap", "name") for v in ps.get("volumes", []) if "configMap" in v}
            for ct in ps.get("containers", []):
                refs |= {g(e, "configMapRef", "name") for e in ct.get("envFrom", [])}
    check(bool(refs) and refs <= cms, "rendered Jobs name the rendered (hashed) ConfigMaps %s" % sorted(refs))
else:
    print("SKIP: kubectl kustomize deploy/k8s/sweep (kubectl not installed)")

# --- the pod commands, run here ----------------------------------------------------------
def expand(s, env):
    # the kubelet's $(VAR) expansion: defined names are replaced, $$ is a literal $
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), s)

def volume_dirs(vols, mounts, name):
    out = {}
    for path, vname in mounts.items():
        v = vols[vname]
        d = os.path.join(tmp, name, vname)
        if "persistentVolumeClaim" in v:
            d = os.path.join(tmp, "claim")        # one claim, shared by every pod
        os.makedirs(d, exist_ok=True)
        cm = g(v, "configMap", "name")
        for f in g(gens, cm, "files", default=[]) or []:
            shutil.copy(os.path.join(base, f), d)
        out[path] = d
    return out

def mapped(s, dirs):
    for path in sorted(dirs, key=len, reverse=True):
        if s == path or s.startswith(path + "/"):
            return dirs[path] + s[len(path):]
    return s

def pod_env(container, extra):
    env = dict(settings)
    env.update(extra)
    for e in container.get("env", []):
        if "value" in e:
            env[e["name"]] = expand(e["value"], env)
    return env

order = list(range(shards))
random.Random(7).shuffle(order)
for i in order:
    env = pod_env(c, {"JOB_COMPLETION_INDEX": str(i)})
    dirs = volume_dirs(vols, mounts, "shard-%d" % i)
    argv = [binary] + [mapped(expand(a, env), dirs) for a in args]
    r = subprocess.run(argv, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, capture_output=True, text=True)
    if not check(r.returncode == 0, "shard pod %d exits 0" % i):
        print("  " + " ".join(argv) + "\n  " + r.stderr.strip())

menv = pod_env(mc, {})
mdirs = volume_dirs(mvols, mmounts, "merge")
run_env = {k: mapped(v, mdirs) for k, v in menv.items()}
run_env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
run_env["SWEEP_WAIT"] = "0"
margv = [mapped(expand(a, menv), mdirs) for a in (mc.get("command") or []) + (mc.get("args") or [])]
margv[0] = shutil.which("sh") if margv[0] == "/bin/sh" else margv[0]
r = subprocess.run(margv, env=run_env, capture_output=True, text=True)
check(r.returncode == 0, "merge pod exits 0 (%s)" % (r.stdout.strip() or r.stderr.strip()))
fmt = settings["SWEEP_FORMAT"]
merged_path = os.path.join(tmp, "claim", settings["SWEEP_STUDY"], "sweep." + fmt)
merged = open(merged_path, "rb").read() if os.path.exists(merged_path) else b""

req = os.path.join(base, "request.json")
whole = subprocess.run([binary, "sweep", "--format", fmt, "--in", req], capture_output=True)
check(whole.returncode == 0 and len(whole.stdout) > 0, "unsharded mlsysd sweep exits 0")
rows = whole.stdout.count(b"\n") - (fmt == "csv")
check(merged == whole.stdout, "merged %d shards (%d bytes) = the unsharded sweep (%d rows, %d bytes), byte for byte"
      % (shards, len(merged), rows, len(whole.stdout)))

# A missing part fails the merge, naming it.
os.remove(os.path.join(tmp, "claim", settings["SWEEP_STUDY"], "part-%d.%s" % (shards // 2, fmt)))
r = subprocess.run(margv, env=run_env, capture_output=True, text=True)
check(r.returncode == 1 and ("part-%d." % (shards // 2)) in r.stderr, "a missing part fails the merge (%s)" % r.stderr.strip())

print("sweep job: %s" % ("FAILED" if failed else "passed"))
sys.exit(1 if failed else 0)
PY
