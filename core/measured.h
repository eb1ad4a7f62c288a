/* measured.h - measured mode's physics: the terms the first-order model
 * leaves out and published measurements show matter, priced with the fitted
 * parameters of core/calibration.h.
 *
 *  - single node: compute at a fitted fraction of peak per kind of work
 *    (convolution, dense GEMM, attention that grows with the square of the
 *    sequence), plus activation and normalisation traffic (what makes
 *    depthwise networks memory-bound), weight and optimizer traffic, and a
 *    kernel-launch cost per layer; 8-bit inference runs in a compiled
 *    engine's fused kernels (one per CNN layer, each activation written and
 *    read once, attention scores kept on chip); a training step that does
 *    not fit recomputes its forward pass instead of spilling;
 *  - serving: prefill with causal attention, its weight reads only partly
 *    hidden under its compute, and its launch time per layer; decode at the
 *    achieved memory bandwidth with the experts a batch actually touches;
 *    both split over tp accelerators with two all-reduces per layer;
 *  - sharded training: model FLOPs at a fitted fraction of peak (routed
 *    experts' at a share that falls with their tokens per micro-batch), the
 *    tensor-parallel all-reduces, the expert all-to-all, the pipeline bubble
 *    of micro-batches, the exposed share of the gradient all-reduce and the
 *    optimizer pass;
 *  - everywhere: fp32 runs on the vector units where the catalog states no
 *    fp32 rate.
 *
 * Every term is named in the answer's trace. An input the client gave
 * (efficiency, microbatch_count, ...) wins over the fitted value.
 *
 * Callers: core/roofline.c, core/llm.c (serving), core/distributed.c, and
 * the error-band look-up of the solvers they serve. */
#ifndef MLSYSD_MEASURED_H
#define MLSYSD_MEASURED_H

#include <math.h>
#include <stdbool.h>

#include "core/calibration.h"
#include "core/distributed.h"
#include "core/llm.h"
#include "core/roofline.h"

/* single_node (and pipeline's roofline): replace r's times, throughput,
 * bottleneck, MFU and energy with measured mode's. `peak_stated` is the rate
 * the precision computes at, as mlsysim chose it (fp32 without a stated rate
 * is scaled to the vector units'). */
void measured_roofline(const roofline_query *q, double peak_stated, roofline_result *r, solver_outputs *msgs);

/* serving: TTFT and ITL of p at tensor-parallel degree tp (>= 1), in
 * measured mode when `measured`, else mlsysim's times split over tp (tp 1:
 * mlsysim's exactly). Overwrites r->ttft and r->itl; r's memory fields are
 * per accelerator already. */
void serving_times(const serving_params *p, double tp, bool measured, bool efficiency_given, serving_result *r,
                   solver_outputs *msgs);

/* ServingModel at tensor-parallel degree tp in either mode: serving_solve,
 * the memory wall per accelerator (weights and KV cache split over tp), and
 * serving_times when tp > 1 or measured. tp 1 in mlsysim mode is
 * serving_solve's answer exactly. Trace lines go to msgs unless it is quiet. */
serving_result serving_answer(const serving_params *p, double tp, calibration_mode mode, bool efficiency_given,
                              solver_outputs *msgs);

/* distributed (step_model sharded or not): the whole step in measured mode.
 * The *_given flags say which of q's inputs the request gave (the others come
 * from the fitted table: efficiency, and the pipeline's interleaving). */
int measured_training_step(const distributed_query *q, bool efficiency_given, bool microbatches_given,
                           bool v_stages_given, distributed_result *r, solver_outputs *msgs, solver_error *err);

/* Which family of measurements covers a single_node answer. */
calib_family measured_single_node_family(const model_t *m, bool training);

/* --- one iteration of a continuous-batching server (serving_simulation) -----
 *
 * An iteration runs prefill chunks (n new tokens of a sequence whose first c
 * tokens are already cached) beside decode steps (one token of a sequence of
 * context ctx). Its time is affine in the aggregates below except for a
 * roofline max between compute and memory traffic; serving_iteration_cost()
 * prices the coefficients once, in either mode, so that
 *   - an iteration of one whole prompt and nothing else costs serving's ttft
 *     for that prompt (batch 1, no chunking, no cached prefix), and
 *   - an iteration of B decode steps at context S costs serving's itl at
 *     seq_len S, batch B (no draft model, no disaggregation),
 * exactly, at any tp. An iteration with prefill hides prefill_overlap of
 * the smaller of its compute and its memory traffic behind the larger (all
 * of it in mlsysim mode), so decodes riding on a prefill's compute
 * (Sarathi-Serve's piggybacking) cost little; a decode-only iteration hides
 * all of it. */
typedef struct {
    double prefill_tokens;      /* sum of n over prefill chunks */
    double prefill_attn_full;   /* sum of n (c + n): mlsysim's full attention over the context */
    double prefill_attn_causal; /* sum of n (c + n / 2): causal attention */
    double decode_seqs;         /* sequences decoding one token */
    double decode_ctx;          /* sum of their contexts, tokens (KV cache read) */
} serving_iteration;

typedef struct {
    /* compute, s per unit */
    double c_prefill_token, c_attn_full, c_attn_causal, c_decode_seq, c_decode_ctx;
    /* memory traffic, s: weights read by an iteration with prefill, by a
     * decode-only one (dense: all of them; with experts, the shared part plus
     * the experts touched: 1 - moe_miss^B of moe_experts), KV per context token */
    double m_weights_prefill, m_weights_decode, moe_shared, moe_experts, moe_miss;
    bool prefill_reads_weights; /* measured mode: prefill reads the weights beside its compute */
    double prefill_overlap;     /* share of the smaller of compute and memory hidden when prefilling */
    double m_kv_token;
    /* tensor-parallel all-reduces per iteration: fixed + per token */
    double ar_fixed, ar_token;
    /* fixed costs, s: every iteration, an iteration with prefill (dispatch),
     * with decode (mlsysim's per-layer tax), per decode sequence; measured
     * mode adds the prefill launch time to fixed_prefill */
    double fixed_iteration, fixed_prefill, fixed_decode, per_decode_seq;
    /* memory of one replica (tp accelerators), B */
    double weight_bytes, kv_bytes_per_token;
} serving_iter_cost;

/* The coefficients for p's model, hardware, precision and efficiency at
 * tensor-parallel degree tp, in measured mode when `measured` (the fitted
 * terms serving_times() uses), else mlsysim's arithmetic split over tp.
 * p's seq_len, batch, draft, decode_hw, cached_prefix and chunk_tokens are
 * not read. */
void serving_iteration_cost(const serving_params *p, double tp, bool measured, bool efficiency_given,
                            serving_iter_cost *c);

/* The time of one iteration, s (0 for an empty one). */
static inline double serving_iteration_time(const serving_iter_cost *c, const serving_iteration *it)
{
    const bool pre = it->prefill_tokens > 0, dec = it->decode_seqs > 0;
    if (!pre && !dec)
        return 0.0;
    double compute = c->c_prefill_token * it->prefill_tokens + c->c_attn_full * it->prefill_attn_full +
                     c->c_attn_causal * it->prefill_attn_causal + c->c_decode_seq * it->decode_seqs +
                     c->c_decode_ctx * it->decode_ctx;
    double memory = 0.0;
    if (pre) {
        if (c->prefill_reads_weights || dec)
            memory = c->m_weights_prefill;
    } else if (c->moe_experts > 0) {
        memory = c->moe_shared + c->moe_experts * (1.0 - pow(c->moe_miss, it->decode_seqs));
    } else {
        memory = c->m_weights_decode;
    }
    if (dec)
        memory += c->m_kv_token * it->decode_ctx;
    double t = compute > memory ? compute : memory;
    if (pre && c->prefill_overlap < 1.0) /* the share of the smaller the larger does not hide */
        t += (1.0 - c->prefill_overlap) * (compute > memory ? memory : compute);
    t += c->fixed_iteration;
    if (c->ar_token > 0 || c->ar_fixed > 0)
        t += c->ar_fixed + c->ar_token * (it->prefill_tokens + it->decode_seqs);
    if (pre)
        t += c->fixed_prefill;
    if (dec)
        t += c->fixed_decode + c->per_decode_seq * it->decode_seqs;
    return t;
}

#endif
