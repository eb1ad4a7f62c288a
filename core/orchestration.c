/* orchestration.c - mlsysim OrchestrationModel (reference/solvers.md §23):
 * a shared cluster as one M/D/1 queue of whole-cluster jobs. Jobs arrive at
 * rate lambda (per day) and each holds the cluster for avg_job_duration_days
 * (service rate mu = 1 / duration): utilization rho = lambda / mu; when
 * rho < 1 a job waits rho / (2 mu (1 - rho)) days and rho^2 / (2 (1 - rho))
 * jobs queue; at rho >= 1 the queue grows without bound (reported as null
 * with a warning). The fleet is named for context; the formulas do not read
 * it. */
#include <math.h>
#include <stddef.h>

#include "core/numfmt.h"
#include "core/solver.h"

enum { I_FLEET, I_ARRIVAL, I_DURATION, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "The shared cluster (not read by the queue formulas)"},
    [I_ARRIVAL] = {.name = "arrival_rate_jobs_per_day", .kind = IN_NUMBER,
                   .description = "lambda: training jobs submitted per day"},
    [I_DURATION] = {.name = "avg_job_duration_days", .kind = IN_NUMBER,
                    .description = "Days a job runs with the whole cluster (1 / service rate); not 0"},
};

enum { O_UTIL, O_WAIT, O_QUEUE, O_STABLE, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_UTIL] = {.name = "cluster_utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "rho = arrival rate x job duration"},
    [O_WAIT] = {.name = "avg_wait_time", .kind = OUT_NUMBER, .unit = "day",
                .description = "Mean wait before a job starts (null when unstable: infinite)", .nullable = true},
    [O_QUEUE] = {.name = "avg_queue_length", .kind = OUT_NUMBER, .unit = "",
                 .description = "Mean jobs waiting (null when unstable: infinite)", .nullable = true},
    [O_STABLE] = {.name = "is_stable", .kind = OUT_BOOLEAN, .unit = "",
                  .description = "rho < 1: the queue drains", .categorical = true},
};

static int run_orchestration(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    double duration = in_num(in, I_DURATION);
    if (duration == 0)
        return solver_fail(err, "avg_job_duration_days",
                           "avg_job_duration_days must not be 0 (mlsysim computes the service rate "
                           "1 / avg_job_duration_days: ZeroDivisionError: float division by zero)");
    double mu = 1.0 / duration;
    double rho = in_num(in, I_ARRIVAL) / mu;
    bool stable = rho < 1.0;
    out_num(out, O_UTIL, rho);
    out_bool(out, O_STABLE, stable);
    if (stable) {
        out_num(out, O_WAIT, rho / (2.0 * mu * (1.0 - rho)));
        out_num(out, O_QUEUE, rho * rho / (2.0 * (1.0 - rho)));
    } else {
        out_null(out, O_WAIT);
        out_null(out, O_QUEUE);
        char shown[40];
        fmt_pyrepr(shown, sizeof shown, rho);
        solver_warn(out, "cluster_utilization %s >= 1: the queue grows without bound, so avg_wait_time and "
                         "avg_queue_length are infinite (reported as null)", shown);
    }
    return 0;
}

static const char *const ALIASES[] = {"OrchestrationModel", NULL};

const solver_desc SOLVER_ORCHESTRATION = {
    .name = "orchestration",
    .aliases = ALIASES,
    .title = "Queueing for a shared cluster: utilization, wait and queue length",
    .description = "mlsysim OrchestrationModel. An M/D/1 queue of jobs that each take the whole cluster: "
                   "utilization rho = arrivals x duration; wait rho / (2 mu (1 - rho)) days and queue "
                   "rho^2 / (2 (1 - rho)) when rho < 1, unbounded (null, with a warning) otherwise.",
    .assumptions = "The cluster as one M/D/1 queue of jobs. Leaves out job sizes and packing, priorities, preemption "
                   "and the fleet's actual capacity (the fleet is not read).",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_orchestration,
    .example_json = "{\"fleet\":\"Research_256\",\"arrival_rate_jobs_per_day\":4,\"avg_job_duration_days\":0.2}",
};
