/* efficiency.c - mlsysim EfficiencyModel (engine/solvers/performance.py,
 * reference/solvers.md §5): the software-efficiency wall. Which fraction of
 * the accelerator's peak a kernel family reaches (MFU), scaled from
 * literature ranges by the caller's efficiency, and where the rest goes:
 * SM occupancy, and memory stalls for the remainder. Chowdhery et al. (2022)
 * for MFU, Dao et al. (2022) for FlashAttention. */
#include <math.h>

#include "core/precision.h"
#include "core/solver.h"

/* literature/data/training.yaml (MfuLow, MfuHigh) and engine/calibration.py */
#define MFU_LOW 0.3
#define MFU_HIGH 0.5
#define MFU_REFERENCE_EFFICIENCY 0.5   /* the efficiency the ranges are quoted at */
#define MFU_FLASH_ATTENTION 0.75
#define MFU_FLASH_ATTENTION_CAP 0.85
#define MFU_FFN_CAP 0.60
#define MFU_CONV_CAP 0.55
#define SM_OCCUPANCY_HEADROOM 1.1

static const char *const WORKLOAD_TYPES[] = {"attention", "ffn", "conv", "other", NULL};
enum { WT_ATTENTION, WT_FFN, WT_CONV, WT_OTHER };

enum { I_MODEL, I_HARDWARE, I_WORKLOAD_TYPE, I_FLASH, I_PRECISION, I_EFFICIENCY, I_N };
static const input_desc INPUTS[I_N] = {
    [I_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL), .optional = true,
                 .description = "Workload (accepted as mlsysim takes it; the estimate does not depend on it)"},
    [I_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                    .description = "Accelerator whose peak rate at `precision` is the 100 %"},
    [I_WORKLOAD_TYPE] = {.name = "workload_type", .kind = IN_ENUM, .has_default = true, .def_str = "ffn",
                         .enum_values = WORKLOAD_TYPES,
                         .description = "Dominant kernel family: attention, ffn (dense GEMM), conv, or other; as in mlsysim, a "
                                        "value spelled in another case (\"FFN\") counts as other"},
    [I_FLASH] = {.name = "use_flash_attention", .kind = IN_BOOLEAN, .has_default = true, .def_num = 0,
                 .description = "FlashAttention kernels (applies to attention only)"},
    [I_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                     .enum_values = PRECISION_KEYS,
                     .description = "Numeric format: selects the peak rate (the default peak when the "
                                    "accelerator lists no rate for it, or, as mlsysim looks it up unresolved, "
                                    "when spelled in another case: \"FP8\")"},
    /* Unbounded, as upstream (no validation): above 1 the caps and the
     * [0, 1] clamp of the MFU still apply. */
    [I_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                      .description = "Software stack quality; 0.5 reproduces the literature MFU ranges, the "
                                     "MFU scales linearly with it (not bounded: the MFU is clamped to [0, 1])"},
};

enum { O_MFU, O_ACHIEVABLE, O_PEAK, O_OCCUPANCY, O_STALL, O_N };
static const output_desc OUTPUTS[O_N] = {
    [O_MFU] = {.name = "mfu", .kind = OUT_NUMBER, .unit = "",
               .description = "Achievable model FLOPs utilization for the kernel family"},
    [O_ACHIEVABLE] = {.name = "achievable_flops", .kind = OUT_NUMBER, .unit = "flop/s",
                      .description = "peak_flops x mfu"},
    [O_PEAK] = {.name = "peak_flops", .kind = OUT_NUMBER, .unit = "flop/s",
                .description = "Peak rate at the precision"},
    [O_OCCUPANCY] = {.name = "overhead_breakdown.occupancy_loss", .kind = OUT_NUMBER, .unit = "",
                     .description = "Share of peak lost to SM occupancy: 1 - min(1.1 x efficiency, 1)"},
    [O_STALL] = {.name = "overhead_breakdown.memory_stall", .kind = OUT_NUMBER, .unit = "",
                 .description = "The rest of 1 - mfu: waiting on data movement"},
};

static int run_efficiency(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    (void)err;
    const hw_node *hw = in_hw(in, I_HARDWARE);
    const double efficiency = in_num(in, I_EFFICIENCY);
    /* Upstream compares and looks up the strings as written, unresolved:
     * "FP8" finds no precision entry (the default peak) and "FFN" is not
     * "ffn" (the else-branch, as "other"). */
    const hw_precision_flops *pf = in_enum_respelled(in, I_PRECISION)
                                       ? NULL
                                       : hw_find_precision(hw, PRECISION_KEYS[in_enum(in, I_PRECISION)]);
    const double peak = pf ? pf->flops : hw->peak_flops;
    const int type = in_enum_respelled(in, I_WORKLOAD_TYPE) ? WT_OTHER : in_enum(in, I_WORKLOAD_TYPE);

    /* Each range scales linearly with the efficiency relative to 0.5. */
    const double scale = efficiency / MFU_REFERENCE_EFFICIENCY;
    double eta;
    switch (type) {
    case WT_ATTENTION:
        /* Standard attention is memory-bound on its O(S^2) reads. */
        eta = in_bool(in, I_FLASH) ? fmin(MFU_FLASH_ATTENTION * scale, MFU_FLASH_ATTENTION_CAP) : MFU_LOW * scale;
        break;
    case WT_FFN:
        eta = fmin(MFU_HIGH * scale, MFU_FFN_CAP);
        break;
    case WT_CONV:
        eta = fmin((MFU_LOW + MFU_HIGH) / 2.0 * scale, MFU_CONV_CAP);
        break;
    default:
        eta = MFU_LOW * scale;
        break;
    }
    eta = fmax(0.0, fmin(eta, 1.0));

    const double occupancy = 1.0 - fmin(efficiency * SM_OCCUPANCY_HEADROOM, 1.0);
    out_num(out, O_MFU, eta);
    out_num(out, O_ACHIEVABLE, peak * eta);
    out_num(out, O_PEAK, peak);
    out_num(out, O_OCCUPANCY, occupancy);
    out_num(out, O_STALL, fmax(0.0, (1.0 - eta) - occupancy));
    return 0;
}

static const char *const ALIASES[] = {"EfficiencyModel", NULL};

const solver_desc SOLVER_EFFICIENCY = {
    .name = "efficiency",
    .aliases = ALIASES,
    .title = "Software efficiency: achievable MFU for a kernel family, and where the rest of peak goes",
    .description = "mlsysim EfficiencyModel. MFU from literature ranges (attention 0.3, with FlashAttention 0.75 "
                   "capped at 0.85; FFN 0.5 capped at 0.6; conv 0.4 capped at 0.55), scaled by efficiency / 0.5; "
                   "the overhead 1 - MFU split into SM occupancy loss and memory stall (Chowdhery et al. 2022, "
                   "Dao et al. 2022).",
    .assumptions = "MFU from literature ceilings by workload type (attention, ffn, conv), scaled by efficiency; the "
                   "workload's own shape is not used. Leaves out kernel-level detail: the split into occupancy loss "
                   "and memory stall is a rule, not a measurement.",
    .inputs = INPUTS,
    .n_inputs = I_N,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .run = run_efficiency,
    .example_json = "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"workload_type\":\"attention\","
                    "\"use_flash_attention\":true,\"efficiency\":0.9}",
};
