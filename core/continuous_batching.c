/* continuous_batching.c - continuous_batching: mlsysim
 * ContinuousBatchingModel (reference/solvers.md §9, the version before
 * max_seq_len): how many requests PagedAttention fits beside the weights,
 * the decode throughput they give, and the speed-up over static batching
 * (Kwon et al. 2023; Yu et al. 2022, ORCA). The arithmetic is cb_solve() in
 * core/llm.c.
 *
 * mlsysim checks none of these inputs, and neither does this file: only
 * the zeros it divides by are refused, with its exception's text (an
 * efficiency of 0 always; page_size 0, or a sequence that fills no page,
 * only when the weights leave memory for KV pages). */
#include <math.h>

#include "core/llm.h"
#include "core/precision.h"
#include "core/solver.h"

enum {
    I_MODEL, I_HARDWARE, I_SEQ_LEN, I_MAX_BATCH, I_PAGE, I_PRECISION, I_EFFICIENCY, I_WEIGHT_PREC, I_KV_PREC,
    I_ACT_PREC, I_N
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The served LLM (a TransformerWorkload)"),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("The serving node"),
    [I_SEQ_LEN] = {.name = "seq_len", .kind = IN_INTEGER, .int_max = 1e9,
                   .description = "Tokens per request (KV cache reserved per sequence)"},
    [I_MAX_BATCH] = {.name = "max_batch_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
                     .int_max = 1e9,
                     .description = "Scheduler's cap on concurrent requests (0 admits none: infeasible)"},
    [I_PAGE] = {.name = "page_size", .kind = IN_INTEGER, .has_default = true, .def_num = 16, .int_max = 1e9,
                .description = "PagedAttention block size in tokens"},
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Fraction of peak compute prefill achieves"},
    [I_WEIGHT_PREC] = LLM_INPUT_WEIGHT_PRECISION,
    [I_KV_PREC] = LLM_INPUT_KV_PRECISION,
    [I_ACT_PREC] = LLM_INPUT_ACTIVATION_PRECISION,
};

enum { O_FEASIBLE, O_THROUGHPUT, O_ACTIVE, O_FRAG, O_PAGED_KV, O_TTFT, O_ITL, O_SPEEDUP, O_N };

static const output_desc OUTPUTS[O_N] = {
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "At least one request's KV cache fits beside the weights", .categorical = true},
    [O_THROUGHPUT] = {.name = "throughput", .kind = OUT_NUMBER, .unit = "tokens/s",
                      .description = "Decode tokens per second: active requests / itl"},
    [O_ACTIVE] = {.name = "max_active_requests", .kind = OUT_INTEGER, .unit = "",
                  .description = "Requests whose paged KV cache fits (<= max_batch_size)"},
    [O_FRAG] = {.name = "memory_fragmentation_pct", .kind = OUT_NUMBER, .unit = "",
                .description = "Unused share of a sequence's last page, a fraction in [0, 1] despite the name"},
    [O_PAGED_KV] = {.name = "paged_kv_cache", .kind = OUT_NUMBER, .unit = "B",
                    .description = "Paged KV cache of the active requests"},
    [O_TTFT] = {.name = "ttft", .kind = OUT_NUMBER, .unit = "ms",
                .description = "Prefill of a full max_batch_size batch + dispatch"},
    [O_ITL] = {.name = "itl", .kind = OUT_NUMBER, .unit = "ms",
               .description = "Decode step: (weights + paged KV) / memory bandwidth (1e6 ms when the weights alone do "
                              "not fit)"},
    [O_SPEEDUP] = {.name = "speedup_vs_static", .kind = OUT_NUMBER, .unit = "",
                   .description = "Throughput over static batching held to 60% of the batch by fragmentation"},
};

/* The Memory Wall line of the trace, skipped when the caller discards it. */
static void trace_memory_wall(solver_outputs *out, const hw_node *hw, const cb_result *r)
{
    char weights[48], have[48];
    llm_format_gb(r->weights, weights, sizeof weights);
    llm_format_gb(hw->mem_capacity, have, sizeof have);
    if (r->kv_budget <= 0) {
        solver_trace(out, "Memory Wall: FAILED. Weights (%s) exceed available %s on %s.", weights, have, hw->name);
    } else if (r->feasible) {
        char budget[48];
        llm_format_gb(r->kv_budget, budget, sizeof budget);
        solver_trace(out, "Memory Wall: Passed. Can fit %.0f concurrent requests (Weights: %s, Max KV available: "
                          "%s) on %s.",
                     r->active, weights, budget, hw->name);
    } else {
        solver_trace(out, "Memory Wall: FAILED. Cannot fit even 1 request. Weights (%s) leave no room for a KV "
                          "cache in %s on %s.",
                     weights, have, hw->name);
    }
}

static int run_cb(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const hw_node *hw = in_hw(in, I_HARDWARE);
    if (llm_require_transformer(m, "model", err) != 0)
        return -1;
    /* Upstream's divisions, in its order: prefill by the derated rate; then,
     * only past the memory-wall return, the sequence by the page size and
     * the KV budget by one sequence's pages. */
    if (in_num(in, I_EFFICIENCY) == 0)
        return solver_fail_divides_by_zero(err, "efficiency");
    const double page = in_num(in, I_PAGE), seq = in_num(in, I_SEQ_LEN);
    int prec;
    double wb, kvb;
    llm_tensor_precisions(in, I_PRECISION, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, &prec, &wb, &kvb);
    if (hw->mem_capacity - m->parameters * (wb > 0 ? wb : precision_bytes(prec)) > 0) {
        if (page == 0)
            /* Newer physics checks the page first; older divides by it. */
            return solver_fail(err, "page_size",
                               "page_size_tokens must be >= 1, got 0 (calc_paged_kv_cache_size; an mlsysim without "
                               "that check divides by it: ZeroDivisionError: division by zero)");
        if (ceil(seq / page) * page == 0)
            return solver_fail(err, "seq_len",
                               "seq_len %.0f fills no page: one sequence's KV cache is 0 B (mlsysim divides by it: "
                               "ZeroDivisionError: float division by zero)",
                               seq);
    }
    cb_result r = cb_solve(m, hw, seq, in_num(in, I_MAX_BATCH), page, prec, in_num(in, I_EFFICIENCY), wb, kvb);

    if (!out->quiet)
        trace_memory_wall(out, hw, &r);

    out_bool(out, O_FEASIBLE, r.feasible);
    out_num(out, O_THROUGHPUT, r.throughput);
    out_int(out, O_ACTIVE, r.active);
    out_num(out, O_FRAG, r.fragmentation);
    out_num(out, O_PAGED_KV, r.paged_kv);
    out_num(out, O_TTFT, r.ttft * 1e3);
    out_num(out, O_ITL, r.itl * 1e3);
    out_num(out, O_SPEEDUP, r.speedup);
    return 0;
}

static const char *const ALIASES[] = {"ContinuousBatchingModel", NULL};

const solver_desc SOLVER_CONTINUOUS_BATCHING = {
    .name = "continuous_batching",
    .aliases = ALIASES,
    .title = "Continuous batching with PagedAttention: concurrent requests, tokens/s, speed-up over static",
    .description = "mlsysim ContinuousBatchingModel. The memory the weights leave is cut into KV pages of "
                   "page_size tokens; as many requests as fit (up to max_batch_size) decode together, each step "
                   "streaming the weights and their KV cache. Static batching is modelled as 60% of that batch "
                   "(Kwon et al. 2023, PagedAttention; Yu et al. 2022, ORCA).",
    .assumptions = "PagedAttention capacity from the memory left after the weights; decode memory-bound; static "
                   "batching modelled as 60% of the admitted requests. Leaves out prefill/decode interference, "
                   "scheduler policy, preemption and per-layer overheads in decode.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_cb,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":2048,\"max_batch_size\":64}",
};
