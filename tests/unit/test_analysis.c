/* test_analysis.c - the model-analysis solvers called directly, without the
 * server: compression (reference/solvers.md §28), efficiency (§5),
 * sensitivity (§6), synthesis (§7), and the scalar solvers
 * responsible_engineering (§26) and scaling (§17).
 *
 * Inputs are built by hand the way the generic layer leaves them (defaults
 * from the descriptor, bound checks and constraints, then run();
 * solver_fixture.h), on hand-made accelerators and workloads with round
 * numbers, so every expected value is a short calculation written next to
 * it. Golden parity over HTTP is in tests/api/test_golden.c. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "core/precision.h"
#include "core/solver.h"
#include "solver_fixture.h"

/* ---- hand-made accelerators and workloads ------------------------------------ */

/* 100 TFLOP/s, 100 GB at 1 TB/s, no dispatch tax; every optional field absent. */
static hw_node mk_hw(void)
{
    hw_node h;
    memset(&h, 0, sizeof h);
    snprintf(h.key, sizeof h.key, "Toy");
    snprintf(h.name, sizeof h.name, "Toy");
    h.peak_flops = 1e14;
    h.mem_capacity = 100e9;
    h.mem_bandwidth = 1e12;
    h.sram_capacity = h.sram_bandwidth = h.flash_capacity = h.flash_bandwidth = NAN;
    h.storage_capacity = h.storage_bandwidth = NAN;
    h.interconnect_bw = NAN;
    h.nvlink_bw = h.nvlink_latency = NAN;
    h.tdp = h.unit_cost = NAN;
    return h;
}

static void add_precision(hw_node *h, const char *key, double flops)
{
    hw_precision_flops *p = &h->precisions[h->n_precisions++];
    snprintf(p->name, sizeof p->name, "%s", key);
    p->flops = flops;
}

/* An LLM-like model: 1 B parameters, 2 GFLOP per token. At FP32 its 4e9 B of
 * weights take 4 ms at 1 TB/s, its ops 0.02 ms at 100 TFLOP/s: memory-bound. */
static model_t llm(void) { return mk_model(WL_TRANSFORMER, 1e9, 2e9, 1); }

/* A CNN-like model: 1 M parameters, 1 TFLOP. At FP32, 4e6 B take 0.004 ms,
 * 1e12 flop take 10 ms: compute-bound. */
static model_t heavy_cnn(void) { return mk_model(WL_CNN, 1e6, 1e12, 1); }

/* ======================================================================== */
/* compression                                                              */
/* ======================================================================== */

static void compress(const model_t *m, const hw_node *h, const char *method, int bits, double sparsity,
                     const char *type)
{
    use_solver("compression");
    set_model("model", m);
    set_hw("hardware", h);
    set_enum("method", method);
    set_int("target_bitwidth", bits);
    set_num("sparsity", sparsity);
    set_enum("sparsity_type", type);
    solve_ok();
}

Test(compression, defaults_are_int8_quantization)
{
    hw_node h = mk_hw();
    model_t m = llm();
    use_solver("compression");
    set_model("model", &m);
    set_hw("hardware", &h);
    solve_ok();
    /* 32 / 8 = 4; memory-bound, so the speed-up is the ratio. */
    expect_num("original_size", 4e9);
    expect_num("compressed_size", 1e9);
    expect_num("compression_ratio", 4.0);
    expect_num("estimated_accuracy_delta", -0.002);
    expect_num("memory_savings", 75.0);
    expect_num("inference_speedup", 4.0);
}

Test(compression, quantization_accuracy_by_bit_width)
{
    hw_node h = mk_hw();
    model_t m = llm();
    static const struct {
        int bits;
        double ratio, delta;
    } rows[] = {
        {32, 1.0, 0.0},           /* >= 16: lossless, ratio 32 / 32 */
        {16, 2.0, 0.0},           /* FP16 */
        {12, 32.0 / 12, -0.025},  /* 4 <= bits < 16, not 8: the INT4 estimate */
        {8, 4.0, -0.002},         /* the FP8 estimate */
        {4, 8.0, -0.025},
        {3, 32.0 / 3, -0.05},     /* below 4 bits */
        {1, 32.0, -0.05},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        compress(&m, &h, "quantization", rows[i].bits, 0, "unstructured");
        expect_num("compression_ratio", rows[i].ratio);
        expect_num("estimated_accuracy_delta", rows[i].delta);
        expect_num("compressed_size", 4e9 / rows[i].ratio);
        expect_num("memory_savings", (1 - 1 / rows[i].ratio) * 100);
        expect_num("inference_speedup", rows[i].ratio); /* memory-bound */
    }
}

Test(compression, compute_bound_speedup_is_the_native_rate)
{
    /* heavy_cnn is compute-bound, so only a native rate at the width helps:
     * int8 at 2x the peak -> min(2, 32/8 = 4) = 2; int4 at 10x -> min(10, 8) = 8;
     * no fp16 entry -> 1; no int2 entry -> 1. */
    hw_node h = mk_hw();
    add_precision(&h, "int8", 2e14);
    add_precision(&h, "int4", 1e15);
    model_t m = heavy_cnn();
    compress(&m, &h, "quantization", 8, 0, "unstructured");
    expect_num("inference_speedup", 2.0);
    expect_num("compression_ratio", 4.0);
    expect_num("original_size", 4e6);
    compress(&m, &h, "quantization", 4, 0, "unstructured");
    expect_num("inference_speedup", 8.0);
    compress(&m, &h, "quantization", 16, 0, "unstructured");
    expect_num("inference_speedup", 1.0);
    expect_num("compression_ratio", 2.0);
    compress(&m, &h, "quantization", 2, 0, "unstructured");
    expect_num("inference_speedup", 1.0);
    /* fp16 listed at 4x: min(4, 32/16 = 2) = 2 (the "fp" key above 8 bits). */
    add_precision(&h, "fp16", 4e14);
    compress(&m, &h, "quantization", 16, 0, "unstructured");
    expect_num("inference_speedup", 2.0);
}

Test(compression, regime_edges_of_calc_bottleneck)
{
    hw_node h = mk_hw();
    add_precision(&h, "int8", 3e14);
    /* No ops (a bare model_size workload lowers to 0 flop): memory-bound, the
     * speed-up is the ratio; the size is model_size whatever the width. */
    model_t sized = mk_model(WL_GENERIC, NAN, NAN, 1);
    sized.model_size = 1e9;
    compress(&sized, &h, "quantization", 8, 0, "unstructured");
    expect_num("original_size", 1e9);
    expect_num("compressed_size", 2.5e8);
    expect_num("inference_speedup", 4.0);
    /* No weight bytes but ops: compute-bound, int8 at 3x -> min(3, 4) = 3. */
    model_t weightless = mk_model(WL_GENERIC, NAN, 1e9, 1);
    weightless.model_size = 0;
    compress(&weightless, &h, "quantization", 8, 0, "unstructured");
    expect_num("inference_speedup", 3.0);
    expect_num("original_size", 0.0);
    /* A tie (t_memory == t_compute) is Compute: 1e6 params x 4 B = 4e6 B take
     * 4 us at 1 TB/s; 4e8 flop take 4 us at 100 TFLOP/s. */
    model_t tie = mk_model(WL_CNN, 1e6, 4e8, 1);
    compress(&tie, &h, "quantization", 8, 0, "unstructured");
    expect_num("inference_speedup", 3.0);
}

Test(compression, base_workload_size_prefers_model_size)
{
    /* Workload.size_in_bytes takes model_size when set, even with parameters;
     * the regime still uses the lowered graph (1e8 params x 4 B). */
    hw_node h = mk_hw();
    model_t m = mk_model(WL_GENERIC, 1e8, NAN, 1);
    m.model_size = 3e9;
    compress(&m, &h, "quantization", 4, 0, "unstructured");
    expect_num("original_size", 3e9);
    expect_num("compressed_size", 3e9 / 8);
}

Test(compression, pruning_by_sparsity_type)
{
    hw_node h = mk_hw();
    model_t m = llm();
    /* s = 0.75 structured: ratio 1 / 0.25 = 4; past the 0.5 threshold the
     * delta is -0.01 e^(2 x 0.75) = -0.01 e^1.5; structured speeds up 4x. */
    compress(&m, &h, "pruning", 8, 0.75, "structured");
    expect_num("compression_ratio", 4.0);
    expect_num("estimated_accuracy_delta", -0.01 * exp(1.5));
    expect_num("inference_speedup", 4.0);
    expect_num("compressed_size", 1e9);
    expect_num("memory_savings", 75.0);
    /* s = 0.5 unstructured: ratio 2, the mild delta (threshold inclusive), no speed-up. */
    compress(&m, &h, "pruning", 8, 0.5, "unstructured");
    expect_num("compression_ratio", 2.0);
    expect_num("estimated_accuracy_delta", -0.001);
    expect_num("inference_speedup", 1.0);
    /* 2:4 within 0.05 of 50 %: 2x; s = 0.52 -> ratio 1 / 0.48. */
    compress(&m, &h, "pruning", 8, 0.52, "n_m");
    expect_num("inference_speedup", 2.0);
    expect_num("compression_ratio", 1 / 0.48);
    expect_num("estimated_accuracy_delta", -0.01 * exp(1.04));
    /* 2:4 at 30 %: no speed-up; ratio 1 / 0.7. */
    compress(&m, &h, "pruning", 8, 0.3, "n_m");
    expect_num("inference_speedup", 1.0);
    expect_num("compression_ratio", 1 / 0.7);
    expect_num("estimated_accuracy_delta", -0.001);
    /* Fully pruned: ratio fixed at 100, savings 99 %, delta -0.01 e^2. */
    compress(&m, &h, "pruning", 8, 1.0, "structured");
    expect_num("compression_ratio", 100.0);
    expect_num("memory_savings", 99.0);
    expect_num("compressed_size", 4e7);
    expect_num("estimated_accuracy_delta", -0.01 * exp(2.0));
    expect_num("inference_speedup", 100.0);
    /* Nothing pruned: ratio 1, savings 0, the mild delta still applies. */
    compress(&m, &h, "pruning", 8, 0.0, "structured");
    expect_num("compression_ratio", 1.0);
    expect_num("memory_savings", 0.0);
    expect_num("estimated_accuracy_delta", -0.001);
}

Test(compression, distillation_changes_nothing)
{
    hw_node h = mk_hw();
    model_t m = llm();
    compress(&m, &h, "distillation", 4, 0.9, "structured");
    expect_num("original_size", 4e9);
    expect_num("compressed_size", 4e9);
    expect_num("compression_ratio", 1.0);
    expect_num("estimated_accuracy_delta", 0.0);
    expect_num("memory_savings", 0.0);
    expect_num("inference_speedup", 1.0);
}

Test(compression, respelled_strings_take_upstreams_else_branch)
{
    /* CompressionModel compares method and sparsity_type with == as written:
     * "Quantization" is the no-op branch (ratio 1, delta 0), and "Structured"
     * pruning at 0.75 keeps its ratio 4 and delta but gives no speed-up. */
    hw_node h = mk_hw();
    model_t m = llm();
    compress(&m, &h, "quantization", 4, 0.0, "unstructured");
    slot("method")->enum_respelled = true;
    solve_ok();
    expect_num("compression_ratio", 1.0);
    expect_num("estimated_accuracy_delta", 0.0);
    expect_num("compressed_size", 4e9);
    expect_num("inference_speedup", 1.0);
    compress(&m, &h, "pruning", 8, 0.75, "structured");
    slot("sparsity_type")->enum_respelled = true;
    solve_ok();
    expect_num("compression_ratio", 4.0);
    expect_num("estimated_accuracy_delta", -0.01 * exp(1.5));
    expect_num("inference_speedup", 1.0);
}

Test(compression, validation_messages)
{
    hw_node h = mk_hw();
    model_t m = llm();
    use_solver("compression");
    set_model("model", &m);
    set_hw("hardware", &h);
    set_int("target_bitwidth", 0);
    solve_fails_with("target_bitwidth", "target_bitwidth must be >= 1, got 0");
    use_solver("compression");
    set_model("model", &m);
    set_hw("hardware", &h);
    set_num("sparsity", 1.5);
    solve_fails_with("sparsity", "sparsity must be in [0.0, 1.0], got 1.5");
    set_num("sparsity", -0.25);
    solve_fails_with("sparsity", "sparsity must be in [0.0, 1.0], got -0.25");
}

Test(compression, records_it_cannot_use)
{
    hw_node h = mk_hw();
    model_t empty = mk_model(WL_GENERIC, NAN, NAN, 1);
    use_solver("compression");
    set_model("model", &empty);
    set_hw("hardware", &h);
    solve_fails_with("model", "no 'parameters'");
    /* Quantization needs the roofline regime: no bandwidth is a 400, not a division by zero. */
    model_t m = llm();
    hw_node flat = mk_hw();
    flat.mem_bandwidth = 0;
    use_solver("compression");
    set_model("model", &m);
    set_hw("hardware", &flat);
    solve_fails_with("hardware", "positive peak_flops and memory bandwidth");
    /* Pruning does not look at the hardware. */
    compress(&m, &flat, "pruning", 8, 0.5, "structured");
    expect_num("inference_speedup", 2.0);
}

/* ======================================================================== */
/* efficiency                                                               */
/* ======================================================================== */

static void efficiency(const hw_node *h, const char *type, bool flash, const char *prec, double eff)
{
    use_solver("efficiency");
    set_hw("hardware", h);
    set_enum("workload_type", type);
    set_bool("use_flash_attention", flash);
    set_enum("precision", prec);
    set_num("efficiency", eff);
    solve_ok();
}

Test(efficiency, defaults_ffn_at_half)
{
    /* ffn at 0.5: min(0.5 x 1, 0.6) = 0.5; occupancy 1 - 0.55 = 0.45;
     * stall = max(0, 0.5 - 0.45) = 0.05. No model needed. */
    hw_node h = mk_hw();
    use_solver("efficiency");
    set_hw("hardware", &h);
    solve_ok();
    expect_num("mfu", 0.5);
    expect_num("peak_flops", 1e14);
    expect_num("achievable_flops", 5e13);
    expect_num("overhead_breakdown.occupancy_loss", 1 - 0.55);
    expect_num("overhead_breakdown.memory_stall", (1 - 0.5) - (1 - 0.55));
}

Test(efficiency, every_workload_type)
{
    hw_node h = mk_hw();
    add_precision(&h, "int8", 2e14);
    static const struct {
        const char *type;
        bool flash;
        double eff, mfu;
    } rows[] = {
        {"ffn", false, 1.0, 0.6},               /* min(0.5 x 2, 0.6) */
        {"ffn", true, 0.2, 0.2},                /* flash is ignored outside attention */
        {"attention", true, 0.5, 0.75},         /* min(0.75 x 1, 0.85) */
        {"attention", true, 1.0, 0.85},         /* min(0.75 x 2, 0.85) */
        {"attention", false, 0.2, 0.12},        /* 0.3 x 0.4 */
        {"conv", false, 0.2, 0.16},             /* min(0.4 x 0.4, 0.55) */
        {"conv", false, 1.0, 0.55},             /* min(0.4 x 2, 0.55) */
        {"other", false, 0.9, 0.54},            /* 0.3 x 1.8 */
        {"other", false, 0.0, 0.0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        efficiency(&h, rows[i].type, rows[i].flash, "fp16", rows[i].eff);
        double occupancy = 1 - fmin(1.1 * rows[i].eff, 1);
        expect_num("mfu", rows[i].mfu);
        expect_num("achievable_flops", 1e14 * rows[i].mfu);
        expect_num("overhead_breakdown.occupancy_loss", occupancy);
        expect_num("overhead_breakdown.memory_stall", fmax(0, (1 - rows[i].mfu) - occupancy));
    }
}

Test(efficiency, memory_stall_floors_at_zero)
{
    /* attention + flash at 0.5: 1 - 0.75 = 0.25 < occupancy 0.45 -> stall 0. */
    hw_node h = mk_hw();
    efficiency(&h, "attention", true, "fp16", 0.5);
    expect_num("overhead_breakdown.memory_stall", 0.0);
    /* efficiency 0: occupancy 1, mfu 0 -> stall max(0, 1 - 1) = 0. */
    efficiency(&h, "ffn", false, "fp16", 0.0);
    expect_num("overhead_breakdown.occupancy_loss", 1.0);
    expect_num("overhead_breakdown.memory_stall", 0.0);
    expect_num("achievable_flops", 0.0);
}

Test(efficiency, peak_at_the_precision)
{
    /* int8 listed at 200 TFLOP/s: conv at 0.2 -> 0.16 x 2e14 = 3.2e13. fp8 not
     * listed: the default peak. */
    hw_node h = mk_hw();
    add_precision(&h, "int8", 2e14);
    efficiency(&h, "conv", false, "int8", 0.2);
    expect_num("peak_flops", 2e14);
    expect_num("achievable_flops", 3.2e13);
    efficiency(&h, "conv", false, "fp8", 0.2);
    expect_num("peak_flops", 1e14);
    cr_expect_eq(OUT.n_warnings, 0);
}

Test(efficiency, respelled_strings_as_upstream)
{
    /* EfficiencyModel looks precision up as written ("FP8" is no key of the
     * table: the default 1e14 peak, not the fp8 2e14) and compares
     * workload_type with == ("FFN" is not "ffn": the else-branch 0.3 x 1). */
    hw_node h = mk_hw();
    add_precision(&h, "fp8", 2e14);
    efficiency(&h, "ffn", false, "fp8", 0.5);
    expect_num("peak_flops", 2e14);
    slot("precision")->enum_respelled = true;
    solve_ok();
    expect_num("peak_flops", 1e14);
    expect_num("mfu", 0.5);
    slot("workload_type")->enum_respelled = true;
    solve_ok();
    expect_num("mfu", 0.3);
    expect_num("achievable_flops", 3e13);
}

Test(efficiency, efficiency_outside_zero_one)
{
    /* mlsysim's EfficiencyModel does not validate efficiency. At 1.5 (scale 3):
     * ffn min(0.5 x 3, 0.6) = 0.6; occupancy 1 - min(1.65, 1) = 0; stall 1 - 0.6 = 0.4. */
    hw_node h = mk_hw();
    efficiency(&h, "ffn", false, "fp16", 1.5);
    expect_num("mfu", 0.6);
    expect_num("achievable_flops", 6e13);
    expect_num("overhead_breakdown.occupancy_loss", 0.0);
    expect_num("overhead_breakdown.memory_stall", 0.4);
    /* At -0.5: attention without flash 0.3 x -1 clamps to 0; occupancy 1 - (-0.55) = 1.55;
     * stall max(0, 1 - 0 - 1.55) = 0. */
    efficiency(&h, "attention", false, "fp16", -0.5);
    expect_num("mfu", 0.0);
    expect_num("achievable_flops", 0.0);
    expect_num("overhead_breakdown.occupancy_loss", 1.55);
    expect_num("overhead_breakdown.memory_stall", 0.0);
}

/* ======================================================================== */
/* sensitivity                                                              */
/* ======================================================================== */

/* The roofline at batch 1, inference, efficiency 0.5, on mk_hw() (no dispatch
 * tax) with a Transformer of 1 layer (layer tax 0.01 ms):
 * latency = max(ops / (peak x 0.5), 1.1 x weights / bw) + 0.01 ms. */
static void sensitivity(const model_t *m, const hw_node *h, const char *prec, double pct)
{
    use_solver("sensitivity");
    set_model("model", m);
    set_hw("hardware", h);
    set_enum("precision", prec);
    set_num("perturbation_pct", pct);
    solve_ok();
}

Test(sensitivity, memory_bound_binds_on_bandwidth)
{
    /* fp16: 2e9 B; T_m = 2.2e9 / 1e12 = 2.2 ms; T_c = 2e9 / 5e13 = 0.04 ms;
     * latency 2.21 ms. Bandwidth x 1.1: 2.2 / 1.1 = 2 ms -> 2.01 ms:
     * (2.01 - 2.21) / 2.21. Faster compute or more memory change nothing. */
    hw_node h = mk_hw();
    model_t m = llm();
    use_solver("sensitivity");
    set_model("model", &m);
    set_hw("hardware", &h);
    solve_ok(); /* defaults: fp16, 10 %, efficiency 0.5 */
    expect_num("baseline_latency", 2.21);
    expect_num("sensitivities.peak_flops", 0.0);
    expect_num("sensitivities.memory_bandwidth", (2.01 - 2.21) / 2.21);
    expect_num("sensitivities.memory_capacity", 0.0);
    expect_str("binding_constraint", "memory_bandwidth");
    expect_flag("feasible", true);
}

Test(sensitivity, compute_bound_binds_on_flops_at_every_precision)
{
    /* 2e13 flop per token: T_c = 2e13 / 5e13 = 400 ms at fp16; x 1.1 -> 400 / 1.1.
     * At int8 the listed 200 TFLOP/s is raised too: T_c = 200 ms -> 200 / 1.1. */
    hw_node h = mk_hw();
    add_precision(&h, "int8", 2e14);
    model_t m = mk_model(WL_TRANSFORMER, 1e9, 2e13, 1);
    sensitivity(&m, &h, "fp16", 10);
    expect_num("baseline_latency", 400.01);
    expect_num("sensitivities.peak_flops", (400 / 1.1 + 0.01 - 400.01) / 400.01);
    expect_num("sensitivities.memory_bandwidth", 0.0);
    expect_str("binding_constraint", "peak_flops");
    sensitivity(&m, &h, "int8", 10);
    expect_num("baseline_latency", 200.01);
    expect_num("sensitivities.peak_flops", (200 / 1.1 + 0.01 - 200.01) / 200.01);
}

Test(sensitivity, capacity_binds_when_the_upgrade_makes_it_fit)
{
    /* 60 B params at fp16 = 120 GB > 100 GB: offload over the 64 GB/s fallback
     * link: T_m = 1.1 x 120e9 / 64e9 = 2.0625 s; latency 2062.51 ms.
     * +10 %: 110 GB still short, bandwidth above the link: all zero, the tie
     * goes to peak_flops. +25 %: 125 GB fits, T_m = 132e9 / 1e12 = 132 ms. */
    hw_node h = mk_hw();
    model_t m = mk_model(WL_TRANSFORMER, 60e9, 2e9, 1);
    sensitivity(&m, &h, "fp16", 10);
    expect_flag("feasible", false);
    expect_num("baseline_latency", 2062.51);
    expect_num("sensitivities.peak_flops", 0.0);
    expect_num("sensitivities.memory_bandwidth", 0.0);
    expect_num("sensitivities.memory_capacity", 0.0);
    expect_str("binding_constraint", "peak_flops");
    sensitivity(&m, &h, "fp16", 25);
    expect_num("sensitivities.memory_capacity", (132.01 - 2062.51) / 2062.51);
    expect_num("sensitivities.memory_bandwidth", 0.0);
    expect_str("binding_constraint", "memory_capacity");
}

Test(sensitivity, sram_bandwidth_is_not_perturbed)
{
    /* 2e9 B fit a 10 GB SRAM at 10 TB/s: T_m = 2.2e9 / 1e13 = 0.22 ms,
     * T_c = 0.04 ms, latency 0.23 ms; raising HBM bandwidth changes nothing. */
    hw_node h = mk_hw();
    h.sram_capacity = 10e9;
    h.sram_bandwidth = 1e13;
    model_t m = llm();
    sensitivity(&m, &h, "fp16", 10);
    expect_num("baseline_latency", 0.23);
    expect_num("sensitivities.memory_bandwidth", 0.0);
    expect_str("binding_constraint", "peak_flops");
}

Test(sensitivity, negative_perturbation_degrades)
{
    /* -50 %: bandwidth 0.5 TB/s -> T_m 4.4 ms, latency 4.41 ms. */
    hw_node h = mk_hw();
    model_t m = llm();
    sensitivity(&m, &h, "fp16", -50);
    expect_num("sensitivities.memory_bandwidth", (4.41 - 2.21) / 2.21);
    expect_str("binding_constraint", "memory_bandwidth");
}

Test(sensitivity, warnings_of_the_baseline_only)
{
    /* fp8 is not in a table that lists int8: one fallback warning, not four. */
    hw_node h = mk_hw();
    add_precision(&h, "int8", 2e14);
    model_t m = llm();
    sensitivity(&m, &h, "fp8", 10);
    cr_expect_eq(OUT.n_warnings, 1);
    cr_expect(strstr(OUT.warnings[0], "Precision 'fp8' not in Toy precision_flops") != NULL, "%s",
              OUT.warnings[0]);
}

Test(sensitivity, bad_inputs)
{
    hw_node h = mk_hw();
    model_t m = llm();
    use_solver("sensitivity");
    set_model("model", &m);
    set_hw("hardware", &h);
    set_num("perturbation_pct", -100);
    solve_fails_with("perturbation_pct", "perturbation_pct must be > -100");
    /* upstream's own failure at -100 (the peak rate scaled to 0) */
    solve_fails_with("perturbation_pct", "ZeroDivisionError: float division by zero");
    use_solver("sensitivity");
    set_model("model", &m);
    set_hw("hardware", &h);
    set_int("efficiency", 0);
    solve_fails_with("efficiency", "efficiency must be in [1e-09, 1.0], got 0");
    model_t empty = mk_model(WL_GENERIC, NAN, NAN, 1);
    use_solver("sensitivity");
    set_model("model", &empty);
    set_hw("hardware", &h);
    solve_fails_with("model", "no 'parameters'");
}

/* ======================================================================== */
/* synthesis                                                                */
/* ======================================================================== */

static void synthesis(const model_t *m, double target_s, const char *prec, double eff)
{
    use_solver("synthesis");
    set_model("model", m);
    set_num("target_latency", target_s);
    set_enum("precision", prec);
    set_num("efficiency", eff);
    solve_ok();
}

Test(synthesis, inverse_roofline)
{
    /* fp16: W = 2e9 B, O = 2e9 flop, T = 20 ms: bw = 2e9 / 0.02 = 1e11 B/s = 100 GB/s;
     * flops = 2e9 / (0.02 x 0.5) = 2e11; ratio 2e11 / 1e11 = 2. */
    model_t m = llm();
    synthesis(&m, 0.02, "fp16", 0.5);
    expect_num("required_bw", 100.0);
    expect_num("required_flops", 2e11);
    expect_num("required_memory", 2e9);
    expect_num("compute_memory_ratio", 2.0);
    expect_num("model_size", 2e9);
    expect_num("total_ops", 2e9);
    /* int4 at efficiency 0.25: W = 5e8 -> 25 GB/s; flops = 2e9 / 0.005 = 4e11; ratio 16. */
    synthesis(&m, 0.02, "int4", 0.25);
    expect_num("required_bw", 25.0);
    expect_num("required_flops", 4e11);
    expect_num("compute_memory_ratio", 16.0);
}

Test(synthesis, base_workload_size_and_ops)
{
    /* A base Workload with model_size 1e9 and 1e8 parameters: size 1e9 B at any
     * precision; ops 2 x 1e8 (no inference_flops). T = 1 s: 1 GB/s, 4e8 flop/s, ratio 0.4. */
    model_t m = mk_model(WL_GENERIC, 1e8, NAN, 1);
    m.model_size = 1e9;
    synthesis(&m, 1.0, "fp32", 0.5);
    expect_num("required_bw", 1.0);
    expect_num("required_memory", 1e9);
    expect_num("total_ops", 2e8);
    expect_num("required_flops", 4e8);
    expect_num("compute_memory_ratio", 0.4);
}

Test(synthesis, bad_inputs)
{
    model_t m = llm();
    use_solver("synthesis");
    set_model("model", &m);
    set_num("target_latency", 0);
    solve_fails_with("target_latency", "float division by zero");
    set_num("target_latency", 0.02);
    set_int("efficiency", 0);
    solve_fails_with("efficiency", "float division by zero");
    model_t empty = mk_model(WL_GENERIC, NAN, NAN, 1);
    use_solver("synthesis");
    set_model("model", &empty);
    set_num("target_latency", 0.02);
    solve_fails_with("model", "no 'parameters'");
    model_t weightless = mk_model(WL_GENERIC, NAN, 1e9, 1);
    weightless.model_size = 0;
    use_solver("synthesis");
    set_model("model", &weightless);
    set_num("target_latency", 0.02);
    solve_fails_with("model", "has no weight bytes");
}

Test(synthesis, efficiency_and_target_unbounded)
{
    /* Upstream validates neither. llm() at fp16: W = 2e9 B, O = 2e9 flop.
     * Efficiency 2 at 20 ms: flops = 2e9 / (0.02 x 2) = 5e10; bw 100 GB/s; ratio 0.5. */
    model_t m = llm();
    synthesis(&m, 0.02, "fp16", 2.0);
    expect_num("required_flops", 5e10);
    expect_num("required_bw", 100.0);
    expect_num("compute_memory_ratio", 0.5);
    /* A negative target gives negative rates: -20 ms, efficiency 0.5:
     * bw = 2e9 / -0.02 = -1e11 B/s = -100 GB/s; flops = 2e9 / -0.01 = -2e11; ratio 2. */
    synthesis(&m, -0.02, "fp16", 0.5);
    expect_num("required_bw", -100.0);
    expect_num("required_flops", -2e11);
    expect_num("compute_memory_ratio", 2.0);
}

/* ======================================================================== */
/* responsible_engineering                                                  */
/* ======================================================================== */

static void responsible(double base_s, double epsilon, double prevalence)
{
    use_solver("responsible_engineering");
    set_num("base_training_time", base_s);
    set_num("epsilon", epsilon);
    set_num("min_subgroup_prevalence", prevalence);
    solve_ok();
}

Test(responsible_engineering, defaults)
{
    /* epsilon 1: 1 + 2 / 1 = 3; prevalence 0.01: 1 / 0.01 = 100. */
    use_solver("responsible_engineering");
    set_num("base_training_time", 3600);
    solve_ok();
    expect_num("dp_slowdown_factor", 3.0);
    expect_num("effective_training_time", 10800.0);
    expect_num("additional_data_requirement", 100.0);
}

Test(responsible_engineering, budgets_and_floors)
{
    /* epsilon 8: 1 + 2 / 8 = 1.25; prevalence 0.2: 5. */
    responsible(100, 8, 0.2);
    expect_num("dp_slowdown_factor", 1.25);
    expect_num("effective_training_time", 125.0);
    expect_num("additional_data_requirement", 5.0);
    /* epsilon 0.001 is costed at 0.01: 1 + 200 = 201; prevalence 1e-9 at 1e-6: 1e6. */
    responsible(1, 0.001, 1e-9);
    expect_num("dp_slowdown_factor", 201.0);
    expect_num("effective_training_time", 201.0);
    expect_num("additional_data_requirement", 1e6);
    /* At the floors exactly: the same. A zero base time stays zero. */
    responsible(0, 0.01, 1e-6);
    expect_num("dp_slowdown_factor", 201.0);
    expect_num("effective_training_time", 0.0);
    expect_num("additional_data_requirement", 1e6);
}

Test(responsible_engineering, unchecked_inputs)
{
    /* mlsysim validates nothing here: a negative base time scales like any
     * other (-1 s x 3 = -3 s) and delta, which the model does not use, may
     * be anything. */
    use_solver("responsible_engineering");
    set_num("base_training_time", -1);
    solve_ok();
    expect_num("effective_training_time", -3.0);
    use_solver("responsible_engineering");
    set_num("base_training_time", 1);
    set_int("delta", 2);
    solve_ok();
    expect_num("dp_slowdown_factor", 3.0);
}

/* ======================================================================== */
/* scaling                                                                  */
/* ======================================================================== */

static void scaling(double budget_flop)
{
    use_solver("scaling");
    set_num("compute_budget", budget_flop);
}

Test(scaling, chinchilla_optimum)
{
    /* C = 1.2e20: P = sqrt(1.2e20 / 120) = 1e9; D = 20 P = 2e10. */
    scaling(1.2e20);
    solve_ok();
    expect_num("optimal_parameters", 1e9);
    expect_num("optimal_tokens", 2e10);
    expect_num("compute_budget", 1.2e20);
    expect_num("tokens_per_parameter", 20.0);
    /* A null target and a zero target (falsy upstream) are the same question. */
    scaling(1.2e20);
    set_null("target_model_size");
    solve_ok();
    expect_num("optimal_parameters", 1e9);
    scaling(1.2e20);
    set_num("target_model_size", 0);
    solve_ok();
    expect_num("optimal_tokens", 2e10);
}

Test(scaling, fixed_model_size)
{
    /* C = 6e21, P = 1e9: D = 6e21 / (6 x 1e9) = 1e12; 1000 tokens per parameter. */
    scaling(6e21);
    set_num("target_model_size", 1e9);
    solve_ok();
    expect_num("optimal_parameters", 1e9);
    expect_num("optimal_tokens", 1e12);
    expect_num("tokens_per_parameter", 1000.0);
}

Test(scaling, no_budget)
{
    /* C = 0: P = 0, D = 0, and the ratio is 0 rather than 0 / 0. */
    scaling(0);
    solve_ok();
    expect_num("optimal_parameters", 0.0);
    expect_num("optimal_tokens", 0.0);
    expect_num("tokens_per_parameter", 0.0);
}

Test(scaling, time_budget_conversion_and_bounds)
{
    /* A time budget is GPU time at 989 TFLOP/s x 0.40 = 3.956e14 flop/s
     * (one GPU-day = 86400 x 3.956e14 = 3.417984e19 flop); the server applies it. */
    use_solver("scaling");
    const input_desc *d = &S->inputs[solver_input_index(S, "compute_budget")];
    cr_assert_not_null(d->alt_dim);
    cr_expect(dim_eq(*d->alt_dim, DIM_TIME));
    cr_expect(rel_eq(86400 * d->alt_factor, 3.417984e19), "alt_factor %.17g", d->alt_factor);
}

Test(scaling, budget_magnitude_in_its_own_unit)
{
    /* mlsysim reads the budget's magnitude in the unit it was written in
     * (solvers.md §17 [unit-dependent]): "1 EFLOP" is a budget of 1, so
     * P = sqrt(1 / 120) = 0.091287092917527686 and D = 20 P; the budget
     * reported is still 1e18 flop. The same budget in flop is 1e18. */
    scaling(1e18);
    slot("compute_budget")->unit_scale = 1e18;
    solve_ok();
    expect_num("optimal_parameters", 0.091287092917527686);
    expect_num("optimal_tokens", 1.8257418583505537);
    expect_num("compute_budget", 1e18);
    expect_num("tokens_per_parameter", 20.0);
    scaling(1e18);
    slot("compute_budget")->unit_scale = 1.0;
    solve_ok();
    expect_num("optimal_parameters", 91287092.917527686);
    /* "6 EFLOP" with a 1e9-parameter target buys 6 / 6e9 = 1e-9 tokens. */
    scaling(6e18);
    slot("compute_budget")->unit_scale = 1e18;
    set_num("target_model_size", 1e9);
    solve_ok();
    expect_num("optimal_tokens", 1e-9);
}

Test(scaling, negative_values_as_mlsysim)
{
    /* No bounds upstream: a negative budget with a target buys negative
     * tokens (-6e21 / 6e9 = -1e12, ratio -1000); a negative target gives a
     * ratio of 0 (it is d / p only for p > 0); without a target the square
     * root of a negative budget is Python's "math domain error". */
    scaling(-6e21);
    set_num("target_model_size", 1e9);
    solve_ok();
    expect_num("optimal_tokens", -1e12);
    expect_num("tokens_per_parameter", -1000.0);
    scaling(6e21);
    set_num("target_model_size", -1e9);
    solve_ok();
    expect_num("optimal_tokens", -1e12);
    expect_num("tokens_per_parameter", 0.0);
    scaling(-1);
    solve_fails_with("compute_budget", "math domain error");
}
