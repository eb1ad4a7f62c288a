/* plan.c - mlsysd's plans: read, checked and evaluated scenario by
 * scenario (contract in plan.h). A solve runs through the front end as
 * POST /solve does (front.h, solve.h); a sweep over sweep_space's points
 * (sweep.h); an optimize through /optimize's own handler (optimize.h). The
 * assertions are /optimize's constraints (constraint.h). mlsysim's form is
 * plan_mlsysim.c's. */
#include "server/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/constraint.h"
#include "server/edition.h"
#include "server/jsonw.h"
#include "server/optimize.h"
#include "server/plan_internal.h"
#include "server/reply.h"
#include "server/solve.h"
#include "server/sweep.h"
#include "server/yaml2json.h"

#define PLAN_MAX_SCENARIOS 64
#define PLAN_MAX_ASSERTS 32

const char *const PLAN_STATUS_NAMES[] = {"pass", "fail", "infeasible", NULL};

int plan_exit_code(plan_status st) { return st == PLAN_PASS ? 0 : st == PLAN_FAIL ? 3 : 2; }

/* --- shared with plan_mlsysim.c (plan_internal.h) ------------------------------------------- */

int plan_prefix_field(api_error *err, const char *prefix)
{
    char f[sizeof err->field + 80];
    if (!*prefix)
        return -1;
    if (err->field[0])
        snprintf(f, sizeof f, "%.70s.%s", prefix, err->field);
    else
        snprintf(f, sizeof f, "%.70s", prefix);
    snprintf(err->field, sizeof err->field, "%.*s", (int)sizeof err->field - 1, f);
    return -1;
}

int plan_known_keys(const json_t *obj, const char *const *keys, const char *prefix, api_error *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = !strcmp(key, keys[i]);
        if (known)
            continue;
        char field[160], list[400] = "";
        size_t used = 0;
        for (size_t i = 0; keys[i] && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", keys[i]);
        snprintf(field, sizeof field, "%s%s%.100s", prefix, *prefix ? "." : "", key);
        return api_fail(err, 400, "unknown-field", field, "unknown field '%.80s'%s%s; allowed: %s", key,
                        *prefix ? " in " : "", prefix, list);
    }
    return 0;
}

void plan_solved_free(plan_solved *ps)
{
    if (ps->in)
        inputs_release(ps->in);
    free(ps->in);
    free(ps->out);
    json_decref(ps->answer);
    memset(ps, 0, sizeof *ps);
}

int plan_solve(app *a, const json_t *body, const char *prefix, plan_solved *ps, api_error *err)
{
    memset(ps, 0, sizeof *ps);
    if (front_read_body(a, body, &ps->r, err) != 0)
        return plan_prefix_field(err, prefix);
    ps->in = calloc(1, sizeof *ps->in);
    ps->out = calloc(1, sizeof *ps->out);
    if (!ps->in || !ps->out) {
        free(ps->in);
        ps->in = NULL;
        return api_fail(err, 503, "overloaded", "", "out of memory");
    }
    if (front_inputs(&ps->r, ps->in, true, err) != 0 || front_run(&ps->r, ps->in, ps->out, err) != 0)
        return plan_prefix_field(err, prefix);
    strbuf b;
    sb_init(&b);
    solve_write(a, &b, &ps->r, ps->in, ps->out);
    ps->answer = b.oom ? NULL : json_loadb(b.data, b.len, 0, NULL);
    sb_free(&b);
    if (!ps->answer)
        return api_fail(err, 503, "overloaded", "", "out of memory writing a scenario's answer");
    return 0;
}

/* --- reading -------------------------------------------------------------------------------- */

json_t *plan_read(const char *text, size_t len, bool yaml, api_error *err)
{
    json_t *j;
    if (yaml) {
        char msg[300] = "";
        j = yaml_to_json(text, len, msg, sizeof msg);
        if (!j) {
            api_fail(err, 400, "invalid-plan", "", "the plan is not valid YAML: %s", msg);
            return NULL;
        }
    } else {
        json_error_t jerr;
        j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!j) {
            api_fail(err, 400, "invalid-plan", "", "the plan is not valid JSON: line %d, column %d: %s", jerr.line,
                     jerr.column, jerr.text);
            return NULL;
        }
    }
    if (!json_is_object(j)) {
        json_decref(j);
        api_fail(err, 400, "invalid-plan", "", "a plan is an object (version, name, scenarios)");
        return NULL;
    }
    return j;
}

/* --- assertions ----------------------------------------------------------------------------- */

typedef struct {
    constraint c;
    const json_t *src;   /* the assertion as written */
    const json_t *at;    /* a sweep's point, or NULL: every point */
    /* a sweep's tally */
    bool have;           /* a value was recorded */
    bool failed;
    unsigned long long checked, failures;
    output_value worst;  /* the value reported: the first failure's, else the one nearest the bound */
    json_t *point;       /* the sweep point of `worst` */
    char point_error[200]; /* the first failure was a point that failed to solve */
} assertion;

/* "itl <= 50 ms": the output, the operator and the bound as written (a bare number with the output's unit). */
static void expression(const solver_desc *s, const assertion *as, char *buf, size_t n)
{
    const output_desc *d = &s->outputs[as->c.col];
    const json_t *bound = json_object_get(as->src, CMP_OP_NAMES[as->c.op]);
    char b[120];
    if (json_is_string(bound))
        snprintf(b, sizeof b, "%s", json_string_value(bound));
    else if (json_is_boolean(bound))
        snprintf(b, sizeof b, "%s", json_is_true(bound) ? "true" : "false");
    else
        snprintf(b, sizeof b, "%.15g%s%s", json_number_value(bound), d->unit[0] ? " " : "", d->unit);
    if (d->kind == OUT_STRING)
        snprintf(buf, n, "%s %s \"%s\"", d->name, CMP_OP_NAMES[as->c.op], b);
    else
        snprintf(buf, n, "%s %s %s", d->name, CMP_OP_NAMES[as->c.op], b);
}

static json_t *value_json(const output_desc *d, const output_value *v)
{
    if (v->is_null || ((d->kind == OUT_NUMBER || d->kind == OUT_INTEGER) && !isfinite(v->num)))
        return json_null();
    switch (d->kind) {
    case OUT_STRING: return json_string(v->str ? v->str : "");
    case OUT_BOOLEAN: return json_boolean(v->num != 0);
    case OUT_INTEGER: return fabs(v->num) < 9e15 ? json_integer((json_int_t)v->num) : json_real(v->num);
    case OUT_NUMBER: break;
    }
    return json_real(v->num);
}

static json_t *bound_json(const output_desc *d, const constraint *c)
{
    if (d->kind == OUT_STRING)
        return json_string(c->str);
    if (d->kind == OUT_BOOLEAN)
        return json_boolean(c->num != 0);
    return json_real(c->num);
}

/* {expression, output, op, bound, unit, actual, passed} of assertion as on solver s. */
static json_t *assertion_json(const solver_desc *s, const assertion *as, const output_value *actual, bool passed)
{
    const output_desc *d = &s->outputs[as->c.col];
    char expr[300];
    expression(s, as, expr, sizeof expr);
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:b}", "expression", expr, "output", d->name, "op",
                          CMP_OP_NAMES[as->c.op], "bound", bound_json(d, &as->c), "unit", d->unit, "actual",
                          actual ? value_json(d, actual) : json_null(), "passed", passed);
    return o;
}

static int parse_assertions(const solver_desc *s, const json_t *list, const char *prefix, bool sweep, assertion *as,
                            int *n, api_error *err)
{
    char field[160];
    snprintf(field, sizeof field, "%s.assert", prefix);
    if (list && (!json_is_array(list) || json_array_size(list) > PLAN_MAX_ASSERTS))
        return api_fail(err, 400, "invalid-input", field,
                        "assert is an array of at most %d assertions like {\"output\": \"latency\", \"<=\": \"10 ms\"}",
                        PLAN_MAX_ASSERTS);
    static const char *const AT[] = {"at", NULL};
    *n = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        char p[160];
        snprintf(p, sizeof p, "%s.assert[%zu]", prefix, i);
        const json_t *j = json_array_get(list, i);
        memset(&as[i], 0, sizeof as[i]);
        if (constraint_parse(s, j, p, sweep ? AT : NULL, &as[i].c, err) != 0)
            return -1;
        as[i].src = j;
        as[i].at = json_object_get(j, "at");
        if (as[i].at && !json_is_object(as[i].at)) {
            snprintf(field, sizeof field, "%.150s.at", p);
            return api_fail(err, 400, "invalid-input", field,
                            "at names one point of the sweep by its axis values: {\"batch_size\": 16}");
        }
        (*n)++;
    }
    return 0;
}

/* The boolean output that says whether the answer is feasible ("feasible",
 * "is_feasible", "node_feasible", ...), or -1. */
static int feasible_col(const solver_desc *s)
{
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        size_t n = strlen(d->name);
        if (d->kind == OUT_BOOLEAN && !output_record_len(d) &&
            (!strcmp(d->name, "feasible") || (n > 9 && !strcmp(d->name + n - 9, "_feasible"))))
            return (int)i;
    }
    return -1;
}

static bool infeasible_outputs(const solver_desc *s, const solver_outputs *out)
{
    int col = feasible_col(s);
    return col >= 0 && !out->v[col].is_null && out->v[col].num == 0;
}

/* --- one scenario --------------------------------------------------------------------------- */

typedef enum { KIND_SOLVE, KIND_SWEEP, KIND_OPTIMIZE } scenario_kind;
static const char *const KIND_NAMES[] = {"solve", "sweep", "optimize", NULL};

typedef struct {
    app *a;
    const json_t *defaults;
    int n_assertions, n_failed;
} plan_ctx;

/* The request of a scenario: its members over the defaults' (inputs merged
 * member by member: those of the defaults' inputs its solver takes, then its
 * own), without name, kind, description and assert. */
static json_t *scenario_body(const plan_ctx *p, const json_t *sc)
{
    json_t *body = json_object();
    const json_t *d = p->defaults;
    static const char *const INHERITED[] = {"solver", "catalog", "calibration", NULL};
    for (size_t i = 0; INHERITED[i]; i++)
        if (json_object_get(d, INHERITED[i]))
            json_object_set(body, INHERITED[i], json_object_get(d, INHERITED[i]));
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)sc, key, val) {
        if (!strcmp(key, "name") || !strcmp(key, "kind") || !strcmp(key, "assert") || !strcmp(key, "description"))
            continue;
        if (!strcmp(key, "inputs"))
            continue;
        json_object_set(body, key, val);
    }
    const json_t *din = json_object_get(d, "inputs"), *sin = json_object_get(sc, "inputs");
    if (din || sin) {
        if (!json_is_object(sin) && sin) {
            json_object_set(body, "inputs", (json_t *)sin); /* refused by the front end, by name */
        } else {
            /* the defaults' inputs that the scenario's solver takes (a plan mixes solvers) */
            json_t *in = json_object();
            const char *sname = json_string_value(json_object_get(body, "solver"));
            const solver_desc *s = sname ? solver_at((size_t)solver_find(sname)) : NULL;
            const char *k;
            json_t *v;
            json_object_foreach((json_t *)din, k, v) if (!s || solver_input_index(s, k) >= 0) json_object_set(in, k, v);
            if (sin)
                json_object_update(in, (json_t *)sin);
            json_object_set_new(body, "inputs", in);
        }
    }
    return body;
}

static void record_sweep(const solver_desc *s, assertion *as, const output_value *v, sweep_stream *sp,
                         unsigned long long pt)
{
    bool met = constraint_meets(s, &as->c, v);
    as->checked++;
    bool take = false;
    if (!met) {
        as->failures++;
        take = !as->failed;
        as->failed = true;
    } else if (!as->failed) {
        if (!as->have) {
            take = true;
        } else if (!as->worst.is_null && !v->is_null) {
            cmp_op op = as->c.op;
            take = (op == OP_LE || op == OP_LT) ? v->num > as->worst.num
                   : (op == OP_GE || op == OP_GT) ? v->num < as->worst.num
                                                  : false;
        }
    }
    if (!take)
        return;
    as->have = true;
    as->worst = *v;
    strbuf b;
    sb_init(&b);
    sweep_space_point_json(sp, &b, pt);
    json_decref(as->point);
    as->point = b.oom ? NULL : json_loadb(b.data, b.len, 0, NULL);
    sb_free(&b);
}

static bool same_axis_value(const json_t *want, const json_t *got)
{
    if (json_is_number(want) && json_is_number(got))
        return json_number_value(want) == json_number_value(got);
    if (json_is_string(want) && json_is_string(got))
        return !strcasecmp(json_string_value(want), json_string_value(got));
    return json_equal((json_t *)want, (json_t *)got);
}

static bool point_matches(const json_t *at, const json_t *point)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)at, k, v) {
        const json_t *g = json_object_get(point, k);
        if (!g || !same_axis_value(v, g))
            return false;
    }
    return true;
}

static int run_sweep(plan_ctx *p, const json_t *body, const char *prefix, solver_request *r, assertion *as, int n_as,
                     json_t *entry, bool *infeasible, api_error *err)
{
    /* the axes are refused by name here, before the assertions are parsed against them */
    sweep_stream *sp = sweep_space(p->a, r, body, err);
    if (!sp)
        return plan_prefix_field(err, prefix);
    const solver_desc *s = r->s;
    for (int i = 0; i < n_as; i++) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)as[i].at, k, v) {
            bool axis = false;
            for (int x = 0; x < sweep_space_axes(sp); x++)
                axis |= !strcmp(sweep_space_axis_label(sp, x), k);
            if (!axis) {
                sweep_stream_free(sp);
                char field[160];
                snprintf(field, sizeof field, "%s.assert[%d].at.%.60s", prefix, i, k);
                return api_fail(err, 400, "invalid-input", field, "'%.60s' is not an axis of this sweep", k);
            }
        }
    }
    unsigned long long n = sweep_space_points(sp), failed = 0, feasible = 0;
    int fcol = feasible_col(s);
    bool any_at = false;
    for (int i = 0; i < n_as; i++)
        any_at |= as[i].at != NULL;
    for (unsigned long long pt = 0; pt < n; pt++) {
        const solver_inputs *in;
        const solver_outputs *out;
        const char *error = sweep_eval(sp, pt, &in, &out);
        json_t *point = NULL;
        if (any_at) {
            strbuf b;
            sb_init(&b);
            sweep_space_point_json(sp, &b, pt);
            point = b.oom ? NULL : json_loadb(b.data, b.len, 0, NULL);
            sb_free(&b);
        }
        if (error)
            failed++;
        else if (fcol < 0 || (!out->v[fcol].is_null && out->v[fcol].num != 0))
            feasible++;
        for (int i = 0; i < n_as; i++) {
            if (as[i].at && !point_matches(as[i].at, point))
                continue;
            if (!error) {
                record_sweep(s, &as[i], &out->v[as[i].c.col], sp, pt);
                continue;
            }
            as[i].checked++;
            as[i].failures++;
            if (!as[i].failed) {
                as[i].failed = true;
                as[i].have = false;
                snprintf(as[i].point_error, sizeof as[i].point_error, "%s", error);
                strbuf b;
                sb_init(&b);
                sweep_space_point_json(sp, &b, pt);
                json_decref(as[i].point);
                as[i].point = b.oom ? NULL : json_loadb(b.data, b.len, 0, NULL);
                sb_free(&b);
            }
        }
        json_decref(point);
        if ((pt & 1023) == 1023 && sweep_space_timed_out(sp)) {
            sweep_stream_free(sp);
            return api_fail(err, 503, "overloaded", "",
                            "%s: the sweep was cut off by the request timeout after %llu of %llu points; "
                            "run the plan with mlsysd eval, which has no timeout",
                            prefix, pt + 1, n);
        }
    }
    for (int i = 0; i < n_as; i++) {
        if (as[i].at && !as[i].checked) {
            sweep_stream_free(sp);
            char field[160];
            snprintf(field, sizeof field, "%s.assert[%d].at", prefix, i);
            return api_fail(err, 400, "invalid-input", field, "at names no point of the sweep");
        }
    }
    *infeasible = feasible == 0;
    json_object_set_new(entry, "answer",
                        json_pack("{s:I, s:I, s:I}", "points", (json_int_t)n, "failed_points", (json_int_t)failed,
                                  "feasible_points", (json_int_t)feasible));
    json_t *list = json_object_get(entry, "assertions");
    for (int i = 0; i < n_as; i++) {
        json_t *aj = assertion_json(s, &as[i], as[i].have ? &as[i].worst : NULL, !as[i].failed);
        json_object_set_new(aj, "scope", json_string(as[i].at ? "point" : "every point"));
        json_object_set_new(aj, "points_checked", json_integer((json_int_t)as[i].checked));
        json_object_set_new(aj, "points_failed", json_integer((json_int_t)as[i].failures));
        if (as[i].point)
            json_object_set(aj, "point", as[i].point);
        if (as[i].point_error[0])
            json_object_set_new(aj, "point_error", json_string(as[i].point_error));
        json_array_append_new(list, aj);
        p->n_assertions++;
        p->n_failed += as[i].failed;
    }
    sweep_stream_free(sp);
    return 0;
}

/* The outputs of a /solve answer's result (for /optimize's best point). */
static void outputs_from_result(const solver_desc *s, const json_t *result, solver_outputs *out)
{
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        size_t plen = output_record_len(d);
        const json_t *v;
        if (plen) {
            char rec[96];
            snprintf(rec, sizeof rec, "%.*s", (int)plen, d->name);
            v = json_object_get(json_object_get(result, rec), output_member_name(d));
        } else {
            v = json_object_get(result, d->name);
        }
        output_value *o = &out->v[i];
        memset(o, 0, sizeof *o);
        o->is_null = !v || json_is_null(v);
        if (json_is_boolean(v))
            o->num = json_is_true(v);
        else if (json_is_number(v))
            o->num = json_number_value(v);
        else if (json_is_string(v))
            o->str = json_string_value(v);
    }
}

static int run_optimize(plan_ctx *p, const json_t *body, const char *prefix, solver_request *r, assertion *as,
                        int n_as, json_t *entry, bool *infeasible, api_error *err)
{
    char *text = json_dumps(body, JSON_COMPACT);
    if (!text)
        return api_fail(err, 503, "overloaded", "", "out of memory");
    app_request req = {.method = "POST", .path = "/optimize", .body = text, .body_len = strlen(text),
                       .content_type = "application/json", .request_id = ""};
    app_response resp = {0};
    sb_init(&resp.body);
    optimize_handle(p->a, &req, &resp, NULL);
    free(text);
    json_t *answer = resp.body.oom ? NULL : json_loadb(resp.body.data, resp.body.len, 0, NULL);
    int status = resp.status;
    app_response_free(&resp);
    if (status != 200 || !answer) {
        const char *detail = json_string_value(json_object_get(answer, "detail"));
        const char *field = json_string_value(json_object_get(answer, "field"));
        const char *type = json_string_value(json_object_get(answer, "type"));
        const char *slug = type && strrchr(type, '/') ? strrchr(type, '/') + 1 : "invalid-input";
        /* the slug must outlive answer: api_error keeps a pointer */
        static const char *const SLUGS[] = {"invalid-input", "unknown-field", "missing-input", "unknown-solver",
                                            "unknown-id", "unknown-input", "invalid-axis", "too-many-points", "overloaded",
                                            "invalid-json", NULL};
        const char *keep = "invalid-input";
        for (size_t i = 0; SLUGS[i]; i++)
            if (!strcmp(slug, SLUGS[i]))
                keep = SLUGS[i];
        api_fail(err, status >= 400 ? status : 503, keep, field ? field : "", "%s",
                 detail ? detail : "the optimize scenario failed");
        json_decref(answer);
        return plan_prefix_field(err, prefix);
    }
    const json_t *best = json_object_get(answer, "best");
    *infeasible = !json_is_object(best);
    solver_outputs *out = calloc(1, sizeof *out);
    if (!out) {
        json_decref(answer);
        return api_fail(err, 503, "overloaded", "", "out of memory");
    }
    if (!*infeasible)
        outputs_from_result(r->s, json_object_get(json_object_get(best, "answer"), "result"), out);
    json_t *list = json_object_get(entry, "assertions");
    for (int i = 0; i < n_as; i++) {
        const output_value *v = *infeasible ? NULL : &out->v[as[i].c.col];
        bool ok = v && constraint_meets(r->s, &as[i].c, v);
        json_t *aj = assertion_json(r->s, &as[i], v, ok);
        json_object_set_new(aj, "scope", json_string("best point"));
        json_array_append_new(list, aj);
        p->n_assertions++;
        p->n_failed += !ok;
    }
    free(out);
    json_object_set_new(entry, "answer", answer);
    return 0;
}

static int run_solve(plan_ctx *p, const json_t *body, const char *prefix, const assertion *as, int n_as,
                     json_t *entry, bool *infeasible, api_error *err)
{
    plan_solved ps;
    if (plan_solve(p->a, body, prefix, &ps, err) != 0) {
        plan_solved_free(&ps);
        return -1;
    }
    *infeasible = infeasible_outputs(ps.r.s, ps.out);
    json_t *list = json_object_get(entry, "assertions");
    for (int i = 0; i < n_as; i++) {
        const output_value *v = &ps.out->v[as[i].c.col];
        bool ok = constraint_meets(ps.r.s, &as[i].c, v);
        json_array_append_new(list, assertion_json(ps.r.s, &as[i], v, ok));
        p->n_assertions++;
        p->n_failed += !ok;
    }
    json_object_set(entry, "answer", ps.answer);
    plan_solved_free(&ps);
    return 0;
}

static int scenario_kind_of(const json_t *sc, const char *prefix, scenario_kind *k, api_error *err)
{
    const json_t *jk = json_object_get(sc, "kind");
    if (!jk) {
        *k = json_object_get(sc, "objective") ? KIND_OPTIMIZE : json_object_get(sc, "axes") ? KIND_SWEEP : KIND_SOLVE;
        return 0;
    }
    for (int i = 0; KIND_NAMES[i]; i++)
        if (json_is_string(jk) && !strcasecmp(json_string_value(jk), KIND_NAMES[i])) {
            *k = (scenario_kind)i;
            return 0;
        }
    char field[160];
    snprintf(field, sizeof field, "%s.kind", prefix);
    return api_fail(err, 400, "invalid-input", field, "kind is solve, sweep or optimize (default: optimize with an "
                                                      "objective, sweep with axes, else solve)");
}

static json_t *run_scenario(plan_ctx *p, const json_t *sc, size_t idx, plan_status *st, api_error *err)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "scenarios[%zu]", idx);
    scenario_kind kind = KIND_SOLVE;
    if (scenario_kind_of(sc, prefix, &kind, err) != 0)
        return NULL;
    static const char *const SOLVE_KEYS[] = {"name", "description", "kind", "solver", "inputs", "catalog",
                                             "calibration", "assert", NULL};
    static const char *const SWEEP_KEYS[] = {"name", "description", "kind", "solver", "inputs", "axes", "catalog",
                                             "calibration", "assert", NULL};
    static const char *const OPT_KEYS[] = {"name",        "description", "kind",      "solver", "inputs", "axes",
                                           "catalog",     "calibration", "constraints", "objective", "top_k", "method",
                                           "assert",      NULL};
    const char *const *keys = kind == KIND_SOLVE ? SOLVE_KEYS : kind == KIND_SWEEP ? SWEEP_KEYS : OPT_KEYS;
    if (plan_known_keys(sc, keys, prefix, err) != 0)
        return NULL;
    json_t *body = scenario_body(p, sc);
    solver_request r;
    if (front_read_body(p->a, body, &r, err) != 0) {
        json_decref(body);
        plan_prefix_field(err, prefix);
        return NULL;
    }
    assertion *as = calloc(PLAN_MAX_ASSERTS, sizeof *as);
    int n_as = 0;
    json_t *entry = NULL;
    if (!as) {
        api_fail(err, 503, "overloaded", "", "out of memory");
        goto done;
    }
    if (parse_assertions(r.s, json_object_get(sc, "assert"), prefix, kind == KIND_SWEEP, as, &n_as, err) != 0)
        goto done;
    entry = json_pack("{s:O, s:s, s:s, s:[]}", "name", json_object_get(sc, "name"), "kind", KIND_NAMES[kind],
                      "solver", r.s->name, "assertions");
    int before = p->n_failed;
    bool infeasible = false;
    int rc = kind == KIND_SOLVE   ? run_solve(p, body, prefix, as, n_as, entry, &infeasible, err)
             : kind == KIND_SWEEP ? run_sweep(p, body, prefix, &r, as, n_as, entry, &infeasible, err)
                                  : run_optimize(p, body, prefix, &r, as, n_as, entry, &infeasible, err);
    if (rc != 0) {
        json_decref(entry);
        entry = NULL;
        goto done;
    }
    *st = infeasible ? PLAN_INFEASIBLE : p->n_failed > before ? PLAN_FAIL : PLAN_PASS;
    json_object_set_new(entry, "status", json_string(PLAN_STATUS_NAMES[*st]));
    if (infeasible)
        json_object_set_new(entry, "infeasible_reason",
                            json_string(kind == KIND_SOLVE   ? "the solver's feasibility output is false"
                                        : kind == KIND_SWEEP ? "no point of the sweep is feasible"
                                                             : "no point meets the optimize constraints"));
done:
    for (int i = 0; as && i < PLAN_MAX_ASSERTS; i++)
        json_decref(as[i].point);
    free(as);
    json_decref(body);
    return entry;
}

/* --- the plan ------------------------------------------------------------------------------- */

static int check_version(const json_t *plan, api_error *err)
{
    const json_t *v = json_object_get(plan, "version");
    if (!v)
        return api_fail(err, 400, "missing-input", "version", "a plan needs version: \"1\"");
    bool one = (json_is_string(v) && !strcmp(json_string_value(v), "1")) ||
               (json_is_integer(v) && json_integer_value(v) == 1);
    if (!one)
        return api_fail(err, 400, "invalid-input", "version", "this mlsysd reads plans of version \"1\"");
    return 0;
}

static int check_defaults(app *a, const json_t *d, api_error *err)
{
    if (!d)
        return 0;
    if (!json_is_object(d))
        return api_fail(err, 400, "invalid-input", "defaults",
                        "defaults is an object: solver, catalog, calibration and inputs shared by the scenarios");
    static const char *const KEYS[] = {"solver", "catalog", "calibration", "inputs", NULL};
    if (plan_known_keys(d, KEYS, "defaults", err) != 0)
        return -1;
    const json_t *jc = json_object_get(d, "catalog"), *jk = json_object_get(d, "calibration"),
                 *js = json_object_get(d, "solver"), *ji = json_object_get(d, "inputs");
    if (jc && !json_is_string(jc))
        return api_fail(err, 400, "invalid-input", "defaults.catalog", "catalog must be a string naming an edition");
    if (jc && !app_edition(a, json_string_value(jc), err))
        return plan_prefix_field(err, "defaults");
    calibration_mode m;
    if (jk && calibration_from_text(json_string_value(jk), &m) != 0) {
        calibration_fail(err, json_string_value(jk));
        return plan_prefix_field(err, "defaults");
    }
    solver_request r;
    if (js && (!json_is_string(js) || front_find_solver(json_string_value(js), &r, err) != 0)) {
        if (!json_is_string(js))
            api_fail(err, 400, "invalid-input", "solver", "solver must be a string naming a solver");
        return plan_prefix_field(err, "defaults");
    }
    if (ji && !json_is_object(ji))
        return api_fail(err, 400, "invalid-input", "defaults.inputs", "inputs is an object of solver inputs");
    return 0;
}

static int check_names(const json_t *scs, api_error *err)
{
    for (size_t i = 0; i < json_array_size(scs); i++) {
        const json_t *sc = json_array_get(scs, i);
        char field[64];
        snprintf(field, sizeof field, "scenarios[%zu]", i);
        if (!json_is_object(sc))
            return api_fail(err, 400, "invalid-input", field,
                            "a scenario is an object: name, solver, inputs, assert (and axes or objective)");
        const char *name = json_string_value(json_object_get(sc, "name"));
        snprintf(field, sizeof field, "scenarios[%zu].name", i);
        if (!name || !*name)
            return api_fail(err, 400, json_object_get(sc, "name") ? "invalid-input" : "missing-input", field,
                            "every scenario has a name (a non-empty string)");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(name, json_string_value(json_object_get(json_array_get(scs, k), "name"))))
                return api_fail(err, 400, "invalid-input", field, "scenario name '%.80s' is used twice", name);
    }
    return 0;
}

static json_t *answer_head(const json_t *plan, const char *format)
{
    const json_t *name = json_object_get(plan, "name");
    return json_pack("{s:O, s:s}", "plan", json_is_string(name) ? name : json_null(), "format", format);
}

static void answer_tail(json_t *ans, json_t *scenarios, plan_status st, int n_assertions, int n_failed)
{
    size_t n = json_array_size(scenarios), by[3] = {0, 0, 0}, i;
    json_t *sc;
    json_array_foreach(scenarios, i, sc) {
        const char *s = json_string_value(json_object_get(sc, "status"));
        for (int k = 0; k < 3; k++)
            if (s && !strcmp(s, PLAN_STATUS_NAMES[k]))
                by[k]++;
    }
    json_object_set_new(ans, "status", json_string(PLAN_STATUS_NAMES[st]));
    json_object_set_new(ans, "exit_code", json_integer(plan_exit_code(st)));
    json_object_set_new(ans, "summary",
                        json_pack("{s:I, s:I, s:I, s:I, s:i, s:i}", "scenarios", (json_int_t)n, "passed",
                                  (json_int_t)by[PLAN_PASS], "failed", (json_int_t)by[PLAN_FAIL], "infeasible",
                                  (json_int_t)by[PLAN_INFEASIBLE], "assertions", n_assertions, "assertions_failed",
                                  n_failed));
    json_object_set_new(ans, "scenarios", scenarios);
}

static plan_status worse(plan_status a, plan_status b)
{
    if (a == PLAN_INFEASIBLE || b == PLAN_INFEASIBLE)
        return PLAN_INFEASIBLE;
    return a == PLAN_FAIL || b == PLAN_FAIL ? PLAN_FAIL : PLAN_PASS;
}

json_t *plan_evaluate(app *a, const json_t *plan, api_error *err)
{
    if (plan_is_mlsysim(plan)) {
        plan_status st;
        json_t *sc = plan_mlsysim_evaluate(a, plan, &st, err);
        if (!sc)
            return NULL;
        json_t *ans = answer_head(plan, "mlsysim");
        const json_t *asserts = json_object_get(sc, "assertions");
        int failed = 0;
        size_t i;
        json_t *x;
        json_array_foreach(asserts, i, x) failed += !json_is_true(json_object_get(x, "passed"));
        json_t *list = json_array();
        json_array_append_new(list, sc);
        answer_tail(ans, list, st, (int)json_array_size(asserts), failed);
        return ans;
    }
    static const char *const KEYS[] = {"version", "name", "description", "defaults", "scenarios", NULL};
    if (check_version(plan, err) != 0 || plan_known_keys(plan, KEYS, "", err) != 0)
        return NULL;
    const json_t *name = json_object_get(plan, "name");
    if (!json_is_string(name) || !*json_string_value(name)) {
        api_fail(err, 400, name ? "invalid-input" : "missing-input", "name", "a plan has a name (a non-empty string)");
        return NULL;
    }
    const json_t *scs = json_object_get(plan, "scenarios");
    if (!json_is_array(scs) || json_array_size(scs) == 0 || json_array_size(scs) > PLAN_MAX_SCENARIOS) {
        api_fail(err, 400, scs ? "invalid-input" : "missing-input", "scenarios",
                 "scenarios is an array of 1 to %d scenarios (or write mlsysim's form: workload, hardware, "
                 "constraints)",
                 PLAN_MAX_SCENARIOS);
        return NULL;
    }
    plan_ctx p = {.a = a, .defaults = json_object_get(plan, "defaults")};
    if (check_defaults(a, p.defaults, err) != 0 || check_names(scs, err) != 0)
        return NULL;
    json_t *list = json_array();
    plan_status st = PLAN_PASS;
    for (size_t i = 0; i < json_array_size(scs); i++) {
        plan_status one;
        json_t *entry = run_scenario(&p, json_array_get(scs, i), i, &one, err);
        if (!entry) {
            json_decref(list);
            return NULL;
        }
        json_array_append_new(list, entry);
        st = worse(st, one);
    }
    json_t *ans = answer_head(plan, "mlsysd");
    answer_tail(ans, list, st, p.n_assertions, p.n_failed);
    return ans;
}

/* --- the schema ----------------------------------------------------------------------------- */

/* v with every "#/components/schemas/X" reference replaced by a copy of X
 * (the plan's schemas are not recursive; depth bounds a mistake). */
static json_t *inline_refs(const json_t *schemas, const json_t *v, int depth)
{
    if (depth > 16)
        return json_object();
    if (json_is_array(v)) {
        json_t *arr = json_array();
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) json_array_append_new(arr, inline_refs(schemas, x, depth + 1));
        return arr;
    }
    if (!json_is_object(v))
        return json_deep_copy(v);
    const char *ref = json_string_value(json_object_get(v, "$ref"));
    static const char PREFIX[] = "#/components/schemas/";
    if (ref && !strncmp(ref, PREFIX, sizeof PREFIX - 1))
        return inline_refs(schemas, json_object_get(schemas, ref + sizeof PREFIX - 1), depth + 1);
    json_t *o = json_object();
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) json_object_set_new(o, k, inline_refs(schemas, x, depth + 1));
    return o;
}

json_t *plan_schema(const app *a)
{
    const json_t *schemas = json_object_get(json_object_get(a->openapi, "components"), "schemas");
    const json_t *plan = json_object_get(schemas, "Plan");
    if (!plan)
        return NULL;
    json_t *s = inline_refs(schemas, plan, 0);
    json_t *out = json_pack("{s:s, s:s}", "$schema", "https://json-schema.org/draft/2020-12/schema", "$id",
                            "https://mlsysd.dev/schemas/plan.json");
    json_object_update(out, s);
    json_decref(s);
    return out;
}
