/* test_parallelism_search.c - parallelism's exhaustive mode held against the
 * solvers it composes, through the real server: every configuration it
 * lists is what training_memory (§15) and distributed (§18) say when called
 * one by one, its ZeRO stage and checkpointing are the least that fit, and
 * no split the test enumerates itself (tp dividing the fleet up to the node
 * size, pp up to the layer count, dp up to the batch, power-of-two
 * microbatches) that fits is faster than the best. Also: the default mode
 * is mlsysim's (five candidates by MFU), a model too big for any split is a
 * 400, and a sweep over the fleet size shows the best split change. The
 * sharded step model itself is checked by hand.
 *
 * The fleet: two DGX H100 nodes (16 H100 of 80 GiB); Llama-3-8B at batch 64,
 * whose Adam state (96 GB unsharded) does not fit one GPU without sharding. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define FLEET "{\"node\":\"DGX_H100\",\"count\":2,\"fabric\":\"InfiniBand_NDR\"}"
#define N_GPUS 16
#define NODE_SIZE 8
#define BATCH 64
#define LAYERS 32 /* Llama-3-8B */

/* training_memory's total for one configuration on an H100; *fits its verdict. */
static double memory(int tp, int pp, int dp, int micro, int zero, bool full, bool *fits)
{
    char body[600];
    snprintf(body, sizeof body,
             "{\"solver\":\"training_memory\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\","
             "\"batch_size\":%d,\"tp_size\":%d,\"pp_size\":%d,\"dp_size\":%d,\"gradient_accumulation_steps\":%d,"
             "\"zero_stage\":%d,\"activation_checkpointing\":\"%s\"}}",
             BATCH, tp, pp, dp, micro, zero, full ? "full" : "none");
    json_t *doc = solve_ok(body);
    const json_t *res = json_object_get(doc, "result");
    *fits = json_is_true(json_object_get(res, "feasible"));
    double total = num_at(res, "total_memory");
    json_decref(doc);
    return total;
}

/* distributed's step_latency_total (ms) for one configuration, as parallelism prices it. */
static double step(int tp, int pp, int micro, int zero, bool full)
{
    char body[600];
    snprintf(body, sizeof body,
             "{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":" FLEET ",\"batch_size\":%d,"
             "\"tp_size\":%d,\"pp_size\":%d,\"microbatch_count\":%d,\"zero_stage\":%d,"
             "\"activation_recomputation\":%s,\"overlap_comm\":true,\"step_model\":\"sharded\"}}",
             BATCH, tp, pp, micro, zero, full ? "true" : "false");
    json_t *doc = solve_ok(body);
    double t = num_at(json_object_get(doc, "result"), "step_latency_total");
    json_decref(doc);
    return t;
}

static json_t *exhaustive(int top_k)
{
    char body[400];
    snprintf(body, sizeof body,
             "{\"solver\":\"parallelism\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":" FLEET ",\"batch_size\":%d,"
             "\"mode\":\"exhaustive\",\"top_k\":%d}}",
             BATCH, top_k);
    return solve_ok(body);
}

Test(parallelism_search, every_listed_configuration_is_training_memory_and_distributed_called_alone)
{
    json_t *doc = exhaustive(64);
    const json_t *rows = json_object_get(json_object_get(doc, "result"), "top_candidates");
    cr_assert_gt(json_array_size(rows), 3);
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        int tp = (int)num_at(row, "tp"), pp = (int)num_at(row, "pp"), dp = (int)num_at(row, "dp");
        int micro = (int)num_at(row, "microbatches"), zero = (int)num_at(row, "zero_stage");
        bool full = !strcmp(json_string_value(json_object_get(row, "activation_checkpointing")), "full");
        cr_expect_eq(tp * pp * dp, N_GPUS, "row %zu uses %d GPUs", i, tp * pp * dp);
        bool fits;
        cr_expect(close_enough(num_at(row, "memory_per_accelerator"), memory(tp, pp, dp, micro, zero, full, &fits)),
                  "row %zu memory", i);
        cr_expect(fits, "row %zu does not fit", i);
        if (zero > 0) { /* the lowest stage that fits */
            memory(tp, pp, dp, micro, zero - 1, full, &fits);
            cr_expect(!fits, "row %zu: ZeRO-%d fits already", i, zero - 1);
        }
        if (full) { /* checkpointing only when nothing fits without it */
            memory(tp, pp, dp, micro, 3, false, &fits);
            cr_expect(!fits, "row %zu: fits without checkpointing", i);
        }
        cr_expect(close_enough(num_at(row, "step_time"), step(tp, pp, micro, zero, full)), "row %zu step", i);
        if (i)
            cr_expect_geq(num_at(row, "step_time"), num_at(json_array_get(rows, i - 1), "step_time"), "row %zu order",
                          i);
    }
    const json_t *res = json_object_get(doc, "result"), *best = json_array_get(rows, 0);
    cr_expect_eq(num_at(json_object_get(res, "best_config"), "tp"), num_at(best, "tp"));
    cr_expect_eq(num_at(res, "best_microbatches"), num_at(best, "microbatches"));
    cr_expect(close_enough(num_at(res, "best_step_time"), num_at(best, "step_time")));
    cr_expect(close_enough(num_at(res, "best_memory_per_accelerator"), num_at(best, "memory_per_accelerator")));
    json_decref(doc);
}

Test(parallelism_search, no_split_enumerated_here_that_fits_is_faster_than_the_best)
{
    json_t *doc = exhaustive(1);
    const json_t *res = json_object_get(doc, "result");
    double best = num_at(res, "best_step_time");
    cr_expect_eq(json_array_size(json_object_get(res, "top_candidates")), 1, "top_k 1 lists one");
    int fitting = 0;
    for (int tp = 1; tp <= NODE_SIZE; tp++) {
        for (int pp = 1; pp <= LAYERS && tp * pp <= N_GPUS; pp++) {
            if (N_GPUS % (tp * pp))
                continue;
            int dp = N_GPUS / (tp * pp);
            for (int micro = 1; micro <= (pp > 1 ? BATCH / dp : 1); micro *= 2) {
                bool lean, full;
                memory(tp, pp, dp, micro, 3, false, &lean);
                memory(tp, pp, dp, micro, 3, true, &full);
                if (!lean && !full)
                    continue;
                fitting++;
                double t = step(tp, pp, micro, 3, !lean);
                cr_expect_geq(t * (1 + 1e-12), best, "tp %d pp %d micro %d: %.17g ms beats the best %.17g", tp, pp,
                              micro, t, best);
            }
        }
    }
    cr_expect_gt(fitting, 1);
    json_decref(doc);
}

Test(parallelism_search, default_mode_is_mlsysims_five_candidates_by_mfu)
{
    json_t *doc = solve_ok("{\"solver\":\"parallelism\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":\"Research_256\","
                           "\"batch_size\":256}}");
    const json_t *res = json_object_get(doc, "result"), *rows = json_object_get(res, "top_candidates");
    cr_assert_eq(json_array_size(rows), 5);
    cr_expect(close_enough(num_at(json_array_get(rows, 0), "mfu"), num_at(res, "best_mfu")));
    for (size_t i = 1; i < 5; i++)
        cr_expect_leq(num_at(json_array_get(rows, i), "mfu"), num_at(json_array_get(rows, i - 1), "mfu"));
    cr_expect(json_is_null(json_object_get(res, "best_memory_per_accelerator")));
    cr_expect(json_is_null(json_object_get(json_array_get(rows, 0), "memory_per_accelerator")));
    json_decref(doc);
}

Test(parallelism_search, nothing_fits_is_a_400_naming_the_fleet)
{
    long st;
    /* Llama-3-70B's Adam state on one A100-node's 8 GPUs cannot fit even with ZeRO-3 over 1 replica */
    json_t *doc = api_post("/solve",
                           "{\"solver\":\"parallelism\",\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":"
                           "\"DGX_A100\",\"count\":1,\"fabric\":\"InfiniBand_NDR\"},\"batch_size\":8,"
                           "\"mode\":\"exhaustive\"}}",
                           &st);
    cr_expect_eq(st, 400, "%s", json_string_value(json_object_get(doc, "detail")));
    cr_expect_str_eq(json_string_value(json_object_get(doc, "field")), "inputs.fleet");
    json_decref(doc);
    doc = api_post("/solve",
                   "{\"solver\":\"parallelism\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":\"Research_256\","
                   "\"batch_size\":256,\"mode\":\"exhaustive\",\"top_k\":65}}",
                   &st);
    cr_expect_eq(st, 400);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "field")), "inputs.top_k");
    json_decref(doc);
}

Test(parallelism_search, a_sweep_over_the_fleet_size_moves_the_best_split)
{
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/sweep",
                                "{\"solver\":\"parallelism\",\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":"
                                "\"Research_256\",\"batch_size\":1024,\"mode\":\"exhaustive\"},\"axes\":[{\"input\":"
                                "\"fleet.count\",\"values\":[4,8,16,32,64]}],\"outputs\":[\"best_config\","
                                "\"best_step_time\"]}",
                                &r),
                 0);
    cr_assert_eq(r.status, 200, "%.300s", r.body);
    json_t *doc = http_json(&r);
    http_free(&r);
    cr_assert_not_null(doc);
    cr_expect_eq(json_array_size(json_object_get(doc, "rows")), 5);
    cr_expect_gt(json_array_size(json_object_get(doc, "transitions")), 0, "the best split never changes");
    json_decref(doc);
}

/* distributed's sharded step by hand: two DGX H100 on InfiniBand NDR (50 GB/s,
 * 5 us), Llama-3-8B (16.06 GFLOP per token, 8.03e9 parameters), batch 64 at
 * tp 8, pp 1: dp 2, local batch 32.
 *   compute: 16.06e9 x 2048 x 32 x 3 / 8 / (989 TFLOP/s x 0.5) + overhead
 *   DP: one tp group fills a node, so a ring over the 2 nodes' fabric of the
 *       fp16 gradient shard 8.03e9 x 2 / 8 B: M / 50e9 + 2 x 5 us
 *   throughput: dp x local / step. */
Test(parallelism_search, the_sharded_step_by_hand)
{
    json_t *sn = solve_ok("{\"solver\":\"single_node\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\","
                          "\"batch_size\":32,\"is_training\":true,\"seq_len\":2048}}");
    double overhead_ms = num_at(json_object_get(sn, "result"), "latency_overhead");
    json_decref(sn);
    json_t *doc = solve_ok("{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":" FLEET
                           ",\"batch_size\":64,\"tp_size\":8,\"step_model\":\"sharded\"}}");
    const json_t *r = json_object_get(doc, "result");
    double compute_ms = 16.06e9 * 2048 * 32 * 3 / 8 / (989e12 * 0.5) * 1e3;
    cr_expect(close_enough(num_at(r, "node_latency"), compute_ms + overhead_ms), "node_latency %.17g, want %.17g",
              num_at(r, "node_latency"), compute_ms + overhead_ms);
    double dp_ms = (8.03e9 * 2 / 8 / 50e9 + 2 * 5e-6) * 1e3;
    cr_expect(close_enough(num_at(r, "dp_communication_latency"), dp_ms), "dp %.17g, want %.17g",
              num_at(r, "dp_communication_latency"), dp_ms);
    cr_expect_eq(num_at(r, "pipeline_bubble_latency"), 0);
    cr_expect(close_enough(num_at(r, "effective_throughput"), 2 * 32 / (num_at(r, "step_latency_total") / 1e3)));
    cr_expect(
        close_enough(num_at(r, "scaling_efficiency"), num_at(r, "node_latency") / num_at(r, "step_latency_total")));
    /* the same split with a pipeline of 2 and 4 microbatches: bubble = local step x b / (1 - b), b = 1/5 */
    json_decref(doc);
    doc = solve_ok("{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_8B\",\"fleet\":" FLEET
                   ",\"batch_size\":64,\"tp_size\":4,\"pp_size\":2,\"microbatch_count\":4,\"step_model\":\"sharded\"}}");
    r = json_object_get(doc, "result");
    cr_expect(close_enough(num_at(r, "bubble_fraction"), 0.2));
    cr_expect(close_enough(num_at(r, "pipeline_bubble_latency"), num_at(r, "node_latency") * 0.2 / 0.8));
    json_decref(doc);
}
