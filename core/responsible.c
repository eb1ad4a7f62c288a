/* responsible.c - mlsysim ResponsibleEngineeringModel (reference/solvers.md
 * §26): what differential privacy costs in training time (DP-SGD slows a
 * step by 1 + 2 / epsilon) and what fairness costs in data (enough samples
 * of the rarest subgroup takes 1 / prevalence times the data). */
#include <math.h>

#include "core/solver.h"

/* engine/calibration.py */
#define DP_SGD_SLOWDOWN_COEFFICIENT 2.0
#define MIN_EPSILON 0.01        /* smaller budgets are costed as 0.01 */
#define MIN_PREVALENCE 1e-6     /* rarer subgroups are costed as 1e-6 */

enum { I_BASE_TIME, I_EPSILON, I_DELTA, I_PREVALENCE, I_N };
static const input_desc INPUTS[I_N] = {
    [I_BASE_TIME] = {.name = "base_training_time", .kind = IN_QUANTITY, .dim = &DIM_TIME, .unit = "s",
                     .description = "Training time without privacy (\"100 hour\", \"10 day\")"},
    [I_EPSILON] = {.name = "epsilon", .kind = IN_NUMBER, .has_default = true, .def_num = 1.0,
                   .description = "Differential-privacy budget; below 0.01 it is costed as 0.01"},
    [I_DELTA] = {.name = "delta", .kind = IN_NUMBER, .has_default = true, .def_num = 1e-5,
                 .description = "Differential-privacy failure probability (taken unchecked, as mlsysim takes "
                                "it; the cost model does not depend on it)"},
    [I_PREVALENCE] = {.name = "min_subgroup_prevalence", .kind = IN_NUMBER, .has_default = true, .def_num = 0.01,
                      .description = "Share of the data held by the rarest subgroup to be served fairly; below "
                                     "1e-6 it is costed as 1e-6"},
};

enum { O_SLOWDOWN, O_TIME, O_DATA, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_SLOWDOWN] = {.name = "dp_slowdown_factor", .kind = OUT_NUMBER, .unit = "",
                    .description = "DP-SGD step slowdown: 1 + 2 / epsilon"},
    [O_TIME] = {.name = "effective_training_time", .kind = OUT_NUMBER, .unit = "s",
                .description = "base_training_time x dp_slowdown_factor"},
    [O_DATA] = {.name = "additional_data_requirement", .kind = OUT_NUMBER, .unit = "",
                .description = "Data multiplier for the rarest subgroup: 1 / min_subgroup_prevalence"},
};

static int run_responsible(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    (void)err;
    const double slowdown = 1.0 + DP_SGD_SLOWDOWN_COEFFICIENT / fmax(in_num(in, I_EPSILON), MIN_EPSILON);
    out_num(out, O_SLOWDOWN, slowdown);
    out_num(out, O_TIME, in_num(in, I_BASE_TIME) * slowdown);
    out_num(out, O_DATA, 1.0 / fmax(in_num(in, I_PREVALENCE), MIN_PREVALENCE));
    return 0;
}

static const char *const ALIASES[] = {"ResponsibleEngineeringModel", NULL};

const solver_desc SOLVER_RESPONSIBLE_ENGINEERING = {
    .name = "responsible_engineering",
    .aliases = ALIASES,
    .title = "Responsible engineering: the training-time cost of privacy and the data cost of fairness",
    .description = "mlsysim ResponsibleEngineeringModel. DP-SGD at privacy budget epsilon slows training by "
                   "1 + 2 / epsilon; serving a subgroup of prevalence p fairly needs 1 / p times the data.",
    .assumptions = "Fixed rules: DP-SGD slows training by 1 + 2 / epsilon; a subgroup of prevalence p needs 1 / p "
                   "times the data. Rules of thumb, not measurements of a particular model or dataset.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_responsible,
    .example_json = "{\"base_training_time\":\"10 day\",\"epsilon\":0.1,\"min_subgroup_prevalence\":0.2}",
};
