/* transform.c - mlsysim TransformationModel (engine/solvers/data.py): does
 * CPU preprocessing keep up with the accelerator step? */
#include <math.h>

#include "core/solver.h"

enum { I_BATCH, I_SAMPLE, I_CPU, I_STEP, I_N };
static const input_desc INPUTS[I_N] = {
    [I_BATCH] = {.name = "batch_size", .kind = IN_INTEGER, .check = CHECK_NONNEGATIVE, .int_max = 1e12,
                 .description = "Samples per step"},
    [I_SAMPLE] = {.name = "sample_size_bytes", .kind = IN_QUANTITY, .dim = &DIM_BYTES, .unit = "B",
                  .check = CHECK_NONNEGATIVE, .description = "Bytes per sample to preprocess (\"500 KB\")"},
    [I_CPU] = {.name = "cpu_throughput", .kind = IN_QUANTITY, .dim = &DIM_BYTE_RATE, .unit = "GB/s",
               .check = CHECK_NONNEGATIVE, .description = "CPU preprocessing throughput (\"2 GB/s\")"},
    [I_STEP] = {.name = "accelerator_step_time", .kind = IN_QUANTITY, .dim = &DIM_TIME, .unit = "ms",
                .check = CHECK_NONNEGATIVE, .description = "Accelerator step time (\"7.24 ms\")"},
};

enum { O_TRANSFORM, O_STEP, O_BOTTLENECK, O_UTIL, O_SLOWDOWN, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_TRANSFORM] = {.name = "transform_time", .kind = OUT_NUMBER, .unit = "ms",
                     .description = "CPU time to preprocess one batch"},
    [O_STEP] = {.name = "accelerator_step_time", .kind = OUT_NUMBER, .unit = "ms",
                .description = "Accelerator step time"},
    [O_BOTTLENECK] = {.name = "is_bottleneck", .kind = OUT_BOOLEAN, .unit = "",
                      .description = "The CPU is slower than the accelerator", .categorical = true},
    [O_UTIL] = {.name = "accelerator_utilization", .kind = OUT_NUMBER, .unit = "",
                .description = "Accelerator step / max(step, transform)"},
    [O_SLOWDOWN] = {.name = "slowdown_factor", .kind = OUT_NUMBER, .unit = "",
                    .description = "max(step, transform) / step (null when step is 0)", .nullable = true},
};

static int run_transformation(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    double cpu = in_num(in, I_CPU);
    if (cpu == 0)
        return solver_fail(err, "cpu_throughput",
                           "cpu_throughput must be positive, got 0 GB/s (mlsysim divides by it: "
                           "ZeroDivisionError: float division by zero)");
    double t_tr = in_num(in, I_BATCH) * in_num(in, I_SAMPLE) / cpu * 1e3;
    double t_acc = in_num(in, I_STEP) * 1e3;
    double t_step = fmax(t_tr, t_acc);
    out_num(out, O_TRANSFORM, t_tr);
    out_num(out, O_STEP, t_acc);
    out_bool(out, O_BOTTLENECK, t_tr > t_acc);
    out_num(out, O_UTIL, t_step > 0 ? t_acc / t_step : 0.0);
    if (t_acc > 0) {
        out_num(out, O_SLOWDOWN, t_step / t_acc);
    } else {
        out_null(out, O_SLOWDOWN);
        solver_warn(out, "slowdown_factor is infinite: accelerator_step_time is 0, reported as null");
    }
    return 0;
}

static const char *const ALIASES[] = {"TransformationModel", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"batch_size", "transform_time", +1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_TRANSFORMATION = {
    .name = "transformation",
    .aliases = ALIASES,
    .title = "CPU preprocessing wall: does the CPU starve the accelerator?",
    .description = "mlsysim TransformationModel. Time to decode/augment one batch on the CPU against the "
                   "accelerator's step time.",
    .assumptions = "CPU preprocessing time as batch bytes / CPU throughput against the accelerator step. Leaves out "
                   "per-format decode cost, core-scaling losses, jitter and the accelerator's own input copies.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .monotone = MONOTONE,
    .run = run_transformation,
    .example_json = "{\"batch_size\":256,\"sample_size_bytes\":\"500 KB\",\"cpu_throughput\":2,"
                    "\"accelerator_step_time\":\"7.24 ms\"}",
};
