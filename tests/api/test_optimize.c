/* test_optimize.c - POST /optimize against the real daemon: bisection gives
 * the exhaustive answer for every monotone entry of the solvers' descriptors
 * (whose premise is checked here too, on a dense /sweep); an exhaustive
 * search over several axes matches a brute force over the /sweep rows; the
 * binding constraint, infeasible spaces, failing points, `mlsysd optimize`,
 * and bad requests as 400 problems naming the field. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/solver.h"
#include "harness.h"

static json_t *post(const char *path, const char *body, long want)
{
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), path, body, &r), 0);
    cr_assert_eq(r.status, want, "%s %ld: %.400s\nbody: %.300s", path, r.status, r.body, body);
    json_t *j = http_json(&r);
    if (!j) {
        /* NDJSON: an array of its lines */
        j = json_array();
        char *text = strndup(r.body, r.len);
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            json_array_append_new(j, json_loads(line, 0, NULL));
        free(text);
    }
    http_free(&r);
    return j;
}

/* One table entry: solver, the contexts it is checked in (fixed inputs as JSON; none: the
 * single_node grid below), the axis, the output and its direction. */
typedef struct {
    const char *solver;
    const char *contexts[3];
    const char *input, *output;
    int dir;
} entry;

static const char *const MODELS[] = {"ResNet50", "BERT_Base", "Llama3_8B"};
static const char *const HW[] = {"T4", "A100", "H100"};
static const char *const PREC[] = {"fp32", "fp16", "int8"};

/* Output values along batch 1..n of one context, from /sweep. */
static json_t *along(const entry *e, const char *inputs, int n)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"solver\":\"%s\",\"inputs\":%s,\"format\":\"ndjson\",\"outputs\":[\"%s\"],"
             "\"axes\":[{\"input\":\"%s\",\"range\":{\"start\":1,\"stop\":%d,\"step\":1}}]}",
             e->solver, inputs, e->output, e->input, n);
    json_t *lines = post("/sweep", body, 200);
    cr_assert(json_object_get(json_array_get(lines, 0), "units"), "the first NDJSON line gives the units");
    json_array_remove(lines, 0);
    return lines;
}

static void same_answer(const char *body_bisect, const char *body_exh, const char *what)
{
    json_t *b = post("/optimize", body_bisect, 200), *x = post("/optimize", body_exh, 200);
    cr_expect_str_eq(json_string_value(json_object_get(b, "method")), "bisection", "%s: %s", what,
                     json_string_value(json_object_get(b, "method_reason")));
    cr_expect_str_eq(json_string_value(json_object_get(x, "method")), "exhaustive");
    const char *keys[] = {"best", "runners_up", "feasible", "points"};
    for (size_t i = 0; i < 4; i++) {
        char *sb = json_dumps(json_object_get(b, keys[i]), JSON_COMPACT | JSON_ENCODE_ANY);
        char *sx = json_dumps(json_object_get(x, keys[i]), JSON_COMPACT | JSON_ENCODE_ANY);
        cr_expect(json_equal(json_object_get(b, keys[i]), json_object_get(x, keys[i])),
                  "%s: %s differs\n bisection:  %.600s\n exhaustive: %.600s", what, keys[i], sb, sx);
        free(sb);
        free(sx);
    }
    long long n = json_integer_value(json_object_get(x, "points"));
    long long ev = json_integer_value(json_object_get(b, "evaluated"));
    cr_expect(ev <= (long long)ceil(log2((double)n)) + 1, "%s: bisection evaluated %lld of %lld points", what, ev, n);
    json_decref(b);
    json_decref(x);
}

/* Every (solver, input, output) the descriptors list as monotone: the output
 * is monotone along the input, and bisection = exhaustive at thresholds that
 * cut the axis in several places, for both objectives. */
#define TRANSFORM "{\"sample_size_bytes\":\"500 KB\",\"cpu_throughput\":\"2 GB/s\",\"accelerator_step_time\":\"7.24 ms\"}"
#define FLEET_DAY "{\"fleet\":\"Research_256\",\"job_duration_hours\":24}"
#define FLEET_MONTH "{\"fleet\":\"Research_256\",\"job_duration_hours\":720}"
#define SERVE_8B "{\"model\":\"Llama3_8B\",\"hardware\":\"H100\",\"seq_len\":2048}"
#define SERVE_70B "{\"model\":\"Llama3_70B\",\"hardware\":\"A100\",\"seq_len\":8192,\"precision\":\"int8\"}"
#define TRAIN_GPT2 "{\"model\":\"GPT2\",\"hardware\":\"H100\"}"
#define TRAIN_8B "{\"model\":\"Llama3_8B\",\"hardware\":\"MI300X\",\"seq_len\":512}"
#define PIPE_A100 "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"sample_size_bytes\":\"500 KB\",\"cpu_throughput\":\"2 GB/s\"}"
#define PIPE_H100 "{\"model\":\"ResNet50\",\"hardware\":\"H100\",\"sample_size_bytes\":\"150 KB\",\"cpu_throughput\":\"20 GB/s\"}"

static const entry ENTRIES[] = {
    {"single_node", {NULL}, "batch_size", "latency", +1},
    {"single_node", {NULL}, "batch_size", "throughput", +1},
    {"single_node", {NULL}, "batch_size", "memory_footprint", +1},
    {"single_node", {NULL}, "batch_size", "feasible", -1},
    {"transformation", {TRANSFORM}, "batch_size", "transform_time", +1},
    {"reliability", {FLEET_DAY, FLEET_MONTH}, "fleet.count", "fleet_mtbf", -1},
    {"reliability", {FLEET_DAY, FLEET_MONTH}, "fleet.count", "failure_probability", +1},
    {"reliability", {FLEET_DAY, FLEET_MONTH}, "fleet.count", "expected_failures", +1},
    {"serving", {SERVE_8B, SERVE_70B}, "batch_size", "ttft", +1},
    {"serving", {SERVE_8B, SERVE_70B}, "batch_size", "itl", +1},
    {"serving", {SERVE_8B, SERVE_70B}, "batch_size", "kv_cache", +1},
    {"serving", {SERVE_8B, SERVE_70B}, "batch_size", "total_memory", +1},
    {"serving", {SERVE_8B, SERVE_70B}, "batch_size", "memory_utilization", +1},
    {"serving", {SERVE_8B, SERVE_70B}, "batch_size", "feasible", -1},
    {"training_memory", {TRAIN_GPT2, TRAIN_8B}, "batch_size", "total_memory", +1},
    {"training_memory", {TRAIN_GPT2, TRAIN_8B}, "batch_size", "activations", +1},
    {"training_memory", {TRAIN_GPT2, TRAIN_8B}, "batch_size", "memory_utilization", +1},
    {"training_memory", {TRAIN_GPT2, TRAIN_8B}, "batch_size", "feasible", -1},
    {"pipeline", {PIPE_A100, PIPE_H100}, "batch_size", "step_time", +1},
    {"pipeline", {PIPE_A100, PIPE_H100}, "batch_size", "transform_time", +1},
    {"pipeline", {PIPE_A100, PIPE_H100}, "batch_size", "accelerator_step_time", +1},
    {"data", {"{\"hardware\":\"A100\"}", "{\"hardware\":\"H100\"}"}, "workload_data_rate", "utilization", +1},
    {"data", {"{\"hardware\":\"A100\"}", "{\"hardware\":\"H100\"}"}, "workload_data_rate", "demand_bw", +1},
    {"data", {"{\"hardware\":\"A100\"}", "{\"hardware\":\"H100\"}"}, "workload_data_rate", "margin", -1},
    {"data", {"{\"hardware\":\"A100\"}", "{\"hardware\":\"H100\"}"}, "workload_data_rate", "is_stalled", +1},
};

static void check_entry(const entry *e, const char *inputs, const char *ctx)
{
    enum { N = 2048 };
    json_t *rows = along(e, inputs, N);
    cr_assert_eq(json_array_size(rows), N, "%s", ctx);
    /* the premise */
    double prev = NAN;
    for (size_t i = 0; i < N; i++) {
        const json_t *v = json_object_get(json_array_get(rows, i), e->output);
        double x = json_is_boolean(v) ? json_is_true(v) : json_number_value(v);
        cr_assert(json_is_boolean(v) || json_is_number(v), "%s: %s at %zu is %s", ctx, e->output, i + 1,
                  json_dumps(v, JSON_ENCODE_ANY));
        if (i)
            cr_assert(e->dir > 0 ? x >= prev : x <= prev, "%s: %s is not monotone (%g then %g at batch %zu)", ctx,
                      e->output, prev, x, i + 1);
        prev = x;
    }
    /* thresholds: booleans as both values; numbers between the values at a few batch sizes */
    char bounds[4][64];
    int nb = 0;
    const json_t *first = json_object_get(json_array_get(rows, 0), e->output);
    if (json_is_boolean(first)) {
        snprintf(bounds[nb++], sizeof bounds[0], "\"==\":true");
        snprintf(bounds[nb++], sizeof bounds[0], "\"==\":false");
    } else {
        static const size_t at[] = {0, 7, 200, N - 1};
        for (int i = 0; i < 3; i++) {
            double lo = json_number_value(json_object_get(json_array_get(rows, at[i]), e->output));
            double hi = json_number_value(json_object_get(json_array_get(rows, at[i + 1]), e->output));
            snprintf(bounds[nb++], sizeof bounds[0], "\"%s\":%.17g", i % 2 ? ">=" : "<=", (lo + hi) / 2);
        }
    }
    json_decref(rows);
    for (int k = 0; k < nb; k++)
        for (int m = 0; m < 2; m++) {
            char bodies[2][1024], what[512];
            for (int ex = 0; ex < 2; ex++)
                snprintf(bodies[ex], sizeof bodies[ex],
                         "{\"solver\":\"%s\",\"inputs\":%s,\"axes\":[{\"input\":\"%s\",\"range\":{\"start\":1,"
                         "\"stop\":%d,\"step\":1}}],\"constraints\":[{\"output\":\"%s\",%s}],"
                         "\"objective\":{\"%s\":\"%s\"},\"top_k\":3%s}",
                         e->solver, inputs, e->input, N, e->output, bounds[k], m ? "minimize" : "maximize", e->input,
                         ex ? ",\"method\":\"exhaustive\"" : "");
            snprintf(what, sizeof what, "%s, %s %s, %s", ctx, e->output, bounds[k], m ? "minimize" : "maximize");
            same_answer(bodies[0], bodies[1], what);
        }
}

Test(optimize, bisection_equals_exhaustive_on_every_monotone_entry, .timeout = 300)
{
    for (size_t i = 0; i < sizeof ENTRIES / sizeof *ENTRIES; i++) {
        const entry *e = &ENTRIES[i];
        if (e->contexts[0]) {
            for (int c = 0; c < 3 && e->contexts[c]; c++)
                check_entry(e, e->contexts[c], e->solver);
            continue;
        }
        for (size_t m = 0; m < 3; m++)
            for (size_t h = 0; h < 3; h++)
                for (size_t p = 0; p < 3; p += 2) {
                    char inputs[256], ctx[128];
                    snprintf(inputs, sizeof inputs, "{\"model\":\"%s\",\"hardware\":\"%s\",\"precision\":\"%s\"}",
                             MODELS[m], HW[h], PREC[p]);
                    snprintf(ctx, sizeof ctx, "%s %s %s %s", e->solver, MODELS[m], HW[h], PREC[p]);
                    check_entry(e, inputs, ctx);
                }
    }
}

/* Every monotone entry of every solver's descriptor (solver_desc.monotone)
 * has its check above: a new entry needs one. */
Test(optimize, every_monotone_entry_is_checked)
{
    int entries = 0;
    for (size_t k = 0; k < solver_count(); k++) {
        const solver_desc *s = solver_at(k);
        for (const monotone_desc *m = s->monotone; m && m->input; m++) {
            entries++;
            bool found = false;
            for (size_t i = 0; i < sizeof ENTRIES / sizeof *ENTRIES; i++)
                found |= !strcmp(ENTRIES[i].solver, s->name) && !strcmp(ENTRIES[i].input, m->input) &&
                         !strcmp(ENTRIES[i].output, m->output) && ENTRIES[i].dir == m->dir;
            cr_expect(found, "%s's descriptor lists %s %s %+d as monotone, which no test checks", s->name, m->input,
                      m->output, m->dir);
        }
    }
    cr_expect_eq((size_t)entries, sizeof ENTRIES / sizeof *ENTRIES, "the descriptors have %d monotone entries, the test %zu",
                 entries, sizeof ENTRIES / sizeof *ENTRIES);
}

/* The largest fleet whose MTBF stays over a day: a record member as the objective, searched
 * by bisection (fleet_mtbf is on record as monotone in fleet.count) and exhaustively alike. */
Test(optimize, record_member_axis_objective)
{
    const char *fmt = "{\"solver\":\"reliability\",\"inputs\":{\"fleet\":\"Research_256\",\"job_duration_hours\":24},"
                      "\"axes\":[{\"input\":\"fleet.count\",\"values\":[8,16,32,64,128,256,512,1024]}],"
                      "\"constraints\":[{\"output\":\"fleet_mtbf\",\">=\":\"1 day\"}],"
                      "\"objective\":{\"maximize\":\"fleet.count\"}%s}";
    char b1[600], b2[600];
    snprintf(b1, sizeof b1, fmt, "");
    snprintf(b2, sizeof b2, fmt, ",\"method\":\"exhaustive\"");
    json_t *o = post("/optimize", b1, 200), *x = post("/optimize", b2, 200);
    cr_expect_str_eq(json_string_value(json_object_get(o, "method")), "bisection", "%s",
                     json_string_value(json_object_get(o, "method_reason")));
    cr_expect(json_equal(json_object_get(o, "best"), json_object_get(x, "best")));
    const json_t *best = json_object_get(o, "best");
    long long count = json_integer_value(json_object_get(json_object_get(best, "point"), "fleet.count"));
    double mtbf = json_number_value(json_object_get(json_object_get(json_object_get(best, "answer"), "result"), "fleet_mtbf"));
    cr_expect_geq(mtbf, 24, "the best meets the constraint");
    const json_t *b0 = json_array_get(json_object_get(best, "binding"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(b0, "output")), "fleet_mtbf");
    cr_expect_lt(json_number_value(json_object_get(b0, "value_next")), 24, "the next count breaks it");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(best, "next_point"), "fleet.count")), 2 * count);
    json_decref(o);
    json_decref(x);
}

/* The request timeout cuts an exhaustive search off: the answer covers the points evaluated. */
Test(optimize, request_timeout_cuts_the_search_off, .timeout = 60)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, (const char *const[]){"--request-timeout", "0.01", NULL}, NULL), 0);
    http_resp r;
    cr_assert_eq(http_post_json(&d, "/optimize",
                                "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                                "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1000000,\"step\":1}}],"
                                "\"objective\":{\"minimize\":\"latency\"},\"method\":\"exhaustive\"}",
                                &r),
                 0);
    cr_expect_eq(r.status, 200);
    json_t *o = http_json(&r);
    cr_expect(strstr(json_string_value(json_object_get(o, "error")), "request timeout"), "%.300s", r.body);
    long long ev = json_integer_value(json_object_get(o, "evaluated"));
    cr_expect(ev > 0 && ev < 1000000, "evaluated %lld", ev);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(o, "best"), "point"), "batch_size")), 1);
    json_decref(o);
    http_free(&r);
    cr_expect_eq(daemon_stop(&d), 0);
}

/* An exhaustive search over three axes is a brute force over the /sweep rows. */
Test(optimize, exhaustive_matches_a_brute_force_over_the_sweep, .timeout = 60)
{
    const char *space = "\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\"},"
                        "\"axes\":[{\"input\":\"hardware\",\"values\":[\"T4\",\"A100\",\"H100\",\"MI300X\"]},"
                        "{\"input\":\"precision\",\"values\":[\"fp32\",\"fp16\",\"int8\"]},"
                        "{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":64,\"step\":1}}]";
    char body[1024];
    snprintf(body, sizeof body,
             "{%s,\"constraints\":[{\"output\":\"feasible\",\"==\":true},{\"output\":\"latency\",\"<=\":\"5 ms\"},"
             "{\"output\":\"bottleneck\",\"==\":\"Compute\"}],\"objective\":{\"maximize\":\"throughput\"},\"top_k\":4}",
             space);
    json_t *o = post("/optimize", body, 200);
    snprintf(body, sizeof body, "{%s,\"format\":\"ndjson\"}", space);
    json_t *rows = post("/sweep", body, 200);
    /* the brute force: best four by throughput, ties by row order */
    size_t best[4];
    int nb = 0;
    long long feasible = 0;
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const char *bn = json_string_value(json_object_get(row, "bottleneck"));
        if (!json_is_true(json_object_get(row, "feasible")) || !bn || strcmp(bn, "Compute") ||
            !(json_number_value(json_object_get(row, "latency")) <= 5))
            continue;
        feasible++;
        double t = json_number_value(json_object_get(row, "throughput"));
        int k = nb < 4 ? nb++ : 4;
        while (k > 0 && t > json_number_value(json_object_get(json_array_get(rows, best[k - 1]), "throughput"))) {
            if (k < 4)
                best[k] = best[k - 1];
            k--;
        }
        if (k < 4)
            best[k] = i;
    }
    cr_assert(nb == 4, "the space has 4 feasible points");
    cr_expect_eq(json_integer_value(json_object_get(o, "feasible")), feasible);
    cr_expect_eq(json_integer_value(json_object_get(o, "evaluated")), 4 * 3 * 64);
    cr_expect_str_eq(json_string_value(json_object_get(o, "method")), "exhaustive");
    for (int k = 0; k < 4; k++) {
        const json_t *got = k ? json_array_get(json_object_get(o, "runners_up"), (size_t)k - 1) : json_object_get(o, "best");
        const json_t *want = json_array_get(rows, best[k]);
        const json_t *pt = json_object_get(got, "point");
        cr_expect_str_eq(json_string_value(json_object_get(pt, "hardware")),
                         json_string_value(json_object_get(want, "hardware")), "rank %d", k + 1);
        cr_expect_str_eq(json_string_value(json_object_get(pt, "precision")),
                         json_string_value(json_object_get(want, "precision")), "rank %d", k + 1);
        cr_expect(json_equal(json_object_get(pt, "batch_size"), json_object_get(want, "batch_size")), "rank %d", k + 1);
        cr_expect_eq(json_number_value(json_object_get(got, "objective")),
                     json_number_value(json_object_get(want, "throughput")), "rank %d", k + 1);
        /* the answer is the /solve answer at that point */
        const json_t *res = json_object_get(json_object_get(got, "answer"), "result");
        cr_expect_eq(json_number_value(json_object_get(res, "latency")), json_number_value(json_object_get(want, "latency")));
        cr_expect_eq(json_integer_value(json_object_get(got, "rank")), k + 1);
    }
    /* an output objective: the binding constraint is the tightest inequality */
    const json_t *bind = json_object_get(json_object_get(o, "best"), "binding");
    cr_expect_eq(json_array_size(bind), 1);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(bind, 0), "output")), "latency");
    json_decref(rows);
    json_decref(o);
}

Test(optimize, binding_constraint_and_its_neighbour)
{
    /* ResNet50 on A100 at fp16: latency at batch 180 is 9.977 ms, at 181 10.029 ms */
    json_t *o = post("/optimize",
                     "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                     "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1000000,\"step\":1}}],"
                     "\"constraints\":[{\"output\":\"latency\",\"<=\":\"10 ms\"},{\"output\":\"feasible\",\"==\":true}],"
                     "\"objective\":{\"maximize\":\"batch_size\"}}",
                     200);
    const json_t *best = json_object_get(o, "best");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(best, "point"), "batch_size")), 180);
    cr_expect_eq(json_integer_value(json_object_get(o, "feasible")), 180);
    cr_expect_str_eq(json_string_value(json_object_get(o, "method")), "bisection");
    cr_expect(json_integer_value(json_object_get(o, "evaluated")) <= 21);
    const json_t *bind = json_object_get(best, "binding");
    cr_expect_eq(json_array_size(bind), 1, "only latency binds; the model still fits");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(bind, 0), "output")), "latency");
    cr_expect_gt(json_number_value(json_object_get(json_array_get(bind, 0), "value_next")), 10);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(best, "next_point"), "batch_size")), 181);
    const json_t *c0 = json_array_get(json_object_get(best, "constraints"), 0);
    cr_expect(json_is_true(json_object_get(c0, "met")));
    cr_expect_lt(json_number_value(json_object_get(c0, "value")), 10);
    cr_expect_str_eq(json_string_value(json_object_get(c0, "unit")), "ms");
    /* runners-up: 179, 178, 177, 176 */
    cr_expect_eq(json_array_size(json_object_get(o, "runners_up")), 4);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(o, "runners_up"), 3),
                                                                    "point"), "batch_size")), 176);
    json_decref(o);
}

Test(optimize, nothing_feasible_and_failing_points)
{
    json_t *o = post("/optimize",
                     "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                     "\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2,4]}],"
                     "\"constraints\":[{\"output\":\"latency\",\"<\":0.001}],\"objective\":{\"minimize\":\"batch_size\"}}",
                     200);
    cr_expect(json_is_null(json_object_get(o, "best")));
    cr_expect_eq(json_array_size(json_object_get(o, "runners_up")), 0);
    cr_expect_eq(json_integer_value(json_object_get(o, "feasible")), 0);
    json_decref(o);
    /* batch_size < 1 fails. A probe at batch 0 voids bisection's premise: the search goes
     * exhaustive, with the answer of an exhaustive search. A failing best (batch -5, never
     * probed) is caught when the answer is written: exhaustive again. */
    const char *fmt = "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                      "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":%d,\"stop\":400,\"step\":1}}],"
                      "\"constraints\":[{\"output\":\"latency\",\"<=\":10}],\"objective\":{\"%s\":\"batch_size\"}%s}";
    struct {
        int start;
        const char *objective;
        long long best;
    } cases[] = {{-400, "maximize", 180}, {-5, "minimize", 1}};
    for (int c = 0; c < 2; c++) {
        char b1[600], b2[600];
        snprintf(b1, sizeof b1, fmt, cases[c].start, cases[c].objective, "");
        snprintf(b2, sizeof b2, fmt, cases[c].start, cases[c].objective, ",\"method\":\"exhaustive\"");
        json_t *a = post("/optimize", b1, 200), *x = post("/optimize", b2, 200);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(a, "best"), "point"),
                                                        "batch_size")),
                     cases[c].best, "case %d", c);
        cr_expect_str_eq(json_string_value(json_object_get(a, "method")), "exhaustive", "case %d", c);
        cr_expect(strstr(json_string_value(json_object_get(a, "method_reason")), "bisection"), "case %d: %s", c,
                  json_string_value(json_object_get(a, "method_reason")));
        cr_expect(json_equal(json_object_get(a, "best"), json_object_get(x, "best")), "case %d", c);
        cr_expect(json_equal(json_object_get(a, "runners_up"), json_object_get(x, "runners_up")), "case %d", c);
        cr_expect_eq(json_integer_value(json_object_get(x, "failed")), 1 - cases[c].start, "case %d", c);
        json_decref(a);
        json_decref(x);
    }
}

static void expect_400(const char *body, const char *field)
{
    json_t *p = post("/optimize", body, 400);
    cr_expect_str_eq(json_string_value(json_object_get(p, "field")), field, "%s -> %s", body,
                     json_string_value(json_object_get(p, "detail")));
    json_decref(p);
}

#define SPACE "\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2]}]"

Test(optimize, bad_requests_name_the_field)
{
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"constraints\":[{\"output\":\"nope\",\"<=\":1}]}",
               "constraints[0].output");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"constraints\":[{\"output\":\"latency\",\"<==\":1}]}",
               "constraints[0]");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"constraints\":[{\"output\":\"latency\",\"<=\":\"5 GB\"}]}",
               "constraints[0].<=");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"constraints\":[{\"output\":\"feasible\",\"<=\":true}]}",
               "constraints[0].<=");
    expect_400("{" SPACE "}", "objective");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"bottleneck\"}}", "objective.maximize");
    expect_400("{" SPACE ",\"objective\":{\"minimize\":\"nothing\"}}", "objective.minimize");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"top_k\":0}", "top_k");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"method\":\"guess\"}", "method");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"method\":\"bisection\","
               "\"constraints\":[{\"output\":\"energy\",\"<=\":1}]}",
               "method");
    expect_400("{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},\"format\":\"csv\"}", "format");
    json_t *p = post("/optimize",
                     "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                     "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":2000000,\"step\":1}}],"
                     "\"objective\":{\"maximize\":\"batch_size\"}}",
                     413);
    cr_expect_str_eq(json_string_value(json_object_get(p, "field")), "axes");
    json_decref(p);
}

/* `mlsysd optimize` answers what the server answers. */
Test(optimize, cli_matches_http)
{
    const char *body = "{" SPACE ",\"objective\":{\"maximize\":\"batch_size\"},"
                       "\"constraints\":[{\"output\":\"latency\",\"<=\":\"1 ms\"}]}";
    http_resp r;
    cr_assert_eq(http_post_json(shared_daemon(), "/optimize", body, &r), 0);
    cr_assert_eq(r.status, 200);
    char in[] = "/tmp/mlsysd-opt-in-XXXXXX", out[] = "/tmp/mlsysd-opt-out-XXXXXX";
    int fi = mkstemp(in), fo = mkstemp(out);
    cr_assert(fi >= 0 && fo >= 0);
    cr_assert_eq(write(fi, body, strlen(body)), (ssize_t)strlen(body));
    close(fi);
    close(fo);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s optimize --in %s --out %s", MLSYSD_BINARY, in, out);
    cr_assert_eq(system(cmd), 0);
    size_t n;
    char *got = read_file(out, &n);
    cr_assert(got);
    cr_expect_str_eq(got, r.body);
    free(got);
    unlink(in);
    unlink(out);
    http_free(&r);
}

/* --- several objectives: the Pareto front -------------------------------------------------------- */

#define FRONT_BODY(objs, extra)                                                                                   \
    "{\"solver\":\"serving\",\"calibration\":\"measured\",\"inputs\":{\"model\":\"Llama3_70B\",\"seq_len\":2048,"      \
    "\"batch_size\":8,\"precision\":\"fp8\"},\"axes\":[{\"input\":\"hardware\",\"values\":[\"A100\",\"H100\","        \
    "\"H200\",\"MI300X\",\"B200\"]},{\"input\":\"tp\",\"values\":[1,2,4,8]}],\"constraints\":[{\"output\":"           \
    "\"feasible\",\"==\":true}],\"objectives\":" objs extra "}"

/* No point of the front is at least as good in every objective and better in
 * one than another; each carries its /solve answer; every feasible point off
 * the front is dominated by one on it. */
Test(optimize, pareto_front_points_do_not_dominate_one_another)
{
    long st;
    json_t *ans = api_post("/optimize", FRONT_BODY("[{\"minimize\":\"itl\"},{\"minimize\":\"tp\"}]", ""), &st);
    cr_assert_eq(st, 200);
    const json_t *front = json_object_get(ans, "pareto");
    cr_assert(json_array_size(front) >= 2, "a front of one point says nothing: %zu", json_array_size(front));
    size_t i, j;
    json_t *a, *b;
    json_array_foreach(front, i, a) {
        double ai = json_number_value(json_object_get(json_object_get(a, "objectives"), "itl"));
        double at = json_number_value(json_object_get(json_object_get(a, "objectives"), "tp"));
        json_array_foreach(front, j, b) {
            if (i == j)
                continue;
            double bi = json_number_value(json_object_get(json_object_get(b, "objectives"), "itl"));
            double bt = json_number_value(json_object_get(json_object_get(b, "objectives"), "tp"));
            cr_expect(!(ai <= bi && at <= bt && (ai < bi || at < bt)), "front point %zu dominates %zu", i, j);
        }
        /* its answer is /solve's at that point */
        const json_t *point = json_object_get(a, "point");
        char body[512];
        snprintf(body, sizeof body,
                 "{\"solver\":\"serving\",\"calibration\":\"measured\",\"inputs\":{\"model\":\"Llama3_70B\","
                 "\"seq_len\":2048,\"batch_size\":8,\"precision\":\"fp8\",\"hardware\":\"%s\",\"tp\":%lld}}",
                 json_string_value(json_object_get(point, "hardware")),
                 (long long)json_integer_value(json_object_get(point, "tp")));
        json_t *solve = solve_ok(body);
        cr_expect(json_equal(json_object_get(json_object_get(a, "answer"), "result"), json_object_get(solve, "result")),
                  "front point %zu: its answer differs from /solve", i);
        cr_expect_eq(json_real_value(json_object_get(json_object_get(solve, "result"), "itl")), ai);
        json_decref(solve);
    }
    cr_expect_eq(json_integer_value(json_object_get(ans, "points")), 20);
    json_decref(ans);
}

Test(optimize, several_objectives_refuse_top_k_bisection_and_a_single_objective_beside)
{
    long st;
    json_t *p = api_post("/optimize", FRONT_BODY("[{\"minimize\":\"itl\"},{\"minimize\":\"tp\"}]", ",\"top_k\":3"), &st);
    expect_refusal(p, st, 400, "top_k", "Pareto");
    json_decref(p);
    p = api_post("/optimize", FRONT_BODY("[{\"minimize\":\"itl\"},{\"minimize\":\"tp\"}]", ",\"method\":\"bisection\""),
                 &st);
    expect_refusal(p, st, 400, "method", "exhaustively");
    json_decref(p);
    p = api_post("/optimize",
                 FRONT_BODY("[{\"minimize\":\"itl\"},{\"minimize\":\"tp\"}]", ",\"objective\":{\"minimize\":\"itl\"}"),
                 &st);
    expect_refusal(p, st, 400, "objectives", "not both");
    json_decref(p);
    p = api_post("/optimize", FRONT_BODY("[{\"minimize\":\"itl\"}]", ""), &st);
    expect_refusal(p, st, 400, "objectives", "2 to 4");
    json_decref(p);
    p = api_post("/optimize", FRONT_BODY("[{\"minimize\":\"itl\"},{\"least\":\"tp\"}]", ""), &st);
    expect_refusal(p, st, 400, "objectives[1]", "maximize");
    json_decref(p);
}
