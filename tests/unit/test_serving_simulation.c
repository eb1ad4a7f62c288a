/* test_serving_simulation.c - serving_simulation called directly (the
 * fixture of solver_fixture.h), on the made-up LLM and accelerator of
 * test_serving.c, whose serving figures are short calculations:
 *
 *   ToyLLM: 1e9 parameters, 10 layers, hidden 1024, 8 heads of 128, 2 KV heads;
 *   ToyGPU: 100 TFLOP/s (x 0.5 efficiency), 80 GB at 1 TB/s, 0.01 ms dispatch.
 *   KV cache 2 x 10 x 2 x 128 x 2 B = 10240 B per token; weights 2e9 B.
 *   Prefill of P tokens: (2e9 P + 40960 P^2) / 5e13 s + 0.01 ms.
 *   Decode step at context S: (2e9 + 10240 S) / 1e12 s + 10 x 0.01 ms.
 *
 * Checked: one request alone (TTFT = prefill, TPOT = the mean decode step),
 * chunked prefill, the low-load equalities with serving, Little's law, the
 * M/M/1 closed form with one sequence at a time, saturation at
 * continuous_batching's capacity, 0.5x and 2x capacity, P99 TTFT growing with
 * load, preemption when the KV cache is short, determinism, the caps, and
 * the speed of 10,000 requests. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/model.h"
#include "core/solver.h"
#include "sanitizer.h"
#include "solver_fixture.h"

static model_t LLM;
static hw_node GPU;

static void records(void)
{
    LLM = (model_t){.key = "ToyLLM", .name = "ToyLLM", .kind = WL_TRANSFORMER, .parameters = 1e9, .layers = 10,
                    .hidden_dim = 1024, .heads = 8, .kv_heads = 2, .inference_flops = NAN, .model_size = NAN,
                    .active_parameters = NAN};
    GPU = (hw_node){.key = "ToyGPU", .name = "ToyGPU", .peak_flops = 100e12, .mem_capacity = 80e9,
                    .mem_capacity_unit = 1e9, .mem_bandwidth = 1e12, .sram_capacity = NAN, .sram_bandwidth = NAN,
                    .flash_capacity = NAN, .flash_bandwidth = NAN, .interconnect_bw = NAN, .tdp = 500,
                    .unit_cost = NAN, .dispatch_tax = 1e-5};
}

static void base(double rate, int prompt, int output)
{
    records();
    use_solver("serving_simulation");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_num("arrival_rate_qps", rate);
    set_int("prompt_tokens", prompt);
    set_int("output_tokens", output);
}

static bool near(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

/* Hand figures, ms. */
static double prefill_ms(double p) { return (2e9 * p + 40960.0 * p * p) / 5e13 * 1e3 + 0.01; }
static double step_ms(double ctx) { return (2e9 + 10240.0 * ctx) / 1e12 * 1e3 + 0.1; }

/* The answer of serving for one sequence of seq_len tokens (ttft, itl), ms. */
static void serving_answer(int seq_len, bool measured, double *ttft, double *itl)
{
    records();
    use_solver("serving");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_int("seq_len", seq_len);
    IN.calibration = measured ? CALIBRATION_MEASURED : CALIBRATION_MLSYSIM;
    solve_ok();
    *ttft = num("ttft");
    *itl = num("itl");
}

Test(serving_simulation, one_request_alone)
{
    base(1, 1000, 11);
    set_int("num_requests", 1);
    solve_ok();
    cr_expect(flag("feasible"));
    expect_num("measured_requests", 1);
    expect_num("warmup_requests", 0);
    /* one iteration prefills the 1000 tokens and emits the first token:
     * (2e12 + 4.096e10) / 5e13 = 40.8192 ms + 0.01 dispatch */
    cr_expect(near(num("ttft_mean"), 40.8292, 1e-12), "ttft %.17g", num("ttft_mean"));
    cr_expect(near(num("ttft_mean"), prefill_ms(1000), 1e-12));
    /* then 10 decode steps at contexts 1001..1010: mean context 1005.5 */
    double tpot = step_ms(1005.5);
    cr_expect(near(num("tpot_mean"), tpot, 1e-9), "tpot %.17g, want %.17g", num("tpot_mean"), tpot);
    cr_expect(near(num("e2e_mean"), 40.8292 + 10 * tpot, 1e-9));
    expect_num("iterations", 11);
    expect_num("preemptions", 0);
    expect_num("max_queue_length", 1);
    /* 0.9 x 80e9 - 2e9 = 7e10 B of KV pages of 16 tokens x 10240 B: 427246 pages */
    expect_num("kv_capacity_tokens", 427246.0 * 16);
    cr_expect(is_null("goodput_rps") && is_null("slo_attainment"));
    cr_expect_eq(OUT.n_rows, 6);
}

Test(serving_simulation, chunked_prefill_prices_each_chunk)
{
    base(1, 1000, 2);
    set_int("num_requests", 1);
    set_int("prefill_chunk_tokens", 300);
    solve_ok();
    /* chunks of 300, 300, 300, 100 tokens at contexts 0, 300, 600, 900: attention over
     * n (c + n) = 9e4 + 1.8e5 + 2.7e5 + 1e5 = 6.4e5 token pairs instead of 1e6;
     * (2e12 + 40960 x 6.4e5) / 5e13 = 40.524288 ms + 4 dispatches */
    cr_expect(near(num("ttft_mean"), 40.524288 + 4 * 0.01, 1e-12), "ttft %.17g", num("ttft_mean"));
    expect_num("iterations", 5);
    /* without chunking: the whole prompt in one iteration */
    set_bool("chunked_prefill", false);
    solve_ok();
    cr_expect(near(num("ttft_mean"), 40.8292, 1e-12));
}

Test(serving_simulation, low_load_equals_serving)
{
    for (int measured = 0; measured < 2; measured++) {
        double ttft, itl_lo, itl_hi, ignore;
        serving_answer(2000, measured, &ttft, &itl_lo);
        serving_answer(2200, measured, &ignore, &itl_hi);
        base(0.01, 2000, 200);
        IN.calibration = measured ? CALIBRATION_MEASURED : CALIBRATION_MLSYSIM;
        set_int("num_requests", 50);
        solve_ok();
        cr_expect(near(num("ttft_mean"), ttft, 0.05), "mode %d: ttft %g vs serving %g", measured, num("ttft_mean"),
                  ttft);
        cr_expect(num("tpot_mean") >= itl_lo && num("tpot_mean") <= itl_hi, "mode %d: tpot %g not in [%g, %g]",
                  measured, num("tpot_mean"), itl_lo, itl_hi);
    }
}

Test(serving_simulation, one_request_alone_in_measured_mode_is_servings)
{
    double ttft, itl;
    serving_answer(1000, true, &ttft, &itl);
    base(1, 1000, 2);
    IN.calibration = CALIBRATION_MEASURED;
    set_int("num_requests", 1);
    solve_ok();
    /* the prefill iteration is serving's ttft; the one decode step is at context 1001 */
    cr_expect(near(num("ttft_mean"), ttft, 1e-12), "ttft %.17g vs %.17g", num("ttft_mean"), ttft);
    cr_expect(near(num("tpot_mean"), itl, 1e-3), "tpot %.17g vs %.17g", num("tpot_mean"), itl);
}

Test(serving_simulation, littles_law)
{
    /* capacity is about 100 requests/s (see saturation below): 40 % load */
    base(40, 500, 100);
    set_enum("output_distribution", "exponential");
    set_int("num_requests", 10000);
    solve_ok();
    double l = num("mean_requests_in_system"), xw = num("throughput_rps") * num("e2e_mean") / 1e3;
    cr_expect(near(l, xw, 0.05), "L = %g, X W = %g", l, xw);
    cr_expect(near(num("throughput_rps"), 40, 0.05), "throughput %g", num("throughput_rps"));
}

Test(serving_simulation, mm1_with_one_sequence_at_a_time)
{
    /* One sequence at a time and exponential output lengths: service is nearly
     * exponential, S = prefill(1 token) + (O - 1) decode steps at context ~O. */
    const double mean_out = 200;
    double es = prefill_ms(1) + (mean_out - 1) * step_ms(100); /* about 420 ms */
    double mu = 1e3 / es, lambda = 0.5 * mu;
    base(lambda, 1, (int)mean_out);
    set_enum("output_distribution", "exponential");
    set_int("max_num_seqs", 1);
    set_int("max_num_batched_tokens", 1);
    set_int("num_requests", 20000);
    solve_ok();
    double w = 1e3 / (mu - lambda); /* M/M/1 sojourn: 1 / (mu - lambda) */
    double wq = 0.5 * w;            /* and wait in queue: rho / (mu - lambda) */
    cr_expect(near(num("e2e_mean"), w, 0.08), "e2e %g ms, M/M/1 %g ms", num("e2e_mean"), w);
    cr_expect(near(num("ttft_mean") - prefill_ms(1), wq, 0.12), "wait %g ms, M/M/1 %g ms",
              num("ttft_mean") - prefill_ms(1), wq);
    cr_expect(near(num("mean_requests_in_system"), 1.0, 0.1), "L %g, M/M/1 rho / (1 - rho) = 1",
              num("mean_requests_in_system"));
}

/* continuous_batching's decode capacity for max_batch sequences of seq_len tokens. */
static double cb_tokens_per_s(int seq_len, int max_batch)
{
    records();
    use_solver("continuous_batching");
    set_model("model", &LLM);
    set_hw("hardware", &GPU);
    set_int("seq_len", seq_len);
    set_int("max_batch_size", max_batch);
    solve_ok();
    return num("throughput");
}

Test(serving_simulation, saturates_near_continuous_batchings_capacity)
{
    double cap = cb_tokens_per_s(16 + 500, 64); /* 64 / 2.34 ms: about 27,300 tokens/s */
    base(1000, 16, 500);                        /* far more than 64 / (500 x 2.3 ms) = 55 requests/s */
    set_int("max_num_seqs", 64);
    set_int("num_requests", 3000);
    solve_ok();
    cr_expect(near(num("output_tokens_per_s"), cap, 0.1), "simulated %g tokens/s, continuous_batching %g",
              num("output_tokens_per_s"), cap);
    cr_expect(num("throughput_rps") < 0.1 * 1000, "overloaded: %g requests/s", num("throughput_rps"));
    cr_expect(warned("do not keep up"));
}

Test(serving_simulation, half_and_twice_capacity)
{
    /* capacity: 64 sequences of ~16 + 250 tokens, a step of ~2.27 ms: ~56 requests/s */
    double p99[2], thr[2];
    const double rates[2] = {28, 112};
    for (int k = 0; k < 2; k++) {
        base(rates[k], 16, 500);
        set_int("max_num_seqs", 64);
        set_int("num_requests", 4000);
        solve_ok();
        p99[k] = num("ttft_p99");
        thr[k] = num("throughput_rps");
    }
    cr_expect(near(thr[0], 28, 0.05), "at 0.5x: throughput %g = arrivals", thr[0]);
    cr_expect(thr[1] < 0.6 * 112 && thr[1] > 0.4 * 112, "at 2x: throughput %g near capacity", thr[1]);
    cr_expect(p99[1] > 100 * p99[0], "p99 ttft %g ms at 0.5x, %g ms at 2x", p99[0], p99[1]);
}

Test(serving_simulation, p99_ttft_grows_with_load)
{
    double prev = 0;
    for (double rate = 10; rate <= 160; rate *= 2) {
        base(rate, 500, 100);
        set_enum("output_distribution", "exponential");
        set_int("num_requests", 2000);
        solve_ok();
        cr_expect_geq(num("ttft_p99"), prev, "rate %g: p99 ttft %g < %g", rate, num("ttft_p99"), prev);
        prev = num("ttft_p99");
    }
}

Test(serving_simulation, preempts_when_the_kv_cache_is_short)
{
    /* 2.2 GB usable: 0.2 GB of KV, 19531 tokens (1220 pages of 16): ~18 sequences of 1100 */
    base(200, 100, 1000);
    set_num("gpu_memory_utilization", 2.2e9 / 80e9);
    set_int("num_requests", 300);
    solve_ok();
    cr_expect_gt(num("preemptions"), 0);
    cr_expect_gt(num("kv_utilization_mean"), 0.8);
    cr_expect(isfinite(num("e2e_p99")), "every request completes");
}

Test(serving_simulation, infeasible_when_the_weights_do_not_fit)
{
    base(1, 100, 10);
    set_num("gpu_memory_utilization", 0.02); /* 1.6 GB < 2 GB of weights */
    solve_ok();
    cr_expect(!flag("feasible"));
    cr_expect(is_null("ttft_p99") && is_null("throughput_rps"));
    expect_num("kv_capacity_tokens", 0);
}

static void snapshot(output_value *v) { memcpy(v, OUT.v, sizeof OUT.v); }

Test(serving_simulation, same_seed_same_answer)
{
    static output_value a[SOLVER_MAX_OUTPUTS], b[SOLVER_MAX_OUTPUTS];
    base(60, 500, 100);
    set_enum("prompt_distribution", "lognormal");
    set_enum("output_distribution", "exponential");
    set_enum("arrival_process", "gamma");
    set_num("arrival_cv", 2);
    set_int("seed", 7);
    solve_ok();
    snapshot(a);
    solve_ok();
    snapshot(b);
    cr_expect(memcmp(a, b, sizeof a) == 0, "the same seed gives the same outputs, bit for bit");
    set_int("seed", 8);
    solve_ok();
    cr_expect(num("ttft_mean") != a[1].num, "another seed, another answer");
}

Test(serving_simulation, replicas_share_the_load)
{
    /* 112 requests/s is twice one replica's capacity; two replicas keep up */
    for (int route = 0; route < 2; route++) {
        base(112, 16, 500);
        set_int("max_num_seqs", 64);
        set_int("replicas", 3);
        set_enum("routing", route ? "least_outstanding" : "round_robin");
        set_int("num_requests", 4000);
        solve_ok();
        cr_expect(near(num("throughput_rps"), 112, 0.05), "%d: throughput %g", route, num("throughput_rps"));
        cr_expect(!warned("do not keep up"));
    }
}

Test(serving_simulation, slos_give_goodput)
{
    base(40, 500, 100);
    set_num("slo_ttft_ms", 1e9);
    set_num("slo_tpot_ms", 1e9);
    solve_ok();
    expect_num("slo_attainment", 1.0);
    expect_num("goodput_rps", num("throughput_rps"));
    set_num("slo_ttft_ms", 1e-3);
    solve_ok();
    expect_num("slo_attainment", 0.0);
    expect_num("goodput_rps", 0.0);
}

Test(serving_simulation, caps_are_413)
{
    base(1, 100, 10);
    set_int("num_requests", 20001);
    cr_assert_eq(solve(), -1);
    cr_expect_eq(ERR.status, 413);
    cr_expect_str_eq(ERR.field, "num_requests");
    base(1, 100, 16384);
    set_int("num_requests", 2000); /* 3.3e7 output tokens */
    cr_assert_eq(solve(), -1);
    cr_expect_eq(ERR.status, 413);
    base(1, 100, 10);
    set_int("warmup_requests", 1000);
    solve_fails("warmup_requests", "warmup_requests (1000) must be < num_requests (1000)");
}

Test(serving_simulation, ten_thousand_requests_are_fast)
{
    /* light (one sequence at a time, mostly the decode fast path), busy, and overloaded */
    static const double rates[] = {1, 15, 40};
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++) {
        base(rates[k], 2000, 300);
        set_enum("output_distribution", "exponential");
        set_int("num_requests", 10000);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        solve_ok();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        printf("serving_simulation: 10000 requests at %g/s, %.0f iterations in %.1f ms\n", rates[k],
               num("iterations"), ms);
#ifndef UNDER_ASAN /* generous: the machine is shared and the build may be unoptimised, but not instrumented */
        cr_expect_lt(ms, 1000, "%.1f ms", ms);
#endif
    }
}
