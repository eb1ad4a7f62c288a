#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer targets into tests/fuzz/corpus/<target>/.

Seeds come from the golden reference cases (tests/golden/*.jsonl, a
deterministic sample) and from the examples of the API contract. Run it again
after the API grows; the corpus is committed (small files, a few dozen per
target). Usage: python3 tests/fuzz/make_corpus.py [--golden DIR]
"""
import argparse
import hashlib
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GOLDEN = os.path.normpath(os.path.join(HERE, "..", "golden"))

UNIT_SEEDS = [
    "500 KB", "2 GB/s", "7.24 ms", "312 TFLOP/s", "80GiB", "400 Gbps", "1 TB / h", "flop/B", "W*h", "s^2",
    "4.1 GFLOP", "25000 USD", "7e9 param", "1 kWh", "100 TOPS", "350 us", "0.5 GB / s", "150528 byte",
    "1e400 B", "nan GB", "Infinity", "", "   ", "-5 ms", "5 GB //s", "12 parsecs", "1 GB/s/s", "2 MiB",
    "1.5e-3 s", "3 TFLOPs/s", "10 J/s", "1 kg", "64 bit", "1 h", "2 day", "1 min",
]

# POST /optimize (route ':' in fuzz_request.c): bisection, exhaustive, a member axis, bad constraints.
OPTIMIZES = [
    {"solver": "single_node", "inputs": {"model": "ResNet50", "hardware": "A100"},
     "axes": [{"input": "batch_size", "range": {"start": 1, "stop": 10000, "step": 1}}],
     "constraints": [{"output": "latency", "<=": "10 ms"}, {"output": "feasible", "==": True}],
     "objective": {"maximize": "batch_size"}, "top_k": 3},
    {"solver": "single_node", "inputs": {"model": "Llama3_8B"},
     "axes": [{"input": "hardware", "values": ["A100", "H100"]}, {"input": "batch_size", "values": [1, 8, 64]}],
     "constraints": [{"output": "bottleneck", "!=": "Memory"}, {"output": "latency", ">": 0.5}],
     "objective": {"minimize": "latency"}, "method": "exhaustive"},
    {"solver": "reliability", "inputs": {"fleet": "Research_256", "job_duration_hours": 24},
     "axes": [{"input": "fleet.count", "values": [8, 16, 32, 64]}],
     "constraints": [{"output": "fleet_mtbf", ">=": "1 day"}], "objective": {"maximize": "fleet.count"}},
    {"solver": "single_node", "inputs": {"model": "ResNet50", "hardware": "A100"},
     "axes": [{"input": "batch_size", "values": [0, 1, 2]}],
     "constraints": [{"output": "latency", "<=": "5 GB"}, {"output": "feasible", "<": True}],
     "objective": {"maximize": "bottleneck"}, "method": "bisection", "top_k": 0},
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

BAD_BODIES = [
    b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":-1}}',
    b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","efficiency":NaN}}',
    b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":1e400}}',
    b'{"solver":"single_node","inputs":{"model":"ResNet5","hardware":"A1000"}}',
    b'{"solver":"data","inputs":{"hardware":"A100","workload_data_rate":"5 ms"}}',
    b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"inputs":{}}',
    b'{"solver":"single_node","inputs":{"model":{"name":"x"},"hardware":{"base":"A100","memory":{"capacity":"-1 GB"}}}}',
    b'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
    b'{"solver":"single_node","inputs":{"model":"\xff\xfe","hardware":"A100"}}',
    b'{"solver":"pipeline","inputs":{"model":"ResNet50","hardware":"A100","sample_size_bytes":"500 KB"},'
    b'"axes":[{"input":"batch_size","range":{"start":1,"stop":1e12,"step":1}}]}',
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
    for b in BAD_BODIES:
        req.append(b"0" + b)
    req.append(b"1" + BAD_BODIES[-1])
    for s in OPTIMIZES:
        req.append(b":" + json.dumps(s, separators=(",", ":")).encode())
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
    n_q = write(os.path.join(corpus, "fuzz_query"), queries)
    print("corpus: fuzz_units %d, fuzz_request %d, fuzz_query %d files" % (n_units, n_req, n_q))


if __name__ == "__main__":
    main()
