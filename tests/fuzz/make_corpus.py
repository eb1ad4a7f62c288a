#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer targets into tests/fuzz/corpus/<target>/.

Seeds come from the golden reference cases (tests/golden/*.jsonl, a
deterministic sample), the examples of the API contract, every solver's worked
example (GET /solvers/{name} of a daemon this script starts: --binary, default
build/mlsysd; skipped with a note when it is not built) in both calibration
modes, Hugging Face configs (tests/data/hf_configs), plans (examples/plans) and
serving_simulation inputs, with and without a request trace (the bodies the
soak sends too: tests/lib/request_mix.py). It also writes the dictionaries tests/fuzz/dict/<target>.dict
(JSON members, input names, enum values, catalog ids, units) that run.sh hands
to libFuzzer. Run it again after the API grows; the corpus is committed (small
files, a few hundred per target).
Usage: python3 tests/fuzz/make_corpus.py [--golden DIR] [--binary build/mlsysd]
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GOLDEN = os.path.normpath(os.path.join(HERE, "..", "golden"))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from request_mix import BAD_BODIES, EXTRA_SOLVES, OPTIMIZES, example_sweep, query_of, solver_descriptors  # noqa: E402

UNIT_SEEDS = [
    "500 KB", "2 GB/s", "7.24 ms", "312 TFLOP/s", "80GiB", "400 Gbps", "1 TB / h", "flop/B", "W*h", "s^2",
    "4.1 GFLOP", "25000 USD", "7e9 param", "1 kWh", "100 TOPS", "350 us", "0.5 GB / s", "150528 byte",
    "1e400 B", "nan GB", "Infinity", "", "   ", "-5 ms", "5 GB //s", "12 parsecs", "1 GB/s/s", "2 MiB",
    "1.5e-3 s", "3 TFLOPs/s", "10 J/s", "1 kg", "64 bit", "1 h", "2 day", "1 min",
]

SWEEPS = [
    {"solver": "pipeline",
     "inputs": {"model": "ResNet50", "hardware": "A100", "sample_size_bytes": "500 KB", "cpu_throughput": "2 GB/s"},
     "axes": [{"input": "batch_size", "values": [32, 64, 128, 256, 512, 1024]},
              {"input": "hardware", "values": ["A100", "H100"]},
              {"input": "cpu_workers", "range": {"start": 8, "stop": 64, "step": 8}}],
     "outputs": ["step_time", "binding_stage", "accelerator_utilization"], "format": "json"},
    {"solver": "single_node", "inputs": {"model": "ResNet50", "hardware": "A100"},
     "axes": [{"input": "batch_size", "geomspace": {"start": 1, "stop": 4096, "count": 13}},
              {"input": "precision", "values": ["fp32", "fp16", "int8"]}], "format": "csv"},
    {"solver": "data", "inputs": {"hardware": "A100"},
     "axes": [{"input": "workload_data_rate", "values": ["1 GB/s", "100 GB/s", 5000]}], "format": "ndjson"},
    {"solver": "transformation",
     "inputs": {"batch_size": 256, "sample_size_bytes": "500 KB", "cpu_throughput": "2 GB/s"},
     "axes": [{"input": "accelerator_step_time", "range": {"start": "1 ms", "stop": "20 ms", "step": "1 ms"}}]},
    {"solver": "single_node", "inputs": {"model": {"base": "ResNet50", "inference_flops": "4.1 GFLOP"}},
     "axes": [{"input": "hardware", "values": ["A100", "H100", {"base": "A100", "tdp": "300 W"}]},
              {"input": "is_training", "values": [True, False]}], "catalog": "tutorial"},
]

QUERIES = [
    "0model=ResNet50&hardware=A100&batch_size=256&precision=fp16",
    "0model=ResNet50&model.inference_flops=4.1%20GFLOP&hardware=A100&catalog=tutorial",
    "0model=ResNet50&hardware=A100&efficiency=2",
    "0model=ResNet50&hardware=A100&batch_size=1e400",
    "0model=Llama3_8B&hardware=H100&is_training=true&seq_len=4096&zero_stage=3&dp_size=8",
    "1hardware=A100&workload_data_rate=100+GB%2Fs",
    "1hardware=A100&workload_data_rate=5%20ms",
    "2batch_size=256&sample_size_bytes=500%20KB&cpu_throughput=2%20GB/s&accelerator_step_time=7.24%20ms",
    "3model=ResNet50&hardware=A100&sample_size_bytes=500KB&cpu_workers=8&cpu_throughput=2GB/s",
    "4model=ResNet50&hardware=A100&unknown=1",
    "4model=ResNet50&hardware=A100&hardware.tdp=300%20W&hardware.memory.capacity=80%20GiB",
    "5model=ResNet50&hardware=A100,H100&batch_size=1,2,4,8&format=csv",
    "5model=ResNet50&hardware=A100&precision=fp32,fp16,int8&outputs=latency,bottleneck",
    "6hardware=A100,H100,T4&workload_data_rate=1,10,100&format=ndjson",
    "7batch_size=32,64,128&sample_size_bytes=500%20KB&cpu_throughput=1%20GB/s,2%20GB/s&accelerator_step_time=7%20ms",
    "8model=ResNet50&hardware=A100&sample_size_bytes=500%20KB&cpu_workers=1,2,4,8,16&cpu_throughput=2%20GB/s",
    "9model=ResNet50&hardware=A100&batch_size=,,,&format=xml",
]


def hf_seeds():
    """serving and training_memory bodies whose model is an hf_config, and broken configs."""
    out = []
    d = os.path.join(ROOT, "tests", "data", "hf_configs")
    for i, name in enumerate(sorted(os.listdir(d)) if os.path.isdir(d) else []):
        with open(os.path.join(d, name)) as f:
            cfg = json.load(f).get("config", {})
        out.append({"solver": "serving", "calibration": "measured" if i % 2 else "mlsysim",
                    "inputs": {"model": {"hf_config": cfg, "name": name[:-5]}, "hardware": "H100", "seq_len": 4096,
                               "batch_size": 4, "weight_precision": "int4_g128" if i % 3 == 0 else "fp16"}})
        if i % 4 == 0:
            broken = dict(cfg)
            broken.pop("hidden_size", None)
            broken["num_attention_heads"] = 0
            out.append({"solver": "serving", "inputs": {"model": {"hf_config": broken}, "hardware": "H100"}})
    return out


def plan_seeds():
    """examples/plans/*.yaml as YAML ('<') and, where PyYAML is present, as JSON ('=')."""
    out = []
    d = os.path.join(ROOT, "examples", "plans")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, name), "rb") as f:
            text = f.read()
        out.append(b"<" + text)
        out.append(b"<" + text[: len(text) // 2])
        try:
            import yaml  # optional
            out.append(b"=" + json.dumps(yaml.safe_load(text), separators=(",", ":")).encode())
        except Exception:
            pass
    out.append(b'<version: "1"\nscenarios: [{name: x, solver: data, inputs: {hardware: A100}, assert: [{output: utilization, "<=": 2}]}]\n')
    out.append(b"<version: '1'\nscenarios: *nope\n")
    out.append(b'={"version":"1","scenarios":[{"name":"a","solver":"serving","inputs":{"model":"Llama3_8B","hardware":"H100"},'
               b'"axes":[{"input":"batch_size","values":[1,2]}],"assert":[{"output":"itl","<=":"50 ms"}]}]}')
    return out


def daemon_solvers(binary):
    """(names in GET /solvers order, {name: descriptor}) from a daemon started on a free port; ([], {}) if not built."""
    if not binary or not os.access(binary, os.X_OK):
        print("corpus: %s is not built: the solvers' examples are left out" % binary)
        return [], {}
    log = tempfile.NamedTemporaryFile(prefix="mlsysd-corpus-", suffix=".log", delete=False)
    proc = subprocess.Popen([binary, "--port", "0", "--host", "127.0.0.1", "--drain-delay", "0"], stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        port = None
        for _ in range(200):
            m = re.search(rb'"msg":"listening".*?"port":(\d+)', open(log.name, "rb").read())
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.05)
        if not port:
            print("corpus: the daemon did not start")
            return [], {}
        return solver_descriptors("http://127.0.0.1:%d" % port)
    finally:
        proc.terminate()
        proc.wait()
        os.unlink(log.name)


def dict_line(token):
    esc = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "\\x%02x" % ord(c) for c in token)
    return '"%s"' % esc


def write_dict(path, tokens):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    seen = []
    for t in tokens:
        if t and t not in seen and len(t) <= 64:
            seen.append(t)
    with open(path, "w") as f:
        f.write("# libFuzzer dictionary written by tests/fuzz/make_corpus.py; do not edit by hand\n")
        for t in seen:
            f.write(dict_line(t) + "\n")
    return len(seen)


JSON_MEMBERS = ["solver", "inputs", "catalog", "calibration", "measured", "mlsysim", "axes", "input", "values", "range",
                "start", "stop", "step", "geomspace", "count", "outputs", "format", "csv", "ndjson", "json", "shard",
                "index", "items", "constraints", "objective", "minimize", "maximize", "method", "exhaustive",
                "bisection", "top_k", "objectives", "output", "<=", ">=", "<", ">", "==", "!=", "base", "key", "hf_config",
                "model_type", "name", "version", "scenarios", "defaults", "assert", "tp", "fleet", "node", "fabric",
                "weight_precision", "kv_precision", "int4_g128", "tutorial", "current", "null", "true", "false",
                "1e400", "-1", "0", "NaN", "[]", "{}"]


def write(dirname, items):
    if os.path.isdir(dirname):
        shutil.rmtree(dirname)
    os.makedirs(dirname)
    for data in items:
        if isinstance(data, str):
            data = data.encode()
        name = hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(dirname, name), "wb") as f:
            f.write(data)
    return len(items)


def golden_cases(golden):
    cases = []
    for fname in ("current_cases.jsonl", "reference_cases.jsonl"):
        path = os.path.join(golden, fname)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            lines = [json.loads(l) for l in f if l.strip()]
        # every solver, errors included, a deterministic sample of the rest
        seen = set()
        for i, c in enumerate(lines):
            key = (c["solver"], "error" in c)
            if key not in seen or i % 97 == 0:
                seen.add(key)
                cases.append(c)
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", default=DEFAULT_GOLDEN)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "mlsysd"))
    args = ap.parse_args()
    corpus = os.path.join(HERE, "corpus")
    cases = golden_cases(args.golden)

    units = list(UNIT_SEEDS)
    for c in cases:
        for v in c["inputs"].values():
            if isinstance(v, str) and any(ch.isdigit() for ch in v) and v not in units:
                units.append(v)
    n_units = write(os.path.join(corpus, "fuzz_units"), units)

    req = []
    for c in cases:
        body = {"solver": c["solver"], "inputs": c["inputs"], "catalog": c.get("catalog", "current")}
        req.append(b"0" + json.dumps(body, separators=(",", ":")).encode())
    req.append(b'0{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":256,'
               b'"precision":"fp16"}}')
    for i, s in enumerate(SWEEPS):
        req.append(str(1 + i % 3).encode() + json.dumps(s, separators=(",", ":")).encode())
    for route, b, _ in BAD_BODIES:
        req.append((b"0" if route == "solve" else b"1") + b)
    for s in OPTIMIZES:
        req.append(b":" + json.dumps(s, separators=(",", ":")).encode())
    names, descs = daemon_solvers(args.binary)
    solve_bodies = list(EXTRA_SOLVES) + hf_seeds()
    for i, n in enumerate(names):
        ex = descs[n].get("example") or {}
        solve_bodies.append({"solver": n, "inputs": ex, "calibration": "measured" if i % 2 else "mlsysim"})
        # the example swept over its first numeric input, in a format by turn, measured every other time
        sw = example_sweep(n, ex, "measured" if i % 2 else "mlsysim", ["json", "csv", "ndjson"][i % 3],
                           "1/2" if i % 4 == 0 else None)
        if sw:
            req.append(b"1" + json.dumps(sw, separators=(",", ":")).encode())
    for b in solve_bodies:
        req.append(b"0" + json.dumps(b, separators=(",", ":")).encode())
    # /batch: examples of several solvers in both modes, and a refused item among them
    for i in range(0, len(solve_bodies), 6):
        items = solve_bodies[i:i + 6] + [{"solver": "single_node", "inputs": {"model": "ResNet50", "batchsize": 8}}]
        req.append(b";" + json.dumps({"items": items}, separators=(",", ":")).encode())
    req.extend(plan_seeds())
    n_req = write(os.path.join(corpus, "fuzz_request"), req)

    queries = list(QUERIES)
    for c in cases[:12]:
        sel = {"single_node": "0", "data": "1", "transformation": "2", "pipeline": "3"}[c["solver"]]
        parts = []
        for k, v in c["inputs"].items():
            if isinstance(v, (dict, list)):
                continue
            if isinstance(v, bool):
                v = "true" if v else "false"
            parts.append("%s=%s" % (k, str(v).replace(" ", "%20")))
        parts.append("catalog=" + c.get("catalog", "current"))
        queries.append(sel + "&".join(parts))
    # every solver by its index ('@' + i: GET /solve, '`' + i: GET /sweep), both modes
    for i, n in enumerate(names[:32]):
        q = query_of(descs[n].get("example") or {})
        queries.append(chr(0x40 + i) + q + "&calibration=" + ("measured" if i % 2 else "mlsysim"))
        ex = descs[n].get("example") or {}
        num = [k for k, v in ex.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if num:
            queries.append(chr(0x60 + i) + q.replace("%s=%s" % (num[0], ex[num[0]]), "%s=%s,%s" % (num[0], ex[num[0]], ex[num[0]] * 2))
                           + "&format=" + ["csv", "ndjson", "json"][i % 3] + ("&shard=0/2" if i % 3 == 0 else ""))
    n_q = write(os.path.join(corpus, "fuzz_query"), queries)
    print("corpus: fuzz_units %d, fuzz_request %d, fuzz_query %d files" % (n_units, n_req, n_q))

    # dictionaries: the members of the bodies, the solvers' inputs, their enum values and catalog ids, units
    toks = list(JSON_MEMBERS) + list(names)
    for n in names:
        for inp in descs[n].get("inputs", []):
            toks.append(inp["name"])
            toks.extend(f["name"] for f in inp.get("fields", []))
            toks.extend(str(v) for v in inp.get("values", []) if isinstance(v, (str, int)))
            if inp.get("unit"):
                toks.append(inp["unit"])
        for o in descs[n].get("outputs", []):
            toks.append(o["name"])
    for c in cases:
        toks.extend(str(v) for v in c["inputs"].values() if isinstance(v, str))
    hf_keys = []
    for b in hf_seeds():
        cfg = b["inputs"]["model"]["hf_config"]
        hf_keys.extend(k for k in cfg if isinstance(k, str))
        if isinstance(cfg.get("model_type"), str):
            hf_keys.append(cfg["model_type"])
    dict_dir = os.path.join(HERE, "dict")
    quoted = ['"%s"' % t for t in toks + hf_keys]
    n_rd = write_dict(os.path.join(dict_dir, "fuzz_request.dict"), quoted + ["application/yaml", "scenarios:", "assert:",
                                                                             "axes:", "- {output: ", "defaults:"])
    n_qd = write_dict(os.path.join(dict_dir, "fuzz_query.dict"), [t + "=" for t in toks] + ["&", ",", "%20", "%2F",
                                                                                              "calibration=measured",
                                                                                              "shard=1/2", "format=csv"])
    n_ud = write_dict(os.path.join(dict_dir, "fuzz_units.dict"),
                      [u for u in UNIT_SEEDS if u.strip()] + ["GB", "GiB", "TB", "KB", "MB", "B", "bit", "ms", "us", "ns",
                                                             "s", "h", "min", "day", "flop", "TFLOP", "GFLOP", "/s", "W",
                                                             "kWh", "J", "USD", "Gbps", "param", "e", "e-", "/", "*", "^"])
    print("dictionaries: fuzz_request %d, fuzz_query %d, fuzz_units %d tokens" % (n_rd, n_qd, n_ud))


if __name__ == "__main__":
    main()
