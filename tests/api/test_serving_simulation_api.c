/* test_serving_simulation_api.c - serving_simulation on the live daemon
 * (the harness's shared mlsysd), as issue 27 says it will be checked:
 * the low-load equalities with serving, Little's law at a moderate load,
 * P99 TTFT not falling as the arrival rate grows (a /sweep), the same seed
 * giving the same answer and another seed another, 10,000 requests well
 * under a second, the cap as a 413, measured mode answering, and a
 * two-objective /optimize over hardware and tp whose front points do not
 * dominate one another. And the
 * explicit request_trace: a trace equal to a draw answers as the draw, byte
 * for byte; bad traces are 400s naming the row and field, too long ones 413s;
 * a trace answers the same through /solve, GET, /batch, /sweep, a plan and
 * `mlsysd solve`. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/request_draw.h"
#include "harness.h"
#include "sanitizer.h"

#define SCENARIO "\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"prompt_tokens\":2048,\"output_tokens\":256"

static json_t *sim(const char *extra, const char *calibration)
{
    char body[1200];
    snprintf(body, sizeof body, "{\"solver\":\"serving_simulation\",\"inputs\":{" SCENARIO "%s%s}%s%s%s}",
             extra[0] ? "," : "", extra, calibration ? ",\"calibration\":\"" : "", calibration ? calibration : "",
             calibration ? "\"" : "");
    return solve_ok(body);
}

static json_t *serving(int seq_len, const char *calibration)
{
    char body[400];
    snprintf(body, sizeof body,
             "{\"solver\":\"serving\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":%d}%s%s%s}",
             seq_len, calibration ? ",\"calibration\":\"" : "", calibration ? calibration : "",
             calibration ? "\"" : "");
    return solve_ok(body);
}

Test(serving_simulation_api, answers_with_percentiles)
{
    json_t *a = sim("\"arrival_rate_qps\":5,\"slo_ttft_ms\":500,\"slo_tpot_ms\":50", NULL);
    const json_t *r = json_object_get(a, "result");
    cr_expect(json_is_true(json_object_get(r, "feasible")));
    static const char *const names[] = {"ttft_mean", "ttft_p50", "ttft_p90", "ttft_p99", "tpot_mean", "tpot_p50",
                                        "tpot_p90", "tpot_p99", "e2e_mean", "e2e_p99", "throughput_rps",
                                        "output_tokens_per_s", "mean_requests_in_system", "goodput_rps",
                                        "kv_utilization_mean", "preemptions", "max_queue_length"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_expect(json_is_number(json_object_get(r, names[i])), "%s", names[i]);
    cr_expect(result_num(a, "ttft_p50") <= result_num(a, "ttft_p90"));
    cr_expect(result_num(a, "ttft_p90") <= result_num(a, "ttft_p99"));
    cr_expect(result_num(a, "goodput_rps") <= result_num(a, "throughput_rps"));
    cr_expect_eq(json_array_size(json_object_get(r, "latency_percentiles")), 6);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(a, "units"), "ttft_p99")), "ms");
    json_decref(a);
}

Test(serving_simulation_api, low_load_equals_serving)
{
    static const char *const modes[] = {NULL, "measured"};
    for (int m = 0; m < 2; m++) {
        json_t *lo = serving(2048, modes[m]), *hi = serving(2048 + 256, modes[m]);
        json_t *a = sim("\"arrival_rate_qps\":0.001,\"num_requests\":50", modes[m]);
        double ttft = result_num(lo, "ttft"), got = result_num(a, "ttft_mean");
        cr_expect(fabs(got - ttft) <= 0.05 * ttft, "%s: ttft_mean %g, serving %g", modes[m] ? modes[m] : "mlsysim",
                  got, ttft);
        double tpot = result_num(a, "tpot_mean");
        cr_expect(tpot >= result_num(lo, "itl") && tpot <= result_num(hi, "itl"), "%s: tpot %g not in [%g, %g]",
                  modes[m] ? modes[m] : "mlsysim", tpot, result_num(lo, "itl"), result_num(hi, "itl"));
        json_decref(lo);
        json_decref(hi);
        json_decref(a);
    }
}

Test(serving_simulation_api, littles_law_at_moderate_load)
{
    json_t *a = sim("\"arrival_rate_qps\":6,\"output_distribution\":\"exponential\",\"num_requests\":10000", NULL);
    double l = result_num(a, "mean_requests_in_system");
    double xw = result_num(a, "throughput_rps") * result_num(a, "e2e_mean") / 1e3;
    cr_expect(fabs(l - xw) <= 0.1 * l, "L = %g, X W = %g", l, xw);
    json_decref(a);
}

Test(serving_simulation_api, p99_ttft_does_not_fall_as_load_grows)
{
    long status;
    double t0 = now_s();
    json_t *doc = api_post("/sweep",
                           "{\"solver\":\"serving_simulation\",\"inputs\":{" SCENARIO
                           ",\"output_distribution\":\"exponential\",\"num_requests\":1000},"
                           "\"axes\":[{\"input\":\"arrival_rate_qps\",\"values\":[0.75,1.5,2.25,3,3.75,4.5,5.25,6,"
                           "6.75,7.5,8.25,9,9.75,10.5,11.25,12,12.75,13.5,14.25,15]}],\"outputs\":[\"ttft_p99\",\"throughput_rps\"]}",
                           &status);
    double dt = now_s() - t0;
    cr_assert_eq(status, 200);
    const json_t *rows = json_object_get(doc, "rows");
    cr_assert_eq(json_array_size(rows), 20);
    double prev = 0;
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        double p99 = json_number_value(json_array_get(row, 1));
        cr_expect_geq(p99, prev, "rate %g: p99 ttft %g < %g", json_number_value(json_array_get(row, 0)), p99, prev);
        prev = p99;
    }
#ifndef UNDER_ASAN /* a speed bound: the instrumented build is several times slower */
    cr_expect_lt(dt, 2.0, "a 20-point sweep took %.2f s", dt);
#else
    (void)dt;
#endif
    json_decref(doc);
}

Test(serving_simulation_api, seeds)
{
    json_t *a = sim("\"arrival_rate_qps\":8,\"seed\":11,\"output_distribution\":\"lognormal\"", NULL);
    json_t *b = sim("\"arrival_rate_qps\":8,\"seed\":11,\"output_distribution\":\"lognormal\"", NULL);
    json_t *c = sim("\"arrival_rate_qps\":8,\"seed\":12,\"output_distribution\":\"lognormal\"", NULL);
    char *ta = json_dumps(json_object_get(a, "result"), JSON_COMPACT);
    char *tb = json_dumps(json_object_get(b, "result"), JSON_COMPACT);
    cr_expect_str_eq(ta, tb, "the same seed, byte for byte");
    cr_expect(!json_equal(json_object_get(a, "result"), json_object_get(c, "result")), "another seed");
    free(ta);
    free(tb);
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

Test(serving_simulation_api, ten_thousand_requests_well_under_a_second)
{
    double t0 = now_s();
    json_t *a = sim("\"arrival_rate_qps\":8,\"output_distribution\":\"exponential\",\"num_requests\":10000", NULL);
    double dt = now_s() - t0;
#ifndef UNDER_ASAN /* a speed bound: the instrumented build is several times slower */
    cr_expect_lt(dt, 1.0, "%.3f s", dt);
#else
    (void)dt;
#endif
    json_decref(a);
}

Test(serving_simulation_api, over_the_cap_is_413)
{
    long status;
    json_t *doc = api_post("/solve",
                           "{\"solver\":\"serving_simulation\",\"inputs\":{" SCENARIO
                           ",\"arrival_rate_qps\":1,\"num_requests\":20001}}",
                           &status);
    expect_refusal(doc, status, 413, "inputs.num_requests", "cap");
    json_decref(doc);
}

Test(serving_simulation_api, measured_mode_prices_iterations_its_way)
{
    json_t *a = sim("\"arrival_rate_qps\":5", NULL), *b = sim("\"arrival_rate_qps\":5", "measured");
    cr_expect_str_eq(json_string_value(json_object_get(b, "calibration")), "measured");
    cr_expect(result_num(a, "tpot_mean") != result_num(b, "tpot_mean"));
    json_decref(a);
    json_decref(b);
}

/* The trace of what a draw of n requests draws: rows with arrival times at
 * 17 significant digits (they read back as the same doubles). malloc'd. */
static char *trace_of_draw(const request_draw_spec *spec, int n)
{
    size_t cap = (size_t)n * 96 + 16, used = 0;
    char *t = malloc(cap);
    cr_assert(t);
    request_drawer d;
    request_draw_init(&d, spec);
    used += (size_t)snprintf(t, cap, "[");
    for (int i = 0; i < n; i++) {
        double a;
        int p, o;
        request_draw_next(&d, &a, &p, &o);
        used += (size_t)snprintf(t + used, cap - used, "%s{\"arrival_s\":%.17g,\"prompt_tokens\":%d,\"output_tokens\":%d}",
                                 i ? "," : "", a, p, o);
    }
    snprintf(t + used, cap - used, "]");
    return t;
}

static char *trace_body(const char *trace, const char *extra)
{
    size_t n = strlen(trace) + 512;
    char *b = malloc(n);
    cr_assert(b);
    snprintf(b, n,
             "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\","
             "\"request_trace\":%s%s}}",
             trace, extra);
    return b;
}

/* Everything of an answer but its inputs echo, as text (keys sorted). */
static char *answer_text(json_t *a)
{
    json_object_del(a, "inputs");
    char *t = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
    cr_assert(t);
    return t;
}

Test(serving_simulation_api, a_trace_equal_to_a_draw_answers_as_the_draw)
{
    static const struct {
        const char *draw;
        request_draw_spec spec;
    } CASES[] = {
        {"\"arrival_rate_qps\":8,\"output_distribution\":\"exponential\",\"num_requests\":2000,\"seed\":5",
         {.rate = 8, .prompt_dist = LEN_FIXED, .output_dist = LEN_EXP, .prompt_mean = 2048, .output_mean = 256,
          .length_cv = 0.5, .seed = 5}},
        {"\"arrival_rate_qps\":11,\"arrival_process\":\"gamma\",\"arrival_cv\":2,\"prompt_distribution\":"
         "\"lognormal\",\"output_distribution\":\"uniform\",\"length_cv\":0.3,\"num_requests\":500,\"seed\":9",
         {.rate = 11, .gamma = true, .arrival_cv = 2, .prompt_dist = LEN_LOGNORMAL, .output_dist = LEN_UNIFORM,
          .prompt_mean = 2048, .output_mean = 256, .length_cv = 0.3, .seed = 9}},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        int n = strstr(CASES[c].draw, "2000") ? 2000 : 500;
        char *trace = trace_of_draw(&CASES[c].spec, n);
        char *body = trace_body(trace, "");
        json_t *traced = solve_ok(body), *drawn = sim(CASES[c].draw, NULL);
        /* the trace line says where the requests came from; the rest is the same */
        json_t *tt = json_object_get(traced, "trace"), *dt = json_object_get(drawn, "trace");
        cr_expect(strstr(json_string_value(json_array_get(tt, 1)), "from request_trace"), "%s",
                  json_string_value(json_array_get(tt, 1)));
        json_array_remove(tt, 1);
        json_array_remove(dt, 1);
        /* a warning that the servers fall behind states the offered rate: the
         * draw's arrival_rate_qps, the trace's rows over its span */
        cr_expect_eq(json_array_size(json_object_get(traced, "warnings")),
                     json_array_size(json_object_get(drawn, "warnings")));
        json_object_del(traced, "warnings");
        json_object_del(drawn, "warnings");
        char *a = answer_text(traced), *b = answer_text(drawn);
        cr_expect_str_eq(a, b, "case %zu: the trace of the draw answers otherwise", c);
        free(a);
        free(b);
        free(trace);
        free(body);
        json_decref(traced);
        json_decref(drawn);
    }
}

Test(serving_simulation_api, bad_traces_name_the_row_and_field)
{
    static const struct {
        const char *trace, *extra, *field, *detail;
        long status;
    } CASES[] = {
        {"[{\"arrival_s\":1,\"prompt_tokens\":20,\"output_tokens\":2},{\"arrival_s\":0.5,\"prompt_tokens\":20,"
         "\"output_tokens\":2}]",
         "", "inputs.request_trace[1].arrival_s", "sorted", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":2},{\"arrival_s\":1,\"prompt_tokens\":20}]", "",
         "inputs.request_trace[1].output_tokens", "no output_tokens", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":2,\"priority\":1}]", "",
         "inputs.request_trace[0].priority", "unknown field", 400},
        {"[{\"arrival_s\":-1,\"prompt_tokens\":20,\"output_tokens\":2}]", "", "inputs.request_trace[0].arrival_s",
         "must be in", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":2.5,\"output_tokens\":2}]", "", "inputs.request_trace[0].prompt_tokens",
         "whole number", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":0}]", "", "inputs.request_trace[0].output_tokens",
         "must be in", 400},
        {"[{\"arrival_s\":\"0 s\",\"prompt_tokens\":20,\"output_tokens\":2}]", "", "inputs.request_trace[0].arrival_s",
         "must be a number", 400},
        {"[[0,20,2]]", "", "inputs.request_trace[0]", "must be an object", 400},
        {"{\"arrival_s\":0}", "", "inputs.request_trace", "must be an array", 400},
        {"[]", "", "inputs.request_trace", "at least one row", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":2}]", ",\"arrival_rate_qps\":3",
         "inputs.arrival_rate_qps", "one or the other", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":2}]", ",\"seed\":3", "inputs.seed",
         "one or the other", 400},
        {"[{\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":2}]", ",\"warmup_requests\":1",
         "inputs.warmup_requests", "rows of request_trace", 400},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        char *body = trace_body(CASES[c].trace, CASES[c].extra);
        long status;
        json_t *doc = api_post("/solve", body, &status);
        expect_refusal(doc, status, CASES[c].status, CASES[c].field, CASES[c].detail);
        json_decref(doc);
        free(body);
    }
    /* without a trace, the draw's inputs are required */
    long status;
    json_t *doc = api_post("/solve",
                           "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":"
                           "\"H100\",\"prompt_tokens\":20,\"output_tokens\":2}}",
                           &status);
    expect_refusal(doc, status, 400, "inputs.arrival_rate_qps", "request_trace");
    json_decref(doc);
}

Test(serving_simulation_api, a_trace_over_the_cap_is_413)
{
    /* 20001 rows of the shortest text fit the 1 MiB body limit */
    const char row[] = "{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1}";
    size_t cap = 20001 * sizeof row + 16, used = 1;
    char *trace = malloc(cap);
    cr_assert(trace);
    trace[0] = '[';
    for (int i = 0; i < 20001; i++)
        used += (size_t)snprintf(trace + used, cap - used, "%s%s", i ? "," : "", row);
    snprintf(trace + used, cap - used, "]");
    char *body = trace_body(trace, "");
    long status;
    json_t *doc = api_post("/solve", body, &status);
    expect_refusal(doc, status, 413, "inputs.request_trace", "cap of 20000");
    json_decref(doc);
    free(body);
    free(trace);
}

#define SMALL_TRACE                                                                                                   \
    "[{\"arrival_s\":0,\"prompt_tokens\":2048,\"output_tokens\":64},{\"arrival_s\":0.05,\"prompt_tokens\":512,"     \
    "\"output_tokens\":128},{\"arrival_s\":0.05,\"prompt_tokens\":4096,\"output_tokens\":16},{\"arrival_s\":0.3,"  \
    "\"prompt_tokens\":100,\"output_tokens\":300}]"

/* The one answer through every door: GET, /batch, /sweep, a plan, the CLI. */
Test(serving_simulation_api, a_trace_answers_alike_through_every_route, .timeout = 60)
{
    char *body = trace_body(SMALL_TRACE, "");
    json_t *one = solve_ok(body);
    const json_t *want = json_object_get(one, "result");
    cr_assert(json_is_true(json_object_get(want, "feasible")));
    cr_expect_eq(json_integer_value(json_object_get(want, "measured_requests")), 4);
    cr_expect_eq(json_array_size(json_object_get(json_object_get(one, "inputs"), "request_trace")), 4,
                 "the answer echoes the trace");
    /* the inputs of a draw, which the trace replaces, are not echoed with their defaults */
    static const char *const DRAW[] = {"arrival_rate_qps", "arrival_process", "arrival_cv", "prompt_tokens",
                                       "prompt_distribution", "output_tokens", "output_distribution", "length_cv",
                                       "num_requests", "seed"};
    for (size_t k = 0; k < sizeof DRAW / sizeof DRAW[0]; k++)
        cr_expect_null(json_object_get(json_object_get(one, "inputs"), DRAW[k]), "the echo shows %s", DRAW[k]);
    cr_expect_not_null(json_object_get(json_object_get(one, "inputs"), "max_num_seqs"), "the other defaults are echoed");
    /* and /solvers says so */
    json_t *desc = api_get_ok("/solvers/serving_simulation");
    size_t di;
    json_t *d;
    int replaced = 0;
    json_array_foreach(json_object_get(desc, "inputs"), di, d) {
        const char *by = json_string_value(json_object_get(d, "replaced_by"));
        if (by) {
            cr_expect_str_eq(by, "request_trace");
            replaced++;
        }
    }
    cr_expect_eq(replaced, (int)(sizeof DRAW / sizeof DRAW[0]), "%d inputs replaced_by request_trace", replaced);
    json_decref(desc);

    /* GET: the trace as JSON text in the query */
    char *q = curl_easy_escape(NULL, SMALL_TRACE, 0);
    char path[1200];
    snprintf(path, sizeof path, "/solve/serving_simulation?model=Llama3_8B&hardware=H100&request_trace=%s", q);
    curl_free(q);
    json_t *got = api_get_ok(path);
    cr_expect(json_equal(json_object_get(got, "result"), want), "GET differs from POST");
    json_decref(got);

    /* /batch */
    size_t n = strlen(body) + 64;
    char *batch = malloc(n);
    snprintf(batch, n, "{\"items\":[%s]}", body);
    long status;
    got = api_post("/batch", batch, &status);
    cr_expect_eq(status, 200);
    const json_t *item = json_array_get(json_object_get(got, "items"), 0);
    cr_expect(json_equal(json_object_get(json_object_get(item, "response"), "result"), want), "/batch differs");
    json_decref(got);
    free(batch);

    /* /sweep over hardware: the H100 row is /solve's */
    got = api_post("/sweep",
                   "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"request_trace\":" SMALL_TRACE
                   "},\"axes\":[{\"input\":\"hardware\",\"values\":[\"A100\",\"H100\"]}],\"outputs\":[\"ttft_p99\"]}",
                   &status);
    cr_expect_eq(status, 200);
    cr_expect_eq(json_real_value(json_array_get(json_array_get(json_object_get(got, "rows"), 1), 1)),
                 json_real_value(json_object_get(want, "ttft_p99")));
    json_decref(got);
    /* ... and never over the trace itself */
    got = api_post("/sweep",
                   "{\"solver\":\"serving_simulation\",\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\"},"
                   "\"axes\":[{\"input\":\"request_trace\",\"values\":[" SMALL_TRACE "]}]}",
                   &status);
    expect_refusal(got, status, 400, "axes[0].input", "list of rows");
    json_decref(got);

    /* a plan asserting on the answer */
    char plan[1600];
    snprintf(plan, sizeof plan,
             "{\"version\":\"1\",\"name\":\"traced\",\"scenarios\":[{\"name\":\"t\",\"solver\":\"serving_simulation\","
             "\"inputs\":{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"request_trace\":" SMALL_TRACE "},"
             "\"assert\":[{\"output\":\"ttft_p99\",\"==\":%.17g}]}]}",
             json_real_value(json_object_get(want, "ttft_p99")));
    got = api_post("/evaluate", plan, &status);
    cr_expect_eq(status, 200, "plan: %ld", status);
    cr_expect_str_eq(str_at(got, "status"), "pass");
    json_decref(got);

    /* mlsysd solve < request */
    char in[] = "/tmp/mlsysd-trace-in-XXXXXX";
    int fd = mkstemp(in);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, body, strlen(body)), (ssize_t)strlen(body));
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' solve < %s", MLSYSD_BINARY, in);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, p)) > 0)
        fwrite(buf, 1, k, mem);
    fclose(mem);
    cr_expect_eq(pclose(p), 0);
    unlink(in);
    got = json_loads(out, 0, NULL);
    cr_assert(got, "mlsysd solve: %.300s", out);
    cr_expect(json_equal(json_object_get(got, "result"), want), "mlsysd solve differs");
    json_decref(got);
    free(out);
    free(body);
    json_decref(one);
}

/* Issue 27's two-objective /optimize over hardware and tp: P99 TTFT against
 * the accelerators per replica. No point of the front dominates another, and
 * each carries /solve's answer at its point. */
Test(serving_simulation_api, the_slo_front_over_hardware_and_tp_is_non_dominated, .timeout = 60)
{
#define FRONT_INPUTS                                                                                                  \
    "\"model\":\"Llama3_70B\",\"precision\":\"fp8\",\"arrival_rate_qps\":4,\"prompt_tokens\":2048,"                  \
    "\"output_tokens\":256,\"num_requests\":500"
    long st;
    json_t *ans = api_post("/optimize",
                           "{\"solver\":\"serving_simulation\",\"inputs\":{" FRONT_INPUTS "},\"axes\":[{\"input\":"
                           "\"hardware\",\"values\":[\"H100\",\"MI300X\",\"A100\",\"H200\"]},{\"input\":\"tp\","
                           "\"values\":[2,4,8]}],\"constraints\":[{\"output\":\"feasible\",\"==\":true}],"
                           "\"objectives\":[{\"minimize\":\"ttft_p99\"},{\"minimize\":\"tp\"}]}",
                           &st);
    cr_assert_eq(st, 200);
    const json_t *front = json_object_get(ans, "pareto");
    cr_assert(json_array_size(front) >= 2, "a front of %zu points", json_array_size(front));
    size_t i, j;
    json_t *a, *b;
    json_array_foreach(front, i, a) {
        const json_t *oa = json_object_get(a, "objectives");
        double at = json_number_value(json_object_get(oa, "ttft_p99")), ap = json_number_value(json_object_get(oa, "tp"));
        json_array_foreach(front, j, b) {
            const json_t *ob = json_object_get(b, "objectives");
            double bt = json_number_value(json_object_get(ob, "ttft_p99")), bp = json_number_value(json_object_get(ob, "tp"));
            cr_expect(i == j || !(at <= bt && ap <= bp && (at < bt || ap < bp)), "front point %zu dominates %zu", i, j);
        }
        const json_t *point = json_object_get(a, "point");
        char body[600];
        snprintf(body, sizeof body,
                 "{\"solver\":\"serving_simulation\",\"inputs\":{" FRONT_INPUTS ",\"hardware\":\"%s\",\"tp\":%lld}}",
                 json_string_value(json_object_get(point, "hardware")),
                 (long long)json_integer_value(json_object_get(point, "tp")));
        json_t *solve = solve_ok(body);
        cr_expect(json_equal(json_object_get(json_object_get(a, "answer"), "result"), json_object_get(solve, "result")),
                  "front point %zu: its answer differs from /solve", i);
        json_decref(solve);
    }
    json_decref(ans);
#undef FRONT_INPUTS
}
