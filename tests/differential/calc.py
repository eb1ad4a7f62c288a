"""Independent calculator of the mlsysim breadth solvers, for the random differential.

Contract: `solve(name, inputs)` returns the expected `result` of `POST /solve` for the
solver `name` on the `current` catalog edition in mlsysim mode, as a dict of output name
to value (numbers in the units of /work/shared/golden/README.md; float('inf') where the
answer is infinite, which the daemon sends as null), or raises `Refused` where mlsysim
raises a validation error (the daemon must answer 400). Written from the specification
(`shared/reference/solvers.md`) and the catalog (`shared/reference/catalog.json`) only,
never from the daemon's C code, so that a shared misreading is unlikely. Python 3 stdlib.
"""

import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("MLSYSD_SHARED",
                        os.path.join(HERE, "..", "..", "..", "shared"))
CATALOG_PATH = os.path.join(SHARED, "reference", "catalog.json")

INF = float("inf")
PRECISION_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}
LAYER_TAX_MS = 0.01
US_AVG = "US_Avg"
BEST_AIR_PUE = 1.12
H100_TDP = 700.0


class Refused(Exception):
    """mlsysim rejects these inputs (ValueError); the daemon must answer 400."""


def _si(q):
    return None if q is None else q["si"]


class Catalog:
    """The catalog entries the breadth solvers read, in SI units, by short key."""

    def __init__(self, path=CATALOG_PATH):
        with open(path) as f:
            c = json.load(f)
        self.hardware = {h["key"]: h for h in c["hardware"]}
        self.models = {m["key"]: m for m in c["models"]}
        self.nodes = {x["key"]: x for x in c["systems"] if x["kind"] == "node"}
        self.fabrics = {x["key"]: x for x in c["systems"] if x["kind"] == "fabric"}
        self.clusters = {x["key"]: x for x in c["systems"] if x["kind"] == "cluster"}
        self.grids = {x["key"]: x for x in c["infrastructure"] if x["kind"] == "grid"}
        self.datacenters = {x["key"]: x for x in c["infrastructure"] if x["kind"] == "datacenter"}

    @staticmethod
    def short(ref):
        return ref.rsplit(".", 1)[-1]

    # --- hardware -------------------------------------------------------------
    def hw(self, ref):
        """A hardware key, or {"base": key, "memory": {"bandwidth": "<x> GB/s"},
        "dispatch_tax": "<x> ms"} (the overrides the generator draws)."""
        if isinstance(ref, dict):
            out = self.hw(ref["base"])
            if "memory" in ref:
                out["bw"] = float(ref["memory"]["bandwidth"].split()[0]) * 1e9
            if "dispatch_tax" in ref:
                out["tax_ms"] = float(ref["dispatch_tax"].split()[0])
            return out
        h = self.hardware[ref]
        pf = h["compute"].get("precision_flops") or {}
        tax = _si(h.get("dispatch_tax"))
        inter = h.get("interconnect")
        storage = h.get("storage")
        nvl = h.get("nvlink")
        return {
            "peak": h["compute"]["peak_flops"]["si"],
            "peak_value": h["compute"]["peak_flops"]["value"],
            "pf": {k: v["si"] for k, v in pf.items() if v},
            "pf_value": {k: v["value"] for k, v in pf.items() if v},
            "cap": h["memory"]["capacity"]["si"],
            "cap_value": h["memory"]["capacity"]["value"],
            "bw": h["memory"]["bandwidth"]["si"],
            "tax_ms": (tax * 1000.0) if tax is not None else 0.01,
            "inter_bw": _si(inter.get("bandwidth")) if inter else None,
            "storage_bw": _si(storage.get("bandwidth")) if storage else None,
            "nvlink_latency": _si(nvl.get("latency")) if nvl else None,
            "tdp": _si(h.get("tdp")),
            "sram_cap": _si(h["memory"].get("sram_capacity")),
            "sram_bw": _si(h["memory"].get("sram_bandwidth")),
            "flash_bw": _si(h["memory"].get("flash_bandwidth")),
            "unit_cost": _si(h.get("unit_cost")),
        }

    # --- models -----------------------------------------------------------------
    def model(self, ref):
        """A model key, or {"base": key, <member>: value} with members layers, heads,
        kv_heads, hidden_dim (integers) and parameters ("<x> count")."""
        if isinstance(ref, dict):
            out = self.model(ref["base"])
            for k, dst in (("layers", "layers"), ("heads", "heads"), ("kv_heads", "kv_heads"),
                           ("hidden_dim", "hidden")):
                if k in ref:
                    out[dst] = ref[k]
            if "parameters" in ref:
                out["N"] = float(ref["parameters"].split()[0])
            return out
        m = self.models[ref]
        return {
            "type": m["type"],
            "N": _si(m.get("parameters")),
            "flops": _si(m.get("inference_flops")),
            "model_size": _si(m.get("model_size")),
            "layers": m.get("layers"),
            "hidden": m.get("hidden_dim"),
            "heads": m.get("heads"),
            "kv_heads": m.get("kv_heads"),
            "active": _si(m.get("active_parameters")),
            "experts": m.get("experts"),
            "k": m.get("active_experts_per_token"),
        }

    # --- fleets -----------------------------------------------------------------
    def fleet(self, spec):
        """A cluster key or {"node", "count", "fabric", "region"} -> a flat fleet."""
        if isinstance(spec, str):
            cl = self.clusters[spec]
            spec = {"node": self.short(cl["node"]), "count": cl["count"],
                    "fabric": self.short(cl["fabric"]),
                    "region": self.short(cl["region"]) if cl.get("region") else None}
        node = self.nodes[spec["node"]]
        fab = self.fabrics[spec["fabric"]]
        accel = self.short(node["accelerator"])
        a = node["accelerators_per_node"]
        return {
            "accelerator": accel, "hw": self.hw(accel),
            "a": a, "count": spec["count"], "n": a * spec["count"],
            "intra_bw": node["intra_node_bw"]["si"],
            "nics": node.get("nics_per_node") or 1, "psus": node.get("psus_per_node") or 2,
            "fab_bw": fab["bandwidth"]["si"], "fab_lat": _si(fab.get("latency")),
            "oversub": fab.get("oversubscription_ratio") or 1.0,
            "region": spec.get("region"),
        }


CAT = None


def catalog():
    global CAT
    if CAT is None:
        CAT = Catalog()
    return CAT


# --- helpers (solvers.md section H) -------------------------------------------------

def prec(p):
    p = p.lower()
    if p not in PRECISION_BYTES:
        raise Refused("precision")
    return p, PRECISION_BYTES[p]


def eff_flops(hw, key):
    return hw["pf"].get(key, hw["peak"])


def head_dim(m):
    """(hidden_dim or 4096) // (heads or 32). The daemon refuses a model whose head
    dimension is below 1 (hidden_dim < heads) in the solvers that use it, as a 400 on
    inputs.model, where mlsysim would carry on with an empty KV cache: a record check of
    the daemon's own, which the calculator follows."""
    dh = (m["hidden"] or 4096) // (m["heads"] or 32)
    if dh < 1:
        raise Refused("head_dim must be >= 1, got %d" % dh)
    return dh


def kv_cache(m, S, B, b):
    H = m["heads"] or 32
    dh = head_dim(m)
    hkv = m["kv_heads"] or H
    return 2 * m["layers"] * hkv * dh * S * B * b


def size_in_bytes(m, b):
    if m["model_size"] is not None:
        return m["model_size"]
    return m["N"] * b


def all_to_all(M, n, bw, lat):
    if bw <= 0:
        raise Refused("bandwidth")
    if n == 1:
        return 0.0
    return (n - 1) / n * M / bw + (n - 1) * lat


def queue_mmc(lam, mu, c):
    """(rho, w50_s, w99_s) of M/M/c (H.10)."""
    c = max(1, int(c))
    if mu == 0 or lam >= c * mu:
        return 1.0, INF, INF
    rho = lam / (c * mu)
    a = c * rho
    try:
        log_tc = c * math.log(a) - math.lgamma(c + 1) - math.log(1 - rho)
        terms = [i * math.log(a) - math.lgamma(i + 1) for i in range(c)]
        mx = max(terms + [log_tc])
        p = math.exp(log_tc - mx) / (sum(math.exp(t - mx) for t in terms) + math.exp(log_tc - mx))
    except (ValueError, OverflowError, ZeroDivisionError):
        p = rho
    if math.isnan(p) or math.isinf(p):
        p = rho
    p = min(1.0, max(0.0, p))
    r = c * mu * (1 - rho)
    w50 = 0.0 if p < 0.5 else max(0.0, math.log(p / 0.5) / r)
    w99 = 0.0 if p < 0.01 else max(0.0, math.log(p / 0.01) / r)
    return rho, w50, w99


def activation_memory(L, s, b, h, heads, pb, strategy):
    scale = pb / 2
    if strategy == "full":
        per = 2 * s * b * h * scale
    elif strategy == "selective":
        per = 34 * s * b * h * scale
    elif strategy == "none":
        if heads is None:
            raise Refused("heads")
        per = (34 * s * b * h + 5 * heads * s * s * b) * scale
    else:
        raise Refused("strategy")
    return L * per


# --- LLM serving family (sections 8-14) ---------------------------------------------

def serving(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    key, b = prec(inp.get("precision", "fp16"))
    S = inp["seq_len"]
    B = inp.get("batch_size", 1)
    e = inp.get("efficiency", 0.5)
    c = inp.get("cached_prefix_len", 0)
    alpha = inp.get("draft_acceptance_rate", 0.7)
    chunk = inp.get("prefill_chunk_tokens")
    netbw = inp.get("network_bandwidth", 100) * 1e9  # GB/s
    if S < 1 or B < 1 or not (0 < e <= 1) or c < 0 or c >= S or not (0 <= alpha <= 1):
        raise Refused("serving")
    if chunk is not None and chunk <= 0:
        raise Refused("prefill_chunk_tokens")
    if netbw <= 0:
        raise Refused("network_bandwidth")
    N = m["N"]
    L = m["layers"] or 1
    H = m["heads"] or 32
    dh = head_dim(m)
    P = eff_flops(hw, key)
    n_new = max(1, S - c)

    def pf_flops(t):
        return 2 * N * t * B + 4 * L * H * dh * t * S * B

    t_pc = pf_flops(n_new) / (P * e) * 1000
    if chunk is not None:
        chunks = max(1, math.ceil(n_new / chunk))
        sizes = [chunk] * (n_new // chunk) + ([n_new % chunk] if n_new % chunk else [])
        chunk_time = max(pf_flops(t) / (P * e) * 1000 + hw["tax_ms"] for t in sizes)
        stall = chunk_time
    else:
        chunks, chunk_time, stall = 1, None, None
    ttft = t_pc + hw["tax_ms"] * chunks
    KV = kv_cache(m, S, B, b)
    dec = hw
    if inp.get("decode_hardware"):
        dec = cat.hw(inp["decode_hardware"])
        ttft += KV / netbw * 1000
    W = N * b
    itl = (W + KV) / dec["bw"] * 1000 + m["layers"] * LAYER_TAX_MS
    total = W + KV
    if inp.get("draft_model"):
        d = cat.model(inp["draft_model"])
        Wd = size_in_bytes(d, b)
        KVd = kv_cache(d, S, B, b)
        td = (Wd + KVd) / dec["bw"] * 1000
        K = 4
        E = 1 + alpha * (1 - alpha ** K) / (1 - alpha) if alpha < 1 else 1 + K
        itl = (K * td + itl) / E
        total += Wd
    return {
        "feasible": total <= dec["cap"], "ttft": ttft, "itl": itl, "kv_cache": KV,
        "model_weights": W, "total_memory": total, "memory_utilization": total / dec["cap"],
        "prompt_cache_hit_ratio": c / S, "prefill_chunks": chunks,
        "prefill_chunk_time": chunk_time, "decode_stall_bound": stall,
    }


def continuous_batching(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    key, b = prec(inp.get("precision", "fp16"))
    S = inp["seq_len"]
    Bmax = inp.get("max_batch_size", 1)
    page = inp.get("page_size", 16)
    e = inp.get("efficiency", 0.5)
    N = m["N"]
    L = m["layers"] or 1
    H = m["heads"] or 32
    dh = head_dim(m)
    P = eff_flops(hw, key)
    ttft = (2 * N * S * Bmax + 4 * L * H * dh * S * S * Bmax) / (P * e) * 1000 + hw["tax_ms"]
    W = N * b
    budget = hw["cap"] - W
    if budget <= 0:
        return {"feasible": False, "throughput": 0.0, "max_active_requests": 0,
                "memory_fragmentation_pct": 0.0, "paged_kv_cache": 0.0, "ttft": ttft,
                "itl": 1e6, "speedup_vs_static": 1.0}
    hkv = m["kv_heads"] or m["heads"] or 32
    s_pad = math.ceil(S / page) * page
    frag = (s_pad - S) / s_pad if s_pad else 0.0
    bps = 2 * m["layers"] * hkv * dh * s_pad * 1 * b
    n = min(int(budget / bps), Bmax)
    kv_total = bps * n
    itl = (W + kv_total) / hw["bw"] * 1000
    if n == 0 or itl == 0:
        tp, speed = 0.0, 1.0
    else:
        tp = n / (itl / 1000)
        ns = max(1, int(0.6 * n))
        ts = (W + bps * ns) / hw["bw"]
        stp = ns / ts
        speed = tp / stp if stp else 1.0
    return {"feasible": n > 0, "throughput": tp, "max_active_requests": n,
            "memory_fragmentation_pct": frag, "paged_kv_cache": kv_total, "ttft": ttft,
            "itl": itl, "speedup_vs_static": speed}


def tail_latency(inp):
    lam = inp["arrival_rate_qps"]
    svc = inp["service_latency_ms"]
    c = inp.get("num_replicas", 1)
    cv = inp.get("service_time_cv", 1.0)
    if cv < 0:
        raise Refused("service_time_cv")
    mu = 1000.0 / svc if svc > 0 else 0.0
    rho, w50, w99 = queue_mmc(lam, mu, c)
    if cv != 1:
        f = (cv * cv + 1) / 2
        w50 *= f
        w99 *= f
    stable = rho < 1
    thr = 5 * svc
    w99_ms = w99 * 1000
    head = 1.0 if not stable else (w99_ms / thr if thr > 0 else 0.0)
    return {"p50_latency": w50 * 1000 + svc, "p99_latency": w99_ms + svc,
            "queue_utilization": rho, "is_stable": stable, "slo_headroom_ratio": max(0.0, head)}


def serving_capacity(inp):
    qps = inp["qps"]
    target = inp["target_p99_latency_ms"]
    S = inp.get("seq_len", 2048)
    out = inp.get("output_tokens", 128)
    mb = inp.get("max_batch_size", 32)
    e = inp.get("efficiency", 0.5)
    maxr = inp.get("max_replicas", 1024)
    cv = inp.get("service_time_cv", 1.0)
    if qps <= 0 or target <= 0 or S < 1 or out < 1 or mb < 1 or maxr < 1 \
            or not (1e-9 <= e <= 1) or cv < 0:
        raise Refused("serving_capacity")
    common = {"model": inp["model"], "hardware": inp["hardware"],
              "precision": inp.get("precision", "fp16"), "efficiency": e, "seq_len": S}
    cb = continuous_batching(dict(common, max_batch_size=mb))
    a = max(1, cb["max_active_requests"])
    sv = serving(dict(common, batch_size=a))
    q1 = cb["throughput"] / out
    base = sv["ttft"] + sv["itl"] * out
    res = {"active_batch_size": a, "ttft": sv["ttft"], "itl": sv["itl"],
           "base_request_latency": base}
    if not sv["feasible"] or not cb["feasible"] or q1 <= 0:
        res.update(feasible=False, required_replicas=maxr, qps_capacity=0.0,
                   per_replica_qps_capacity=0.0, utilization=INF, estimated_p99_latency=INF,
                   queue_wait_p99=INF, bottleneck="Memory")
        return res
    s_ms = 1000.0 / q1
    feasible = False
    for r in range(1, maxr + 1):
        t = tail_latency({"arrival_rate_qps": qps, "service_latency_ms": s_ms,
                          "num_replicas": r, "service_time_cv": cv})
        wait = max(0.0, t["p99_latency"] - s_ms)
        est = base + wait
        if t["is_stable"] and est <= target:
            feasible = True
            break
    cap = r * q1
    if feasible:
        bott = "Base Latency" if base > target else "Feasible"
    else:
        bott = "Tail Latency" if t["is_stable"] else "Capacity"
    res.update(feasible=feasible, required_replicas=r, qps_capacity=cap,
               per_replica_qps_capacity=q1, utilization=qps / cap if cap else INF,
               estimated_p99_latency=est, queue_wait_p99=wait, bottleneck=bott)
    return res


def inference_scaling(inp):
    cat = catalog()
    steps = inp.get("reasoning_steps", 8)
    sv = serving({"model": inp["model"], "hardware": inp["hardware"],
                  "seq_len": inp.get("context_length", 2048), "batch_size": 1,
                  "precision": inp.get("precision", "fp16"),
                  "efficiency": inp.get("efficiency", 0.5)})
    t_step = 50 * sv["itl"]
    total = sv["ttft"] + steps * t_step
    tdp = cat.hw(inp["hardware"])["tdp"]
    return {"total_reasoning_time": total, "ttft": sv["ttft"], "itl": sv["itl"],
            "tokens_generated": steps * 50, "time_per_step": t_step,
            "energy_per_query": (tdp or 0.0) * total / 1000, "feasible": sv["feasible"]}


def weight_streaming(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    key, b = prec(inp.get("precision", "fp16"))
    S = inp["seq_len"]
    B = inp.get("batch_size", 1)
    e = inp.get("efficiency", 0.5)
    phase = inp.get("phase", "decode")
    P = eff_flops(hw, key)
    hkv = m["kv_heads"] or m["heads"] or 32
    dh = head_dim(m)
    L = m["layers"]
    KV = S * hkv * dh * 2 * b * L * B
    req = 1.1 * KV
    feasible = req <= hw["cap"]
    util = (req / 1e9) / hw["cap_value"] if hw["cap_value"] else 1.0
    lp = m["N"] / L
    inj = hw["inter_bw"] if hw["inter_bw"] else 100e9
    t_inj = lp * b / inj * 1000
    if phase == "prefill":
        fl = 2 * lp * S * B + 2 * hkv * S * S * dh * B
    else:
        fl = 2 * lp * B
    t_cmp = fl / (P * e) * 1000 + hw["tax_ms"]
    if t_cmp >= t_inj:
        bott, t_layer = "Compute-Bound", t_cmp
    else:
        bott, t_layer = "Interconnect-Bandwidth-Bound", t_inj
    t_tok = t_layer * L
    tokens = B * S if phase == "prefill" else B
    tps = tokens / (t_tok / 1000) if t_tok else 0.0
    if not feasible:
        tps = 0.0
    return {"feasible": feasible, "throughput": tps, "bottleneck": bott,
            "layer_compute_time": t_cmp, "layer_injection_time": t_inj,
            "optimal_batch_size": max(1, int(t_inj / 1000 * P * e / (2 * lp))),
            "wafer_memory_utilization": min(util, 1.0) if feasible else util}


def batching_optimizer(inp):
    S = inp["seq_len"]
    sla = inp["sla_latency_ms"]
    lam = inp["arrival_rate_qps"]
    reps = inp.get("num_replicas", 1)
    top = inp.get("max_search_batch", 256)
    best_b, best_obj, best_tail = 0, None, None
    for b in range(1, top + 1):
        sv = serving({"model": inp["model"], "hardware": inp["hardware"], "seq_len": S,
                      "batch_size": b, "precision": inp.get("precision", "fp16"),
                      "efficiency": inp.get("efficiency", 0.5)})
        obj, tail = 1e12, None
        if sv["feasible"]:
            tail = tail_latency({"arrival_rate_qps": lam / b,
                                 "service_latency_ms": sv["ttft"] + sv["itl"] * S,
                                 "num_replicas": reps})
            if tail["is_stable"] and tail["p99_latency"] <= sla:
                obj = -b
        if best_obj is None or obj < best_obj:
            best_b, best_obj, best_tail = b, obj, tail
    if best_obj >= 1e10:
        return {"objective_value": 0.0, "best_batch_size": 0, "max_throughput": 0.0,
                "p99_latency": 0.0, "slo_headroom_ratio": 0.0, "is_feasible": False,
                "total_searched": top}
    return {"objective_value": lam * S, "best_batch_size": best_b, "max_throughput": lam * S,
            "p99_latency": best_tail["p99_latency"],
            "slo_headroom_ratio": best_tail["slo_headroom_ratio"], "is_feasible": True,
            "total_searched": top}


# --- training (sections 15, 16, 17, 19, 20) -----------------------------------------

OPT_BYTES = {"adam": 12.0, "adamw": 12.0, "sgd": 4.0, "none": 0.0}


def training_memory(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    _, b = prec(inp.get("precision", "fp16"))
    opt = inp.get("optimizer", "adam").lower()
    strat = inp.get("activation_checkpointing", "selective")
    B = inp["batch_size"]
    S = inp.get("seq_len", 2048)
    tp, pp, dp, ep = (inp.get(k, 1) for k in ("tp_size", "pp_size", "dp_size", "ep_size"))
    gas = inp.get("gradient_accumulation_steps", 1)
    tf = inp.get("trainable_fraction", 1.0)
    cbf = inp.get("communication_buffer_fraction", 0.05)
    z = inp.get("zero_stage", 0)
    if opt not in OPT_BYTES or strat not in ("none", "selective", "full"):
        raise Refused("enum")
    if min(B, S, tp, pp, dp, ep, gas) < 1 or not (0 <= tf <= 1) or not (0 <= cbf <= 1) \
            or z not in (0, 1, 2, 3):
        raise Refused("range")
    p = m["N"] / (tp * pp * ep)
    pt = p * tf
    w, g, o = p * b, pt * b, pt * OPT_BYTES[opt]
    if z >= 1:
        o /= dp
    if z >= 2:
        g /= dp
    if z >= 3:
        w /= dp
    mbs = max(1, -(-B // (dp * gas)))
    Ls = max(1, -(-m["layers"] // pp))
    h = m["hidden"] or 4096
    act = activation_memory(Ls, S, mbs, h, m["heads"], b, strat)
    buf = g * cbf + (2 * mbs * S * h * b if pp > 1 else 0)
    total = w + g + o + act + buf
    avail = hw["cap"]
    return {"feasible": total <= avail, "total_memory": total, "available_memory": avail,
            "memory_utilization": total / avail if avail else INF, "weights": w,
            "gradients": g, "optimizer_state": o, "activations": act,
            "communication_buffers": buf}


def checkpoint(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    bpp = 14 if inp.get("optimizer", "adam").lower() == "adam" else 4
    size = m["N"] * bpp
    sbw = hw["storage_bw"] or 1e9
    effbw = min(sbw * inp.get("n_writers", 1), inp.get("filesystem_limit_gbs", 500.0) * 1e9)
    t = size / effbw
    iv = inp.get("checkpoint_interval_hours", 4.0)
    return {"checkpoint_size": size, "write_time": t, "max_bandwidth_required": sbw / 1e9,
            "storage_bottleneck": t > 60, "mfu_penalty_pct": t / (iv * 3600) if iv > 0 else 1.0}


def scaling(inp):
    cb = inp["compute_budget"]
    if isinstance(cb, str):  # "<x> day" / "<x> hour": a time budget
        v, unit = cb.split()
        sec = float(v) * {"day": 86400.0, "hour": 3600.0}[unit]
        C = sec * 989e12 * 0.40
    else:
        C = float(cb)
    tgt = inp.get("target_model_size")
    if tgt:
        p = float(tgt)
        d = C / (6 * p)
    else:
        p = math.sqrt(C / 120)
        d = 20 * p
    return {"optimal_parameters": p, "optimal_tokens": d, "compute_budget": C,
            "tokens_per_parameter": d / p if p > 0 else 0.0}


def moe_routing(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    _, b = prec(inp.get("precision", "fp16"))
    B, S = inp["batch_size"], inp["seq_len"]
    ep = inp.get("ep_size", 1)
    f = inp.get("routing_imbalance_factor", 1.0)
    if min(B, S, ep) < 1 or f < 1.0:
        raise Refused("range")
    k = max(1, m["k"] or 1)
    e_eff = min(m["experts"], k * f)
    mult = e_eff / k
    h = m["hidden"] or 4096
    payload = B * S * h * b * k * mult
    routed = (ep - 1) / ep if ep > 1 else 0.0
    a2a = None
    if inp.get("fleet") is not None and ep > 1:
        fl = cat.fleet(inp["fleet"])
        a2a = all_to_all(payload, ep, fl["fab_bw"] / fl["oversub"], fl["fab_lat"]) * 1000
    return {"effective_active_experts": e_eff, "effective_active_parameters": m["active"] * mult,
            "active_parameter_multiplier": mult, "token_dispatch": payload * routed,
            "all_to_all_latency": a2a, "ep_size": ep}


def topology(inp):
    cat = catalog()
    fab = cat.fabrics[inp["fabric"]]
    topo = inp.get("topology", "fat_tree")
    N = inp.get("num_nodes", 64)
    beta = {"ring": lambda: 2 / max(N, 1), "torus_3d": lambda: 2.0 * N ** (-1 / 3),
            "fat_tree": lambda: 1.0, "dragonfly": lambda: 0.85}.get(topo, lambda: 1.0)()
    hops = {"fat_tree": lambda: 4, "dragonfly": lambda: 3, "torus_3d": lambda: 0.75 * N ** (1 / 3),
            "ring": lambda: N / 4}.get(topo, lambda: 4)()
    bw = fab["bandwidth"]["si"] / 1e9
    ov = fab.get("oversubscription_ratio") or 1.0
    return {"effective_bw": bw * beta / ov, "bisection_bw": bw * beta * N / 2 / ov,
            "bisection_bw_fraction": beta, "hops_avg": hops}


TRANSFORMER_FAMILY = ("TransformerWorkload", "SparseTransformerWorkload")


def lower(m, b):
    """(weight bytes, ops) of Workload.lower (section 0.7)."""
    if m["N"] is None:
        return m["model_size"], m["flops"] or 0.0
    if m["flops"]:
        return m["N"] * b, m["flops"]
    if m["type"] == "SparseTransformerWorkload":
        return m["N"] * b, 2 * m["active"]
    return m["N"] * b, 2 * m["N"]


def engine(m, hw, B, key, b, e, training=False, S=2048, zero=0, dp=1, lora=False,
           recomp=False):
    """Engine.solve (section 1): the single-node roofline, inference or training."""
    W, O = lower(m, b)
    O_batch = O * ((4 if recomp else 3) if training else 1) * B
    if not training:
        M = W
    elif m["type"] in TRANSFORMER_FAMILY:
        g, o = m["N"] * b, 12 * m["N"]
        if lora:
            lp = 2 * 16 * (m["hidden"] or 4096) * (4 * m["layers"])
            f = min(lp / m["N"], 1)
            g, o = g * f, o * f
        w = m["N"] * b
        if zero >= 1:
            o /= dp
        if zero >= 2:
            g /= dp
        if zero >= 3:
            w /= dp
        act = activation_memory(m["layers"], S, B, m["hidden"] or 4096, m["heads"], b,
                                "selective" if recomp else "none")
        M = w + g + o + act
    else:
        M = W * (1.1 if lora else 3)
    feasible = M <= hw["cap"]
    P = eff_flops(hw, key)
    F = P * e
    if not feasible:
        bw = min(hw["bw"], hw["inter_bw"] or 64e9)
    elif hw["sram_cap"] is not None and hw["sram_bw"] is not None and W <= hw["sram_cap"]:
        bw = hw["sram_bw"]
    elif hw["flash_bw"] is not None:
        bw = hw["flash_bw"]
    else:
        bw = hw["bw"]
    tc = O_batch / F * 1000 if O_batch else 0.0
    tm = (W + 0.1 * W * B) / bw * 1000 if bw else 0.0
    lat = max(tc, tm) + hw["tax_ms"] + (m["layers"] or 1) * 0.01 * (3 if training else 1)
    return {"latency": lat, "throughput": B / (lat / 1000) if lat else 0.0,
            "memory_footprint": M, "feasible": feasible}


def ring(M, n, bw, lat):
    if n == 1:
        return 0.0
    return 2 * (n - 1) / n * M / bw + 2 * (n - 1) * lat


def distributed(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    fl = cat.fleet(inp["fleet"])
    tp, pp, ep = inp.get("tp_size", 1), inp.get("pp_size", 1), inp.get("ep_size", 1)
    B = inp.get("batch_size", 1)
    gas = inp.get("gradient_accumulation_steps", 1)
    e = inp.get("efficiency", 0.5)
    oe = inp.get("overlap_efficiency", 0.85)
    imb = inp.get("moe_routing_imbalance_factor", 1.0)
    S = inp.get("seq_len", 2048)
    if min(tp, pp, ep, B, gas) < 1 or not (1e-9 <= e <= 1) or not (0 <= oe <= 1) or imb < 1:
        raise Refused("range")
    key, b = prec(inp.get("precision", "fp16"))
    n = fl["n"]
    g = tp * pp * ep
    if g > n or n % g:
        raise Refused("Infeasible 4D Parallelism")
    dp = n // g
    local = max(1, B // dp)
    lora = inp.get("is_lora", False)
    node = engine(m, fl["hw"], local, key, b, e, True, S, inp.get("zero_stage", 0), dp,
                  lora, inp.get("activation_recomputation", False))
    grad = m["N"] * b / tp * (0.01 if lora else 1)
    a = fl["a"]
    intra_lat = fl["hw"]["nvlink_latency"] or 500e-9
    fab_bw = fl["fab_bw"] / fl["oversub"]
    fab_lat = fl["fab_lat"] if fl["fab_lat"] is not None else 5e-6
    t_dp = 0.0
    if dp > 1:
        if a > 1 and dp > a:
            t_dp = 2 * ((a - 1) / a * grad / fl["intra_bw"] + (a - 1) * 500e-9) \
                + ring(grad / a, -(-dp // a), fab_bw, fab_lat)
        else:
            t_dp = ring(grad, dp, fl["intra_bw"], intra_lat)
    h = m["hidden"] or 4096
    t_tp = 0.0
    if tp > 1:
        A = local * S * h * b
        bw, lat = (fl["intra_bw"], intra_lat) if tp <= a else (fab_bw, fab_lat)
        t_tp = (m["layers"] or 1) * ring(2 * A, tp, bw, lat)
    t_ep = 0.0
    if ep > 1:
        V = local * S * h * b * (m["k"] or 1) * imb
        t_ep = all_to_all(V, ep, fab_bw, fab_lat)
    mb, v = inp.get("microbatch_count", 1), inp.get("v_stages", 1)
    beta = (pp - 1) / (v * mb + pp - 1)
    nl = node["latency"]
    t_bub = nl * beta if pp > 1 else 0.0
    cg = inp.get("congestion_factor", 1.0)
    t_dp, t_tp, t_ep = t_dp * 1000 * cg, t_tp * 1000 * cg, t_ep * 1000 * cg
    if gas > 1:
        t_dp /= gas
    comm = t_dp + t_tp + t_ep
    if inp.get("overlap_comm", False):
        step = nl + t_dp * (1 - oe) + t_tp + t_ep + t_bub
    else:
        step = nl + comm + t_bub
    sf = inp.get("straggler_factor", 1.0)
    if sf > 1:
        step *= sf
    se = nl / step
    return {"node_latency": nl, "node_memory_footprint": node["memory_footprint"],
            "node_feasible": node["feasible"], "dp_communication_latency": t_dp,
            "tp_communication_latency": t_tp, "ep_communication_latency": t_ep,
            "communication_latency": comm, "pipeline_bubble_latency": t_bub,
            "bubble_fraction": beta, "step_latency_total": step, "scaling_efficiency": se,
            "effective_throughput": n * node["throughput"] * se}


def parallelism(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    fl = cat.fleet(inp["fleet"])
    n, a = fl["n"], fl["a"]
    lim_tp = inp.get("max_tp") or a
    lim_pp = inp.get("max_pp") or n
    cap = fl["hw"]["cap"]
    cands = []
    for tp in (2 ** i for i in range(10)):
        if tp > lim_tp:
            continue
        for pp in (2 ** i for i in range(10)):
            if pp > lim_pp or tp * pp > n or n % (tp * pp):
                continue
            w = size_in_bytes(m, 2) / tp / pp
            if w + w + m["N"] * 12 / (tp * pp) > 0.9 * cap:
                continue
            try:
                r = distributed({"model": inp["model"], "fleet": inp["fleet"],
                                 "batch_size": inp["batch_size"],
                                 "precision": inp.get("precision", "fp16"),
                                 "efficiency": inp.get("efficiency", 0.5), "tp_size": tp,
                                 "pp_size": pp, "overlap_comm": inp.get("overlap_comm", True)})
            except Refused:
                continue
            cands.append((r["scaling_efficiency"] * inp.get("efficiency", 0.5), tp, pp, n // (tp * pp),
                          r["effective_throughput"], r["step_latency_total"]))
    if not cands:
        raise Refused("No valid parallelism configurations found for this cluster size.")
    best = cands[0]
    for c in cands[1:]:
        if c[0] > best[0]:
            best = c
    return {"best_config.tp": best[1], "best_config.pp": best[2], "best_config.dp": best[3],
            "best_mfu": best[0], "best_throughput": best[4], "best_step_time": best[5],
            "total_searched": len(cands)}


def network_roofline(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    fl = cat.fleet(inp["fleet"])
    e = inp.get("efficiency", 0.5)
    if not (1e-9 <= e <= 1) or m["N"] is None:
        raise Refused("network_roofline")
    key, b = prec(inp.get("precision", "fp16"))
    F = fl["hw"]["pf"].get(inp.get("precision", "fp16"), fl["hw"]["peak"]) * fl["n"]
    bis = fl["fab_bw"] / fl["oversub"]
    sync = 2 * m["N"] * b
    ops = 6 * m["N"]
    tc = ops / (F * e) * 1000
    tn = sync / bis * 1000
    lat = max(tc, tn)
    mfu = min((ops / (lat / 1000)) / F, 1.0)
    return {"latency": lat, "latency_compute": tc, "latency_memory": tn, "latency_overhead": 0.0,
            "throughput": 1 / (lat / 1000), "bottleneck": "Network" if tn > tc else "Compute",
            "arithmetic_intensity": ops / sync, "energy": 0.0, "memory_footprint": sync,
            "peak_flops_actual": F * e / 1e12, "peak_bw_actual": bis / 1e9, "mfu": mfu,
            "hfu": min(1.1 * mfu, 1.0), "feasible": True, "offload_spill_bytes": None,
            "offload_effective_bw": None}


def efficiency(inp):
    hw = catalog().hw(inp["hardware"])
    peak = hw["pf"].get(inp.get("precision", "fp16"), hw["peak"])
    e = inp.get("efficiency", 0.5)
    s = e / 0.5
    wt = inp.get("workload_type", "ffn")
    if wt == "attention":
        eta = min(0.75 * s, 0.85) if inp.get("use_flash_attention") else 0.3 * s
    elif wt == "ffn":
        eta = min(0.5 * s, 0.60)
    elif wt == "conv":
        eta = min(0.4 * s, 0.55)
    else:
        eta = 0.3 * s
    eta = min(1.0, max(0.0, eta))
    occ = 1 - min(1.1 * e, 1)
    return {"mfu": eta, "achievable_flops": peak * eta, "peak_flops": peak,
            "overhead_breakdown.occupancy_loss": occ,
            "overhead_breakdown.memory_stall": max(0.0, (1 - eta) - occ)}


def sensitivity(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    e = inp.get("efficiency", 0.5)
    if not (1e-9 <= e <= 1):
        raise Refused("efficiency")
    key, b = prec(inp.get("precision", "fp16"))
    k = 1 + inp.get("perturbation_pct", 10.0) / 100
    base = engine(m, hw, 1, key, b, e)
    t0 = base["latency"]
    sens = {}
    for name, change in (
            ("peak_flops", lambda h: dict(h, peak=h["peak"] * k,
                                          pf={p: v * k for p, v in h["pf"].items()})),
            ("memory_bandwidth", lambda h: dict(h, bw=h["bw"] * k)),
            ("memory_capacity", lambda h: dict(h, cap=h["cap"] * k))):
        t = engine(m, change(hw), 1, key, b, e)["latency"]
        sens[name] = (t - t0) / t0 if t0 > 0 else 0.0
    bind = "peak_flops"
    for name in ("memory_bandwidth", "memory_capacity"):
        if abs(sens[name]) > abs(sens[bind]):
            bind = name
    out = {"sensitivities." + n: v for n, v in sens.items()}
    out.update(binding_constraint=bind, baseline_latency=t0, feasible=base["feasible"])
    return out


def synthesis(inp):
    m = catalog().model(inp["model"])
    _, b = prec(inp.get("precision", "fp16"))
    e = inp.get("efficiency", 0.5)
    W = size_in_bytes(m, b)
    _, O = lower(m, b)
    T = inp["target_latency"] / 1000
    return {"required_bw": W / T / 1e9, "required_flops": O / (T * e), "required_memory": W,
            "compute_memory_ratio": O / (W * e), "model_size": W, "total_ops": O}


# --- fleets in the world (sections 22-27) ---------------------------------------------

def reliability(inp):
    fl = catalog().fleet(inp["fleet"])
    T = inp["job_duration_hours"]
    ck = inp.get("checkpoint_time_s", 60.0)
    rec = inp.get("avg_recovery_time_s", 300.0)
    node = 1 / (fl["a"] / 50000 + fl["nics"] / 150000 + fl["psus"] / 100000)
    mtbf = node / fl["count"]
    tau = math.sqrt(2 * ck * mtbf * 3600)
    good = max(0.0, 1 - ck / tau - rec / (mtbf * 3600)) if tau > 0 and mtbf > 0 else 0.0
    return {"fleet_mtbf": mtbf, "failure_probability": 1 - math.exp(-(T * 3600) / (mtbf * 3600)),
            "optimal_checkpoint_interval": tau, "expected_failures": T / mtbf,
            "goodput_ratio": good}


def _grid(key):
    g = catalog().grids[key]
    return {"name": g["name"], "g": g["carbon_intensity_g_kwh"], "pue": g["pue"],
            "wue": g["wue_l_per_kwh"]}


def sustainability(inp):
    cat = catalog()
    fl = cat.fleet(inp["fleet"])
    days = inp["duration_days"]
    mfu = inp.get("mfu", 1.0)
    emb = inp.get("embodied_carbon_per_device", 0.0)
    dck = inp.get("datacenter")
    if dck is not None and dck in cat.datacenters:
        dcx = cat.datacenters[dck]
        region = _grid(cat.short(dcx["grid"]))
        pue = dcx["pue_override"] or region["pue"]
        wue = region["wue"]
    elif dck is not None:
        region = _grid(dck)
        pue, wue = region["pue"], region["wue"]
    else:
        region = _grid(fl["region"] or US_AVG)
        pue = _grid(fl["region"])["pue"] if fl["region"] else BEST_AIR_PUE
        wue = region["wue"]
    if not (0 <= mfu <= 1) or emb < 0:
        raise Refused("range")
    tdp = fl["hw"]["tdp"] or H100_TDP
    p_it = tdp * (0.30 + 0.70 * mfu) * fl["n"]
    e_it = p_it * 24 * days / 1000
    e_tot = e_it * pue
    carbon = e_tot * region["g"] / 1000
    embodied = emb * fl["n"]
    return {"it_energy": e_it, "total_energy": e_tot, "carbon_footprint": carbon + embodied,
            "water_usage": e_tot * wue, "pue": pue, "region_name": region["name"],
            "embodied_carbon": embodied}


def economics(inp):
    fl = catalog().fleet(inp["fleet"])
    days = inp["duration_days"]
    dc = inp.get("datacenter") or inp.get("grid")
    s = sustainability({"fleet": inp["fleet"], "duration_days": days, "datacenter": dc,
                        "mfu": inp.get("mfu", 1.0)})
    price = inp.get("kwh_price")
    if price is None:
        price = 0.12
    amort = inp.get("amortization_years", 3.0)
    infra = inp.get("infrastructure_multiplier", 1.0)
    capex_total = (fl["hw"]["unit_cost"] or 0.0) * fl["n"] * infra
    capex = capex_total / amort * days / 365
    energy = s["total_energy"] * price
    maint = capex_total * 0.05 * days / 365
    return {"capex": capex, "opex_energy": energy, "opex_maintenance": maint,
            "total_opex": energy + maint, "tco": capex + energy + maint,
            "it_energy": s["it_energy"], "total_energy": s["total_energy"],
            "carbon_footprint": s["carbon_footprint"], "water_usage": s["water_usage"],
            "pue": s["pue"], "region_name": s["region_name"]}


def placement(inp):
    cat = catalog()
    tax = inp.get("carbon_tax_per_ton", 100.0)
    best = None
    n = 0
    for r in inp.get("regions", ["US_Avg", "Quebec", "Iowa"]):
        if r not in cat.grids:
            continue
        n += 1
        res = economics({"fleet": inp["fleet"], "duration_days": inp["duration_days"],
                         "grid": r, "mfu": inp.get("mfu", 1.0)})
        tons = res["carbon_footprint"] / 1000
        obj = res["tco"] + tons * tax
        if best is None or obj < best[0]:
            best = (obj, r, res, tons)
    if best is None:
        raise Refused("regions")
    obj, r, res, tons = best
    return {"best_region": r, "objective_value": obj, "lowest_tco": res["tco"],
            "carbon_footprint": tons, "pue": res["pue"], "total_searched": n}


def orchestration(inp):
    lam = inp["arrival_rate_jobs_per_day"]
    dur = inp["avg_job_duration_days"]
    if dur == 0:
        raise Refused("avg_job_duration_days")
    mu = 1.0 / dur
    rho = lam / mu
    if rho < 1:
        wait, q = rho / (2 * mu * (1 - rho)), rho * rho / (2 * (1 - rho))
    else:
        wait, q = INF, INF
    return {"cluster_utilization": rho, "avg_wait_time": wait, "avg_queue_length": q,
            "is_stable": rho < 1}


def responsible_engineering(inp):
    base = inp["base_training_time"]
    eps = inp.get("epsilon", 1.0)
    prev = inp.get("min_subgroup_prevalence", 0.01)
    slow = 1 + 2.0 / max(eps, 0.01)
    return {"dp_slowdown_factor": slow, "effective_training_time": base * slow,
            "additional_data_requirement": 1 / max(prev, 1e-6)}


# --- compression (section 28) -----------------------------------------------------

def compression(inp):
    cat = catalog()
    m = cat.model(inp["model"])
    hw = cat.hw(inp["hardware"])
    method = inp.get("method", "quantization")
    bits = inp.get("target_bitwidth", 8)
    s = inp.get("sparsity", 0.0)
    st = inp.get("sparsity_type", "unstructured")
    if bits < 1 or not (0 <= s <= 1):
        raise Refused("range")
    original = size_in_bytes(m, 4)
    speed = 1.0
    if method == "quantization":
        r = 32 / bits
        acc = 0.0 if bits >= 16 else -0.002 if bits == 8 else -0.025 if bits >= 4 else -0.050
        weight, ops = lower(m, 4)
        tc = ops / hw["peak"] * 1000
        tm = weight / hw["bw"] * 1000
        memory_bound = tc < 1e-15 or (tm >= 1e-15 and tm > tc)
        if memory_bound:
            speed = r
        else:
            key = "int%d" % bits if bits <= 8 else "fp%d" % bits
            if key in hw["pf_value"]:
                speed = min(hw["pf_value"][key] / hw["peak_value"], r)
    elif method == "pruning":
        r = 1 / (1 - s) if s < 1 else 100.0
        acc = -0.001 if s <= 0.5 else -0.01 * math.exp(2 * s)
        speed = r if st == "structured" else (2.0 if abs(s - 0.5) < 0.05 else 1.0) \
            if st == "n_m" else 1.0
    else:
        r, acc = 1.0, 0.0
    return {"original_size": original, "compressed_size": original / r,
            "compression_ratio": r, "estimated_accuracy_delta": acc,
            "memory_savings": (1 - 1 / r) * 100, "inference_speedup": speed}


SOLVERS = {f.__name__: f for f in (
    serving, continuous_batching, serving_capacity, tail_latency, inference_scaling,
    batching_optimizer,
    weight_streaming, training_memory, distributed, parallelism, network_roofline,
    efficiency, sensitivity, synthesis, checkpoint, scaling, moe_routing, topology,
    reliability, sustainability, economics, placement, orchestration,
    responsible_engineering, compression)}


def solve(name, inputs):
    try:
        return SOLVERS[name](inputs)
    except ZeroDivisionError as e:  # mlsysim raises it too: the daemon answers 400
        raise Refused(str(e))
