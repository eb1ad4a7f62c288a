/* serving.c - serving: mlsysim ServingModel (reference/solvers.md §8), the
 * two phases of LLM inference: compute-bound prefill (TTFT) and
 * memory-bound decode (inter-token latency), the KV cache and the memory
 * wall, with prefix caching, chunked prefill, speculative decoding and
 * disaggregated prefill/decode hardware. The arithmetic is serving_solve()
 * in core/llm.c; this file is the descriptor, the validation and the
 * outputs. */
#include <math.h>
#include <stdio.h>

#include "core/llm.h"
#include "core/measured.h"
#include "core/numfmt.h"
#include "core/solver.h"

#define DEFAULT_NETWORK_BW 100e9 /* B/s: 100 GB/s between prefill and decode nodes */

enum {
    I_MODEL, I_HARDWARE, I_SEQ_LEN, I_BATCH, I_PRECISION, I_EFFICIENCY, I_DECODE_HW, I_NETWORK_BW, I_DRAFT,
    I_ACCEPTANCE, I_CACHED, I_CHUNK, I_TP, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, I_N
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The served LLM (a TransformerWorkload): Llama3_70B, GPT2, Mixtral_8x7B, ..."),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("The serving node; with decode_hardware, the prefill node"),
    [I_SEQ_LEN] = {.name = "seq_len", .kind = IN_INTEGER, .int_max = 1e9,
                   .description = "Context length in tokens (prompt, including any cached prefix)"},
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .int_max = 1e9,
                 .description = "Sequences served together"},
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Fraction of peak compute prefill achieves, in (0, 1]"},
    [I_DECODE_HW] = {.name = "decode_hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE), .nullable = true,
                     .description = "Disaggregated serving: the decode node (null: decode on hardware); the KV "
                                    "cache crosses network_bandwidth once per request"},
    [I_NETWORK_BW] = {.name = "network_bandwidth", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s",
                      .has_default = true, .def_num = DEFAULT_NETWORK_BW,
                      .description = "Prefill -> decode link for disaggregated serving (default 100 GB/s)"},
    [I_DRAFT] = {.name = "draft_model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL), .nullable = true,
                 .description = "Speculative decoding: the draft model (null: none); it proposes 4 tokens a step"},
    [I_ACCEPTANCE] = {.name = "draft_acceptance_rate", .kind = IN_NUMBER, .has_default = true, .def_num = 0.7,
                      .description = "Probability a draft token is accepted, in [0, 1]"},
    [I_CACHED] = {.name = "cached_prefix_len", .kind = IN_INTEGER, .has_default = true, .def_num = 0,
                  .int_max = 1e9,
                  .description = "Prefix caching: prompt tokens whose KV cache is already resident (skip prefill)"},
    [I_CHUNK] = {.name = "prefill_chunk_tokens", .kind = IN_INTEGER, .nullable = true, .int_max = 1e9,
                 .description = "Chunked prefill: at most this many new tokens per chunk (null: one chunk)"},
    [I_TP] = IN_DEGREE("tp", "Tensor-parallel degree: weights and KV cache split over tp accelerators of one node, "
                             "two all-reduces per layer over its scale-up link (1: one accelerator, mlsysim's "
                             "answer)"),
    [I_WEIGHT_PREC] = LLM_INPUT_WEIGHT_PRECISION,
    [I_KV_PREC] = LLM_INPUT_KV_PRECISION,
    [I_ACT_PREC] = LLM_INPUT_ACTIVATION_PRECISION,
};

/* --- validation, in ServingModel's order ----------------------------------- */

/* A number as Python prints it in the message: an int as an int. */
static void py_number(const solver_inputs *in, int i, char *buf, size_t n)
{
    if (in_was_int(in, i))
        snprintf(buf, n, "%.0f", in_num(in, i));
    else
        fmt_pyrepr(buf, n, in_num(in, i));
}

static int check_seq_len(const solver_inputs *in, solver_error *err)
{
    return serving_check_seq_len(in_num(in, I_SEQ_LEN), "seq_len", err);
}

static int check_batch(const solver_inputs *in, solver_error *err)
{
    if (in_num(in, I_BATCH) < 1)
        return solver_fail(err, "batch_size", "batch_size (%.0f) must be >= 1", in_num(in, I_BATCH));
    return 0;
}

static int check_efficiency(const solver_inputs *in, solver_error *err)
{
    return serving_check_efficiency(in_num(in, I_EFFICIENCY), in_was_int(in, I_EFFICIENCY), "efficiency", err);
}

static int check_cached_nonneg(const solver_inputs *in, solver_error *err)
{
    if (in_num(in, I_CACHED) < 0)
        return solver_fail(err, "cached_prefix_len", "cached_prefix_len (%.0f) must be >= 0", in_num(in, I_CACHED));
    return 0;
}

static int check_cached_below_seq(const solver_inputs *in, solver_error *err)
{
    if (in_num(in, I_CACHED) >= in_num(in, I_SEQ_LEN))
        return solver_fail(err, "cached_prefix_len", "cached_prefix_len (%.0f) must be < seq_len (%.0f)",
                           in_num(in, I_CACHED), in_num(in, I_SEQ_LEN));
    return 0;
}

static int check_acceptance(const solver_inputs *in, solver_error *err)
{
    double a = in_num(in, I_ACCEPTANCE);
    if (a < 0.0 || a > 1.0) {
        char v[40];
        py_number(in, I_ACCEPTANCE, v, sizeof v);
        return solver_fail(err, "draft_acceptance_rate", "draft_acceptance_rate (%s) must be between 0 and 1", v);
    }
    return 0;
}

static int check_chunk(const solver_inputs *in, solver_error *err)
{
    if (in_has(in, I_CHUNK) && in_num(in, I_CHUNK) <= 0)
        return solver_fail(err, "prefill_chunk_tokens", "prefill_chunk_tokens (%.0f) must be positive",
                           in_num(in, I_CHUNK));
    return 0;
}

static int check_network_bw(const solver_inputs *in, solver_error *err)
{
    double bw = in_num(in, I_NETWORK_BW);
    if (bw <= 0) {
        /* Pint's "~P" form of the quantity, here in the declared unit. */
        char v[40];
        double shown = bw;
        units_to(bw, "GB/s", DIM_BYTE_RATE, &shown);
        if (in_was_int(in, I_NETWORK_BW))
            snprintf(v, sizeof v, "%.0f", shown);
        else
            fmt_pyrepr(v, sizeof v, shown);
        return solver_fail(err, "network_bandwidth", "network_bandwidth (%s GB/s) must be positive", v);
    }
    return 0;
}

static const char *const R_SEQ[] = {"seq_len", NULL};
static const char *const R_BATCH[] = {"batch_size", NULL};
static const char *const R_EFF[] = {"efficiency", NULL};
static const char *const R_CACHED[] = {"cached_prefix_len", NULL};
static const char *const R_CACHED_SEQ[] = {"cached_prefix_len", "seq_len", NULL};
static const char *const R_ACC[] = {"draft_acceptance_rate", NULL};
static const char *const R_CHUNK[] = {"prefill_chunk_tokens", NULL};
static const char *const R_BW[] = {"network_bandwidth", NULL};

static const input_constraint CONSTRAINTS[] = {
    {.rule = "seq_len >= 1", .inputs = R_SEQ, .check = check_seq_len},
    {.rule = "batch_size >= 1", .inputs = R_BATCH, .check = check_batch},
    {.rule = "0 < efficiency <= 1", .inputs = R_EFF, .check = check_efficiency},
    {.rule = "cached_prefix_len >= 0", .inputs = R_CACHED, .check = check_cached_nonneg},
    {.rule = "cached_prefix_len < seq_len", .inputs = R_CACHED_SEQ, .check = check_cached_below_seq},
    {.rule = "0 <= draft_acceptance_rate <= 1", .inputs = R_ACC, .check = check_acceptance},
    {.rule = "prefill_chunk_tokens > 0 (when given)", .inputs = R_CHUNK, .check = check_chunk},
    {.rule = "network_bandwidth > 0", .inputs = R_BW, .check = check_network_bw},
};

/* --- run ------------------------------------------------------------------------ */

enum {
    O_FEASIBLE, O_TTFT, O_ITL, O_KV, O_WEIGHTS, O_TOTAL, O_MEM_UTIL, O_HIT, O_CHUNKS, O_CHUNK_TIME, O_STALL,
    O_MAX_BATCH, O_MAX_SEQ, O_N
};

static const output_desc OUTPUTS[O_N] = {
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "Weights + KV cache (+ draft weights), split over tp, fit each accelerator's memory",
                    .categorical = true},
    [O_TTFT] = {.name = "ttft", .kind = OUT_NUMBER, .unit = "ms",
                .description = "Time to first token: prefill of the uncached tokens + dispatch per chunk (+ KV "
                               "transfer when disaggregated)"},
    [O_ITL] = {.name = "itl", .kind = OUT_NUMBER, .unit = "ms",
               .description = "Inter-token latency: (weights + KV cache) / memory bandwidth + per-layer tax "
                              "(speculative: per expected accepted token)"},
    [O_KV] = {.name = "kv_cache", .kind = OUT_NUMBER, .unit = "B",
              .description = "KV cache of the whole batch at seq_len, in kv_precision"},
    [O_WEIGHTS] = {.name = "model_weights", .kind = OUT_NUMBER, .unit = "B",
                   .description = "Weights: parameters x bytes per element of weight_precision"},
    [O_TOTAL] = {.name = "total_memory", .kind = OUT_NUMBER, .unit = "B",
                 .description = "Weights + KV cache (+ draft weights)"},
    [O_MEM_UTIL] = {.name = "memory_utilization", .kind = OUT_NUMBER, .unit = "",
                    .description = "total_memory / (tp x decode node memory): the share of each accelerator's "
                                   "memory"},
    [O_HIT] = {.name = "prompt_cache_hit_ratio", .kind = OUT_NUMBER, .unit = "",
               .description = "cached_prefix_len / seq_len"},
    [O_CHUNKS] = {.name = "prefill_chunks", .kind = OUT_INTEGER, .unit = "",
                  .description = "Prefill chunks (1 without chunking)"},
    [O_CHUNK_TIME] = {.name = "prefill_chunk_time", .kind = OUT_NUMBER, .unit = "ms",
                      .description = "Slowest prefill chunk (null without chunking)", .nullable = true},
    [O_STALL] = {.name = "decode_stall_bound", .kind = OUT_NUMBER, .unit = "ms",
                 .description = "Longest a prefill chunk can stall ongoing decodes (null without chunking)",
                 .nullable = true},
    [O_MAX_BATCH] = {.name = "max_batch_at_seq_len", .kind = OUT_INTEGER, .unit = "",
                     .description = "Largest batch whose KV cache at seq_len fits beside the weights (and draft) in "
                                    "the decode node's memory x tp (0: the weights alone do not fit)"},
    [O_MAX_SEQ] = {.name = "max_seq_len_at_batch", .kind = OUT_INTEGER, .unit = "",
                   .description = "Longest context (tokens) whose KV cache at batch_size fits beside the weights "
                                  "(and draft) in the decode node's memory x tp (0: none)"},
};

/* ServingModel's constraint trace (most of a solve's time: five numbers
 * formatted), skipped when the caller discards it. */
static void trace_walls(solver_outputs *out, const serving_params *p, const serving_result *r)
{
    char need[48], weights[48], kv[48], have[48];
    llm_format_gb(r->total, need, sizeof need);
    llm_format_gb(r->weights, weights, sizeof weights);
    llm_format_gb(r->kv_cache, kv, sizeof kv);
    llm_format_gb(r->decode_node->mem_capacity, have, sizeof have);
    solver_trace(out, "Memory Wall: %s. Required %s (Weights: %s, KV Cache: %s) %s Available %s on %s.",
                 r->feasible ? "Passed" : "FAILED", need, weights, kv, r->feasible ? "<=" : ">", have,
                 r->decode_node->name);
    if (p->chunk_tokens > 0) {
        char t[40];
        fmt_double(t, sizeof t, r->chunk_time * 1e3);
        solver_trace(out, "Serving Wall: chunked prefill in %.0f chunks of up to %.0f tokens; a chunk stalls "
                          "decoding for at most %s ms.",
                     r->chunks, p->chunk_tokens, t);
    }
}

static int run_serving(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    serving_params p = {
        .model = in_model(in, I_MODEL), .hw = in_hw(in, I_HARDWARE), .seq_len = in_num(in, I_SEQ_LEN),
        .batch = in_num(in, I_BATCH), .precision = in_enum(in, I_PRECISION), .efficiency = in_num(in, I_EFFICIENCY),
        .decode_hw = in_hw(in, I_DECODE_HW), .network_bw = in_num(in, I_NETWORK_BW), .draft = in_model(in, I_DRAFT),
        .acceptance = in_num(in, I_ACCEPTANCE), .cached_prefix = in_num(in, I_CACHED),
        .chunk_tokens = in_has(in, I_CHUNK) ? in_num(in, I_CHUNK) : 0};
    llm_tensor_precisions(in, I_PRECISION, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, &p.precision, &p.weight_bytes,
                          &p.kv_bytes);
    if (llm_require_transformer(p.model, "model", err) != 0 ||
        (p.draft && llm_require_transformer(p.draft, "draft_model", err) != 0))
        return -1;
    serving_result r = serving_answer(&p, in_num(in, I_TP), in->calibration, !in->v[I_EFFICIENCY].defaulted, out);
    if (!out->quiet)
        trace_walls(out, &p, &r);

    out_bool(out, O_FEASIBLE, r.feasible);
    out_num(out, O_TTFT, r.ttft * 1e3);
    out_num(out, O_ITL, r.itl * 1e3);
    out_num(out, O_KV, r.kv_cache);
    out_num(out, O_WEIGHTS, r.weights);
    out_num(out, O_TOTAL, r.total);
    out_num(out, O_MEM_UTIL, r.memory_utilization);
    out_num(out, O_HIT, r.cache_hit_ratio);
    out_int(out, O_CHUNKS, r.chunks);
    if (p.chunk_tokens > 0) {
        out_num(out, O_CHUNK_TIME, r.chunk_time * 1e3);
        out_num(out, O_STALL, r.chunk_time * 1e3);
    } else {
        out_null(out, O_CHUNK_TIME);
        out_null(out, O_STALL);
    }
    /* What fits: the memory the weights (and the draft) leave over tp
     * accelerators, in KV cache per sequence at seq_len or per token at the batch. */
    const hw_node *dec = p.decode_hw ? p.decode_hw : p.hw;
    double room = dec->mem_capacity * in_num(in, I_TP) - (r.total - r.kv_cache);
    double kv_seq = r.kv_cache / p.batch, kv_token = kv_seq / p.seq_len;
    out_int(out, O_MAX_BATCH, room > 0 && kv_seq > 0 ? floor(room / kv_seq) : 0);
    out_int(out, O_MAX_SEQ, room > 0 && kv_token > 0 ? floor(room / (kv_token * p.batch)) : 0);
    return 0;
}

static const char *const TTFT[] = {"ttft", NULL};
static const char *const ITL[] = {"itl", NULL};

static int serving_families(const solver_inputs *in, solver_band *bands)
{
    (void)in;
    bands[0] = (solver_band){CF_LLM_PREFILL, TTFT};
    bands[1] = (solver_band){CF_LLM_DECODE, ITL};
    return 2;
}

static const char *const ALIASES[] = {"ServingModel", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"batch_size", "ttft", +1},
    {"batch_size", "itl", +1},
    {"batch_size", "kv_cache", +1},
    {"batch_size", "total_memory", +1},
    {"batch_size", "memory_utilization", +1},
    {"batch_size", "feasible", -1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_SERVING = {
    .name = "serving",
    .aliases = ALIASES,
    .title = "LLM serving: time to first token, inter-token latency, KV cache and the memory wall",
    .description = "mlsysim ServingModel. Prefill is compute-bound (2N FLOPs per token plus O(S^2) attention at "
                   "the derated peak), decode is memory-bound (weights + KV cache streamed per token plus a "
                   "per-layer framework tax). Prefix caching skips cached prompt tokens; chunked prefill "
                   "(Sarathi-Serve) bounds decode stalls; speculative decoding (Leviathan et al. 2023) divides "
                   "the step by the expected accepted tokens; disaggregated serving (Splitwise, DistServe) "
                   "decodes on another node after shipping the KV cache (Pope et al. 2023).",
    .assumptions = "Prefill compute-bound at peak x efficiency, decode memory-bound reading weights and the KV cache "
                   "once per token, plus dispatch and per-layer taxes. Leaves out compute/memory overlap, attention "
                   "kernels' real efficiency, KV paging fragmentation, scheduling between requests and network "
                   "effects beyond the disaggregation transfer.",
    .measured_assumptions =
        "Measured mode: prefill matmuls and causal attention at fitted efficiencies, overlapping only in part with "
        "the weight reads, plus a fitted launch time per layer; decode reads the weights the batch's tokens touch "
        "(MoE: the experts they route to) and the KV cache at the achieved bandwidth, or is compute-bound at large "
        "batch, plus a fitted cost per layer and per sequence; two all-reduces per layer when tp > 1. Leaves out KV "
        "paging fragmentation, scheduling between requests (serving_simulation models it), prompts of different "
        "lengths within a batch and differences between serving engines and their versions.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .monotone = MONOTONE,
    .run = run_serving,
    .measured_families = serving_families,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":4096,\"batch_size\":4,"
                    "\"decode_hardware\":\"A100\",\"network_bandwidth\":\"400 Gbps\",\"prefill_chunk_tokens\":1024,"
                    "\"draft_model\":\"GPT2_Small\"}",
};
