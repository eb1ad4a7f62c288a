/* test_measured.c - measured mode's physics (core/measured.c) and the look-up
 * of its fitted parameters (core/calibration.c), called directly with a
 * hand-made table installed by calibration_use(), on made-up records with
 * round numbers (solver_fixture.h). The API tests (tests/api/test_measured.c)
 * check the same mode through the daemon with the fitted table.
 *
 * Each test installs its table and runs in its own process (Criterion's
 * default), so the table never leaks into another test. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/calibration.h"
#include "core/fleet.h"
#include "core/measured.h"
#include "core/model.h"
#include "core/precision.h"
#include "core/solver.h"
#include "solver_fixture.h"

/* ---- a hand-made table ------------------------------------------------------------ */

static const calib_entry TOY_ENTRIES[] = {
    {CP_GEMM_EFF, NULL, 0.5, 1},       {CP_CONV_EFF, NULL, 0.5, 1},         {CP_ATTN_EFF, NULL, 0.25, 1},
    {CP_TRAIN_EFF, NULL, 0.4, 1},      {CP_MEM_EFF, NULL, 0.8, 1},          {CP_ACT_PASSES_INF, NULL, 2.0, 1},
    {CP_ACT_PASSES_TRAIN, NULL, 6.0, 1}, {CP_TF_ACT_PASSES, NULL, 1.0, 1},
    {CP_LAYER_S, NULL, 10e-6, 1},      {CP_LAYER_S_Q, NULL, 5e-6, 1},       {CP_DECODE_LAYER_S, NULL, 10e-6, 1},
    {CP_DECODE_SEQ_S, NULL, 20e-6, 1},
    {CP_AR_LATENCY_S, NULL, 5e-6, 1},  {CP_LINK_EFF, NULL, 0.8, 1},         {CP_DP_EXPOSED, NULL, 0.5, 1},
    {CP_OVERLAP, NULL, 0.5, 1},        {CP_PREC_FP32, NULL, 1.0, 1},        {CP_PREC_8BIT, NULL, 0.75, 1},
    {CP_PREC_4BIT, NULL, 0.5, 1},      {CP_PREFILL_LAYER_S, NULL, 30e-6, 1}, {CP_FP32_VECTOR, NULL, 0.125, 1},
    {CP_EXPERT_HALF_TOKENS, NULL, 1024, 1}, {CP_PREFILL_OVERLAP, NULL, 0.5, 1},
    /* per accelerator: only ToyB's memory runs at half the common efficiency */
    {CP_MEM_EFF, "ToyB", 0.4, 1},
};

static const calib_table TOY = {.entries = TOY_ENTRIES, .n_entries = sizeof TOY_ENTRIES / sizeof TOY_ENTRIES[0]};

/* ---- made-up records ------------------------------------------------------------------ */

/* 100 TFLOP/s (no precision table: every precision computes at it), 1 PB of
 * memory (nothing hits the memory wall) at 1 TB/s, 10 us dispatch, NVLink
 * 450 GB/s with 1 us latency. */
static hw_node toy_gpu(const char *key)
{
    hw_node h;
    memset(&h, 0, sizeof h);
    snprintf(h.key, sizeof h.key, "%s", key);
    snprintf(h.name, sizeof h.name, "%s", key);
    h.peak_flops = 100e12;
    h.mem_capacity = 1e15;
    h.mem_capacity_unit = 1e9;
    h.mem_bandwidth = 1e12;
    h.sram_capacity = h.sram_bandwidth = h.flash_capacity = h.flash_bandwidth = NAN;
    h.storage_capacity = h.storage_bandwidth = h.interconnect_bw = NAN;
    h.has_nvlink = true;
    h.nvlink_bw = 450e9;
    h.nvlink_latency = 1e-6;
    h.tdp = 500;
    h.unit_cost = NAN;
    h.dispatch_tax = 10e-6;
    return h;
}

/* A CNN of 1e7 parameters, 1e10 FLOPs and 1e7 activation elements per
 * sample, in 10 layers (each counted from its shapes, as measured mode reads it). */
static model_t toy_cnn(void)
{
    model_t m = mk_model(WL_CNN, 1e7, 1e10, 10);
    m.architecture_flops = 1e10;
    m.activation_elements = 1e7;
    m.architecture_layers = 10;
    return m;
}

/* A 1B-parameter LLM (2 GFLOP per token): 10 layers, hidden 1024, 8 heads of
 * 128, 2 KV heads. */
static model_t toy_llm(void)
{
    model_t m = mk_model(WL_TRANSFORMER, 1e9, 2e9, 0);
    m.layers = 10;
    m.hidden_dim = 1024;
    m.heads = 8;
    m.kv_heads = 2;
    return m;
}

/* `count` nodes of 8 toy GPUs at 100 GB/s inside the node, on a 10 GB/s fabric
 * with 10 us per hop. */
static fleet_t toy_fleet(int count)
{
    fleet_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "ToyFleet");
    f.node.accelerator = toy_gpu("ToyA");
    f.node.accelerators_per_node = 8;
    f.node.intra_node_bw = 1e11;
    f.node.nics_per_node = 1;
    f.node.psus_per_node = 2;
    f.count = count;
    snprintf(f.fabric.name, sizeof f.fabric.name, "ToyFabric");
    f.fabric.bandwidth = 1e10;
    f.fabric.latency = 1e-5;
    f.fabric.oversubscription_ratio = 1.0;
    f.mtbf_hours = NAN;
    return f;
}

static hw_node GPU_A, GPU_B;
static model_t CNN, LLM;
static fleet_t FLEET;

static void records(void)
{
    GPU_A = toy_gpu("ToyA");
    GPU_B = toy_gpu("ToyB");
    CNN = toy_cnn();
    LLM = toy_llm();
    FLEET = toy_fleet(2);
    calibration_use(&TOY);
}

static void restore(void) { calibration_use(NULL); }

TestSuite(measured, .init = records, .fini = restore);

/* ---- calib_value ------------------------------------------------------------------------ */

Test(measured, calib_value_falls_back_from_hardware_to_common_to_start)
{
    /* keyed by ToyB; ToyA and no accelerator take the common value */
    cr_expect_eq(calib_value(CP_MEM_EFF, &GPU_B), 0.4);
    cr_expect_eq(calib_value(CP_MEM_EFF, &GPU_A), 0.8);
    cr_expect_eq(calib_value(CP_MEM_EFF, NULL), 0.8);
    /* a table with only a keyed entry: everyone else starts from the descriptor */
    static const calib_entry ONLY_B[] = {{CP_CONV_EFF, "ToyB", 0.7, 1}};
    static const calib_table T = {.entries = ONLY_B, .n_entries = 1};
    calibration_use(&T);
    cr_expect_eq(calibration_table(), &T);
    cr_expect_eq(calib_value(CP_CONV_EFF, &GPU_B), 0.7);
    cr_expect_eq(calib_value(CP_CONV_EFF, &GPU_A), CALIB_PARAMS[CP_CONV_EFF].start);
    cr_expect_eq(calib_value(CP_CONV_EFF, NULL), CALIB_PARAMS[CP_CONV_EFF].start);
    cr_expect_eq(calib_value(CP_MEM_EFF, &GPU_B), CALIB_PARAMS[CP_MEM_EFF].start);
    /* an empty table: every parameter at its start value */
    static const calib_table EMPTY = {.entries = NULL, .n_entries = 0};
    calibration_use(&EMPTY);
    for (int p = 0; p < CP_N; p++)
        cr_expect_eq(calib_value((calib_param)p, &GPU_A), CALIB_PARAMS[p].start, "%s", CALIB_PARAMS[p].name);
    /* NULL restores the fitted table */
    calibration_use(NULL);
    cr_expect_eq(calibration_table(), &CALIBRATION_FITTED);
}

Test(measured, calib_row_is_the_accelerators_values_and_follows_the_table)
{
    const double *b = calib_row(&GPU_B), *a = calib_row(&GPU_A), *common = calib_row(NULL);
    for (int p = 0; p < CP_N; p++) {
        cr_expect_eq(b[p], calib_value((calib_param)p, &GPU_B), "%s", CALIB_PARAMS[p].name);
        cr_expect_eq(a[p], common[p], "%s", CALIB_PARAMS[p].name);
    }
    cr_expect_eq(b[CP_MEM_EFF], 0.4);
    cr_expect_eq(common[CP_MEM_EFF], 0.8);
    /* asking for another accelerator leaves a row already read as it was */
    cr_expect_eq(calib_row(&GPU_A)[CP_MEM_EFF], 0.8);
    cr_expect_eq(b[CP_MEM_EFF], 0.4);
    /* a new table: new rows, for a key asked for before too */
    static const calib_entry ONLY_B[] = {{CP_MEM_EFF, "ToyB", 0.3, 1}};
    static const calib_table T = {.entries = ONLY_B, .n_entries = 1};
    calibration_use(&T);
    cr_expect_eq(calib_row(&GPU_B)[CP_MEM_EFF], 0.3);
    cr_expect_eq(calib_row(&GPU_A)[CP_MEM_EFF], CALIB_PARAMS[CP_MEM_EFF].start);
    cr_expect_eq(calib_row(NULL)[CP_GEMM_EFF], CALIB_PARAMS[CP_GEMM_EFF].start);
}

Test(measured, precision_factor_by_class)
{
    cr_expect_eq(calib_precision_factor(precision_find("fp16")), 1.0);
    cr_expect_eq(calib_precision_factor(precision_find("bf16")), 1.0);
    cr_expect_eq(calib_precision_factor(precision_find("fp8")), 0.75);
    cr_expect_eq(calib_precision_factor(precision_find("int8")), 0.75);
    cr_expect_eq(calib_precision_factor(precision_find("int4")), 0.5);
    cr_expect_eq(calib_precision_factor(precision_find("fp32")), 1.0);
    cr_expect_eq(calib_precision_param(precision_find("tf32")), CP_PREC_FP32);
    cr_expect_eq(calib_precision_param(precision_find("bf16")), CP_N);
    cr_expect_eq(calib_precision_param(-1), CP_N);
}

/* ---- trace lines composed in place (solver_line) -------------------------------------- */

Test(measured, solver_line_cuts_where_solver_trace_cuts_and_is_off_when_quiet)
{
    static solver_outputs out;
    char long_text[2 * SOLVER_MESSAGE_LEN];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    solver_trace(&out, "head %s", long_text);
    solver_line l;
    cr_assert(solver_line_open(&out, &l));
    solver_line_str(&l, "head ");
    solver_line_str(&l, long_text);
    solver_line_put(&l, "tail", 4);
    solver_line_close(&out, &l);
    cr_assert_eq(out.n_trace, 2);
    cr_expect_str_eq(out.trace[1], out.trace[0]);
    cr_expect_eq(strlen(out.trace[1]), SOLVER_MESSAGE_LEN - 1);
    out.quiet = true;
    cr_expect_not(solver_line_open(&out, &l));
    out.quiet = false;
    out.n_trace = SOLVER_MAX_MESSAGES;
    cr_expect_not(solver_line_open(&out, &l));
}

Test(measured, the_descriptors_start_within_their_bounds)
{
    for (int p = 0; p < CP_N; p++) {
        const calib_param_desc *d = &CALIB_PARAMS[p];
        cr_expect(d->lo <= d->start && d->start <= d->hi, "%s: start %g outside [%g, %g]", d->name, d->start, d->lo,
                  d->hi);
        cr_expect(d->name && d->work && d->unit && d->meaning && *d->meaning, "parameter %d", p);
    }
}

/* ---- single_node ------------------------------------------------------------------------ */

/* single_node in the given mode on a model and an accelerator, at a batch and a precision. */
static void use_single_node(calibration_mode mode, const model_t *m, const hw_node *hw, double batch,
                            const char *precision)
{
    use_solver("single_node");
    IN.calibration = mode;
    set_model("model", m);
    set_hw("hardware", hw);
    set_num("batch_size", batch);
    set_enum("precision", precision);
}

static double cnn_latency(double batch, calibration_mode mode)
{
    use_single_node(mode, &CNN, &GPU_A, batch, "fp16");
    solve_ok();
    return num("latency");
}

/* Every term is linear in the batch (compute, activation traffic) or fixed
 * (weights, launches, dispatch), and compute stays the larger one: the
 * latency is an affine function of the batch, by hand:
 *   compute     1e10 x B / (1e14 x 0.5)              = 2e-4 B s
 *   activations B x 1e7 x 2 B x 2 passes / (1e12 x 0.8) = 5e-5 B s
 *   weights     1e7 x 2 B / 8e11                       = 2.5e-5 s
 *   hidden      0.5 x min(compute, memory)            = 0.5 x (5e-5 B + 2.5e-5)
 *   launches    10 layers x 3 kernels x 10 us = 3e-4 s; dispatch 1e-5 s */
Test(measured, single_node_cnn_latency_is_linear_in_batch)
{
    double b[] = {1024, 2048, 4096};
    double l[3];
    for (int i = 0; i < 3; i++) {
        l[i] = cnn_latency(b[i], CALIBRATION_MEASURED);
        double want_s = 2e-4 * b[i] + 0.5 * (5e-5 * b[i] + 2.5e-5) + 3e-4 + 1e-5;
        cr_expect(fabs(l[i] - want_s * 1e3) <= 1e-9 * want_s * 1e3, "batch %g: %.17g ms, by hand %.17g", b[i], l[i],
                  want_s * 1e3);
    }
    cr_expect(fabs((l[2] - l[1]) - 2 * (l[1] - l[0])) <= 1e-9 * l[2], "slopes %.17g and %.17g", l[2] - l[1],
              (l[1] - l[0]));
    /* the fixed costs matter at batch 1 only: there the latency is far above batch x slope */
    double slope = (l[1] - l[0]) / 1024;
    cr_expect_gt(cnn_latency(1, CALIBRATION_MEASURED), 1.5 * slope);
}

Test(measured, single_node_reads_the_table_and_keeps_a_given_efficiency)
{
    use_single_node(CALIBRATION_MEASURED, &CNN, &GPU_A, 1000, "fp16");
    solve_ok();
    double fitted = num("latency_compute");
    expect_num("latency_compute", 1e10 * 1000 / (1e14 * 0.5) * 1e3);
    /* a given efficiency wins over the table */
    set_num("efficiency", 0.25);
    solve_ok();
    expect_num("latency_compute", 1e10 * 1000 / (1e14 * 0.25) * 1e3);
    cr_expect_gt(num("latency_compute"), fitted);
    /* the table read is the accelerator's: ToyB's memory is half as fast */
    use_single_node(CALIBRATION_MEASURED, &CNN, &GPU_B, 1000, "fp16");
    solve_ok();
    /* activations 1000 x 4e7 B / 4e11 + weights 2e7 / 4e11 */
    expect_num("latency_memory", (1000 * 4e7 / 4e11 + 2e7 / 4e11) * 1e3);
}

Test(measured, mlsysim_mode_reads_no_table)
{
    double a = cnn_latency(256, CALIBRATION_MLSYSIM);
    static const calib_entry SLOW[] = {{CP_CONV_EFF, NULL, 0.05, 1}, {CP_MEM_EFF, NULL, 0.1, 1}};
    static const calib_table T = {.entries = SLOW, .n_entries = 2};
    calibration_use(&T);
    cr_expect_eq(cnn_latency(256, CALIBRATION_MLSYSIM), a);
    double fast = cnn_latency(256, CALIBRATION_MEASURED);
    calibration_use(&TOY);
    cr_expect_gt(fast, cnn_latency(256, CALIBRATION_MEASURED), "a slower table gives a slower answer");
}

/* ---- serving ------------------------------------------------------------------------------ */

static void serve(calibration_mode mode, int tp)
{
    use_solver("serving");
    IN.calibration = mode;
    set_model("model", &LLM);
    set_hw("hardware", &GPU_A);
    set_num("seq_len", 1024);
    set_num("batch_size", 1);
    set_enum("precision", "fp16");
    set_num("tp", tp);
    solve_ok();
}

Test(measured, serving_itl_falls_with_tp)
{
    calibration_mode modes[] = {CALIBRATION_MLSYSIM, CALIBRATION_MEASURED};
    for (int m = 0; m < 2; m++) {
        serve(modes[m], 1);
        double itl1 = num("itl"), ttft1 = num("ttft"), util1 = num("memory_utilization");
        serve(modes[m], 2);
        double itl2 = num("itl"), ttft2 = num("ttft");
        cr_expect_lt(itl2, itl1, "mode %d: itl %.17g at tp 2, %.17g at tp 1", m, itl2, itl1);
        cr_expect_gt(itl2, itl1 / 2, "mode %d: the all-reduces and the fixed costs do not split", m);
        cr_expect_lt(ttft2, ttft1, "mode %d", m);
        expect_num("memory_utilization", util1 / 2);
        serve(modes[m], 4);
        cr_expect_lt(num("itl"), itl2, "mode %d: tp 4 below tp 2", m);
    }
}

/* Decode at batch 1 is memory-bound: the weights and the KV cache at the
 * achieved bandwidth, plus the fixed costs per layer and per sequence (by hand, tp 1):
 *   weights 1e9 x 2 B = 2e9 B; KV cache 2 x 10 layers x 2 heads x 128 x 1024 x 2 B = 10485760 B
 *   (2e9 + 10485760) / (1e12 x 0.8) + 10 x 10 us + 1 x 20 us */
Test(measured, serving_decode_by_hand)
{
    serve(CALIBRATION_MEASURED, 1);
    double kv = 2.0 * 10 * 2 * 128 * 1024 * 2;
    expect_num("kv_cache", kv);
    expect_num("itl", ((2e9 + kv) / 8e11 + 10 * 10e-6 + 20e-6) * 1e3);
}

/* The prefill launch time: every layer of a prefill pass adds the fitted
 * time on top of the decode step's per-layer cost (10 layers x 30 us in
 * TOY), named in the trace; mlsysim mode has no such term. */
Test(measured, serving_prefill_pays_its_launch_time_per_layer)
{
    serve(CALIBRATION_MEASURED, 1);
    double ttft = num("ttft"), itl = num("itl");
    cr_expect(traced_exactly("Measured: prefill launch time 0.3 ms (fitted time per layer of each prefill pass)."));
    calib_entry entries[sizeof TOY_ENTRIES / sizeof TOY_ENTRIES[0]];
    memcpy(entries, TOY_ENTRIES, sizeof TOY_ENTRIES);
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i].param == CP_PREFILL_LAYER_S)
            entries[i].value = 80e-6;
    calib_table t = {.entries = entries, .n_entries = sizeof entries / sizeof entries[0]};
    calibration_use(&t);
    serve(CALIBRATION_MEASURED, 1);
    cr_expect(rel_eq(num("ttft") - ttft, 10 * 50e-6 * 1e3), "ttft %.17g ms, was %.17g ms", num("ttft"), ttft);
    expect_num("itl", itl); /* decode steps are not prefills */
    serve(CALIBRATION_MLSYSIM, 1);
    double mlsysim_ttft = num("ttft");
    calibration_use(&TOY);
    serve(CALIBRATION_MLSYSIM, 1);
    expect_num("ttft", mlsysim_ttft);
}

/* A prefill's compute and its weight reads overlap in part: the larger plus
 * the share of the smaller the larger does not hide (1 - 0.5 in TOY). By
 * hand, tp 1, one sequence of 1024 tokens:
 *   compute  (2 x 1e9 x 1024 / 0.5 + 2 x 10 x 1024 x 1024 x 1024 / 0.25) / 1e14 = 0.0418189934592 s
 *   weights  1e9 x 2 B / (1e12 x 0.8)                                             = 2.5e-3 s
 *   exposed  (1 - 0.5) x 2.5e-3                                                   = 1.25e-3 s
 *   fixed    10 layers x (10 us + 30 us) + 10 us dispatch                         = 4.1e-4 s
 * With the share at 1 the weights hide entirely; mlsysim mode has no such term. */
Test(measured, serving_prefill_overlaps_compute_and_weight_reads_in_part)
{
    serve(CALIBRATION_MEASURED, 1);
    expect_num("ttft", (0.0418189934592 + 1.25e-3 + 4.1e-4) * 1e3);
    cr_expect(traced_exactly("Measured: prefill compute and weight reads 43.07 ms (matmuls and causal attention at "
                             "the fitted efficiencies, or the weight reads if longer, plus the fitted share of the "
                             "shorter that the longer does not hide)."));
    double itl = num("itl");
    calib_entry entries[sizeof TOY_ENTRIES / sizeof TOY_ENTRIES[0]];
    memcpy(entries, TOY_ENTRIES, sizeof TOY_ENTRIES);
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i].param == CP_PREFILL_OVERLAP)
            entries[i].value = 1.0;
    calib_table t = {.entries = entries, .n_entries = sizeof entries / sizeof entries[0]};
    calibration_use(&t);
    serve(CALIBRATION_MEASURED, 1);
    expect_num("ttft", (0.0418189934592 + 4.1e-4) * 1e3);
    expect_num("itl", itl); /* decode is the larger of its two, as before */
    serve(CALIBRATION_MLSYSIM, 1);
    double mlsysim_ttft = num("ttft");
    calibration_use(&TOY);
    serve(CALIBRATION_MLSYSIM, 1);
    expect_num("ttft", mlsysim_ttft);
}

/* serving_simulation's iteration of one whole prompt costs serving's ttft,
 * overlap included; a decode-only iteration of one sequence its itl. */
Test(measured, an_iteration_of_one_prompt_costs_the_ttft)
{
    serve(CALIBRATION_MEASURED, 1);
    double ttft = num("ttft"), itl = num("itl");
    serving_params p = {.model = &LLM, .hw = &GPU_A, .seq_len = 1024, .batch = 1,
                        .precision = precision_find("fp16"), .efficiency = 0.5};
    serving_iter_cost c;
    serving_iteration_cost(&p, 1, true, false, &c);
    serving_iteration prompt = {.prefill_tokens = 1024, .prefill_attn_full = 1024.0 * 1024,
                                .prefill_attn_causal = 1024.0 * 512};
    cr_expect(rel_eq(serving_iteration_time(&c, &prompt) * 1e3, ttft), "%.17g ms vs ttft %.17g ms",
              serving_iteration_time(&c, &prompt) * 1e3, ttft);
    serving_iteration step = {.decode_seqs = 1, .decode_ctx = 1024};
    cr_expect(rel_eq(serving_iteration_time(&c, &step) * 1e3, itl), "%.17g ms vs itl %.17g ms",
              serving_iteration_time(&c, &step) * 1e3, itl);
}

/* An 8-bit engine fuses: a CNN layer is one kernel (three at 16-bit), a
 * transformer layer eight either way, and each kept activation is written
 * once and read once (2 passes) with no attention scores. By hand, B = 1000
 * CNN: activations 1000 x 1e7 x 1 B x 2 / 8e11 = 25 ms (16-bit: x 2 B x 2
 * passes = 50 ms); launches 10 layers x 1 x 5 us = 0.05 ms (16-bit: x 3 x
 * 10 us = 0.3 ms). Encoder, B = 1, 128 tokens: activations 10 x 17 x 128 x
 * 1024 x 1 B x 2 / 8e11 = 0.05571 ms (16-bit: 10 x (17 x 128 x 1024 + 2.5 x
 * 8 x 128^2) x 2 B x 1 pass / 8e11 = 0.0639 ms); launches 10 x 8 x 5 us =
 * 0.4 ms (16-bit: 0.8 ms). */
Test(measured, single_node_8bit_engines_fuse_their_kernels)
{
    static const struct {
        bool tf;
        double batch;
        const char *precision, *traffic, *launches;
    } CASES8[] = {
        {false, 1000, "int8", "Measured: activation traffic 25 ms", "Measured: launch and framework time 0.05 ms"},
        {false, 1000, "fp16", "Measured: activation traffic 50 ms", "Measured: launch and framework time 0.3 ms"},
        {true, 1, "int8", "Measured: activation traffic 0.05571 ms", "Measured: launch and framework time 0.4 ms"},
        {true, 1, "fp16", "Measured: activation traffic 0.0639 ms", "Measured: launch and framework time 0.8 ms"},
    };
    for (size_t i = 0; i < sizeof CASES8 / sizeof CASES8[0]; i++) {
        use_single_node(CALIBRATION_MEASURED, CASES8[i].tf ? &LLM : &CNN, &GPU_A, CASES8[i].batch, CASES8[i].precision);
        if (CASES8[i].tf)
            set_num("seq_len", 128);
        solve_ok();
        char want[200];
        snprintf(want, sizeof want, "%s (activations written and read back at the achieved bandwidth).",
                 CASES8[i].traffic);
        cr_expect(traced_exactly(want), "case %zu: '%s'", i, want);
        snprintf(want, sizeof want, "%s (fitted time per layer x layers).", CASES8[i].launches);
        cr_expect(traced_exactly(want), "case %zu: '%s'", i, want);
        bool fused = strcmp(CASES8[i].precision, "int8") == 0;
        cr_expect_eq(traced_exactly(CASES8[i].tf ? "Measured: 8-bit engine: fused kernels write each activation once "
                                                   "and read it once; fused attention keeps the score matrix on chip."
                                                 : "Measured: 8-bit engine: each CNN layer runs as one fused kernel "
                                                   "(convolution, normalisation, activation) that writes its output "
                                                   "once and the next reads it once."),
                     fused, "case %zu", i);
    }
}

/* fp32 on an accelerator whose catalog entry states no fp32 rate (the toy
 * GPU has no precision table: its 100 TFLOP/s default is the 16-bit rate)
 * runs at the fitted vector share of it (0.125 in TOY); one that states an
 * fp32 rate computes at that rate. */
Test(measured, fp32_without_a_stated_rate_runs_on_the_vector_units)
{
    use_single_node(CALIBRATION_MEASURED, &CNN, &GPU_A, 1000, "fp32");
    solve_ok();
    expect_num("latency_compute", 1e10 * 1000 / (1e14 * 0.125 * 0.5) * 1e3);
    cr_expect(traced_exactly("Measured: fp32 on the vector units at 0.125 of ToyA's default peak (the catalog "
                             "states no fp32 rate)."));
    hw_node stated = toy_gpu("ToyF");
    stated.n_precisions = 1;
    snprintf(stated.precisions[0].name, sizeof stated.precisions[0].name, "fp32");
    stated.precisions[0].flops = 20e12;
    use_single_node(CALIBRATION_MEASURED, &CNN, &stated, 1000, "fp32");
    solve_ok();
    expect_num("latency_compute", 1e10 * 1000 / (2e13 * 0.5) * 1e3);
    /* 16-bit work is untouched */
    use_single_node(CALIBRATION_MEASURED, &CNN, &GPU_A, 1000, "fp16");
    solve_ok();
    expect_num("latency_compute", 1e10 * 1000 / (1e14 * 0.5) * 1e3);
}

/* Recomputation instead of spilling: the toy LLM's training step at batch 8
 * and sequence 1024 needs more than a 20 GB accelerator holds (mlsysim's
 * memory wall), while its model state (16 B x 1e9 parameters) fits: the
 * forward pass is recomputed (4/3 of the compute) and nothing streams over
 * the host link. */
Test(measured, single_node_training_recomputes_rather_than_spills)
{
    hw_node small = toy_gpu("ToyS");
    small.mem_capacity = 20e9;
    double compute[2], latency[2];
    const hw_node *gpus[2] = {&GPU_A, &small};
    for (int i = 0; i < 2; i++) {
        use_solver("single_node");
        IN.calibration = CALIBRATION_MEASURED;
        set_model("model", &LLM);
        set_hw("hardware", gpus[i]);
        set_num("batch_size", 8);
        set_num("seq_len", 1024);
        set_enum("precision", "fp16");
        set_bool("is_training", true);
        solve_ok();
        compute[i] = num("latency_compute");
        latency[i] = num("latency");
    }
    cr_expect(traced_exactly("Measured: the step does not fit in ToyS's memory but its model state does: the forward "
                             "pass is recomputed (4/3 of the compute) instead of spilling."));
    cr_expect(rel_eq(compute[1], compute[0] * 4.0 / 3.0), "compute %.17g ms, %.17g ms with room", compute[1],
              compute[0]);
    cr_expect_lt(latency[1], 2.0 * latency[0], "no spill: %.17g ms, %.17g ms with room", latency[1], latency[0]);
}

/* ---- distributed ---------------------------------------------------------------------------- */

static void train_v(int microbatches, int v_stages)
{
    use_solver("distributed");
    IN.calibration = CALIBRATION_MEASURED;
    set_model("model", &LLM);
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_num("tp_size", 2);
    set_num("pp_size", 4);
    set_num("batch_size", 64);
    set_num("seq_len", 1024);
    set_enum("step_model", "sharded");
    if (microbatches > 0)
        set_num("microbatch_count", microbatches);
    if (v_stages > 0)
        set_num("v_stages", v_stages);
    solve_ok();
}

static void train(int microbatches) { train_v(microbatches, 0); }

Test(measured, distributed_step_falls_as_microbatches_rise_with_pp)
{
    double prev = INFINITY, prev_bubble = INFINITY;
    int counts[] = {1, 2, 4, 8, 16};
    for (int i = 0; i < 5; i++) {
        train(counts[i]);
        double step = num("step_latency_total"), bubble = num("pipeline_bubble_latency");
        cr_expect_lt(step, prev, "microbatch_count %d: step %.17g ms", counts[i], step);
        cr_expect_lt(bubble, prev_bubble, "microbatch_count %d: bubble %.17g ms", counts[i], bubble);
        /* 1F1B: (pp - 1) / micro-batches of the compute, as a share of the step's compute + bubble */
        double b = 3.0 / counts[i];
        expect_num("bubble_fraction", b / (1 + b));
        prev = step;
        prev_bubble = bubble;
    }
    /* not given: one micro-batch per sequence of the replica (64 / dp 2 = 32) */
    train(0);
    expect_num("bubble_fraction", (3.0 / 32) / (1 + 3.0 / 32));
}

/* The pipeline's interleaving: the fitted value (the table's 1 above; 4 here)
 * when the request gives no v_stages, the request's when it does. pp 4, 8
 * micro-batches: bubble (pp - 1) / (v x 8) of the compute. */
Test(measured, distributed_bubble_divides_by_the_fitted_interleaving_unless_given)
{
    calib_entry entries[sizeof TOY_ENTRIES / sizeof TOY_ENTRIES[0] + 1];
    memcpy(entries, TOY_ENTRIES, sizeof TOY_ENTRIES);
    entries[sizeof TOY_ENTRIES / sizeof TOY_ENTRIES[0]] = (calib_entry){CP_PP_INTERLEAVE, NULL, 4.0, 1};
    calib_table t = {.entries = entries, .n_entries = sizeof entries / sizeof entries[0]};
    calibration_use(&t);
    train(8);
    double b = 3.0 / (4 * 8);
    expect_num("bubble_fraction", b / (1 + b));
    cr_expect(traced("Measured: pipeline bubble "), "the term is named");
    cr_expect(traced("v the fitted interleaving of schedules as run"));
    train_v(8, 2);
    b = 3.0 / (2 * 8);
    expect_num("bubble_fraction", b / (1 + b));
    cr_expect(traced("(pp - 1) / (v_stages x micro-batches)"));
    calibration_use(&TOY);
}

/* Expert parallelism: a replica's sequences are spread over its ep ranks,
 * and each rank sends its own tokens' k copies to their experts and back,
 * forward and backward (by hand: 16 toy GPUs, ep 8 inside a node at
 * 100 GB/s x 0.8; dp 2, 32 sequences per replica, 4 per rank):
 *   4 x 10 layers x 7/8 x (4 x 1024 tokens x 1024 x 2 B x 2 experts) / 8e10 B/s */
Test(measured, distributed_expert_all_to_all_by_hand)
{
    model_t moe = mk_model(WL_SPARSE_TRANSFORMER, 8e9, 4e9, 0);
    moe.layers = 10;
    moe.hidden_dim = 1024;
    moe.heads = 8;
    moe.kv_heads = 2;
    moe.experts = 8;
    moe.active_experts_per_token = 2;
    moe.active_parameters = 2e9;
    use_solver("distributed");
    IN.calibration = CALIBRATION_MEASURED;
    set_model("model", &moe);
    set_ref("fleet", REC_CLUSTER, &FLEET);
    set_num("tp_size", 1);
    set_num("pp_size", 1);
    set_num("ep_size", 8);
    set_num("batch_size", 64);
    set_num("seq_len", 1024);
    set_enum("step_model", "sharded");
    solve_ok();
    double bytes = 4.0 * 1024 * 1024 * 2 * 2;
    expect_num("ep_communication_latency", 4 * 10 * 7.0 / 8.0 * bytes / 8e10 * 1e3);
    /* Expert GEMM fill: every active parameter is a routed expert's here
     * ((8e9 - 2e9) x 8 / 6 = 8e9 in all experts, 2 of 8 active); one sequence
     * per micro-batch gives 1024 x 2 / 8 = 256 tokens per expert, a fill of
     * 256 / (256 + 1024) = 0.2: 6 x 2e9 x 64 x 1024 x (1 / 0.2 - 1) FLOPs more
     * at 16 x 1e14 x 0.4 = 4915.2 ms. */
    cr_expect(traced_exactly("Measured: expert GEMM fill 4915 ms (routed experts' FLOPs beyond dense efficiency: "
                             "few tokens per expert)."));
}

Test(measured, distributed_reads_the_fitted_training_efficiency)
{
    train(8);
    double step = num("step_latency_total"), node = num("node_latency");
    /* the same table with twice the training efficiency */
    calib_entry entries[sizeof TOY_ENTRIES / sizeof TOY_ENTRIES[0]];
    memcpy(entries, TOY_ENTRIES, sizeof TOY_ENTRIES);
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i].param == CP_TRAIN_EFF)
            entries[i].value = 0.8;
    calib_table t = {.entries = entries, .n_entries = sizeof entries / sizeof entries[0]};
    calibration_use(&t);
    train(8);
    cr_expect_lt(num("node_latency"), node, "twice the efficiency: a shorter compute");
    cr_expect_lt(num("step_latency_total"), step);
    calibration_use(&TOY);
}
