/* tail_latency.c - tail_latency: mlsysim TailLatencyModel (reference/
 * solvers.md §12): replicas as an M/M/c queue (Erlang C), the Kingman
 * correction for non-exponential service times, P50/P99 latency and the
 * SLO headroom (Dean & Barroso 2013, "The Tail at Scale"). The arithmetic is
 * core/queueing.c. An unstable queue has infinite percentiles: they are
 * reported null, with a warning. */
#include <math.h>

#include "core/queueing.h"
#include "core/solver.h"

enum { I_ARRIVAL, I_SERVICE, I_REPLICAS, I_CV, I_N };

static const input_desc INPUTS[I_N] = {
    [I_ARRIVAL] = {.name = "arrival_rate_qps", .kind = IN_NUMBER,
                   .description = "Request arrival rate, in requests per second (1/s)"},
    [I_SERVICE] = {.name = "service_latency_ms", .kind = IN_NUMBER,
                   .description = "Mean service time of one request, in ms"},
    [I_REPLICAS] = {.name = "num_replicas", .kind = IN_INTEGER, .has_default = true, .def_num = 1, .int_max = 1e6,
                    .description = "Servers c of the M/M/c queue (values below 1 count as 1)"},
    [I_CV] = {.name = "service_time_cv", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
              .check = CHECK_NONNEGATIVE,
              .description = "Coefficient of variation of the service time (1 = exponential; else Kingman's "
                             "(cv^2 + 1) / 2 scales the waits)"},
};

enum { O_P50, O_P99, O_UTIL, O_STABLE, O_HEADROOM, O_N };

static const output_desc OUTPUTS[O_N] = {
    [O_P50] = {.name = "p50_latency", .kind = OUT_NUMBER, .unit = "ms",
               .description = "Median latency: queue wait + service (null when unstable)"},
    [O_P99] = {.name = "p99_latency", .kind = OUT_NUMBER, .unit = "ms",
               .description = "99th-percentile latency: queue wait + service (null when unstable)"},
    [O_UTIL] = {.name = "queue_utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "rho = arrival rate / (replicas x service rate); 1 when unstable"},
    [O_STABLE] = {.name = "is_stable", .kind = OUT_BOOLEAN, .unit = "",
                  .description = "rho < 1: the queue does not grow without bound", .categorical = true},
    [O_HEADROOM] = {.name = "slo_headroom_ratio", .kind = OUT_NUMBER, .unit = "",
                    .description = "P99 wait / (5 x service time); above 1 the SLO is at risk; 1 when unstable"},
};

static int run_tail_latency(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    (void)err;
    tail_latency t =
        tail_latency_solve(in_num(in, I_ARRIVAL), in_num(in, I_SERVICE), in_num(in, I_REPLICAS), in_num(in, I_CV));
    if (!t.stable)
        solver_warn(out, "the queue is unstable (arrival rate >= replicas x service rate): p50_latency and "
                         "p99_latency are infinite, reported as null");
    out_num(out, O_P50, t.p50_ms);
    out_num(out, O_P99, t.p99_ms);
    out_num(out, O_UTIL, t.utilization);
    out_bool(out, O_STABLE, t.stable);
    out_num(out, O_HEADROOM, t.slo_headroom);
    return 0;
}

static const char *const ALIASES[] = {"TailLatencyModel", NULL};

const solver_desc SOLVER_TAIL_LATENCY = {
    .name = "tail_latency",
    .aliases = ALIASES,
    .title = "Queueing tail latency: P50/P99 of replicas under load (M/M/c with Kingman's correction)",
    .description = "mlsysim TailLatencyModel. Replicas form an M/M/c queue: Erlang C gives the probability a "
                   "request waits, the wait beyond is exponential; service_time_cv != 1 scales waits by "
                   "(cv^2 + 1) / 2 (Kingman). Reports P50/P99 latency, utilization, stability and the P99 wait "
                   "relative to 5x the service time (Dean & Barroso 2013).",
    .assumptions = "An M/M/c queue (Poisson arrivals, exponential service) with waits scaled by (cv^2 + 1) / 2 for "
                   "other service-time variability (Kingman). Leaves out batching, priorities, time-varying load and "
                   "correlated slow requests.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_tail_latency,
    .example_json = "{\"arrival_rate_qps\":30,\"service_latency_ms\":100,\"num_replicas\":4}",
};
