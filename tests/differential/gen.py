"""Seeded random inputs for the breadth solvers of the differential.

Contract: `cases(seed, count)` yields `(solver, inputs)` pairs, the same for the same seed
and count. Catalog ids are drawn from `shared/reference/catalog.json` (via calc.Catalog);
numbers span each input's valid range, with edge values at and near the validation
bounds of solvers.md; the LLM solvers also get inline models (a catalog model with its
shape overridden) and accelerators with their bandwidth or dispatch tax overridden, as
`calc.Catalog` reads them; about one case in twelve of a validating solver is out of range
on purpose (the daemon must refuse it with 400 where the calculator raises Refused).
"""

import random

import calc

PRECISIONS = ["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"]


class Draw:
    def __init__(self, rng):
        self.r = rng
        cat = calc.catalog()
        self.cat = cat
        # LLMs with the KV layout of section 0.7 (no MLA: its formula is not specified)
        self.llms = sorted(k for k, m in cat.models.items()
                           if m["type"] in ("TransformerWorkload", "SparseTransformerWorkload")
                           and not m.get("kv_lora_rank"))
        self.moe = sorted(k for k, m in cat.models.items()
                          if m["type"] == "SparseTransformerWorkload")
        self.plain = sorted(k for k, m in cat.models.items()
                            if m["type"] in ("TransformerWorkload", "SparseTransformerWorkload",
                                             "CNNWorkload", "Workload", "SSMWorkload")
                            and (m.get("parameters") or m.get("model_size")))
        self.with_params = sorted(k for k in self.plain if cat.models[k].get("parameters"))
        self.hw = sorted(cat.hardware)
        self.grids = sorted(cat.grids)
        self.dcs = sorted(cat.datacenters)

    def pick(self, xs):
        return self.r.choice(xs)

    def logu(self, lo, hi):
        """log-uniform in [lo, hi]"""
        return lo * (hi / lo) ** self.r.random()

    def int_log(self, lo, hi):
        return int(round(self.logu(lo, hi)))

    def edge(self, p=0.15):
        return self.r.random() < p

    def bad(self, p=1 / 12):
        return self.r.random() < p

    def llm(self, pool=None):
        """An LLM id, or one time in five an inline override of its shape"""
        key = self.pick(pool or self.llms)
        if self.r.random() >= 0.2:
            return key
        x = {"base": key}
        for k, lo, hi in (("layers", 1, 160), ("heads", 1, 128), ("kv_heads", 1, 64),
                          ("hidden_dim", 64, 20000)):
            if self.r.random() < 0.5:
                x[k] = self.int_log(lo, hi)
        if self.r.random() < 0.5:
            x["parameters"] = "%r count" % self.logu(1e7, 1e12)
        return x

    def hardware(self):
        """A hardware id, or one time in six with its HBM bandwidth or dispatch tax overridden"""
        key = self.pick(self.hw)
        if self.r.random() >= 1 / 6:
            return key
        x = {"base": key}
        if self.r.random() < 0.7:
            x["memory"] = {"bandwidth": "%r GB/s" % self.logu(1, 20000)}
        else:
            x["dispatch_tax"] = "%r ms" % self.pick([0.0, self.logu(1e-4, 1)])
        return x

    def fleet(self):
        c = self.cat
        if self.r.random() < 0.3:
            return self.pick(sorted(c.clusters))
        return {"node": self.pick(sorted(c.nodes)), "count": self.int_log(1, 4096),
                "fabric": self.pick(sorted(c.fabrics)),
                "region": self.pick(self.grids) if self.r.random() < 0.6 else None}


def g_serving(d):
    S = d.int_log(1, 32768)
    x = {"model": d.llm(), "hardware": d.hardware(), "seq_len": S,
         "batch_size": d.int_log(1, 256), "precision": d.pick(PRECISIONS),
         "efficiency": 1.0 if d.edge() else d.r.uniform(1e-3, 1)}
    if d.r.random() < 0.4:
        x["cached_prefix_len"] = S - 1 if d.edge(0.3) else d.r.randint(0, S - 1)
    if d.r.random() < 0.4:
        x["prefill_chunk_tokens"] = 1 if d.edge() else d.int_log(1, 8192)
    if d.r.random() < 0.3:
        x["decode_hardware"] = d.pick(d.hw)
        x["network_bandwidth"] = d.logu(0.1, 1000)
    if d.r.random() < 0.3:
        x["draft_model"] = d.pick(d.llms)
        x["draft_acceptance_rate"] = d.pick([0.0, 1.0, d.r.random()])
    if d.bad():
        k = d.pick(["seq_len", "batch_size", "efficiency", "cached_prefix_len",
                    "draft_acceptance_rate", "prefill_chunk_tokens"])
        x[k] = {"seq_len": 0, "batch_size": 0, "efficiency": d.pick([0, 1.0000001]),
                "cached_prefix_len": d.pick([-1, S]), "draft_acceptance_rate": 1.5,
                "prefill_chunk_tokens": 0}[k]
        if k == "draft_acceptance_rate":
            x["draft_model"] = d.pick(d.llms)
    return x


def g_continuous_batching(d):
    return {"model": d.llm(), "hardware": d.hardware(), "seq_len": d.int_log(1, 32768),
            "max_batch_size": d.int_log(1, 512), "page_size": d.pick([1, 8, 16, 32, d.int_log(1, 256)]),
            "precision": d.pick(PRECISIONS), "efficiency": d.r.uniform(1e-3, 1)}


def g_serving_capacity(d):
    x = {"model": d.llm(), "hardware": d.hardware(), "qps": d.logu(0.01, 200),
         "target_p99_latency_ms": d.logu(10, 1e6), "seq_len": d.int_log(1, 8192),
         "output_tokens": d.int_log(1, 1024), "max_batch_size": d.int_log(1, 256),
         "max_replicas": d.int_log(1, 128), "efficiency": 1e-9 if d.edge(0.03) else d.r.uniform(0.01, 1),
         "service_time_cv": d.pick([0.0, 1.0, d.r.uniform(0, 3)]), "precision": d.pick(PRECISIONS)}
    if d.bad():
        k = d.pick(["qps", "target_p99_latency_ms", "seq_len", "output_tokens", "max_batch_size",
                    "max_replicas", "efficiency", "service_time_cv"])
        x[k] = {"qps": 0, "target_p99_latency_ms": -1, "efficiency": d.pick([0, 1.5]),
                "service_time_cv": -0.5}.get(k, 0)
    return x


def g_tail_latency(d):
    x = {"arrival_rate_qps": d.pick([0.0, d.logu(0.01, 1e4)]),
         "service_latency_ms": d.logu(0.01, 1e4), "num_replicas": d.int_log(1, 300),
         "service_time_cv": d.pick([0.0, 1.0, d.r.uniform(0, 4)])}
    if d.edge(0.3):  # near the stability edge
        x["arrival_rate_qps"] = x["num_replicas"] * 1000 / x["service_latency_ms"] * d.pick(
            [0.999, 0.9999999, 1.0, 0.5])
    if d.bad():
        x["service_time_cv"] = -0.1
    return x


def g_inference_scaling(d):
    return {"model": d.llm(), "hardware": d.hardware(), "reasoning_steps": d.int_log(1, 256),
            "context_length": d.int_log(1, 32768), "precision": d.pick(PRECISIONS),
            "efficiency": d.r.uniform(1e-3, 1)}


def g_batching_optimizer(d):
    x = {"model": d.llm(), "hardware": d.hardware(), "seq_len": d.int_log(1, 4096),
         "sla_latency_ms": d.logu(1, 1e6), "arrival_rate_qps": d.logu(0.01, 100),
         "num_replicas": d.int_log(1, 16), "precision": d.pick(PRECISIONS),
         "efficiency": d.r.uniform(1e-3, 1), "max_search_batch": d.int_log(1, 256)}
    if d.bad():
        x[d.pick(["seq_len", "efficiency"])] = 0
    return x


def g_weight_streaming(d):
    return {"model": d.pick(d.llms), "hardware": d.pick(d.hw), "seq_len": d.int_log(1, 32768),
            "batch_size": d.int_log(1, 256), "precision": d.pick(PRECISIONS),
            "efficiency": d.r.uniform(1e-3, 1), "phase": d.pick(["decode", "prefill"])}


def g_training_memory(d):
    x = {"model": d.llm(), "hardware": d.hardware(), "batch_size": d.int_log(1, 4096),
         "seq_len": d.int_log(1, 32768), "precision": d.pick(PRECISIONS),
         "optimizer": d.pick(["adam", "adamw", "sgd", "none"]),
         "activation_checkpointing": d.pick(["none", "selective", "full"]),
         "tp_size": d.pick([1, 2, 4, 8]), "pp_size": d.pick([1, 2, 4, 16, 3]),
         "dp_size": d.int_log(1, 1024), "ep_size": d.pick([1, 1, 2, 8]),
         "zero_stage": d.pick([0, 1, 2, 3]), "gradient_accumulation_steps": d.int_log(1, 64),
         "trainable_fraction": d.pick([0.0, 1.0, d.r.random()]),
         "communication_buffer_fraction": d.pick([0.0, 1.0, 0.05, d.r.random()])}
    if d.bad():
        k = d.pick(["batch_size", "seq_len", "tp_size", "dp_size", "trainable_fraction",
                    "communication_buffer_fraction", "zero_stage", "gradient_accumulation_steps"])
        x[k] = {"trainable_fraction": 1.01, "communication_buffer_fraction": -0.01,
                "zero_stage": 4}.get(k, 0)
    return x


def g_distributed(d):
    fleet = d.fleet()
    n = d.cat.fleet(fleet)["n"]
    def divs(m):
        return [k for k in (1, 2, 4, 8, 16, 32, 64) if m % k == 0]
    tp = d.pick(divs(n))
    pp = d.pick(divs(n // tp))
    ep = d.pick([1, 1] + divs(n // (tp * pp))[1:3])
    if d.edge(0.05):  # does not divide the fleet
        tp, pp = 3, 1
    x = {"model": d.pick(d.llms), "fleet": fleet, "tp_size": tp, "pp_size": pp, "ep_size": ep,
         "batch_size": d.int_log(1, 65536), "gradient_accumulation_steps": d.int_log(1, 64),
         "efficiency": d.pick([1e-9, 1.0, d.r.uniform(0.01, 1)]),
         "overlap_efficiency": d.pick([0.0, 1.0, d.r.random()]),
         "moe_routing_imbalance_factor": d.pick([1.0, d.logu(1, 8)]),
         "precision": d.pick(PRECISIONS), "v_stages": d.int_log(1, 8),
         "microbatch_count": d.int_log(1, 64), "zero_stage": d.pick([0, 1, 2, 3]),
         "is_lora": d.r.random() < 0.2, "activation_recomputation": d.r.random() < 0.5,
         "overlap_comm": d.r.random() < 0.5, "congestion_factor": d.pick([1.0, d.logu(1, 4)]),
         "straggler_factor": d.pick([1.0, d.logu(1, 2)]), "seq_len": d.int_log(1, 32768)}
    if d.bad():
        k = d.pick(["tp_size", "batch_size", "efficiency", "overlap_efficiency",
                    "moe_routing_imbalance_factor"])
        x[k] = {"overlap_efficiency": 1.5, "moe_routing_imbalance_factor": 0.5}.get(k, 0)
    return x


def g_parallelism(d):
    x = {"model": d.pick(d.llms), "fleet": d.fleet(), "batch_size": d.int_log(1, 65536),
         "precision": d.pick(PRECISIONS), "efficiency": d.pick([1.0, d.r.uniform(0.01, 1)]),
         "overlap_comm": d.r.random() < 0.7}
    if d.r.random() < 0.3:
        x["max_tp"] = d.int_log(1, 64)
    if d.r.random() < 0.3:
        x["max_pp"] = d.int_log(1, 64)
    return x


def g_network_roofline(d):
    return {"model": d.pick(d.with_params), "fleet": d.fleet(), "precision": d.pick(PRECISIONS),
            "efficiency": d.pick([1e-9, 1.0, d.r.uniform(1e-3, 1)])}


def g_efficiency(d):
    return {"model": d.pick(d.plain), "hardware": d.pick(d.hw),
            "workload_type": d.pick(["attention", "ffn", "conv", "other"]),
            "use_flash_attention": d.r.random() < 0.5, "precision": d.pick(PRECISIONS),
            "efficiency": d.pick([0.0, 1.0, d.r.uniform(0, 1)])}


def g_sensitivity(d):
    x = {"model": d.pick(d.plain), "hardware": d.pick(d.hw), "precision": d.pick(PRECISIONS),
         "perturbation_pct": d.pick([10.0, 1.0, d.logu(0.1, 100)]),
         "efficiency": d.pick([1e-9, 1.0, d.r.uniform(1e-3, 1)])}
    if d.bad():
        x["efficiency"] = d.pick([0, 1.5])
    return x


def g_synthesis(d):
    return {"model": d.pick(d.plain), "target_latency": d.logu(0.01, 1e5),
            "precision": d.pick(PRECISIONS), "efficiency": d.r.uniform(1e-3, 1)}


def g_checkpoint(d):
    return {"model": d.pick(d.with_params), "hardware": d.pick(d.hw),
            "optimizer": d.pick(["adam", "adamw", "sgd", "none"]),
            "checkpoint_interval_hours": d.pick([0.0, d.logu(0.01, 100)]),
            "n_writers": d.int_log(1, 1024), "filesystem_limit_gbs": d.logu(0.1, 5000)}


def g_scaling(d):
    r = d.r.random()
    if r < 0.3:
        budget = "%r %s" % (d.logu(0.01, 1000), d.pick(["day", "hour"]))
    else:
        budget = d.logu(1e15, 1e27)
    x = {"compute_budget": budget}
    if d.r.random() < 0.4:
        x["target_model_size"] = d.logu(1e6, 1e13)
    return x


def g_moe_routing(d):
    x = {"model": d.pick(d.moe), "batch_size": d.int_log(1, 512), "seq_len": d.int_log(1, 32768),
         "precision": d.pick(PRECISIONS), "ep_size": d.pick([1, 2, 4, 8, 64, d.int_log(1, 512)]),
         "routing_imbalance_factor": d.pick([1.0, d.logu(1, 64)])}
    if d.r.random() < 0.5:
        x["fleet"] = d.fleet()
    if d.bad():
        k = d.pick(["batch_size", "seq_len", "ep_size", "routing_imbalance_factor"])
        x[k] = 0.999 if k == "routing_imbalance_factor" else 0
    return x


def g_topology(d):
    return {"fabric": d.pick(sorted(d.cat.fabrics)),
            "topology": d.pick(["fat_tree", "dragonfly", "torus_3d", "ring", "hypercube"]),
            "num_nodes": d.int_log(1, 100000)}


def g_reliability(d):
    return {"fleet": d.fleet(), "job_duration_hours": d.pick([0.0, d.logu(0.01, 1e4)]),
            "checkpoint_time_s": d.pick([0.0, d.logu(0.1, 3600)]),
            "avg_recovery_time_s": d.pick([0.0, d.logu(1, 1e4)])}


def g_sustainability(d):
    x = {"fleet": d.fleet(), "duration_days": d.logu(0.01, 3650),
         "mfu": d.pick([0.0, 1.0, d.r.random()]),
         "embodied_carbon_per_device": d.pick([0.0, d.logu(1, 5000)])}
    r = d.r.random()
    if r < 0.35:
        x["datacenter"] = d.pick(d.grids)
    elif r < 0.7:
        x["datacenter"] = d.pick(d.dcs)
    if d.bad():
        k = d.pick(["mfu", "embodied_carbon_per_device"])
        x[k] = d.pick([1.01, -0.01]) if k == "mfu" else -1.0
    return x


def g_economics(d):
    x = {"fleet": d.fleet(), "duration_days": d.logu(0.01, 3650),
         "mfu": d.pick([0.0, 1.0, d.r.random()]), "amortization_years": d.logu(0.5, 10),
         "infrastructure_multiplier": d.pick([1.0, d.logu(0.5, 3)])}
    if d.r.random() < 0.5:
        x["kwh_price"] = d.logu(0.01, 1)
    r = d.r.random()
    if r < 0.3:
        x["grid"] = d.pick(d.grids)
    elif r < 0.6:
        x["datacenter"] = d.pick(d.grids + d.dcs)
    return x


def g_placement(d):
    regions = d.r.sample(d.grids, d.r.randint(1, len(d.grids)))
    return {"fleet": d.fleet(), "duration_days": d.logu(0.01, 3650), "regions": regions,
            "carbon_tax_per_ton": d.pick([0.0, d.logu(1, 1000)]),
            "mfu": d.pick([0.0, 1.0, d.r.random()])}


def g_orchestration(d):
    x = {"fleet": d.fleet(), "arrival_rate_jobs_per_day": d.pick([0.0, d.logu(0.01, 100)]),
         "avg_job_duration_days": d.logu(0.01, 30)}
    if d.edge(0.2):
        x["arrival_rate_jobs_per_day"] = d.pick([1.0, 0.999999]) / x["avg_job_duration_days"]
    if d.bad():
        x["avg_job_duration_days"] = 0
    return x


def g_responsible_engineering(d):
    return {"base_training_time": d.logu(1, 1e8), "epsilon": d.pick([0.001, 0.01, d.logu(0.001, 100)]),
            "delta": d.logu(1e-9, 1e-3),
            "min_subgroup_prevalence": d.pick([1e-7, 1e-6, d.logu(1e-6, 1)])}


def g_compression(d):
    x = {"model": d.pick(d.plain), "hardware": d.pick(d.hw),
         "method": d.pick(["quantization", "quantization", "pruning", "distillation"]),
         "target_bitwidth": d.pick([1, 2, 3, 4, 8, 16, 32, d.r.randint(1, 32)]),
         "sparsity": d.pick([0.0, 0.5, 0.45, 0.55, 1.0, d.r.random()]),
         "sparsity_type": d.pick(["unstructured", "structured", "n_m"])}
    if d.bad():
        k = d.pick(["target_bitwidth", "sparsity"])
        x[k] = 0 if k == "target_bitwidth" else d.pick([-0.1, 1.1])
    return x


GENERATORS = {name[2:]: f for name, f in globals().items() if name.startswith("g_")}


def cases(seed, count, solvers=None):
    rng = random.Random(seed)
    d = Draw(rng)
    names = sorted(solvers or GENERATORS)
    for i in range(count):
        name = names[i % len(names)]
        yield name, GENERATORS[name](d)
