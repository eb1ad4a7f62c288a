/* test_solvers.c - the core solvers called directly, without the server:
 * single_node (reference/solvers.md §1), data (§2), transformation (§3) and
 * pipeline (core/pipeline.c's header comment).
 *
 * Each solver is called the way the generic layer calls it (defaults from
 * the descriptor, then the bound checks, then run(); solver_fixture.h), on
 * hand-made hardware and workloads with round numbers, so every expected value
 * is a short calculation written next to it. A few cases use the embedded
 * catalog (MCUs, the worked example of solvers.md §W) and say which catalog
 * fields they rely on. Workload lowering and training memory in detail are in
 * test_workload.c; precision handling in test_precision.c. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "core/data.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/roofline.h"
#include "core/single_node.h"
#include "core/solver.h"
#include "solver_fixture.h"

/* ---- hand-made hardware and workloads ---------------------------------------- */

/* A node with only the required fields; every optional quantity absent (NAN). */
static hw_node mk_hw(const char *name, double peak, double capacity, double bandwidth)
{
    hw_node h;
    memset(&h, 0, sizeof h);
    snprintf(h.key, sizeof h.key, "%s", name);
    snprintf(h.id, sizeof h.id, "Hardware.Test.%s", name);
    snprintf(h.name, sizeof h.name, "%s", name);
    h.peak_flops = peak;
    h.mem_capacity = capacity;
    h.mem_bandwidth = bandwidth;
    h.sram_capacity = h.sram_bandwidth = h.flash_capacity = h.flash_bandwidth = NAN;
    h.storage_capacity = h.storage_bandwidth = NAN;
    h.interconnect_bw = NAN;
    h.nvlink_bw = h.nvlink_latency = NAN;
    h.tdp = h.unit_cost = NAN;
    h.dispatch_tax = 0;
    return h;
}

/* "Toy": 100 TFLOP/s, 80 GB at 1 TB/s, 500 W, dispatch tax 0.01 ms. */
static hw_node toy(void)
{
    hw_node h = mk_hw("Toy", 1e14, 80e9, 1e12);
    h.tdp = 500;
    h.dispatch_tax = 1e-5;
    return h;
}

/* The compute-bound CNN of several tests: 10 M parameters, 10 GFLOP, 10 layers. */
static model_t cnn10(void) { return mk_model(WL_CNN, 1e7, 1e10, 10); }

/* ---- embedded catalog ----------------------------------------------------------- */

static catalog *cat;
static const catalog_edition *cur;

static void load_catalog(void)
{
    char err[512];
    cr_assert_eq(catalog_load(&cat, NULL, err, sizeof err), 0, "catalog_load: %s", err);
    cur = catalog_edition_find(cat, "current");
    cr_assert_not_null(cur);
}

static void free_catalog(void)
{
    catalog_free(cat);
    cat = NULL;
}

static const hw_node *cat_hw(const char *id)
{
    long i = edition_find(cur, catalog_kind_of(REC_HARDWARE), id);
    cr_assert_geq(i, 0, "hardware %s not in the catalog", id);
    return edition_record(cur, catalog_kind_of(REC_HARDWARE), (size_t)i);
}

static const model_t *cat_model(const char *id)
{
    long i = edition_find(cur, catalog_kind_of(REC_MODEL), id);
    cr_assert_geq(i, 0, "model %s not in the catalog", id);
    return edition_record(cur, catalog_kind_of(REC_MODEL), (size_t)i);
}

/* ======================================================================== */
/* single_node                                                              */
/* ======================================================================== */

Test(single_node, compute_bound_every_output)
{
    /* W = 1e7 x 2 B = 2e7 B; O_batch = 1e10 x 10 = 1e11 flop; F_eff = 1e14 x 0.5 = 5e13.
     * T_c = 1e11 / 5e13 = 2 ms; D = 2e7 + 0.1 x 2e7 x 10 = 4e7 B; T_m = 4e7 / 1e12 = 0.04 ms.
     * overhead = 0.01 + 10 x 0.01 = 0.11 ms; latency = 2.11 ms. */
    hw_node h = toy();
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    expect_num("latency_compute", 2.0);
    expect_num("latency_memory", 0.04);
    expect_num("latency_overhead", 0.11);
    expect_num("latency", 2.11);
    expect_str("bottleneck", "Compute");
    expect_num("arithmetic_intensity", 2500.0); /* 1e11 / 4e7 */
    expect_num("throughput", 10 / 2.11e-3);
    /* mfu = (1e11 / 2.11e-3) / 1e14 = 1 / 2.11; hfu = 1.1 x mfu */
    expect_num("mfu", 1 / 2.11);
    expect_num("hfu", 1.1 / 2.11);
    /* E = 500 x (0.3 + 0.7 mfu) x 2.11e-3 = 500 x 0.3 x 2.11e-3 + 350 x 1e11 / 1e14
     *   = 0.3165 + 0.35 = 0.6665 J */
    expect_num("energy", 0.6665);
    expect_num("memory_footprint", 2e7);
    expect_num("peak_flops_actual", 50.0); /* TFLOP/s */
    expect_num("peak_bw_actual", 1000.0);  /* GB/s */
    cr_expect(flag("feasible"));
    cr_expect(is_null("offload_spill_bytes"));
    cr_expect(is_null("offload_effective_bw"));
    cr_expect_eq(OUT.n_warnings, 0);
    cr_assert_eq(OUT.n_trace, 1);
    cr_expect_str_eq(OUT.trace[0], "Memory Wall: Passed. Required 0.02 GB <= Available 80.0 GB on Toy.");
}

Test(single_node, memory_bound)
{
    /* Transformer without inference_flops: O = 2N = 2e9; W = 2e9 B; batch 1.
     * T_c = 2e9 / 5e13 = 0.04 ms; D = 2e9 + 0.1 x 2e9 = 2.2e9 B; T_m = 2.2 ms.
     * overhead = 0.01 + 4 x 0.01 = 0.05 ms; latency = 2.25 ms. */
    hw_node h = toy();
    model_t m = mk_model(WL_TRANSFORMER, 1e9, NAN, 4);
    m.heads = 8;
    m.hidden_dim = 1024;
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    expect_str("bottleneck", "Memory");
    expect_num("latency_compute", 0.04);
    expect_num("latency_memory", 2.2);
    expect_num("latency", 2.25);
    expect_num("arithmetic_intensity", 2e9 / 2.2e9);
    expect_num("throughput", 1 / 2.25e-3);
    expect_num("mfu", 2e9 / 2.25e-3 / 1e14);
    /* E = 500 x 0.3 x 2.25e-3 + 350 x 2e9 / 1e14 = 0.3375 + 0.007 */
    expect_num("energy", 0.3445);
    expect_num("memory_footprint", 2e9);
}

Test(single_node, tie_is_compute)
{
    /* O = 2e8 flop, W = 2e7 B, batch 10: T_c = 2e9 / 5e13 = 4e-5 s and
     * T_m = (2e7 + 0.1 x 2e7 x 10) / 1e12 = 4e7 / 1e12 = 4e-5 s. Both are the
     * correctly rounded 4e-5, so they are equal doubles: calc_bottleneck calls a
     * tie "Compute" (memory-bound only if T_m > T_c). */
    hw_node h = toy();
    model_t m = mk_model(WL_CNN, 1e7, 2e8, 10);
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    cr_assert_eq(num("latency_compute"), num("latency_memory"));
    expect_str("bottleneck", "Compute");
    expect_num("arithmetic_intensity", 50.0); /* 2e9 / 4e7 */
}

Test(single_node, zero_ops_is_memory_with_zero_intensity)
{
    /* A base Workload with only model_size: W = 1e8 B whatever the precision
     * (fp32 here), O = 0. T_c = 0 -> "Memory", intensity 0, mfu 0.
     * T_m = 1.1e8 / 1e12 = 0.11 ms; layers: a base Workload has none -> 1;
     * latency = 0.11 + 0.01 + 0.01 = 0.13 ms; E = 500 x 0.3 x 1.3e-4 = 0.0195 J. */
    hw_node h = toy();
    model_t m = mk_model(WL_GENERIC, NAN, NAN, 0);
    m.model_size = 1e8;
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_enum("precision", "fp32");
    solve_ok();
    expect_str("bottleneck", "Memory");
    cr_expect_eq(num("arithmetic_intensity"), 0.0);
    cr_expect_eq(num("latency_compute"), 0.0);
    expect_num("latency_memory", 0.11);
    expect_num("latency", 0.13);
    cr_expect_eq(num("mfu"), 0.0);
    cr_expect_eq(num("hfu"), 0.0);
    expect_num("energy", 0.0195);
    expect_num("memory_footprint", 1e8);
}

Test(single_node, compute_time_below_threshold_counts_as_zero)
{
    /* calc_bottleneck compares in ms against 1e-15: O = 1e-5 flop at 1e14 flop/s
     * (efficiency 1) is 1e-19 s = 1e-16 ms < 1e-15 ms -> "Memory", intensity 0,
     * although ops / traffic would be 1e-5 / 2.2e3 > 0. */
    hw_node h = toy();
    model_t m = mk_model(WL_CNN, 1e3, 1e-5, 1);
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("efficiency", 1.0);
    solve_ok();
    expect_str("bottleneck", "Memory");
    cr_expect_eq(num("arithmetic_intensity"), 0.0);
    expect_num("latency_compute", 1e-16);
}

Test(single_node, zero_traffic_is_compute_with_infinite_intensity)
{
    /* parameters 0 -> W = 0, D = 0, T_m = 0 < 1e-15 ms while T_c > 0:
     * "Compute" with intensity +inf (the server reports it as null).
     * T_c = 1e9 / 5e13 = 0.02 ms; layers unset -> 1; latency 0.02 + 0.01 + 0.01. */
    hw_node h = toy();
    model_t m = mk_model(WL_CNN, 0, 1e9, 0);
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    expect_str("bottleneck", "Compute");
    cr_expect(isinf(num("arithmetic_intensity")) && num("arithmetic_intensity") > 0);
    cr_expect_eq(num("latency_memory"), 0.0);
    expect_num("latency", 0.04);
}

Test(single_node, training_triples_ops_and_layer_tax)
{
    /* cnn10, batch 10, training: O_batch = 3 x 1e11 = 3e11 -> T_c = 6 ms;
     * layer tax 10 x 0.01 x 3 = 0.3 ms; overhead 0.31 ms; latency 6.31 ms.
     * Not a Transformer: footprint = 3 x W = 6e7 B. Traffic still counts W only:
     * T_m = 0.04 ms. mfu = 3e11 / 6.31e-3 / 1e14 = 3 / 6.31. */
    hw_node h = toy();
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    set_num("is_training", 1);
    solve_ok();
    expect_num("latency_compute", 6.0);
    expect_num("latency_memory", 0.04);
    expect_num("latency_overhead", 0.31);
    expect_num("latency", 6.31);
    expect_num("memory_footprint", 6e7);
    expect_num("mfu", 3 / 6.31);
    expect_num("hfu", 3.3 / 6.31);
}

Test(single_node, training_with_recomputation_is_four_times_ops)
{
    /* O_batch = 4 x 1e11 -> T_c = 8 ms; latency 8 + 0.31 = 8.31 ms; the footprint
     * of a non-Transformer does not depend on recomputation: 3 x W = 6e7 B. */
    hw_node h = toy();
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    set_num("is_training", 1);
    set_num("activation_recomputation", 1);
    solve_ok();
    expect_num("latency_compute", 8.0);
    expect_num("latency", 8.31);
    expect_num("memory_footprint", 6e7);
}

Test(single_node, non_transformer_lora_training_is_1_1_weights)
{
    /* footprint = 1.1 x 2e7 = 2.2e7 B; ops stay x3 (T_c = 6 ms). */
    hw_node h = toy();
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    set_num("is_training", 1);
    set_num("is_lora", 1);
    solve_ok();
    expect_num("memory_footprint", 2.2e7);
    expect_num("latency_compute", 6.0);
}

Test(single_node, inference_ignores_training_only_inputs)
{
    /* is_lora, zero_stage, dp_size, seq_len and recomputation only matter when
     * training: footprint = W = 2e7 B, ops x1 (T_c = 2 ms), layer tax x1. */
    hw_node h = toy();
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    set_num("is_lora", 1);
    set_num("zero_stage", 3);
    set_num("dp_size", 8);
    set_num("activation_recomputation", 1);
    solve_ok();
    expect_num("memory_footprint", 2e7);
    expect_num("latency_compute", 2.0);
    expect_num("latency_overhead", 0.11);
}

/* Transformer used for training memory: N = 1e9, 2 layers, d = 1024, 8 heads.
 * fp16, batch 2, seq 512 (hand values in test_workload.c):
 *   weights 2e9 + grads 2e9 + Adam 12e9 = 16e9 B
 *   act none      = 2 x (34 x 512 x 2 x 1024 + 5 x 8 x 512^2 x 2) = 2 x 56623104 = 113246208 B
 *   act selective = 2 x 34 x 512 x 2 x 1024 = 71303168 B */
static model_t tx1b(void)
{
    model_t m = mk_model(WL_TRANSFORMER, 1e9, NAN, 2);
    m.hidden_dim = 1024;
    m.heads = 8;
    return m;
}

Test(single_node, transformer_training_memory_strategy_none)
{
    /* Without recomputation the strategy is "none" (with the 5 a s^2 b term).
     * Times: O_batch = 3 x 2e9 x 2 = 1.2e10 -> T_c = 0.24 ms; D = 2e9 + 0.1 x 2e9 x 2
     * = 2.4e9 -> T_m = 2.4 ms (weights only, not the training footprint);
     * overhead = 0.01 + 2 x 0.01 x 3 = 0.07 ms; latency 2.47 ms. */
    hw_node h = toy();
    model_t m = tx1b();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 2);
    set_num("seq_len", 512);
    set_num("is_training", 1);
    solve_ok();
    cr_expect_eq(num("memory_footprint"), 16e9 + 113246208.0);
    expect_num("latency_compute", 0.24);
    expect_num("latency_memory", 2.4);
    expect_num("latency", 2.47);
    expect_str("bottleneck", "Memory");
}

Test(single_node, transformer_training_memory_selective_with_recomputation)
{
    /* Recomputation selects "selective" activations and 4x ops:
     * O_batch = 4 x 2e9 x 2 = 1.6e10 -> T_c = 0.32 ms. */
    hw_node h = toy();
    model_t m = tx1b();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 2);
    set_num("seq_len", 512);
    set_num("is_training", 1);
    set_num("activation_recomputation", 1);
    solve_ok();
    cr_expect_eq(num("memory_footprint"), 16e9 + 71303168.0);
    expect_num("latency_compute", 0.32);
}

Test(single_node, transformer_training_zero_stages_over_dp)
{
    /* dp_size 4 (strategy none, act 113246208 B):
     * stage 0: 2 + 2 + 12      = 16e9   (dp_size alone shards nothing)
     * stage 1: 2 + 2 + 12/4    =  7e9
     * stage 2: 2 + 2/4 + 3     =  5.5e9
     * stage 3: 2/4 + 0.5 + 3   =  4e9 */
    static const double want[4] = {16e9, 7e9, 5.5e9, 4e9};
    hw_node h = toy();
    model_t m = tx1b();
    for (int stage = 0; stage <= 3; stage++) {
        use_solver("single_node");
        set_hw("hardware", &h);
        set_model("model", &m);
        set_num("batch_size", 2);
        set_num("seq_len", 512);
        set_num("is_training", 1);
        set_num("zero_stage", stage);
        set_num("dp_size", 4);
        solve_ok();
        cr_expect_eq(num("memory_footprint"), want[stage] + 113246208.0, "stage %d: %.17g", stage,
                     num("memory_footprint"));
    }
}

Test(single_node, transformer_lora_training_memory)
{
    /* LoRA rank 16 on Q,K,V,O: 2 x 16 x 1024 x (4 x 2) = 262144 adapter params;
     * f = 262144 / 1e9. grads = 2e9 f = 524288 B, Adam = 12e9 f = 3145728 B;
     * weights stay 2e9 B; act (none) 113246208 B. */
    hw_node h = toy();
    model_t m = tx1b();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 2);
    set_num("seq_len", 512);
    set_num("is_training", 1);
    set_num("is_lora", 1);
    solve_ok();
    expect_num("memory_footprint", 2e9 + 524288.0 + 3145728.0 + 113246208.0);
}

Test(single_node, transformer_training_without_heads_fails_without_recomputation)
{
    /* calc_activation_memory(strategy="none") needs n_heads: mlsysim raises. */
    hw_node h = toy();
    model_t m = tx1b();
    m.heads = 0;
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("is_training", 1);
    cr_assert_eq(solve(), -1);
    cr_expect_eq(ERR.status, 400);
    cr_expect(strstr(ERR.detail, "n_heads") != NULL, "%s", ERR.detail);
    /* ...while selective activations need no heads. */
    set_num("activation_recomputation", 1);
    solve_ok();
}

Test(single_node, feasible_is_inclusive_at_capacity)
{
    /* W = 2e7 B on exactly 2e7 B of memory: feasible, no offload. */
    hw_node h = toy();
    h.mem_capacity = 2e7;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    cr_expect(flag("feasible"));
    cr_expect(is_null("offload_spill_bytes"));
    expect_num("peak_bw_actual", 1000.0);
    cr_expect_str_eq(OUT.trace[0], "Memory Wall: Passed. Required 0.02 GB <= Available 0.02 GB on Toy.");
}

Test(single_node, offload_without_interconnect_uses_64_gbs)
{
    /* W = 2e7 B on 1e7 B: spill 1e7 B; no host link -> min(1e12, 64e9) = 64 GB/s.
     * batch 10: D = 4e7 B -> T_m = 4e7 / 6.4e10 = 0.625 ms (< T_c = 2 ms). */
    hw_node h = toy();
    h.mem_capacity = 1e7;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("offload_spill_bytes", 1e7);
    expect_num("offload_effective_bw", 64.0);
    expect_num("peak_bw_actual", 64.0);
    expect_num("latency_memory", 0.625);
    expect_str("bottleneck", "Compute");
    cr_expect_str_eq(OUT.trace[0], "Memory Wall: FAILED. Required 0.02 GB > Available 0.01 GB on Toy.");
}

Test(single_node, offload_uses_interconnect_bandwidth)
{
    /* PCIe-like link of 32 GB/s < 1 TB/s HBM: T_m = 4e7 / 3.2e10 = 1.25 ms. */
    hw_node h = toy();
    h.mem_capacity = 1e7;
    h.has_interconnect = true;
    h.interconnect_bw = 32e9;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    expect_num("offload_effective_bw", 32.0);
    expect_num("latency_memory", 1.25);
}

Test(single_node, offload_is_capped_by_memory_bandwidth)
{
    /* Link 32 GB/s but memory only 16 GB/s: min = 16 GB/s; T_m = 4e7 / 1.6e10
     * = 2.5 ms > T_c = 2 ms -> Memory; latency 2.5 + 0.11 = 2.61 ms. */
    hw_node h = toy();
    h.mem_capacity = 1e7;
    h.mem_bandwidth = 16e9;
    h.has_interconnect = true;
    h.interconnect_bw = 32e9;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    expect_num("offload_effective_bw", 16.0);
    expect_num("latency_memory", 2.5);
    expect_str("bottleneck", "Memory");
    expect_num("latency", 2.61);
}

Test(single_node, offload_takes_precedence_over_sram)
{
    /* Rule order: an infeasible footprint offloads even when the weights would
     * fit the (here oddly large) SRAM. */
    hw_node h = toy();
    h.mem_capacity = 1e7;
    h.sram_capacity = 1e9;
    h.sram_bandwidth = 1e13;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    expect_num("peak_bw_actual", 64.0);
}

Test(single_node, sram_path_inclusive_at_sram_capacity)
{
    /* W = 2e7 B <= sram_capacity 2e7 B with both SRAM fields -> SRAM 4 TB/s,
     * ahead of flash (0.1 TB/s) and HBM (1 TB/s). batch 10: T_m = 4e7 / 4e12 = 0.01 ms. */
    hw_node h = toy();
    h.sram_capacity = 2e7;
    h.sram_bandwidth = 4e12;
    h.flash_bandwidth = 1e11;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    expect_num("peak_bw_actual", 4000.0);
    expect_num("latency_memory", 0.01);
}

Test(single_node, sram_too_small_falls_to_flash)
{
    /* W = 2e7 B > 2e7 - 1 B of SRAM -> flash 0.1 TB/s: T_m = 4e7 / 1e11 = 0.4 ms. */
    hw_node h = toy();
    h.sram_capacity = 2e7 - 1;
    h.sram_bandwidth = 4e12;
    h.flash_bandwidth = 1e11;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 10);
    solve_ok();
    expect_num("peak_bw_actual", 100.0);
    expect_num("latency_memory", 0.4);
}

Test(single_node, sram_needs_both_fields)
{
    /* sram_capacity without sram_bandwidth: the SRAM rule does not apply; with no
     * flash either, the HBM bandwidth (1 TB/s) is used. */
    hw_node h = toy();
    h.sram_capacity = 1e9;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    expect_num("peak_bw_actual", 1000.0);
}

Test(single_node, mcu_sram_path_esp32_s3, .init = load_catalog, .fini = free_catalog)
{
    /* Catalog: ESP32-S3 int8 2.4 GOPS, SRAM 520 KiB at 0.96 GB/s, dispatch 1 ms,
     * TDP 0.4 W; DS-CNN 200 k params, 20 MFLOP, no layers. */
    const hw_node *h = cat_hw("ESP32_S3");
    const model_t *m = cat_model("DS_CNN");
    cr_assert_eq(hw_find_precision(h, "int8")->flops, 2.4e9);
    cr_assert_eq(h->sram_capacity, 532480.0);
    cr_assert_eq(h->sram_bandwidth, 0.96e9);
    cr_assert_eq(h->dispatch_tax, 1e-3);
    cr_assert_eq(h->tdp, 0.4);
    cr_assert_eq(m->parameters, 2e5);
    cr_assert_eq(m->inference_flops, 2e7);
    use_solver("single_node");
    set_hw("hardware", h);
    set_model("model", m);
    set_enum("precision", "int8");
    solve_ok();
    /* int8: W = 2e5 B <= 532480 -> SRAM. T_c = 2e7 / 1.2e9 = 16.6667 ms;
     * T_m = 2.2e5 / 0.96e9 = 0.229167 ms; overhead 1 + 0.01 ms. */
    expect_num("peak_bw_actual", 0.96);
    expect_num("latency_compute", 2e7 / 1.2e9 * 1e3);
    expect_num("latency_memory", 2.2e5 / 0.96e9 * 1e3);
    expect_num("latency", 2e7 / 1.2e9 * 1e3 + 1.01);
    expect_str("bottleneck", "Compute");
    /* E = 0.4 x 0.3 x lat + 0.4 x 0.7 x 2e7 / 2.4e9 */
    expect_num("energy", 0.12 * (2e7 / 1.2e9 + 1.01e-3) + 0.28 * 2e7 / 2.4e9);
    cr_expect_eq(OUT.n_warnings, 0);
}

Test(single_node, mcu_flash_path_oura_ring, .init = load_catalog, .fini = free_catalog)
{
    /* Catalog: Oura Ring 4 peak 0.1 GFLOP/s (precision_flops int8 only), memory
     * 2 MiB, SRAM 512 KiB at 0.25 GB/s, flash 0.04 GB/s, memory bandwidth 0.08 GB/s.
     * DS-CNN in fp32: W = 8e5 B > 524288 B SRAM -> flash (not the 0.08 memory bus).
     * T_m = 8.8e5 / 4e7 = 22 ms; T_c = 2e7 / (1e8 x 0.5) = 400 ms. */
    const hw_node *h = cat_hw("OuraRing");
    cr_assert_eq(h->peak_flops, 1e8);
    cr_assert_eq(h->sram_capacity, 524288.0);
    cr_assert_eq(h->flash_bandwidth, 0.04e9);
    cr_assert_eq(h->mem_bandwidth, 0.08e9);
    cr_assert_eq(h->mem_capacity, 2097152.0);
    use_solver("single_node");
    set_hw("hardware", h);
    set_model("model", cat_model("DS_CNN"));
    set_enum("precision", "fp32");
    solve_ok();
    cr_expect(flag("feasible"));
    expect_num("peak_bw_actual", 0.04);
    expect_num("latency_memory", 22.0);
    expect_num("latency_compute", 400.0);
    cr_expect(warned("Precision 'fp32' not in Oura Ring 4 (wearable reference profile) precision_flops "
                          "(available: ['int8'])"));
}

Test(single_node, worked_example_resnet50_a100, .init = load_catalog, .fini = free_catalog)
{
    /* solvers.md §W, first row of its table (ResNet-50 8.2 GFLOP, A100 dispatch 0.015 ms). */
    use_solver("single_node");
    set_hw("hardware", cat_hw("A100"));
    set_model("model", cat_model("ResNet50"));
    set_num("batch_size", 256);
    solve_ok();
    cr_expect(fabs(num("latency_compute") - 13.456410256) < 1e-9);
    cr_expect(fabs(num("latency_memory") - 0.667935262) < 1e-9);
    cr_expect(fabs(num("latency") - 13.971410256) < 1e-9);
    cr_expect(fabs(num("throughput") - 18323.132404) < 1e-6);
    cr_expect(fabs(num("arithmetic_intensity") - 1541.353383) < 1e-6);
    cr_expect(fabs(num("mfu") - 0.481569505) < 1e-9);
    cr_expect(fabs(num("hfu") - 0.529726456) < 1e-9);
    cr_expect(fabs(num("energy") - 3.560466667) < 1e-9);
    expect_num("latency_overhead", 0.515);
    expect_str("bottleneck", "Compute");
}

Test(single_node, layer_tax_counts)
{
    /* Overhead minus the 0.01 ms dispatch tax = layers x 0.01 ms:
     * CNN with layers unset -> 1; base Workload -> 1 even with `layers` set (the
     * class has no such attribute); Diffusion -> 1; Embodied with 32 -> 32. */
    struct {
        workload_kind kind;
        int layers;
        double want_ms;
    } cases[] = {
        {WL_CNN, 0, 0.02}, {WL_GENERIC, 50, 0.02}, {WL_DIFFUSION, 24, 0.02}, {WL_EMBODIED, 32, 0.33},
        {WL_SSM, 24, 0.25},
    };
    hw_node h = toy();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_t m = mk_model(cases[i].kind, 1e6, 1e9, cases[i].layers);
        m.denoising_steps = 1;
        use_solver("single_node");
        set_hw("hardware", &h);
        set_model("model", &m);
        solve_ok();
        cr_expect(rel_eq(num("latency_overhead"), cases[i].want_ms), "%s: overhead %.17g, want %g",
                  workload_kind_name(cases[i].kind), num("latency_overhead"), cases[i].want_ms);
    }
}

Test(single_node, dispatch_tax_comes_from_hardware)
{
    /* 0.2 ms dispatch + 10 layers x 0.01 = 0.3 ms. */
    hw_node h = toy();
    h.dispatch_tax = 2e-4;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    expect_num("latency_overhead", 0.3);
}

Test(single_node, hfu_clamps_at_one)
{
    /* efficiency 1, no dispatch tax: O = 1e12 flop -> T_c = 1e12 / 1e14 = 10 ms;
     * W = 2e3 B -> T_m tiny; latency = 10 + 0.01 ms (one layer).
     * mfu = 10 / 10.01 = 0.999000999 (never above efficiency), hfu = min(1.0989, 1) = 1. */
    hw_node h = toy();
    h.dispatch_tax = 0;
    model_t m = mk_model(WL_CNN, 1e3, 1e12, 1);
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("efficiency", 1.0);
    solve_ok();
    expect_num("mfu", 10 / 10.01);
    cr_expect_eq(num("hfu"), 1.0);
    cr_expect_leq(num("mfu"), 1.0);
}

Test(single_node, energy_zero_without_tdp)
{
    hw_node h = toy();
    h.tdp = NAN;
    model_t m = cnn10();
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    solve_ok();
    cr_expect_eq(num("energy"), 0.0);
}

Test(single_node, generic_without_parameters_or_size_fails)
{
    /* Workload.lower raises NotImplementedError without parameters and model_size. */
    hw_node h = toy();
    model_t m = mk_model(WL_GENERIC, NAN, 1e9, 0);
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    cr_assert_eq(solve(), -1);
    cr_expect_eq(ERR.status, 400);
    cr_expect_str_eq(ERR.field, "model");
    cr_expect(strstr(ERR.detail, "parameters") != NULL, "%s", ERR.detail);
}

Test(single_node, zero_peak_or_bandwidth_is_an_error_not_a_division)
{
    hw_node h = toy();
    model_t m = cnn10();
    h.peak_flops = 0;
    use_solver("single_node");
    set_hw("hardware", &h);
    set_model("model", &m);
    cr_expect_eq(solve(), -1);
    cr_expect_str_eq(ERR.field, "hardware");
    h = toy();
    h.mem_bandwidth = 0;
    cr_expect_eq(solve(), -1);
    cr_expect_str_eq(ERR.field, "hardware");
}

/* ---- validation (the generic layer's bound checks, mlsysim's messages) ---- */

static void expect_check(const char *input, double v, bool was_int, const char *want)
{
    int i = solver_input_index(S, input);
    cr_assert_geq(i, 0);
    input_value x = {.present = true, .num = v, .num_was_int = was_int};
    solver_error e;
    memset(&e, 0, sizeof e);
    int rc = solver_check_input(S, (size_t)i, &x, &e);
    if (want == NULL) {
        cr_expect_eq(rc, 0, "%s = %.17g rejected: %s", input, v, e.detail);
        return;
    }
    cr_expect_eq(rc, -1, "%s = %.17g accepted", input, v);
    cr_expect_eq(e.status, 400);
    cr_expect_str_eq(e.field, input);
    cr_expect_str_eq(e.detail, want);
}

Test(single_node, validation_messages)
{
    use_solver("single_node");
    expect_check("efficiency", 0.0, false, "efficiency must be in [1e-09, 1.0], got 0.0");
    expect_check("efficiency", 0, true, "efficiency must be in [1e-09, 1.0], got 0");
    expect_check("efficiency", 1.5, false, "efficiency must be in [1e-09, 1.0], got 1.5");
    expect_check("efficiency", 1e-9, false, NULL); /* both ends inclusive */
    expect_check("efficiency", 1.0, false, NULL);
    expect_check("batch_size", 0, true, "batch_size must be >= 1, got 0");
    expect_check("batch_size", 1, true, NULL);
    expect_check("zero_stage", 4, true, "zero_stage must be in [0, 3], got 4");
    expect_check("zero_stage", -1, true, "zero_stage must be in [0, 3], got -1");
    expect_check("zero_stage", 0, true, NULL);
    expect_check("zero_stage", 3, true, NULL);
    expect_check("dp_size", 0, true, "dp_size must be >= 1, got 0");
    expect_check("seq_len", 0, true, "seq_len must be >= 1, got 0");
}

/* ======================================================================== */
/* data                                                                     */
/* ======================================================================== */

static hw_node fed(double storage_bw, double link_bw)
{
    hw_node h = mk_hw("Fed", 1e14, 80e9, 1e12);
    if (!isnan(storage_bw)) {
        h.has_storage = true;
        h.storage_bandwidth = storage_bw;
    }
    if (!isnan(link_bw)) {
        h.has_interconnect = true;
        h.interconnect_bw = link_bw;
    }
    return h;
}

static void run_data(const hw_node *h, double rate)
{
    use_solver("data");
    set_hw("hardware", h);
    set_num("workload_data_rate", rate);
    solve_ok();
}

Test(data, storage_slower_than_link)
{
    /* NVMe 7 GB/s vs PCIe 64 GB/s: Storage; 3.5 / 7 = 0.5, margin 3.5 GB/s. */
    hw_node h = fed(7e9, 64e9);
    run_data(&h, 3.5e9);
    expect_str("bottleneck", "Storage");
    expect_num("supply_bw", 7.0);
    expect_num("demand_bw", 3.5);
    expect_num("utilization", 0.5);
    expect_num("margin", 3.5);
    cr_expect(!flag("is_stalled"));
}

Test(data, link_slower_than_storage)
{
    hw_node h = fed(7e9, 5e9);
    run_data(&h, 3.5e9);
    expect_str("bottleneck", "Interconnect");
    expect_num("supply_bw", 5.0);
    expect_num("utilization", 0.7);
}

Test(data, tie_goes_to_storage)
{
    hw_node h = fed(7e9, 7e9);
    run_data(&h, 1e9);
    expect_str("bottleneck", "Storage");
}

Test(data, zero_storage_bandwidth_is_not_a_path)
{
    /* A defined storage of 0 GB/s is skipped ("> 0"), so the link supplies. */
    hw_node h = fed(0, 32e9);
    run_data(&h, 16e9);
    expect_str("bottleneck", "Interconnect");
    expect_num("utilization", 0.5);
}

Test(data, stalled_only_above_one)
{
    /* 7 / 7 = 1.0 exactly: not stalled (strict >); 14 / 7 = 2: stalled, margin -7. */
    hw_node h = fed(7e9, NAN);
    run_data(&h, 7e9);
    cr_expect_eq(num("utilization"), 1.0);
    cr_expect(!flag("is_stalled"));
    cr_expect_eq(num("margin"), 0.0);
    run_data(&h, 14e9);
    cr_expect_eq(num("utilization"), 2.0);
    cr_expect(flag("is_stalled"));
    expect_num("margin", -7.0);
}

Test(data, no_supply_path_is_unknown)
{
    /* No storage, no interconnect: supply 0, utilization +inf -> null with a
     * warning; inf > 1 so mlsysim reports stalled; margin = 0 - 2 GB/s. */
    hw_node h = fed(NAN, NAN);
    run_data(&h, 2e9);
    expect_str("bottleneck", "Unknown");
    cr_expect(is_null("utilization"));
    cr_expect(warned("utilization is infinite"));
    cr_expect(flag("is_stalled"));
    cr_expect_eq(num("supply_bw"), 0.0);
    expect_num("margin", -2.0);
}

Test(data, supply_path_helper)
{
    double supply;
    const char *path;
    hw_node h = fed(7e9, 64e9);
    data_supply_path(&h, &supply, &path);
    cr_expect_str_eq(path, "Storage");
    cr_expect_eq(supply, 7e9);
    h = fed(NAN, 32e9);
    data_supply_path(&h, &supply, &path);
    cr_expect_str_eq(path, "Interconnect");
    cr_expect_eq(supply, 32e9);
    h = fed(NAN, NAN);
    h.has_storage = true; /* storage present but without a bandwidth */
    data_supply_path(&h, &supply, &path);
    cr_expect_str_eq(path, "Unknown");
    cr_expect_eq(supply, 0.0);
}

/* ======================================================================== */
/* transformation                                                           */
/* ======================================================================== */

static void run_tf(double batch, double sample_b, double cpu_bps, double step_s)
{
    use_solver("transformation");
    set_num("batch_size", batch);
    set_num("sample_size_bytes", sample_b);
    set_num("cpu_throughput", cpu_bps);
    set_num("accelerator_step_time", step_s);
}

Test(transformation, cpu_slower_than_step)
{
    /* 32 x 500 KB / 2 GB/s = 1.6e7 / 2e9 = 8 ms vs 7.24 ms: bottleneck;
     * utilization 7.24 / 8 = 0.905; slowdown 8 / 7.24. */
    run_tf(32, 5e5, 2e9, 7.24e-3);
    solve_ok();
    expect_num("transform_time", 8.0);
    expect_num("accelerator_step_time", 7.24);
    cr_expect(flag("is_bottleneck"));
    expect_num("accelerator_utilization", 0.905);
    expect_num("slowdown_factor", 8 / 7.24);
}

Test(transformation, equal_times_are_not_a_bottleneck)
{
    /* 8 ms vs 8 ms: strict > -> false; utilization 1, slowdown 1. */
    run_tf(32, 5e5, 2e9, 8e-3);
    solve_ok();
    cr_expect_eq(num("transform_time"), num("accelerator_step_time"));
    cr_expect(!flag("is_bottleneck"));
    cr_expect_eq(num("accelerator_utilization"), 1.0);
    cr_expect_eq(num("slowdown_factor"), 1.0);
}

Test(transformation, zero_step_time)
{
    /* T_acc = 0: slowdown = 8 / 0 = inf -> null + warning; utilization 0 / 8 = 0. */
    run_tf(32, 5e5, 2e9, 0);
    solve_ok();
    cr_expect(is_null("slowdown_factor"));
    cr_expect(warned("slowdown_factor is infinite"));
    cr_expect_eq(num("accelerator_utilization"), 0.0);
    cr_expect(flag("is_bottleneck"));
}

Test(transformation, zero_batch)
{
    /* batch 0 -> T_tr = 0: not a bottleneck, utilization 7.24 / 7.24 = 1. */
    run_tf(0, 5e5, 2e9, 7.24e-3);
    solve_ok();
    cr_expect_eq(num("transform_time"), 0.0);
    cr_expect(!flag("is_bottleneck"));
    cr_expect_eq(num("accelerator_utilization"), 1.0);
    cr_expect_eq(num("slowdown_factor"), 1.0);
}

Test(transformation, zero_batch_and_zero_step)
{
    /* T_step = max(0, 0) = 0: utilization falls back to 0; slowdown null. */
    run_tf(0, 5e5, 2e9, 0);
    solve_ok();
    cr_expect_eq(num("accelerator_utilization"), 0.0);
    cr_expect(is_null("slowdown_factor"));
}

Test(transformation, zero_cpu_throughput_is_division_by_zero)
{
    run_tf(32, 5e5, 0, 7.24e-3);
    cr_assert_eq(solve(), -1);
    cr_expect_eq(ERR.status, 400);
    cr_expect_str_eq(ERR.field, "cpu_throughput");
    cr_expect(strstr(ERR.detail, "float division by zero") != NULL, "%s", ERR.detail);
}

Test(transformation, negative_inputs_rejected)
{
    run_tf(-1, 5e5, 2e9, 7.24e-3);
    cr_assert_eq(solve(), -1);
    cr_expect_str_eq(ERR.detail, "batch_size must be non-negative, got -1");
}

/* ======================================================================== */
/* pipeline                                                                 */
/* ======================================================================== */

/* "Pipe": 2 TFLOP/s (1e12 at the default efficiency 0.5), 1 TB/s, no dispatch
 * tax. The 1 M-param, 1 GFLOP CNN (layers unset -> 1) at batch 8:
 *   T_c = 8e9 / 1e12 = 8 ms; T_m = (2e6 + 0.1 x 2e6 x 8) / 1e12 = 3.6 us;
 *   T_acc = 8 ms + 1 x 0.01 ms = 8.01 ms, Compute-bound. */
#define PIPE_T_ACC (8e9 / 1e12 + 1e-5) /* the same two roundings the roofline makes */

static hw_node pipe_hw(void) { return mk_hw("Pipe", 2e12, 80e9, 1e12); }

static model_t pipe_cnn(void) { return mk_model(WL_CNN, 1e6, 1e9, 0); }

static void use_pipeline(const hw_node *h, const model_t *m, double sample_b)
{
    use_solver("pipeline");
    set_hw("hardware", h);
    set_model("model", m);
    set_num("batch_size", 8);
    set_num("sample_size_bytes", sample_b);
}

Test(pipeline, accelerator_binds)
{
    /* bytes = 8 x 1 MB = 8e6. T_cpu = 8e6 / 2e9 = 4 ms; T_io = 8e6 / 4e9 = 2 ms;
     * step = T_acc = 8.01 ms -> the accelerator's own "Compute".
     * demand = 8e6 / 8.01e-3 = 0.998751560549... GB/s; storage util = demand / 4;
     * workers_needed: 0.99875 / 0.25 = 3.995 -> 4. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_num("storage_bandwidth", 4e9);
    solve_ok();
    expect_num("accelerator_step_time", 8.01);
    expect_str("accelerator_bottleneck", "Compute");
    expect_num("transform_time", 4.0);
    expect_num("storage_time", 2.0);
    expect_num("step_time", 8.01);
    expect_str("binding_stage", "Compute");
    cr_expect_eq(num("accelerator_utilization"), 1.0);
    cr_expect_eq(num("slowdown_factor"), 1.0);
    expect_num("throughput", 8 / 8.01e-3);
    expect_num("data_demand_bw", 8e6 / 8.01e-3 / 1e9);
    expect_num("cpu_throughput_needed", 8e6 / 8.01e-3 / 1e9);
    expect_num("storage_supply_bw", 4.0);
    expect_str("storage_path", "Override");
    expect_num("storage_utilization", 8e6 / 8.01e-3 / 4e9);
    cr_expect(!flag("storage_stalled"));
    expect_num("cpu_throughput", 2.0);
    cr_expect_eq(num("workers_needed"), 4.0);
    expect_num("per_worker_throughput", 0.25);
}

Test(pipeline, reports_feasibility_and_warns_on_offload)
{
    /* Fits: weights 1e6 params x 2 B = 2 MB <= 80 GB. Does not fit: a 1 MB memory
     * (the same roofline offload path single_node takes) -> false + a warning. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    solve_ok();
    cr_expect(flag("accelerator_feasible"));
    cr_expect(!warned("does not fit"));
    h.mem_capacity = 1e6;
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    solve_ok();
    cr_expect(!flag("accelerator_feasible"));
    cr_expect(warned("does not fit in Pipe memory"));
}

Test(pipeline, transformation_binds)
{
    /* T_cpu = 8e6 / 5e8 = 16 ms > 8.01 ms and > T_io 2 ms: "Transformation".
     * utilization 8.01 / 16 = 0.500625; throughput 8 / 0.016 = 500; slowdown 16 / 8.01. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 5e8);
    set_num("storage_bandwidth", 4e9);
    solve_ok();
    expect_str("binding_stage", "Transformation");
    expect_num("step_time", 16.0);
    expect_num("accelerator_utilization", 0.500625);
    expect_num("throughput", 500.0);
    expect_num("slowdown_factor", 16 / 8.01);
}

Test(pipeline, storage_binds)
{
    /* T_io = 8e6 / 5e8 = 16 ms > T_acc and > T_cpu 4 ms: "Storage";
     * storage util = 0.99875 / 0.5 = 1.9975 -> stalled. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_num("storage_bandwidth", 5e8);
    solve_ok();
    expect_str("binding_stage", "Storage");
    expect_num("step_time", 16.0);
    expect_num("storage_utilization", 8e6 / 8.01e-3 / 5e8);
    cr_expect(flag("storage_stalled"));
}

Test(pipeline, memory_bound_accelerator_binds)
{
    /* 10 G-param CNN: W = 2e10 B; D = 2e10 + 0.1 x 2e10 x 8 = 3.6e10 B -> T_m = 36 ms
     * > T_c = 8 ms; T_acc = 36.01 ms; CPU 4 ms, storage 2 ms: binding "Memory". */
    hw_node h = pipe_hw();
    model_t m = mk_model(WL_CNN, 1e10, 1e9, 0);
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_num("storage_bandwidth", 4e9);
    solve_ok();
    expect_str("accelerator_bottleneck", "Memory");
    expect_str("binding_stage", "Memory");
    expect_num("step_time", 36.01);
}

Test(pipeline, storage_path_from_hardware)
{
    /* No override: DataModel's path. Storage 4 GB/s < link 64 GB/s -> T_io 2 ms. */
    hw_node h = pipe_hw();
    h.has_storage = true;
    h.storage_bandwidth = 4e9;
    h.has_interconnect = true;
    h.interconnect_bw = 64e9;
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    solve_ok();
    expect_str("storage_path", "Storage");
    expect_num("storage_supply_bw", 4.0);
    expect_num("storage_time", 2.0);
}

Test(pipeline, no_storage_path_is_not_modelled)
{
    /* Unknown path: storage_time 0 with a warning, utilization null (+warning),
     * stalled as DataModel says for infinite utilization. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    solve_ok();
    expect_str("storage_path", "Unknown");
    cr_expect_eq(num("storage_time"), 0.0);
    cr_expect_eq(num("storage_supply_bw"), 0.0);
    cr_expect(is_null("storage_utilization"));
    cr_expect(flag("storage_stalled"));
    cr_expect(warned("storage_time is 0"));
    cr_expect(warned("storage_utilization is infinite"));
    expect_str("binding_stage", "Compute");
}

Test(pipeline, cpu_workers_times_per_worker)
{
    /* 8 workers x default 250 MB/s = 2 GB/s -> T_cpu = 8e6 / 2e9 = 4 ms;
     * 4 workers x 0.1 GB/s = 0.4 GB/s -> 20 ms (Transformation). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_workers", 8);
    solve_ok();
    expect_num("cpu_throughput", 2.0);
    expect_num("transform_time", 4.0);
    set_num("cpu_workers", 4);
    set_num("per_worker_throughput", 1e8);
    solve_ok();
    expect_num("transform_time", 20.0);
    expect_str("binding_stage", "Transformation");
    expect_num("per_worker_throughput", 0.1);
}

Test(pipeline, cpu_capacity_both_or_neither_is_an_error)
{
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    cr_expect_eq(solve(), -1);
    cr_expect(strstr(ERR.detail, "CPU capacity is required") != NULL, "%s", ERR.detail);
    set_num("cpu_throughput", 2e9);
    set_num("cpu_workers", 8);
    cr_expect_eq(solve(), -1);
    cr_expect(strstr(ERR.detail, "not both") != NULL, "%s", ERR.detail);
    cr_expect_eq(ERR.status, 400);
}

/* The ties need T_cpu or T_io to equal T_acc as doubles. With a rate of 2^30 B/s
 * and sample = T_acc x 2^27 B, bytes = 8 x sample = T_acc x 2^30 exactly (scaling
 * by a power of two is exact), so bytes / 2^30 = T_acc exactly. */
#define P30 1073741824.0

static void check_pipe_t_acc(const hw_node *h, const model_t *m)
{
    /* Precondition: the roofline's latency is the double PIPE_T_ACC. */
    roofline_result r;
    solver_outputs msgs;
    solver_error e;
    memset(&msgs, 0, sizeof msgs);
    use_pipeline(h, m, 0);
    cr_assert_eq(single_node_solve(&IN, &r, &msgs, &e), 0);
    cr_assert_eq(r.latency, PIPE_T_ACC, "latency %.17g", r.latency);
}

Test(pipeline, tie_cpu_equals_accelerator_is_accelerator)
{
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    check_pipe_t_acc(&h, &m);
    use_pipeline(&h, &m, PIPE_T_ACC * 134217728.0);
    set_num("cpu_throughput", P30);
    set_num("storage_bandwidth", 2 * P30);
    solve_ok();
    cr_assert_eq(num("transform_time"), num("accelerator_step_time"));
    expect_str("binding_stage", "Compute");
    cr_expect_eq(num("accelerator_utilization"), 1.0);
}

Test(pipeline, tie_cpu_equals_storage_above_accelerator_is_transformation)
{
    /* CPU and storage both 5e8 B/s: 16 ms each > 8.01 ms -> Transformation. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 5e8);
    set_num("storage_bandwidth", 5e8);
    solve_ok();
    cr_assert_eq(num("transform_time"), num("storage_time"));
    expect_str("binding_stage", "Transformation");
}

Test(pipeline, tie_storage_equals_accelerator_is_accelerator)
{
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    check_pipe_t_acc(&h, &m);
    use_pipeline(&h, &m, PIPE_T_ACC * 134217728.0);
    set_num("cpu_throughput", 2 * P30);
    set_num("storage_bandwidth", P30);
    solve_ok();
    cr_assert_eq(num("storage_time"), num("accelerator_step_time"));
    expect_str("binding_stage", "Compute");
    cr_expect(!flag("storage_stalled")); /* utilization exactly 1 */
}

/* Run the pipeline with n workers of `per` B/s and return the binding stage. */
static const char *binding_with_workers(const hw_node *h, const model_t *m, double sample, double n, double per)
{
    use_pipeline(h, m, sample);
    set_num("cpu_workers", n);
    set_num("per_worker_throughput", per);
    set_num("storage_bandwidth", 1e15); /* storage out of the way */
    solve_ok();
    return str("binding_stage");
}

static double workers_needed_for(const hw_node *h, const model_t *m, double sample, double per)
{
    use_pipeline(h, m, sample);
    set_num("cpu_throughput", 1e15);
    set_num("per_worker_throughput", per);
    set_num("storage_bandwidth", 1e15);
    solve_ok();
    return num("workers_needed");
}

static void expect_worker_boundary(const hw_node *h, const model_t *m, double sample, double per, double want)
{
    double n = workers_needed_for(h, m, sample, per);
    cr_assert_eq(n, want, "workers_needed = %.17g, want %.17g", n, want);
    cr_expect_str_eq(binding_with_workers(h, m, sample, n - 1, per), "Transformation", "%g workers", n - 1);
    cr_expect_str_eq(binding_with_workers(h, m, sample, n, per), "Compute", "%g workers", n);
}

Test(pipeline, workers_needed_exact_multiple)
{
    /* bytes = T_acc x 2^30 -> demand = bytes / T_acc = 2^30 B/s exactly; at 2^28 B/s
     * per worker that is exactly 4 workers: 3 bind (T_cpu = 4/3 T_acc), 4 do not
     * (T_cpu = T_acc, a tie, which the accelerator wins). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    check_pipe_t_acc(&h, &m);
    expect_worker_boundary(&h, &m, PIPE_T_ACC * 134217728.0, P30 / 4, 4);
}

Test(pipeline, workers_needed_where_plain_ceil_is_one_too_many)
{
    /* bytes = 8 x 2.5 MB = 2e7; demand = 2e7 / T_acc = 2496878901.3732834 B/s.
     * per = demand / 29 (rounded): 29 x per rounds back to demand, so 29 workers
     * supply exactly the demand, but demand / per = 29.000000000000004 and a
     * plain ceil() says 30. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    check_pipe_t_acc(&h, &m);
    double demand = 2e7 / PIPE_T_ACC;
    double per = demand / 29;
    cr_assert_eq(29 * per, demand);
    cr_assert_eq(ceil(demand / per), 30.0);
    expect_worker_boundary(&h, &m, 2.5e6, per, 29);
}

Test(pipeline, workers_needed_agrees_with_binding_when_product_rounds_down)
{
    /* bytes = 8 x 500 KB = 4e6; demand = 4e6 / T_acc; per = demand / 19 rounded
     * down, so 19 x per is one ulp short of demand ("n x per >= demand" alone would
     * ask for 20) yet 4e6 / (19 x per) rounds to exactly T_acc: with 19 workers the
     * pipeline does not bind on the CPU, so 19 is the answer it must report. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    check_pipe_t_acc(&h, &m);
    double demand = 4e6 / PIPE_T_ACC;
    double per = demand / 19;
    cr_assert_lt(19 * per, demand);
    cr_assert_eq(4e6 / (19 * per), PIPE_T_ACC);
    expect_worker_boundary(&h, &m, 5e5, per, 19);
}

Test(pipeline, workers_needed_round_numbers)
{
    /* demand 0.99875 GB/s (bytes 8e6) at 250 MB/s: 3.995 -> 4, 3 bind, 4 do not. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    expect_worker_boundary(&h, &m, 1e6, 250e6, 4);
}

Test(pipeline, workers_needed_zero_bytes)
{
    /* No data to preprocess: demand 0 -> 0 workers. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    cr_expect_eq(workers_needed_for(&h, &m, 0, 250e6), 0.0);
}

Test(pipeline, workers_needed_with_tiny_per_worker_rate_terminates, .timeout = 10)
{
    /* A positive but absurd per-worker rate (1e-300 B/s) makes demand / per overflow
     * to +inf, and 1e-8 B/s makes it 1e17 where n - 1 == n in binary64: neither may
     * loop forever (the server would hang a worker thread). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_num("per_worker_throughput", 1e-300);
    solve_ok();
    cr_expect(isinf(num("workers_needed")), "workers_needed = %.17g", num("workers_needed"));
    set_num("per_worker_throughput", 1e-8);
    solve_ok();
    /* demand = 8e6 / 8.01e-3 = 9.9875e8 B/s -> about 9.9875e16 workers */
    expect_num("workers_needed", ceil(8e6 / PIPE_T_ACC / 1e-8));
}

/* ---- pipeline: cache, node, stall breakdown, dataset (docs/pipeline.md) ----------- */

/* Pipe at batch 8 with 1 MB samples: 8e6 B per accelerator batch, T_acc 8.01 ms. */
static void use_pipe_cache(const hw_node *h, const model_t *m, double cpu, double storage, double cache_bw, double x)
{
    use_pipeline(h, m, 1e6);
    set_num("cpu_throughput", cpu);
    set_num("storage_bandwidth", storage);
    if (cache_bw > 0)
        set_num("cache_bandwidth", cache_bw);
    set_num("cache_fraction", x);
}

/* The three shares of a step add up to one. */
static void expect_stall_split_sums_to_one(void)
{
    double sum = num("accelerator_utilization") + num("fetch_stall_fraction") + num("prep_stall_fraction");
    cr_expect(fabs(sum - 1) <= 1e-15, "busy + fetch + prep = %.17g", sum);
}

Test(pipeline, no_cache_inputs_leave_the_seed_answer)
{
    /* The defaults (cache_fraction 0, one accelerator) are the tutorial's model:
     * the accelerator_binds case, plus the new outputs at their neutral values. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_num("storage_bandwidth", 4e9);
    solve_ok();
    expect_num("storage_time", 2.0);
    expect_num("step_time", 8.01);
    expect_num("throughput", 8 / 8.01e-3);
    expect_num("node_throughput", 8 / 8.01e-3);
    expect_num("storage_utilization", 8e6 / 8.01e-3 / 4e9);
    cr_expect_eq(num("workers_needed"), 4.0);
    cr_expect_eq(num("sample_size_bytes"), 1e6);
    cr_expect(is_null("cache_bandwidth")); /* no interconnect on Pipe, none given */
    cr_expect_eq(num("cache_fraction_needed"), 0.0);
    cr_expect_eq(num("fetch_stall_fraction"), 0.0);
    cr_expect_eq(num("prep_stall_fraction"), 0.0);
    cr_expect(is_null("epoch_time"));
    cr_expect_eq(OUT.n_warnings, 0, "%s", OUT.warnings[0]);
}

Test(pipeline, cache_blends_storage_time_and_storage_binds)
{
    /* storage 0.5 GB/s, cache 4 GB/s, x = 0.5:
     *   T_io = 8e6 x (0.5 / 4e9 + 0.5 / 5e8) = 8e6 x 1.125e-9 = 9 ms > 8.01 ms, > T_cpu 4 ms
     *   -> Storage, step 9 ms; utilization of the fetch path 9 / 8.01;
     *   busy 8.01 / 9 = 0.89, fetch stall (9 - 8.01) / 9 = 0.11, prep stall 0. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_cache(&h, &m, 2e9, 5e8, 4e9, 0.5);
    solve_ok();
    expect_num("storage_time", 9.0);
    expect_str("binding_stage", "Storage");
    expect_num("step_time", 9.0);
    expect_num("storage_utilization", 9 / 8.01);
    cr_expect(flag("storage_stalled"));
    expect_num("cache_bandwidth", 4.0);
    expect_num("accelerator_utilization", 0.89);
    expect_num("fetch_stall_fraction", 0.11);
    cr_expect_eq(num("prep_stall_fraction"), 0.0);
    expect_stall_split_sums_to_one();
    /* x = 0.75: T_io = 8e6 x (0.75 / 4e9 + 0.25 / 5e8) = 8e6 x 6.875e-10 = 5.5 ms -> Compute. */
    use_pipe_cache(&h, &m, 2e9, 5e8, 4e9, 0.75);
    solve_ok();
    expect_num("storage_time", 5.5);
    expect_str("binding_stage", "Compute");
    expect_num("storage_utilization", 5.5 / 8.01);
    /* x = 1: every byte from the cache, 8e6 / 4e9 = 2 ms. */
    use_pipe_cache(&h, &m, 2e9, 5e8, 4e9, 1);
    solve_ok();
    expect_num("storage_time", 2.0);
}

/* cache_fraction_needed, then the binding stage one double below and at it. */
static void expect_cache_boundary(const hw_node *h, const model_t *m, double cpu, double storage, double cache_bw,
                                  double want, const char *below, const char *at)
{
    use_pipe_cache(h, m, cpu, storage, cache_bw, 0);
    solve_ok();
    double x = num("cache_fraction_needed");
    cr_expect(rel_eq(x, want) || fabs(x - want) <= 4e-16, "cache_fraction_needed = %.17g, want %.17g", x, want);
    use_pipe_cache(h, m, cpu, storage, cache_bw, nextafter(x, 0));
    solve_ok();
    cr_expect_str_eq(str("binding_stage"), below, "just below %.17g", x);
    use_pipe_cache(h, m, cpu, storage, cache_bw, x);
    solve_ok();
    cr_expect_str_eq(str("binding_stage"), at, "at %.17g", x);
}

Test(pipeline, cache_fraction_needed_where_the_accelerator_takes_over)
{
    /* Uncached T_io = 16 ms, fully cached 2 ms, T_cpu 4 ms: storage binds until
     * T_io(x) = 8.01 ms: x = (16 - 8.01) / (16 - 2) = 7.99 / 14 = 0.570714285714...
     * Just below it Storage binds, at it the accelerator (Compute). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    expect_cache_boundary(&h, &m, 2e9, 5e8, 4e9, 7.99 / 14, "Storage", "Compute");
}

Test(pipeline, cache_fraction_needed_where_the_cpu_takes_over)
{
    /* CPU 0.5 GB/s: T_cpu = 16 ms; storage 0.25 GB/s: T_io = 32 ms uncached ->
     * Storage; prep stall (16 - 8.01) / 32, fetch stall (32 - 16) / 32 = 0.5.
     * Storage stops binding at T_io = 16 ms: x = (32 - 16) / (32 - 2) = 8 / 15;
     * there the CPU binds (it wins the tie with storage). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_cache(&h, &m, 5e8, 2.5e8, 4e9, 0);
    solve_ok();
    expect_str("binding_stage", "Storage");
    expect_num("prep_stall_fraction", (16 - 8.01) / 32);
    expect_num("fetch_stall_fraction", 0.5);
    expect_stall_split_sums_to_one();
    expect_cache_boundary(&h, &m, 5e8, 2.5e8, 4e9, 8.0 / 15, "Storage", "Transformation");
    /* x = 0.6: T_io = 8e6 x (0.6 / 4e9 + 0.4 / 2.5e8) = 8e6 x 1.75e-9 = 14 ms -> the CPU's 16 ms binds;
     * prep stall (16 - 8.01) / 16, no fetch stall. */
    use_pipe_cache(&h, &m, 5e8, 2.5e8, 4e9, 0.6);
    solve_ok();
    expect_num("storage_time", 14.0);
    expect_str("binding_stage", "Transformation");
    expect_num("prep_stall_fraction", (16 - 8.01) / 16);
    cr_expect_eq(num("fetch_stall_fraction"), 0.0);
    expect_stall_split_sums_to_one();
}

Test(pipeline, cache_fraction_needed_null_when_a_full_cache_still_binds)
{
    /* Cache as slow as storage (0.5 GB/s): T_io = 16 ms at every x -> null, with the reason. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_cache(&h, &m, 2e9, 5e8, 5e8, 0);
    solve_ok();
    cr_expect(is_null("cache_fraction_needed"));
    cr_expect(warned("even with every sample from the cache"));
    /* No cache bandwidth at all (Pipe has no host link): null, saying so. */
    use_pipe_cache(&h, &m, 2e9, 5e8, 0, 0);
    solve_ok();
    cr_expect(is_null("cache_fraction_needed"));
    cr_expect(warned("no cache_bandwidth was given"));
}

Test(pipeline, cache_bandwidth_defaults_to_the_host_link_else_is_required)
{
    /* Host link 64 GB/s, storage 4 GB/s: cache at 64 GB/s. x = 0.5:
     * T_io = 8e6 x (0.5 / 64e9 + 0.5 / 4e9) = 8e6 x 1.328125e-10 = 1.0625 ms. */
    hw_node h = pipe_hw();
    h.has_interconnect = true;
    h.interconnect_bw = 64e9;
    model_t m = pipe_cnn();
    use_pipe_cache(&h, &m, 2e9, 4e9, 0, 0.5);
    solve_ok();
    expect_num("cache_bandwidth", 64.0);
    expect_num("storage_time", 1.0625);
    /* Without a host link and without cache_bandwidth, a cache fraction is a 400 naming it. */
    hw_node bare = pipe_hw();
    use_pipe_cache(&bare, &m, 2e9, 4e9, 0, 0.5);
    cr_expect_eq(solve(), -1);
    cr_expect_str_eq(ERR.field, "cache_bandwidth");
    cr_expect(strstr(ERR.detail, "cache_bandwidth is required when cache_fraction > 0") != NULL, "%s", ERR.detail);
}

Test(pipeline, cache_fraction_is_checked_in_zero_one)
{
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_cache(&h, &m, 2e9, 4e9, 4e9, 1.5);
    cr_expect_eq(solve(), -1);
    cr_expect_str_eq(ERR.detail, "cache_fraction must be in [0, 1], got 1.5");
}

Test(pipeline, no_storage_path_leaves_the_cache_out_too)
{
    /* Storage not modelled (Unknown path): the fetch stage is 0 even with a cache. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_num("cache_bandwidth", 1e9);
    set_num("cache_fraction", 1);
    solve_ok();
    cr_expect_eq(num("storage_time"), 0.0);
    cr_expect_eq(num("cache_fraction_needed"), 0.0);
    cr_expect(warned("storage is not modelled"));
}

/* ---- a node of n accelerators ------------------------------------------------------- */

static void use_pipe_node(const hw_node *h, const model_t *m, double cpu, double storage, double n)
{
    use_pipeline(h, m, 1e6);
    set_num("cpu_throughput", cpu);
    set_num("storage_bandwidth", storage);
    set_num("accelerators_per_node", n);
}

Test(pipeline, node_of_four_shares_the_cpu)
{
    /* n = 4: the node moves 4 x 8e6 = 32e6 B per step.
     *   T_cpu = 32e6 / 2e9 = 16 ms, T_io = 32e6 / 16e9 = 2 ms -> Transformation.
     *   throughput 8 / 16 ms = 500 per accelerator, node 2000;
     *   demand 32e6 / 8.01 ms = 3.99500624... GB/s -> 15.98 -> 16 workers per node;
     *   per accelerator 8e6 / 8.01 ms / 250 MB/s = 3.995 cores;
     *   the CPU feeds floor(8.01 ms x 2e9 / 8e6) = floor(2.0025) = 2 accelerators,
     *   storage floor(8.01 ms x 16e9 / 8e6) = 16 -> max 2;
     *   prep stall (16 - 8.01) / 16 = 0.499375, no fetch stall. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_node(&h, &m, 2e9, 16e9, 4);
    solve_ok();
    expect_num("accelerator_step_time", 8.01);
    expect_num("transform_time", 16.0);
    expect_num("storage_time", 2.0);
    expect_str("binding_stage", "Transformation");
    expect_num("throughput", 500.0);
    expect_num("node_throughput", 2000.0);
    expect_num("data_demand_bw", 32e6 / 8.01e-3 / 1e9);
    expect_num("cpu_throughput_needed", 32e6 / 8.01e-3 / 1e9);
    cr_expect_eq(num("workers_needed"), 16.0);
    expect_num("cpu_cores_per_accelerator_needed", 8e6 / 8.01e-3 / 250e6);
    cr_expect_eq(num("accelerators_per_node_max"), 2.0);
    expect_num("prep_stall_fraction", 0.499375);
    cr_expect_eq(num("fetch_stall_fraction"), 0.0);
    expect_stall_split_sums_to_one();
    /* The boundary of accelerators_per_node_max: 2 do not stall (T_cpu 8 ms), 3 do (12 ms). */
    use_pipe_node(&h, &m, 2e9, 16e9, 2);
    solve_ok();
    expect_num("transform_time", 8.0);
    expect_str("binding_stage", "Compute");
    use_pipe_node(&h, &m, 2e9, 16e9, 3);
    solve_ok();
    expect_num("transform_time", 12.0);
    expect_str("binding_stage", "Transformation");
}

Test(pipeline, node_of_twenty_shares_the_storage)
{
    /* CPU 100 GB/s, storage 16 GB/s, n = 20: 160e6 B per step;
     *   T_io = 10 ms > T_cpu 1.6 ms, > 8.01 ms -> Storage; fetch stall (10 - 8.01) / 10 = 0.199;
     *   storage feeds floor(8.01 ms x 16e9 / 8e6) = floor(16.02) = 16: 16 -> 8 ms (no stall),
     *   17 -> 8.5 ms (Storage). Node throughput 20 x 8 / 10 ms = 16000.
     *   A cache at 64 GB/s: T_io(x) = 160e6 x (x / 64e9 + (1 - x) / 16e9) = 10 ms - 7.5 ms x
     *   = 8.01 ms at x = 1.99 / 7.5 = 0.265333... */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_node(&h, &m, 1e11, 16e9, 20);
    solve_ok();
    expect_num("storage_time", 10.0);
    expect_str("binding_stage", "Storage");
    expect_num("node_throughput", 16000.0);
    expect_num("throughput", 800.0);
    expect_num("fetch_stall_fraction", 0.199);
    cr_expect_eq(num("prep_stall_fraction"), 0.0);
    expect_stall_split_sums_to_one();
    cr_expect_eq(num("accelerators_per_node_max"), 16.0);
    use_pipe_node(&h, &m, 1e11, 16e9, 16);
    solve_ok();
    expect_num("storage_time", 8.0);
    expect_str("binding_stage", "Compute");
    use_pipe_node(&h, &m, 1e11, 16e9, 17);
    solve_ok();
    expect_num("storage_time", 8.5);
    expect_str("binding_stage", "Storage");
    /* with the cache */
    use_pipe_node(&h, &m, 1e11, 16e9, 20);
    set_num("cache_bandwidth", 64e9);
    solve_ok();
    double x = num("cache_fraction_needed");
    cr_expect(fabs(x - 1.99 / 7.5) <= 1e-15, "cache_fraction_needed = %.17g", x);
    set_num("cache_fraction", x);
    solve_ok();
    expect_str("binding_stage", "Compute");
    set_num("cache_fraction", nextafter(x, 0));
    solve_ok();
    expect_str("binding_stage", "Storage");
}

Test(pipeline, accelerators_per_node_max_counts_the_cache)
{
    /* Storage 4 GB/s, cache 64 GB/s, x = 0.5: one batch fetches in
     * 8e6 x (0.5 / 64e9 + 0.5 / 4e9) = 1.0625 ms; CPU 1e11: 0.08 ms.
     * 8.01 / 1.0625 = 7.5388... -> 7 (7.4375 ms), 8 stall (8.5 ms). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_cache(&h, &m, 1e11, 4e9, 64e9, 0.5);
    solve_ok();
    cr_expect_eq(num("accelerators_per_node_max"), 7.0);
    set_num("accelerators_per_node", 7);
    solve_ok();
    expect_num("storage_time", 7.4375);
    expect_str("binding_stage", "Compute");
    set_num("accelerators_per_node", 8);
    solve_ok();
    expect_num("storage_time", 8.5);
    expect_str("binding_stage", "Storage");
}

Test(pipeline, accelerators_per_node_max_zero_and_unbounded)
{
    /* CPU 0.5 GB/s: one accelerator already stalls (16 ms) -> 0.
     * sample 0 B: nothing to feed, no bound -> null (without a warning: nothing is wrong). */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_pipe_node(&h, &m, 5e8, 16e9, 1);
    solve_ok();
    cr_expect_eq(num("accelerators_per_node_max"), 0.0);
    use_pipeline(&h, &m, 0);
    set_num("cpu_throughput", 2e9);
    set_num("storage_bandwidth", 4e9);
    solve_ok();
    cr_expect(is_null("accelerators_per_node_max"));
    cr_expect_eq(num("cpu_cores_per_accelerator_needed"), 0.0);
    cr_expect_eq(OUT.n_warnings, 0);
}

/* ---- datasets ------------------------------------------------------------------------- */

static dataset_t mk_dataset(const char *name, double train)
{
    dataset_t d;
    memset(&d, 0, sizeof d);
    snprintf(d.key, sizeof d.key, "%s", name);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.training_examples = train;
    d.validation_examples = d.test_examples = d.full_examples = NAN;
    d.sample_duration = d.sample_rate = d.sample_width = NAN;
    return d;
}

Test(pipeline, dataset_gives_the_decoded_image_size_and_the_epoch)
{
    /* An ImageNet-like entry: 224 x 224 x 3 = 150528 B per decoded sample, 1281167
     * training examples. Batch 8: 1204224 B; CPU 2 GB/s -> 0.602112 ms; the
     * accelerator binds at 8.01 ms; 8 / 8.01 ms = 998.75... samples/s;
     * epoch = 1281167 x 8.01e-3 / 8 = 1282.7684587... s. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    dataset_t d = mk_dataset("ImageNetish", 1281167);
    d.image_width = d.image_height = 224;
    d.image_channels = 3;
    use_solver("pipeline");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("batch_size", 8);
    set_num("cpu_throughput", 2e9);
    set_ref("dataset", REC_DATASET, &d);
    solve_ok();
    cr_expect_eq(num("sample_size_bytes"), 150528.0);
    expect_num("transform_time", 0.602112);
    expect_str("binding_stage", "Compute");
    expect_num("epoch_time", 1281167 * 8.01e-3 / 8);
    cr_expect(warned("sample_size_bytes not given: 150528 B, a decoded 224x224x3 image"));
    /* Four accelerators share the epoch: a quarter of the time (CPU 2.408 ms still keeps up). */
    set_num("accelerators_per_node", 4);
    solve_ok();
    expect_num("epoch_time", 1281167 * 8.01e-3 / 32);
    /* A given sample size wins, without the warning. */
    set_num("sample_size_bytes", 1e6);
    solve_ok();
    cr_expect_eq(num("sample_size_bytes"), 1e6);
    cr_expect(!warned("sample_size_bytes not given"));
}

Test(pipeline, dataset_gives_the_decoded_audio_size)
{
    /* An MSWC-like entry: 1 s x 16000 Hz x 2 B = 32000 B. */
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    dataset_t d = mk_dataset("Speechish", 23400000);
    d.sample_duration = 1;
    d.sample_rate = 16000;
    d.sample_width = 2;
    use_solver("pipeline");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("cpu_throughput", 2e9);
    set_ref("dataset", REC_DATASET, &d);
    solve_ok();
    cr_expect_eq(num("sample_size_bytes"), 32000.0);
}

Test(pipeline, sample_size_required_without_a_dataset_that_implies_it)
{
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    use_solver("pipeline");
    set_hw("hardware", &h);
    set_model("model", &m);
    set_num("cpu_throughput", 2e9);
    cr_expect_eq(solve(), -1);
    cr_expect_str_eq(ERR.field, "sample_size_bytes");
    cr_expect(strstr(ERR.detail, "sample_size_bytes is required") != NULL, "%s", ERR.detail);
    /* A robotics-like entry: counts, no sizes. */
    dataset_t d = mk_dataset("Episodes", 100);
    set_ref("dataset", REC_DATASET, &d);
    cr_expect_eq(solve(), -1);
    cr_expect_str_eq(ERR.field, "sample_size_bytes");
    cr_expect(strstr(ERR.detail, "dataset 'Episodes' gives no image or audio size") != NULL, "%s", ERR.detail);
    /* With a size it answers, and the epoch uses its 100 examples: batch 1, 1 MB at 2 GB/s
     * -> T_cpu 0.5 ms; T_acc = 1e9 / 1e12 + 0.01 ms = 1.01 ms binds -> 100 x 1.01 ms = 0.101 s. */
    set_num("sample_size_bytes", 1e6);
    solve_ok();
    expect_num("epoch_time", 0.101);
}

Test(pipeline, dataset_without_training_count_has_no_epoch)
{
    hw_node h = pipe_hw();
    model_t m = pipe_cnn();
    dataset_t d = mk_dataset("Countless", NAN);
    use_pipeline(&h, &m, 1e6);
    set_num("cpu_throughput", 2e9);
    set_ref("dataset", REC_DATASET, &d);
    solve_ok();
    cr_expect(is_null("epoch_time"));
    cr_expect(warned("epoch_time is null: the dataset gives no training example count"));
}
