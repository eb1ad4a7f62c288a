/* test_oracles.c - every answer checked against the served contract and
 * against the other answers (issue 30, section 1).
 *
 * A generated walk, not hand-picked cases: for every solver GET /solvers lists,
 * its worked example (GET /solvers/{name} "example") and mutants of it (each
 * required input missing, a value of the wrong type, a value past a bound, an
 * unknown catalog id or enum value, an unknown input, an unknown top-level
 * member, a bad calibration) go through POST /solve, GET /solve/{name}, /batch,
 * /sweep (JSON, CSV, NDJSON, sharded) and /optimize, in both calibration modes.
 *
 * Every reply, 2xx or 4xx, is checked by contract_check (schema.c) against the
 * schema /openapi.json declares for its path, method, status and media type;
 * a 5xx fails the test. The answers must also agree:
 *   - GET /solve/{name} = POST /solve;
 *   - a refused mutant is a 400 or a 404 whose field names what was changed;
 *   - every /batch item = POST /solve of the same body (answer or problem);
 *   - every sweep row = POST /solve at that point (an error row carries the
 *     detail /solve gives there);
 *   - the CSV and NDJSON of a sweep = its JSON, cell by cell;
 *   - shard 0/2 + shard 1/2 = the unsharded sweep (CSV and NDJSON byte for
 *     byte, JSON rows);
 *   - /optimize's best point answers what POST /solve answers there, and no
 *     point of its sweep has a smaller objective.
 * Each mode (mlsysim, measured) runs all of it. Where a fixed case of these
 * already has a test (test_measured.c, test_sweep.c, test_shards.c,
 * test_batch.c), this one adds breadth: every solver, mutants, every format. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "schema.h"

/* ---- sending, with the contract as the oracle of every reply ---------------------------------- */

static json_t *g_doc;     /* the served contract, fetched once per test */
static int g_requests;    /* replies checked in this test */

static void fetch_contract(void)
{
    if (!g_doc)
        g_doc = api_get_ok("/openapi.json");
}

/* Sends and checks the reply against the contract; no 5xx. The caller frees r. */
static void send_checked(const char *method, const char *path, const char *body, const char *accept, http_resp *r)
{
    fetch_contract();
    const char *h[4];
    int n = 0;
    char acc[96];
    if (body)
        h[n++] = "Content-Type: application/json";
    if (accept) {
        snprintf(acc, sizeof acc, "Accept: %s", accept);
        h[n++] = acc;
    }
    h[n] = NULL;
    cr_assert_eq(http_request(shared_daemon(), method, path, n ? h : NULL, body, body ? strlen(body) : 0, r), 0,
                 "%s %s: transport error", method, path);
    g_requests++;
    cr_expect_lt(r->status, 500, "%s %s %.300s: %ld %.500s", method, path, body ? body : "", r->status, r->body);
    char err[1400];
    cr_expect(contract_check(g_doc, method, path, r->status, r->content_type, r->body, r->len, err, sizeof err),
              "the reply differs from the served contract: %s\n  request: %s %s %.600s\n  reply: %ld %s %.300s", err,
              method, path, body ? body : "", r->status, r->content_type, r->body);
}

/* POST a document (stolen) to path; returns the parsed reply (NULL if not JSON) and its status. */
static json_t *post_checked(const char *path, json_t *doc, long *status)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    http_resp r;
    send_checked("POST", path, text, NULL, &r);
    *status = r.status;
    json_t *j = http_json(&r);
    http_free(&r);
    free(text);
    return j;
}

static json_t *solve_doc(const char *solver, const json_t *inputs, const char *mode)
{
    json_t *b = json_pack("{s:s,s:O}", "solver", solver, "inputs", inputs);
    if (mode)
        json_object_set_new(b, "calibration", json_string(mode));
    return b;
}

/* A dotted output name ("parallelism.dp") inside an answer's result. */
static const json_t *result_at(const json_t *answer, const char *name)
{
    const json_t *res = json_object_get(answer, "result");
    const json_t *v = json_object_get(res, name);
    if (v)
        return v;
    char buf[160];
    snprintf(buf, sizeof buf, "%s", name);
    v = res;
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

/* ---- the walk's inputs --------------------------------------------------------------------------- */

static const char *const MODES[] = {"mlsysim", "measured"};

typedef struct {
    char name[64];
    json_t *desc;      /* GET /solvers/{name} */
    json_t *example;   /* its "example" */
} solver_t;

static size_t load_solvers(solver_t **out)
{
    json_t *list = api_get_ok("/solvers");
    size_t n = json_array_size(json_object_get(list, "solvers"));
    solver_t *s = calloc(n, sizeof *s);
    for (size_t i = 0; i < n; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(json_object_get(list, "solvers"), i), "name"));
        snprintf(s[i].name, sizeof s[i].name, "%s", name);
        char path[128];
        snprintf(path, sizeof path, "/solvers/%s", name);
        http_resp r;
        send_checked("GET", path, NULL, NULL, &r);
        cr_assert_eq(r.status, 200, "%s", path);
        s[i].desc = http_json(&r);
        http_free(&r);
        s[i].example = json_incref(json_object_get(s[i].desc, "example"));
        cr_assert(json_is_object(s[i].example), "%s has no example", path);
    }
    json_decref(list);
    *out = s;
    return n;
}

static void free_solvers(solver_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_decref(s[i].desc);
        json_decref(s[i].example);
    }
    free(s);
}

static const json_t *input_desc(const solver_t *s, const char *name)
{
    size_t i;
    json_t *in;
    json_array_foreach(json_object_get(s->desc, "inputs"), i, in)
        if (!strcmp(json_string_value(json_object_get(in, "name")), name))
            return in;
    return NULL;
}

/* An integer or number input of the example to sweep, and two or three values
 * of it inside its bounds (the example's among them); false if none. */
static bool pick_axis(const solver_t *s, char *axis, size_t an, json_t **values)
{
    const char *k;
    json_t *v;
    json_object_foreach(s->example, k, v) {
        const json_t *d = input_desc(s, k);
        const char *type = json_string_value(json_object_get(d, "type"));
        if (!type || !json_is_number(v))
            continue;
        double x = json_number_value(v);
        const json_t *mn = json_object_get(d, "minimum"), *mx = json_object_get(d, "maximum"),
                     *emn = json_object_get(d, "exclusiveMinimum");
        double lo = mn ? json_number_value(mn) : emn ? json_number_value(emn) : -INFINITY;
        double hi = mx ? json_number_value(mx) : INFINITY;
        if (!strcmp(type, "integer") && json_is_integer(v)) {
            json_int_t a = json_integer_value(v);
            json_int_t up = a * 2, down = a / 2;
            *values = json_array();
            if (down > lo && down != a && down >= 1)
                json_array_append_new(*values, json_integer(down));
            json_array_append_new(*values, json_integer(a));
            if (up <= hi && up != a)
                json_array_append_new(*values, json_integer(up));
        } else if (!strcmp(type, "number")) {
            *values = json_array();
            if (x * 0.5 > lo && x != 0)
                json_array_append_new(*values, json_real(x * 0.5));
            json_array_append_new(*values, json_real(x));
            if (x * 1.5 <= hi && x != 0)
                json_array_append_new(*values, json_real(x * 1.5));
        } else {
            continue;
        }
        if (json_array_size(*values) < 2) {
            json_decref(*values);
            continue;
        }
        snprintf(axis, an, "%s", k);
        return true;
    }
    return false;
}

/* ---- 1. examples and mutants through /solve ---------------------------------------------------- */

typedef struct {
    char what[200];
    json_t *inputs;        /* the mutated inputs */
    json_t *extra;         /* members added to the body (an unknown member, a bad calibration), or NULL */
    char field[128];       /* the field the refusal must name */
} mutant;

static size_t make_mutants(const solver_t *s, mutant *m, size_t max)
{
    size_t n = 0;
#define ADD(field_fmt, ...)                                                                                          \
    do {                                                                                                             \
        if (n < max) {                                                                                               \
            snprintf(m[n].field, sizeof m[n].field, field_fmt, __VA_ARGS__);                                         \
            n++;                                                                                                     \
        }                                                                                                            \
    } while (0)
    size_t i;
    json_t *in;
    json_array_foreach(json_object_get(s->desc, "inputs"), i, in) {
        const char *name = json_string_value(json_object_get(in, "name"));
        const char *type = json_string_value(json_object_get(in, "type"));
        if (n + 4 >= max)
            break;
        /* a required input missing */
        if (json_is_true(json_object_get(in, "required"))) {
            m[n].inputs = json_deep_copy(s->example);
            m[n].extra = NULL;
            json_object_del(m[n].inputs, name);
            snprintf(m[n].what, sizeof m[n].what, "%s without its required %s", s->name, name);
            ADD("inputs.%s", name);
        }
        /* a wrong type: an object where a number, string or boolean goes; a boolean for a number */
        m[n].inputs = json_deep_copy(s->example);
        m[n].extra = NULL;
        if (!strcmp(type, "integer") || !strcmp(type, "number") || !strcmp(type, "quantity"))
            json_object_set_new(m[n].inputs, name, json_true());
        else if (!strcmp(type, "boolean"))
            json_object_set_new(m[n].inputs, name, json_integer(42));
        else if (!strcmp(type, "list"))
            json_object_set_new(m[n].inputs, name, json_integer(7));
        else
            json_object_set_new(m[n].inputs, name, json_integer(7));
        snprintf(m[n].what, sizeof m[n].what, "%s with %s of the wrong type", s->name, name);
        ADD("inputs.%s", name);
        /* past a bound */
        const json_t *mn = json_object_get(in, "minimum"), *mx = json_object_get(in, "maximum"),
                     *emn = json_object_get(in, "exclusiveMinimum");
        if ((!strcmp(type, "integer") || !strcmp(type, "number")) && (mn || mx || emn)) {
            m[n].inputs = json_deep_copy(s->example);
            m[n].extra = NULL;
            double x = mx ? json_number_value(mx) + 1 : mn ? json_number_value(mn) - 1 : json_number_value(emn);
            json_object_set_new(m[n].inputs, name, !strcmp(type, "integer") ? json_integer((json_int_t)x) : json_real(x));
            snprintf(m[n].what, sizeof m[n].what, "%s with %s = %g, out of range", s->name, name, x);
            ADD("inputs.%s", name);
        }
        /* an unknown enum value or catalog id */
        if (!strcmp(type, "enum") || json_object_get(in, "catalog_kinds")) {
            m[n].inputs = json_deep_copy(s->example);
            m[n].extra = NULL;
            json_object_set_new(m[n].inputs, name, json_string("NoSuch_Zzq9"));
            snprintf(m[n].what, sizeof m[n].what, "%s with an unknown %s", s->name, name);
            ADD("inputs.%s", name);
        }
    }
    if (n + 3 <= max) {
        m[n].inputs = json_deep_copy(s->example);
        json_object_set_new(m[n].inputs, "no_such_input_zz", json_integer(1));
        m[n].extra = NULL;
        snprintf(m[n].what, sizeof m[n].what, "%s with an unknown input", s->name);
        ADD("%s", "inputs.no_such_input_zz");
        m[n].inputs = json_deep_copy(s->example);
        m[n].extra = json_pack("{s:i}", "no_such_member", 1);
        snprintf(m[n].what, sizeof m[n].what, "%s with an unknown top-level member", s->name);
        ADD("%s", "no_such_member");
        m[n].inputs = json_deep_copy(s->example);
        m[n].extra = json_pack("{s:s}", "calibration", "bogus");
        snprintf(m[n].what, sizeof m[n].what, "%s with calibration 'bogus'", s->name);
        ADD("%s", "calibration");
    }
#undef ADD
    return n;
}

static void free_mutants(mutant *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_decref(m[i].inputs);
        json_decref(m[i].extra);
    }
}

/* The field a refusal names starts with `want` ("inputs.fleet" also covers "inputs.fleet.count"). */
static bool names_field(const json_t *problem, const char *want)
{
    const char *f = json_string_value(json_object_get(problem, "field"));
    size_t n = strlen(want);
    return f && !strncmp(f, want, n) && (f[n] == '\0' || f[n] == '.' || f[n] == '[');
}

Test(oracles, examples_and_mutants_of_every_solver_fit_the_contract, .timeout = 300)
{
    solver_t *s;
    size_t ns = load_solvers(&s);
    int refused = 0;
    for (size_t i = 0; i < ns; i++) {
        for (int md = 0; md < 2; md++) {
            const char *mode = MODES[md];
            long st;
            json_t *post = post_checked("/solve", solve_doc(s[i].name, s[i].example, mode), &st);
            cr_expect_eq(st, 200, "%s's example in %s mode: %ld", s[i].name, mode, st);
            /* GET /solve/{name} with the same inputs */
            char *q = inputs_query(s[i].example);
            size_t plen = strlen(q) + 128;
            char *path = malloc(plen);
            snprintf(path, plen, "/solve/%s?%s&calibration=%s", s[i].name, q, mode);
            http_resp r;
            send_checked("GET", path, NULL, NULL, &r);
            if (r.status == 200) {
                json_t *get = http_json(&r);
                char what[200];
                snprintf(what, sizeof what, "%s (%s): GET /solve/{name} result", s[i].name, mode);
                expect_same_json(json_object_get(get, "result"), json_object_get(post, "result"), what);
                json_decref(get);
            } else {
                /* a record or list input may not have a query form: then the refusal names it */
                cr_expect(r.status == 400, "%s: %ld %.300s", path, r.status, r.body);
            }
            http_free(&r);
            free(path);
            free(q);
            json_decref(post);
        }
        /* mutants, in the default mode (their refusal does not depend on it) and measured */
        mutant m[128];
        size_t nm = make_mutants(&s[i], m, 128);
        for (size_t k = 0; k < nm; k++) {
            json_t *body = solve_doc(s[i].name, m[k].inputs, k % 2 ? "measured" : NULL);
            if (m[k].extra)
                json_object_update(body, m[k].extra);
            long st;
            json_t *ans = post_checked("/solve", body, &st);
            if (st == 400 || st == 404) {
                refused++;
                cr_expect(names_field(ans, m[k].field), "%s: the %ld names field '%s', not %s", m[k].what, st,
                          json_string_value(json_object_get(ans, "field")), m[k].field);
            } else {
                /* a type that coerces (a boolean where any value is allowed) may be accepted: then it is a full answer */
                cr_expect_eq(st, 200, "%s: %ld", m[k].what, st);
            }
            json_decref(ans);
        }
        free_mutants(m, nm);
    }
    cr_log_info("oracles: %d replies checked against the contract, %d mutants refused", g_requests, refused);
    cr_expect_gt(refused, 10 * (int)ns, "only %d refusals over %zu solvers", refused, ns);
    free_solvers(s, ns);
    json_decref(g_doc);
    g_doc = NULL;
}

/* ---- 2. /batch items = /solve ------------------------------------------------------------------ */

Test(oracles, batch_items_equal_solve_in_both_modes, .timeout = 300)
{
    solver_t *s;
    size_t ns = load_solvers(&s);
    for (int md = 0; md < 2; md++) {
        json_t *items = json_array();
        json_t *bodies = json_array();
        for (size_t i = 0; i < ns; i++) {
            json_array_append_new(bodies, solve_doc(s[i].name, s[i].example, MODES[md]));
            mutant m[128];
            size_t nm = make_mutants(&s[i], m, 128);
            /* a refused mutant beside each answer: the problem must be /solve's too */
            if (nm) {
                size_t k = i % nm;
                json_t *b = solve_doc(s[i].name, m[k].inputs, MODES[md]);
                if (m[k].extra && !json_object_get(m[k].extra, "no_such_member"))
                    json_object_update(b, m[k].extra);
                json_array_append_new(bodies, b);
            }
            free_mutants(m, nm);
        }
        size_t i;
        json_t *b;
        json_array_foreach(bodies, i, b) json_array_append(items, b);
        long st;
        json_t *batch = post_checked("/batch", json_pack("{s:o}", "items", items), &st);
        cr_assert_eq(st, 200, "/batch: %ld", st);
        const json_t *got = json_object_get(batch, "items");
        cr_assert_eq(json_array_size(got), json_array_size(bodies));
        json_array_foreach(bodies, i, b) {
            long sst;
            json_t *want = post_checked("/solve", json_incref(b), &sst);
            const json_t *item = json_array_get(got, i);
            char what[200];
            snprintf(what, sizeof what, "%s batch item %zu (%s)", MODES[md], i,
                     json_string_value(json_object_get(b, "solver")));
            cr_expect_eq(json_integer_value(json_object_get(item, "status")), sst, "%s: status", what);
            if (sst == 200) {
                expect_same_json(json_object_get(item, "response"), want, what);
            } else {
                const json_t *p = json_object_get(item, "problem");
                const char *keys[] = {"type", "title", "status", "detail"};
                for (int k = 0; k < 4; k++)
                    expect_same_json(json_object_get(p, keys[k]), json_object_get(want, keys[k]), what);
                char field[200];
                snprintf(field, sizeof field, "items[%zu].%s", i, json_string_value(json_object_get(want, "field")));
                cr_expect_str_eq(json_string_value(json_object_get(p, "field")), field, "%s: field", what);
            }
            json_decref(want);
        }
        json_decref(batch);
        json_decref(bodies);
    }
    free_solvers(s, ns);
    json_decref(g_doc);
    g_doc = NULL;
}

/* ---- 3. sweeps: rows = /solve, formats agree, shards concatenate ---------------------------------- */

/* One RFC 4180 field at *p; *end: the record ended (CRLF consumed). malloc'd. */
static char *csv_field(const char **p, bool *end)
{
    const char *s = *p;
    size_t cap = strlen(s) + 1, len = 0;
    char *f = malloc(cap);
    if (*s == '"') {
        for (s++; *s; s++) {
            if (s[0] == '"' && s[1] == '"')
                f[len++] = *s++;
            else if (*s == '"')
                break;
            else
                f[len++] = *s;
        }
        if (*s == '"')
            s++;
    } else {
        while (*s && *s != ',' && *s != '\r' && *s != '\n')
            f[len++] = *s++;
    }
    f[len] = '\0';
    *end = *s != ',';
    if (*s == ',')
        s++;
    else if (s[0] == '\r' && s[1] == '\n')
        s += 2;
    else
        cr_expect_fail("a CSV record must end in CRLF: '%.20s'", s);
    *p = s;
    return f;
}

/* A CSV field against the JSON cell of the same sweep. */
static void expect_csv_cell(const char *f, const json_t *cell, const char *what)
{
    if (json_is_null(cell))
        cr_expect_str_eq(f, "", "%s", what);
    else if (json_is_boolean(cell))
        cr_expect_str_eq(f, json_is_true(cell) ? "true" : "false", "%s", what);
    else if (json_is_string(cell))
        cr_expect_str_eq(f, json_string_value(cell), "%s", what);
    else if (json_is_number(cell)) {
        char *e;
        double x = strtod(f, &e);
        cr_expect(*f && !*e && x == json_number_value(cell), "%s: CSV '%s', JSON %.17g", what, f,
                  json_number_value(cell));
    } else {
        char *t = json_dumps(cell, JSON_COMPACT | JSON_ENCODE_ANY);
        cr_expect_fail("%s: a JSON cell that is not a scalar: %s", what, t);
        free(t);
    }
}

/* POST /sweep text, checked; returns the reply (caller frees). */
static void sweep_raw(json_t *body, const char *format, const char *shard, http_resp *r)
{
    json_t *b = json_deep_copy(body);
    if (format)
        json_object_set_new(b, "format", json_string(format));
    if (shard)
        json_object_set_new(b, "shard", json_string(shard));
    char *text = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    send_checked("POST", "/sweep", text, NULL, r);
    free(text);
}

static void check_sweep(const solver_t *s, const char *mode, int *rows_checked)
{
    char axis[64];
    json_t *values;
    if (!pick_axis(s, axis, sizeof axis, &values))
        return;
    json_t *fixed = json_deep_copy(s->example);
    json_object_del(fixed, axis);
    json_t *body = json_pack("{s:s,s:s,s:O,s:[{s:s,s:O}]}", "solver", s->name, "calibration", mode, "inputs", fixed,
                             "axes", "input", axis, "values", values);
    char label[200];
    snprintf(label, sizeof label, "%s (%s) sweep over %s", s->name, mode, axis);

    /* JSON, and each row against /solve */
    http_resp rj;
    sweep_raw(body, NULL, NULL, &rj);
    cr_assert_eq(rj.status, 200, "%s: %ld %.500s", label, rj.status, rj.body);
    json_t *doc = http_json(&rj);
    http_free(&rj);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "calibration")), mode, "%s", label);
    const json_t *cols = json_object_get(doc, "columns"), *rows = json_object_get(doc, "rows");
    size_t ncol = json_array_size(cols);
    cr_assert_eq(json_array_size(rows), json_array_size(values), "%s: rows", label);
    size_t r, j;
    json_t *row;
    json_array_foreach(rows, r, row) {
        json_t *in = json_deep_copy(fixed);
        json_object_set(in, axis, json_array_get(values, r));
        long st;
        json_t *ans = post_checked("/solve", solve_doc(s->name, in, mode), &st);
        for (j = 0; j < ncol; j++) {
            const char *name = json_string_value(json_array_get(cols, j));
            const json_t *c = json_array_get(row, j);
            char what[300];
            snprintf(what, sizeof what, "%s row %zu column %s", label, r, name);
            if (!strcmp(name, axis))
                cr_expect(same_value(c, json_array_get(values, r)), "%s: the axis value", what);
            else if (!strcmp(name, "error"))
                cr_expect(st == 200 ? json_is_null(c)
                                    : json_is_string(c) && !strcmp(json_string_value(c),
                                                                   json_string_value(json_object_get(ans, "detail"))),
                          "%s: /solve answered %ld", what, st);
            else if (st == 200)
                expect_cell(c, result_at(ans, name), what);
            else
                cr_expect(json_is_null(c), "%s: an error row with a value", what);
        }
        (*rows_checked)++;
        json_decref(ans);
        json_decref(in);
    }

    /* CSV = JSON */
    http_resp rc;
    sweep_raw(body, "csv", NULL, &rc);
    cr_assert_eq(rc.status, 200, "%s CSV: %ld", label, rc.status);
    const char *p = rc.body;
    bool end = false;
    for (j = 0; !end && *p; j++) {
        char *f = csv_field(&p, &end);
        const char *name = json_string_value(json_array_get(cols, j));
        cr_expect(name && !strncmp(f, name, strlen(name)), "%s CSV: header %zu is '%s', JSON's column '%s'", label, j,
                  f, name ? name : "(none)");
        free(f);
    }
    cr_expect_eq(j, ncol, "%s CSV: %zu header fields, %zu JSON columns", label, j, ncol);
    json_array_foreach(rows, r, row) {
        for (j = 0; j < ncol && *p; j++) {
            char *f = csv_field(&p, &end);
            char what[300];
            snprintf(what, sizeof what, "%s CSV row %zu column %s", label, r,
                     json_string_value(json_array_get(cols, j)));
            expect_csv_cell(f, json_array_get(row, j), what);
            cr_expect_eq(end, j + 1 == ncol, "%s: the record ends at %zu", what, j);
            free(f);
        }
    }
    cr_expect_eq(*p, '\0', "%s CSV: more records than JSON rows", label);

    /* NDJSON = JSON: a units line, then one object per row keyed by the columns */
    http_resp rn;
    sweep_raw(body, "ndjson", NULL, &rn);
    cr_assert_eq(rn.status, 200, "%s NDJSON: %ld", label, rn.status);
    char *copy = strdup(rn.body), *save = NULL;
    size_t line = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save), line++) {
        json_t *o = json_loads(l, 0, NULL);
        cr_assert(o, "%s NDJSON line %zu", label, line);
        if (line == 0 && json_object_get(o, "units")) {
            expect_same_json(json_object_get(o, "units"), json_object_get(doc, "units"), label);
            line--;
            json_decref(o);
            continue;
        }
        const json_t *jr = json_array_get(rows, line);
        cr_expect_eq(json_object_size(o), ncol, "%s NDJSON row %zu: %zu members", label, line, json_object_size(o));
        for (j = 0; j < ncol && jr; j++) {
            const char *name = json_string_value(json_array_get(cols, j));
            char what[300];
            snprintf(what, sizeof what, "%s NDJSON row %zu column %s", label, line, name);
            expect_same_json(json_object_get(o, name), json_array_get(jr, j), what);
        }
        json_decref(o);
    }
    cr_expect_eq(line, json_array_size(rows), "%s NDJSON: %zu rows", label, line);
    free(copy);

    /* shards: 0/2 + 1/2 = the whole, CSV and NDJSON byte for byte, JSON rows */
    const char *fmts[] = {"csv", "ndjson", NULL};
    const http_resp *whole[] = {&rc, &rn};
    for (int f = 0; f < 3; f++) {
        http_resp a, b;
        sweep_raw(body, fmts[f], "0/2", &a);
        sweep_raw(body, fmts[f], "1/2", &b);
        cr_expect(a.status == 200 && b.status == 200, "%s shards (%s): %ld %ld", label, fmts[f] ? fmts[f] : "json",
                  a.status, b.status);
        if (fmts[f]) {
            size_t n = a.len + b.len;
            char *cat = malloc(n + 1);
            memcpy(cat, a.body, a.len);
            memcpy(cat + a.len, b.body, b.len);
            cat[n] = '\0';
            cr_expect(n == whole[f]->len && !memcmp(cat, whole[f]->body, n),
                      "%s: shards 0/2 + 1/2 (%s) differ from the whole:\n%.600s\nwhole:\n%.600s", label, fmts[f], cat,
                      whole[f]->body);
            free(cat);
        } else {
            json_t *ja = http_json(&a), *jb = http_json(&b);
            json_t *cat = json_array();
            json_array_extend(cat, json_object_get(ja, "rows"));
            json_array_extend(cat, json_object_get(jb, "rows"));
            char what[250];
            snprintf(what, sizeof what, "%s: JSON shards' rows", label);
            expect_same_json(cat, rows, what);
            json_decref(cat);
            json_decref(ja);
            json_decref(jb);
        }
        http_free(&a);
        http_free(&b);
    }
    http_free(&rc);
    http_free(&rn);

    /* the GET form and Accept header choose the same bytes */
    http_resp ra;
    {
        char *text = json_dumps(body, JSON_COMPACT);
        send_checked("POST", "/sweep", text, "text/csv", &ra);
        free(text);
    }
    http_resp rc2;
    sweep_raw(body, "csv", NULL, &rc2);
    cr_expect(ra.status == 200 && ra.len == rc2.len && !memcmp(ra.body, rc2.body, ra.len),
              "%s: Accept: text/csv differs from format csv", label);
    http_free(&ra);
    http_free(&rc2);

    json_decref(doc);
    json_decref(body);
    json_decref(fixed);
    json_decref(values);
}

Test(oracles, sweep_rows_formats_and_shards_agree_for_every_solver, .timeout = 600)
{
    solver_t *s;
    size_t ns = load_solvers(&s);
    int rows = 0, swept = 0;
    for (size_t i = 0; i < ns; i++)
        for (int md = 0; md < 2; md++) {
            int before = rows;
            check_sweep(&s[i], MODES[md], &rows);
            swept += rows > before;
        }
    cr_log_info("oracles: %d sweeps, %d rows against /solve, %d replies checked", swept, rows, g_requests);
    cr_expect_gt(swept, (int)ns, "only %d sweeps over %zu solvers x 2 modes (no numeric example input?)", swept, ns);
    free_solvers(s, ns);
    json_decref(g_doc);
    g_doc = NULL;
}

/* ---- 4. /optimize's best = /solve there, and the sweep's minimum ---------------------------------- */

Test(oracles, optimize_best_is_solve_and_the_sweeps_minimum, .timeout = 600)
{
    solver_t *s;
    size_t ns = load_solvers(&s);
    int checked = 0;
    for (size_t i = 0; i < ns; i++) {
        char axis[64];
        json_t *values;
        if (!pick_axis(&s[i], axis, sizeof axis, &values))
            continue;
        /* the first numeric output of the example's answer is the objective */
        long st;
        json_t *ans = post_checked("/solve", solve_doc(s[i].name, s[i].example, NULL), &st);
        const char *objective = NULL;
        size_t k;
        json_t *o;
        json_array_foreach(json_object_get(s[i].desc, "outputs"), k, o) {
            const char *t = json_string_value(json_object_get(o, "type"));
            const char *name = json_string_value(json_object_get(o, "name"));
            if (t && (!strcmp(t, "number") || !strcmp(t, "integer")) && json_is_number(result_at(ans, name))) {
                objective = name;
                break;
            }
        }
        json_decref(ans);
        if (!objective) {
            json_decref(values);
            continue;
        }
        json_t *fixed = json_deep_copy(s[i].example);
        json_object_del(fixed, axis);
        for (int md = 0; md < 2; md++) {
            const char *mode = MODES[md];
            json_t *opt = post_checked(
                "/optimize",
                json_pack("{s:s,s:s,s:O,s:[{s:s,s:O}],s:{s:s},s:s,s:i}", "solver", s[i].name, "calibration", mode,
                          "inputs", fixed, "axes", "input", axis, "values", values, "objective", "minimize", objective,
                          "method", "exhaustive", "top_k", 2),
                &st);
            char label[200];
            snprintf(label, sizeof label, "%s (%s) minimize %s over %s", s[i].name, mode, objective, axis);
            if (st != 200) {
                cr_expect_eq(st, 400, "%s: %ld", label, st);
                json_decref(opt);
                continue;
            }
            const json_t *best = json_object_get(opt, "best");
            if (!json_is_object(best)) {
                json_decref(opt);
                continue;
            }
            const json_t *pt = json_object_get(json_object_get(best, "point"), axis);
            json_t *in = json_deep_copy(fixed);
            json_object_set(in, axis, (json_t *)pt);
            json_t *want = post_checked("/solve", solve_doc(s[i].name, in, mode), &st);
            cr_expect_eq(st, 200, "%s: /solve at the best point: %ld", label, st);
            expect_same_json(json_object_get(json_object_get(best, "answer"), "result"), json_object_get(want, "result"),
                        label);
            /* no value of the axis answers a smaller objective */
            double bv = json_number_value(result_at(want, objective));
            size_t v;
            json_t *x;
            json_array_foreach(values, v, x) {
                json_t *in2 = json_deep_copy(fixed);
                json_object_set(in2, axis, x);
                long st2;
                json_t *other = post_checked("/solve", solve_doc(s[i].name, in2, mode), &st2);
                if (st2 == 200 && json_is_number(result_at(other, objective)))
                    cr_expect(json_number_value(result_at(other, objective)) >= bv, "%s: %s at %g is %.17g < best %.17g",
                              label, objective, json_number_value(x), json_number_value(result_at(other, objective)),
                              bv);
                json_decref(other);
                json_decref(in2);
            }
            checked++;
            json_decref(want);
            json_decref(in);
            json_decref(opt);
        }
        json_decref(fixed);
        json_decref(values);
    }
    cr_expect_gt(checked, (int)ns, "only %d optimizations checked", checked);
    free_solvers(s, ns);
    json_decref(g_doc);
    g_doc = NULL;
}

/* ---- 5. the oracle itself: it must refuse what does not fit -------------------------------------- */

Test(oracles, contract_check_rejects_what_it_should)
{
    fetch_contract();
    char err[1400];
    long st;
    json_t *inputs = json_pack("{s:i,s:i,s:i}", "arrival_rate_qps", 30, "service_latency_ms", 100, "num_replicas", 4);
    json_t *ok = post_checked("/solve", solve_doc("tail_latency", inputs, NULL), &st);
    json_decref(inputs); /* solve_doc took its own reference */
    cr_assert_eq(st, 200);
    char *good = json_dumps(ok, JSON_COMPACT);
    cr_expect(contract_check(g_doc, "POST", "/solve", 200, "application/json", good, strlen(good), err, sizeof err), "%s",
              err);
    json_object_set_new(json_object_get(ok, "result"), "p99_latency", json_string("fast"));
    char *bad = json_dumps(ok, JSON_COMPACT);
    cr_expect_not(contract_check(g_doc, "POST", "/solve", 200, "application/json", bad, strlen(bad), err, sizeof err),
                  "a string where the contract says number was accepted");
    cr_expect_not(contract_check(g_doc, "POST", "/solve", 418, "application/json", good, strlen(good), err, sizeof err),
                  "an undeclared status was accepted");
    cr_expect_not(contract_check(g_doc, "POST", "/solve", 200, "text/html", good, strlen(good), err, sizeof err),
                  "an undeclared media type was accepted");
    cr_expect_not(contract_check(g_doc, "POST", "/nowhere", 200, "application/json", good, strlen(good), err, sizeof err),
                  "an undeclared path was accepted");
    cr_expect_not(contract_check(g_doc, "GET", "/nowhere", 404, "application/json", good, strlen(good), err, sizeof err),
                  "a 404 of an undeclared path that is not a problem was accepted");
    cr_expect_not(contract_check(g_doc, "POST", "/solve", 200, "application/json", "{", 1, err, sizeof err),
                  "a body that is not JSON was accepted");
    const char *problem = "{\"type\":\"https://mlsysd.dev/problems/invalid-input\",\"title\":\"Invalid input\",\"status\":400,"
                          "\"detail\":\"x\",\"instance\":\"/solve\",\"request_id\":\"abc\"}";
    cr_expect(contract_check(g_doc, "POST", "/solve", 400, "application/problem+json; charset=utf-8", problem,
                             strlen(problem), err, sizeof err),
              "%s", err);
    const char *noline = "{\"units\":{}}\n{not json}\n";
    cr_expect_not(contract_check(g_doc, "POST", "/sweep", 200, "application/x-ndjson", noline, strlen(noline), err,
                                 sizeof err),
                  "an NDJSON line that is not JSON was accepted");
    const char *lf = "a,error\n1,\n";
    cr_expect_not(contract_check(g_doc, "POST", "/sweep", 200, "text/csv", lf, strlen(lf), err, sizeof err),
                  "CSV with LF line ends was accepted");
    cr_expect_not_null(contract_operation(g_doc, "get", "/solvers/serving?x=1"));
    cr_expect_null(contract_operation(g_doc, "get", "/solvers/serving/extra"));
    free(good);
    free(bad);
    json_decref(ok);
    json_decref(g_doc);
    g_doc = NULL;
}

/* ---- 6. every route, good and bad requests ---------------------------------------------------- */

static void send_body_checked(const char *method, const char *path, const char *ctype, const char *body, size_t len,
                              long want, http_resp *r)
{
    fetch_contract();
    char h1[128];
    snprintf(h1, sizeof h1, "Content-Type: %s", ctype ? ctype : "application/json");
    const char *h[] = {h1, NULL};
    cr_assert_eq(http_request(shared_daemon(), method, path, body ? h : NULL, body, len, r), 0, "%s %s", method, path);
    g_requests++;
    if (want)
        cr_expect_eq(r->status, want, "%s %s (%s) %.200s: %ld %.400s", method, path, ctype ? ctype : "", body ? body : "",
                     r->status, r->body);
    cr_expect_lt(r->status, 500, "%s %s: %ld", method, path, r->status);
    char err[1400];
    cr_expect(contract_check(g_doc, method, path, r->status, r->content_type, r->body, r->len, err, sizeof err),
              "the reply differs from the served contract: %s\n  request: %s %s %.300s\n  reply: %ld %s %.300s", err,
              method, path, body ? body : "", r->status, r->content_type, r->body);
}

static void expect_route(const char *method, const char *path, const char *ctype, const char *body, long want)
{
    http_resp r;
    send_body_checked(method, path, ctype, body, body ? strlen(body) : 0, want, &r);
    http_free(&r);
}

Test(oracles, every_route_good_and_bad_fits_the_contract, .timeout = 300)
{
    static const char *const gets[] = {
        "/healthz", "/livez", "/readyz", "/version", "/openapi.json", "/openapi.yaml", "/metrics", "/solvers",
        "/calibration", "/validation", "/schemas/plan.json", "/catalog", "/catalog?kind=hardware",
        "/catalog?catalog=tutorial", "/solve/tail_latency?arrival_rate_qps=30&service_latency_ms=100&num_replicas=4",
        "/sweep/single_node?model=ResNet50&hardware=T4,A100&batch_size=1,8&format=csv",
        "/sweep/single_node?model=ResNet50&hardware=T4,A100&batch_size=1,8&format=ndjson&calibration=measured",
        "/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,8&shard=1/2",
        NULL};
    for (int i = 0; gets[i]; i++)
        expect_route("GET", gets[i], NULL, NULL, 200);
    static const struct {
        const char *path;
        long status;
    } bad_gets[] = {
        {"/catalog/gpus", 404}, {"/catalog/hardware/A101", 404}, {"/catalog?kind=gpus", 0}, {"/solvers/nope", 404},
        {"/solve/nope?x=1", 404}, {"/solve/tail_latency?arrival_rate_qps=abc", 400},
        {"/sweep/single_node?model=ResNet50&batch_size=1,8&shard=3/2", 400},
        {"/sweep/single_node?model=ResNet50&hardware=A100&batch_size=1,8&calibration=bogus", 400},
        {"/solve/tail_latency?arrival_rate_qps=30&service_latency_ms=100&num_replicas=4&calibration=x", 400},
        {"/nowhere", 404}, {"/ui/nope.js", 404}, {NULL, 0}};
    for (int i = 0; bad_gets[i].path; i++)
        expect_route("GET", bad_gets[i].path, NULL, NULL, bad_gets[i].status);
    /* every kind and every entry */
    json_t *cat = api_get_ok("/catalog");
    const char *kind;
    json_t *list;
    int kinds = 0;
    json_object_foreach(cat, kind, list) {
        if (!json_is_array(list))
            continue;
        char path[256];
        snprintf(path, sizeof path, "/catalog/%s", kind);
        expect_route("GET", path, NULL, NULL, 200);
        size_t e;
        json_t *entry;
        json_array_foreach(list, e, entry) {
            const char *key = json_string_value(json_object_get(entry, "key"));
            snprintf(path, sizeof path, "/catalog/%s/%s", kind, key ? key : "(none)");
            expect_route("GET", path, NULL, NULL, 200);
        }
        kinds++;
    }
    json_decref(cat);
    cr_expect_gt(kinds, 5);
    /* methods, media types, malformed bodies */
    expect_route("DELETE", "/solve", NULL, NULL, 405);
    expect_route("PUT", "/sweep", NULL, NULL, 405);
    expect_route("POST", "/solvers", "application/json", "{}", 405);
    expect_route("OPTIONS", "/solve", NULL, NULL, 204);
    /* a request target over 32 KiB (server/http.c MAX_URI_BYTES): a 414 problem, as the
     * contract declares on every operation */
    static const char *const long_targets[][2] = {{"GET", "/solve/tail_latency?arrival_rate_qps=30&x="},
                                                  {"GET", "/catalog/hardware?x="},
                                                  {"GET", "/ui/index.html?x="},
                                                  {"POST", "/sweep?x="},
                                                  {"OPTIONS", "/batch?x="}};
    for (size_t i = 0; i < sizeof long_targets / sizeof long_targets[0]; i++) {
        size_t pl = strlen(long_targets[i][1]), n = 32769;
        char *path = malloc(n + 1);
        cr_assert(path);
        memcpy(path, long_targets[i][1], pl);
        memset(path + pl, 'a', n - pl);
        path[n] = '\0';
        bool post = !strcmp(long_targets[i][0], "POST");
        expect_route(long_targets[i][0], path, NULL, post ? "{}" : NULL, 414);
        free(path);
    }
    expect_route("POST", "/solve", "text/plain", "{\"solver\":\"data\",\"inputs\":{}}", 415);
    expect_route("POST", "/solve", "application/json", "{\"solver\":", 400);
    expect_route("POST", "/solve", "application/json", "[]", 400);
    expect_route("POST", "/solve", "application/json", "", 400);
    expect_route("POST", "/batch", "application/json", "{\"items\":[]}", 400);
    expect_route("POST", "/batch", "application/json", "{\"items\":7}", 400);
    expect_route("POST", "/sweep", "application/json", "{\"solver\":\"data\",\"inputs\":{},\"axes\":[]}", 400);
    expect_route("POST", "/sweep", "application/json",
                 "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},"
                 "\"axes\":[{\"input\":\"batch_size\",\"range\":{\"start\":1,\"stop\":1e12,\"step\":1}}]}",
                 413);
    expect_route("POST", "/optimize", "application/json",
                 "{\"solver\":\"single_node\",\"inputs\":{\"model\":\"ResNet50\",\"hardware\":\"A100\"},\"axes\":[{"
                 "\"input\":\"batch_size\",\"values\":[1,2]}],\"constraints\":[{\"output\":\"latency\",\"<=\":\"5 GB\"}],"
                 "\"objective\":{\"maximize\":\"batch_size\"}}",
                 400);
    /* plans: each example, as YAML and as JSON-looking text, and broken ones */
    static const char *const plans[] = {"llm-service.yaml", "mlsys.yaml", "starving-the-gpu.yaml", "training-cluster.yaml",
                                        NULL};
    for (int i = 0; plans[i]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/examples/plans/%s", MLSYSD_SOURCE_DIR, plans[i]);
        size_t len;
        char *text = read_file(path, &len);
        cr_assert_not_null(text, "%s", path);
        http_resp r;
        send_body_checked("POST", "/evaluate", "application/yaml", text, len, 0, &r);
        cr_expect(r.status == 200 || r.status == 422, "%s: %ld %.300s", plans[i], r.status, r.body);
        http_free(&r);
        /* cut in half: still an answer the contract describes */
        send_body_checked("POST", "/evaluate", "application/yaml", text, len / 2, 0, &r);
        http_free(&r);
        free(text);
    }
    expect_route("POST", "/evaluate", "application/yaml", "version: \"1\"\nscenarios: 7\n", 400);
    expect_route("POST", "/evaluate", "application/json", "{\"version\":\"1\",\"scenarios\":[{\"name\":\"x\"}]}", 0);
    /* Hugging Face configs as model objects */
    static const char *const hf[] = {"llama3_8b.json", "mistral_7b.json", "mixtral_8x7b.json", "qwen2_0_5b.json",
                                     "deepseek_v2_lite.json", "gemma2_9b.json", NULL};
    for (int i = 0; hf[i]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/data/hf_configs/%s", MLSYSD_SOURCE_DIR, hf[i]);
        json_error_t je;
        json_t *file = json_load_file(path, 0, &je);
        cr_assert_not_null(file, "%s: %s", path, je.text);
        json_t *cfg = json_deep_copy(json_object_get(file, "config")); /* the file wraps config.json with its provenance */
        json_decref(file);
        cr_assert(json_is_object(cfg), "%s has no config", path);
        for (int md = 0; md < 2; md++) {
            long st;
            json_t *a = post_checked(
                "/solve",
                json_pack("{s:s,s:s,s:{s:{s:O,s:s},s:s,s:i,s:i}}", "solver", "serving", "calibration", MODES[md],
                          "inputs", "model", "hf_config", cfg, "name", hf[i], "hardware", "H100", "seq_len", 2048,
                          "batch_size", 4),
                &st);
            cr_expect_eq(st, 200, "%s (%s): %ld", hf[i], MODES[md], st);
            json_decref(a);
        }
        /* a config missing its hidden size */
        json_object_del(cfg, "hidden_size");
        long st;
        json_t *a = post_checked("/solve", json_pack("{s:s,s:{s:{s:O},s:s}}", "solver", "serving", "inputs", "model",
                                                      "hf_config", cfg, "hardware", "H100"),
                                 &st);
        cr_expect(st == 400, "%s without hidden_size: %ld", hf[i], st);
        json_decref(a);
        json_decref(cfg);
    }
    cr_log_info("oracles: %d route replies checked against the contract", g_requests);
    json_decref(g_doc);
    g_doc = NULL;
}

/* ---- 7. random mutants, a new seed each run -------------------------------------------------------
 * MLSYSD_ORACLE_SEED repeats a run (the seed is logged); MLSYSD_ORACLE_COUNT sets how many
 * requests (default 1500). Each takes a solver's example and changes one to three things at
 * random: an input set to a value of a random kind, an input removed, an unknown input, a
 * sweep axis over random values, a batch of such bodies. Only the contract is the oracle. */

static unsigned long long g_rng;

static unsigned rnd(unsigned n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return n ? (unsigned)(g_rng % n) : 0;
}

static json_t *random_value(void)
{
    static const char *const strings[] = {"", "A100", "H100", "ResNet50", "Llama3_70B", "Research_256", "fp16", "int4_g128",
                                          "500 KB", "2 GB/s", "7 ms", "1e400 B", "-5 ms", "nan", "Infinity", "12 parsecs",
                                          "\xc3\xa9t\xc3\xa9", "InfiniBand_NDR", "Quebec", "exponential", "true"};
    switch (rnd(9)) {
    case 0: return json_integer((json_int_t)rnd(5000) - 100);
    case 1: return json_real((double)rnd(100000) / 97.0 - 50.0);
    case 2: return json_string(strings[rnd(sizeof strings / sizeof strings[0])]);
    case 3: return json_boolean(rnd(2));
    case 4: return json_null();
    case 5: return json_pack("[i,s]", (int)rnd(10), strings[rnd(sizeof strings / sizeof strings[0])]);
    case 6: return json_pack("{s:s,s:i}", "base", strings[rnd(sizeof strings / sizeof strings[0])], "count", (int)rnd(64));
    case 7: return json_integer(rnd(2) ? (json_int_t)1 << 62 : 0);
    default: return json_real(rnd(2) ? 1e308 : 1e-308);
    }
}

Test(oracles, random_mutants_fit_the_contract, .timeout = 600)
{
    const char *seed_env = getenv("MLSYSD_ORACLE_SEED"), *count_env = getenv("MLSYSD_ORACLE_COUNT");
    unsigned long long seed = seed_env ? strtoull(seed_env, NULL, 0) : (unsigned long long)time(NULL) ^ (unsigned long long)getpid() << 20;
    int count = count_env ? atoi(count_env) : 1500;
    g_rng = seed ? seed : 1;
    cr_log_info("oracles: random mutants with MLSYSD_ORACLE_SEED=%llu, %d requests", seed, count);
    solver_t *s;
    size_t ns = load_solvers(&s);
    int statuses[6] = {0};
    for (int n = 0; n < count; n++) {
        const solver_t *sv = &s[rnd((unsigned)ns)];
        json_t *in = json_deep_copy(sv->example);
        size_t nin = json_array_size(json_object_get(sv->desc, "inputs"));
        int changes = 1 + (int)rnd(3);
        for (int c = 0; c < changes; c++) {
            const char *name = json_string_value(json_object_get(json_array_get(json_object_get(sv->desc, "inputs"),
                                                                                rnd((unsigned)nin)), "name"));
            unsigned what = rnd(10);
            if (what < 6)
                json_object_set_new(in, name, random_value());
            else if (what < 8)
                json_object_del(in, name);
            else
                json_object_set_new(in, "zz_unknown", random_value());
        }
        const char *mode = rnd(3) == 0 ? "measured" : rnd(2) ? "mlsysim" : NULL;
        json_t *body = solve_doc(sv->name, in, mode);
        unsigned route = rnd(10);
        const char *path = "/solve";
        long st;
        if (route >= 6 && route < 9) {
            /* a sweep over one input of the example with random values, in a random format */
            path = "/sweep";
            const char *axis = json_string_value(json_object_get(json_array_get(json_object_get(sv->desc, "inputs"),
                                                                                rnd((unsigned)nin)), "name"));
            json_t *vals = json_array();
            for (unsigned k = 0, nv = 1 + rnd(4); k < nv; k++)
                json_array_append_new(vals, random_value());
            json_object_del(json_object_get(body, "inputs"), axis);
            json_object_set_new(body, "axes", json_pack("[{s:s,s:o}]", "input", axis, "values", vals));
            static const char *const fmts[] = {"json", "csv", "ndjson"};
            json_object_set_new(body, "format", json_string(fmts[rnd(3)]));
            if (rnd(4) == 0)
                json_object_set_new(body, "shard", json_string(rnd(2) ? "0/2" : "1/2"));
        } else if (route == 9) {
            path = "/batch";
            body = json_pack("{s:[o,O]}", "items", body, json_pack("{s:s,s:O}", "solver", sv->name, "inputs", sv->example));
            json_decref(json_array_get(json_object_get(body, "items"), 1)); /* O took a ref of the packed object */
        }
        json_t *ans = post_checked(path, body, &st);
        statuses[st >= 200 && st < 600 ? st / 100 : 0]++;
        json_decref(ans);
        json_decref(in);
    }
    cr_log_info("oracles: random mutants: %d 2xx, %d 4xx, %d 5xx (seed %llu)", statuses[2], statuses[4], statuses[5],
                seed);
    cr_expect_gt(statuses[4], count / 4, "the mutants are too tame: %d refusals", statuses[4]);
    free_solvers(s, ns);
    json_decref(g_doc);
    g_doc = NULL;
}

/* The JSON index at / lists every path of the contract that takes no parameter
 * (but / itself), and each of them answers. */
Test(oracles, the_index_lists_every_plain_path_of_the_contract)
{
    fetch_contract();
    const char *const h[] = {"Accept: application/json", NULL};
    http_resp r;
    cr_assert_eq(http_request(shared_daemon(), "GET", "/", h, NULL, 0, &r), 0);
    cr_assert_eq(r.status, 200);
    char err[1400];
    cr_expect(contract_check(g_doc, "GET", "/", r.status, r.content_type, r.body, r.len, err, sizeof err), "%s", err);
    json_t *idx = http_json(&r);
    http_free(&r);
    const json_t *listed = json_object_get(idx, "endpoints");
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(g_doc, "paths"), path, item) {
        if (strchr(path, '{') || !strcmp(path, "/"))
            continue;
        bool found = false;
        size_t i;
        json_t *e;
        json_array_foreach(listed, i, e) found |= !strcmp(json_string_value(e), path);
        cr_expect(found, "the index at / leaves out %s", path);
    }
    size_t i;
    json_t *e;
    json_array_foreach(listed, i, e) {
        const char *p = json_string_value(e);
        cr_expect(json_object_get(json_object_get(g_doc, "paths"), p) != NULL, "the index lists %s, which the contract has not",
                  p);
    }
    json_decref(idx);
    json_decref(g_doc);
    g_doc = NULL;
}
