/* reliability.c - mlsysim ReliabilityModel (reference/solvers.md §22, with
 * the physics helpers of §H.7): how often a fleet fails during a job, the
 * Young-Daly checkpoint interval, and the share of time left for training.
 *
 * A node fails when any of its parts does (failure rates add); a fleet of
 * `count` nodes fails count times as often; failures are exponential. */
#include <math.h>
#include <stddef.h>

#include "core/numfmt.h"
#include "core/solver.h"

/* Component MTTFs in hours: Reliability.Gpu / Nic / Psu.mttf_hours
 * (systems/reliability.py, solvers.md §0.6). */
#define MTTF_GPU_H 50000.0
#define MTTF_NIC_H 150000.0
#define MTTF_PSU_H 100000.0

enum { I_FLEET, I_JOB, I_CHECKPOINT, I_RECOVERY, I_N };
static const input_desc INPUTS[I_N] = {
    [I_FLEET] = {.name = "fleet", .kind = IN_REF, .refs = REC_BIT(REC_CLUSTER),
                 .description = "The cluster: an id (\"Research_256\") or {\"node\", \"count\", \"fabric\", \"region\"}; "
                                "its nodes' accelerators, NICs and PSUs fail"},
    [I_JOB] = {.name = "job_duration_hours", .kind = IN_NUMBER, .description = "Length of the job, in hours"},
    [I_CHECKPOINT] = {.name = "checkpoint_time_s", .kind = IN_NUMBER, .has_default = true, .def_num = 60.0,
                      .description = "Time to write one checkpoint, in seconds"},
    [I_RECOVERY] = {.name = "avg_recovery_time_s", .kind = IN_NUMBER, .has_default = true, .def_num = 300.0,
                    .description = "Time to recover from one failure (reload, restart, warm-up), in seconds"},
};

enum { O_MTBF, O_PFAIL, O_INTERVAL, O_FAILURES, O_GOODPUT, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_MTBF] = {.name = "fleet_mtbf", .kind = OUT_NUMBER, .unit = "h",
                .description = "Mean time between failures of the whole fleet"},
    [O_PFAIL] = {.name = "failure_probability", .kind = OUT_NUMBER, .unit = "",
                 .description = "Probability of at least one failure during the job"},
    [O_INTERVAL] = {.name = "optimal_checkpoint_interval", .kind = OUT_NUMBER, .unit = "s",
                    .description = "Young-Daly interval sqrt(2 x checkpoint time x MTBF)"},
    [O_FAILURES] = {.name = "expected_failures", .kind = OUT_NUMBER, .unit = "",
                    .description = "Job duration / fleet MTBF"},
    [O_GOODPUT] = {.name = "goodput_ratio", .kind = OUT_NUMBER, .unit = "",
                   .description = "1 - checkpoint time / interval - recovery time / MTBF, at least 0 (0 without "
                                  "checkpoints)"},
};

static int run_reliability(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const fleet_t *f = in_fleet(in, I_FLEET);
    const node_t *node = &f->node;
    double rate_per_h = node->accelerators_per_node / MTTF_GPU_H + node->nics_per_node / MTTF_NIC_H +
                        node->psus_per_node / MTTF_PSU_H;
    /* mlsysim's errors, in its order: 1 / rate, MTBF / count, then
     * validate_positive(mtbf) in the failure probability. */
    if (rate_per_h == 0)
        return solver_fail(err, "fleet",
                           "fleet's node has no accelerators, NICs or PSUs that can fail: its MTBF is undefined "
                           "(mlsysim: ZeroDivisionError: float division by zero)");
    if (f->count == 0)
        return solver_fail(err, "fleet",
                           "fleet.count is 0: the fleet MTBF is the node's divided by it (mlsysim: "
                           "ZeroDivisionError: float division by zero)");
    double mtbf_h = 1.0 / rate_per_h / f->count;
    if (!(mtbf_h > 0)) {
        char got[40];
        fmt_pyrepr(got, sizeof got, mtbf_h);
        return solver_fail(err, "fleet", "mtbf must be positive, got %s", got);
    }
    double mtbf_s = mtbf_h * 3600.0;
    double job_h = in_num(in, I_JOB);
    double ckpt_s = in_num(in, I_CHECKPOINT);
    if (ckpt_s < 0) /* math.sqrt of a negative, in the Young-Daly interval */
        return solver_fail(err, "checkpoint_time_s",
                           "math domain error (the Young-Daly interval is sqrt(2 x checkpoint_time_s x MTBF) "
                           "and checkpoint_time_s is negative)");
    double interval_s = sqrt(2.0 * ckpt_s * mtbf_s);
    double goodput = 0.0;
    if (interval_s > 0 && mtbf_s > 0)
        goodput = fmax(0.0, 1.0 - ckpt_s / interval_s - in_num(in, I_RECOVERY) / mtbf_s);
    out_num(out, O_MTBF, mtbf_h);
    out_num(out, O_PFAIL, 1.0 - exp(-(job_h * 3600.0) / mtbf_s));
    out_num(out, O_INTERVAL, interval_s);
    out_num(out, O_FAILURES, job_h / mtbf_h);
    out_num(out, O_GOODPUT, goodput);
    return 0;
}

static const char *const ALIASES[] = {"ReliabilityModel", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"fleet.count", "fleet_mtbf", -1},
    {"fleet.count", "failure_probability", +1},
    {"fleet.count", "expected_failures", +1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_RELIABILITY = {
    .name = "reliability",
    .aliases = ALIASES,
    .title = "Failures during a job, the optimal checkpoint interval and goodput",
    .description = "mlsysim ReliabilityModel. Node MTBF from its accelerators (50,000 h each), NICs (150,000 h) "
                   "and PSUs (100,000 h), fleet MTBF = node MTBF / nodes, failure probability 1 - exp(-T/MTBF), "
                   "Young-Daly checkpoint interval, and the goodput left after checkpoints and recoveries.",
    .assumptions = "Independent exponential failures from component MTTFs, Young's optimal checkpoint interval and a "
                   "goodput estimate. Leaves out correlated failures, repair queueing, partial restarts and silent "
                   "data corruption.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .monotone = MONOTONE,
    .run = run_reliability,
    .example_json = "{\"fleet\":\"Training_1K\",\"job_duration_hours\":720,\"checkpoint_time_s\":120}",
};
