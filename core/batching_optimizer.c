/* batching_optimizer.c - batching_optimizer: mlsysim BatchingOptimizer
 * (reference/solvers.md §14): the largest batch size in 1..max_search_batch
 * whose requests still meet a P99 SLA. A batch of b requests is served in
 * ServingModel's ttft + itl x seq_len; batches arrive at arrival_rate_qps / b
 * and queue over num_replicas servers (TailLatencyModel, cv 1). A batch
 * size qualifies when it fits memory, the queue is stable and the P99 is
 * within the SLA.
 *
 * mlsysim scores every size of the exhaustive grid and keeps the first
 * minimum of -b, i.e. the largest qualifying size; scanning from the top
 * down and stopping at the first that qualifies gives the same size. */
#include <math.h>

#include "core/llm.h"
#include "core/measured.h"
#include "core/queueing.h"
#include "core/solver.h"

enum {
    I_MODEL, I_HARDWARE, I_SEQ_LEN, I_SLA, I_ARRIVAL, I_REPLICAS, I_PRECISION, I_EFFICIENCY, I_MAX_SEARCH, I_TP,
    I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, I_N
};

static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The served LLM (a TransformerWorkload)"),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("One replica's node"),
    [I_SEQ_LEN] = {.name = "seq_len", .kind = IN_INTEGER, .int_max = 1e9,
                   .description = "Context length; a batch also decodes seq_len tokens"},
    [I_SLA] = {.name = "sla_latency_ms", .kind = IN_NUMBER, .description = "P99 latency SLA, in ms"},
    [I_ARRIVAL] = {.name = "arrival_rate_qps", .kind = IN_NUMBER,
                   .description = "Request arrival rate, in requests per second (1/s)"},
    [I_REPLICAS] = {.name = "num_replicas", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .int_max = 4096,
                    .description = "Servers of the M/M/c queue (values below 1 count as 1)"},
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Fraction of peak compute prefill achieves, in (0, 1]"},
    [I_MAX_SEARCH] = {.name = "max_search_batch", .kind = IN_INTEGER, .has_default = true, .def_num = 256,
                      .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 65536,
                      .description = "Largest batch size searched (every size from 1 up)"},
    [I_TP] = IN_DEGREE("tp", "Tensor-parallel degree of one replica: weights and KV cache split over tp "
                             "accelerators of one node (serving's tp; 1: mlsysim's answer)"),
    [I_WEIGHT_PREC] = LLM_INPUT_WEIGHT_PRECISION,
    [I_KV_PREC] = LLM_INPUT_KV_PRECISION,
    [I_ACT_PREC] = LLM_INPUT_ACTIVATION_PRECISION,
};

/* ServingModel, called for every batch size, rejects these. */
static int check_seq_len(const solver_inputs *in, solver_error *err)
{
    return serving_check_seq_len(in_num(in, I_SEQ_LEN), "seq_len", err);
}

static int check_efficiency(const solver_inputs *in, solver_error *err)
{
    return serving_check_efficiency(in_num(in, I_EFFICIENCY), in_was_int(in, I_EFFICIENCY), "efficiency", err);
}

static const char *const R_SEQ[] = {"seq_len", NULL};
static const char *const R_EFF[] = {"efficiency", NULL};

static const input_constraint CONSTRAINTS[] = {
    {.rule = "seq_len >= 1 (ServingModel)", .inputs = R_SEQ, .check = check_seq_len},
    {.rule = "0 < efficiency <= 1 (ServingModel)", .inputs = R_EFF, .check = check_efficiency},
};

enum { O_OBJECTIVE, O_BEST_CONFIG, O_BEST_BATCH, O_MAX_TP, O_P99, O_HEADROOM, O_FEASIBLE, O_SEARCHED, O_N };

static const output_desc OUTPUTS[O_N] = {
    [O_OBJECTIVE] = {.name = "objective_value", .kind = OUT_NUMBER, .unit = "tokens/s",
                     .description = "arrival_rate_qps x seq_len when feasible, else 0"},
    [O_BEST_CONFIG] = {.name = "best_config.max_batch_size", .kind = OUT_INTEGER, .unit = "",
                       .description = "Largest qualifying batch size (0 if none)", .categorical = true},
    [O_BEST_BATCH] = {.name = "best_batch_size", .kind = OUT_INTEGER, .unit = "",
                      .description = "Largest qualifying batch size (0 if none)", .categorical = true},
    [O_MAX_TP] = {.name = "max_throughput", .kind = OUT_NUMBER, .unit = "tokens/s",
                  .description = "Same as objective_value"},
    [O_P99] = {.name = "p99_latency", .kind = OUT_NUMBER, .unit = "ms",
               .description = "P99 latency at the best batch size (0 if none)"},
    [O_HEADROOM] = {.name = "slo_headroom_ratio", .kind = OUT_NUMBER, .unit = "",
                    .description = "P99 wait / (5 x service time) at the best batch size (0 if none)"},
    [O_FEASIBLE] = {.name = "is_feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "Some batch size meets memory, stability and the SLA", .categorical = true},
    [O_SEARCHED] = {.name = "total_searched", .kind = OUT_INTEGER, .unit = "",
                    .description = "Batch sizes searched: max_search_batch"},
};

static int run_batching_optimizer(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    serving_params p = {.model = in_model(in, I_MODEL), .hw = in_hw(in, I_HARDWARE), .seq_len = in_num(in, I_SEQ_LEN),
                        .precision = in_enum(in, I_PRECISION), .efficiency = in_num(in, I_EFFICIENCY),
                        .network_bw = 1, .acceptance = 0.7};
    llm_tensor_precisions(in, I_PRECISION, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, &p.precision, &p.weight_bytes,
                          &p.kv_bytes);
    if (llm_require_transformer(p.model, "model", err) != 0)
        return -1;
    double sla = in_num(in, I_SLA), arrival = in_num(in, I_ARRIVAL), replicas = in_num(in, I_REPLICAS);
    double max_search = in_num(in, I_MAX_SEARCH);

    double best = 0;
    tail_latency at_best = {0};
    static _Thread_local solver_outputs quiet;
    quiet.quiet = true;
    for (double b = max_search; b >= 1 && best == 0; b--) {
        p.batch = b;
        serving_result sv = serving_answer(&p, in_num(in, I_TP), in->calibration, !in->v[I_EFFICIENCY].defaulted,
                                           &quiet);
        if (!sv.feasible)
            continue;
        double service_ms = sv.ttft * 1e3 + sv.itl * 1e3 * p.seq_len;
        tail_latency t = tail_latency_solve(arrival / b, service_ms, replicas, 1.0);
        if (t.stable && !(t.p99_ms > sla)) {
            best = b;
            at_best = t;
        }
    }

    double tp = best > 0 ? arrival * p.seq_len : 0.0;
    out_num(out, O_OBJECTIVE, tp);
    out_int(out, O_BEST_CONFIG, best);
    out_int(out, O_BEST_BATCH, best);
    out_num(out, O_MAX_TP, tp);
    out_num(out, O_P99, best > 0 ? at_best.p99_ms : 0.0);
    out_num(out, O_HEADROOM, best > 0 ? at_best.slo_headroom : 0.0);
    out_bool(out, O_FEASIBLE, best > 0);
    out_int(out, O_SEARCHED, max_search);
    if (best > 0)
        solver_trace(out, "Batching: batch size %.0f is the largest of 1..%.0f that fits memory and meets the "
                          "%g ms P99 SLA.",
                     best, max_search, sla);
    else
        solver_trace(out, "Batching: no batch size in 1..%.0f fits memory with a stable queue within the SLA.",
                     max_search);
    return 0;
}

static const char *const ALIASES[] = {"BatchingOptimizer", NULL};

const solver_desc SOLVER_BATCHING_OPTIMIZER = {
    .name = "batching_optimizer",
    .aliases = ALIASES,
    .title = "Largest batch size that meets a P99 latency SLA at an arrival rate",
    .description = "mlsysim BatchingOptimizer. For each batch size b up to max_search_batch: ServingModel's "
                   "ttft + itl x seq_len is the batch's service time; batches arrive at arrival_rate_qps / b into "
                   "an M/M/c queue of num_replicas servers. The answer is the largest b that fits memory with a "
                   "stable queue and a P99 within sla_latency_ms.",
    .assumptions = "The largest batch b whose serving time (TTFT + ITL x seq_len) keeps an M/M/c queue of "
                   "arrival_rate / b batches under the P99 SLA. Leaves out batching delay while a batch fills, cv "
                   "other than 1 and everything serving and tail_latency leave out.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .run = run_batching_optimizer,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":512,\"sla_latency_ms\":20000,"
                    "\"arrival_rate_qps\":2}",
};
