/* test_serving_api.c - "how many replicas for this traffic" as one sweep
 * (docs/tutorials/sizing-an-llm-service.md) through the real
 * daemon: a /sweep of serving_capacity over qps reports required_replicas's
 * crossovers ("transitions") exactly where calling /solve one point at a time
 * changes required_replicas, and where solvers.md §10 puts them by hand:
 *
 * - with a target no queue can miss, only stability counts, and r replicas
 *   serve up to (but not including) r x q1 requests/s, q1 being one replica's
 *   continuous-batching capacity (§9) per request;
 * - with a target 2 s above the base latency, one replica is an M/M/1 queue
 *   (Erlang C gives P_wait = rho), so it stops sufficing where
 *   ln(rho / 0.01) / (mu - lambda) reaches 2 s (§H.10).
 *
 * Bad inputs are 400s (404 for an unknown id) naming the field; a bad point of
 * a sweep fails that row only.
 *
 * The scenario is Llama3_70B (Llama-3.1-70B: 70.6e9 parameters, 80 layers,
 * hidden 8192, 64 heads, 8 KV heads) on a B200 (192 GiB, 8 TB/s, 4.5 PFLOP/s
 * at fp8, dispatch tax 0.008 ms) at fp8, prompts of 4,096 tokens and 256
 * generated tokens: the catalog's figures (reference/catalog.json). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define N_PARAMS 70.6e9
#define LAYERS 80.0
#define HEADS 64.0
#define KV_HEADS 8.0
#define HEAD_DIM 128.0 /* 8192 / 64 */
#define B200_CAPACITY 206158430208.0 /* 192 GiB */
#define B200_BW 8e12
#define B200_FP8 4.5e15
#define B200_TAX_S 8e-6
#define SEQ 4096.0
#define OUT_TOKENS 256.0
#define MAX_BATCH 32.0

/* The scenario's inputs, plus `extra` (may be NULL; stolen). */
static json_t *scenario(json_t *extra)
{
    json_t *in = json_pack("{s:s,s:s,s:s,s:i,s:i}", "model", "Llama3_70B", "hardware", "B200", "precision", "fp8",
                           "seq_len", (int)SEQ, "output_tokens", (int)OUT_TOKENS);
    if (extra) {
        json_object_update(in, extra);
        json_decref(extra);
    }
    return in;
}

/* A sweep of serving_capacity over qps (the values of `axis`, stolen) reporting
 * required_replicas, feasible and bottleneck; must be 200. */
static json_t *sweep_ok(json_t *inputs, json_t *axis)
{
    json_object_set_new(axis, "input", json_string("qps"));
    long status;
    json_t *j = api_post_doc("/sweep",
                             json_pack("{s:s,s:o,s:[o],s:[s,s,s]}", "solver", "serving_capacity", "inputs", inputs,
                                       "axes", axis, "outputs", "required_replicas", "feasible", "bottleneck"),
                             &status);
    cr_assert_eq(status, 200, "status %ld: %s", status, json_dumps(j, JSON_COMPACT));
    return j;
}

/* A transition's from/to: a string as it is, a boolean as true/false, a number to 15 digits. */
static void value_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else
        cr_assert(json_is_number(v) && snprintf(buf, len, "%.15g", json_number_value(v)) > 0);
}

/* The sweep's transitions of `output` as "from_input->to_input:from->to"
 * (value_text), joined by ';'. */
static void transitions(const json_t *doc, const char *output, char *buf, size_t len)
{
    size_t i, used = 0;
    json_t *t;
    buf[0] = '\0';
    json_array_foreach(json_object_get(doc, "transitions"), i, t) {
        if (strcmp(json_string_value(json_object_get(t, "output")), output))
            continue;
        cr_assert_str_eq(json_string_value(json_object_get(t, "axis")), "qps");
        char from[64], to[64];
        value_text(json_object_get(t, "from"), from, sizeof from);
        value_text(json_object_get(t, "to"), to, sizeof to);
        used += (size_t)snprintf(buf + used, len - used, "%s%.15g->%.15g:%s->%s", used ? ";" : "",
                                 json_number_value(json_object_get(t, "from_input")),
                                 json_number_value(json_object_get(t, "to_input")), from, to);
        cr_assert_lt(used, len);
    }
}

/* The same list built by calling /solve at every qps of the sweep's rows, one
 * at a time; each row's required_replicas must also be what /solve says. */
static void transitions_one_by_one(const json_t *doc, json_t *base_inputs, char *buf, size_t len)
{
    size_t i, used = 0;
    json_t *row;
    double prev_q = 0, prev_r = -1;
    buf[0] = '\0';
    json_array_foreach(json_object_get(doc, "rows"), i, row) {
        double q = json_number_value(json_array_get(row, 0));
        json_t *in = json_deep_copy(base_inputs);
        json_object_set_new(in, "qps", json_real(q));
        json_t *one = solve_inputs_ok("serving_capacity", in);
        double r = result_num(one, "required_replicas");
        json_decref(one);
        cr_assert_eq(r, json_number_value(json_array_get(row, 1)), "qps %.17g: /solve %g, the sweep's row %g", q, r,
                     json_number_value(json_array_get(row, 1)));
        if (prev_r >= 0 && r != prev_r) {
            used += (size_t)snprintf(buf + used, len - used, "%s%.15g->%.15g:%.15g->%.15g", used ? ";" : "", prev_q, q,
                                     prev_r, r);
            cr_assert_lt(used, len);
        }
        prev_q = q;
        prev_r = r;
    }
}

/* §9 by hand: one replica's sustained requests/s (q1) and the batch it
 * admits. The prompt (4,096) is a whole number of 16-token pages. */
static double per_replica_qps(double *active)
{
    double weights = N_PARAMS * 1.0; /* fp8: 1 byte per parameter */
    double bytes_per_seq = 2 * LAYERS * KV_HEADS * HEAD_DIM * SEQ * 1.0;
    double n = fmin(floor((B200_CAPACITY - weights) / bytes_per_seq), MAX_BATCH);
    double itl_s = (weights + n * bytes_per_seq) / B200_BW;
    *active = n;
    return n / itl_s / OUT_TOKENS;
}

/* §8 by hand: TTFT + ITL x output tokens at the admitted batch, in ms. */
static double base_latency_ms(double batch)
{
    double prefill = 2 * N_PARAMS * SEQ * batch + 4 * LAYERS * HEADS * HEAD_DIM * SEQ * SEQ * batch;
    double ttft_s = prefill / (B200_FP8 * 0.5) + B200_TAX_S;
    double kv = 2 * LAYERS * KV_HEADS * HEAD_DIM * SEQ * batch * 1.0;
    double itl_s = (N_PARAMS + kv) / B200_BW + LAYERS * 0.01e-3;
    return (ttft_s + itl_s * OUT_TOKENS) * 1e3;
}

Test(serving_api, qps_sweep_steps_up_replicas_at_each_multiple_of_one_replicas_capacity)
{
    double active;
    double q1 = per_replica_qps(&active);
    cr_assert_eq(active, 32.0, "the B200 holds 202 such requests at fp8; the batch cap of 32 binds");
    /* A target no finite queue misses: only stability (qps < r q1) counts. */
    json_t *base = scenario(json_pack("{s:f}", "target_p99_latency_ms", 1e9));
    json_t *one = solve_inputs_ok("serving_capacity", scenario(json_pack("{s:f,s:i}", "target_p99_latency_ms", 1e9, "qps", 1)));
    cr_assert(close_enough(result_num(one, "per_replica_qps_capacity"), q1), "q1 %.17g by hand, %.17g served", q1,
              result_num(one, "per_replica_qps_capacity"));
    cr_assert_eq(result_num(one, "active_batch_size"), active);
    json_decref(one);

    json_t *doc = sweep_ok(json_deep_copy(base), json_pack("{s:{s:i,s:i,s:i}}", "range", "start", 1, "stop", 100,
                                                          "step", 1));
    /* By hand: between k and k + 1 where k < r q1 <= k + 1, from r to r + 1. */
    char want[1024] = "";
    size_t used = 0;
    for (double r = 1; r * q1 < 100; r++) {
        double k = ceil(r * q1) - 1;
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%.15g->%.15g:%.15g->%.15g", used ? ";" : "", k,
                                 k + 1, r, r + 1);
    }
    cr_assert(strchr(want, ';') != NULL, "several crossovers expected below 100 requests/s: %s", want);
    char got[1024], by_solve[1024];
    transitions(doc, "required_replicas", got, sizeof got);
    transitions_one_by_one(doc, base, by_solve, sizeof by_solve);
    cr_expect_str_eq(got, want);
    cr_expect_str_eq(got, by_solve);
    /* Feasible everywhere: no other crossover. */
    transitions(doc, "feasible", got, sizeof got);
    cr_expect_str_eq(got, "");
    json_decref(doc);
    json_decref(base);
}

/* M/M/1's P99 wait in ms at arrival rate lambda and service rate mu (both 1/s):
 * P_wait = rho, w99 = ln(P_wait / 0.01) / (mu - lambda) (§H.10). */
static double mm1_wait99_ms(double lambda, double mu)
{
    double rho = lambda / mu;
    return rho < 0.01 ? 0 : log(rho / 0.01) / (mu - lambda) * 1e3;
}

Test(serving_api, one_replica_stops_sufficing_where_its_mm1_wait_uses_up_the_headroom)
{
    double active;
    double q1 = per_replica_qps(&active);
    double base_ms = base_latency_ms(active);
    json_t *one = solve_inputs_ok("serving_capacity", scenario(json_pack("{s:f,s:i}", "target_p99_latency_ms", 1e9, "qps", 1)));
    cr_assert(close_enough(result_num(one, "base_request_latency"), base_ms), "base %.17g ms by hand, %.17g served",
              base_ms, result_num(one, "base_request_latency"));
    json_decref(one);

    /* Target = base + 2 s: the wait may be 2 s. It grows with lambda; bisect
     * for the lambda where it is exactly 2 s. */
    double headroom = 2000, target = base_ms + headroom;
    double lo = 0.01 * q1, hi = q1;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (mm1_wait99_ms(mid, q1) <= headroom)
            lo = mid;
        else
            hi = mid;
    }
    double star = lo; /* ~ 8.7 requests/s against q1 ~ 10.86 */
    cr_assert(star > 0.5 * q1 && star < q1, "lambda* %.17g", star);

    json_t *base = scenario(json_pack("{s:f}", "target_p99_latency_ms", target));
    json_t *doc = sweep_ok(json_deep_copy(base), json_pack("{s:{s:f,s:f,s:f}}", "range", "start", 0.5, "stop", 10.5,
                                                          "step", 0.01));
    /* The first crossover straddles lambda*, from 1 replica to 2. */
    const json_t *t = json_array_get(json_object_get(doc, "transitions"), 0);
    cr_assert_not_null(t);
    cr_assert_str_eq(json_string_value(json_object_get(t, "output")), "required_replicas");
    double from_q = json_number_value(json_object_get(t, "from_input"));
    double to_q = json_number_value(json_object_get(t, "to_input"));
    cr_expect(from_q <= star && star < to_q, "crossover %.17g -> %.17g, lambda* %.17g", from_q, to_q, star);
    cr_expect_eq(json_number_value(json_object_get(t, "from")), 1.0);
    cr_expect_eq(json_number_value(json_object_get(t, "to")), 2.0);
    /* ... and /solve agrees on both sides, and at every point of the sweep. */
    char got[4096], by_solve[4096];
    transitions(doc, "required_replicas", got, sizeof got);
    transitions_one_by_one(doc, base, by_solve, sizeof by_solve);
    cr_expect_str_eq(got, by_solve);
    cr_expect(strchr(got, ';') == NULL, "a second crossover below 10.5 requests/s: %s", got);
    json_decref(doc);
    json_decref(base);
}

Test(serving_api, capped_replicas_turn_infeasible_without_a_replica_crossover)
{
    /* max_replicas 3: past 3 q1 (~ 32.6 requests/s) the queue is unstable at
     * the cap; required_replicas stays at the cap, feasible and bottleneck
     * cross instead. */
    double active;
    double q1 = per_replica_qps(&active);
    double k = ceil(3 * q1) - 1;
    json_t *base = scenario(json_pack("{s:f,s:i}", "target_p99_latency_ms", 1e9, "max_replicas", 3));
    json_t *doc =
        sweep_ok(json_deep_copy(base), json_pack("{s:{s:i,s:i,s:i}}", "range", "start", 1, "stop", 50, "step", 1));
    char got[512], by_solve[512], want[512];
    transitions(doc, "required_replicas", got, sizeof got);
    transitions_one_by_one(doc, base, by_solve, sizeof by_solve);
    cr_expect_str_eq(got, by_solve);
    snprintf(want, sizeof want, "%.15g->%.15g:1->2;%.15g->%.15g:2->3", ceil(q1) - 1, ceil(q1), ceil(2 * q1) - 1,
             ceil(2 * q1));
    cr_expect_str_eq(got, want);
    snprintf(want, sizeof want, "%.15g->%.15g:true->false", k, k + 1);
    transitions(doc, "feasible", got, sizeof got);
    cr_expect_str_eq(got, want);
    snprintf(want, sizeof want, "%.15g->%.15g:Feasible->Capacity", k, k + 1);
    transitions(doc, "bottleneck", got, sizeof got);
    cr_expect_str_eq(got, want);
    json_decref(doc);
    json_decref(base);
}

Test(serving_api, a_model_that_does_not_fit_needs_max_replicas_at_every_qps)
{
    /* fp16 weights alone (141.2 GB) exceed the H100's 80 GiB: Memory, at the cap, no crossover. */
    json_t *in = json_pack("{s:s,s:s,s:s,s:f,s:i}", "model", "Llama3_70B", "hardware", "H100", "precision", "fp16",
                           "target_p99_latency_ms", 1e9, "max_replicas", 64);
    json_t *doc = sweep_ok(in, json_pack("{s:[i,i,i]}", "values", 1, 10, 100));
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row) {
        cr_expect_eq(json_number_value(json_array_get(row, 1)), 64.0);
        cr_expect(json_is_false(json_array_get(row, 2)));
        cr_expect_str_eq(json_string_value(json_array_get(row, 3)), "Memory");
    }
    cr_expect_eq(json_array_size(json_object_get(doc, "transitions")), 0);
    json_decref(doc);
}

Test(serving_api, a_bad_qps_fails_its_row_only_and_crosses_nothing)
{
    /* Rows: -1 (error), 5 (1 replica), 0 (error), 50 (5 replicas). No transition
     * to or from a failed point, so none at all. */
    json_t *doc = sweep_ok(scenario(json_pack("{s:f}", "target_p99_latency_ms", 1e9)),
                           json_pack("{s:[i,i,i,i]}", "values", -1, 5, 0, 50));
    const json_t *rows = json_object_get(doc, "rows");
    cr_assert_eq(json_array_size(rows), 4);
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(rows, 0), 4)), "qps must be positive, got -1");
    cr_expect(json_is_null(json_array_get(json_array_get(rows, 1), 4)));
    cr_expect_eq(json_number_value(json_array_get(json_array_get(rows, 1), 1)), 1.0);
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(rows, 2), 4)), "qps must be positive, got 0");
    cr_expect_eq(json_number_value(json_array_get(json_array_get(rows, 3), 1)), 5.0);
    cr_expect_eq(json_array_size(json_object_get(doc, "transitions")), 0);
    json_decref(doc);
}

/* A bad input: its status and the field the problem names. */
typedef struct {
    const char *name;
    const char *path;     /* "/solve" or "/sweep" */
    const char *body;
    long status;
    const char *field;
    const char *detail;   /* a fragment of the detail */
} bad_case;

#define LLAMA "\"model\":\"Llama3_70B\",\"hardware\":\"B200\""
#define SOLVE(inputs) "{\"solver\":\"serving_capacity\",\"inputs\":{" inputs "}}"
#define SWEEP(inputs, rest) "{\"solver\":\"serving_capacity\",\"inputs\":{" inputs "}," rest "}"
#define QPS_AXIS(values) "\"axes\":[{\"input\":\"qps\",\"values\":" values "}]"

static const bad_case BAD[] = {
    {"qps zero", "/solve", SOLVE(LLAMA ",\"qps\":0,\"target_p99_latency_ms\":1000"), 400, "inputs.qps",
     "qps must be positive, got 0"},
    {"qps a string", "/solve", SOLVE(LLAMA ",\"qps\":\"fast\",\"target_p99_latency_ms\":1000"), 400, "inputs.qps",
     "must be a number"},
    {"target missing", "/solve", SOLVE(LLAMA ",\"qps\":1"), 400, "inputs.target_p99_latency_ms",
     "missing required input 'target_p99_latency_ms'"},
    {"target negative", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":-5"), 400,
     "inputs.target_p99_latency_ms", "must be positive"},
    {"unknown precision", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"precision\":\"fp7\""),
     400, "inputs.precision", "precision 'fp7' is not supported"},
    {"not a transformer", "/solve",
     SOLVE("\"model\":\"ResNet50\",\"hardware\":\"B200\",\"qps\":1,\"target_p99_latency_ms\":1000"), 400,
     "inputs.model", "TransformerWorkload"},
    {"unknown hardware", "/solve",
     SOLVE("\"model\":\"Llama3_70B\",\"hardware\":\"B2000\",\"qps\":1,\"target_p99_latency_ms\":1000"), 404,
     "inputs.hardware", "did you mean B200"},
    {"max_replicas zero", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"max_replicas\":0"), 400,
     "inputs.max_replicas", "max_replicas must be >= 1"},
    {"seq_len zero", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"seq_len\":0"), 400,
     "inputs.seq_len", "seq_len must be >= 1"},
    {"output_tokens fractional", "/solve",
     SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"output_tokens\":1.5"), 400, "inputs.output_tokens",
     "must be a whole number"},
    {"negative cv", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"service_time_cv\":-1"), 400,
     "inputs.service_time_cv", "must be non-negative"},
    {"efficiency zero", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"efficiency\":0"), 400,
     "inputs.efficiency", "efficiency must be in [1e-09, 1.0]"},
    {"unknown input", "/solve", SOLVE(LLAMA ",\"qps\":1,\"target_p99_latency_ms\":1000,\"replicas\":4"), 400,
     "inputs.replicas", "replicas"},
    {"sweep: qps value a string", "/sweep",
     SWEEP(LLAMA ",\"target_p99_latency_ms\":1000", QPS_AXIS("[1,\"x\"]")), 400, "axes[0].values[1]",
     "qps must be a number"},
    {"sweep: zero range step", "/sweep",
     SWEEP(LLAMA ",\"target_p99_latency_ms\":1000", "\"axes\":[{\"input\":\"qps\",\"range\":{\"start\":1,\"stop\":10,"
                                                  "\"step\":0}}]"),
     400, "axes[0].range.step", "must be non-zero"},
    {"sweep: bad fixed input", "/sweep",
     SWEEP(LLAMA ",\"target_p99_latency_ms\":-1", QPS_AXIS("[1,2]")), 400, "inputs.target_p99_latency_ms",
     "must be positive"},
    {"sweep: unknown output", "/sweep",
     SWEEP(LLAMA ",\"target_p99_latency_ms\":1000", QPS_AXIS("[1,2]") ",\"outputs\":[\"replicas\"]"), 400,
     "outputs[0]", "unknown output 'replicas'"},
};

Test(serving_api, bad_inputs_name_the_field)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const bad_case *c = &BAD[i];
        http_resp r;
        cr_assert_eq(http_post_json(shared_daemon(), c->path, c->body, &r), 0);
        json_t *j = http_json(&r);
        cr_assert_not_null(j, "%s: not JSON: %.300s", c->name, r.body);
        cr_expect_eq(r.status, c->status, "%s: status %ld: %.300s", c->name, r.status, r.body);
        cr_expect(strstr(r.content_type, "application/problem+json") != NULL, "%s: %s", c->name, r.content_type);
        const char *field = json_string_value(json_object_get(j, "field"));
        const char *detail = json_string_value(json_object_get(j, "detail"));
        cr_expect(field && !strcmp(field, c->field), "%s: field %s, want %s", c->name, field ? field : "(none)",
                  c->field);
        cr_expect(detail && strstr(detail, c->detail), "%s: detail '%s' lacks '%s'", c->name,
                  detail ? detail : "(none)", c->detail);
        json_decref(j);
        http_free(&r);
    }
}

Test(serving_api, query_sweep_names_the_input)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(),
                          "/sweep/serving_capacity?model=Llama3_70B&hardware=B200&qps=1,2&target_p99_latency_ms=0",
                          &r),
                 0);
    json_t *j = http_json(&r);
    cr_assert_not_null(j);
    cr_expect_eq(r.status, 400);
    const char *field = json_string_value(json_object_get(j, "field"));
    cr_expect(field && strstr(field, "target_p99_latency_ms"), "field %s", field ? field : "(none)");
    json_decref(j);
    http_free(&r);
}

/* A sweep's rows carry no trace, and run() skips composing it there
 * (solver_outputs.quiet): every output of every row must still be what /solve
 * answers for that point. */
static void sweep_rows_match_solve(const char *solver, const char *inputs_json, const char *axis_json)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"solver\":\"%s\",\"inputs\":%s,\"axes\":[%s]}", solver, inputs_json, axis_json);
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/sweep", body, &r), 0);
    cr_assert_eq(r.status, 200, "%s: %.300s", solver, r.body);
    json_t *doc = http_json(&r);
    http_free(&r);
    const json_t *cols = json_object_get(doc, "columns");
    const char *axis = json_string_value(json_array_get(cols, 0));
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row) {
        json_error_t je;
        json_t *in = json_loads(inputs_json, 0, &je);
        json_object_set(in, axis, json_array_get(row, 0));
        long status;
        json_t *one = api_post_doc("/solve", json_pack("{s:s,s:o}", "solver", solver, "inputs", in), &status);
        cr_assert_eq(status, 200);
        cr_expect_gt(json_array_size(json_object_get(one, "trace")), 0, "%s: /solve has a trace", solver);
        const json_t *res = json_object_get(one, "result");
        for (size_t c = 1; c + 1 < json_array_size(cols); c++) {
            const char *name = json_string_value(json_array_get(cols, c));
            cr_expect(json_equal(json_array_get(row, c), json_object_get(res, name)), "%s row %zu: %s differs", solver,
                      i, name);
        }
        json_decref(one);
    }
    json_decref(doc);
}

Test(serving_api, sweep_rows_are_the_solve_results_without_their_trace)
{
    sweep_rows_match_solve("serving", "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"seq_len\":4096}",
                           "{\"input\":\"precision\",\"values\":[\"fp16\",\"fp8\"]}");
    sweep_rows_match_solve("serving",
                           "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"seq_len\":4096,\"prefill_chunk_tokens\":512}",
                           "{\"input\":\"batch_size\",\"values\":[1,8]}");
    sweep_rows_match_solve("continuous_batching", "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"seq_len\":4096}",
                           "{\"input\":\"precision\",\"values\":[\"fp16\",\"fp8\"]}");
    sweep_rows_match_solve("weight_streaming", "{\"model\":\"Llama3_70B\",\"hardware\":\"Cerebras_CS3\"}",
                           "{\"input\":\"seq_len\",\"values\":[4096,1000000]}");
    sweep_rows_match_solve("serving_capacity",
                           "{\"model\":\"Llama3_70B\",\"hardware\":\"B200\",\"precision\":\"fp8\",\"seq_len\":4096,"
                           "\"target_p99_latency_ms\":15000}",
                           "{\"input\":\"qps\",\"values\":[1,10,100]}");
}
