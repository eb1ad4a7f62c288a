/* sensitivity.c - mlsysim SensitivitySolver (engine/solvers/performance.py,
 * reference/solvers.md §6): which hardware parameter binds? The single-node
 * roofline (core/roofline.h) at batch 1, inference, is re-run with one
 * parameter of the accelerator raised by perturbation_pct at a time (peak
 * rate with every per-precision rate, memory bandwidth, memory capacity);
 * each sensitivity is the relative change of latency, and the binding
 * constraint the parameter with the largest one in magnitude (the first in
 * that order on a tie). Williams et al. (2009); Ofenbeck et al. (2014). */
#include <math.h>

#include "core/numfmt.h"
#include "core/precision.h"
#include "core/roofline.h"
#include "core/solver.h"

enum { I_MODEL, I_HARDWARE, I_PRECISION, I_PERTURBATION, I_EFFICIENCY, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                 .description = "Workload: a catalog id or an inline object"},
    [I_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                    .description = "Baseline accelerator whose parameters are perturbed"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS,
                     .description = "Numeric format of the baseline and perturbed solves"},
    [I_PERTURBATION] = {.name = "perturbation_pct", .kind = IN_NUMBER, .has_default = true, .def_num = 10.0,
                        .description = "Size of each upgrade in percent (10 = 1.1x); negative values "
                                       "degrade the parameter"},
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                      .description = "Fraction of peak compute achieved (MFU-like derating)"},
};

/* The perturbed parameters, in tie-breaking order; names are both the
 * output members and the binding_constraint values. */
enum { P_PEAK_FLOPS, P_MEMORY_BANDWIDTH, P_MEMORY_CAPACITY, P_N };
static const char *const PARAMETERS[P_N] = {"peak_flops", "memory_bandwidth", "memory_capacity"};

enum { O_S_FLOPS, O_S_BANDWIDTH, O_S_CAPACITY, O_BINDING, O_BASELINE, O_FEASIBLE, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_S_FLOPS] = {.name = "sensitivities.peak_flops", .kind = OUT_NUMBER, .unit = "",
                   .description = "Relative latency change when peak compute (every precision) is raised"},
    [O_S_BANDWIDTH] = {.name = "sensitivities.memory_bandwidth", .kind = OUT_NUMBER, .unit = "",
                       .description = "Relative latency change when memory bandwidth is raised"},
    [O_S_CAPACITY] = {.name = "sensitivities.memory_capacity", .kind = OUT_NUMBER, .unit = "",
                      .description = "Relative latency change when memory capacity is raised"},
    [O_BINDING] = {.name = "binding_constraint", .kind = OUT_STRING, .unit = "",
                   .description = "The parameter with the largest |sensitivity|: peak_flops, memory_bandwidth or "
                                  "memory_capacity", .categorical = true},
    [O_BASELINE] = {.name = "baseline_latency", .kind = OUT_NUMBER, .unit = "ms",
                    .description = "Latency of the unperturbed roofline (batch 1)"},
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "The baseline fits in device memory", .categorical = true},
};

static int check_perturbation(const solver_inputs *in, solver_error *err)
{
    double pct = in_num(in, I_PERTURBATION);
    if (pct > -100.0)
        return 0;
    char got[40];
    fmt_pyrepr(got, sizeof got, pct);
    return solver_fail(err, "perturbation_pct",
                       "perturbation_pct must be > -100 (a parameter scaled to zero or below; at -100 the peak "
                       "rate is 0 and mlsysim fails with ZeroDivisionError: float division by zero), got %s",
                       got);
}
static const char *const PERTURBATION_INPUTS[] = {"perturbation_pct", NULL};
static const input_constraint CONSTRAINTS[] = {
    {.rule = "perturbation_pct > -100", .inputs = PERTURBATION_INPUTS, .check = check_perturbation},
};

/* A copy of the accelerator with parameter p scaled by k. */
static void perturb(const hw_node *base, int p, double k, hw_node *hw)
{
    *hw = *base;
    switch (p) {
    case P_PEAK_FLOPS:
        hw->peak_flops *= k;
        for (int i = 0; i < hw->n_precisions; i++)
            hw->precisions[i].flops *= k;
        break;
    case P_MEMORY_BANDWIDTH:
        hw->mem_bandwidth *= k;   /* SRAM and flash bandwidths stay */
        break;
    default:
        hw->mem_capacity *= k;
        break;
    }
}

static int run_sensitivity(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    const hw_node *hw = in_hw(in, I_HARDWARE);
    roofline_query q = {
        .model = in_model(in, I_MODEL), .hw = hw, .batch_size = 1, .precision = in_enum(in, I_PRECISION),
        .efficiency = in_num(in, I_EFFICIENCY), .seq_len = 2048, .dp_size = 1,
    };
    roofline_result base;
    if (roofline_run(&q, &base, out, err) != 0)
        return -1;
    const double t0 = base.latency * 1e3;
    const double k = 1.0 + in_num(in, I_PERTURBATION) / 100.0;

    /* The perturbed runs repeat the baseline's warnings and trace: keep them out. */
    solver_outputs scratch;
    scratch.quiet = true;
    int binding = 0;
    double s[P_N];
    for (int p = 0; p < P_N; p++) {
        hw_node changed;
        perturb(hw, p, k, &changed);
        q.hw = &changed;
        roofline_result r;
        if (roofline_run(&q, &r, &scratch, err) != 0)
            return -1;
        s[p] = t0 > 0 ? (r.latency * 1e3 - t0) / t0 : 0.0;
        if (fabs(s[p]) > fabs(s[binding]))
            binding = p;
    }
    out_num(out, O_S_FLOPS, s[P_PEAK_FLOPS]);
    out_num(out, O_S_BANDWIDTH, s[P_MEMORY_BANDWIDTH]);
    out_num(out, O_S_CAPACITY, s[P_MEMORY_CAPACITY]);
    out_str(out, O_BINDING, PARAMETERS[binding]);
    out_num(out, O_BASELINE, t0);
    out_bool(out, O_FEASIBLE, base.feasible);
    return 0;
}

static const char *const ALIASES[] = {"SensitivitySolver", NULL};

const solver_desc SOLVER_SENSITIVITY = {
    .name = "sensitivity",
    .aliases = ALIASES,
    .title = "Sensitivity: which hardware parameter binds the latency?",
    .description = "mlsysim SensitivitySolver. Re-runs the single-node roofline (batch 1, inference) with peak "
                   "compute, memory bandwidth and memory capacity each raised by perturbation_pct, and reports "
                   "the relative latency change of each and the one that moves latency most (Williams et al. "
                   "2009). A sweep over perturbation_pct shows where the binding constraint changes.",
    .assumptions = "single_node at batch 1, re-run with one hardware figure perturbed at a time. Leaves out "
                   "interactions between figures and everything single_node leaves out.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .constraints = CONSTRAINTS,
    .n_constraints = sizeof CONSTRAINTS / sizeof CONSTRAINTS[0],
    .run = run_sensitivity,
    .example_json = "{\"model\":\"Llama3_70B\",\"hardware\":\"H200\",\"precision\":\"int8\",\"perturbation_pct\":50}",
};
