/* test_serving_simulation_api.c - serving_simulation on the live daemon
 * (the harness's shared mlsysd), as issue 27 says it will be checked:
 * the low-load equalities with serving, Little's law at a moderate load,
 * P99 TTFT not falling as the arrival rate grows (a /sweep), the same seed
 * giving the same answer and another seed another, 10,000 requests well
 * under a second, the cap as a 413, and measured mode answering. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

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
    cr_expect_lt(dt, 2.0, "a 20-point sweep took %.2f s", dt);
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
    cr_expect_lt(dt, 1.0, "%.3f s", dt);
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
