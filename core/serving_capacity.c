/* serving_capacity.c - serving_capacity: mlsysim ServingCapacityModel
 * (reference/solvers.md §10, the version before max_seq_len): the fewest
 * replicas that serve `qps` within a P99 target. It composes the other
 * serving models: continuous batching sets a replica's token capacity,
 * ServingModel at that batch gives the request latency, and the M/M/c
 * queue (TailLatencyModel) the queueing wait over it.
 *
 * The replica search is mlsysim's scan r = 1, 2, ... up to max_replicas,
 * stopping at the first stable queue whose estimate meets the target; the
 * answer is that replica count, or max_replicas with its values. Two exact
 * shortcuts skip iterations that cannot stop the scan: counts whose queue is
 * unstable (lambda >= r mu), and every count when the base latency alone
 * exceeds the target. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/llm.h"
#include "core/numfmt.h"
#include "core/queueing.h"
#include "core/solver.h"

#define PAGE_SIZE 16 /* ContinuousBatchingModel's default, which mlsysim uses here */

enum {
    I_MODEL, I_HARDWARE, I_QPS, I_TARGET, I_SEQ_LEN, I_OUTPUT_TOKENS, I_MAX_BATCH, I_MAX_REPLICAS, I_EFFICIENCY,
    I_CV, I_PRECISION, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, I_N
};

/* In mlsysim's order of checks (the table order is the check order). */
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = LLM_INPUT_MODEL("The served LLM (a TransformerWorkload)"),
    [I_HARDWARE] = LLM_INPUT_HARDWARE("One replica's node"),
    [I_QPS] = {.name = "qps", .kind = IN_NUMBER, .check = CHECK_POSITIVE,
               .description = "Offered load, in requests per second (1/s)"},
    [I_TARGET] = {.name = "target_p99_latency_ms", .kind = IN_NUMBER, .check = CHECK_POSITIVE,
                  .description = "P99 request latency target, in ms"},
    [I_SEQ_LEN] = {.name = "seq_len", .kind = IN_INTEGER, .has_default = true, .def_num = 2048,
                   .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
                   .description = "Prompt tokens per request"},
    [I_OUTPUT_TOKENS] = {.name = "output_tokens", .kind = IN_INTEGER, .has_default = true, .def_num = 128,
                         .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
                         .description = "Generated tokens per request"},
    [I_MAX_BATCH] = {.name = "max_batch_size", .kind = IN_INTEGER, .has_default = true, .def_num = 32,
                     .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
                     .description = "Continuous-batching cap on concurrent requests per replica"},
    [I_MAX_REPLICAS] = {.name = "max_replicas", .kind = IN_INTEGER, .has_default = true, .def_num = 1024,
                        .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e5,
                        .description = "Largest replica count searched"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                      .description = "Fraction of peak compute prefill achieves"},
    [I_CV] = {.name = "service_time_cv", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
              .check = CHECK_NONNEGATIVE,
              .description = "Coefficient of variation of the service time (Kingman's correction when != 1)"},
    [I_PRECISION] = LLM_INPUT_PRECISION,
    [I_WEIGHT_PREC] = LLM_INPUT_WEIGHT_PRECISION,
    [I_KV_PREC] = LLM_INPUT_KV_PRECISION,
    [I_ACT_PREC] = LLM_INPUT_ACTIVATION_PRECISION,
};

enum {
    O_FEASIBLE, O_REPLICAS, O_QPS_CAP, O_PER_REPLICA, O_UTIL, O_EST_P99, O_BASE, O_WAIT, O_ACTIVE, O_TTFT, O_ITL,
    O_BOTTLENECK, O_N
};

static const output_desc OUTPUTS[O_N] = {
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "Some replica count up to max_replicas meets the P99 target", .categorical = true},
    [O_REPLICAS] = {.name = "required_replicas", .kind = OUT_INTEGER, .unit = "",
                    .description = "Fewest replicas meeting the target (max_replicas if none)", .categorical = true},
    [O_QPS_CAP] = {.name = "qps_capacity", .kind = OUT_NUMBER, .unit = "1/s",
                   .description = "required_replicas x per_replica_qps_capacity"},
    [O_PER_REPLICA] = {.name = "per_replica_qps_capacity", .kind = OUT_NUMBER, .unit = "1/s",
                       .description = "Continuous-batching tokens/s / output_tokens (0 when infeasible before "
                                      "queueing)"},
    [O_UTIL] = {.name = "utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "qps / qps_capacity (null when the capacity is 0)"},
    [O_EST_P99] = {.name = "estimated_p99_latency", .kind = OUT_NUMBER, .unit = "ms",
                   .description = "base_request_latency + queue_wait_p99 (null when infinite)"},
    [O_BASE] = {.name = "base_request_latency", .kind = OUT_NUMBER, .unit = "ms",
                .description = "ttft + itl x output_tokens at the active batch"},
    [O_WAIT] = {.name = "queue_wait_p99", .kind = OUT_NUMBER, .unit = "ms",
                .description = "P99 queueing wait beyond the service time (null when infinite)"},
    [O_ACTIVE] = {.name = "active_batch_size", .kind = OUT_INTEGER, .unit = "",
                  .description = "Requests decoding together per replica (at least 1)"},
    [O_TTFT] = {.name = "ttft", .kind = OUT_NUMBER, .unit = "ms",
                .description = "ServingModel time to first token at the active batch"},
    [O_ITL] = {.name = "itl", .kind = OUT_NUMBER, .unit = "ms",
               .description = "ServingModel inter-token latency at the active batch"},
    [O_BOTTLENECK] = {.name = "bottleneck", .kind = OUT_STRING, .unit = "",
                      .description = "Feasible, Memory, Capacity or Tail Latency", .categorical = true},
};

/* The smallest replica count whose queue is stable, by the test mmc_queue()
 * applies (lambda >= c mu is unstable). */
static double first_stable(double lambda, double mu)
{
    double c = fmax(1.0, floor(lambda / mu));
    if (!(c < 1e15)) /* far beyond any max_replicas; c - 1 == c would never end */
        return c;
    while (c > 1 && !(lambda >= (c - 1) * mu))
        c -= 1;
    while (lambda >= c * mu)
        c += 1;
    return c;
}

static void warn_nonfinite(solver_outputs *out, const int *idx, int n)
{
    char names[160] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (isfinite(out->v[idx[i]].num))
            continue;
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", OUTPUTS[idx[i]].name);
        if (len >= sizeof names)
            break;
    }
    if (len)
        solver_warn(out, "%s infinite (the model does not fit, or the queue is unstable at max_replicas): reported "
                         "as null",
                    names);
}

static int run_serving_capacity(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const model_t *m = in_model(in, I_MODEL);
    const hw_node *hw = in_hw(in, I_HARDWARE);
    if (llm_require_transformer(m, "model", err) != 0)
        return -1;
    double qps = in_num(in, I_QPS), target = in_num(in, I_TARGET), seq = in_num(in, I_SEQ_LEN);
    double out_tokens = in_num(in, I_OUTPUT_TOKENS), max_replicas = in_num(in, I_MAX_REPLICAS);
    double cv = in_num(in, I_CV), eff = in_num(in, I_EFFICIENCY);
    int prec;
    double wb, kvb;
    llm_tensor_precisions(in, I_PRECISION, I_WEIGHT_PREC, I_KV_PREC, I_ACT_PREC, &prec, &wb, &kvb);

    /* 1-3. One replica: continuous batching's capacity, ServingModel's
     * latency at the batch it admits. */
    cb_result cb = cb_solve(m, hw, seq, in_num(in, I_MAX_BATCH), PAGE_SIZE, prec, eff, wb, kvb);
    double active = fmax(1.0, cb.active);
    serving_params sp = {.model = m, .hw = hw, .seq_len = seq, .batch = active, .precision = prec,
                         .efficiency = eff, .network_bw = 1, .acceptance = 0.7, .weight_bytes = wb,
                         .kv_bytes = kvb};
    serving_result sv = serving_solve(&sp);
    double per_replica = cb.throughput / out_tokens;
    double base_ms = sv.ttft * 1e3 + sv.itl * 1e3 * out_tokens;

    double replicas = max_replicas, qps_cap = 0, per_replica_cap = 0, util = INFINITY;
    double est = INFINITY, wait = INFINITY;
    bool feasible = false;
    const char *bottleneck;
    if (!sv.feasible || !cb.feasible || per_replica <= 0) {
        /* 4. Infeasible before queueing. */
        bottleneck = (!sv.feasible || !cb.feasible) ? "Memory" : "Capacity";
        solver_trace(out, "Serving Capacity: infeasible before queueing: the model does not fit or has no token "
                          "capacity.");
    } else {
        /* 5. Each replica serves requests at 1000 / per_replica ms apiece. */
        double service_ms = 1000.0 / per_replica;
        double r = first_stable(qps, 1000.0 / service_ms);
        if (r > max_replicas || base_ms > target)
            r = max_replicas;
        tail_latency tail;
        for (;; r++) {
            tail = tail_latency_solve(qps, service_ms, r, cv);
            wait = fmax(0.0, tail.p99_ms - service_ms);
            est = base_ms + wait;
            if ((tail.stable && est <= target) || r >= max_replicas)
                break;
        }
        feasible = tail.stable && est <= target;
        replicas = r;
        /* 6-7. */
        per_replica_cap = per_replica;
        qps_cap = replicas * per_replica;
        util = qps_cap > 0 ? qps / qps_cap : INFINITY;
        bottleneck = !feasible ? (tail.stable ? "Tail Latency" : "Capacity")
                               : (base_ms > target ? "Base Latency" : "Feasible");
        if (!out->quiet) { /* composing the trace took most of a solve's time: no printf here */
            char rep_s[48], cap_s[48], qps_s[48], util_s[48], est_s[40], base_s[40], target_s[40];
            fmt_fixed(rep_s, sizeof rep_s, replicas, 0);  /* "%.0f" */
            fmt_fixed(cap_s, sizeof cap_s, qps_cap, 2);   /* "%.2f" */
            fmt_fixed(qps_s, sizeof qps_s, qps, 2);
            fmt_fixed(util_s, sizeof util_s, util * 100, 2);
            fmt_double(est_s, sizeof est_s, est);
            fmt_double(base_s, sizeof base_s, base_ms);
            fmt_double(target_s, sizeof target_s, target);
            /* "Serving Capacity: %.0f replicas provide %s QPS for target %s QPS at utilization %.2f%%." */
            const char *l1[] = {"Serving Capacity: ", rep_s, " replicas provide ", cap_s, " QPS for target ", qps_s,
                                " QPS at utilization ", util_s, "%."};
            solver_trace_parts(out, l1, sizeof l1 / sizeof l1[0]);
            /* "Tail Latency: base request latency %s ms; estimated P99 %s ms vs target %s ms." */
            const char *l2[] = {"Tail Latency: base request latency ", base_s, " ms; estimated P99 ", est_s,
                                " ms vs target ", target_s, " ms."};
            solver_trace_parts(out, l2, sizeof l2 / sizeof l2[0]);
        }
    }

    out_bool(out, O_FEASIBLE, feasible);
    out_int(out, O_REPLICAS, replicas);
    out_num(out, O_QPS_CAP, qps_cap);
    out_num(out, O_PER_REPLICA, per_replica_cap);
    out_num(out, O_UTIL, util);
    out_num(out, O_EST_P99, est);
    out_num(out, O_BASE, base_ms);
    out_num(out, O_WAIT, wait);
    out_int(out, O_ACTIVE, active);
    out_num(out, O_TTFT, sv.ttft * 1e3);
    out_num(out, O_ITL, sv.itl * 1e3);
    out_str(out, O_BOTTLENECK, bottleneck);
    static const int MAY_BE_INFINITE[] = {O_UTIL, O_EST_P99, O_WAIT};
    warn_nonfinite(out, MAY_BE_INFINITE, 3);
    return 0;
}

static const char *const ALIASES[] = {"ServingCapacityModel", NULL};

const solver_desc SOLVER_SERVING_CAPACITY = {
    .name = "serving_capacity",
    .aliases = ALIASES,
    .title = "Replicas needed to serve an LLM at a QPS within a P99 latency target",
    .description = "mlsysim ServingCapacityModel. Continuous batching (PagedAttention) sets one replica's "
                   "tokens/s and so its requests/s; ServingModel at the admitted batch gives the base request "
                   "latency (TTFT + ITL x output tokens); replicas are added until the M/M/c queue is stable and "
                   "base latency + P99 queueing wait meets the target. Sweep qps to see where required_replicas "
                   "steps up.",
    .assumptions = "Replicas from continuous batching's per-replica rate and an M/M/c queue with Kingman's "
                   "correction, identical requests. Leaves out autoscaling lag, load-balancer imbalance, "
                   "request-length variance beyond service_time_cv and prefill/decode interference.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_serving_capacity,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"qps\":20,\"target_p99_latency_ms\":10000}",
};
