"""request_mix.py - the requests the soak sends and the fuzz corpus seeds from.

tests/soak/soak.py draws its traffic from these; tests/fuzz/make_corpus.py
writes them as seeds. One list, so that a new input shape (a calibration mode,
a Hugging Face config, a plan, a simulation trace) reaches both:

  - solver_descriptors(base): every solver's GET /solvers/{name} description
    (its worked example among it), from a running daemon;
  - example_sweep(...): a solver's example swept over its first numeric input;
  - query_of(inputs): an inputs object as GET query text;
  - EXTRA_SOLVES: /solve bodies beyond the examples (serving_simulation with a
    draw and with a request_trace, measured mode, per-tensor precision);
  - OPTIMIZES: /optimize bodies (bisection, exhaustive, a member axis, a
    Pareto front; the last refused);
  - BAD_BODIES: (route, body, status) refused bodies of /solve and /sweep;
  - long_target(path): a request target over the 32 KiB limit (a 414).

Only data and pure functions, besides the one HTTP read of solver_descriptors.
"""
import json
import urllib.parse
import urllib.request

SIM = {"model": "Llama3_8B", "hardware": "H100", "arrival_rate_qps": 10, "prompt_tokens": 2048, "output_tokens": 256,
       "num_requests": 200}
TRACE = [{"arrival_s": 0.1 * i, "prompt_tokens": 512 + 256 * (i % 5), "output_tokens": 32 + 16 * (i % 3)}
         for i in range(40)]
SIM_TRACED = {"model": "Llama3_8B", "hardware": "H100", "request_trace": TRACE, "slo_ttft_ms": 500}

EXTRA_SOLVES = [
    {"solver": "serving_simulation", "inputs": dict(SIM, arrival_process="gamma", arrival_cv=2.5,
                                                    prompt_distribution="lognormal", length_cv=0.5, seed=7)},
    {"solver": "serving_simulation", "inputs": dict(SIM, replicas=4, routing="least_outstanding", tp=2,
                                                    chunked_prefill=True, prefill_chunk_tokens=512, max_num_seqs=64,
                                                    max_num_batched_tokens=8192, page_size=16,
                                                    gpu_memory_utilization=0.9, warmup_requests=20)},
    {"solver": "serving_simulation", "calibration": "measured", "inputs": dict(SIM, slo_ttft_ms=500, slo_tpot_ms=50)},
    {"solver": "serving_simulation", "inputs": SIM_TRACED},
    {"solver": "serving_simulation", "calibration": "measured",
     "inputs": dict(SIM_TRACED, replicas=2, routing="least_outstanding", warmup_requests=4)},
    {"solver": "serving", "calibration": "measured",
     "inputs": {"model": "Llama3_70B", "hardware": "H100", "seq_len": 2048, "batch_size": 4, "precision": "fp8", "tp": 2}},
    {"solver": "single_node", "calibration": "measured",
     "inputs": {"model": "ResNet50", "hardware": "A100", "batch_size": 256, "precision": "fp16"}},
    {"solver": "distributed", "calibration": "measured",
     "inputs": {"model": "Llama3_70B", "fleet": {"node": "DGX_H100", "count": 4, "fabric": "InfiniBand_NDR"},
                "tp_size": 8, "pp_size": 2, "batch_size": 64, "seq_len": 4096, "precision": "bf16",
                "step_model": "sharded"}},
    {"solver": "serving", "inputs": {"model": "Llama3_8B", "hardware": "H100", "weight_precision": "int4_g128",
                                     "kv_precision": "fp8", "seq_len": 8192}},
]

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
    {"solver": "serving_simulation", "inputs": dict(SIM_TRACED, model="Llama3_70B", precision="fp8"),
     "axes": [{"input": "hardware", "values": ["H100", "MI300X"]}, {"input": "tp", "values": [4, 8]}],
     "constraints": [{"output": "feasible", "==": True}],
     "objectives": [{"minimize": "ttft_p99"}, {"minimize": "tp"}]},
    {"solver": "single_node", "inputs": {"model": "ResNet50", "hardware": "A100"},
     "axes": [{"input": "batch_size", "values": [0, 1, 2]}],
     "constraints": [{"output": "latency", "<=": "5 GB"}, {"output": "feasible", "<": True}],
     "objective": {"maximize": "bottleneck"}, "method": "bisection", "top_k": 0},
]
VALID_OPTIMIZES = OPTIMIZES[:-1]

BAD_BODIES = [
    ("solve", b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":-1}}', 400),
    ("solve", b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","efficiency":NaN}}', 400),
    ("solve", b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100","batch_size":1e400}}', 400),
    ("solve", b'{"solver":"single_node","inputs":{"model":"ResNet5","hardware":"A1000"}}', 404),
    ("solve", b'{"solver":"data","inputs":{"hardware":"A100","workload_data_rate":"5 ms"}}', 400),
    ("solve", b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"inputs":{}}', 400),
    ("solve", b'{"solver":"single_node","inputs":{"model":{"name":"x"},"hardware":{"base":"A100","memory":'
              b'{"capacity":"-1 GB"}}}}', 400),
    ("solve", b'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]', 400),
    ("solve", b'{"solver":"single_node","inputs":{"model":"\xff\xfe","hardware":"A100"}}', 400),
    ("solve", b'{"solver":"single_node","inputs":{', 400),
    ("solve", b'{"solver":"no_such_solver","inputs":{}}', 404),
    ("solve", b'{"solver":"single_node","inputs":{"model":"ResNet50","hardware":"A100"},"calibration":"bogus"}', 400),
    ("solve", b'{"solver":"serving_simulation","inputs":{"model":"Llama3_8B","hardware":"H100","request_trace":'
              b'[{"arrival_s":1,"prompt_tokens":20,"output_tokens":2},{"arrival_s":0.5,"prompt_tokens":20,'
              b'"output_tokens":2}]}}', 400),
    ("solve", b'{"solver":"serving_simulation","inputs":{"model":"Llama3_8B","hardware":"H100","request_trace":'
              b'[{"arrival_s":0,"prompt_tokens":20}],"seed":2}}', 400),
    ("solve", b'{"solver":"serving_simulation","inputs":{"model":"Llama3_8B","hardware":"H100","arrival_rate_qps":0,'
              b'"prompt_tokens":2048,"output_tokens":256,"num_requests":0,"output_distribution":"uniform"}}', 400),
    ("solve", b'{"solver":"serving","calibration":"MEASURED","inputs":{"model":"Llama3_8B","hardware":"H100","tp":0}}',
     400),
    ("sweep", b'{"solver":"pipeline","inputs":{"model":"ResNet50","hardware":"A100","sample_size_bytes":"500 KB"},'
              b'"axes":[{"input":"batch_size","range":{"start":1,"stop":1e12,"step":1}}]}', 413),
]


def query_of(inputs):
    """An inputs object as GET query text: lists joined by ',', rows (lists of objects) as JSON, objects left out."""
    parts = []
    for k, v in inputs.items():
        if isinstance(v, dict):
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, list):
            v = json.dumps(v, separators=(",", ":")) if v and isinstance(v[0], dict) else ",".join(str(x) for x in v)
        parts.append("%s=%s" % (k, urllib.parse.quote(str(v), safe="")))
    return "&".join(parts)


def first_number(ex):
    """(name, value) of the example's first non-zero numeric input, or (None, None)."""
    for k, v in ex.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v:
            return k, v
    return None, None


def example_sweep(solver, ex, calibration="mlsysim", fmt="json", shard=None, points=2):
    """The example swept over its first numeric input (`points` values: v, 2v, 3v...), or None."""
    k, v = first_number(ex)
    if not k:
        return None
    doc = {"solver": solver, "inputs": {a: b for a, b in ex.items() if a != k}, "calibration": calibration,
           "axes": [{"input": k, "values": [v * (i + 1) for i in range(points)]}], "format": fmt}
    if shard:
        doc["shard"] = shard
    return doc


def long_target(path, size=32769):
    """path with a query argument x that makes the request target `size` bytes (over 32 KiB: a 414)."""
    sep = "&" if "?" in path else "?"
    head = path + sep + "x="
    return head + "a" * max(0, size - len(head))


def solver_descriptors(base):
    """(names in GET /solvers order, {name: GET /solvers/{name}}) from the daemon at base ("http://127.0.0.1:P")."""
    names = [s["name"] for s in json.load(urllib.request.urlopen(base + "/solvers"))["solvers"]]
    return names, {n: json.load(urllib.request.urlopen(base + "/solvers/" + n)) for n in names}
