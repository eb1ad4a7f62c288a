/* scaling.c - mlsysim ScalingModel (engine/solvers/training.py,
 * reference/solvers.md §17): Chinchilla compute-optimal training. With
 * C = 6 P D and D = 20 P (Hoffmann et al. 2022), a compute budget C gives
 * P = sqrt(C / 120) parameters and D = 20 P tokens; with a fixed model size
 * P the budget buys D = C / (6 P) tokens. A budget given as time is GPU time
 * on the reference accelerator at its sustained utilization. */
#include <math.h>

#include "core/solver.h"

/* engine/calibration.py and literature/data/chinchilla.yaml */
#define REFERENCE_HARDWARE_FLOPS 989e12   /* H100 SXM FP16 dense, flop/s */
#define REFERENCE_MFU_SUSTAINED 0.40
#define CHINCHILLA_COMPUTE_CONSTANT 6.0   /* flop per parameter per token */
#define CHINCHILLA_TOKENS_PER_PARAM 20.0

enum { I_BUDGET, I_TARGET, I_N };
static const input_desc INPUTS[I_N] = {
    [I_BUDGET] = {.name = "compute_budget", .kind = IN_QUANTITY, .dim = &DIM_OPS, .unit = "flop",
                  .alt_dim = &DIM_TIME, .alt_factor = REFERENCE_HARDWARE_FLOPS * REFERENCE_MFU_SUSTAINED,
                  .description = "Training compute: operations (\"1e21 flop\", \"3.14e23 FLOP\") or GPU time "
                                 "(\"1000 day\": x 989 TFLOP/s x 0.40 sustained). As in mlsysim, the formulas read "
                                 "the number in the unit it is written in (\"1 EFLOP\" is a budget of 1): write "
                                 "operations in flop"},
    [I_TARGET] = {.name = "target_model_size", .kind = IN_QUANTITY, .dim = &DIM_COUNTS, .unit = "count",
                  .nullable = true, .optional = true,
                  .description = "Fix the model size (\"8e9 count\") and get the tokens the budget buys; "
                                 "null or 0: the compute-optimal size"},
};

enum { O_PARAMS, O_TOKENS, O_BUDGET, O_RATIO, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_PARAMS] = {.name = "optimal_parameters", .kind = OUT_NUMBER, .unit = "",
                  .description = "Parameters: sqrt(C / 120), or the target size"},
    [O_TOKENS] = {.name = "optimal_tokens", .kind = OUT_NUMBER, .unit = "",
                  .description = "Training tokens: 20 x parameters, or C / (6 x target)"},
    [O_BUDGET] = {.name = "compute_budget", .kind = OUT_NUMBER, .unit = "flop",
                  .description = "The budget in operations"},
    [O_RATIO] = {.name = "tokens_per_parameter", .kind = OUT_NUMBER, .unit = "",
                 .description = "optimal_tokens / optimal_parameters (0 at no budget)"},
};

static int run_scaling(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    /* mlsysim reads the budget's .magnitude without converting it
     * (solvers.md §17 [unit-dependent]): "1 EFLOP" is a budget of 1, "1e18
     * flop" one of 1e18; a time budget was converted to flop first. The
     * budget reported is the quantity itself, in flop. */
    const double c = in_magnitude(in, I_BUDGET);
    double p, d;
    /* mlsysim tests the target's truthiness: 0 means "not given". */
    if (in_has(in, I_TARGET) && in_num(in, I_TARGET) != 0) {
        p = in_num(in, I_TARGET);
        d = c / (CHINCHILLA_COMPUTE_CONSTANT * p);
    } else {
        if (c < 0)
            return solver_fail(err, "compute_budget",
                               "math domain error (the compute-optimal size is sqrt(compute_budget / 120) and "
                               "the budget is negative)");
        p = sqrt(c / (CHINCHILLA_COMPUTE_CONSTANT * CHINCHILLA_TOKENS_PER_PARAM));
        d = CHINCHILLA_TOKENS_PER_PARAM * p;
    }
    out_num(out, O_PARAMS, p);
    out_num(out, O_TOKENS, d);
    out_num(out, O_BUDGET, in_num(in, I_BUDGET));
    out_num(out, O_RATIO, p > 0 ? d / p : 0.0);
    return 0;
}

static const char *const ALIASES[] = {"ScalingModel", NULL};

const solver_desc SOLVER_SCALING = {
    .name = "scaling",
    .aliases = ALIASES,
    .title = "Scaling law: compute-optimal parameters and tokens for a compute budget (Chinchilla)",
    .description = "mlsysim ScalingModel. C = 6 P D with D = 20 P (Hoffmann et al. 2022): P = sqrt(C / 120), "
                   "D = 20 P; for a fixed model size, D = C / (6 P). A budget in GPU time is converted at "
                   "989 TFLOP/s x 0.40.",
    .assumptions = "Chinchilla's compute-optimal split C = 6 N D with about 20 tokens per parameter. A fitted rule "
                   "of thumb: leaves out data quality, architecture and any loss prediction.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_scaling,
    .example_json = "{\"compute_budget\":\"1000 day\",\"target_model_size\":8e9}",
};
