/* plan_scenario.c - one scenario of an mlsysd plan run (contract in
 * plan_internal.h): its request merged over the plan's defaults, then run by
 * kind and its assertions checked (plan_assert.c):
 *  - a solve through the front end, as POST /solve runs it (front.h,
 *    solve.h; plan_solve, which plan_mlsysim.c uses too); the assertions on
 *    its outputs;
 *  - a sweep over sweep_space's points (sweep.h); the assertions at every
 *    point, or at the one named by `at`;
 *  - an optimize through /optimize's own handler (optimize.h); the
 *    assertions at its best point.
 * The scenario's status: infeasible (the solver's feasibility output is
 * false; no point of a sweep is feasible; an optimize has no best point),
 * else fail when an assertion fails, else pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/jsonw.h"
#include "server/optimize.h"
#include "server/plan_internal.h"
#include "server/reply.h"
#include "server/solve.h"

/* --- a solve ---------------------------------------------------------------------------------- */

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

/* --- a scenario -------------------------------------------------------------------------------- */

typedef enum { KIND_SOLVE, KIND_SWEEP, KIND_OPTIMIZE } scenario_kind;
static const char *const KIND_NAMES[] = {"solve", "sweep", "optimize", NULL};

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

static int run_sweep(plan_ctx *p, const json_t *body, const char *prefix, solver_request *r, plan_assertion *as, int n_as,
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
    int fcol = plan_feasible_col(s);
    bool any_at = false;
    for (int i = 0; i < n_as; i++)
        any_at |= as[i].at != NULL;
    for (unsigned long long pt = 0; pt < n; pt++) {
        const solver_inputs *in;
        const solver_outputs *out;
        const char *error = sweep_eval(sp, pt, &in, &out);
        json_t *point = any_at ? plan_point_json(sp, pt) : NULL;
        if (error)
            failed++;
        else if (fcol < 0 || (!out->v[fcol].is_null && out->v[fcol].num != 0))
            feasible++;
        for (int i = 0; i < n_as; i++) {
            if (as[i].at && !plan_point_matches(as[i].at, point))
                continue;
            if (error)
                plan_assertion_record_error(&as[i], error, sp, pt);
            else
                plan_assertion_record(s, &as[i], &out->v[as[i].c.col], sp, pt);
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
        json_t *aj = plan_assertion_json(s, &as[i], as[i].have ? &as[i].worst : NULL, !as[i].failed);
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

static int run_optimize(plan_ctx *p, const json_t *body, const char *prefix, solver_request *r, plan_assertion *as,
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
        json_t *aj = plan_assertion_json(r->s, &as[i], v, ok);
        json_object_set_new(aj, "scope", json_string("best point"));
        json_array_append_new(list, aj);
        p->n_assertions++;
        p->n_failed += !ok;
    }
    free(out);
    json_object_set_new(entry, "answer", answer);
    return 0;
}

static int run_solve(plan_ctx *p, const json_t *body, const char *prefix, const plan_assertion *as, int n_as,
                     json_t *entry, bool *infeasible, api_error *err)
{
    plan_solved ps;
    if (plan_solve(p->a, body, prefix, &ps, err) != 0) {
        plan_solved_free(&ps);
        return -1;
    }
    *infeasible = plan_infeasible_outputs(ps.r.s, ps.out);
    json_t *list = json_object_get(entry, "assertions");
    for (int i = 0; i < n_as; i++) {
        const output_value *v = &ps.out->v[as[i].c.col];
        bool ok = constraint_meets(ps.r.s, &as[i].c, v);
        json_array_append_new(list, plan_assertion_json(ps.r.s, &as[i], v, ok));
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

json_t *plan_run_scenario(plan_ctx *p, const json_t *sc, size_t idx, plan_status *st, api_error *err)
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
    plan_assertion *as = calloc(PLAN_MAX_ASSERTS, sizeof *as);
    int n_as = 0;
    json_t *entry = NULL;
    if (!as) {
        api_fail(err, 503, "overloaded", "", "out of memory");
        goto done;
    }
    if (plan_parse_assertions(r.s, json_object_get(sc, "assert"), prefix, kind == KIND_SWEEP, as, &n_as, err) != 0)
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
