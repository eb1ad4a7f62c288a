/* single_node.c - the single_node solver (mlsysim SingleNodeModel): the
 * roofline of core/roofline.c on a request's inputs, in its calibration mode
 * (measured mode's physics from core/measured.c), and the solver descriptor. */
#include "core/single_node.h"

#include <math.h>

#include "core/measured.h"

int single_node_solve(const solver_inputs *in, roofline_result *r, solver_outputs *msgs, solver_error *err)
{
    const roofline_query q = {
        .model = in_model(in, RL_MODEL),
        .hw = in_hw(in, RL_HARDWARE),
        .batch_size = in_num(in, RL_BATCH_SIZE),
        .precision = in_enum(in, RL_PRECISION),
        .efficiency = in_num(in, RL_EFFICIENCY),
        .is_training = in_bool(in, RL_IS_TRAINING),
        .seq_len = in_num(in, RL_SEQ_LEN),
        .zero_stage = in_int(in, RL_ZERO_STAGE),
        .dp_size = in_num(in, RL_DP_SIZE),
        .is_lora = in_bool(in, RL_IS_LORA),
        .activation_recomputation = in_bool(in, RL_ACTIVATION_RECOMPUTATION),
        .calibration = in->calibration,
        .efficiency_given = !in->v[RL_EFFICIENCY].defaulted,
    };
    if (roofline_run(&q, r, msgs, err) != 0)
        return -1;
    if (q.calibration == CALIBRATION_MEASURED)
        measured_roofline(&q, r->peak, r, msgs);
    return 0;
}


/* --- the single_node solver ---------------------------------------------------- */

enum {
    O_LATENCY, O_LAT_COMPUTE, O_LAT_MEMORY, O_LAT_OVERHEAD, O_THROUGHPUT, O_BOTTLENECK, O_INTENSITY,
    O_ENERGY, O_FOOTPRINT, O_PEAK_FLOPS, O_PEAK_BW, O_MFU, O_HFU, O_FEASIBLE, O_SPILL, O_OFFLOAD_BW, O_N
};

static const output_desc OUTPUTS[O_N] = {
    [O_LATENCY] = {.name = "latency", .kind = OUT_NUMBER, .unit = "ms",
                   .description = "Step latency: max(compute, memory) + overheads"},
    [O_LAT_COMPUTE] = {.name = "latency_compute", .kind = OUT_NUMBER, .unit = "ms",
                       .description = "Compute time at the derated peak"},
    [O_LAT_MEMORY] = {.name = "latency_memory", .kind = OUT_NUMBER, .unit = "ms",
                      .description = "Memory time: (weights + 10% per sample) / bandwidth"},
    [O_LAT_OVERHEAD] = {.name = "latency_overhead", .kind = OUT_NUMBER, .unit = "ms",
                        .description = "Dispatch tax + per-layer framework tax"},
    [O_THROUGHPUT] = {.name = "throughput", .kind = OUT_NUMBER, .unit = "1/s", .description = "Samples per second"},
    [O_BOTTLENECK] = {.name = "bottleneck", .kind = OUT_STRING, .unit = "",
                      .description = "Binding roofline: Compute or Memory", .categorical = true},
    [O_INTENSITY] = {.name = "arithmetic_intensity", .kind = OUT_NUMBER, .unit = "flop/B",
                     .description = "Ops per byte moved"},
    [O_ENERGY] = {.name = "energy", .kind = OUT_NUMBER, .unit = "J",
                  .description = "Energy of the whole step (not per sample)"},
    [O_FOOTPRINT] = {.name = "memory_footprint", .kind = OUT_NUMBER, .unit = "B",
                     .description = "Memory required (weights, or training memory)"},
    [O_PEAK_FLOPS] = {.name = "peak_flops_actual", .kind = OUT_NUMBER, .unit = "TFLOP/s",
                      .description = "Derated compute rate: peak x efficiency"},
    [O_PEAK_BW] = {.name = "peak_bw_actual", .kind = OUT_NUMBER, .unit = "GB/s",
                   .description = "Bandwidth used (HBM, SRAM, flash or offload link)"},
    [O_MFU] = {.name = "mfu", .kind = OUT_NUMBER, .unit = "",
               .description = "Model FLOPs utilization against the un-derated peak"},
    [O_HFU] = {.name = "hfu", .kind = OUT_NUMBER, .unit = "",
               .description = "Hardware FLOPs utilization: min(1.1 x MFU, 1)"},
    [O_FEASIBLE] = {.name = "feasible", .kind = OUT_BOOLEAN, .unit = "",
                    .description = "The footprint fits in device memory", .categorical = true},
    [O_SPILL] = {.name = "offload_spill_bytes", .kind = OUT_NUMBER, .unit = "B",
                 .description = "Bytes over capacity (null unless offloading)", .nullable = true},
    [O_OFFLOAD_BW] = {.name = "offload_effective_bw", .kind = OUT_NUMBER, .unit = "GB/s",
                      .description = "Offload bandwidth (null unless offloading)", .nullable = true},
};

static int run_single_node(const solver_inputs *in, solver_outputs *out, solver_error *err)
{
    roofline_result r;
    if (single_node_solve(in, &r, out, err) != 0)
        return -1;
    out_num(out, O_LATENCY, r.latency * 1e3);
    out_num(out, O_LAT_COMPUTE, r.t_compute * 1e3);
    out_num(out, O_LAT_MEMORY, r.t_memory * 1e3);
    out_num(out, O_LAT_OVERHEAD, r.overhead * 1e3);
    out_num(out, O_THROUGHPUT, r.throughput);
    out_str(out, O_BOTTLENECK, r.memory_bound ? "Memory" : "Compute");
    out_num(out, O_INTENSITY, r.intensity);
    out_num(out, O_ENERGY, r.energy);
    out_num(out, O_FOOTPRINT, r.footprint);
    out_num(out, O_PEAK_FLOPS, r.flops_eff / 1e12);
    out_num(out, O_PEAK_BW, r.bw_eff / 1e9);
    out_num(out, O_MFU, r.mfu);
    out_num(out, O_HFU, r.hfu);
    out_bool(out, O_FEASIBLE, r.feasible);
    if (r.feasible) {
        out_null(out, O_SPILL);
        out_null(out, O_OFFLOAD_BW);
    } else {
        out_num(out, O_SPILL, r.spill);
        out_num(out, O_OFFLOAD_BW, r.offload_bw / 1e9);
    }
    return 0;
}

static const char *const TIMED[] = {"latency", "throughput", NULL};

static int single_node_families(const solver_inputs *in, solver_band *bands)
{
    if (!in) {
        bands[0] = (solver_band){CF_CNN_INFERENCE, TIMED};
        bands[1] = (solver_band){CF_CNN_TRAINING, TIMED};
        bands[2] = (solver_band){CF_ENCODER, TIMED};
        return 3;
    }
    bands[0] = (solver_band){measured_single_node_family(in_model(in, RL_MODEL), in_bool(in, RL_IS_TRAINING)), TIMED};
    return 1;
}

static const char *const ALIASES[] = {"SingleNodeModel", "roofline", NULL};

/* Outputs monotone in an input (solver.h), checked by tests/api/test_optimize.c. */
static const monotone_desc MONOTONE[] = {
    {"batch_size", "latency", +1},
    {"batch_size", "throughput", +1},
    {"batch_size", "memory_footprint", +1},
    {"batch_size", "feasible", -1},
    {NULL, NULL, 0},
};

const solver_desc SOLVER_SINGLE_NODE = {
    .name = "single_node",
    .aliases = ALIASES,
    .title = "Single-node roofline: step time, throughput and the binding wall",
    .description = "mlsysim SingleNodeModel / Engine.solve. Lowers the workload to ops and bytes for the "
                   "precision, checks the memory wall (offloading over the host link when it does not fit), "
                   "and takes max(compute, memory) time plus dispatch and per-layer framework overheads "
                   "(Williams et al. 2009, Roofline).",
    .assumptions = "A roofline of one node: max(compute at peak x efficiency, memory traffic of the weights once "
                   "plus 10% of the weight bytes per sample) plus fixed dispatch and per-layer taxes. Leaves out "
                   "kernel fusion, partial compute/memory overlap, cache effects, activation and KV traffic, and "
                   "contention; energy is TDP scaled by MFU.",
    .measured_assumptions =
        "Measured mode: layer FLOPs at fitted convolution, GEMM and attention efficiencies per accelerator "
        "(attention growing with the square of seq_len), activation traffic at the achieved bandwidth, a fitted "
        "launch and framework time per layer (one fused kernel per layer for 8-bit engines), compute and memory "
        "overlapping in part, and recomputation when a training step's activations do not fit. Leaves out which "
        "software runs the model at 16-bit (an eager framework or a compiled engine: up to 2-5x apart at small "
        "batch), variable sequence lengths within a batch, cache effects and contention; energy is TDP scaled "
        "by MFU.",
    .inputs = ROOFLINE_INPUTS,
    .n_inputs = RL_N_INPUTS,
    .outputs = OUTPUTS,
    .n_outputs = O_N,
    .monotone = MONOTONE,
    .run = run_single_node,
    .measured_families = single_node_families,
    .example_json = "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}",
    .plan_role = "node",
};
