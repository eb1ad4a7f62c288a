/* test_sweep.c - /sweep against the real daemon: a sweep gives the numbers
 * that /solve gives point by point, its three formats carry the same doubles,
 * the transitions are where a hand calculation puts the crossovers, malformed
 * sweeps are 400s that name the field, and a 10-million-point stream does not
 * grow the server's memory. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "proc_status.h"

/* --- helpers ------------------------------------------------------------------------------- */

static json_t *must_json(const http_resp *r)
{
    json_t *j = http_json(r);
    cr_assert(j, "response is not JSON: %.300s", r->body);
    return j;
}

/* POST a sweep built with json_pack; the caller frees r. */
static void post_sweep(json_t *body, http_resp *r)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    cr_assert_eq(http_post_json(shared_daemon(), "/sweep", text, r), 0);
    free(text);
}

static json_t *sweep_doc(json_t *body)
{
    http_resp r;
    post_sweep(body, &r);
    cr_assert_eq(r.status, 200, "status %ld: %.500s", r.status, r.body);
    cr_assert(strstr(r.content_type, "application/json"), "content type %s", r.content_type);
    json_t *j = must_json(&r);
    http_free(&r);
    return j;
}

static int col(const json_t *doc, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "columns"), i, c)
        if (!strcmp(json_string_value(c), name))
            return (int)i;
    cr_assert_fail("no column '%s'", name);
    return -1;
}

static json_t *cell(const json_t *doc, size_t row, const char *name)
{
    return json_array_get(json_array_get(json_object_get(doc, "rows"), row), (size_t)col(doc, name));
}

static double num_cell(const json_t *doc, size_t row, const char *name)
{
    json_t *v = cell(doc, row, name);
    cr_assert(json_is_number(v), "row %zu %s is not a number", row, name);
    return json_number_value(v);
}

static const char *str_cell(const json_t *doc, size_t row, const char *name)
{
    json_t *v = cell(doc, row, name);
    cr_assert(json_is_string(v), "row %zu %s is not a string", row, name);
    return json_string_value(v);
}

/* POST /solve; returns the whole response (result or problem) and its status. */
static json_t *solve(const char *catalog, json_t *inputs, const char *solver, long *status)
{
    json_t *body = json_pack("{s:s,s:o}", "solver", solver, "inputs", inputs);
    if (catalog)
        json_object_set_new(body, "catalog", json_string(catalog));
    return api_post_doc("/solve", body, status);
}

/* One RFC 4180 record starting at *p, ending in CRLF. Fields are malloc'ed. */
static size_t csv_record(const char **p, char **fields, size_t max)
{
    const char *s = *p;
    size_t n = 0;
    for (;;) {
        char *f = malloc(strlen(s) + 1);
        size_t len = 0;
        if (*s == '"') {
            for (s++;; s++) {
                cr_assert(*s, "unterminated quoted field");
                if (*s == '"' && s[1] == '"')
                    f[len++] = *s++;
                else if (*s == '"')
                    break;
                else
                    f[len++] = *s;
            }
            s++;
        } else {
            while (*s && *s != ',' && *s != '\r' && *s != '\n' && *s != '"')
                f[len++] = *s++;
        }
        f[len] = '\0';
        cr_assert_lt(n, max);
        fields[n++] = f;
        if (*s == ',') {
            s++;
            continue;
        }
        cr_assert(s[0] == '\r' && s[1] == '\n', "a record must end in CRLF, got '%.20s'", s);
        *p = s + 2;
        return n;
    }
}

static void free_fields(char **f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i]);
}

static bool has_transition(const json_t *doc, const char *output, const char *axis, json_t *from_input,
                           json_t *to_input, const char *from, const char *to, const char *at_key, json_t *at_val)
{
    size_t i;
    json_t *t;
    bool found = false;
    json_array_foreach(json_object_get(doc, "transitions"), i, t) {
        if (strcmp(json_string_value(json_object_get(t, "output")), output) ||
            strcmp(json_string_value(json_object_get(t, "axis")), axis) ||
            !json_equal(json_object_get(t, "from_input"), from_input) ||
            !json_equal(json_object_get(t, "to_input"), to_input) ||
            !json_is_string(json_object_get(t, "from")) || !json_is_string(json_object_get(t, "to")) ||
            strcmp(json_string_value(json_object_get(t, "from")), from) ||
            strcmp(json_string_value(json_object_get(t, "to")), to))
            continue;
        if (at_key && !json_equal(json_object_get(json_object_get(t, "at"), at_key), at_val))
            continue;
        found = true;
    }
    json_decref(from_input);
    json_decref(to_input);
    json_decref(at_val);
    return found;
}

static size_t count_transitions(const json_t *doc, const char *output)
{
    size_t i, n = 0;
    json_t *t;
    json_array_foreach(json_object_get(doc, "transitions"), i, t)
        n += !strcmp(json_string_value(json_object_get(t, "output")), output);
    return n;
}

/* --- a sweep is its points solved one by one -------------------------------------------- */

/* Every kind of axis: ids (model, hardware), enum, boolean, quantity strings,
 * a number range and an integer geomspace; hardware has no default, so the
 * axis alone supplies a required input. */
Test(sweep, equals_solve_point_by_point)
{
    json_t *models = json_pack("[s,s]", "ResNet50", "MobileNetV2");
    json_t *hws = json_pack("[s,s]", "A100", "H100");
    json_t *precs = json_pack("[s,s]", "fp16", "int8");
    json_t *train = json_pack("[b,b]", 0, 1);
    json_t *samples = json_pack("[s,s]", "500 KB", "5 MB");
    /* what range {0.25, 0.75, 0.25} and geomspace {1, 1024, 3} must expand to */
    json_t *effs = json_pack("[f,f,f]", 0.25, 0.5, 0.75);
    json_t *batches = json_pack("[i,i,i]", 1, 32, 1024);
    json_t *axis_vals[] = {models, hws, precs, train, samples, effs, batches};
    const char *axis_names[] = {"model", "hardware", "precision", "is_training", "sample_size_bytes", "efficiency",
                                "batch_size"};
    json_t *body = json_pack("{s:s,s:{s:i},s:[{s:s,s:O},{s:s,s:O},{s:s,s:O},{s:s,s:O},{s:s,s:O},{s:s,s:{s:f,s:f,s:f}},{"
                             "s:s,s:{s:i,s:i,s:i}}]}",
                             "solver", "pipeline", "inputs", "cpu_workers", 16, "axes", "input", "model", "values",
                             models, "input", "hardware", "values", hws, "input", "precision", "values", precs, "input",
                             "is_training", "values", train, "input", "sample_size_bytes", "values", samples, "input",
                             "efficiency", "range", "start", 0.25, "stop", 0.75, "step", 0.25, "input", "batch_size",
                             "geomspace", "start", 1, "stop", 1024, "count", 3);
    json_t *doc = sweep_doc(body);
    const size_t n_axes = 7, points = 2 * 2 * 2 * 2 * 2 * 3 * 3;
    cr_assert_eq(json_integer_value(json_object_get(doc, "points")), (json_int_t)points);
    json_t *rows = json_object_get(doc, "rows");
    cr_assert_eq(json_array_size(rows), points);
    for (size_t r = 0; r < points; r++) {
        /* first axis outermost: row r is the mixed-radix number of its axis indices */
        size_t idx[7], rest = r;
        for (size_t a = n_axes; a-- > 0;) {
            size_t n = json_array_size(axis_vals[a]);
            idx[a] = rest % n;
            rest /= n;
        }
        json_t *inputs = json_pack("{s:i}", "cpu_workers", 16);
        for (size_t a = 0; a < n_axes; a++)
            json_object_set(inputs, axis_names[a], json_array_get(axis_vals[a], idx[a]));
        cr_assert(json_is_null(cell(doc, r, "error")), "row %zu: %s", r, json_string_value(cell(doc, r, "error")));
        cr_assert_str_eq(str_cell(doc, r, "hardware"), json_string_value(json_array_get(hws, idx[1])));
        cr_assert_eq(num_cell(doc, r, "efficiency"), json_number_value(json_array_get(effs, idx[5])));
        cr_assert_eq(num_cell(doc, r, "batch_size"), json_number_value(json_array_get(batches, idx[6])));
        cr_assert_eq(num_cell(doc, r, "sample_size_bytes"), idx[4] ? 5e6 : 5e5);
        long status;
        json_t *one = solve(NULL, inputs, "pipeline", &status);
        cr_assert_eq(status, 200, "row %zu", r);
        const char *name;
        json_t *want;
        json_object_foreach(json_object_get(one, "result"), name, want) {
            json_t *got = cell(doc, r, name);
            if (json_is_number(want))
                cr_assert(json_is_number(got) && close_enough(json_number_value(got), json_number_value(want)),
                          "row %zu %s: sweep %g, solve %.17g", r, name, json_number_value(got),
                          json_number_value(want));
            else
                cr_assert(json_equal(got, want), "row %zu %s differs", r, name);
        }
        json_decref(one);
    }
    json_decref(doc);
    for (size_t a = 0; a < n_axes; a++)
        json_decref(axis_vals[a]);
}

/* A bad point's row carries the text /solve would give for it; the sweep goes on. */
Test(sweep, per_point_errors_are_rows)
{
    json_t *doc = sweep_doc(json_pack("{s:s,s:{s:s,s:s},s:[{s:s,s:[i,i,i]},{s:s,s:[f,i]}]}", "solver", "single_node",
                                      "inputs", "model", "ResNet50", "hardware", "A100", "axes", "input", "batch_size",
                                      "values", 0, 32, -5, "input", "efficiency", "values", 0.5, 2));
    cr_assert_eq(json_array_size(json_object_get(doc, "rows")), 6);
    const int batches[] = {0, 0, 32, 32, -5, -5};
    for (size_t r = 0; r < 6; r++) {
        long status;
        json_t *one = solve(NULL, json_pack("{s:s,s:s,s:i,s:o}", "model", "ResNet50", "hardware", "A100", "batch_size",
                                            batches[r], "efficiency", r % 2 ? json_integer(2) : json_real(0.5)),
                            "single_node", &status);
        if (status == 200) {
            cr_assert(json_is_null(cell(doc, r, "error")));
            cr_assert(close_enough(num_cell(doc, r, "latency"),
                                   json_number_value(json_object_get(json_object_get(one, "result"), "latency"))));
        } else {
            cr_assert_eq(status, 400);
            cr_assert(json_is_null(cell(doc, r, "latency")));
            cr_assert_str_eq(str_cell(doc, r, "error"), json_string_value(json_object_get(one, "detail")), "row %zu",
                             r);
        }
        json_decref(one);
    }
    cr_assert_str_eq(str_cell(doc, 0, "error"), "batch_size must be >= 1, got 0");
    cr_assert_str_eq(str_cell(doc, 3, "error"), "efficiency must be in [1e-09, 1.0], got 2");
    json_decref(doc);
}

/* transformation has no defaults: batch_size comes only from its axis. A zero
 * throughput fails in the solver, not in a bound check; still one row. Error
 * points have no value, so no transition starts or ends at one. */
Test(sweep, solver_errors_and_transitions_skip_error_points)
{
    json_t *doc = sweep_doc(json_pack("{s:s,s:{s:s,s:s},s:[{s:s,s:[i,i]},{s:s,s:[s,s,s]}]}", "solver", "transformation",
                                      "inputs", "sample_size_bytes", "500 KB", "accelerator_step_time", "7 ms", "axes",
                                      "input", "batch_size", "values", 0, 256, "input", "cpu_throughput", "values",
                                      "0 GB/s", "2 GB/s", "64 GB/s"));
    long status;
    json_t *one = solve(NULL, json_pack("{s:i,s:s,s:s,s:s}", "batch_size", 256, "sample_size_bytes", "500 KB",
                                        "cpu_throughput", "0 GB/s", "accelerator_step_time", "7 ms"),
                        "transformation", &status);
    cr_assert_eq(status, 400);
    cr_assert_str_eq(str_cell(doc, 3, "error"), json_string_value(json_object_get(one, "detail")));
    cr_assert(strstr(str_cell(doc, 0, "error"), "cpu_throughput must be positive"));
    json_decref(one);
    /* B=256: 2 GB/s -> 64 ms > 7 ms (CPU binds), 64 GB/s -> 2 ms (it does not); B=0 never binds */
    cr_assert(json_is_true(cell(doc, 4, "is_bottleneck")));
    cr_assert(json_is_false(cell(doc, 5, "is_bottleneck")));
    cr_assert_eq(json_array_size(json_object_get(doc, "transitions")), 2, "%s",
                 json_dumps(json_object_get(doc, "transitions"), 0));
    json_t *t0 = json_array_get(json_object_get(doc, "transitions"), 0);
    json_t *t1 = json_array_get(json_object_get(doc, "transitions"), 1);
    /* found in row order of the later point: (256, 2 GB/s) comes before (256, 64 GB/s) */
    cr_assert_str_eq(json_string_value(json_object_get(t0, "axis")), "batch_size");
    cr_assert_eq(json_number_value(json_object_get(t0, "from_input")), 0);
    cr_assert_eq(json_number_value(json_object_get(t0, "to_input")), 256);
    cr_assert(json_is_false(json_object_get(t0, "from")) && json_is_true(json_object_get(t0, "to")));
    cr_assert_eq(json_number_value(json_object_get(json_object_get(t0, "at"), "cpu_throughput")), 2);
    cr_assert_str_eq(json_string_value(json_object_get(t1, "axis")), "cpu_throughput");
    cr_assert_eq(json_number_value(json_object_get(t1, "from_input")), 2);
    cr_assert_eq(json_number_value(json_object_get(t1, "to_input")), 64);
    cr_assert(json_is_true(json_object_get(t1, "from")) && json_is_false(json_object_get(t1, "to")));
    json_decref(doc);
}

/* --- the three formats carry the same values -------------------------------------------- */

static json_t *mixed_sweep_body(const char *format)
{
    /* an error row (batch 0, whose message has a comma: CSV must quote it),
     * an infeasible tiny device, numbers from 1e-6 to 1e15 */
    return json_pack("{s:s,s:{s:s},s:[{s:s,s:[s,s,s]},{s:s,s:[i,i,i]},{s:s,s:[s,s]}],s:s}", "solver", "single_node",
                     "inputs", "model", "ResNet50", "axes", "input", "hardware", "values", "A100", "H100", "ESP32_S3",
                     "input", "batch_size", "values", 0, 1, 256, "input", "precision", "values", "fp16", "int8",
                     "format", format);
}

Test(sweep, csv_parses_back_to_the_json_doubles)
{
    json_t *doc = sweep_doc(mixed_sweep_body("json"));
    http_resp r;
    post_sweep(mixed_sweep_body("csv"), &r);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.content_type, "text/csv"), "%s", r.content_type);
    char disp[200];
    cr_assert(http_header(&r, "Content-Disposition", disp, sizeof disp));
    cr_assert(strstr(disp, "attachment") && strstr(disp, "filename=\"sweep-single_node.csv\""), "%s", disp);
    json_t *cols = json_object_get(doc, "columns"), *units = json_object_get(doc, "units");
    const char *p = r.body;
    char *f[64];
    size_t n = csv_record(&p, f, 64);
    cr_assert_eq(n, json_array_size(cols));
    for (size_t j = 0; j < n; j++) {
        const char *name = json_string_value(json_array_get(cols, j));
        cr_assert_eq(strncmp(f[j], name, strlen(name)), 0, "header %s for column %s", f[j], name);
        cr_assert_eq(f[j][strlen(name)] != '\0', json_object_get(units, name) != NULL, "unit suffix of %s", f[j]);
    }
    cr_assert_str_eq(f[col(doc, "latency")], "latency_ms");
    cr_assert_str_eq(f[col(doc, "throughput")], "throughput_1_per_s");
    cr_assert_str_eq(f[col(doc, "hardware")], "hardware");
    cr_assert_str_eq(f[n - 1], "error");
    free_fields(f, n);
    size_t row = 0, numbers = 0;
    json_t *rows = json_object_get(doc, "rows");
    while (*p) {
        n = csv_record(&p, f, 64);
        json_t *jr = json_array_get(rows, row);
        cr_assert(jr, "more CSV records than JSON rows");
        cr_assert_eq(n, json_array_size(jr));
        for (size_t j = 0; j < n; j++) {
            json_t *v = json_array_get(jr, j);
            if (json_is_null(v)) {
                cr_assert_str_eq(f[j], "", "row %zu col %zu", row, j);
            } else if (json_is_string(v)) {
                cr_assert_str_eq(f[j], json_string_value(v));
            } else if (json_is_boolean(v)) {
                cr_assert_str_eq(f[j], json_is_true(v) ? "true" : "false");
            } else {
                char *end;
                double x = strtod(f[j], &end);
                cr_assert(*f[j] && !*end, "'%s' is not a C-locale number", f[j]);
                cr_assert(x == json_number_value(v), "row %zu %s: CSV %s, JSON %.17g", row,
                          json_string_value(json_array_get(cols, j)), f[j], json_number_value(v));
                numbers++;
            }
        }
        free_fields(f, n);
        row++;
    }
    cr_assert_eq(row, json_array_size(rows));
    cr_assert_gt(numbers, 100);
    cr_assert(strchr(str_cell(doc, 0, "error"), ','), "the error text should exercise CSV quoting");
    json_decref(doc);
    http_free(&r);
}

Test(sweep, ndjson_objects_equal_the_json_rows)
{
    json_t *doc = sweep_doc(mixed_sweep_body("json"));
    http_resp r;
    post_sweep(mixed_sweep_body("ndjson"), &r);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.content_type, "application/x-ndjson"), "%s", r.content_type);
    json_t *cols = json_object_get(doc, "columns"), *rows = json_object_get(doc, "rows");
    /* the first line: {"units": the JSON document's units} */
    char *line = strchr(r.body, '\n');
    cr_assert(line);
    json_t *units = json_loadb(r.body, (size_t)(line - r.body), 0, NULL);
    cr_assert(units && json_object_size(units) == 1, "%.200s", r.body);
    cr_assert(json_equal(json_object_get(units, "units"), json_object_get(doc, "units")), "%.200s", r.body);
    json_decref(units);
    line++;
    size_t row = 0;
    while (*line) {
        char *nl = strchr(line, '\n');
        cr_assert(nl, "every line ends in \\n");
        json_error_t e;
        json_t *o = json_loadb(line, (size_t)(nl - line), 0, &e);
        cr_assert(json_is_object(o), "line %zu: %s", row, e.text);
        json_t *jr = json_array_get(rows, row);
        cr_assert(jr);
        cr_assert_eq(json_object_size(o), json_array_size(cols));
        for (size_t j = 0; j < json_array_size(cols); j++) {
            const char *name = json_string_value(json_array_get(cols, j));
            cr_assert(json_equal(json_object_get(o, name), json_array_get(jr, j)), "row %zu %s", row, name);
        }
        json_decref(o);
        row++;
        line = nl + 1;
    }
    cr_assert_eq(row, json_array_size(rows));
    json_decref(doc);
    http_free(&r);
}

/* An output named like a swept input (pipeline's cpu_throughput is both)
 * gets its own column, so no format has two columns of one name. */
Test(sweep, output_named_like_an_axis_gets_its_own_column)
{
    json_t *doc = sweep_doc(json_pack("{s:s,s:{s:s,s:s,s:s},s:[{s:s,s:[s,s]}],s:[s,s]}", "solver", "pipeline", "inputs",
                                      "model", "ResNet50", "hardware", "A100", "sample_size_bytes", "500 KB", "axes",
                                      "input", "cpu_throughput", "values", "2 GB/s", "16 GB/s", "outputs",
                                      "cpu_throughput", "step_time"));
    cr_assert_eq(num_cell(doc, 1, "cpu_throughput"), 16);
    cr_assert_eq(num_cell(doc, 1, "result.cpu_throughput"), 16);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "units"), "result.cpu_throughput")),
                     "GB/s");
    json_decref(doc);
    http_resp r;
    post_sweep(json_pack("{s:s,s:{s:s,s:s,s:s},s:[{s:s,s:[s]}],s:[s],s:s}", "solver", "pipeline", "inputs", "model",
                         "ResNet50", "hardware", "A100", "sample_size_bytes", "500 KB", "axes", "input",
                         "cpu_throughput", "values", "2 GB/s", "outputs", "cpu_throughput", "format", "csv"),
               &r);
    cr_assert_eq(strncmp(r.body, "cpu_throughput_GB_per_s,result.cpu_throughput_GB_per_s,error\r\n", 62), 0, "%s",
                 r.body);
    http_free(&r);
}

/* --- axis forms ------------------------------------------------------------------------------ */

Test(sweep, range_is_inclusive_and_geomspace_hits_its_ends)
{
    json_t *doc = sweep_doc(json_pack(
        "{s:s,s:{s:s,s:s},s:[{s:s,s:{s:f,s:f,s:f}},{s:s,s:{s:i,s:i,s:i}}],s:[s]}", "solver", "single_node", "inputs",
        "model", "ResNet50", "hardware", "A100", "axes", "input", "efficiency", "range", "start", 0.1, "stop", 0.5,
        "step", 0.1, "input", "batch_size", "geomspace", "start", 1, "stop", 1024, "count", 11, "outputs", "latency"));
    cr_assert_eq(json_integer_value(json_object_get(doc, "points")), 5 * 11);
    cr_assert_eq(json_array_size(json_object_get(doc, "columns")), 4); /* 2 axes, 1 output, error */
    cr_assert_eq(num_cell(doc, 0, "efficiency"), 0.1);
    cr_assert_eq(num_cell(doc, 54, "efficiency"), 0.5, "inclusive stop, exactly");
    for (size_t k = 0; k < 11; k++)
        cr_assert_eq(num_cell(doc, k, "batch_size"), ldexp(1, (int)k));
    json_decref(doc);
    /* a quantity range with units, and a descending one */
    doc = sweep_doc(json_pack("{s:s,s:{s:i,s:s,s:s},s:[{s:s,s:{s:s,s:s,s:s}}]}", "solver", "transformation",
                              "inputs", "batch_size", 10, "cpu_throughput", "2 GB/s", "accelerator_step_time", "7 ms",
                              "axes", "input", "sample_size_bytes", "range", "start", "1 MB", "stop", "100 KB", "step",
                              "-100 KB"));
    cr_assert_eq(json_integer_value(json_object_get(doc, "points")), 10);
    cr_assert_eq(json_string_value(json_object_get(json_object_get(doc, "units"), "sample_size_bytes"))[0], 'B');
    for (size_t k = 0; k < 10; k++) {
        cr_assert(close_enough(num_cell(doc, k, "sample_size_bytes"), 1e6 - 1e5 * (double)k), "value %zu", k);
        /* 10 samples x size / 2 GB/s, in ms */
        cr_assert(close_enough(num_cell(doc, k, "transform_time"), 10 * (1e6 - 1e5 * (double)k) / 2e9 * 1e3));
    }
    cr_assert_eq(num_cell(doc, 9, "sample_size_bytes"), 1e5, "the last value is stop itself");
    json_decref(doc);
}

/* --- transitions: the tutorial "Starving the GPU" ------------------------------------------ */

/* The tutorial's batch sizes, its 500 KB samples and 250 MB/s per CPU worker,
 * on the catalog edition it was rendered with. */
static const int BATCHES[] = {32, 64, 128, 256, 512, 1024};
#define N_BATCHES 6

/* Hand model of the pipeline (docs/pipeline.md): the CPU binds when its time
 * per batch exceeds the accelerator's step; the step and the accelerator's
 * own bottleneck come from single_node through /solve. */
typedef struct {
    double acc_ms[N_BATCHES];
    char acc_bottleneck[N_BATCHES][16];
} tutorial_acc;

static void tutorial_accelerator(tutorial_acc *t)
{
    for (int i = 0; i < N_BATCHES; i++) {
        long status;
        json_t *one = solve("tutorial",
                            json_pack("{s:s,s:s,s:s,s:i}", "model", "ResNet50", "hardware", "A100", "precision", "fp16",
                                      "batch_size", BATCHES[i]),
                            "single_node", &status);
        cr_assert_eq(status, 200);
        json_t *res = json_object_get(one, "result");
        t->acc_ms[i] = json_number_value(json_object_get(res, "latency"));
        snprintf(t->acc_bottleneck[i], sizeof t->acc_bottleneck[i], "%s",
                 json_string_value(json_object_get(res, "bottleneck")));
        json_decref(one);
    }
}

static double cpu_ms(int batch, int workers) { return batch * 500e3 / (workers * 250e6) * 1e3; }

static const char *hand_binding(const tutorial_acc *t, int i, int workers)
{
    return cpu_ms(BATCHES[i], workers) > t->acc_ms[i] ? "Transformation" : t->acc_bottleneck[i];
}

static json_t *tutorial_sweep(json_t *inputs, json_t *axes)
{
    json_object_update_new(inputs,
                           json_pack("{s:s,s:s,s:s,s:s,s:s}", "model", "ResNet50", "hardware", "A100", "precision",
                                     "fp16", "sample_size_bytes", "500 KB", "per_worker_throughput", "250 MB/s"));
    return sweep_doc(json_pack("{s:s,s:s,s:o,s:o,s:[s,s,s,s]}", "solver", "pipeline", "catalog", "tutorial", "inputs",
                               inputs, "axes", axes, "outputs", "binding_stage", "accelerator_step_time",
                               "transform_time", "storage_time"));
}

/* Storage cannot bind in these sweeps, so the two-stage hand model is complete. */
static void assert_storage_never_binds(const json_t *doc)
{
    for (size_t r = 0; r < json_array_size(json_object_get(doc, "rows")); r++)
        cr_assert_lt(num_cell(doc, r, "storage_time"),
                     fmax(num_cell(doc, r, "accelerator_step_time"), num_cell(doc, r, "transform_time")));
}

static json_t *batch_axis(void)
{
    return json_pack("{s:s,s:[i,i,i,i,i,i]}", "input", "batch_size", "values", 32, 64, 128, 256, 512, 1024);
}

/* 8 workers = 2 GB/s: the CPU binds at every batch size, so binding_stage never changes. */
Test(sweep_transitions, eight_workers_cpu_binds_at_every_batch)
{
    tutorial_acc t;
    tutorial_accelerator(&t);
    json_t *doc = tutorial_sweep(json_pack("{s:i}", "cpu_workers", 8), json_pack("[o]", batch_axis()));
    assert_storage_never_binds(doc);
    for (int i = 0; i < N_BATCHES; i++) {
        cr_assert_str_eq(hand_binding(&t, i, 8), "Transformation", "by hand, batch %d", BATCHES[i]);
        cr_assert_str_eq(str_cell(doc, (size_t)i, "binding_stage"), "Transformation");
        cr_assert(close_enough(num_cell(doc, (size_t)i, "accelerator_step_time"), t.acc_ms[i]));
        cr_assert(close_enough(num_cell(doc, (size_t)i, "transform_time"), cpu_ms(BATCHES[i], 8)));
    }
    cr_assert_eq(count_transitions(doc, "binding_stage"), 0);
    json_decref(doc);
}

/* 64 workers = 16 GB/s: 0.03125 ms per sample against the accelerator's
 * 0.515 ms + ~0.026 ms per sample, so the CPU takes over past ~104 samples. */
Test(sweep_transitions, sixty_four_workers_crossover_where_the_hand_puts_it)
{
    tutorial_acc t;
    tutorial_accelerator(&t);
    int cross = -1;
    for (int i = 1; i < N_BATCHES && cross < 0; i++)
        if (strcmp(hand_binding(&t, i - 1, 64), hand_binding(&t, i, 64)))
            cross = i;
    cr_assert_eq(cross, 2, "by hand the crossover is between batch 64 and 128");
    for (int i = cross + 1; i < N_BATCHES; i++)
        cr_assert_str_eq(hand_binding(&t, i, 64), "Transformation", "one crossover only");
    json_t *doc = tutorial_sweep(json_pack("{s:i}", "cpu_workers", 64), json_pack("[o]", batch_axis()));
    assert_storage_never_binds(doc);
    for (int i = 0; i < N_BATCHES; i++)
        cr_assert_str_eq(str_cell(doc, (size_t)i, "binding_stage"), hand_binding(&t, i, 64), "batch %d", BATCHES[i]);
    cr_assert_eq(count_transitions(doc, "binding_stage"), 1);
    cr_assert(has_transition(doc, "binding_stage", "batch_size", json_integer(BATCHES[cross - 1]),
                             json_integer(BATCHES[cross]), hand_binding(&t, cross - 1, 64), "Transformation", NULL,
                             NULL));
    cr_assert_str_eq(hand_binding(&t, cross - 1, 64), "Compute");
    json_decref(doc);
}

/* batch_size x cpu_workers: every binding_stage transition on both axes is
 * one the hand model predicts, and none is missing. Along cpu_workers they
 * say where adding workers stops the CPU binding. */
Test(sweep_transitions, two_axes_say_where_the_cpu_stops_binding)
{
    tutorial_acc t;
    tutorial_accelerator(&t);
    json_t *doc = tutorial_sweep(json_object(), json_pack("[o,{s:s,s:{s:i,s:i,s:i}}]", batch_axis(), "input",
                                                          "cpu_workers", "range", "start", 8, "stop", 64, "step", 8));
    assert_storage_never_binds(doc);
    cr_assert_eq(json_array_size(json_object_get(doc, "rows")), N_BATCHES * 8);
    size_t expected = 0;
    for (int i = 0; i < N_BATCHES; i++) {
        for (int w = 8; w <= 64; w += 8) {
            size_t row = (size_t)i * 8 + (size_t)(w / 8 - 1);
            cr_assert_str_eq(str_cell(doc, row, "binding_stage"), hand_binding(&t, i, w), "batch %d, %d workers",
                             BATCHES[i], w);
            if (w > 8 && strcmp(hand_binding(&t, i, w - 8), hand_binding(&t, i, w))) {
                expected++;
                cr_assert(has_transition(doc, "binding_stage", "cpu_workers", json_integer(w - 8), json_integer(w),
                                         hand_binding(&t, i, w - 8), hand_binding(&t, i, w), "batch_size",
                                         json_integer(BATCHES[i])),
                          "missing: batch %d, %d -> %d workers", BATCHES[i], w - 8, w);
            }
            if (i > 0 && strcmp(hand_binding(&t, i - 1, w), hand_binding(&t, i, w))) {
                expected++;
                cr_assert(has_transition(doc, "binding_stage", "batch_size", json_integer(BATCHES[i - 1]),
                                         json_integer(BATCHES[i]), hand_binding(&t, i - 1, w), hand_binding(&t, i, w),
                                         "cpu_workers", json_integer(w)),
                          "missing: %d workers, batch %d -> %d", w, BATCHES[i - 1], BATCHES[i]);
            }
        }
    }
    cr_assert_eq(count_transitions(doc, "binding_stage"), expected);
    /* By hand: at batch 32 the CPU (64/w ms) falls under 1.356 ms from 48 workers; at batch 64
     * (128/w ms against 2.197 ms) from 64; from batch 128 on, 64 workers are not enough. Along
     * batch_size the CPU takes over after batch 32 at 48 and 56 workers, after 64 at 64 workers. */
    cr_assert(has_transition(doc, "binding_stage", "cpu_workers", json_integer(40), json_integer(48), "Transformation",
                             "Compute", "batch_size", json_integer(32)));
    cr_assert(has_transition(doc, "binding_stage", "cpu_workers", json_integer(56), json_integer(64), "Transformation",
                             "Compute", "batch_size", json_integer(64)));
    cr_assert(has_transition(doc, "binding_stage", "batch_size", json_integer(64), json_integer(128), "Compute",
                             "Transformation", "cpu_workers", json_integer(64)));
    cr_assert_eq(expected, 5, "two along cpu_workers, three along batch_size");
    json_decref(doc);
}

/* --- the sweep's own errors ------------------------------------------------------------------ */

typedef struct {
    const char *body;
    int status;
    const char *field;
    const char *in_detail;   /* a piece of the message that tells the user what to fix */
} bad_sweep;

#define SN "\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"}"

static const bad_sweep BAD[] = {
    {"{" SN ",\"axes\":[{\"input\":\"batch_sise\",\"values\":[1]}]}", 400, "axes[0].input", "batch_sise"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[]}]}", 400, "axes[0].values", "non-empty"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":32}]}", 400, "axes[0].values", "non-empty array"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":8,\"step\":0}}]}", 400,
     "axes[0].range.step", "non-zero"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":8,\"step\":-1}}]}", 400,
     "axes[0].range.step", "from start to stop"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":8,\"step\":0.5}}]}", 400,
     "axes[0].range.step", "whole number"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"step\":1}}]}", 400, "axes[0].range.stop",
     "missing"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":8,\"by\":1}}]}", 400, "axes[0].range",
     "'by'"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"geomspace\":{\"start\":1,\"stop\":8,\"count\":0}}]}", 400,
     "axes[0].geomspace.count", ">= 1"},
    {"{" SN ",\"axes\":[{\"input\":\"efficiency\",\"geomspace\":{\"start\":0,\"stop\":1,\"count\":3}}]}", 400,
     "axes[0].geomspace", "positive"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1],\"range\":{\"start\":1,\"stop\":2,\"step\":1}}]}", 400,
     "axes[0]", "exactly one"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\"}]}", 400, "axes[0]", "exactly one"},
    {"{" SN ",\"axes\":[{\"input\":\"hardware\",\"range\":{\"start\":1,\"stop\":2,\"step\":1}}]}", 400, "axes[0].range",
     "hardware"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1]},{\"input\":\"batch_size\",\"values\":[2]}]}", 400,
     "axes[1].input", "two axes"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[32,\"abc\"]}]}", 400, "axes[0].values[1]",
     "batch_size must be a whole number"},
    {"{" SN ",\"axes\":[{\"input\":\"precision\",\"values\":[\"fp16\",\"fp7\"]}]}", 400, "axes[0].values[1]",
     "precision 'fp7' is not supported"},
    {"{" SN ",\"axes\":[{\"input\":\"is_training\",\"values\":[\"yes\"]}]}", 400, "axes[0].values[0]", "true or false"},
    {"{" SN ",\"axes\":[{\"input\":\"efficiency\",\"values\":[\"0.5 GB\"]}]}", 400, "axes[0].values[0]", "number"},
    {"{" SN ",\"axes\":[\"batch_size\"]}", 400, "axes[0]", "object"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1],\"step\":2}]}", 400, "axes[0]", "'step'"},
    {"{" SN ",\"axes\":[]}", 400, "axes", "non-empty"},
    {"{" SN "}", 400, "axes", "non-empty"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1]}],\"outputs\":[\"latency\",\"latence\"]}", 400,
     "outputs[1]", "latence"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1]}],\"format\":\"xml\"}", 400, "format", "csv"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1]}],\"catalog\":\"old\"}", 400, "catalog", "tutorial"},
    {"{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1]}],\"axis\":1}", 400, "axis", "unknown field"},
    {"{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"efficiency\":2},"
     "\"axes\":[{\"input\":\"batch_size\",\"values\":[1]}]}",
     400, "inputs.efficiency", "efficiency must be in [1e-09, 1.0], got 2"},
    {"{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\"},\"axes\":[{\"input\":\"batch_size\",\"values\":["
     "1]}]}",
     400, "inputs.hardware", "missing required input 'hardware'"},
    {"{\"solver\":\"single_nod\",\"axes\":[{\"input\":\"batch_size\",\"values\":[1]}]}", 404, "solver", "single_nod"},
};

Test(sweep_errors, malformed_sweeps_are_400_naming_the_field)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        http_resp r;
        cr_assert_eq(http_post_json(shared_daemon(), "/sweep", BAD[i].body, &r), 0);
        cr_assert_eq(r.status, BAD[i].status, "case %zu: status %ld for %s: %s", i, r.status, BAD[i].body, r.body);
        cr_assert(strstr(r.content_type, "application/problem+json"), "case %zu", i);
        json_t *j = must_json(&r);
        cr_assert_str_eq(json_string_value(json_object_get(j, "field")), BAD[i].field, "case %zu: %s", i, r.body);
        cr_assert(strstr(json_string_value(json_object_get(j, "detail")), BAD[i].in_detail), "case %zu: %s", i, r.body);
        json_decref(j);
        http_free(&r);
    }
}

Test(sweep_errors, more_axes_than_allowed)
{
    /* nine axes, each with one valid value: only their number is wrong */
    json_t *axes = json_pack("[{s:s,s:[i]},{s:s,s:[s]},{s:s,s:[f]},{s:s,s:[b]},{s:s,s:[i]},{s:s,s:[i]},{s:s,s:[i]},"
                             "{s:s,s:[b]},{s:s,s:[b]}]",
                             "input", "batch_size", "values", 1, "input", "precision", "values", "fp16", "input",
                             "efficiency", "values", 0.5, "input", "is_training", "values", 0, "input", "seq_len",
                             "values", 2048, "input", "zero_stage", "values", 0, "input", "dp_size", "values", 1,
                             "input", "is_lora", "values", 0, "input", "activation_recomputation", "values", 0);
    cr_assert_eq(json_array_size(axes), 9);
    json_t *body = json_pack("{s:s,s:{s:s,s:s},s:O}", "solver", "single_node", "inputs", "model", "ResNet50",
                             "hardware", "A100", "axes", axes);
    http_resp r;
    post_sweep(body, &r);
    cr_assert_eq(r.status, 400, "%s", r.body);
    json_t *j = must_json(&r);
    cr_assert_str_eq(json_string_value(json_object_get(j, "field")), "axes");
    cr_assert(strstr(json_string_value(json_object_get(j, "detail")), "at most 8 axes"));
    json_decref(j);
    http_free(&r);
    /* the same first 8 are fine */
    json_array_remove(axes, 8);
    json_t *doc = sweep_doc(json_pack("{s:s,s:{s:s,s:s},s:o,s:[s]}", "solver", "single_node", "inputs", "model",
                                      "ResNet50", "hardware", "A100", "axes", axes, "outputs", "latency"));
    cr_assert_eq(json_integer_value(json_object_get(doc, "points")), 1);
    cr_assert(json_is_null(cell(doc, 0, "error")));
    json_decref(doc);
}

/* Over the cap (1,000,000 by default) is a 413 that states the cap and the
 * count, answered before anything is allocated for the points. */
Test(sweep_errors, over_the_cap_is_413_with_cap_and_count)
{
    http_resp r;
    cr_assert_eq(
        http_post_json(shared_daemon(), "/sweep",
                       "{" SN ",\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1001,\"step\":1}},"
                       "{\"input\":\"efficiency\",\"geomspace\":{\"start\":0.001,\"stop\":1,\"count\":1000}}]}",
                       &r),
        0);
    cr_assert_eq(r.status, 413, "%s", r.body);
    json_t *j = must_json(&r);
    const char *detail = json_string_value(json_object_get(j, "detail"));
    cr_assert(strstr(detail, "1001000"), "the count: %s", detail);
    cr_assert(strstr(detail, "1000000"), "the cap: %s", detail);
    json_decref(j);
    http_free(&r);
    /* a range with ~1e15 points is refused the same way, not allocated */
    cr_assert_eq(
        http_post_json(
            shared_daemon(), "/sweep",
            "{" SN ",\"axes\":[{\"input\":\"efficiency\",\"range\":{\"start\":1e-9,\"stop\":1,\"step\":1e-15}}]}", &r),
        0);
    cr_assert_eq(r.status, 413, "%s", r.body);
    http_free(&r);
    /* exactly at the cap is allowed (streamed: projected down to one column) */
    cr_assert_eq(
        http_post_json(shared_daemon(), "/sweep",
                       "{\"solver\":\"transformation\",\"inputs\":{\"sample_size_bytes\":1,\"cpu_throughput\":1,"
                       "\"accelerator_step_time\":1},\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,"
                       "\"stop\":1000000,\"step\":1}}],\"outputs\":[\"is_bottleneck\"],\"format\":\"csv\"}",
                       &r),
        0);
    cr_assert_eq(r.status, 200);
    size_t lines = 0;
    for (const char *p = r.body; (p = memchr(p, '\n', r.len - (size_t)(p - r.body))); p++)
        lines++;
    cr_assert_eq(lines, 1000001);
    http_free(&r);
}

/* --- GET form, Accept ------------------------------------------------------------------------ */

Test(sweep, get_with_commas_equals_post)
{
    http_resp g, p;
    cr_assert_eq(http_get(shared_daemon(),
                          "/sweep/single_node?model=ResNet50&batch_size=32,64,128&hardware=A100,H100&format=csv"
                          "&outputs=latency,bottleneck",
                          &g),
                 0);
    cr_assert_eq(g.status, 200, "%s", g.body);
    cr_assert(strstr(g.content_type, "text/csv"));
    post_sweep(json_pack("{s:s,s:{s:s},s:[{s:s,s:[i,i,i]},{s:s,s:[s,s]}],s:[s,s],s:s}", "solver", "single_node",
                         "inputs", "model", "ResNet50", "axes", "input", "batch_size", "values", 32, 64, 128, "input",
                         "hardware", "values", "A100", "H100", "outputs", "latency", "bottleneck", "format", "csv"),
               &p);
    cr_assert_eq(p.status, 200);
    cr_assert_str_eq(g.body, p.body);
    cr_assert_eq(strncmp(g.body, "batch_size,hardware,latency_ms,bottleneck,error\r\n32,A100,", 57), 0, "%s", g.body);
    http_free(&g);
    http_free(&p);
    /* quantities with units, and the catalog edition, in a query string */
    cr_assert_eq(
        http_get(shared_daemon(),
                 "/sweep/transformation?batch_size=256&sample_size_bytes=500%20KB,5%20MB&cpu_throughput=2%20GB/s"
                 "&accelerator_step_time=7.24%20ms&catalog=tutorial",
                 &g),
        0);
    cr_assert_eq(g.status, 200, "%s", g.body);
    json_t *doc = must_json(&g);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "catalog")), "tutorial");
    cr_assert_eq(num_cell(doc, 1, "sample_size_bytes"), 5e6);
    cr_assert(close_enough(num_cell(doc, 1, "transform_time"), 256 * 5e6 / 2e9 * 1e3));
    json_decref(doc);
    http_free(&g);
}

/* GET reads its query straight into the sweep (no body in between): every
 * form answers exactly what the POST body with the same meaning answers. */
Test(sweep, get_forms_equal_their_post_bodies)
{
    static const struct {
        const char *get, *post;
    } cases[] = {
        /* an enum axis with a fixed input of the same name (the axis wins), the index column */
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32&precision=fp16,int8&precision=fp32&index",
         "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\",\"batch_size\":32,"
         "\"precision\":\"fp32\"},\"axes\":[{\"input\":\"precision\",\"values\":[\"fp16\",\"int8\"]}],\"index\":true}"},
        /* a member axis over a catalog fleet, crossed with an integer axis, as NDJSON */
        {"/sweep/distributed?model=Llama3_70B&fleet=Research_256&fleet.count=8,16&tp_size=4,8&batch_size=256"
         "&format=ndjson",
         "{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":\"Research_256\","
         "\"batch_size\":256},\"axes\":[{\"input\":\"fleet.count\",\"values\":[8,16]},{\"input\":\"tp_size\","
         "\"values\":[4,8]}],\"format\":\"ndjson\"}"},
        /* a member axis over an inline record given by dotted members */
        {"/sweep/distributed?model=Llama3_70B&fleet.node=DGX_H100&fleet.fabric=Ethernet_100G&fleet.count=8,16"
         "&batch_size=256&outputs=parallelism,step_latency_total",
         "{\"solver\":\"distributed\",\"inputs\":{\"model\":\"Llama3_70B\",\"fleet\":{\"node\":\"DGX_H100\","
         "\"fabric\":\"Ethernet_100G\"},\"batch_size\":256},\"axes\":[{\"input\":\"fleet.count\",\"values\":[8,16]}],"
         "\"outputs\":[\"parallelism\",\"step_latency_total\"]}"},
        /* a catalog axis, a record input with a member override, one shard as CSV */
        {"/sweep/single_node?model=ResNet50&model.inference_flops=4.1%20GFLOP&hardware=A100,H100,T4&batch_size=32"
         "&shard=1/2&format=csv&calibration=measured",
         "{\"solver\":\"single_node\",\"inputs\":{\"model\":{\"base\":\"ResNet50\",\"inference_flops\":\"4.1 GFLOP\"},"
         "\"batch_size\":32},\"axes\":[{\"input\":\"hardware\",\"values\":[\"A100\",\"H100\",\"T4\"]}],"
         "\"shard\":\"1/2\",\"format\":\"csv\",\"calibration\":\"measured\"}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_resp g, p;
        cr_assert_eq(http_get(shared_daemon(), cases[i].get, &g), 0);
        cr_assert_eq(g.status, 200, "%s: %ld %s", cases[i].get, g.status, g.body);
        cr_assert_eq(http_post_json(shared_daemon(), "/sweep", cases[i].post, &p), 0);
        cr_assert_eq(p.status, 200, "%s: %ld %s", cases[i].post, p.status, p.body);
        cr_expect_str_eq(g.content_type, p.content_type, "%s", cases[i].get);
        cr_expect_str_eq(g.body, p.body, "%s", cases[i].get);
        http_free(&g);
        http_free(&p);
    }
}

Test(sweep_errors, get_form_errors_name_the_input)
{
    static const struct {
        const char *path;
        int status;
        const char *field;
    } cases[] = {
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32,,64", 400, "inputs.batch_size"},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32,abc", 400, "inputs.batch_size"},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_sise=32,64", 400, "inputs.batch_sise"},
        {"/sweep/single_node?model=ResNet50&batch_size=32,64", 400, "inputs.hardware"},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32", 400, ""},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32,64&format=xml", 400, "format"},
        {"/sweep/no_such_solver?batch_size=32,64", 404, "solver"},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32,64&outputs=latency,nope", 400, "outputs[1]"},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32,64&index=maybe", 400, "index"},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=32,64&shard=x", 400, "shard"},
        {"/sweep/single_node?model=ResNet50&hardware=A100,H100&hardware=Nope&batch_size=32", 404, "inputs.hardware"},
        {"/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=0", 400, "inputs.batch_size"},
        {"/sweep/single_node?model=ResNet50&hardware=A100,H100&batch_size=32&batch_size.x=1", 400,
         "inputs.batch_size.x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_resp r;
        cr_assert_eq(http_get(shared_daemon(), cases[i].path, &r), 0);
        cr_assert_eq(r.status, cases[i].status, "%s: %ld %s", cases[i].path, r.status, r.body);
        json_t *j = must_json(&r);
        json_t *f = json_object_get(j, "field");
        cr_assert_str_eq(f ? json_string_value(f) : "", cases[i].field, "%s: %s", cases[i].path, r.body);
        json_decref(j);
        http_free(&r);
    }
}

Test(sweep, accept_header_chooses_the_format)
{
    static const char *const body =
        "{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2]}],\"outputs\":[\"latency\"]}";
    static const struct {
        const char *accept;
        const char *type;
        char first;
    } cases[] = {
        {"Accept: text/csv", "text/csv", 'b'},
        {"Accept: application/x-ndjson", "application/x-ndjson", '{'},
        {"Accept: application/json", "application/json", '{'},
        {"Accept: */*", "application/json", '{'},
        {"Accept: application/json, text/csv;q=0.5", "application/json", '{'},
        {"Accept: TEXT/CSV, application/json;q=0.5", "text/csv", 'b'},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *h[] = {"Content-Type: application/json", cases[i].accept, NULL};
        http_resp r;
        cr_assert_eq(http_request(shared_daemon(), "POST", "/sweep", h, body, strlen(body), &r), 0);
        cr_assert_eq(r.status, 200);
        cr_assert(strstr(r.content_type, cases[i].type), "%s gave %s", cases[i].accept, r.content_type);
        cr_assert_eq(r.body[0], cases[i].first, "%s", cases[i].accept);
        if (!strcmp(cases[i].type, "application/x-ndjson"))
            cr_assert(strstr(r.body, "}\n{"), "one object per line: %s", r.body);
        http_free(&r);
    }
    /* an explicit format wins over Accept */
    const char *explicit_body =
        "{" SN ",\"axes\":[{\"input\":\"batch_size\",\"values\":[1,2]}],\"outputs\":[\"latency\"],\"format\":\"json\"}";
    const char *h[] = {"Content-Type: application/json", "Accept: text/csv", NULL};
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "POST", "/sweep", h, explicit_body, strlen(explicit_body), &r), 0);
    cr_assert(strstr(r.content_type, "application/json"), "%s", r.content_type);
    http_free(&r);
}

/* --- streaming ------------------------------------------------------------------------------- */

typedef struct {
    unsigned long long bytes, lines;
    char tail[600];
    size_t tail_len;
    pid_t pid;
    long rss_max_kb;
    unsigned long long next_sample;
} stream_stats;

/* Counts and discards: a 10M-point body is never held by the test either. */
static size_t on_stream(char *ptr, size_t size, size_t nmemb, void *ud)
{
    stream_stats *s = ud;
    size_t n = size * nmemb;
    for (const char *p = ptr; (p = memchr(p, '\n', n - (size_t)(p - ptr))); p++)
        s->lines++;
    s->bytes += n;
    if (n >= sizeof s->tail) {
        memcpy(s->tail, ptr + n - (sizeof s->tail - 1), sizeof s->tail - 1);
        s->tail_len = sizeof s->tail - 1;
    } else {
        if (s->tail_len + n >= sizeof s->tail) {
            size_t drop = s->tail_len + n - (sizeof s->tail - 1);
            memmove(s->tail, s->tail + drop, s->tail_len - drop);
            s->tail_len -= drop;
        }
        memcpy(s->tail + s->tail_len, ptr, n);
        s->tail_len += n;
    }
    s->tail[s->tail_len] = '\0';
    if (s->bytes >= s->next_sample) {
        long rss = proc_status_kib(s->pid, "VmRSS");
        if (rss > s->rss_max_kb)
            s->rss_max_kb = rss;
        s->next_sample = s->bytes + (4u << 20);
    }
    return n;
}

static long stream_sweep(const daemon_t *d, const char *body, stream_stats *s, double *seconds)
{
    memset(s, 0, sizeof *s);
    s->pid = d->pid;
    CURL *c = curl_easy_init();
    char url[128];
    snprintf(url, sizeof url, "%s/sweep", d->base);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CURLcode rc = curl_easy_perform(c);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    long status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    cr_assert_eq(rc, CURLE_OK, "%s", curl_easy_strerror(rc));
    return status;
}

/* transformation over batch_size x sample_size_bytes, one projected column:
 * the cheapest solver, so the test measures the streaming, not the physics. */
static void points_body(char *buf, size_t n, int batches)
{
    snprintf(
        buf, n,
        "{\"solver\":\"transformation\",\"inputs\":{\"cpu_throughput\":\"2 GB/s\",\"accelerator_step_time\":\"7 ms\"},"
        "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":0,\"stop\":%d,\"step\":1}},"
        "{\"input\":\"sample_size_bytes\",\"range\":{\"start\":1,\"stop\":1000,\"step\":1}}],"
        "\"outputs\":[\"is_bottleneck\"],\"format\":\"csv\"}",
        batches - 1);
}

Test(sweep_stream, ten_million_points_in_the_memory_of_one_million, .timeout = 240)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, (const char *[]){"--sweep-max-points", "20000000", NULL}, NULL), 0);
    char body[600];
    stream_stats s;
    double secs;
    /* warm-up: the first sweep's one-off allocations are not the stream's */
    points_body(body, sizeof body, 10);
    cr_assert_eq(stream_sweep(&d, body, &s, &secs), 200);
    points_body(body, sizeof body, 1000);
    cr_assert_eq(stream_sweep(&d, body, &s, &secs), 200);
    cr_assert_eq(s.lines, 1000001ULL, "header + 1M rows, got %llu", s.lines);
    long hwm_1m = proc_status_kib(d.pid, "VmHWM"), rss_1m = s.rss_max_kb;
    double secs_1m = secs;
    points_body(body, sizeof body, 10000);
    cr_assert_eq(stream_sweep(&d, body, &s, &secs), 200);
    cr_assert_eq(s.lines, 10000001ULL, "header + 10M rows, got %llu", s.lines);
    cr_assert(!strstr(s.tail, "cut off"), "%s", s.tail);
    cr_assert(strstr(s.tail, "\r\n9999,1000,false,\r\n"), "the last row is the last point: %s", s.tail);
    long hwm_10m = proc_status_kib(d.pid, "VmHWM");
    cr_log_info("sweep stream: 1M points %.1f s, 10M points %.1f s (%.0f points/s, %.0f MB); server VmHWM %ld kB "
                "after 1M, %ld kB after 10M; VmRSS peak while streaming %ld kB (1M), %ld kB (10M)",
                secs_1m, secs, 1e7 / secs, (double)s.bytes / 1e6, hwm_1m, hwm_10m, rss_1m, s.rss_max_kb);
    cr_assert_gt(hwm_1m, 0);
    cr_assert_leq(hwm_10m, hwm_1m + 8 * 1024, "peak RSS grew from %ld kB to %ld kB", hwm_1m, hwm_10m);
    cr_assert_eq(daemon_stop(&d), 0);
}

/* A sweep longer than --request-timeout ends early, and says so in-band. */
Test(sweep_stream, cut_off_by_the_request_timeout_says_so)
{
    daemon_t d;
    cr_assert_eq(daemon_start(&d, (const char *[]){"--request-timeout", "0.05", NULL}, NULL), 0);
    char body[600];
    points_body(body, sizeof body, 1000);
    stream_stats s;
    double secs;
    cr_assert_eq(stream_sweep(&d, body, &s, &secs), 200);
    cr_assert_lt(s.lines, 1000001ULL);
    cr_assert(strstr(s.tail, "sweep cut off by the request timeout (0.05 s) after "), "%s", s.tail);
    cr_assert(strstr(s.tail, " of 1000000 points"), "%s", s.tail);
    cr_assert_eq(daemon_stop(&d), 0);
}

/* API.md's sweep example fixes "hardware": "A100" and also sweeps hardware over
 * A100 and H100 (its fixed cpu_throughput is left out here: with a cpu_workers
 * axis every row would say "give CPU capacity one way"): the axis wins (96 = 6 batches x 2 hardware x 8 worker counts),
 * but a fixed value that is not valid is still an error. */
Test(sweep, an_axis_replaces_the_same_fixed_input)
{
    json_t *doc = sweep_doc(json_pack(
        "{s:s,s:{s:s,s:s,s:s},s:[{s:s,s:[i,i,i,i,i,i]},{s:s,s:[s,s]},{s:s,s:{s:i,s:i,s:i}}],s:[s,s,s]}",
        "solver", "pipeline", "inputs", "model", "ResNet50", "hardware", "A100", "sample_size_bytes", "500 KB",
        "axes", "input", "batch_size", "values", 32, 64, 128, 256, 512, 1024, "input",
        "hardware", "values", "A100", "H100", "input", "cpu_workers", "range", "start", 8, "stop", 64, "step", 8,
        "outputs", "step_time", "binding_stage", "accelerator_utilization"));
    cr_assert_eq(json_integer_value(json_object_get(doc, "points")), 96);
    int h100 = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(doc, "rows")); i++) {
        h100 += strcmp(str_cell(doc, i, "hardware"), "H100") == 0;
        cr_expect(json_is_null(cell(doc, i, "error")), "row %zu has an error", i);
    }
    cr_expect_eq(h100, 48, "half the rows are on the swept H100, not the fixed A100");
    json_decref(doc);

    http_resp r;
    post_sweep(json_pack("{s:s,s:{s:s,s:s},s:[{s:s,s:[s]}]}", "solver", "single_node", "inputs", "model", "ResNet50",
                         "hardware", "NoSuchChip", "axes", "input", "hardware", "values", "H100"),
               &r);
    cr_expect_eq(r.status, 404, "%s", r.body);
    json_t *p = must_json(&r);
    cr_expect_str_eq(json_string_value(json_object_get(p, "field")), "inputs.hardware");
    json_decref(p);
    http_free(&r);
}
