/* measured.c - see measured.h. Each term below names the published finding
 * it stands for; the constants with a physical meaning (bytes of an Adam
 * update, activations per transformer layer) carry their source, and every
 * fitted number comes from the calibration rows (calib_row(): cv the
 * accelerator's, cd the decode accelerator's, cc the common values). */
#include "core/measured.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "core/comm.h"
#include "core/numfmt.h"
#include "core/precision.h"
#include "core/workload.h"

/* Adam with mixed precision (Rajbhandari et al. 2020): fp32 master weights,
 * momentum and variance (12 B) read and written, plus the 16-bit gradient
 * read and weight written: about 16 B per parameter of the optimizer pass. */
#define ADAM_PASS_BYTES 16.0
/* Kernels launched per layer, [transformer?][fused?]. A framework launches
 * a CNN layer as three (convolution, normalisation, activation) and a
 * transformer layer as eight (QKV, attention, projection, two
 * layer-norm/residual passes, two MLP matmuls and the activation). An 8-bit
 * engine (TensorRT and the like: the software that runs 8-bit CNNs and
 * encoders) fuses a convolution with its normalisation and activation into
 * one kernel (TensorRT's vertical conv + bias + ReLU fusion), but a
 * transformer layer keeps its distinct matmuls, attention and normalisations
 * (TensorRT's BERT: QKV, fused attention, projection + residual + norm, two
 * MLP matmuls, norm): eight either way. */
static const double KERNELS_PER_LAYER[2][2] = {{3.0, 1.0}, {8.0, 8.0}};
/* A fused engine's activation traffic: each tensor a layer keeps is written
 * once and read once by the next kernel (the normalisation and activation
 * passes a framework adds run in the producer's registers), and its fused
 * multi-head attention keeps the s x s scores on chip, so none are written. */
#define FUSED_ACT_PASSES 2.0
/* Korthikanti et al. (2022), Sec. 4: a transformer layer keeps 34 s b h
 * bytes plus 5 a s^2 b of attention scores at 16-bit: half as many elements. */
#define TF_ACT_ELEMS_PER_TOKEN_HIDDEN 17.0
#define TF_ACT_ELEMS_SCORES 2.5

/* The shape of a transformer as measured mode reads it. */
typedef struct {
    double layers, hidden, heads, kv_heads, head_dim;
    double total;   /* parameters */
    double active;  /* parameters a token passes through (MoE: active) */
    double matmul;  /* active parameters inside matrix multiplies: 2 x this is a token's forward flop */
} tf_shape;

static tf_shape tf_shape_of(const model_t *m)
{
    attn_dims d = llm_attn_dims(m);
    tf_shape s = {.layers = d.layers, .hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096, .heads = d.heads,
                  .kv_heads = d.kv_heads, .head_dim = d.head_dim, .total = m->parameters};
    s.active = (m->kind == WL_SPARSE_TRANSFORMER && m->active_parameters > 0) ? m->active_parameters : m->parameters;
    s.matmul = s.active;
    /* Multi-head models whose count exceeds the 12 L h^2 of their layers
     * carry an input embedding (a look-up, no FLOPs): leave it out, up to 30 %
     * of the count. Grouped-query models' counts are kept whole (their
     * layers are not 12 h^2 and their output projection is a real matmul). */
    if (!(s.kv_heads > 0 && s.kv_heads < s.heads) && m->hidden_dim > 0 && m->layers > 0) {
        double body = 12.0 * s.layers * s.hidden * s.hidden;
        double extra = s.active - body;
        if (extra > 0)
            s.matmul = s.active - fmin(extra, 0.3 * s.active);
    }
    return s;
}

/* The precisions compared by key below, found once (PRECISION_KEYS is constant). */
static int g_int4 = -1, g_int8 = -1, g_fp16 = -1, g_fp32 = -1;
static pthread_once_t g_keys_once = PTHREAD_ONCE_INIT;

static void keys_init(void)
{
    g_int4 = precision_find("int4");
    g_int8 = precision_find("int8");
    g_fp16 = precision_find("fp16");
    g_fp32 = precision_find("fp32");
}

static bool is_int4(int precision)
{
    pthread_once(&g_keys_once, keys_init);
    return precision == g_int4;
}

/* fp32 on the vector units: where the catalog states no fp32 rate, the
 * default peak it falls back to is the 16-bit tensor rate, which fp32 does
 * not use; it runs at a fitted share of it (NVIDIA's fp32 rate is 1/8 to
 * 1/16 of the 16-bit tensor rate). 1 otherwise. */
static double fp32_vector_share(const hw_node *hw, int precision)
{
    pthread_once(&g_keys_once, keys_init);
    if (precision != g_fp32 || hw_find_precision(hw, "fp32"))
        return 1.0;
    return calib_value(CP_FP32_VECTOR, NULL);
}

/* Names the fp32 term in the trace where it applies. */
static void trace_fp32(solver_outputs *msgs, const hw_node *hw, int precision)
{
    double share = fp32_vector_share(hw, precision);
    if (share != 1.0 && !msgs->quiet)
        solver_trace(msgs, "Measured: fp32 on the vector units at %.3g of %s's default peak (the catalog states no "
                           "fp32 rate).",
                     share, hw->name);
}

/* Peak rate of the arithmetic: weight-only int4 computes in 16-bit. */
static double compute_peak(const hw_node *hw, int precision)
{
    if (is_int4(precision))
        return llm_peak_flops(hw, g_fp16);
    return llm_peak_flops(hw, precision) * fp32_vector_share(hw, precision);
}

/* Bytes of one KV-cache or activation element of an LLM: 16-bit under
 * integer weights (weight-only quantization keeps activations in 16-bit). */
static double llm_act_bytes(int precision)
{
    if (is_int4(precision) || precision == g_int8)
        return 2.0;
    return precision_bytes(precision);
}

/* Scale-up link of an accelerator for tensor-parallel collectives. */
static double scale_up_bw(const hw_node *hw)
{
    if (hw->has_nvlink && hw->nvlink_bw > 0)
        return hw->nvlink_bw;
    if (hw->has_interconnect && hw->interconnect_bw > 0)
        return hw->interconnect_bw;
    return 64e9;
}

/* One ring all-reduce of `bytes` over n ranks: fitted latency + bytes at the
 * achieved share of the link. */
static double allreduce(const double *cc, double bytes, double n, double bw)
{
    if (n <= 1)
        return 0.0;
    return cc[CP_AR_LATENCY_S] + 2.0 * (n - 1.0) / n * bytes / (bw * cc[CP_LINK_EFF]);
}

/* The precision-class factor of calib_precision_factor(), from the common row. */
static double prec_factor(const double *cc, int precision)
{
    calib_param p = calib_precision_param(precision);
    return p == CP_N ? 1.0 : cc[p];
}

/* A term in the trace, to four significant digits (the outputs carry the
 * exact figures): "Measured: <what> %.4g ms (<how>)." composed in place, and
 * not at all when the trace is not kept. `what` and `how` are literals, so
 * the line's two fixed parts are joined when compiling. */
#define TRACE_MS(msgs, what, seconds, how) \
    trace_term(msgs, "Measured: " what " ", sizeof("Measured: " what " ") - 1, seconds, " ms (" how ").", \
               sizeof(" ms (" how ").") - 1)

static inline void trace_term(solver_outputs *msgs, const char *head, size_t head_len, double seconds,
                              const char *tail, size_t tail_len)
{
    solver_line l;
    if (!solver_line_open(msgs, &l))
        return;
    if (head_len + FMT_G4_MAX + tail_len < SOLVER_MESSAGE_LEN) { /* always, for the terms below */
        memcpy(l.dst, head, head_len);
        l.len = head_len + (size_t)fmt_g4(l.dst + head_len, FMT_G4_MAX, seconds * 1e3);
        memcpy(l.dst + l.len, tail, tail_len);
        l.len += tail_len;
    } else {
        char num[FMT_G4_MAX];
        solver_line_put(&l, head, head_len);
        solver_line_put(&l, num, (size_t)fmt_g4(num, sizeof num, seconds * 1e3));
        solver_line_put(&l, tail, tail_len);
    }
    solver_line_close(msgs, &l);
}

calib_family measured_single_node_family(const model_t *m, bool training)
{
    if (m->kind == WL_TRANSFORMER || m->kind == WL_SPARSE_TRANSFORMER)
        return CF_ENCODER;
    return training ? CF_CNN_TRAINING : CF_CNN_INFERENCE;
}

/* --- single node ------------------------------------------------------------------ */

void measured_roofline(const roofline_query *q, double peak_stated, roofline_result *r, solver_outputs *msgs)
{
    const model_t *m = q->model;
    const hw_node *hw = q->hw;
    const double *cv = calib_row(hw), *cc = calib_row(NULL);
    const double peak = peak_stated * fp32_vector_share(hw, q->precision);
    trace_fp32(msgs, hw, q->precision);
    const bool tf = m->kind == WL_TRANSFORMER || m->kind == WL_SPARSE_TRANSFORMER;
    /* Recomputation instead of spilling: a training step whose footprint
     * exceeds device memory (mlsysim's memory wall) while its model state
     * (16-bit weights and gradients, Adam's fp32 state: ADAM_PASS_BYTES per
     * parameter) fits recomputes the forward pass rather than streaming over
     * the host link; activations stay in device memory either way. */
    const bool recompute_to_fit = q->is_training && !r->feasible && !q->activation_recomputation &&
                                  m->parameters * ADAM_PASS_BYTES <= hw->mem_capacity;
    const double k = q->is_training ? (q->activation_recomputation || recompute_to_fit ? 4.0 : 3.0) : 1.0;
    const double pf = prec_factor(cc, q->precision);
    const double device_bw = hw->mem_bandwidth * cv[CP_MEM_EFF];
    const double bw = recompute_to_fit ? device_bw : r->bw_eff * cv[CP_MEM_EFF];
    const double act_bw = r->feasible ? bw : device_bw;
    if (recompute_to_fit && !msgs->quiet)
        solver_trace(msgs, "Measured: the step does not fit in %s's memory but its model state does: the forward "
                           "pass is recomputed (4/3 of the compute) instead of spilling.",
                     hw->name);
    const double pb = precision_bytes(q->precision);
    const double ab = pb; /* quantized CNNs and encoders keep activations in the format */
    /* 8-bit inference runs in a compiled engine: fused kernels (KERNELS_PER_LAYER, FUSED_ACT_PASSES). */
    const bool fused = !q->is_training && pb <= 1.0;
    const double b = q->batch_size;
    double flops, t_compute, act_elems, layers;

    if (tf) {
        tf_shape s = tf_shape_of(m);
        double sl = q->seq_len;
        double e_mm = q->efficiency_given ? q->efficiency : cv[CP_GEMM_EFF] * pf;
        double e_att = cv[CP_ATTN_EFF] * pf;
        double f_mm = 2.0 * s.matmul * sl * b * k;
        double f_att = 4.0 * s.layers * sl * sl * s.hidden * b * k; /* bidirectional (encoder) attention */
        flops = f_mm + f_att;
        t_compute = f_mm / (peak * e_mm) + f_att / (peak * e_att);
        act_elems = s.layers * (TF_ACT_ELEMS_PER_TOKEN_HIDDEN * sl * s.hidden +
                                (fused ? 0.0 : TF_ACT_ELEMS_SCORES) * s.heads * sl * sl);
        layers = s.layers;
        TRACE_MS(msgs, "matmuls", f_mm / (peak * e_mm), "2 x parameters x tokens at the fitted GEMM efficiency");
        TRACE_MS(msgs, "attention", f_att / (peak * e_att), "4 L s^2 h per sequence, growing with the square of seq_len");
    } else {
        double f = m->architecture_flops;
        if (isnan(f)) {
            lowered_graph g;
            solver_error ignore;
            f = workload_lower(m, pb, &g, &ignore) == 0 ? g.total_ops : 0.0;
        }
        double e = q->efficiency_given ? q->efficiency : cv[CP_CONV_EFF] * pf;
        flops = f * b * k;
        t_compute = flops / (peak * e);
        act_elems = isnan(m->activation_elements) ? 0.0 : m->activation_elements;
        layers = m->architecture_layers > 0 ? m->architecture_layers : workload_layer_count(m);
        TRACE_MS(msgs, "convolutions", t_compute, "layer FLOPs at the fitted convolution efficiency");
    }

    /* Activation traffic: every tensor a layer writes is read back, more so in
     * training (the backward pass reads what the forward kept and writes its
     * gradient). */
    const double kernels = KERNELS_PER_LAYER[tf][fused];
    if (fused && !msgs->quiet) {
        const char *line = tf ? "Measured: 8-bit engine: fused kernels write each activation once and read it once; "
                                "fused attention keeps the score matrix on chip."
                              : "Measured: 8-bit engine: each CNN layer runs as one fused kernel (convolution, "
                                "normalisation, activation) that writes its output once and the next reads it once.";
        solver_trace_parts(msgs, &line, 1);
    }
    double passes = fused ? FUSED_ACT_PASSES
                    : tf  ? cc[CP_TF_ACT_PASSES] * (q->is_training ? 3.0 : 1.0)
                    : cc[q->is_training ? CP_ACT_PASSES_TRAIN : CP_ACT_PASSES_INF];
    double t_act = b * act_elems * ab * passes / act_bw;
    if (act_elems > 0)
        TRACE_MS(msgs, "activation traffic", t_act, "activations written and read back at the achieved bandwidth");
    else if (!tf && !msgs->quiet)
        solver_trace(msgs, "Measured: %s has no activation_elements; its activation traffic is left out.", m->name);

    /* Weights: read once per pass; training adds the gradient and the Adam update. */
    double wbytes = m->parameters > 0 ? m->parameters : 0.0;
    double t_weights = q->is_training ? wbytes * (3.0 * pb + ADAM_PASS_BYTES) / bw
                                      : wbytes * pb / bw;

    /* Launch and framework time per layer, three passes in training. */
    double per_layer = cc[fused ? CP_LAYER_S_Q : CP_LAYER_S] * kernels;
    double t_launch = layers * per_layer * (q->is_training ? 3.0 : 1.0);
    TRACE_MS(msgs, "launch and framework time", t_launch, "fitted time per layer x layers");

    /* Layers are compute- or memory-bound in turn: the smaller of the two
     * totals is hidden only in part. */
    double t_memory = t_act + t_weights;
    double hidden = cc[CP_OVERLAP] * fmin(t_compute, t_memory);
    r->t_compute = t_compute;
    r->t_memory = t_memory;
    r->overhead = hw->dispatch_tax + t_launch;
    r->latency = t_compute + t_memory - hidden + r->overhead;
    r->memory_bound = t_memory > t_compute;
    double traffic = b * act_elems * ab * passes + wbytes * pb;
    r->intensity = traffic > 0 ? flops / traffic : INFINITY;
    r->throughput = r->latency > 0 ? b / r->latency : 0.0;
    r->mfu = (r->latency > 0 && peak > 0) ? fmin(fmax((flops / r->latency) / peak, 0.0), 1.0) : 0.0;
    r->hfu = fmin(1.1 * r->mfu, 1.0);
    r->energy = isnan(hw->tdp) ? 0.0 : hw->tdp * (0.30 + 0.70 * r->mfu) * r->latency;
    r->bw_eff = bw;
    r->flops_eff = t_compute > 0 ? flops / t_compute : r->flops_eff;
}

/* --- serving ---------------------------------------------------------------------- */

/* Parameters of the routed experts a token passes through (MoE: k of E
 * experts; the rest of its active parameters are attention, shared experts
 * and dense layers); 0 for a dense model. */
static double routed_active_params(const model_t *m)
{
    if (m->kind != WL_SPARSE_TRANSFORMER || !(m->active_parameters > 0) || m->experts < 2 ||
        m->active_experts_per_token < 1 || m->active_experts_per_token >= m->experts)
        return 0.0;
    double e = m->experts, k = m->active_experts_per_token;
    double experts_all = (m->parameters - m->active_parameters) * e / (e - k);
    return fmin(experts_all * k / e, m->active_parameters);
}

/* Parameters a decode step reads: with experts, only those the batch's
 * tokens route to (each of B tokens picks k of E experts). */
static double decode_read_params(const model_t *m, double batch)
{
    if (m->kind != WL_SPARSE_TRANSFORMER || !(m->active_parameters > 0) || m->experts < 2 ||
        m->active_experts_per_token < 1 || m->active_experts_per_token >= m->experts)
        return m->parameters;
    double e = m->experts, k = m->active_experts_per_token;
    double experts_all = (m->parameters - m->active_parameters) * e / (e - k);
    double shared = fmax(0.0, m->parameters - experts_all);
    double touched = 1.0 - pow(1.0 - k / e, batch);
    return shared + experts_all * touched;
}

void serving_times(const serving_params *p, double tp, bool measured, bool efficiency_given, serving_result *r,
                   solver_outputs *msgs)
{
    const model_t *m = p->model;
    const hw_node *hw = p->hw;
    const hw_node *dec = p->decode_hw ? p->decode_hw : hw;
    const double wb = precision_bytes(p->precision);
    const double n_new = fmax(1.0, p->seq_len - p->cached_prefix);
    double kv_transfer = p->decode_hw ? r->kv_cache / p->network_bw : 0.0;

    if (!measured) {
        /* mlsysim's prefill and decode, split over tp, with two ring
         * all-reduces of the activations per layer over the scale-up link. */
        const double hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
        attn_dims d = llm_attn_dims(m);
        double peak = llm_peak_flops(hw, p->precision) * p->efficiency;
        double f = 2.0 * m->parameters * n_new * p->batch + 4.0 * d.layers * d.heads * d.head_dim * n_new * p->seq_len * p->batch;
        double alpha = hw->has_nvlink && !isnan(hw->nvlink_latency) ? hw->nvlink_latency : COMM_INTRA_NODE_LATENCY;
        double ar_prefill = 0, ar_decode = 0;
        solver_error ignore;
        comm_ring_allreduce(p->batch * n_new * hidden * wb, tp, scale_up_bw(hw), alpha, "tp", &ar_prefill, &ignore);
        comm_ring_allreduce(p->batch * hidden * wb, tp, scale_up_bw(dec), alpha, "tp", &ar_decode, &ignore);
        r->ttft = f / (tp * peak) + 2.0 * d.layers * ar_prefill + hw->dispatch_tax * r->chunks + kv_transfer;
        double itl = (r->weights + r->kv_cache) / tp / dec->mem_bandwidth + m->layers * LLM_LAYER_TAX_S +
                     2.0 * d.layers * ar_decode;
        r->itl = itl;
        if (!msgs->quiet) {
            /* "Tensor parallelism: weights and KV cache split over %.0f accelerators; ..." */
            char tp_s[48];
            fmt_fixed(tp_s, sizeof tp_s, tp, 0);
            const char *parts[] = {"Tensor parallelism: weights and KV cache split over ", tp_s,
                                   " accelerators; two all-reduces per layer in prefill and in every decode step."};
            solver_trace_parts(msgs, parts, sizeof parts / sizeof parts[0]);
        }
        return;
    }

    tf_shape s = tf_shape_of(m);
    const double *cv = calib_row(hw), *cd = dec == hw ? cv : calib_row(dec), *cc = calib_row(NULL);
    const double pf = prec_factor(cc, p->precision);
    const double peak = compute_peak(hw, p->precision), peak_dec = dec == hw ? peak : compute_peak(dec, p->precision);
    const double e_mm = efficiency_given ? p->efficiency : cv[CP_GEMM_EFF] * pf;
    const double e_att = cv[CP_ATTN_EFF] * pf;
    trace_fp32(msgs, hw, p->precision);
    const double kvb = p->kv_bytes > 0 ? p->kv_bytes : llm_act_bytes(p->precision);
    const double wbw = p->weight_bytes > 0 ? p->weight_bytes : wb; /* weight_precision */
    const double kv = llm_kv_cache_bytes(m, p->seq_len, p->batch, kvb);

    /* Prefill: the new tokens through every matmul, causal attention over the
     * context (half the score matrix), weights read once, two all-reduces of
     * the activations per layer. */
    double f_mm = 2.0 * s.matmul * n_new * p->batch;
    double f_att = 2.0 * s.layers * s.hidden * n_new * p->seq_len * p->batch;
    double t_pc = (f_mm / e_mm + f_att / e_att) / (peak * tp);
    double t_pw = s.total * wbw / tp / (hw->mem_bandwidth * cv[CP_MEM_EFF]);
    double t_par = 2.0 * s.layers * allreduce(cc, p->batch * n_new * s.hidden * 2.0, tp, scale_up_bw(hw));
    /* A serving engine's fixed cost per layer, plus the prefill launch time:
     * a prefill's variable-shape kernels run outside the captured graphs. */
    double t_plaunch = s.layers * cc[CP_DECODE_LAYER_S];
    double t_prelaunch = s.layers * cc[CP_PREFILL_LAYER_S];
    /* Compute and weight reads overlap only in part: the larger, plus the
     * share of the smaller it does not hide (serving_iteration_time() prices
     * an iteration with prefill the same way). */
    double t_pexposed = (1.0 - cc[CP_PREFILL_OVERLAP]) * fmin(t_pc, t_pw);
    r->ttft = fmax(t_pc, t_pw) + t_pexposed + t_par + t_plaunch + t_prelaunch * r->chunks + hw->dispatch_tax * r->chunks +
              kv_transfer;

    /* Decode: the weights the batch touches and the KV cache, at the achieved
     * bandwidth, or the matmuls when the batch is large enough to be
     * compute-bound; two all-reduces and a fixed cost per layer. */
    double read = decode_read_params(m, p->batch) * wbw / tp + kv / tp;
    double t_dm = read / (dec->mem_bandwidth * cd[CP_MEM_EFF]);
    double t_dc = p->batch * (2.0 * s.matmul + 4.0 * s.layers * s.hidden * p->seq_len) /
                  (peak_dec * tp * (efficiency_given ? p->efficiency : cd[CP_GEMM_EFF] * pf));
    double t_dar = 2.0 * s.layers * allreduce(cc, p->batch * s.hidden * 2.0, tp, scale_up_bw(dec));
    double t_dfix = s.layers * cc[CP_DECODE_LAYER_S] + p->batch * cc[CP_DECODE_SEQ_S];
    double itl = fmax(t_dm, t_dc) + t_dar + t_dfix;
    if (p->draft) {
        /* Speculative decoding as mlsysim prices it, on measured times. */
        double w_draft = p->draft->parameters * wbw;
        double t_draft = (w_draft + llm_kv_cache_bytes(p->draft, p->seq_len, p->batch, kvb)) /
                         (dec->mem_bandwidth * cd[CP_MEM_EFF]);
        double kk = LLM_SPECULATIVE_GAMMA, a = p->acceptance;
        double expected = a < 1.0 ? 1 + a * (1 - pow(a, kk)) / (1 - a) : 1 + kk;
        itl = (t_draft * kk + itl) / expected;
    }
    r->itl = itl;

    TRACE_MS(msgs, "prefill compute and weight reads", fmax(t_pc, t_pw) + t_pexposed,
             "matmuls and causal attention at the fitted efficiencies, or the weight reads if longer, plus the "
             "fitted share of the shorter that the longer does not hide");
    TRACE_MS(msgs, "prefill launch time", t_prelaunch * r->chunks, "fitted time per layer of each prefill pass");
    if (tp > 1) {
        TRACE_MS(msgs, "prefill all-reduces", t_par, "two per layer over the scale-up link");
        TRACE_MS(msgs, "decode all-reduces", t_dar, "two per layer per step, latency-bound");
    }
    TRACE_MS(msgs, "decode memory", t_dm, "weights the batch touches + KV cache at the achieved bandwidth");
    TRACE_MS(msgs, "decode fixed cost", t_dfix, "fitted time per layer and per sequence per step");
}

serving_result serving_answer(const serving_params *p, double tp, calibration_mode mode, bool efficiency_given,
                              solver_outputs *msgs)
{
    serving_result r = serving_solve(p);
    const bool measured = mode == CALIBRATION_MEASURED;
    if (tp > 1) {
        const hw_node *dec = p->decode_hw ? p->decode_hw : p->hw;
        r.feasible = r.total / tp <= dec->mem_capacity;
        r.memory_utilization = r.total / tp / dec->mem_capacity;
    }
    if (tp > 1 || measured)
        serving_times(p, tp, measured, efficiency_given, &r, msgs);
    return r;
}

/* --- sharded training ---------------------------------------------------------------- */

int measured_training_step(const distributed_query *q, bool efficiency_given, bool microbatches_given,
                           bool v_stages_given, distributed_result *r, solver_outputs *msgs, solver_error *err)
{
    const model_t *m = q->model;
    const fleet_t *fleet = q->fleet;
    const node_t *node = &fleet->node;
    const hw_node *hw = &node->accelerator;
    const double n = fleet_total_accelerators(fleet);
    const double dp = floor(n / (q->tp * q->pp * q->ep));
    const double local = fmax(1.0, q->batch_size / dp); /* sequences per replica per step */
    const double seq = q->seq_len;
    const double *cv = calib_row(hw), *cc = calib_row(NULL);
    const double pf = prec_factor(cc, q->precision);
    const double peak = compute_peak(hw, q->precision);
    const double eff = efficiency_given ? q->efficiency : cv[CP_TRAIN_EFF] * pf;
    trace_fp32(msgs, hw, q->precision);
    const double gb = fmax(precision_bytes(q->precision), 2.0); /* gradients reduce in 16-bit or wider */
    const bool tf = m->kind == WL_TRANSFORMER || m->kind == WL_SPARSE_TRANSFORMER;
    (void)err;

    /* Model FLOPs per token: 6 x matmul parameters + causal attention (6 L s h
     * forward and backward); recomputation repeats the forward. */
    double flops;
    double layers, hidden;
    if (tf) {
        tf_shape s = tf_shape_of(m);
        flops = (6.0 * s.matmul + 6.0 * s.layers * seq * s.hidden) * q->batch_size * seq;
        layers = s.layers;
        hidden = s.hidden;
    } else {
        lowered_graph g;
        solver_error ignore;
        double f = !isnan(m->architecture_flops) ? m->architecture_flops
                   : workload_lower(m, precision_bytes(q->precision), &g, &ignore) == 0 ? g.total_ops : 0.0;
        flops = 3.0 * f * q->batch_size;
        layers = workload_layer_count(m);
        hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
    }
    if (q->activation_recomputation)
        flops *= 4.0 / 3.0;
    double t_compute = flops / (n * peak * eff);

    /* Micro-batches: as given, else one sequence each (what pipeline
     * schedules use when the micro-batch size is not stated). */
    double micro = microbatches_given ? q->microbatches : fmax(1.0, floor(local));
    double stage_layers = ceil(layers / q->pp);

    /* Expert GEMM fill: a routed expert's matmuls see only the tokens routed
     * to it, seq x k / E per sequence of a micro-batch, and reach the share
     * M / (M + M_half) of the dense efficiency (M_half fitted): fine-grained
     * experts run small, poorly filled GEMMs. */
    double t_fill = 0.0;
    double routed = tf ? routed_active_params(m) : 0.0;
    if (routed > 0) {
        double m_tok = local / micro * seq * m->active_experts_per_token / m->experts;
        double fill = m_tok / (m_tok + cc[CP_EXPERT_HALF_TOKENS]);
        double f_routed = 6.0 * routed * q->batch_size * seq * (q->activation_recomputation ? 4.0 / 3.0 : 1.0);
        t_fill = f_routed * (1.0 / fill - 1.0) / (n * peak * eff);
        t_compute += t_fill;
    }

    /* Tensor parallelism: 4 all-reduces of a micro-batch's activations per
     * layer of the stage (2 forward, 2 backward), in the node when it fits. */
    double t_tp = 0.0;
    if (q->tp > 1) {
        bool in_node = q->tp <= node->accelerators_per_node;
        double bw = in_node ? node->intra_node_bw : comm_fabric_bw(&fleet->fabric);
        double act = local / micro * seq * hidden * 2.0;
        t_tp = 4.0 * stage_layers * micro * allreduce(cc, act, q->tp, bw);
    }

    /* Expert parallelism: tokens to their experts and back, forward and backward. */
    double t_ep = 0.0;
    if (q->ep > 1) {
        double kexp = m->active_experts_per_token > 0 ? m->active_experts_per_token : 1;
        bool in_node = q->ep * q->tp <= node->accelerators_per_node;
        double bw = in_node ? node->intra_node_bw : comm_fabric_bw(&fleet->fabric);
        /* a replica's `local` sequences are spread over its ep ranks: each
         * rank sends its own tokens' copies (k per token) */
        double tokens = local / q->ep * seq * hidden * 2.0 * kexp * q->moe_imbalance / q->tp;
        t_ep = 4.0 * stage_layers * (q->ep - 1.0) / q->ep * tokens / (bw * cc[CP_LINK_EFF]);
    }

    /* Pipeline bubble of 1F1B over the micro-batches, divided by the model
     * chunks each stage interleaves: as given, else as schedules run them
     * (fitted; Megatron's virtual pipeline). */
    double v = v_stages_given ? q->v_stages : cc[CP_PP_INTERLEAVE];
    double bubble = q->pp > 1 ? (q->pp - 1.0) / (v * micro) : 0.0;
    double t_bubble = t_compute * bubble;

    /* Data parallelism: the gradients of one shard over the fabric, mostly
     * hidden behind the backward pass. */
    double t_dp = 0.0;
    if (dp > 1) {
        double grad = m->parameters / (q->tp * q->pp) * gb * (q->is_lora ? 0.01 : 1.0);
        double per_node = q->tp * q->pp * q->ep >= node->accelerators_per_node ? 1.0
                          : floor(node->accelerators_per_node / (q->tp * q->pp * q->ep));
        double bw = per_node >= dp ? node->intra_node_bw : comm_fabric_bw(&fleet->fabric);
        t_dp = allreduce(cc, grad, dp, bw) * cc[CP_DP_EXPOSED] / fmax(1.0, q->grad_accum_steps);
    }

    /* Optimizer: the Adam pass over this accelerator's share of the state. */
    double shard = m->parameters / (q->tp * q->pp) / (q->zero_stage >= 1 ? dp : 1.0);
    double t_opt = shard * ADAM_PASS_BYTES / (hw->mem_bandwidth * cv[CP_MEM_EFF]);

    double t_launch = stage_layers * micro * 3.0 * cc[CP_DECODE_LAYER_S]; /* an engine's cost per layer */

    t_tp *= q->congestion;
    t_ep *= q->congestion;
    t_dp *= q->congestion;
    double node_time = t_compute + t_opt + t_launch + hw->dispatch_tax;
    r->node.latency = node_time;
    r->dp = dp;
    r->t_dp = t_dp;
    r->t_tp = t_tp;
    r->t_ep = t_ep;
    r->t_comm = t_dp + t_tp + t_ep;
    r->bubble_fraction = bubble / (1.0 + bubble);
    r->t_bubble = t_bubble;
    r->step = node_time + r->t_comm + t_bubble;
    if (q->straggler > 1.0)
        r->step *= q->straggler;
    r->scaling_efficiency = node_time / r->step;
    r->throughput = q->batch_size / r->step;

    if (!msgs->quiet) {
        /* "Distributed Wall: dp=%.0f, tp=%.0f, pp=%.0f, ep=%.0f; step latency %s ms." without vsnprintf */
        char step_ms[40], dp_s[48], tp_s[48], pp_s[48], ep_s[48];
        fmt_pyrepr(step_ms, sizeof step_ms, r->step * 1e3);
        fmt_fixed(dp_s, sizeof dp_s, dp, 0);
        fmt_fixed(tp_s, sizeof tp_s, q->tp, 0);
        fmt_fixed(pp_s, sizeof pp_s, q->pp, 0);
        fmt_fixed(ep_s, sizeof ep_s, q->ep, 0);
        const char *parts[] = {"Distributed Wall: dp=", dp_s, ", tp=", tp_s, ", pp=", pp_s, ", ep=", ep_s,
                               "; step latency ", step_ms, " ms."};
        solver_trace_parts(msgs, parts, sizeof parts / sizeof parts[0]);
    }
    TRACE_MS(msgs, "training compute", t_compute, "6 x parameters x tokens + causal attention, at the fitted efficiency");
    if (t_fill > 0)
        TRACE_MS(msgs, "expert GEMM fill", t_fill, "routed experts' FLOPs beyond dense efficiency: few tokens per expert");
    if (q->tp > 1)
        TRACE_MS(msgs, "tensor-parallel all-reduces", t_tp, "4 per layer of the stage per micro-batch");
    if (q->ep > 1)
        TRACE_MS(msgs, "expert all-to-all", t_ep, "each rank's token copies to their experts and back, forward and backward");
    if (q->pp > 1 && v_stages_given)
        TRACE_MS(msgs, "pipeline bubble", t_bubble, "(pp - 1) / (v_stages x micro-batches) of the compute");
    else if (q->pp > 1)
        TRACE_MS(msgs, "pipeline bubble", t_bubble,
                 "(pp - 1) / (v x micro-batches) of the compute, v the fitted interleaving of schedules as run");
    if (dp > 1)
        TRACE_MS(msgs, "exposed gradient all-reduce", t_dp, "the fitted share not hidden by the backward pass");
    TRACE_MS(msgs, "optimizer pass", t_opt, "16 B per parameter of the shard at the achieved bandwidth");
    return 0;
}

/* --- one iteration of a continuous-batching server ---------------------------------- */

void serving_iteration_cost(const serving_params *p, double tp, bool measured, bool efficiency_given,
                            serving_iter_cost *c)
{
    const model_t *m = p->model;
    const hw_node *hw = p->hw;
    const double wb = precision_bytes(p->precision);
    *c = (serving_iter_cost){.prefill_overlap = 1.0};
    c->weight_bytes = m->parameters * wb;
    c->fixed_prefill = hw->dispatch_tax;
    if (measured) /* serving_times()'s prefill launch time */
        c->fixed_prefill += tf_shape_of(m).layers * calib_value(CP_PREFILL_LAYER_S, NULL);

    if (!measured) {
        /* serving_solve's prefill (2 N t + 4 L H d t S at peak x efficiency)
         * and decode ((weights + KV) / bandwidth + a tax per layer), split
         * over tp as serving_times() splits them, with its all-reduces. */
        attn_dims d = llm_attn_dims(m);
        const double rate = llm_peak_flops(hw, p->precision) * p->efficiency * tp;
        const double hidden = m->hidden_dim > 0 ? m->hidden_dim : 4096;
        c->c_prefill_token = 2.0 * m->parameters / rate;
        c->c_attn_full = 4.0 * d.layers * d.heads * d.head_dim / rate;
        c->m_weights_prefill = c->m_weights_decode = c->weight_bytes / tp / hw->mem_bandwidth;
        c->kv_bytes_per_token = llm_kv_cache_bytes(m, 1.0, 1.0, wb);
        c->m_kv_token = c->kv_bytes_per_token / tp / hw->mem_bandwidth;
        c->fixed_decode = m->layers * LLM_LAYER_TAX_S;
        if (tp > 1) {
            double alpha = hw->has_nvlink && !isnan(hw->nvlink_latency) ? hw->nvlink_latency : COMM_INTRA_NODE_LATENCY;
            c->ar_fixed = 2.0 * d.layers * 2.0 * (tp - 1.0) * alpha;
            c->ar_token = 2.0 * d.layers * 2.0 * (tp - 1.0) / tp * hidden * wb / scale_up_bw(hw);
        }
        return;
    }

    /* serving_times()'s measured prefill and decode, term by term. */
    tf_shape s = tf_shape_of(m);
    const double *cv = calib_row(hw), *cc = calib_row(NULL);
    const double pf = prec_factor(cc, p->precision);
    const double peak = compute_peak(hw, p->precision) * tp;
    const double e_mm = efficiency_given ? p->efficiency : cv[CP_GEMM_EFF] * pf;
    const double e_att = cv[CP_ATTN_EFF] * pf;
    const double bw = hw->mem_bandwidth * cv[CP_MEM_EFF] * tp;
    c->c_prefill_token = 2.0 * s.matmul / (peak * e_mm);
    c->c_attn_causal = 4.0 * s.layers * s.hidden / (peak * e_att);
    c->c_decode_seq = 2.0 * s.matmul / (peak * e_mm);
    c->c_decode_ctx = 4.0 * s.layers * s.hidden / (peak * e_mm);
    c->prefill_reads_weights = true;
    c->prefill_overlap = cc[CP_PREFILL_OVERLAP];
    c->m_weights_prefill = s.total * wb / bw;
    c->m_weights_decode = decode_read_params(m, 1.0) * wb / bw;
    if (decode_read_params(m, 1.0) < m->parameters) {
        /* decode_read_params(B) = shared + experts (1 - (1 - k/E)^B) */
        double e = m->experts, k = m->active_experts_per_token;
        double experts_all = (m->parameters - m->active_parameters) * e / (e - k);
        c->moe_shared = fmax(0.0, m->parameters - experts_all) * wb / bw;
        c->moe_experts = experts_all * wb / bw;
        c->moe_miss = 1.0 - k / e;
    }
    c->kv_bytes_per_token = llm_kv_cache_bytes(m, 1.0, 1.0, llm_act_bytes(p->precision));
    c->m_kv_token = c->kv_bytes_per_token / bw;
    if (tp > 1) {
        double link = scale_up_bw(hw) * cc[CP_LINK_EFF];
        c->ar_fixed = 2.0 * s.layers * cc[CP_AR_LATENCY_S];
        c->ar_token = 2.0 * s.layers * 2.0 * (tp - 1.0) / tp * s.hidden * 2.0 / link;
    }
    c->fixed_iteration = s.layers * cc[CP_DECODE_LAYER_S];
    c->per_decode_seq = cc[CP_DECODE_SEQ_S];
}
