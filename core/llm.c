/* llm.c - see llm.h. Formulas: reference/solvers.md §8 (ServingModel),
 * §9 (ContinuousBatchingModel), §0.7 and §H.9 (KV cache sizes). */
#include "core/llm.h"

#include <math.h>
#include <stdio.h>

#include "core/numfmt.h"
#include "core/precision.h"

attn_dims llm_attn_dims(const model_t *m)
{
    attn_dims d;
    d.layers = m->layers > 0 ? m->layers : 1;
    int heads = m->heads > 0 ? m->heads : 32;
    int hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
    d.heads = heads;
    /* An explicit head_dim (Gemma, Qwen3, Mistral-Nemo: heads x head_dim !=
     * hidden) wins; else floor division, as upstream. */
    d.head_dim = m->head_dim > 0 ? m->head_dim : hidden / heads;
    d.kv_heads = m->kv_heads > 0 ? m->kv_heads : heads;
    return d;
}

int llm_require_transformer(const model_t *m, const char *field, solver_error *err)
{
    if (m->kind != WL_TRANSFORMER && m->kind != WL_SPARSE_TRANSFORMER)
        return solver_fail(err, field,
                           "%s is a %s: the LLM serving formulas need a TransformerWorkload (layers, heads, KV cache)",
                           m->name, workload_kind_name(m->kind));
    if (!(m->parameters > 0) || m->layers < 1)
        return solver_fail(err, field, "%s needs positive parameters and layers >= 1 for the LLM serving formulas",
                           m->name);
    /* calc_kv_cache_size's own check (physics/memory.py). */
    if (llm_attn_dims(m).head_dim < 1)
        return solver_fail(err, field, "head_dim must be >= 1, got 0");
    return 0;
}

void llm_tensor_precisions(const solver_inputs *in, int i_precision, int i_weight, int i_kv, int i_act,
                           int *precision, double *weight_bytes, double *kv_bytes)
{
    int prec = in_enum(in, i_precision);
    int act = i_act >= 0 && in_has(in, i_act) ? in_enum(in, i_act) : prec;
    /* Storage defaults to `precision`; stated only when compute differs. */
    double dflt = act != prec ? precision_bytes(prec) : 0.0;
    *precision = act;
    *weight_bytes = i_weight >= 0 && in_has(in, i_weight) ? format_bytes(in_enum(in, i_weight)) : dflt;
    *kv_bytes = i_kv >= 0 && in_has(in, i_kv) ? format_bytes(in_enum(in, i_kv)) : dflt;
}

double llm_peak_flops(const hw_node *hw, int precision)
{
    const hw_precision_flops *pf = hw_find_precision(hw, PRECISION_KEYS[precision]);
    return pf ? pf->flops : hw->peak_flops;
}

double llm_kv_cache_bytes(const model_t *m, double seq_len, double batch, double b)
{
    /* Multi-Head Latent Attention (DeepSeek-V2/V3 report) caches one
     * compressed latent plus the decoupled RoPE key per token per layer:
     * L (kv_lora_rank + qk_rope_head_dim) S B b, no K/V factor of 2
     * (physics/memory.py calc_mla_cache_size, which solvers.md §H.9 leaves
     * unread). */
    if (m->kv_lora_rank > 0 && m->qk_rope_head_dim > 0)
        return (double)m->layers * (m->kv_lora_rank + m->qk_rope_head_dim) * seq_len * batch * b;
    attn_dims d = llm_attn_dims(m);
    /* K and V, per layer, per KV head (grouped-query attention shares them). */
    return 2.0 * m->layers * d.kv_heads * d.head_dim * seq_len * batch * b;
}

int serving_check_seq_len(double seq_len, const char *field, solver_error *err)
{
    if (seq_len < 1)
        return solver_fail(err, field, "seq_len (%.0f) must be >= 1", seq_len);
    return 0;
}

int serving_check_efficiency(double e, bool was_int, const char *field, solver_error *err)
{
    if (e <= 0.0 || e > 1.0) {
        char v[40];
        if (was_int)
            snprintf(v, sizeof v, "%.0f", e);
        else
            fmt_pyrepr(v, sizeof v, e);
        return solver_fail(err, field, "efficiency (%s) must be > 0 and <= 1", v);
    }
    return 0;
}

/* Prefill FLOPs of `tokens` new tokens per sequence attending over the
 * full context S: 2 N t B (linear layers) + 4 L H d_h t S B (attention). */
static double prefill_flops(const model_t *m, const attn_dims *d, double tokens, double seq_len, double batch)
{
    return 2.0 * m->parameters * tokens * batch + 4.0 * d->layers * d->heads * d->head_dim * tokens * seq_len * batch;
}

serving_result serving_solve(const serving_params *p)
{
    serving_result r = {0};
    const model_t *m = p->model;
    double b = p->weight_bytes > 0 ? p->weight_bytes : precision_bytes(p->precision);
    double b_kv = p->kv_bytes > 0 ? p->kv_bytes : precision_bytes(p->precision);
    double rate = llm_peak_flops(p->hw, p->precision) * p->efficiency;
    attn_dims d = llm_attn_dims(m);

    /* 1-3. Prefill over the tokens not already cached; optional chunking
     * (Sarathi-Serve) adds one dispatch per chunk and bounds the decode
     * stall by the slowest (the first, fullest) chunk. */
    double n_new = fmax(1.0, p->seq_len - p->cached_prefix);
    double t_prefill = prefill_flops(m, &d, n_new, p->seq_len, p->batch) / rate;
    r.chunks = 1;
    if (p->chunk_tokens > 0) {
        r.chunks = fmax(1.0, ceil(n_new / p->chunk_tokens));
        double first = fmin(p->chunk_tokens, n_new);
        r.chunk_time = prefill_flops(m, &d, first, p->seq_len, p->batch) / rate + p->hw->dispatch_tax;
    }
    r.ttft = t_prefill + p->hw->dispatch_tax * r.chunks;

    /* 4-5. KV cache of the full sequence; disaggregated decode ships it. */
    r.kv_cache = llm_kv_cache_bytes(m, p->seq_len, p->batch, b_kv);
    const hw_node *dec = p->hw;
    if (p->decode_hw) {
        r.ttft += r.kv_cache / p->network_bw;
        dec = p->decode_hw;
    }
    r.decode_node = dec;

    /* 6. Decode: every step streams the weights and the KV cache. */
    r.weights = m->parameters * b;
    double itl = (r.weights + r.kv_cache) / dec->mem_bandwidth + m->layers * LLM_LAYER_TAX_S;

    /* 7. Speculative decoding (Leviathan et al. 2023): K draft steps plus one
     * verification step yield 1 + a(1 - a^K)/(1 - a) tokens on average. */
    r.total = r.weights + r.kv_cache;
    if (p->draft) {
        double w_draft = p->draft->parameters * b;
        double t_draft = (w_draft + llm_kv_cache_bytes(p->draft, p->seq_len, p->batch, b_kv)) / dec->mem_bandwidth;
        double k = LLM_SPECULATIVE_GAMMA, a = p->acceptance;
        double expected = a < 1.0 ? 1 + a * (1 - pow(a, k)) / (1 - a) : 1 + k;
        itl = (t_draft * k + itl) / expected;
        r.total += w_draft;
    }
    r.itl = itl;

    /* 8-9. Memory wall on the decode node. */
    r.feasible = r.total <= dec->mem_capacity;
    r.memory_utilization = r.total / dec->mem_capacity;
    r.cache_hit_ratio = p->cached_prefix / p->seq_len;
    return r;
}

cb_result cb_solve(const model_t *m, const hw_node *hw, double seq_len, double max_batch, double page_size,
                   int precision, double efficiency, double weight_bytes, double kv_bytes)
{
    cb_result r = {0};
    double wb = weight_bytes > 0 ? weight_bytes : precision_bytes(precision);
    double b = kv_bytes > 0 ? kv_bytes : precision_bytes(precision);
    attn_dims d = llm_attn_dims(m);

    /* 1. TTFT of a full batch of prompts. */
    r.ttft = prefill_flops(m, &d, seq_len, seq_len, max_batch) / (llm_peak_flops(hw, precision) * efficiency) +
             hw->dispatch_tax;

    /* 2. What memory the weights leave for KV pages. */
    r.weights = m->parameters * wb;
    r.kv_budget = hw->mem_capacity - r.weights;
    if (r.kv_budget <= 0) {
        r.itl = 1000.0; /* upstream's sentinel: 1,000,000 ms */
        r.speedup = 1.0;
        return r;
    }

    /* 3. calc_paged_kv_cache_size (§H.9): one sequence padded to whole pages. */
    double padded = ceil(seq_len / page_size) * page_size;
    r.fragmentation = padded > 0 ? (padded - seq_len) / padded : 0.0;
    double per_seq = 2.0 * m->layers * d.kv_heads * d.head_dim * padded * b;

    /* 4-5. Requests that fit, and the decode step that streams them. */
    double fit = trunc(r.kv_budget / per_seq);
    r.active = fmin(fit, max_batch);
    r.paged_kv = per_seq * r.active;
    r.itl = (r.weights + r.paged_kv) / hw->mem_bandwidth;
    r.feasible = r.active > 0;

    /* 6. Against static batching, which fragmentation holds to 60 % of the
     * batch (Kwon et al. 2023). */
    r.speedup = 1.0;
    if (r.active == 0 || r.itl == 0)
        return r;
    r.throughput = r.active / r.itl;
    double n_static = fmax(1.0, trunc(r.active * 0.6));
    double t_static = (r.weights + per_seq * n_static) / hw->mem_bandwidth;
    double static_tp = n_static / t_static;
    if (static_tp > 0)
        r.speedup = r.throughput / static_tp;
    return r;
}

void llm_format_gb(double bytes, char *buf, unsigned long n)
{
    char num[40];
    fmt_double(num, sizeof num, bytes / 1e9);
    snprintf(buf, n, "%s GB", num);
}
