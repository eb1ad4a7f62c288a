/* test_golden.c - parity with mlsysim through the HTTP API.
 *
 * Every case of every golden JSONL file (tests/golden/, vendored unchanged,
 * plus any file only ../shared/golden/ has: tests/common/golden_files.h)
 * goes through POST /solve exactly as the golden README describes; a case of a solver the daemon does
 * not have is counted as pending, never passed, and the counts per file and
 * solver are printed and written to golden-summary.txt in the working
 * directory (scripts/test.sh puts them in its summary line). The original
 * four solvers' files are also run one Criterion test per file and solver,
 * with their case counts pinned (so a truncated file cannot pass). Then
 * every cell of seed_tutorial.json ("Starving the GPU"):
 * the single-step cells at 1e-9 and as the page printed them, and the
 * multi-step rows (batch sweep, CPU workers, exercises) re-run the way the
 * tutorial's loop does: single_node, then transformation with its latency,
 * cross-checked against the pipeline solver.
 *
 * The golden files travel with the code, so these tests run in a plain clone
 * too; a missing file fails them. The spot checks at the end carry their
 * numbers (hand-computed). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_files.h"
#include "harness.h"

/* ---- talking to the daemon ----------------------------------------------------------- */

typedef struct {
    long status;
    char content_type[128];
    json_t *body; /* parsed; NULL if not JSON */
} reply;

/* POST /solve {"solver", "inputs", "catalog"}; inputs is borrowed. */
static reply solve(const char *solver, const json_t *inputs, const char *catalog)
{
    json_t *req = json_object();
    json_object_set_new(req, "solver", json_string(solver));
    json_object_set(req, "inputs", (json_t *)inputs);
    if (catalog)
        json_object_set_new(req, "catalog", json_string(catalog));
    /* jansson writes reals with 17 significant digits: they parse back to the same double */
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    http_resp r;
    reply out = {0};
    int rc = http_post_json(shared_daemon(), "/solve", text, &r);
    free(text);
    cr_assert_eq(rc, 0, "POST /solve failed at the transport level");
    out.status = r.status;
    snprintf(out.content_type, sizeof out.content_type, "%s", r.content_type);
    out.body = http_json(&r);
    http_free(&r);
    return out;
}

static json_t *result_of(const reply *r) { return json_object_get(r->body, "result"); }

/* ---- collecting mismatches ------------------------------------------------------------- */

/* Counts failing cases and keeps the text of the first few for the assertion message. */
typedef struct {
    int cases, failed;
    char first[2400];
    size_t used;
} tally;

static void tally_fail(tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tally_fail(tally *t, const char *fmt, ...)
{
    t->failed++;
    if (t->failed > 4 || t->used >= sizeof t->first - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->first + t->used, sizeof t->first - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n < sizeof t->first - t->used ? (size_t)n : sizeof t->first - t->used - 1;
    if (t->used < sizeof t->first - 2) {
        t->first[t->used++] = '\n';
        t->first[t->used] = '\0';
    }
}

/* A short description of why one case differs; "" while it still agrees. */
typedef struct {
    char text[600];
} why;

static void why_set(why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_set(why *w, const char *fmt, ...)
{
    if (w->text[0])
        return; /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text, sizeof w->text, fmt, ap);
    va_end(ap);
}

static bool in_string_array(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
        if (json_is_string(v) && !strcmp(json_string_value(v), s))
            return true;
    return false;
}

/* Some element of arr contains needle. */
static bool array_mentions(const json_t *arr, const char *needle)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
        if (json_is_string(v) && strstr(json_string_value(v), needle))
            return true;
    return false;
}

/* One expected value against the response's. */
static void compare_value(why *w, const char *key, const json_t *want, const json_t *got)
{
    char *ws = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT),
         *gs = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (!got) {
        why_set(w, "%s missing (want %s)", key, ws);
    } else if (json_is_null(want)) {
        if (!json_is_null(got))
            why_set(w, "%s = %s, want null", key, gs);
    } else if (json_is_number(want)) {
        if (!json_is_number(got) || !close_enough(json_number_value(got), json_number_value(want)))
            why_set(w, "%s = %s, want %s", key, gs, ws);
    } else if (json_is_string(want) || json_is_boolean(want)) {
        if (!json_equal((json_t *)want, (json_t *)got))
            why_set(w, "%s = %s, want %s", key, gs, ws);
    } else if (json_is_object(want)) {
        /* a record output: member by member */
        if (!json_is_object(got)) {
            why_set(w, "%s = %s, want an object %s", key, gs, ws);
        } else {
            const char *mk;
            const json_t *mv;
            json_object_foreach((json_t *)want, mk, mv) {
                char sub[160];
                snprintf(sub, sizeof sub, "%s.%s", key, mk);
                compare_value(w, sub, mv, json_object_get(got, mk));
            }
        }
    } else {
        why_set(w, "%s: unexpected kind of expected value %s", key, ws);
    }
    free(ws);
    free(gs);
}

/* The response's units must state each unit the case states, and no unit for
 * the other (dimensionless) expected fields. */
static void compare_units(why *w, const json_t *expected, const json_t *want_units, const json_t *got_units)
{
    if (!json_is_object(got_units)) {
        why_set(w, "response has no units object");
        return;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)expected, k, v) {
        const json_t *wu = json_object_get(want_units, k), *gu = json_object_get(got_units, k);
        if (wu && !json_equal((json_t *)wu, (json_t *)gu))
            why_set(w, "units.%s = %s, want %s", k, gu ? json_string_value(gu) : "(absent)", json_string_value(wu));
        else if (!wu && gu && json_string_length(gu) > 0)
            why_set(w, "units.%s = %s, want none (dimensionless)", k, json_string_value(gu));
    }
}

/* Warnings the service gives where mlsysim is silent, on purpose (the issue
 * that introduced the solver asks for them): placement names each region it
 * skips because it is not a grid. */
static const struct {
    const char *solver, *part;
} OWN_WARNINGS[] = {
    {"placement", "is not a grid: skipped"},
};

/* The first warning that is neither mlsysim's nor one of OWN_WARNINGS; NULL if none. */
static const char *unexpected_warning(const char *solver, const json_t *warnings)
{
    size_t i;
    const json_t *v;
    json_array_foreach(warnings, i, v) {
        bool own = false;
        for (size_t k = 0; k < sizeof OWN_WARNINGS / sizeof OWN_WARNINGS[0]; k++)
            own |= !strcmp(solver, OWN_WARNINGS[k].solver) && strstr(json_string_value(v), OWN_WARNINGS[k].part);
        if (!own)
            return json_string_value(v);
    }
    return NULL;
}

/* strict_warnings: the reference is mlsysim itself, so a case without
 * upstream_warnings (and nothing non-finite) must give no warning either
 * (beyond OWN_WARNINGS). */
static void check_case(why *w, const json_t *c, const reply *r, bool strict_warnings)
{
    const json_t *err = json_object_get(c, "error");
    if (err) {
        long want = (long)json_integer_value(json_object_get(err, "status"));
        const char *exc = json_string_value(json_object_get(err, "upstream_exception"));
        const char *msg = json_string_value(json_object_get(err, "upstream_message"));
        const char *detail = json_string_value(json_object_get(r->body, "detail"));
        if (r->status != want)
            why_set(w, "status %ld, want %ld", r->status, want);
        else if (strncmp(r->content_type, "application/problem+json", 24))
            why_set(w, "content type %s, want application/problem+json", r->content_type);
        else if (json_integer_value(json_object_get(r->body, "status")) != want)
            why_set(w, "problem status member differs from %ld", want);
        else if (!detail)
            why_set(w, "problem has no detail");
        else if (!strstr(detail, msg))
            why_set(w, "detail '%s' lacks mlsysim's message '%s'", detail, msg);
        /* not a validation message (e.g. ZeroDivisionError): say what mlsysim would have raised */
        else if (strcmp(exc, "ValueError") && !strstr(detail, exc))
            why_set(w, "detail '%s' does not mention %s", detail, exc);
        return;
    }
    if (r->status != 200) {
        why_set(w, "status %ld: %s", r->status,
                json_string_value(json_object_get(r->body, "detail"))
                    ? json_string_value(json_object_get(r->body, "detail"))
                    : "(no detail)");
        return;
    }
    const json_t *res = result_of(r), *expected = json_object_get(c, "expected");
    const json_t *nonfinite = json_object_get(c, "nonfinite"), *warnings = json_object_get(r->body, "warnings");
    if (!json_is_object(res) || !json_is_array(warnings)) {
        why_set(w, "response lacks result or warnings");
        return;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)expected, k, v) {
        const json_t *got = json_object_get(res, k);
        if (nonfinite && in_string_array(nonfinite, k)) {
            if (!got || !json_is_null(got))
                why_set(w, "%s should be null (non-finite)", k);
            else if (!array_mentions(warnings, k))
                why_set(w, "no warning names the non-finite field %s", k);
        } else {
            compare_value(w, k, v, got);
        }
    }
    compare_units(w, expected, json_object_get(c, "units"), json_object_get(r->body, "units"));
    const json_t *upstream = json_object_get(c, "upstream_warnings");
    size_t i;
    json_array_foreach(upstream, i, v) {
        if (!array_mentions(warnings, json_string_value(v)))
            why_set(w, "warnings lack mlsysim's '%.120s...'", json_string_value(v));
    }
    const char *extra = unexpected_warning(json_string_value(json_object_get(c, "solver")), warnings);
    if (strict_warnings && !upstream && !nonfinite && extra)
        why_set(w, "unexpected warning '%.160s'", extra);
}

/* ---- the golden files ------------------------------------------------------------------ */

/* Each case of one golden file, parsed, with its line number; the callback
 * owns nothing (the case is freed after it returns). */
typedef void (*case_fn)(const json_t *c, const char *file, int line_no, void *ctx);

static void for_each_case(const char *path, const char *file, case_fn fn, void *ctx)
{
    size_t len;
    char *text = read_file(path, &len);
    cr_assert_not_null(text, "cannot read %s", path);
    int line_no = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        if (!*line)
            continue;
        json_error_t jerr;
        json_t *c = json_loads(line, 0, &jerr);
        cr_assert_not_null(c, "%s:%d: %s", file, line_no, jerr.text);
        cr_assert_not_null(json_string_value(json_object_get(c, "solver")), "%s:%d: no solver", file, line_no);
        fn(c, file, line_no, ctx);
        json_decref(c);
    }
    free(text);
}

/* One case through POST /solve; true if it agrees, else its reason is in t. */
static bool run_case(const json_t *c, const char *file, int line_no, bool strict_warnings, tally *t)
{
    const char *solver = json_string_value(json_object_get(c, "solver"));
    const json_t *inputs = json_object_get(c, "inputs");
    t->cases++;
    reply r = solve(solver, inputs, json_string_value(json_object_get(c, "catalog")));
    why w = {{0}};
    if (!r.body)
        why_set(&w, "status %ld and a body that is not JSON", r.status);
    else
        check_case(&w, c, &r, strict_warnings);
    json_decref(r.body);
    if (!w.text[0])
        return true;
    char *in = json_dumps(inputs, JSON_COMPACT);
    tally_fail(t, "  %s:%d %s %s: %s", file, line_no, solver, in, w.text);
    free(in);
    return false;
}

typedef struct {
    const char *solver;
    bool strict_warnings;
    tally t;
} file_run;

static void file_case(const json_t *c, const char *file, int line_no, void *ctx)
{
    file_run *fr = ctx;
    if (!strcmp(json_string_value(json_object_get(c, "solver")), fr->solver))
        run_case(c, file, line_no, fr->strict_warnings, &fr->t);
}

static void run_golden_file(const char *file, const char *solver, int want_cases, bool strict_warnings)
{
    char path[1024];
    cr_assert(golden_path(file, path, sizeof path), "%s is in neither %s nor %s", file, golden_vendored_dir(),
              golden_shared_dir());
    file_run fr = {.solver = solver, .strict_warnings = strict_warnings};
    for_each_case(path, file, file_case, &fr);
    /* a filter that matched nothing (renamed solver, truncated file) must not pass */
    cr_assert_eq(fr.t.cases, want_cases, "%s: %d %s cases, want %d", file, fr.t.cases, solver, want_cases);
    cr_assert_eq(fr.t.failed, 0, "%s: %d of %d %s cases differ from the reference; first:\n%s", file, fr.t.failed,
                 fr.t.cases, solver, fr.t.first);
}

/* Every file, every solver: registered solvers must agree, the others are pending. */

typedef struct {
    char file[64], solver[48];
    int passed, failed, pending;
} group_count;

#define MAX_GROUPS 256

static group_count *group_for(group_count *g, int *n, const char *file, const char *solver)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(g[i].file, file) && !strcmp(g[i].solver, solver))
            return &g[i];
    cr_assert_lt(*n, MAX_GROUPS, "more than %d file x solver groups", MAX_GROUPS);
    group_count *c = &g[(*n)++];
    snprintf(c->file, sizeof c->file, "%s", file);
    snprintf(c->solver, sizeof c->solver, "%s", solver);
    return c;
}

/* The solver names GET /solvers lists. */
static json_t *registered_solvers(void)
{
    http_resp r;
    cr_assert_eq(http_get(shared_daemon(), "/solvers", &r), 0);
    json_t *body = http_json(&r);
    http_free(&r);
    json_t *names = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(body, "solvers"), i, s)
        json_array_append(names, json_object_get(s, "name"));
    json_decref(body);
    cr_assert_gt(json_array_size(names), 0, "GET /solvers listed no solver");
    return names;
}

typedef struct {
    json_t *known;              /* names GET /solvers lists */
    group_count groups[MAX_GROUPS];
    int n_groups;
    tally t;
} every_run;

static void every_case(const json_t *c, const char *file, int line_no, void *ctx)
{
    every_run *er = ctx;
    const char *solver = json_string_value(json_object_get(c, "solver"));
    group_count *g = group_for(er->groups, &er->n_groups, file, solver);
    if (!in_string_array(er->known, solver))
        g->pending++;
    /* upstream files (reference_, breadth_) are mlsysim itself: no warning beyond its own */
    else if (run_case(c, file, line_no, strncmp(file, "current", 7) != 0, &er->t))
        g->passed++;
    else
        g->failed++;
}

Test(golden, every_file_every_solver, .timeout = 600)
{
    FILE *summary = fopen("golden-summary.txt", "w");
    golden_file files[GOLDEN_MAX_FILES];
    int n_files = golden_files(".jsonl", files, GOLDEN_MAX_FILES);
    if (n_files == 0 && summary)
        fputs("golden: no golden file found\n", summary);
    cr_assert_gt(n_files, 0, "no *.jsonl in %s or %s", golden_vendored_dir(), golden_shared_dir());
    every_run er = {.known = registered_solvers()};
    for (int f = 0; f < n_files; f++)
        for_each_case(files[f].path, files[f].name, every_case, &er);
    group_count *groups = er.groups;
    int n_groups = er.n_groups;
    tally t = er.t;
    json_t *known = er.known;
    int passed = 0, failed = 0, pending = 0;
    for (int i = 0; i < n_groups; i++) {
        passed += groups[i].passed;
        failed += groups[i].failed;
        pending += groups[i].pending;
        fprintf(stderr, "golden: %-28s %-24s %4d passed %4d failed %4d pending\n", groups[i].file, groups[i].solver,
                groups[i].passed, groups[i].failed, groups[i].pending);
    }
    char line[200];
    snprintf(line, sizeof line, "golden: %d passed, %d failed, %d pending (solver not yet registered) in %d files",
             passed, failed, pending, n_files);
    fprintf(stderr, "%s\n", line);
    if (summary) {
        fprintf(summary, "%s\n", line);
        for (int i = 0; i < n_groups; i++)
            if (groups[i].pending)
                fprintf(summary, "  pending: %s %s %d\n", groups[i].file, groups[i].solver, groups[i].pending);
        fclose(summary);
    }
    json_decref(known);
    cr_assert_gt(passed + failed, 0, "no golden case of a registered solver was found");
    cr_assert_eq(t.failed, 0, "%d of %d golden cases differ from the reference; first:\n%s", t.failed, t.cases,
                 t.first);
}

/* Case counts per file and solver, as the files hold them (704 and 500 in all, per the README). */
Test(golden, reference_single_node) { run_golden_file("reference_cases.jsonl", "single_node", 577, true); }
Test(golden, reference_data) { run_golden_file("reference_cases.jsonl", "data", 68, true); }
Test(golden, reference_transformation) { run_golden_file("reference_cases.jsonl", "transformation", 59, true); }
Test(golden, current_single_node) { run_golden_file("current_cases.jsonl", "single_node", 300, false); }
Test(golden, current_data) { run_golden_file("current_cases.jsonl", "data", 45, false); }
Test(golden, current_transformation) { run_golden_file("current_cases.jsonl", "transformation", 42, false); }
Test(golden, current_pipeline) { run_golden_file("current_cases.jsonl", "pipeline", 113, false); }

/* ---- seed_tutorial.json ------------------------------------------------------------------ */

static json_t *load_seed(void)
{
    char path[1024];
    cr_assert(golden_path("seed_tutorial.json", path, sizeof path), "seed_tutorial.json is in neither %s nor %s",
              golden_vendored_dir(), golden_shared_dir());
    json_error_t jerr;
    json_t *seed = json_load_file(path, 0, &jerr);
    cr_assert_not_null(seed, "%s: %s", path, jerr.text);
    cr_assert_eq(json_array_size(json_object_get(seed, "cases")), 18, "seed_tutorial.json should hold 18 cells");
    return seed;
}

static const char *case_name(const json_t *c)
{
    static char buf[200];
    snprintf(buf, sizeof buf, "[%s] %s", json_string_value(json_object_get(c, "edition")),
             json_string_value(json_object_get(c, "cell")));
    return buf;
}

/* How the page printed a figure: the field it shows, a scale (percentages)
 * and the format of the tutorial's f-string. */
typedef struct {
    const char *label;
    const char *field;
    double scale;
    const char *format; /* "%s" for strings / booleans (printed the Python way) */
} printed_figure;

static const printed_figure FIGURES[] = {
    {"Step latency", "latency", 1, "%.2f ms"},
    {"Throughput", "throughput", 1, "%.0f / second img/s"},
    {"Bottleneck", "bottleneck", 1, "%s"},
    {"Data demand", "demand_bw", 1, "%.3f GB / second"},
    {"Storage supply", "supply_bw", 1, "%.2f GB / second"},
    {"Utilization", "utilization", 100, "%.1f%%"},
    {"Is stalled", "is_stalled", 1, "%s"},
    {"CPU transform time", "transform_time", 1, "%.0f ms"},
    {"GPU step time", "accelerator_step_time", 1, "%.2f ms"},
    {"CPU is bottleneck", "is_bottleneck", 1, "%s"},
    {"GPU utilization", "accelerator_utilization", 100, "%.1f%%"},
    {"Slowdown factor", "slowdown_factor", 1, "%.2fx"},
};

static void render_figure(const printed_figure *f, const json_t *res, char *out, size_t n)
{
    const json_t *v = json_object_get(res, f->field);
    if (json_is_boolean(v))
        snprintf(out, n, f->format, json_is_true(v) ? "True" : "False");
    else if (json_is_string(v))
        snprintf(out, n, f->format, json_string_value(v));
    else if (json_is_number(v))
        snprintf(out, n, f->format, json_number_value(v) * f->scale);
    else
        snprintf(out, n, "(no %s in the result)", f->field);
}

/* Unrounded numbers at 1e-9, and the printed figures as the page rounded them. */
static void run_single_step(const json_t *c, tally *t)
{
    const char *solver = json_string_value(json_object_get(c, "solver"));
    const char *catalog = json_string_value(json_object_get(c, "catalog"));
    reply r = solve(solver, json_object_get(c, "inputs"), catalog);
    why w = {{0}};
    check_case(&w, c, &r, false);
    /* bare numbers in the cell mean its input_units: the service must declare the same */
    const char *k;
    const json_t *v;
    json_object_foreach(json_object_get(c, "input_units"), k, v) {
        const json_t *declared = json_object_get(json_object_get(r.body, "input_units"), k);
        if (!json_equal((json_t *)v, (json_t *)declared))
            why_set(&w, "input %s is declared in %s, the cell means %s", k,
                    declared ? json_string_value(declared) : "(nothing)", json_string_value(v));
    }
    if (strcmp(json_string_value(json_object_get(r.body, "catalog"))
                   ? json_string_value(json_object_get(r.body, "catalog"))
                   : "",
               catalog))
        why_set(&w, "the response names another catalog edition than %s", catalog);
    const json_t *printed = json_object_get(c, "printed"), *res = result_of(&r);
    json_object_foreach((json_t *)printed, k, v) {
        char got[120];
        if (!strcmp(k, "answer")) {
            /* "20/35 = 57%": step / transform time, as a rounded percentage */
            snprintf(got, sizeof got, "%.0f/%.0f = %.0f%%", num_at(res, "accelerator_step_time"),
                     num_at(res, "transform_time"), 100 * num_at(res, "accelerator_utilization"));
        } else {
            const printed_figure *f = NULL;
            for (size_t i = 0; i < sizeof FIGURES / sizeof FIGURES[0]; i++)
                if (!strcmp(FIGURES[i].label, k))
                    f = &FIGURES[i];
            if (!f) {
                why_set(&w, "printed figure '%s' has no rendering rule in this test", k);
                continue;
            }
            render_figure(f, res, got, sizeof got);
        }
        if (strcmp(got, json_string_value(v)))
            why_set(&w, "printed %s: '%s', the page shows '%s'", k, got, json_string_value(v));
    }
    if (w.text[0])
        tally_fail(t, "  %s: %s", case_name(c), w.text);
    json_decref(r.body);
}

/* One point of the tutorial's loop: single_node at this batch, then
 * transformation with its latency (a bare number in ms, the service's
 * declared unit); the pipeline solver must see the same point. */
typedef struct {
    double batch;
    double workers;         /* 0 when the row does not vary workers */
    double gpu_step_ms;     /* single_node latency */
    const char *bottleneck; /* single_node bottleneck */
    double cpu_gbps;        /* CPU throughput used, GB/s */
    json_t *tr;             /* transformation result */
    json_t *pipe;           /* pipeline result */
    json_t *keep[3];
} loop_point;

static bool run_point(const json_t *c, loop_point *p, why *w)
{
    const json_t *in = json_object_get(c, "inputs");
    const char *catalog = json_string_value(json_object_get(c, "catalog"));
    json_t *sn_in = json_pack("{s:O,s:O,s:O,s:I}", "model", json_object_get(in, "model"), "hardware",
                              json_object_get(in, "hardware"), "precision", json_object_get(in, "precision"),
                              "batch_size", (json_int_t)p->batch);
    reply sn = solve("single_node", sn_in, catalog);
    json_decref(sn_in);
    p->keep[0] = sn.body;
    if (sn.status != 200) {
        why_set(w, "single_node at batch %.0f: status %ld", p->batch, sn.status);
        return false;
    }
    p->gpu_step_ms = num_at(result_of(&sn), "latency");
    p->bottleneck = json_string_value(json_object_get(result_of(&sn), "bottleneck"));

    /* the tutorial's worker loop: cpu_throughput = workers x per-worker rate (250 MB/s = 0.25 GB/s) */
    json_t *cpu;
    if (p->workers > 0) {
        double per_worker_gbps = 0.25;
        cr_assert_str_eq(json_string_value(json_object_get(in, "per_worker_throughput")), "250 MB/s");
        p->cpu_gbps = p->workers * per_worker_gbps;
        cpu = json_real(p->cpu_gbps);
    } else {
        cpu = json_incref(json_object_get(in, "cpu_throughput"));
        p->cpu_gbps = NAN;
    }
    json_t *tr_in = json_pack("{s:I,s:O,s:o,s:f}", "batch_size", (json_int_t)p->batch, "sample_size_bytes",
                              json_object_get(in, "sample_size_bytes"), "cpu_throughput", cpu, "accelerator_step_time",
                              p->gpu_step_ms);
    reply tr = solve("transformation", tr_in, catalog);
    json_decref(tr_in);
    p->keep[1] = tr.body;
    if (tr.status != 200) {
        why_set(w, "transformation at batch %.0f: status %ld", p->batch, tr.status);
        return false;
    }
    p->tr = result_of(&tr);

    json_t *pl_in =
        json_pack("{s:O,s:O,s:O,s:I,s:O}", "model", json_object_get(in, "model"), "hardware",
                  json_object_get(in, "hardware"), "precision", json_object_get(in, "precision"), "batch_size",
                  (json_int_t)p->batch, "sample_size_bytes", json_object_get(in, "sample_size_bytes"));
    if (p->workers > 0)
        json_object_set_new(pl_in, "cpu_workers", json_integer((json_int_t)p->workers));
    else
        json_object_set(pl_in, "cpu_throughput", json_object_get(in, "cpu_throughput"));
    if (json_object_get(in, "per_worker_throughput"))
        json_object_set(pl_in, "per_worker_throughput", json_object_get(in, "per_worker_throughput"));
    reply pl = solve("pipeline", pl_in, catalog);
    json_decref(pl_in);
    p->keep[2] = pl.body;
    if (pl.status != 200) {
        why_set(w, "pipeline at batch %.0f: status %ld", p->batch, pl.status);
        return false;
    }
    p->pipe = result_of(&pl);
    return true;
}

static void free_point(loop_point *p)
{
    for (int i = 0; i < 3; i++)
        json_decref(p->keep[i]);
}

static void expect_num(why *w, const char *what, double got, const json_t *want)
{
    if (!json_is_number(want) || !close_enough(got, json_number_value(want)))
        why_set(w, "%s = %.17g, want %.17g", what, got, json_number_value(want));
}

static void expect_bool(why *w, const char *what, const json_t *got, const json_t *want)
{
    if (!json_is_boolean(got) || !json_equal((json_t *)got, (json_t *)want))
        why_set(w, "%s differs from the reference", what);
}

/* Compare one expected row (or an exercise's "expected") with a point. */
static void check_row(why *w, const json_t *row, const loop_point *p, const json_t *in)
{
    double util = num_at(p->tr, "accelerator_utilization");
    const char *binding = json_is_true(json_object_get(p->tr, "is_bottleneck")) ? "Transformation" : p->bottleneck;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)row, k, v) {
        if (!strcmp(k, "batch_size")) {
            expect_num(w, "batch_size", p->batch, v);
        } else if (!strcmp(k, "workers")) {
            expect_num(w, "workers", p->workers, v);
        } else if (!strcmp(k, "gpu_step_ms")) {
            expect_num(w, "gpu_step_ms", p->gpu_step_ms, v);
        } else if (!strcmp(k, "cpu_transform_ms") || !strcmp(k, "transform_time")) {
            expect_num(w, k, num_at(p->tr, "transform_time"), v);
        } else if (!strcmp(k, "gpu_utilization") || !strcmp(k, "accelerator_utilization")) {
            expect_num(w, k, util, v);
        } else if (!strcmp(k, "is_bottleneck")) {
            expect_bool(w, k, json_object_get(p->tr, "is_bottleneck"), v);
        } else if (!strcmp(k, "binding")) {
            if (strcmp(binding, json_string_value(v)))
                why_set(w, "binding %s, want %s", binding, json_string_value(v));
        } else if (!strcmp(k, "cpu_throughput_gbps")) {
            expect_num(w, k, p->cpu_gbps, v);
            expect_num(w, "pipeline cpu_throughput", num_at(p->pipe, "cpu_throughput"), v);
        } else if (!strcmp(k, "workers_needed_at_250MBps")) {
            /* smallest whole n with n x 250 MB/s >= batch x sample / step (the cell's note) */
            cr_assert_str_eq(json_string_value(json_object_get(in, "sample_size_bytes")), "5 MB");
            double sample = 5e6;
            double needed = ceil(p->batch * sample / (p->gpu_step_ms * 1e-3 * 250e6));
            expect_num(w, "workers needed (tutorial formula)", needed, v);
            expect_num(w, "pipeline workers_needed", num_at(p->pipe, "workers_needed"), v);
        } else {
            why_set(w, "row field '%s' has no rule in this test", k);
        }
    }
    /* the pipeline solver models the same step: its utilization is the tutorial's */
    if (json_object_get(row, "gpu_utilization") || json_object_get(row, "accelerator_utilization"))
        expect_num(w, "pipeline accelerator_utilization", num_at(p->pipe, "accelerator_utilization"),
                   json_object_get(row, json_object_get(row, "gpu_utilization") ? "gpu_utilization"
                                                                                : "accelerator_utilization"));
    if (json_object_get(row, "gpu_step_ms"))
        expect_num(w, "pipeline accelerator_step_time", num_at(p->pipe, "accelerator_step_time"),
                   json_object_get(row, "gpu_step_ms"));
    if (json_object_get(row, "binding")) {
        const char *stage = json_string_value(json_object_get(p->pipe, "binding_stage"));
        if (!stage || strcmp(stage, binding))
            why_set(w, "pipeline binding_stage %s, the loop says %s", stage ? stage : "(none)", binding);
    }
}

static void run_multi_step(const json_t *c, tally *t)
{
    const json_t *in = json_object_get(c, "inputs"), *rows = json_object_get(c, "expected_rows");
    const json_t *printed = json_object_get(c, "printed_rows");
    const json_t *batches = json_object_get(in, "batch_size"), *workers = json_object_get(in, "cpu_workers");
    size_t n = json_is_array(batches)   ? json_array_size(batches)
               : json_is_array(workers) ? json_array_size(workers)
                                        : 1;
    if (rows && json_array_size(rows) != n) {
        tally_fail(t, "  %s: %zu rows for %zu points", case_name(c), json_array_size(rows), n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        loop_point p = {0};
        p.batch = json_number_value(json_is_array(batches) ? json_array_get(batches, i) : batches);
        p.workers = json_is_array(workers) ? json_number_value(json_array_get(workers, i)) : 0;
        why w = {{0}};
        if (run_point(c, &p, &w)) {
            const json_t *row = rows ? json_array_get(rows, i) : json_object_get(c, "expected");
            check_row(&w, row, &p, in);
            if (json_is_array(printed)) {
                char got[160];
                double util = 100 * num_at(p.tr, "accelerator_utilization");
                if (p.workers > 0) /* "8 2 GB/s 10.9%" */
                    snprintf(got, sizeof got, "%.0f %.0f GB/s %.1f%%", p.workers, p.cpu_gbps, util);
                else /* "32 1.36 ms 8.00 ms Transformation 17.0%" */
                    snprintf(got, sizeof got, "%.0f %.2f ms %.2f ms %s %.1f%%", p.batch, p.gpu_step_ms,
                             num_at(p.tr, "transform_time"),
                             json_is_true(json_object_get(p.tr, "is_bottleneck")) ? "Transformation" : p.bottleneck,
                             util);
                if (strcmp(got, json_string_value(json_array_get(printed, i))))
                    why_set(&w, "printed row '%s', the page shows '%s'", got,
                            json_string_value(json_array_get(printed, i)));
            }
        }
        if (w.text[0])
            tally_fail(t, "  %s, point %zu: %s", case_name(c), i, w.text);
        free_point(&p);
    }
}

Test(seed, every_cell)
{
    json_t *seed = load_seed();
    tally t = {0};
    int single = 0, multi = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(seed, "cases"), i, c) {
        const char *solver = json_string_value(json_object_get(c, "solver"));
        t.cases++;
        if (!strncmp(solver, "single_node+transformation", 26)) {
            multi++;
            run_multi_step(c, &t);
        } else {
            single++;
            run_single_step(c, &t);
        }
    }
    json_decref(seed);
    /* single-step: 3 per edition + the override + the self-check; loops: 5 per edition
     * (batch sweep, workers, exercises 1-3) */
    cr_assert_eq(single, 8);
    cr_assert_eq(multi, 10);
    cr_assert_eq(t.failed, 0, "%d of %d seed cells differ from the tutorial; first:\n%s", t.failed, t.cases, t.first);
}

/* ---- spot checks with hand-computed numbers ------------------------------------------------
 *
 * ResNet-50 on an A100, batch 256, fp16, efficiency 0.5 (mlsysim's default):
 *   compute  = 256 x F / (312e12 flop/s x 0.5)
 *   overhead = 0.015 ms dispatch + 50 layers x 0.01 ms = 0.515 ms
 *   memory   = well under compute (0.668 ms): compute-bound
 * current (F = 8.2e9):  13.456410256 + 0.515 = 13.971410256 ms; 256 / 13.971410256 ms = 18323.13 /s
 * tutorial (F = 4.1e9):  6.728205128 + 0.515 =  7.243205128 ms; 256 /  7.243205128 ms = 35343.47 /s */

static void spot(const char *model_json, const char *catalog, double latency_ms, double throughput)
{
    char body[400];
    snprintf(body, sizeof body, "{\"model\":%s,\"hardware\":\"A100\",\"batch_size\":256,\"precision\":\"fp16\"}",
             model_json);
    json_t *inputs = json_loads(body, 0, NULL);
    cr_assert_not_null(inputs);
    reply r = solve("single_node", inputs, catalog);
    json_decref(inputs);
    cr_assert_eq(r.status, 200, "status %ld", r.status);
    const json_t *res = result_of(&r);
    double lat = num_at(res, "latency"), thr = num_at(res, "throughput");
    /* the hand figures carry 10 significant digits */
    cr_assert(fabs(lat - latency_ms) < 1e-8, "latency %.17g ms, want %.10g", lat, latency_ms);
    cr_assert(fabs(thr - throughput) < 5e-3, "throughput %.17g /s, want %.7g", thr, throughput);
    cr_assert(close_enough(thr, 256 / (lat * 1e-3)), "throughput is not batch / latency");
    cr_assert_str_eq(json_string_value(json_object_get(res, "bottleneck")), "Compute");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r.body, "units"), "latency")), "ms");
    cr_assert_str_eq(json_string_value(json_object_get(r.body, "catalog")), catalog ? catalog : "current");
    json_decref(r.body);
}

Test(seed_spot, resnet50_a100_current) { spot("\"ResNet50\"", NULL, 13.971410256, 18323.13); }
Test(seed_spot, resnet50_a100_tutorial) { spot("\"ResNet50\"", "tutorial", 7.243205128, 35343.47); }
Test(seed_spot, resnet50_a100_current_with_tutorial_override)
{
    spot("{\"base\":\"ResNet50\",\"inference_flops\":\"4.1 GFLOP\"}", "current", 7.243205128, 35343.47);
}
