/* test_serving.c - the LLM serving solvers called directly, without the
 * server: serving (reference/solvers.md §8), continuous_batching (§9),
 * serving_capacity (§10), weight_streaming (§11), tail_latency (§12),
 * inference_scaling (§13), batching_optimizer (§14) and the M/M/c queue
 * (§H.10).
 *
 * Inputs are built by hand the way the generic layer leaves them (defaults
 * from the descriptor; then the bound checks, the descriptor's constraints
 * and run(); solver_fixture.h), on a made-up LLM and accelerators with
 * round numbers, so each expected value is a short calculation written
 * beside it. The golden files check the same solvers on the catalog
 * through HTTP (tests/api). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "core/precision.h"
#include "core/queueing.h"
#include "core/solver.h"
#include "solver_fixture.h"

/* ---- the made-up records --------------------------------------------------------- */

/* A 1B-parameter LLM: 10 layers, hidden 1024, 8 heads of 128, 2 KV heads. */
static model_t toy_llm(void)
{
    model_t m = {.key = "ToyLLM", .name = "ToyLLM", .kind = WL_TRANSFORMER, .parameters = 1e9, .layers = 10,
                 .hidden_dim = 1024, .heads = 8, .kv_heads = 2, .inference_flops = NAN, .model_size = NAN,
                 .active_parameters = NAN};
    return m;
}

/* A 100M-parameter draft: 2 layers, hidden 512, 4 heads of 128 (no GQA). */
static model_t toy_draft(void)
{
    model_t m = {.key = "ToyDraft", .name = "ToyDraft", .kind = WL_TRANSFORMER, .parameters = 1e8, .layers = 2,
                 .hidden_dim = 512, .heads = 4, .inference_flops = NAN, .model_size = NAN,
                 .active_parameters = NAN};
    return m;
}

/* 100 TFLOP/s, 80 GB at 1 TB/s, 0.01 ms dispatch, 500 W, no precision table. */
static hw_node toy_gpu(void)
{
    hw_node h = {.key = "ToyGPU", .name = "ToyGPU", .peak_flops = 100e12, .mem_capacity = 80e9,
                 .mem_capacity_unit = 1e9, .mem_bandwidth = 1e12, .sram_capacity = NAN, .sram_bandwidth = NAN,
                 .flash_capacity = NAN, .flash_bandwidth = NAN, .interconnect_bw = NAN, .tdp = 500,
                 .unit_cost = NAN, .dispatch_tax = 1e-5};
    return h;
}

/* A wafer: 44 GiB on chip (declared in GiB), weights streamed at 1.2 TB/s. */
static hw_node toy_wafer(void)
{
    hw_node h = toy_gpu();
    snprintf(h.name, sizeof h.name, "ToyWafer");
    h.mem_capacity = 44.0 * 1073741824.0;
    h.mem_capacity_unit = 1073741824.0;
    h.has_interconnect = true;
    h.interconnect_bw = 1.2e12;
    return h;
}

/* ---- serving (§8) --------------------------------------------------------------------- */

static model_t LLM, DRAFT;
static hw_node GPU, GPU2, WAFER;

static void records(void)
{
    LLM = toy_llm();
    DRAFT = toy_draft();
    GPU = toy_gpu();
    GPU2 = toy_gpu();
    snprintf(GPU2.name, sizeof GPU2.name, "ToyGPU2");
    GPU2.mem_bandwidth = 2e12;
    GPU2.mem_capacity = 40e9;
    WAFER = toy_wafer();
}

static void serving_base(void)
{
    records();
    use_solver("serving");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("seq_len", 1000);
}

Test(serving, prefill_decode_and_memory)
{
    serving_base();
    solve_ok();
    /* prefill: 2 N S B + 4 L H d S^2 B = 2e9*1000 + 4*10*8*128*1000^2 = 2.04096e12 flop
     * at 100e12 * 0.5 = 40.8192 ms, + 0.01 ms dispatch */
    expect_num("ttft", 40.8292);
    /* KV: 2 L H_kv d S B b = 2*10*2*128*1000*1*2 = 1.024e7 B; weights 1e9 * 2 = 2e9 B */
    expect_num("kv_cache", 1.024e7);
    expect_num("model_weights", 2e9);
    expect_num("total_memory", 2.01024e9);
    /* decode: 2.01024e9 B / 1e12 B/s = 2.01024 ms, + 10 layers x 0.01 ms */
    expect_num("itl", 2.11024);
    expect_num("memory_utilization", 2.01024e9 / 80e9);
    expect_num("prompt_cache_hit_ratio", 0.0);
    expect_num("prefill_chunks", 1);
    cr_expect(flag("feasible"));
    cr_expect(is_null("prefill_chunk_time") && is_null("decode_stall_bound"));
    cr_expect_eq(OUT.n_warnings, 0);
}

/* What fits beside the weights (same setup): 80e9 B - 2e9 B of weights leaves
 * 78e9 B; a sequence of 1000 tokens keeps 1.024e7 B of KV cache, a token
 * 10240 B. At tp 2 the weights split over twice the memory. */
Test(serving, the_batch_and_context_that_fit)
{
    serving_base();
    solve_ok();
    expect_num("max_batch_at_seq_len", floor(78e9 / 1.024e7));
    expect_num("max_seq_len_at_batch", floor(78e9 / 10240.0));
    serving_base();
    set_num("tp", 2);
    solve_ok();
    expect_num("max_batch_at_seq_len", floor((160e9 - 2e9) / 1.024e7));
    serving_base();
    set_num("batch_size", 4);
    solve_ok();
    expect_num("max_seq_len_at_batch", floor(78e9 / (10240.0 * 4)));
}

Test(serving, precision_picks_bytes_and_rate)
{
    serving_base();
    GPU.n_precisions = 1;
    snprintf(GPU.precisions[0].name, sizeof GPU.precisions[0].name, "fp8");
    GPU.precisions[0].flops = 200e12;
    set_enum("precision", "fp8");
    solve_ok();
    /* 1 byte per element; prefill at 200e12 * 0.5: 2.04096e12 / 1e14 = 20.4096 ms */
    expect_num("ttft", 20.4196);
    expect_num("kv_cache", 5.12e6);
    expect_num("itl", (1e9 + 5.12e6) / 1e12 * 1e3 + 0.1);
}

Test(serving, prefix_cache_skips_prefill_not_memory)
{
    serving_base();
    set_num("cached_prefix_len", 600);
    solve_ok();
    /* 400 new tokens: 2e9*400 + 40960*400*1000 = 8.16384e11 flop -> 16.32768 ms + 0.01 */
    expect_num("ttft", 16.33768);
    expect_num("prompt_cache_hit_ratio", 0.6);
    expect_num("kv_cache", 1.024e7); /* the whole context stays resident */
    expect_num("itl", 2.11024);
}

Test(serving, chunked_prefill)
{
    serving_base();
    set_num("prefill_chunk_tokens", 300);
    solve_ok();
    /* ceil(1000 / 300) = 4 chunks; the first (full) one: 2e9*300 + 40960*300*1000 =
     * 6.12288e11 flop -> 12.24576 ms + 0.01 ms dispatch */
    expect_num("prefill_chunks", 4);
    expect_num("prefill_chunk_time", 12.25576);
    expect_num("decode_stall_bound", 12.25576);
    /* the same prefill work, one dispatch per chunk */
    expect_num("ttft", 40.8192 + 4 * 0.01);
    cr_expect_eq(OUT.n_trace, 2);
}

Test(serving, chunk_larger_than_prompt_is_one_chunk)
{
    serving_base();
    set_num("cached_prefix_len", 900);
    set_num("prefill_chunk_tokens", 4096);
    solve_ok();
    /* 100 new tokens in one chunk: 2e9*100 + 40960*100*1000 = 2.04096e11 -> 4.08192 ms */
    expect_num("prefill_chunks", 1);
    expect_num("prefill_chunk_time", 4.09192);
    expect_num("ttft", 4.09192);
}

Test(serving, disaggregated_decode)
{
    serving_base();
    set_hw("decode_hardware", &GPU2);
    set_num("network_bandwidth", 10e9);
    solve_ok();
    /* + KV transfer 1.024e7 B / 10 GB/s = 1.024 ms */
    expect_num("ttft", 40.8292 + 1.024);
    /* decode on the 2 TB/s, 40 GB node: 2.01024e9 / 2e12 = 1.00512 ms + 0.1 */
    expect_num("itl", 1.10512);
    expect_num("memory_utilization", 2.01024e9 / 40e9);
}

Test(serving, network_bandwidth_matters_only_when_disaggregated)
{
    serving_base();
    set_num("network_bandwidth", 1e6);
    solve_ok();
    expect_num("ttft", 40.8292);
}

Test(serving, speculative_decoding)
{
    serving_base();
    set_model("draft_model", &DRAFT);
    set_num("draft_acceptance_rate", 0.5);
    solve_ok();
    /* draft step: (2e8 + 2*2*4*128*1000*2) B / 1e12 = 0.204096 ms (no layer tax);
     * E = 1 + 0.5 (1 - 0.5^4) / 0.5 = 1.9375; ITL = (4 x 0.204096 + 2.11024) / 1.9375 */
    expect_num("itl", 2.926624 / 1.9375);
    expect_num("total_memory", 2.01024e9 + 2e8); /* draft weights, not its KV cache */
    expect_num("ttft", 40.8292);
}

Test(serving, speculative_decoding_perfect_acceptance)
{
    serving_base();
    set_model("draft_model", &DRAFT);
    set_num("draft_acceptance_rate", 1.0);
    solve_ok();
    expect_num("itl", 2.926624 / 5); /* all K = 4 accepted, + 1 bonus token */
}

Test(serving, memory_wall)
{
    serving_base();
    GPU.mem_capacity = 1e9;
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("memory_utilization", 2.01024);
    cr_expect(strstr(OUT.trace[0], "FAILED") != NULL, "%s", OUT.trace[0]);
}

Test(serving, mla_kv_cache)
{
    serving_base();
    LLM.kv_lora_rank = 512;
    LLM.qk_rope_head_dim = 64;
    solve_ok();
    /* one latent + RoPE key per token per layer: 10 * (512 + 64) * 1000 * 1 * 2 */
    expect_num("kv_cache", 1.152e7);
}

Test(serving, validation_in_mlsysim_order)
{
    serving_base();
    set_num("seq_len", 0);
    set_num("batch_size", 0);
    solve_fails("seq_len", "seq_len (0) must be >= 1");
    serving_base();
    set_num("batch_size", 0);
    solve_fails("batch_size", "batch_size (0) must be >= 1");
    serving_base();
    set_num("efficiency", 1.5);
    solve_fails("efficiency", "efficiency (1.5) must be > 0 and <= 1");
    serving_base();
    set_num("efficiency", 0);
    solve_fails("efficiency", "efficiency (0.0) must be > 0 and <= 1");
    serving_base();
    set_num("cached_prefix_len", -1);
    solve_fails("cached_prefix_len", "cached_prefix_len (-1) must be >= 0");
    serving_base();
    set_num("cached_prefix_len", 1000);
    solve_fails("cached_prefix_len", "cached_prefix_len (1000) must be < seq_len (1000)");
    serving_base();
    set_num("draft_acceptance_rate", 1.5);
    solve_fails("draft_acceptance_rate", "draft_acceptance_rate (1.5) must be between 0 and 1");
    serving_base();
    set_num("prefill_chunk_tokens", 0);
    solve_fails("prefill_chunk_tokens", "prefill_chunk_tokens (0) must be positive");
    serving_base();
    set_num("network_bandwidth", 0);
    solve_fails("network_bandwidth", "network_bandwidth (0.0 GB/s) must be positive");
}

Test(serving, needs_a_transformer)
{
    serving_base();
    LLM.kind = WL_CNN;
    cr_assert_neq(solve(), 0);
    cr_expect_str_eq(ERR.field, "model");
    serving_base();
    DRAFT.kind = WL_SSM;
    set_model("draft_model", &DRAFT);
    cr_assert_neq(solve(), 0);
    cr_expect_str_eq(ERR.field, "draft_model");
}

Test(serving, constraints_are_listed)
{
    use_solver("serving");
    cr_assert_eq(S->n_constraints, 8);
    cr_expect_str_eq(S->constraints[4].rule, "cached_prefix_len < seq_len");
}

/* ---- continuous_batching (§9) ------------------------------------------------------------ */

static void cb_base(void)
{
    records();
    use_solver("continuous_batching");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("seq_len", 1000);
    set_num("max_batch_size", 64);
}

Test(continuous_batching, paged_capacity)
{
    cb_base();
    solve_ok();
    /* 1000 tokens pad to 63 pages of 16 = 1008: 8 / 1008 unused */
    expect_num("memory_fragmentation_pct", 8.0 / 1008.0);
    /* per sequence 2*10*2*128*1008*2 = 10,321,920 B; 78e9 B free -> 7556 fit, capped at 64 */
    expect_num("max_active_requests", 64);
    expect_num("paged_kv_cache", 64 * 10321920.0);
    /* (2e9 + 660,602,880) B / 1e12 B/s, no layer tax */
    expect_num("itl", 2.66060288);
    expect_num("throughput", 64 / 2.66060288e-3);
    /* static: 60% of 64 -> 38 requests in (2e9 + 38 * 10321920) / 1e12 s */
    expect_num("speedup_vs_static", (64 / 2.66060288e-3) / (38 / 2.39223296e-3));
    /* prefill of the full cap: (2e9*1000*64 + 40960*1000^2*64) = 1.3062144e14 flop
     * / 5e13 flop/s = 2612.4288 ms, + 0.01 ms */
    expect_num("ttft", 2612.4388);
    cr_expect(flag("feasible"));
}

Test(continuous_batching, memory_caps_the_batch)
{
    cb_base();
    set_num("max_batch_size", 10000);
    solve_ok();
    /* 78e9 / 10,321,920 = 7556.8: 7556 requests */
    expect_num("max_active_requests", 7556);
}

Test(continuous_batching, weights_do_not_fit)
{
    cb_base();
    GPU.mem_capacity = 1e9;
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("throughput", 0);
    expect_num("max_active_requests", 0);
    expect_num("paged_kv_cache", 0);
    expect_num("itl", 1e6); /* upstream's sentinel */
    expect_num("speedup_vs_static", 1);
    expect_num("memory_fragmentation_pct", 0);
}

Test(continuous_batching, no_room_for_one_sequence)
{
    cb_base();
    GPU.mem_capacity = 2e9 + 1e6; /* 1 MB left, a sequence needs 10.3 MB */
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("max_active_requests", 0);
    expect_num("throughput", 0);
    expect_num("speedup_vs_static", 1);
    expect_num("itl", 2.0); /* the weights alone */
}

Test(continuous_batching, rejects_only_what_divides_by_zero)
{
    cb_base();
    set_num("page_size", 0);
    solve_fails_with("page_size", "ZeroDivisionError: division by zero");
    solve_fails_with("page_size", "page_size_tokens must be >= 1, got 0");
    cb_base();
    set_num("seq_len", 0);
    solve_fails_with("seq_len", "ZeroDivisionError: float division by zero");
    cb_base();
    set_num("efficiency", 0);
    solve_fails_with("efficiency", "ZeroDivisionError: float division by zero");
    /* Weights over capacity: upstream returns before dividing by the pages. */
    cb_base();
    GPU.mem_capacity = 1e9;
    set_num("page_size", 0);
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("itl", 1e6);
}

Test(continuous_batching, max_batch_size_zero_admits_none)
{
    /* Upstream does not validate max_batch_size: 0 admits no request. Prefill of
     * 0 sequences is 0 flop, so TTFT is the 0.01 ms dispatch; the decode step
     * streams the 2e9 B of weights alone at 1e12 B/s = 2 ms; the padding of
     * 1000 tokens to 1008 is still reported. */
    cb_base();
    set_num("max_batch_size", 0);
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("max_active_requests", 0);
    expect_num("throughput", 0);
    expect_num("paged_kv_cache", 0);
    expect_num("ttft", 0.01);
    expect_num("itl", 2.0);
    expect_num("speedup_vs_static", 1);
    expect_num("memory_fragmentation_pct", 8.0 / 1008.0);
}

/* ---- tail_latency (§12) and the M/M/c queue (§H.10) ----------------------------------------------------- */

static void tail_base(double qps, double service_ms, double replicas, double cv)
{
    use_solver("tail_latency");
    set_num("arrival_rate_qps", qps);
    set_num("service_latency_ms", service_ms);
    set_num("num_replicas", replicas);
    set_num("service_time_cv", cv);
}

Test(tail_latency, mm1)
{
    tail_base(5, 100, 1, 1.0);
    solve_ok();
    /* rho = 5 / 10 = 0.5; M/M/1 waits with probability rho = 0.5 (not < 0.5: the median
     * wait is -ln(0.5/0.5)/rate = 0); P99 wait = ln(0.5 / 0.01) / (10 * 0.5) s */
    expect_num("queue_utilization", 0.5);
    expect_num("p50_latency", 100);
    expect_num("p99_latency", log(50) / 5 * 1000 + 100);
    expect_num("slo_headroom_ratio", log(50) / 5 * 1000 / 500);
    cr_expect(flag("is_stable"));
    cr_expect_eq(OUT.n_warnings, 0);
}

Test(tail_latency, kingman_correction)
{
    tail_base(5, 100, 1, 0.0);
    solve_ok();
    /* deterministic service: waits x (0 + 1) / 2 */
    expect_num("p99_latency", log(50) / 5 * 1000 / 2 + 100);
    expect_num("slo_headroom_ratio", log(50) / 5 * 1000 / 2 / 500);
}

Test(tail_latency, mm2_erlang_c)
{
    tail_base(10, 100, 2, 1.0);
    solve_ok();
    /* a = 1, rho = 0.5: C = (1/(2! * 0.5)) / (1 + 1 + 1) = 1/3 < 0.5 -> no median wait;
     * P99 wait = ln((1/3) / 0.01) / (2 * 10 * 0.5) s */
    expect_num("p50_latency", 100);
    expect_num("p99_latency", log(100.0 / 3) / 10 * 1000 + 100);
}

Test(tail_latency, light_load_never_waits)
{
    tail_base(0, 100, 4, 1.0);
    solve_ok();
    expect_num("queue_utilization", 0);
    expect_num("p99_latency", 100);
    expect_num("slo_headroom_ratio", 0);
}

Test(tail_latency, unstable_is_infinite_with_a_warning)
{
    tail_base(20, 100, 1, 1.0);
    solve_ok();
    cr_expect(!flag("is_stable"));
    expect_num("queue_utilization", 1.0);
    expect_num("slo_headroom_ratio", 1.0);
    cr_expect(isinf(num("p50_latency")) && isinf(num("p99_latency")));
    cr_expect(warned("p50_latency") && warned("p99_latency"));
}

Test(tail_latency, zero_service_time_is_unstable)
{
    tail_base(10, 0, 128, 0.0);
    solve_ok();
    cr_expect(!flag("is_stable"));
    cr_expect(isinf(num("p99_latency")));
}

Test(tail_latency, negative_cv_rejected)
{
    tail_base(1, 100, 1, -1.0);
    solve_fails("service_time_cv", "service_time_cv must be non-negative, got -1.0");
}

Test(queueing, large_cluster_does_not_overflow)
{
    /* c = 2000 at rho = 0.9: a^c and c! overflow doubles; the log-sum-exp form does not */
    mmc_waits w = mmc_queue(1800, 1, 2000);
    cr_expect(rel_eq(w.rho, 0.9));
    cr_expect(isfinite(w.wait_p99) && w.wait_p99 >= 0);
}

/* ---- weight_streaming (§11) ---------------------------------------------------------------------------- */

static void ws_base(void)
{
    records();
    use_solver("weight_streaming");
    set_model("model", &LLM);
    set_hw("hardware", &WAFER);
    set_num("seq_len", 1000);
    set_num("batch_size", 4);
}

Test(weight_streaming, decode_is_injection_bound)
{
    ws_base();
    solve_ok();
    /* per layer 1e8 params = 2e8 B over 1.2 TB/s = 0.1666.. ms; compute 2*1e8*4 / 5e13 s
     * = 0.016 ms + 0.01 ms dispatch */
    expect_num("layer_injection_time", 2e8 / 1.2e12 * 1e3);
    expect_num("layer_compute_time", 0.026);
    cr_expect_str_eq(str("bottleneck"), "Interconnect-Bandwidth-Bound");
    /* 4 tokens per 10 layers x 0.1666.. ms */
    expect_num("throughput", 4 / (10 * 2e8 / 1.2e12));
    /* trunc(1.666e-4 s * 5e13 / 2e8) = trunc(41.67) */
    expect_num("optimal_batch_size", 41);
    /* KV 1000*2*128*2*2*10*4 = 4.096e7 B, + 10% = 0.045056 GB, over 44 (GiB, declared) */
    expect_num("wafer_memory_utilization", 0.045056 / 44);
    cr_expect(flag("feasible"));
}

Test(weight_streaming, respelled_prefill_decodes)
{
    /* Upstream tests phase == "prefill" as written: "Prefill" takes the decode
     * branch (2*1e8*4 / 5e13 s = 0.016 ms + 0.01 ms, as decode_is_injection_bound). */
    ws_base();
    set_enum("phase", "prefill");
    slot("phase")->enum_respelled = true;
    solve_ok();
    expect_num("layer_compute_time", 0.026);
    expect_num("throughput", 4 / (10 * 2e8 / 1.2e12));
}

Test(weight_streaming, efficiency_unbounded_but_not_zero)
{
    /* Upstream validates no input; only the 0 it divides by fails. */
    ws_base();
    set_num("efficiency", 0);
    solve_fails_with("efficiency", "ZeroDivisionError: float division by zero");
    /* Efficiency 2: decode compute 2*1e8*4 / (1e14 x 2) s = 0.004 ms + 0.01 ms dispatch;
     * optimal batch trunc(1.666e-4 s * 2e14 / 2e8) = trunc(166.67). */
    ws_base();
    set_num("efficiency", 2.0);
    solve_ok();
    expect_num("layer_compute_time", 0.014);
    expect_num("optimal_batch_size", 166);
}

Test(weight_streaming, utilization_follows_the_declared_unit)
{
    ws_base();
    WAFER.mem_capacity_unit = 1e9; /* the same bytes declared as 47.24 GB */
    solve_ok();
    expect_num("wafer_memory_utilization", 0.045056 / 47.244640256);
}

Test(weight_streaming, prefill_is_compute_bound)
{
    ws_base();
    set_enum("phase", "prefill");
    solve_ok();
    /* 2*1e8*1000*4 + 2*2(KV heads)*1000^2*128*4 = 8.02048e11 flop -> 16.04096 ms + 0.01 */
    expect_num("layer_compute_time", 16.05096);
    cr_expect_str_eq(str("bottleneck"), "Compute-Bound");
    expect_num("throughput", 4000 / 0.1605096);
}

Test(weight_streaming, no_interconnect_falls_back)
{
    ws_base();
    WAFER.has_interconnect = false;
    solve_ok();
    expect_num("layer_injection_time", 2.0); /* 2e8 B at 100 GB/s */
}

Test(weight_streaming, sram_wall)
{
    ws_base();
    set_num("batch_size", 5000);
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("throughput", 0);
    /* 1.1 * 1.024e7 * 5000 = 5.632e10 B = 56.32 GB over 44: not capped at 1 */
    expect_num("wafer_memory_utilization", 56.32 / 44);
}

/* ---- inference_scaling (§13) ------------------------------------------------------------------------------ */

Test(inference_scaling, reasoning_cost)
{
    records();
    use_solver("inference_scaling");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("context_length", 1000);
    solve_ok();
    /* serving at S = 1000, B = 1: TTFT 40.8292 ms, ITL 2.11024 ms; 8 steps x 50 tokens */
    expect_num("ttft", 40.8292);
    expect_num("itl", 2.11024);
    expect_num("tokens_generated", 400);
    expect_num("time_per_step", 105.512);
    expect_num("total_reasoning_time", 40.8292 + 8 * 105.512);
    expect_num("energy_per_query", 500 * 0.8849252); /* full TDP over the query */
    cr_expect(flag("feasible"));
}

Test(inference_scaling, no_tdp_no_energy)
{
    records();
    GPU.tdp = NAN;
    use_solver("inference_scaling");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    solve_ok();
    expect_num("energy_per_query", 0);
}

Test(inference_scaling, serving_rejects_the_context)
{
    records();
    use_solver("inference_scaling");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("context_length", 0);
    solve_fails("context_length", "seq_len (0) must be >= 1");
}

/* ---- serving_capacity (§10): a composition, checked against its parts ------------------------------------- */

static void cap_base(double qps, double target_ms)
{
    records();
    use_solver("serving_capacity");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("qps", qps);
    set_num("target_p99_latency_ms", target_ms);
    set_num("seq_len", 1000);
    set_num("output_tokens", 100);
    set_num("max_batch_size", 64);
}

Test(serving_capacity, replicas_from_the_parts)
{
    cap_base(500, 5000);
    solve_ok();
    double replicas = num("required_replicas"), active = num("active_batch_size");
    double per_replica = num("per_replica_qps_capacity"), base = num("base_request_latency");
    double ttft = num("ttft"), itl = num("itl");
    cr_expect(flag("feasible"));
    cr_expect_str_eq(str("bottleneck"), "Feasible");

    /* continuous batching admits 64; per replica 24054.698 tokens/s / 100 tokens */
    cb_base();
    solve_ok();
    cr_expect(rel_eq(active, num("max_active_requests")));
    cr_expect(rel_eq(per_replica, num("throughput") / 100));

    /* serving at batch 64 gives the latency */
    serving_base();
    set_num("batch_size", active);
    solve_ok();
    cr_expect(rel_eq(ttft, num("ttft")) && rel_eq(itl, num("itl")));
    cr_expect(rel_eq(base, ttft + itl * 100));

    /* the fewest replicas whose queue is stable and within the target */
    double service = 1000.0 / per_replica;
    for (double r = 1; r < replicas; r++) {
        tail_latency t = tail_latency_solve(500, service, r, 1.0);
        cr_expect(!t.stable || base + fmax(0, t.p99_ms - service) > 5000, "r = %g already meets it", r);
    }
    tail_latency t = tail_latency_solve(500, service, replicas, 1.0);
    cr_expect(t.stable && base + fmax(0, t.p99_ms - service) <= 5000);
    cap_base(500, 5000);
    solve_ok();
    expect_num("qps_capacity", replicas * per_replica);
    expect_num("utilization", 500 / (replicas * per_replica));
    expect_num("queue_wait_p99", fmax(0, t.p99_ms - service));
    expect_num("estimated_p99_latency", base + fmax(0, t.p99_ms - service));
    cr_expect_eq(OUT.n_warnings, 0);
}

Test(serving_capacity, more_load_more_replicas)
{
    cap_base(100, 5000);
    solve_ok();
    double low = num("required_replicas");
    cap_base(2000, 5000);
    solve_ok();
    cr_expect_gt(num("required_replicas"), low);
}

Test(serving_capacity, base_latency_over_target)
{
    cap_base(1, 100); /* a request alone takes ~ 40 s */
    set_num("max_replicas", 8);
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("required_replicas", 8);
    cr_expect_str_eq(str("bottleneck"), "Tail Latency"); /* stable, but over the target */
}

Test(serving_capacity, queue_unstable_at_max_replicas)
{
    cap_base(1e6, 1e9);
    set_num("max_replicas", 2);
    solve_ok();
    cr_expect(!flag("feasible"));
    expect_num("required_replicas", 2);
    cr_expect_str_eq(str("bottleneck"), "Capacity");
    cr_expect(isinf(num("estimated_p99_latency")) && isinf(num("queue_wait_p99")));
    cr_expect(warned("estimated_p99_latency") && warned("queue_wait_p99"));
}

Test(serving_capacity, weights_do_not_fit)
{
    cap_base(10, 5000);
    GPU.mem_capacity = 1e9;
    solve_ok();
    cr_expect(!flag("feasible"));
    cr_expect_str_eq(str("bottleneck"), "Memory");
    expect_num("required_replicas", 1024);
    expect_num("qps_capacity", 0);
    expect_num("per_replica_qps_capacity", 0);
    expect_num("active_batch_size", 1);
    cr_expect(isinf(num("utilization")) && isinf(num("estimated_p99_latency")));
    cr_expect(warned("utilization"));
}

Test(serving_capacity, validation_in_mlsysim_order)
{
    cap_base(0, 0);
    solve_fails("qps", "qps must be positive, got 0.0");
    cap_base(1, 0);
    solve_fails("target_p99_latency_ms", "target_p99_latency_ms must be positive, got 0.0");
    cap_base(1, 10);
    set_num("max_replicas", 0);
    set_num("efficiency", 2.0);
    solve_fails("max_replicas", "max_replicas must be >= 1, got 0");
    cap_base(1, 10);
    set_num("efficiency", 2.0);
    solve_fails("efficiency", "efficiency must be in [1e-09, 1.0], got 2.0");
}

/* ---- batching_optimizer (§14): serving + tail_latency, one batch size at a time ------------------------- */

static void bo_base(double qps, double sla_ms)
{
    records();
    use_solver("batching_optimizer");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("seq_len", 100);
    set_num("sla_latency_ms", sla_ms);
    set_num("arrival_rate_qps", qps);
    set_num("max_search_batch", 64);
}

/* The largest b in 1..64 for which serving(b) fits and tail_latency(qps / b,
 * ttft + itl x seq_len) is stable within the SLA, asking the two solvers. */
static double largest_by_hand(double qps, double sla_ms, double *p99, double *headroom)
{
    double best = 0;
    for (double b = 1; b <= 64; b++) {
        serving_base();
        set_num("seq_len", 100);
        set_num("batch_size", b);
        solve_ok();
        if (!flag("feasible"))
            continue;
        double service = num("ttft") + num("itl") * 100;
        tail_base(qps / b, service, 1, 1.0);
        solve_ok();
        if (flag("is_stable") && num("p99_latency") <= sla_ms) {
            best = b;
            *p99 = num("p99_latency");
            *headroom = num("slo_headroom_ratio");
        }
    }
    return best;
}

Test(batching_optimizer, matches_serving_and_tail_latency)
{
    static const double cases[][2] = {{2, 2000}, {20, 3000}, {50, 1500}, {0.01, 400}, {0.01, 300}, {1, 450}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double p99 = 0, headroom = 0;
        double want = largest_by_hand(cases[i][0], cases[i][1], &p99, &headroom);
        bo_base(cases[i][0], cases[i][1]);
        solve_ok();
        cr_expect(rel_eq(num("best_batch_size"), want), "qps %g sla %g: %g, want %g", cases[i][0], cases[i][1],
                  num("best_batch_size"), want);
        expect_num("best_config.max_batch_size", want);
        cr_expect_eq(flag("is_feasible"), want > 0);
        expect_num("total_searched", 64);
        if (want > 0) {
            expect_num("p99_latency", p99);
            expect_num("slo_headroom_ratio", headroom);
            expect_num("objective_value", cases[i][0] * 100); /* qps x seq_len, whatever the batch */
            expect_num("max_throughput", cases[i][0] * 100);
        }
    }
}

Test(batching_optimizer, sla_boundary_is_inclusive)
{
    /* At b = 64 (the top of the range) the P99 is some x: an SLA of exactly x keeps
     * 64, and anything below x drops it. */
    serving_base();
    set_num("seq_len", 100);
    set_num("batch_size", 64);
    solve_ok();
    double service = num("ttft") + num("itl") * 100;
    tail_latency t = tail_latency_solve(2.0 / 64, service, 1, 1.0);
    bo_base(2, t.p99_ms);
    solve_ok();
    expect_num("best_batch_size", 64);
    bo_base(2, nextafter(t.p99_ms, 0));
    solve_ok();
    cr_expect_lt(num("best_batch_size"), 64);
}

Test(batching_optimizer, infeasible)
{
    bo_base(2, 2000);
    GPU.mem_capacity = 1e9; /* the weights alone are 2 GB */
    solve_ok();
    cr_expect(!flag("is_feasible"));
    expect_num("best_batch_size", 0);
    expect_num("best_config.max_batch_size", 0);
    expect_num("objective_value", 0);
    expect_num("max_throughput", 0);
    expect_num("p99_latency", 0);
    expect_num("slo_headroom_ratio", 0);
    expect_num("total_searched", 64);
}

Test(batching_optimizer, serving_rejects_the_inputs)
{
    bo_base(2, 2000);
    set_num("seq_len", 0);
    solve_fails("seq_len", "seq_len (0) must be >= 1");
    bo_base(2, 2000);
    set_num("efficiency", 1.5);
    solve_fails("efficiency", "efficiency (1.5) must be > 0 and <= 1");
}
