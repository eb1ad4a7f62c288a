/* test_measured.c - measured mode (issue 24) through the real daemon.
 *
 * - Every path that runs a solver answers measured mode as POST /solve does:
 *   GET /solve?calibration=measured, a /batch item, a /sweep row (JSON and
 *   CSV) and /optimize's best point; and measured mode's numbers differ from
 *   mlsysim's for single_node (ResNet50 on an A100), serving (Llama3_70B on
 *   H100s at fp8, tp 2) and distributed (step_model sharded on DGX_H100 nodes).
 * - mlsysim mode is unchanged by serving's new tp: tp 1 given equals tp
 *   absent; tp 2 halves the memory per accelerator and lowers the ITL; tp 0
 *   is a 400 naming tp.
 * - Measured mode keeps what the client gave (efficiency, microbatch_count)
 *   and names its added terms in the trace ("Measured: ...").
 * - GET /calibration: shaped as documented, values within their bounds, keys
 *   only by accelerator and precision, every value supported by measurements.
 * - GET /validation: the measurement set (>= 100, six families of >= 10, >= 6
 *   accelerators, every record with its source, quote, year, framework,
 *   setting and request); its predictions are what /solve answers in each
 *   mode, its ratios and errors follow from them, and its summary states the
 *   error of the rows it lists.
 * - assumptions.error_band: the family's measured_loso statistic in measured
 *   mode, its mlsysim statistic in mlsysim mode; no band (and a sentence
 *   saying why) where no family covers the solver.
 * - The daemon's --calibration measured (MLSYSD_CALIBRATION) makes measured
 *   mode's numbers the default ones.
 *
 * test_calibration.c checks the envelope (values, echo, refusals). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/calibration.h"
#include "core/precision.h"
#include "core/solver.h"
#include "harness.h"

/* ---- the three settings measured mode prices with its own physics ---------------- */

typedef struct {
    const char *solver;
    const char *inputs;       /* POST /solve inputs */
    const char *query;        /* the same inputs as a GET /solve query */
    const char *axis;         /* an integer input swept around the point */
    int values[3];            /* its values; values[1] is the point's */
    const char *timed[3];     /* outputs measured mode prices differently (NULL-terminated) */
    const char *terms[6];     /* the trace's "Measured: <term> ..." lines (NULL-terminated) */
} mcase;

static const mcase CASES[] = {
    {"single_node", "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}",
     "model=ResNet50&hardware=A100&batch_size=256&precision=fp16", "batch_size", {64, 256, 1024},
     {"latency", "throughput", NULL}, {"convolutions", "activation traffic", "launch and framework time", NULL}},
    {"serving",
     "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"seq_len\":2048,\"batch_size\":4,\"precision\":\"fp8\","
     "\"tp\":2}",
     "model=Llama3_70B&hardware=H100&seq_len=2048&batch_size=4&precision=fp8&tp=2", "batch_size", {1, 4, 16},
     {"ttft", "itl", NULL},
     {"prefill compute and weight reads", "prefill all-reduces", "decode all-reduces", "decode memory",
      "decode fixed cost", NULL}},
    {"distributed",
     "{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":\"DGX_H100\",\"count\":4,\"fabric\":\"InfiniBand_NDR\"},"
     "\"tp_size\":8,\"pp_size\":2,\"batch_size\":64,\"seq_len\":4096,\"precision\":\"bf16\",\"step_model\":\"sharded\"}",
     "model=Llama3_70B&fleet.node=DGX_H100&fleet.count=4&fleet.fabric=InfiniBand_NDR&tp_size=8&pp_size=2&"
     "batch_size=64&seq_len=4096&precision=bf16&step_model=sharded",
     "batch_size", {32, 64, 128}, {"step_latency_total", "effective_throughput", NULL},
     {"training compute", "tensor-parallel all-reduces", "pipeline bubble", "exposed gradient all-reduce",
      "optimizer pass", NULL}},
};
#define N_CASES (sizeof CASES / sizeof CASES[0])

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    cr_assert(json_is_object(j), "not a JSON object (%s): %s", je.text, text);
    return j;
}

/* POST /solve {solver, inputs, calibration: mode (NULL: none)} to d, which must answer 200. */
static json_t *solve_on(const daemon_t *d, const char *solver, const json_t *inputs, const char *mode)
{
    json_t *body = json_pack("{s:s,s:O}", "solver", solver, "inputs", inputs);
    if (mode)
        json_object_set_new(body, "calibration", json_string(mode));
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    http_resp r;
    cr_assert_eq(http_post_json(d, "/solve", text, &r), 0);
    cr_assert_eq(r.status, 200, "POST /solve %s: %ld %.600s", text, r.status, r.body);
    json_t *j = http_json(&r);
    cr_assert(j, "%s", r.body);
    http_free(&r);
    free(text);
    return j;
}

static json_t *solve_mode(const char *solver, const json_t *inputs, const char *mode)
{
    return solve_on(shared_daemon(), solver, inputs, mode);
}

/* The case's inputs with its axis input set to v. */
static json_t *inputs_at(const mcase *c, int v)
{
    json_t *in = parse(c->inputs);
    json_object_set_new(in, c->axis, json_integer(v));
    return in;
}

/* The case's inputs without its axis input (a sweep or optimize sets it). */
static json_t *inputs_without_axis(const mcase *c)
{
    json_t *in = parse(c->inputs);
    json_object_del(in, c->axis);
    return in;
}

/* A dotted output name ("parallelism.dp") inside an answer's result. */
static const json_t *result_at(const json_t *answer, const char *name)
{
    const json_t *v = json_object_get(answer, "result");
    char buf[128];
    snprintf(buf, sizeof buf, "%s", name);
    for (char *part = buf, *dot; v; part = dot + 1) {
        dot = strchr(part, '.');
        if (dot)
            *dot = '\0';
        v = json_object_get(v, part);
        if (!dot)
            break;
    }
    return v;
}

static double result_number(const json_t *answer, const char *name)
{
    const json_t *v = result_at(answer, name);
    cr_assert(json_is_number(v), "result.%s is not a number", name);
    return json_number_value(v);
}

/* ---- every path answers measured mode as /solve does -------------------------------- */

Test(measured, get_solve_equals_post_solve)
{
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        json_t *in = parse(c->inputs);
        json_t *post = solve_mode(c->solver, in, "measured");
        char path[1024];
        snprintf(path, sizeof path, "/solve/%s?%s&calibration=measured", c->solver, c->query);
        json_t *get = api_get_ok(path);
        cr_expect_str_eq(str_at(get, "calibration"), "measured", "%s", path);
        char what[160];
        snprintf(what, sizeof what, "%s: GET result", c->solver);
        expect_same_json(json_object_get(get, "result"), json_object_get(post, "result"), what);
        snprintf(what, sizeof what, "%s: GET trace", c->solver);
        expect_same_json(json_object_get(get, "trace"), json_object_get(post, "trace"), what);
        snprintf(what, sizeof what, "%s: GET assumptions", c->solver);
        expect_same_json(json_object_get(get, "assumptions"), json_object_get(post, "assumptions"), what);
        json_decref(get);
        json_decref(post);
        json_decref(in);
    }
}

Test(measured, batch_items_equal_solve_in_their_own_mode)
{
    json_t *items = json_array();
    for (size_t i = 0; i < N_CASES; i++) {
        json_array_append_new(items, json_pack("{s:s,s:s,s:o}", "solver", CASES[i].solver, "calibration", "measured",
                                               "inputs", parse(CASES[i].inputs)));
        json_array_append_new(items, json_pack("{s:s,s:o}", "solver", CASES[i].solver, "inputs",
                                               parse(CASES[i].inputs)));
    }
    long st;
    json_t *b = api_post_doc("/batch", json_pack("{s:o}", "items", items), &st);
    cr_assert_eq(st, 200);
    const json_t *got = json_object_get(b, "items");
    cr_assert_eq(json_array_size(got), 2 * N_CASES);
    for (size_t i = 0; i < N_CASES; i++) {
        json_t *in = parse(CASES[i].inputs);
        json_t *meas = solve_mode(CASES[i].solver, in, "measured");
        json_t *sim = solve_mode(CASES[i].solver, in, NULL);
        char what[160];
        snprintf(what, sizeof what, "%s: the measured /batch item", CASES[i].solver);
        expect_same_json(json_object_get(json_array_get(got, 2 * i), "response"), meas, what);
        snprintf(what, sizeof what, "%s: the mlsysim /batch item", CASES[i].solver);
        expect_same_json(json_object_get(json_array_get(got, 2 * i + 1), "response"), sim, what);
        json_decref(meas);
        json_decref(sim);
        json_decref(in);
    }
    json_decref(b);
}

static json_t *sweep_body(const mcase *c, const char *format)
{
    json_t *body = json_pack("{s:s,s:s,s:o,s:[{s:s,s:[i,i,i]}]}", "solver", c->solver, "calibration", "measured",
                             "inputs", inputs_without_axis(c), "axes", "input", c->axis, "values", c->values[0],
                             c->values[1], c->values[2]);
    if (format)
        json_object_set_new(body, "format", json_string(format));
    return body;
}

Test(measured, sweep_rows_equal_solve_json)
{
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        long st;
        json_t *doc = api_post_doc("/sweep", sweep_body(c, NULL), &st);
        cr_assert_eq(st, 200, "%s", c->solver);
        cr_expect_str_eq(str_at(doc, "calibration"), "measured");
        const json_t *cols = json_object_get(doc, "columns"), *rows = json_object_get(doc, "rows");
        cr_assert_eq(json_array_size(rows), 3, "%s", c->solver);
        for (size_t r = 0; r < 3; r++) {
            json_t *in = inputs_at(c, c->values[r]);
            json_t *ans = solve_mode(c->solver, in, "measured");
            const json_t *row = json_array_get(rows, r);
            for (size_t j = 0; j < json_array_size(cols); j++) {
                const char *name = json_string_value(json_array_get(cols, j));
                char what[200];
                snprintf(what, sizeof what, "%s row %zu (%s %d) %s", c->solver, r, c->axis, c->values[r], name);
                if (strcmp(name, c->axis) == 0)
                    cr_expect_eq(json_integer_value(json_array_get(row, j)), c->values[r], "%s", what);
                else if (strcmp(name, "error") == 0)
                    cr_expect(json_is_null(json_array_get(row, j)), "%s", what);
                else
                    expect_cell(json_array_get(row, j), result_at(ans, name), what);
            }
            json_decref(ans);
            json_decref(in);
        }
        json_decref(doc);
    }
}

/* The next CSV field of a record at *p (no quoting: these answers have no
 * comma, quote or line break in a value); *end says the record ended. */
static char *csv_field(const char **p, bool *end)
{
    const char *s = *p;
    size_t n = strcspn(s, ",\r\n");
    char *f = strndup(s, n);
    s += n;
    *end = *s != ',';
    if (*s == ',')
        s++;
    else {
        cr_assert(s[0] == '\r' && s[1] == '\n', "a CSV record must end in CRLF: '%.20s'", s);
        s += 2;
    }
    *p = s;
    return f;
}

Test(measured, sweep_rows_equal_solve_csv)
{
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        long st;
        json_t *doc = api_post_doc("/sweep", sweep_body(c, NULL), &st);
        cr_assert_eq(st, 200);
        const json_t *cols = json_object_get(doc, "columns");
        json_t *csv_body = sweep_body(c, "csv");
        char *text = json_dumps(csv_body, JSON_COMPACT);
        json_decref(csv_body);
        http_resp r;
        cr_assert_eq(http_post_json(shared_daemon(), "/sweep", text, &r), 0);
        cr_assert_eq(r.status, 200, "%s", r.body);
        cr_assert(strstr(r.content_type, "text/csv"), "%s", r.content_type);
        cr_assert(!strchr(r.body, '"'), "no quoted field expected: %.300s", r.body);
        const char *p = r.body;
        bool end = false;
        size_t ncol = 0;
        while (!end) {
            free(csv_field(&p, &end));
            ncol++;
        }
        cr_assert_eq(ncol, json_array_size(cols), "%s: header", c->solver);
        for (size_t row = 0; row < 3; row++) {
            json_t *in = inputs_at(c, c->values[row]);
            json_t *ans = solve_mode(c->solver, in, "measured");
            for (size_t j = 0; j < ncol; j++) {
                cr_assert(*p, "%s: %zu CSV records, 3 expected", c->solver, row);
                char *f = csv_field(&p, &end);
                cr_assert_eq(end, j + 1 == ncol, "%s row %zu: %zu fields", c->solver, row, j + 1);
                const char *name = json_string_value(json_array_get(cols, j));
                char what[200];
                snprintf(what, sizeof what, "%s CSV row %zu (%s %d) %s = '%s'", c->solver, row, c->axis,
                         c->values[row], name, f);
                const json_t *want = strcmp(name, c->axis) == 0 ? NULL : result_at(ans, name);
                if (strcmp(name, c->axis) == 0)
                    cr_expect_eq(strtol(f, NULL, 10), c->values[row], "%s", what);
                else if (strcmp(name, "error") == 0 || json_is_null(want))
                    cr_expect_str_eq(f, "", "%s", what);
                else if (json_is_boolean(want))
                    cr_expect_str_eq(f, json_is_true(want) ? "true" : "false", "%s", what);
                else if (json_is_string(want))
                    cr_expect_str_eq(f, json_string_value(want), "%s", what);
                else {
                    char *e;
                    double x = strtod(f, &e);
                    cr_expect(*f && !*e && json_is_number(want) && x == json_number_value(want), "%s: /solve %.17g",
                              what, json_number_value(want));
                }
                free(f);
            }
            json_decref(ans);
            json_decref(in);
        }
        cr_expect_eq(*p, '\0', "%s: more CSV records than points", c->solver);
        http_free(&r);
        free(text);
        json_decref(doc);
    }
}

/* /optimize: the largest axis value whose first timed output stays at or
 * under its measured value at the point; its best point is the point, and its
 * answer is /solve's there, in measured mode. */
Test(measured, optimize_best_equals_solve)
{
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        json_t *in = parse(c->inputs);
        json_t *meas = solve_mode(c->solver, in, "measured");
        const char *timed = c->timed[0];
        double limit = result_number(meas, timed);
        long st;
        json_t *o = api_post_doc(
            "/optimize",
            json_pack("{s:s,s:s,s:o,s:[{s:s,s:[i,i,i]}],s:[{s:s,s:f}],s:{s:s}}", "solver", c->solver, "calibration",
                      "measured", "inputs", inputs_without_axis(c), "axes", "input", c->axis, "values", c->values[0],
                      c->values[1], c->values[2], "constraints", "output", timed, "<=", limit, "objective", "maximize",
                      c->axis),
            &st);
        cr_assert_eq(st, 200, "%s: %s", c->solver, json_dumps(o, JSON_COMPACT));
        cr_expect_str_eq(str_at(o, "calibration"), "measured");
        const json_t *best = json_object_get(o, "best");
        cr_assert(json_is_object(best), "%s: no best point", c->solver);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(best, "point"), c->axis)), c->values[1],
                     "%s: the best point", c->solver);
        const json_t *ans = json_object_get(best, "answer");
        cr_expect_str_eq(str_at(ans, "calibration"), "measured");
        char what[160];
        snprintf(what, sizeof what, "%s: /optimize best.answer.result", c->solver);
        expect_same_json(json_object_get(ans, "result"), json_object_get(meas, "result"), what);
        snprintf(what, sizeof what, "%s: /optimize best.answer.assumptions", c->solver);
        expect_same_json(json_object_get(ans, "assumptions"), json_object_get(meas, "assumptions"), what);
        const json_t *c0 = json_array_get(json_object_get(best, "constraints"), 0);
        cr_expect(json_is_number(json_object_get(c0, "value")) && json_number_value(json_object_get(c0, "value")) == limit,
                  "%s: the constraint's value is the measured answer's", c->solver);
        json_decref(o);
        json_decref(meas);
        json_decref(in);
    }
}

Test(measured, differs_from_mlsysim)
{
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        json_t *in = parse(c->inputs);
        json_t *meas = solve_mode(c->solver, in, "measured");
        json_t *sim = solve_mode(c->solver, in, "mlsysim");
        json_t *dflt = solve_mode(c->solver, in, NULL);
        expect_same_json(json_object_get(dflt, "result"), json_object_get(sim, "result"), "default = mlsysim");
        for (int k = 0; c->timed[k]; k++) {
            double a = result_number(meas, c->timed[k]), b = result_number(sim, c->timed[k]);
            cr_expect(a > 0 && b > 0 && fabs(a - b) > 1e-6 * b, "%s.%s: measured %.17g, mlsysim %.17g", c->solver,
                      c->timed[k], a, b);
        }
        json_decref(meas);
        json_decref(sim);
        json_decref(dflt);
        json_decref(in);
    }
}

/* ---- serving's tp, and mlsysim mode unchanged by it ------------------------------- */

#define SERVING_70B "{\"model\":\"Llama3_70B\",\"hardware\":\"H100\",\"seq_len\":2048,\"batch_size\":4,\"precision\":\"fp8\"}"

static json_t *serving_tp(const char *mode, int tp)
{
    json_t *in = parse(SERVING_70B);
    if (tp > 0)
        json_object_set_new(in, "tp", json_integer(tp));
    json_t *a = solve_mode("serving", in, mode);
    json_decref(in);
    return a;
}

Test(measured, serving_tp_1_given_equals_tp_absent)
{
    static const char *const MODES[] = {"mlsysim", "measured"};
    for (int m = 0; m < 2; m++) {
        json_t *absent = serving_tp(MODES[m], 0), *one = serving_tp(MODES[m], 1);
        char what[80];
        snprintf(what, sizeof what, "%s: result with tp 1", MODES[m]);
        expect_same_json(json_object_get(one, "result"), json_object_get(absent, "result"), what);
        snprintf(what, sizeof what, "%s: trace with tp 1", MODES[m]);
        expect_same_json(json_object_get(one, "trace"), json_object_get(absent, "trace"), what);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(absent, "inputs"), "tp")), 1,
                     "tp defaults to 1 and is echoed");
        json_decref(absent);
        json_decref(one);
    }
    /* mlsysim mode at tp 1 says nothing of tensor parallelism */
    json_t *sim = serving_tp("mlsysim", 1);
    const json_t *t;
    size_t k;
    json_array_foreach(json_object_get(sim, "trace"), k, t)
        cr_expect(!strstr(json_string_value(t), "Tensor parallelism") && strncmp(json_string_value(t), "Measured:", 9),
                  "%s", json_string_value(t));
    json_decref(sim);
}

Test(measured, serving_tp_2_halves_memory_and_lowers_itl)
{
    static const char *const MODES[] = {"mlsysim", "measured"};
    for (int m = 0; m < 2; m++) {
        json_t *one = serving_tp(MODES[m], 1), *two = serving_tp(MODES[m], 2);
        double u1 = result_number(one, "memory_utilization"), u2 = result_number(two, "memory_utilization");
        cr_expect(close_enough(u2, u1 / 2), "%s: memory_utilization %.17g at tp 2, %.17g at tp 1", MODES[m], u2, u1);
        /* the whole model's memory is reported as before; only its share per accelerator halves */
        cr_expect(close_enough(result_number(two, "total_memory"), result_number(one, "total_memory")), "%s", MODES[m]);
        cr_expect(close_enough(result_number(two, "kv_cache"), result_number(one, "kv_cache")), "%s", MODES[m]);
        double i1 = result_number(one, "itl"), i2 = result_number(two, "itl");
        cr_expect_lt(i2, i1, "%s: itl %.17g ms at tp 2, %.17g at tp 1", MODES[m], i2, i1);
        cr_expect_gt(i2, i1 / 2 * 0.5, "%s: tp 2 cannot more than halve the decode step", MODES[m]);
        double t1 = result_number(one, "ttft"), t2 = result_number(two, "ttft");
        cr_expect_lt(t2, t1, "%s: ttft %.17g ms at tp 2, %.17g at tp 1", MODES[m], t2, t1);
        json_decref(one);
        json_decref(two);
    }
}

Test(measured, serving_tp_0_is_a_400_naming_tp)
{
    json_t *in = parse(SERVING_70B);
    json_object_set_new(in, "tp", json_integer(0));
    long st;
    json_t *p = api_post_doc("/solve", json_pack("{s:s,s:o}", "solver", "serving", "inputs", in), &st);
    expect_refusal(p, st, 400, "inputs.tp", "tp");
    json_decref(p);
    p = api_get_problem("/solve/serving?model=Llama3_70B&hardware=H100&seq_len=2048&precision=fp8&tp=0", 400);
    cr_expect(strstr(str_at(p, "field"), "tp"), "%s", str_at(p, "field"));
    json_decref(p);
    in = parse(SERVING_70B);
    json_object_set_new(in, "tp", json_integer(0));
    p = api_post_doc("/solve", json_pack("{s:s,s:s,s:o}", "solver", "serving", "calibration", "measured", "inputs", in),
                     &st);
    expect_refusal(p, st, 400, "inputs.tp", "tp");
    json_decref(p);
}

/* ---- measured mode keeps what the client gave, and says what it added ---------------- */

Test(measured, a_given_efficiency_is_kept)
{
    /* int8 on an A100: compute-bound, so the latency shows the efficiency
     * (at fp16 this step is memory-bound and the compute hides under it) */
    json_t *in = parse(CASES[0].inputs);
    json_object_set_new(in, "precision", json_string("int8"));
    json_t *fitted = solve_mode("single_node", in, "measured");
    json_object_set_new(in, "efficiency", json_real(0.3));
    json_t *low = solve_mode("single_node", in, "measured");
    json_object_set_new(in, "efficiency", json_real(0.9));
    json_t *high = solve_mode("single_node", in, "measured");
    double lf = result_number(fitted, "latency"), ll = result_number(low, "latency"), lh = result_number(high, "latency");
    cr_expect(fabs(ll - lf) > 1e-6 * lf, "efficiency 0.3 given: latency %.17g, fitted %.17g", ll, lf);
    cr_expect_gt(ll, lh, "a lower given efficiency is slower: %.17g at 0.3, %.17g at 0.9", ll, lh);
    /* the compute term is the given efficiency's: three times as long at 0.3 as at 0.9 */
    double cl = result_number(low, "latency_compute"), ch = result_number(high, "latency_compute");
    cr_expect(close_enough(cl, 3 * ch), "latency_compute %.17g at 0.3, %.17g at 0.9", cl, ch);
    json_decref(fitted);
    json_decref(low);
    json_decref(high);
    json_decref(in);
}

Test(measured, a_given_microbatch_count_is_kept)
{
    json_t *in = parse(CASES[2].inputs);
    json_object_set_new(in, "microbatch_count", json_integer(1));
    json_t *one = solve_mode("distributed", in, "measured");
    json_object_set_new(in, "microbatch_count", json_integer(16));
    json_t *many = solve_mode("distributed", in, "measured");
    double b1 = result_number(one, "pipeline_bubble_latency"), b16 = result_number(many, "pipeline_bubble_latency");
    cr_expect_gt(b1, b16, "pp 2: the bubble shrinks with micro-batches: %.17g at 1, %.17g at 16", b1, b16);
    cr_expect_gt(result_number(one, "step_latency_total"), result_number(many, "step_latency_total"));
    json_decref(one);
    json_decref(many);
    json_decref(in);
}

/* The number after "Measured: <term> " in a trace line, or NAN. */
static double term_ms(const json_t *answer, const char *term, int *lines)
{
    char prefix[120];
    snprintf(prefix, sizeof prefix, "Measured: %s ", term);
    const json_t *t;
    size_t k;
    double v = NAN;
    *lines = 0;
    json_array_foreach(json_object_get(answer, "trace"), k, t) {
        const char *s = json_string_value(t);
        if (s && strncmp(s, prefix, strlen(prefix)) == 0) {
            (*lines)++;
            char *end;
            v = strtod(s + strlen(prefix), &end);
            cr_expect(strncmp(end, " ms", 3) == 0, "'%s'", s);
        }
    }
    return v;
}

Test(measured, the_trace_names_the_added_terms)
{
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        json_t *in = parse(c->inputs);
        json_t *meas = solve_mode(c->solver, in, "measured");
        json_t *sim = solve_mode(c->solver, in, "mlsysim");
        for (int k = 0; c->terms[k]; k++) {
            int lines;
            double v = term_ms(meas, c->terms[k], &lines);
            cr_expect_eq(lines, 1, "%s: one 'Measured: %s' line", c->solver, c->terms[k]);
            cr_expect(isfinite(v) && v >= 0, "%s: %s %g ms", c->solver, c->terms[k], v);
        }
        const json_t *t;
        size_t k;
        json_array_foreach(json_object_get(sim, "trace"), k, t)
            cr_expect(strncmp(json_string_value(t), "Measured:", 9) != 0, "mlsysim mode: %s", json_string_value(t));
        json_decref(meas);
        json_decref(sim);
        json_decref(in);
    }
}

/* The terms the trace states are the answer's own outputs where it has one. */
Test(measured, the_trace_terms_are_the_answers)
{
    static const struct {
        size_t c;
        const char *term, *output;
    } SAME[] = {
        {0, "convolutions", "latency_compute"},
        {2, "tensor-parallel all-reduces", "tp_communication_latency"},
        {2, "pipeline bubble", "pipeline_bubble_latency"},
        {2, "exposed gradient all-reduce", "dp_communication_latency"},
    };
    for (size_t i = 0; i < sizeof SAME / sizeof SAME[0]; i++) {
        const mcase *c = &CASES[SAME[i].c];
        json_t *in = parse(c->inputs);
        json_t *meas = solve_mode(c->solver, in, "measured");
        int lines;
        double v = term_ms(meas, SAME[i].term, &lines), want = result_number(meas, SAME[i].output);
        /* the trace states four significant digits */
        cr_expect(fabs(v - want) <= 5e-4 * want + 1e-12, "%s: trace %s %.17g ms, output %s %.17g ms", c->solver,
                  SAME[i].term, v, SAME[i].output, want);
        json_decref(meas);
        json_decref(in);
    }
}

/* A measured answer's trace states no step latency other than the answer's
 * (distributed's "Distributed Wall: ...; step latency X ms." line). */
Test(measured, the_trace_states_the_answers_step_latency)
{
    static const char *const MODES[] = {"mlsysim", "measured"};
    for (int m = 0; m < 2; m++) {
        json_t *in = parse(CASES[2].inputs);
        json_t *a = solve_mode("distributed", in, MODES[m]);
        double step = result_number(a, "step_latency_total");
        const json_t *t;
        size_t k;
        int seen = 0;
        json_array_foreach(json_object_get(a, "trace"), k, t) {
            const char *s = strstr(json_string_value(t), "step latency ");
            if (!s)
                continue;
            seen++;
            double v = strtod(s + strlen("step latency "), NULL);
            cr_expect(close_enough(v, step), "%s mode: the trace says '%s', step_latency_total is %.17g ms", MODES[m],
                      json_string_value(t), step);
        }
        cr_expect_gt(seen, 0, "%s: a step latency line", MODES[m]);
        json_decref(a);
        json_decref(in);
    }
}

/* ---- GET /calibration ------------------------------------------------------------ */

static bool is_precision_class(const char *s)
{
    /* "fp8/int8": each part a precision the solvers take */
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    int parts = 0;
    for (char *save = NULL, *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save), parts++) {
        bool known = false;
        for (int i = 0; PRECISION_KEYS[i]; i++)
            known |= strcmp(PRECISION_KEYS[i], p) == 0;
        if (!known)
            return false;
    }
    return parts > 0;
}

static long get_status(const char *path)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), path, &r), 0);
    long s = r.status;
    http_free(&r);
    return s;
}

Test(measured, calibration_is_shaped_and_keyed_by_hardware_and_precision_only)
{
    json_t *c = api_get_ok("/calibration");
    cr_expect(json_is_string(json_object_get(c, "generated_by")));
    cr_expect(json_is_string(json_object_get(c, "fit")));
    cr_expect_gt(json_integer_value(json_object_get(c, "measurements")), 0);
    const json_t *params = json_object_get(c, "parameters");
    cr_assert(json_is_array(params) && json_array_size(params) > 0);
    static const char *const WORK[] = {"dense_gemm", "convolution", "attention", "memory", "communication",
                                       "overhead", "precision", NULL};
    size_t i;
    const json_t *p;
    json_array_foreach(params, i, p) {
        const char *name = str_at(p, "name");
        cr_expect(json_is_string(json_object_get(p, "name")) && *name, "parameters[%zu].name", i);
        bool work_ok = false;
        for (int w = 0; WORK[w]; w++)
            work_ok |= strcmp(str_at(p, "work"), WORK[w]) == 0;
        cr_expect(work_ok, "%s: work '%s'", name, str_at(p, "work"));
        cr_expect(json_is_string(json_object_get(p, "unit")), "%s: unit", name);
        cr_expect(strlen(str_at(p, "meaning")) > 20, "%s: meaning", name);
        /* key: exactly {hardware, precision}, each a string or null */
        const json_t *key = json_object_get(p, "key");
        cr_expect(json_is_object(key) && json_object_size(key) == 2, "%s: key has hardware and precision only", name);
        const json_t *hw = json_object_get(key, "hardware"), *prec = json_object_get(key, "precision");
        cr_expect(json_is_null(hw) || json_is_string(hw), "%s: key.hardware", name);
        cr_expect(json_is_null(prec) || json_is_string(prec), "%s: key.precision", name);
        if (json_is_string(hw)) {
            char path[160];
            snprintf(path, sizeof path, "/catalog/hardware/%s", json_string_value(hw));
            cr_expect_eq(get_status(path), 200, "%s: key.hardware %s is an accelerator", name, json_string_value(hw));
            snprintf(path, sizeof path, "/catalog/models/%s", json_string_value(hw));
            cr_expect_eq(get_status(path), 404, "%s: key.hardware %s names a model", name, json_string_value(hw));
        }
        if (json_is_string(prec))
            cr_expect(is_precision_class(json_string_value(prec)), "%s: key.precision '%s'", name,
                      json_string_value(prec));
        /* value within bounds, support > 0 */
        const json_t *v = json_object_get(p, "value"), *b = json_object_get(p, "bounds");
        cr_assert(json_is_number(v), "%s: value", name);
        cr_assert(json_is_array(b) && json_array_size(b) == 2, "%s: bounds", name);
        double lo = json_number_value(json_array_get(b, 0)), hi = json_number_value(json_array_get(b, 1));
        cr_expect(lo <= hi, "%s: bounds [%g, %g]", name, lo, hi);
        cr_expect(json_number_value(v) >= lo && json_number_value(v) <= hi, "%s (%s, %s): %g outside [%g, %g]", name,
                  json_is_string(hw) ? json_string_value(hw) : "*", json_is_string(prec) ? json_string_value(prec) : "*",
                  json_number_value(v), lo, hi);
        cr_expect(json_is_integer(json_object_get(p, "support")) && json_integer_value(json_object_get(p, "support")) >= 0,
                  "%s: support", name);
        /* one entry per (name, hardware, precision) */
        for (size_t j = 0; j < i; j++) {
            const json_t *q = json_array_get(params, j), *qk = json_object_get(q, "key");
            cr_expect(!(strcmp(str_at(q, "name"), name) == 0 && json_equal(json_object_get(qk, "hardware"), hw) &&
                        json_equal(json_object_get(qk, "precision"), prec)),
                      "%s: parameters %zu and %zu have the same key", name, j, i);
        }
    }
    json_decref(c);
}

/* Every value served is fitted: some measurement's answer reads it (support
 * > 0). A parameter no measurement reads keeps the fit's starting value,
 * which is typed by hand. */
Test(measured, calibration_values_are_supported_by_measurements)
{
    json_t *c = api_get_ok("/calibration");
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(c, "parameters"), i, p) {
        const json_t *key = json_object_get(p, "key");
        const json_t *hw = json_object_get(key, "hardware"), *prec = json_object_get(key, "precision");
        cr_expect_gt(json_integer_value(json_object_get(p, "support")), 0,
                     "%s (hardware %s, precision %s): no measurement supports its value %g", str_at(p, "name"),
                     json_is_string(hw) ? json_string_value(hw) : "any", json_is_string(prec) ? json_string_value(prec) : "any",
                     json_number_value(json_object_get(p, "value")));
    }
    json_decref(c);
}

/* Every parameter measured mode reads has a value served by /calibration:
 * an entry for every accelerator ("key.hardware": null) of each parameter the
 * descriptors list, so no answer rests on an unserved starting value. */
Test(measured, calibration_serves_every_parameter_measured_mode_reads)
{
    json_t *c = api_get_ok("/calibration");
    const json_t *params = json_object_get(c, "parameters");
    for (int k = 0; k < CP_N; k++) {
        const calib_param_desc *d = &CALIB_PARAMS[k];
        bool found = false;
        size_t i;
        const json_t *p;
        json_array_foreach(params, i, p) {
            const json_t *key = json_object_get(p, "key");
            const json_t *prec = json_object_get(key, "precision");
            if (strcmp(str_at(p, "name"), d->name) == 0 && json_is_null(json_object_get(key, "hardware")) &&
                (d->precision ? json_is_string(prec) && strcmp(json_string_value(prec), d->precision) == 0
                              : json_is_null(prec)))
                found = true;
        }
        json_array_foreach(json_object_get(c, "unfitted"), i, p) {
            const json_t *prec = json_object_get(json_object_get(p, "key"), "precision");
            if (strcmp(str_at(p, "name"), d->name) == 0 &&
                (d->precision ? json_is_string(prec) && strcmp(json_string_value(prec), d->precision) == 0
                              : json_is_null(prec)))
                found = true; /* no measurement reads it: its prior, stated */
        }
        cr_expect(found, "GET /calibration has no common value of %s (precision %s)", d->name,
                  d->precision ? d->precision : "any");
    }
    /* what the daemon serves is the table it answers with */
    const calib_table *t = calibration_table();
    cr_expect_eq(json_array_size(params), t->n_entries);
    for (size_t e = 0; e < t->n_entries && e < json_array_size(params); e++) {
        const json_t *p = json_array_get(params, e);
        cr_expect_str_eq(str_at(p, "name"), CALIB_PARAMS[t->entries[e].param].name);
        cr_expect(json_number_value(json_object_get(p, "value")) == t->entries[e].value, "%s",
                  CALIB_PARAMS[t->entries[e].param].name);
    }
    json_decref(c);
}

/* ---- GET /validation --------------------------------------------------------------- */

static json_t *validation(void)
{
    json_t *v = api_get_ok("/validation");
    cr_assert(json_is_array(json_object_get(v, "measurements")));
    cr_assert(json_is_array(json_object_get(v, "families")));
    return v;
}

static const json_t *family_summary(const json_t *v, const char *family)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(v, "families"), i, f)
        if (strcmp(str_at(f, "family"), family) == 0)
            return f;
    cr_assert_fail("GET /validation has no family %s", family);
    return NULL;
}

/* The accelerator a request runs on: its hardware (an id, or an inline
 * record's base), or its fleet's node's accelerator. */
static void accelerator_of(const json_t *inputs, char *buf, size_t n)
{
    buf[0] = '\0';
    const json_t *hw = json_object_get(inputs, "hardware");
    if (json_is_object(hw))
        hw = json_object_get(hw, "base");
    if (json_is_string(hw)) {
        snprintf(buf, n, "%s", json_string_value(hw));
        return;
    }
    const json_t *fleet = json_object_get(inputs, "fleet");
    const json_t *node = json_is_object(fleet) ? json_object_get(fleet, "node") : NULL;
    if (json_is_object(node) && json_is_string(json_object_get(node, "accelerator"))) {
        snprintf(buf, n, "%s", json_string_value(json_object_get(node, "accelerator")));
    } else if (json_is_object(node) || json_is_string(node)) {
        const char *id = json_is_string(node) ? json_string_value(node) : str_at(node, "base");
        char path[160];
        snprintf(path, sizeof path, "/catalog/nodes/%s", id);
        json_t *rec = api_get_ok(path);
        snprintf(buf, n, "%s", str_at(rec, "accelerator"));
        json_decref(rec);
    }
    /* "Hardware.Cloud.H100" and "H100" are the same accelerator */
    const char *dot = strrchr(buf, '.');
    if (dot)
        memmove(buf, dot + 1, strlen(dot));
}

Test(measured, validation_covers_six_families_and_six_accelerators)
{
    json_t *v = validation();
    const json_t *ms = json_object_get(v, "measurements");
    cr_expect_geq(json_array_size(ms), 100);
    int count[CF_N] = {0};
    char seen[64][64];
    int n_seen = 0;
    size_t i;
    const json_t *m;
    json_array_foreach(ms, i, m) {
        int f = calib_family_find(str_at(m, "family"));
        cr_expect_geq(f, 0, "%s: family %s", str_at(m, "id"), str_at(m, "family"));
        if (f >= 0)
            count[f]++;
        char acc[64];
        accelerator_of(json_object_get(json_object_get(m, "request"), "inputs"), acc, sizeof acc);
        cr_expect(acc[0], "%s: no accelerator in its request", str_at(m, "id"));
        bool known = false;
        for (int k = 0; k < n_seen; k++)
            known |= strcmp(seen[k], acc) == 0;
        if (!known && acc[0] && n_seen < 64)
            snprintf(seen[n_seen++], sizeof seen[0], "%s", acc);
    }
    for (int f = 0; f < CF_N; f++) {
        cr_expect_geq(count[f], 10, "family %s: %d measurements", CALIB_FAMILY_NAMES[f], count[f]);
        const json_t *s = family_summary(v, CALIB_FAMILY_NAMES[f]);
        cr_expect_eq(json_integer_value(json_object_get(s, "n")), count[f], "family %s: n", CALIB_FAMILY_NAMES[f]);
    }
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(v, "overall"), "n")), (json_int_t)json_array_size(ms));
    cr_expect_geq(n_seen, 6, "%d accelerators", n_seen);
    json_t *c = api_get_ok("/calibration");
    cr_expect_eq(json_integer_value(json_object_get(c, "measurements")), (json_int_t)json_array_size(ms),
                 "/calibration counts the measurements /validation lists");
    json_decref(c);
    json_decref(v);
}

static bool nonempty_string(const json_t *o, const char *key)
{
    const json_t *s = json_object_get(o, key);
    return json_is_string(s) && json_string_length(s) > 0;
}

Test(measured, every_measurement_has_its_source_and_setting)
{
    json_t *v = validation();
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(v, "measurements"), i, m) {
        const char *id = str_at(m, "id");
        cr_expect(nonempty_string(m, "id"), "measurements[%zu]: id", i);
        const json_t *src = json_object_get(m, "source");
        cr_expect(nonempty_string(src, "key"), "%s: source.key", id);
        cr_expect(nonempty_string(src, "url") || (nonempty_string(src, "repo") && nonempty_string(src, "path")) ||
                      nonempty_string(src, "where"),
                  "%s: the source has no url, repo + path or where", id);
        cr_expect(nonempty_string(m, "quote"), "%s: quote", id);
        cr_expect(nonempty_string(m, "framework"), "%s: framework", id);
        const json_t *st = json_object_get(m, "setting");
        cr_expect(json_is_object(st), "%s: setting", id);
        static const char *const SETTING[] = {"model", "hardware", "accelerators", "batch_size", "precision",
                                              "tp", "pp", "training", NULL};
        for (int k = 0; SETTING[k]; k++)
            cr_expect(json_object_get(st, SETTING[k]) != NULL, "%s: setting.%s", id, SETTING[k]);
        const json_t *meas = json_object_get(m, "measured");
        cr_expect(json_is_number(json_object_get(meas, "value")) && json_number_value(json_object_get(meas, "value")) > 0,
                  "%s: measured.value", id);
        const json_t *req = json_object_get(m, "request");
        long s = solver_find(str_at(req, "solver"));
        cr_expect_geq(s, 0, "%s: request.solver %s", id, str_at(req, "solver"));
        cr_expect(json_is_object(json_object_get(req, "inputs")), "%s: request.inputs", id);
        if (s >= 0)
            cr_expect_geq(solver_output_index(solver_at((size_t)s), str_at(m, "output")), 0, "%s: output %s", id,
                          str_at(m, "output"));
        static const char *const KEYS[] = {"mlsysim", "measured", "measured_loso", NULL};
        for (int k = 0; KEYS[k]; k++) {
            const json_t *p = json_object_get(json_object_get(m, "predicted"), KEYS[k]);
            const json_t *r = json_object_get(json_object_get(m, "ratio"), KEYS[k]);
            const json_t *e = json_object_get(json_object_get(m, "error"), KEYS[k]);
            cr_expect(json_is_number(p) && json_number_value(p) > 0, "%s: predicted.%s", id, KEYS[k]);
            if (!json_is_number(p) || !json_is_number(r) || !json_is_number(e))
                continue;
            double want = json_number_value(p) / json_number_value(json_object_get(meas, "value"));
            cr_expect(close_enough(json_number_value(r), want), "%s: ratio.%s %.17g, predicted/measured %.17g", id,
                      KEYS[k], json_number_value(r), want);
            double err = fmax(want, 1 / want) - 1;
            cr_expect(close_enough(json_number_value(e), err), "%s: error.%s %.17g, want %.17g", id, KEYS[k],
                      json_number_value(e), err);
        }
    }
    json_decref(v);
}

/* Each measurement states the year of its figure (issue 24: "year and framework"). */
Test(measured, every_measurement_states_its_year)
{
    json_t *v = validation();
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(v, "measurements"), i, m) {
        const json_t *y = json_object_get(m, "year");
        cr_expect(json_is_integer(y) && json_integer_value(y) >= 2012 && json_integer_value(y) <= 2026,
                  "%s: year is %s", str_at(m, "id"), json_is_null(y) ? "null" : "not a year");
    }
    json_decref(v);
}

/* 20 measurements spread over the families: each row's predictions are what
 * POST /solve answers for its request, in each mode. */
Test(measured, validation_predictions_are_solve_answers)
{
    json_t *v = validation();
    const json_t *ms = json_object_get(v, "measurements");
    static const int PER_FAMILY[CF_N] = {4, 4, 3, 3, 3, 3};
    int checked = 0;
    for (int f = 0; f < CF_N; f++) {
        size_t idx[512], n = 0, i;
        const json_t *m;
        json_array_foreach(ms, i, m) if (strcmp(str_at(m, "family"), CALIB_FAMILY_NAMES[f]) == 0 && n < 512) idx[n++] = i;
        for (int k = 0; k < PER_FAMILY[f] && n > 0; k++) {
            m = json_array_get(ms, idx[(size_t)k * n / (size_t)PER_FAMILY[f]]);
            const json_t *req = json_object_get(m, "request");
            const char *out = str_at(m, "output");
            static const char *const MODES[] = {"measured", "mlsysim"};
            for (int md = 0; md < 2; md++) {
                json_t *a = solve_mode(str_at(req, "solver"), json_object_get(req, "inputs"), MODES[md]);
                double got = result_number(a, out);
                double want = json_number_value(json_object_get(json_object_get(m, "predicted"), MODES[md]));
                cr_expect(close_enough(want, got), "%s: predicted.%s %.17g, /solve %.17g", str_at(m, "id"), MODES[md],
                          want, got);
                json_decref(a);
            }
            checked++;
        }
    }
    cr_expect_eq(checked, 20);
    json_decref(v);
}

/* The order statistics calibrate states: the median, and the 90th percentile
 * interpolated linearly between order statistics. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void expect_stat(const json_t *stat, double *errs, size_t n, const char *what)
{
    qsort(errs, n, sizeof errs[0], by_value);
    double median = n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
    double r = 0.9 * (double)(n - 1);
    size_t lo = (size_t)floor(r);
    double p90 = lo + 1 < n ? errs[lo] + (r - (double)lo) * (errs[lo + 1] - errs[lo]) : errs[lo];
    int within = 0;
    for (size_t i = 0; i < n; i++)
        within += errs[i] <= 0.25;
    /* the table keeps 9 significant digits, of the statistics and of the held-out predictions */
    double got_m = json_number_value(json_object_get(stat, "median")), got_p = json_number_value(json_object_get(stat, "p90"));
    cr_expect(fabs(got_m - median) <= 1e-7 * median + 1e-9, "%s: median %.9g, the rows' %.9g", what, got_m, median);
    cr_expect(fabs(got_p - p90) <= 1e-7 * p90 + 1e-9, "%s: p90 %.9g, the rows' %.9g", what, got_p, p90);
    cr_expect_eq(json_integer_value(json_object_get(stat, "n")), (json_int_t)n, "%s: n", what);
    cr_expect_eq(json_integer_value(json_object_get(stat, "within_25pct")), within, "%s: within_25pct %lld, the rows' %d",
                 what, (long long)json_integer_value(json_object_get(stat, "within_25pct")), within);
}

/* The summary states the error of the answers it lists: each family's (and
 * the overall) mlsysim, measured and measured_loso statistics are those of the
 * rows' errors. A mismatch in "measured" means the fitted table
 * (core/calibration_fit.c) was not regenerated after the physics or the
 * measurements changed. */
Test(measured, validation_summary_is_the_rows_error)
{
    json_t *v = validation();
    const json_t *ms = json_object_get(v, "measurements");
    static const char *const KEYS[] = {"mlsysim", "measured", "measured_loso"};
    double *errs = malloc(json_array_size(ms) * sizeof *errs);
    for (int f = -1; f < CF_N; f++) {
        const json_t *summary = f < 0 ? json_object_get(v, "overall") : family_summary(v, CALIB_FAMILY_NAMES[f]);
        for (int k = 0; k < 3; k++) {
            size_t n = 0, i;
            const json_t *m;
            json_array_foreach(ms, i, m) if (f < 0 || strcmp(str_at(m, "family"), CALIB_FAMILY_NAMES[f]) == 0)
                errs[n++] = json_number_value(json_object_get(json_object_get(m, "error"), KEYS[k]));
            char what[120];
            snprintf(what, sizeof what, "%s, %s", f < 0 ? "overall" : CALIB_FAMILY_NAMES[f], KEYS[k]);
            expect_stat(json_object_get(summary, KEYS[k]), errs, n, what);
        }
    }
    free(errs);
    json_decref(v);
}

/* ---- assumptions.error_band -------------------------------------------------------- */

typedef struct {
    const char *solver;
    const char *inputs;
    const char *families[3]; /* in the order of the answer's bands */
} band_case;

static const band_case BAND_CASES[] = {
    {"single_node", "{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}",
     {"cnn_inference", NULL}},
    {"single_node", "{\"model\":\"ResNet50\",\"hardware\":\"V100\",\"batch_size\":256,\"is_training\":true}",
     {"cnn_training", NULL}},
    {"single_node", "{\"model\":\"BERT_Base\",\"hardware\":\"T4\",\"batch_size\":8,\"seq_len\":128,\"precision\":\"fp16\"}",
     {"encoder", NULL}},
    {"serving", SERVING_70B, {"llm_prefill", "llm_decode", NULL}},
    {"distributed",
     "{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":\"DGX_H100\",\"count\":4,\"fabric\":\"InfiniBand_NDR\"},"
     "\"tp_size\":8,\"pp_size\":2,\"batch_size\":64,\"seq_len\":4096,\"precision\":\"bf16\",\"step_model\":\"sharded\"}",
     {"llm_training", NULL}},
};

/* Every band of an answer states its family's statistic for the mode. */
static int expect_bands(const json_t *answer, const json_t *v, const char *mode, const char *what)
{
    const json_t *eb = json_object_get(json_object_get(answer, "assumptions"), "error_band");
    cr_assert(json_is_object(eb), "%s: no assumptions.error_band", what);
    cr_expect_str_eq(str_at(eb, "calibration"), mode, "%s", what);
    cr_expect(nonempty_string(eb, "basis"), "%s: basis", what);
    const json_t *bands = json_object_get(eb, "bands");
    cr_assert(json_is_array(bands), "%s: bands", what);
    const char *key = strcmp(mode, "measured") == 0 ? "measured_loso" : "mlsysim";
    size_t i;
    const json_t *b;
    json_array_foreach(bands, i, b) {
        const json_t *fam = family_summary(v, str_at(b, "family"));
        const json_t *want = json_object_get(fam, key);
        cr_expect(json_number_value(json_object_get(b, "median")) == json_number_value(json_object_get(want, "median")),
                  "%s %s: median %.9g, /validation %s.median %.9g", what, str_at(b, "family"),
                  json_number_value(json_object_get(b, "median")), key, json_number_value(json_object_get(want, "median")));
        cr_expect(json_number_value(json_object_get(b, "p90")) == json_number_value(json_object_get(want, "p90")),
                  "%s %s: p90", what, str_at(b, "family"));
        cr_expect_eq(json_integer_value(json_object_get(b, "n")), json_integer_value(json_object_get(want, "n")),
                     "%s %s: n", what, str_at(b, "family"));
        cr_expect_eq(json_integer_value(json_object_get(b, "sources")), json_integer_value(json_object_get(fam, "sources")),
                     "%s %s: sources", what, str_at(b, "family"));
        cr_expect_str_eq(str_at(b, "title"), str_at(fam, "title"), "%s", what);
        const json_t *outs = json_object_get(b, "outputs");
        cr_expect(json_is_array(outs) && json_array_size(outs) > 0, "%s %s: outputs", what, str_at(b, "family"));
        size_t k;
        const json_t *o;
        json_array_foreach(outs, k, o) cr_expect(result_at(answer, json_string_value(o)) != NULL,
                                                 "%s: band output %s is not an output of the answer", what,
                                                 json_string_value(o));
    }
    return (int)json_array_size(bands);
}

Test(measured, error_band_is_the_familys_statistic_in_each_mode)
{
    json_t *v = validation();
    for (size_t i = 0; i < sizeof BAND_CASES / sizeof BAND_CASES[0]; i++) {
        const band_case *c = &BAND_CASES[i];
        json_t *in = parse(c->inputs);
        static const char *const MODES[] = {"measured", "mlsysim"};
        const char *basis[2];
        json_t *ans[2];
        for (int md = 0; md < 2; md++) {
            ans[md] = solve_mode(c->solver, in, MODES[md]);
            char what[200];
            snprintf(what, sizeof what, "%s %s (%s)", c->solver, c->inputs, MODES[md]);
            int n = expect_bands(ans[md], v, MODES[md], what);
            int want = 0;
            while (c->families[want])
                want++;
            cr_expect_eq(n, want, "%s: %d bands", what, n);
            const json_t *bands = json_object_get(json_object_get(json_object_get(ans[md], "assumptions"), "error_band"), "bands");
            for (int k = 0; k < want && k < n; k++)
                cr_expect_str_eq(str_at(json_array_get(bands, (size_t)k), "family"), c->families[k], "%s", what);
            basis[md] = str_at(json_object_get(json_object_get(ans[md], "assumptions"), "error_band"), "basis");
        }
        cr_expect_str_neq(basis[0], basis[1], "%s: the two modes state the same basis", c->solver);
        json_decref(ans[0]);
        json_decref(ans[1]);
        json_decref(in);
    }
    json_decref(v);
}

Test(measured, a_solver_no_family_covers_has_no_band_and_says_so)
{
    json_t *v = validation();
    json_t *in = example_inputs("economics");
    static const char *const MODES[] = {"measured", "mlsysim"};
    const char *basis[2];
    json_t *ans[2];
    for (int md = 0; md < 2; md++) {
        ans[md] = solve_mode("economics", in, MODES[md]);
        cr_expect_eq(expect_bands(ans[md], v, MODES[md], "economics"), 0, "economics has no band");
        basis[md] = str_at(json_object_get(json_object_get(ans[md], "assumptions"), "error_band"), "basis");
        cr_expect_gt(strlen(basis[md]), 20, "a sentence: '%s'", basis[md]);
    }
    cr_expect_str_neq(basis[0], basis[1]);
    /* nothing in economics is priced differently in measured mode */
    expect_same_json(json_object_get(ans[0], "result"), json_object_get(ans[1], "result"), "economics result");
    json_decref(ans[0]);
    json_decref(ans[1]);
    json_decref(in);
    json_decref(v);
}

/* Every solver's example answers in both modes, with a band per family that
 * covers it, each the family's statistic for the mode. */
Test(measured, every_solvers_answer_states_its_band_in_both_modes)
{
    json_t *v = validation();
    for (size_t s = 0; s < solver_count(); s++) {
        const solver_desc *d = solver_at(s);
        json_t *in = example_inputs(d->name);
        static const char *const MODES[] = {"measured", "mlsysim"};
        for (int md = 0; md < 2; md++) {
            json_t *a = solve_mode(d->name, in, MODES[md]);
            char what[120];
            snprintf(what, sizeof what, "%s (%s)", d->name, MODES[md]);
            int n = expect_bands(a, v, MODES[md], what);
            solver_band bands[SOLVER_MAX_BANDS];
            int want = d->measured_families ? d->measured_families(NULL, bands) : 0;
            cr_expect(want == 0 ? n == 0 : n >= 1 && n <= want, "%s: %d bands, its descriptor lists %d families", what,
                      n, want);
            json_decref(a);
        }
        json_decref(in);
    }
    json_decref(v);
}

/* ---- the daemon's default ---------------------------------------------------------- */

Test(measured, the_daemon_setting_makes_measured_the_default)
{
    const char *const args[] = {"--calibration", "measured", NULL};
    const char *const env[] = {"MLSYSD_CALIBRATION=measured", NULL};
    daemon_t by_flag, by_env;
    cr_assert_eq(daemon_start(&by_flag, args, NULL), 0);
    cr_assert_eq(daemon_start(&by_env, NULL, env), 0);
    const daemon_t *both[] = {&by_flag, &by_env};
    for (size_t i = 0; i < N_CASES; i++) {
        const mcase *c = &CASES[i];
        json_t *in = parse(c->inputs);
        json_t *want = solve_mode(c->solver, in, "measured");
        json_t *sim = solve_mode(c->solver, in, "mlsysim");
        for (int k = 0; k < 2; k++) {
            const char *what = k ? "MLSYSD_CALIBRATION=measured" : "--calibration measured";
            json_t *got = solve_on(both[k], c->solver, in, NULL);
            cr_expect_str_eq(str_at(got, "calibration"), "measured", "%s", what);
            expect_same_json(json_object_get(got, "result"), json_object_get(want, "result"), what);
            expect_same_json(json_object_get(got, "assumptions"), json_object_get(want, "assumptions"), what);
            json_decref(got);
            /* GET without calibration */
            char path[1024];
            snprintf(path, sizeof path, "/solve/%s?%s", c->solver, c->query);
            http_resp r;
            cr_assert_eq(http_get(both[k], path, &r), 0);
            cr_assert_eq(r.status, 200, "%s %s: %s", what, path, r.body);
            got = http_json(&r);
            http_free(&r);
            expect_same_json(json_object_get(got, "result"), json_object_get(want, "result"), what);
            json_decref(got);
            /* a request still picks mlsysim */
            got = solve_on(both[k], c->solver, in, "mlsysim");
            expect_same_json(json_object_get(got, "result"), json_object_get(sim, "result"), what);
            json_decref(got);
        }
        json_decref(want);
        json_decref(sim);
        json_decref(in);
    }
    /* a sweep without calibration answers measured rows */
    json_t *body = sweep_body(&CASES[0], NULL);
    json_t *want_rows = NULL;
    long st;
    json_t *want = api_post_doc("/sweep", json_incref(body), &st);
    cr_assert_eq(st, 200);
    want_rows = json_object_get(want, "rows");
    json_object_del(body, "calibration");
    char *text = json_dumps(body, JSON_COMPACT);
    http_resp r;
    cr_assert_eq(http_post_json(&by_flag, "/sweep", text, &r), 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *got = http_json(&r);
    http_free(&r);
    cr_expect_str_eq(str_at(got, "calibration"), "measured");
    expect_same_json(json_object_get(got, "rows"), want_rows, "the default daemon's sweep rows");
    json_decref(got);
    free(text);
    json_decref(want);
    json_decref(body);
    cr_assert_eq(daemon_stop(&by_flag), 0);
    cr_assert_eq(daemon_stop(&by_env), 0);
}
