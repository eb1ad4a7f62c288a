/* roofline.c - the single-node roofline: mlsysim SingleNodeModel -> Engine.solve
 * (engine/engine.py, commit 1d9b72db), step by step as in the spec
 * (reference/solvers.md §1). Williams et al. (2009), "Roofline". */
#include "core/roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/precision.h"
#include "core/workload.h"

/* engine/calibration.py */
#define FRAMEWORK_LAYER_TAX_S 0.01e-3
#define ENERGY_IDLE_FRACTION 0.30
#define ENERGY_DYNAMIC_FRACTION 0.70
#define HFU_MFU_RATIO 1.1                 /* engine 1d9b72db: hfu = min(1.1 * mfu, 1) */
#define FALLBACK_PCIE_BANDWIDTH 64e9      /* B/s, offload link when no interconnect */
#define BOTTLENECK_EPS_MS 1e-15           /* physics/performance.py calc_bottleneck */

const input_desc ROOFLINE_INPUTS[RL_N_INPUTS] = {
    [RL_MODEL] = {.name = "model", .kind = IN_REF, .refs = REC_BIT(REC_MODEL),
                  .description = "Workload: a catalog id (ResNet50, Llama3_70B, Models.Vision.ResNet50) or an "
                                 "inline object ({\"base\": \"ResNet50\", \"inference_flops\": \"4.1 GFLOP\"})"},
    [RL_HARDWARE] = {.name = "hardware", .kind = IN_REF, .refs = REC_BIT(REC_HARDWARE),
                     .description = "Accelerator node: a catalog id (A100, H100, ESP32_S3) or an inline object"},
    [RL_BATCH_SIZE] = {.name = "batch_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
                       .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e12,
                       .description = "Samples per step"},
    [RL_PRECISION] = {.name = "precision", .kind = IN_ENUM, .has_default = true, .def_str = "fp16",
                      .enum_values = PRECISION_KEYS,
                      .description = "Numeric format; sets bytes per parameter and the peak rate used"},
    [RL_EFFICIENCY] = {.name = "efficiency", .kind = IN_NUMBER, .has_default = true, .def_num = 0.5,
                       .check = CHECK_RANGE, .lo = 1e-9, .hi = 1.0,
                       .description = "Fraction of peak compute achieved (MFU-like derating)"},
    [RL_IS_TRAINING] = {.name = "is_training", .kind = IN_BOOLEAN, .has_default = true, .def_num = 0,
                        .description = "Training step (forward + backward: 3x ops) instead of inference"},
    [RL_SEQ_LEN] = {.name = "seq_len", .kind = IN_INTEGER, .has_default = true, .def_num = 2048,
                    .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
                    .description = "Sequence length for Transformer training memory (activations)"},
    [RL_ZERO_STAGE] = {.name = "zero_stage", .kind = IN_INTEGER, .has_default = true, .def_num = 0,
                       .check = CHECK_RANGE, .lo = 0, .hi = 3, .lo_is_int = true, .hi_is_int = true,
                       .description = "ZeRO stage for Transformer training memory: 1 shards optimizer state, "
                                      "2 also gradients, 3 also weights, over dp_size"},
    [RL_DP_SIZE] = {.name = "dp_size", .kind = IN_INTEGER, .has_default = true, .def_num = 1,
                    .check = CHECK_AT_LEAST, .lo = 1, .lo_is_int = true, .int_max = 1e9,
                    .description = "Data-parallel degree that ZeRO shards over"},
    [RL_IS_LORA] = {.name = "is_lora", .kind = IN_BOOLEAN, .has_default = true, .def_num = 0,
                    .description = "LoRA fine-tuning (rank 16): only adapter gradients and optimizer state"},
    [RL_ACTIVATION_RECOMPUTATION] = {.name = "activation_recomputation", .kind = IN_BOOLEAN,
                                     .has_default = true, .def_num = 0,
                                     .description = "Recompute activations in the backward pass: 4x ops, "
                                                    "selective activation memory"},
};

/* The Memory Wall trace line, with Pint's "~P" rendering of the byte counts in GB
 * ("Required 0.0512 GB <= Available 85.89934592 GB on NVIDIA A100."), composed
 * without printf; nothing when msgs is quiet (a sweep's point drops it anyway). */
static void memory_wall_trace(bool feasible, double need_bytes, const hw_node *hw, solver_outputs *msgs)
{
    if (msgs->quiet)
        return;
    char need[40], have[40];
    fmt_pyrepr(need, sizeof need, need_bytes / 1e9);
    fmt_pyrepr(have, sizeof have, hw->mem_capacity / 1e9);
    const char *parts[] = {feasible ? "Memory Wall: Passed. Required " : "Memory Wall: FAILED. Required ", need,
                           feasible ? " GB <= Available " : " GB > Available ", have, " GB on ", hw->name, "."};
    solver_trace_parts(msgs, parts, sizeof parts / sizeof parts[0]);
}

static void precision_fallback_warning(const hw_node *hw, const char *key, solver_outputs *msgs)
{
    char avail[200] = "";
    size_t used = 0;
    for (int i = 0; i < hw->n_precisions && used < sizeof avail; i++)
        used += (size_t)snprintf(avail + used, sizeof avail - used, "%s'%s'", i ? ", " : "", hw->precisions[i].name);
    solver_warn(msgs,
                "Precision '%s' not in %s precision_flops (available: [%s]); using default peak_flops "
                "(FP16). Results may be inaccurate.",
                key, hw->name, avail);
}

int roofline_run(const roofline_query *q, roofline_result *r, solver_outputs *msgs, solver_error *err)
{
    const model_t *model = q->model;
    const hw_node *hw = q->hw;
    const double batch = q->batch_size;
    const int prec = q->precision;
    const char *prec_key = PRECISION_KEYS[prec];
    const double bpe = precision_bytes(prec);
    const double efficiency = q->efficiency;
    const bool training = q->is_training;
    const bool recompute = q->activation_recomputation;
    const bool lora = q->is_lora;
    memset(r, 0, sizeof *r);

    /* 1. Peak rate for this precision, falling back to the default peak. */
    const hw_precision_flops *pf = hw_find_precision(hw, prec_key);
    double peak = pf ? pf->flops : hw->peak_flops;
    if (!pf && hw->n_precisions > 0 && strcmp(prec_key, "fp16") != 0 && strcmp(prec_key, "bf16") != 0)
        precision_fallback_warning(hw, prec_key, msgs);
    if (!(peak > 0))
        return solver_fail(err, "hardware", "hardware '%s' has no positive peak compute rate for %s", hw->name,
                           prec_key);

    /* 2. Lower the workload. */
    lowered_graph g;
    if (workload_lower(model, bpe, &g, err) != 0)
        return -1;

    /* 3. Ops and footprint. */
    double ops = g.total_ops;
    double footprint = g.weight_bytes;
    if (training) {
        ops *= recompute ? 4.0 : 3.0;
        if (workload_has_training_memory(model)) {
            training_memory_params p = {
                .batch_size = batch, .seq_len = q->seq_len, .bytes_per_element = bpe,
                .adam = true, .strategy = recompute ? ACT_SELECTIVE : ACT_NONE,
                .zero_stage = q->zero_stage, .dp_size = q->dp_size,
                .is_lora = lora, .lora_rank = 16};
            if (workload_training_memory(model, &p, &footprint, err) != 0)
                return -1;
        } else {
            /* weights + gradients + optimizer, or weights + small adapters for LoRA */
            footprint = g.weight_bytes * (lora ? 1.1 : 3.0);
        }
    }

    /* 4. Feasibility (inclusive). */
    r->feasible = footprint <= hw->mem_capacity;
    memory_wall_trace(r->feasible, footprint, hw, msgs);

    /* 5. Effective rates. */
    double flops_eff = peak * efficiency;
    double bw;
    if (!r->feasible) {
        /* Offload: weights stream over the host link. */
        double link = (hw->has_interconnect && !isnan(hw->interconnect_bw)) ? hw->interconnect_bw
                                                                              : FALLBACK_PCIE_BANDWIDTH;
        bw = fmin(hw->mem_bandwidth, link);
        r->spill = footprint - hw->mem_capacity;
        r->offload_bw = bw;
    } else if (!isnan(hw->sram_capacity) && !isnan(hw->sram_bandwidth) && g.weight_bytes <= hw->sram_capacity) {
        bw = hw->sram_bandwidth;
    } else if (!isnan(hw->flash_bandwidth)) {
        bw = hw->flash_bandwidth;
    } else {
        bw = hw->mem_bandwidth;
    }
    if (!(bw > 0))
        return solver_fail(err, "hardware",
                           "hardware '%s' has no positive memory bandwidth (mlsysim divides by zero)", hw->name);

    /* 6. Times: weights once + 10 % of weight bytes per sample. */
    double ops_batch = ops * batch;
    double t_compute = ops_batch == 0 ? 0.0 : ops_batch / flops_eff;
    double traffic = g.weight_bytes + 0.1 * g.weight_bytes * batch;
    double t_memory = traffic / bw;

    /* 7. calc_bottleneck (thresholds in ms). */
    if (t_compute * 1e3 < BOTTLENECK_EPS_MS) {
        r->memory_bound = true;
        r->intensity = 0.0;
    } else if (t_memory * 1e3 < BOTTLENECK_EPS_MS) {
        r->memory_bound = false;
        r->intensity = INFINITY;
    } else {
        r->memory_bound = t_memory > t_compute;
        r->intensity = ops_batch / traffic;
    }

    /* 8-9. Framework overheads. */
    double layer_tax = workload_layer_count(model) * FRAMEWORK_LAYER_TAX_S * (training ? 3.0 : 1.0);
    r->overhead = hw->dispatch_tax + layer_tax;
    r->latency = fmax(t_compute, t_memory) + r->overhead;

    /* 10-13. Throughput, utilization, energy. */
    r->throughput = r->latency > 0 ? batch / r->latency : 0.0;
    r->mfu = (r->latency > 0 && peak > 0) ? fmin(fmax((ops_batch / r->latency) / peak, 0.0), 1.0) : 0.0;
    r->hfu = fmin(HFU_MFU_RATIO * r->mfu, 1.0);
    r->energy = isnan(hw->tdp) ? 0.0
                               : hw->tdp * (ENERGY_IDLE_FRACTION + ENERGY_DYNAMIC_FRACTION * r->mfu) * r->latency;
    r->t_compute = t_compute;
    r->t_memory = t_memory;
    r->footprint = footprint;
    r->flops_eff = flops_eff;
    r->bw_eff = bw;
    r->peak = peak;
    return 0;
}
