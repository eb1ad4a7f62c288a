/* optimize.c - POST /optimize: the best point of a search space by an
 * objective, among the points whose outputs meet every constraint.
 *
 * The space is a /sweep's (solver, inputs, axes, catalog: sweep_space), under
 * the same point cap and request timeout. Constraints compare an output with
 * a bound ({"output": "latency", "<=": "10 ms"}, {"output": "feasible", "==":
 * true}); the objective maximizes or minimizes an axis input or a numeric
 * output. A point whose inputs fail meets nothing.
 *
 * Exhaustive by default: every point is solved once and the best top_k kept
 * (memory: top_k points); they are solved again to write their answers.
 * Bisection, O(log n) points, only where its premise is on record: the space
 * is one axis in increasing or decreasing value order, the objective is that
 * axis, and every constraint's output is on record in the solver's
 * descriptor (solver_desc.monotone) as monotone in that input. Then the
 * points that meet every constraint are a prefix or a suffix of the axis in
 * value order and the best is at its edge. tests/api/test_optimize.c checks
 * every such entry against the exhaustive answer. A point that fails during bisection, or a top point
 * that breaks the premise when solved again, sends the search back to
 * exhaustive.
 *
 * Binding constraints: for an axis objective, those broken by the
 * neighbouring point one step further in the objective's direction (the
 * other axes as at the optimum); for an output objective, the inequality
 * with the least slack relative to its bound.
 *
 * Several objectives ("objectives": 2 to 4): every point is solved once and
 * the answer is the Pareto front of the feasible points, those no other
 * feasible point matches or beats in every objective and beats in one (at
 * most PARETO_MAX kept; ties keep the first point), each with its /solve
 * answer. */
#include "server/optimize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/body.h"
#include "server/constraint.h"
#include "server/front.h"
#include "server/optimize_internal.h"
#include "server/reply.h"
#include "server/solve.h"
#include "server/sweep.h"

#define TOP_K_DEFAULT 5



/* --- parsing ------------------------------------------------------------------------------ */

static int parse_constraint(opt *o, const json_t *j, size_t i, api_error *err)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "constraints[%zu]", i);
    if (constraint_parse(o->s, j, prefix, NULL, &o->c[o->n_c], err) != 0)
        return -1;
    o->n_c++;
    return 0;
}

static int parse_objective(opt *o, const json_t *j, api_error *err)
{
    objective ob;
    if (optimize_parse_objective(o, j, "objective", &ob, err) != 0)
        return -1;
    o->maximize = ob.maximize;
    o->obj_axis = ob.axis;
    o->obj_col = ob.col;
    return 0;
}

static int parse_objectives(opt *o, const json_t *j, api_error *err)
{
    if (!json_is_array(j) || json_array_size(j) < 2 || json_array_size(j) > MAX_OBJECTIVES)
        return api_fail(err, 400, "invalid-input", "objectives",
                        "objectives is an array of 2 to %d objectives ({\"maximize\": NAME} or {\"minimize\": "
                        "NAME}); one objective goes in \"objective\"",
                        MAX_OBJECTIVES);
    for (size_t i = 0; i < json_array_size(j); i++) {
        char at[32];
        snprintf(at, sizeof at, "objectives[%zu]", i);
        if (optimize_parse_objective(o, json_array_get(j, i), at, &o->objs[i], err) != 0)
            return -1;
    }
    o->n_objs = (int)json_array_size(j);
    return 0;
}

/* --- evaluating ----------------------------------------------------------------------------- */

/* Solve p: 1 if it meets every constraint (its objective value in *v), 0 if
 * not, -1 if it failed. */
static int try_point(opt *o, unsigned long long p, double *v)
{
    const solver_inputs *in;
    const solver_outputs *out;
    o->evaluated++;
    if (sweep_eval(o->sp, p, &in, &out)) {
        o->failed++;
        return -1;
    }
    if (!optimize_meets_all(o, out))
        return 0;
    if (o->obj_axis >= 0) {
        *v = sweep_space_axis_value(o->sp, o->obj_axis, p);
    } else {
        const output_value *ov = &out->v[o->obj_col];
        if (ov->is_null || !isfinite(ov->num))
            return 0;
        *v = ov->num;
    }
    return 1;
}

static bool better(const opt *o, double a, unsigned long long pa, double b, unsigned long long pb)
{
    if (a != b)
        return o->maximize ? a > b : a < b;
    return pa < pb;
}

/* Keep p among the top_k best, best first. */
static void keep(opt *o, unsigned long long p, double v)
{
    int i = o->n_top;
    if (i == o->top_k) {
        if (!better(o, v, p, o->top[i - 1].obj, o->top[i - 1].p))
            return;
        i--;
    } else {
        o->n_top++;
    }
    for (; i > 0 && better(o, v, p, o->top[i - 1].obj, o->top[i - 1].p); i--)
        o->top[i] = o->top[i - 1];
    o->top[i] = (ranked){.p = p, .obj = v};
}

static void exhaustive(opt *o)
{
    o->method = "exhaustive";
    o->n_top = 0;
    o->feasible = o->failed = 0;
    unsigned long long n = sweep_space_points(o->sp);
    for (unsigned long long p = 0; p < n; p++) {
        double v;
        if (try_point(o, p, &v) == 1) {
            o->feasible++;
            keep(o, p, v);
        }
        if ((p & 1023) == 1023 && sweep_space_timed_out(o->sp)) {
            o->cut_off = true;
            return;
        }
    }
}

/* +1 if constraint c holds on a prefix of the axis in increasing value order
 * (per the descriptor's monotone entries), -1 on a suffix, 0 if they do not say. */
static int side(const opt *o, const constraint *c, const char *input)
{
    const output_desc *d = &o->s->outputs[c->col];
    int dir = 0;
    for (const monotone_desc *m = o->s->monotone; m && m->input; m++)
        if (!strcmp(m->input, input) && !strcmp(m->output, d->name))
            dir = m->dir;
    if (!dir || d->kind == OUT_STRING)
        return 0;
    cmp_op op = c->op;
    if (d->kind == OUT_BOOLEAN) /* == true is >= 1, == false is <= 0, != the converse */
        op = ((op == OP_EQ) == (c->num != 0)) ? OP_GE : OP_LE;
    if (op == OP_EQ || op == OP_NE)
        return 0;
    bool upper = op == OP_LE || op == OP_LT;
    return upper == (dir > 0) ? +1 : -1;
}

/* Whether bisection's premise is on record; if not, why not (in o->why). */
static bool bisection_applies(opt *o, int *prefix_side, int *order)
{
    if (sweep_space_axes(o->sp) != 1 || o->obj_axis != 0) {
        snprintf(o->why, sizeof o->why, "bisection needs one axis that is also the objective");
        return false;
    }
    *order = sweep_space_axis_order(o->sp, 0);
    if (!*order) {
        snprintf(o->why, sizeof o->why, "the axis's values are not strictly increasing or decreasing");
        return false;
    }
    const char *input = sweep_space_axis_label(o->sp, 0);
    *prefix_side = 1;
    for (int i = 0; i < o->n_c; i++) {
        int sd = side(o, &o->c[i], input);
        if (!sd || (i && sd != *prefix_side)) {
            snprintf(o->why, sizeof o->why, "%s of %s is not on record as monotone in %s%s",
                     o->s->outputs[o->c[i].col].name, o->s->name, input,
                     sd ? " in the same direction as the other constraints" : "");
            return false;
        }
        *prefix_side = sd;
    }
    return true;
}

/* The points meeting every constraint are positions [lo, hi) of the axis in
 * value order; returns -1 if a probed point failed (the premise is void). */
static int bisect(opt *o, int prefix_side, int order, unsigned long long *lo_out, unsigned long long *hi_out)
{
    unsigned long long n = sweep_space_points(o->sp), lo = 0, hi = n;
    /* position t in value order is point t (increasing axis) or n-1-t */
    while (lo < hi) {
        unsigned long long mid = lo + (hi - lo) / 2, p = order > 0 ? mid : n - 1 - mid;
        double v;
        int r = try_point(o, p, &v);
        if (r < 0)
            return -1;
        /* prefix: met before the edge; suffix: unmet before it */
        if ((r == 1) == (prefix_side > 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    *lo_out = prefix_side > 0 ? 0 : lo;
    *hi_out = prefix_side > 0 ? lo : n;
    return 0;
}

static void bisection(opt *o, int prefix_side, int order)
{
    o->method = "bisection";
    unsigned long long lo, hi, n = sweep_space_points(o->sp);
    if (bisect(o, prefix_side, order, &lo, &hi) != 0) {
        snprintf(o->why, sizeof o->why, "a point failed during bisection, so the search was exhaustive");
        exhaustive(o);
        return;
    }
    o->feasible = hi - lo;
    /* the best is at the edge the objective points to (in value order), the runners-up inward */
    o->n_top = 0;
    for (unsigned long long i = 0; i < hi - lo && o->n_top < o->top_k; i++) {
        unsigned long long t = o->maximize ? hi - 1 - i : lo + i;
        unsigned long long p = order > 0 ? t : n - 1 - t;
        o->top[o->n_top++] = (ranked){.p = p, .obj = sweep_space_axis_value(o->sp, 0, p)};
    }
}

/* --- writing -------------------------------------------------------------------------------- */

static void put_bound(strbuf *b, const opt *o, const constraint *c)
{
    const output_desc *d = &o->s->outputs[c->col];
    if (d->kind == OUT_STRING)
        sb_json_string(b, c->str);
    else if (d->kind == OUT_BOOLEAN)
        sb_puts(b, c->num != 0 ? "true" : "false");
    else
        sb_number(b, c->num);
}

static void put_constraint_head(strbuf *b, const opt *o, const constraint *c)
{
    sb_puts(b, "{\"output\":");
    sb_json_string(b, o->s->outputs[c->col].name);
    sb_puts(b, ",\"op\":");
    sb_json_string(b, CMP_OP_NAMES[c->op]);
    sb_puts(b, ",\"bound\":");
    put_bound(b, o, c);
    const char *unit = o->s->outputs[c->col].unit;
    if (unit[0]) {
        sb_puts(b, ",\"unit\":");
        sb_json_string(b, unit);
    }
}

/* Each constraint at the point just solved: its value and whether it is met. */
static void put_constraints(strbuf *b, const opt *o, const solver_outputs *out)
{
    sb_putc(b, '[');
    for (int i = 0; i < o->n_c; i++) {
        const constraint *c = &o->c[i];
        if (i)
            sb_putc(b, ',');
        put_constraint_head(b, o, c);
        sb_puts(b, ",\"value\":");
        row_output_value(b, &o->s->outputs[c->col], &out->v[c->col], false);
        sb_printf(b, ",\"met\":%s}", optimize_meets(o, c, out) ? "true" : "false");
    }
    sb_putc(b, ']');
}

/* The binding constraints at the best point p (see the top of the file). */
static void put_binding(strbuf *b, opt *o, unsigned long long p)
{
    const solver_inputs *in;
    const solver_outputs *out;
    if (o->obj_axis < 0) {
        sweep_eval(o->sp, p, &in, &out);
        int tight = -1;
        double least = INFINITY;
        for (int i = 0; i < o->n_c; i++) {
            const constraint *c = &o->c[i];
            const output_desc *d = &o->s->outputs[c->col];
            if (c->op == OP_EQ || c->op == OP_NE || d->kind == OUT_BOOLEAN || d->kind == OUT_STRING)
                continue;
            double slack = fabs(out->v[c->col].num - c->num) / fmax(fabs(c->num), 1e-300);
            if (slack < least) {
                least = slack;
                tight = i;
            }
        }
        sb_puts(b, ",\"binding\":[");
        if (tight >= 0) {
            put_constraint_head(b, o, &o->c[tight]);
            sb_putc(b, '}');
        }
        sb_puts(b, "],\"binding_reason\":");
        sb_json_string(b, tight >= 0 ? "the inequality with the least slack relative to its bound at the optimum"
                                     : "no inequality constraint");
        return;
    }
    int a = o->obj_axis;
    unsigned long long stride = sweep_space_stride(o->sp, a), k = (p / stride) % sweep_space_axis_len(o->sp, a);
    double here = sweep_space_axis_value(o->sp, a, p);
    unsigned long long q = p;
    bool found = false;
    for (int step = -1; step <= 1; step += 2) {
        if ((step < 0 && k == 0) || (step > 0 && k + 1 >= sweep_space_axis_len(o->sp, a)))
            continue;
        unsigned long long r = step < 0 ? p - stride : p + stride;
        double there = sweep_space_axis_value(o->sp, a, r);
        if (there != here && (o->maximize ? there > here : there < here)) {
            q = r;
            found = true;
        }
    }
    char reason[300];
    sb_puts(b, ",\"binding\":[");
    if (!found) {
        snprintf(reason, sizeof reason, "the optimum is at the end of axis %s", sweep_space_axis_label(o->sp, a));
    } else {
        const char *error = sweep_eval(o->sp, q, &in, &out);
        if (error) {
            snprintf(reason, sizeof reason, "the next %s fails: %.200s", sweep_space_axis_label(o->sp, a), error);
        } else {
            bool first = true;
            for (int i = 0; i < o->n_c; i++) {
                if (optimize_meets(o, &o->c[i], out))
                    continue;
                if (!first)
                    sb_putc(b, ',');
                first = false;
                put_constraint_head(b, o, &o->c[i]);
                sb_puts(b, ",\"value_next\":");
                row_output_value(b, &o->s->outputs[o->c[i].col], &out->v[o->c[i].col], false);
                sb_putc(b, '}');
            }
            snprintf(reason, sizeof reason, "the constraints the next %s breaks",
                     sweep_space_axis_label(o->sp, a));
        }
    }
    sb_puts(b, "],\"binding_reason\":");
    sb_json_string(b, reason);
    if (found) {
        sb_puts(b, ",\"next_point\":");
        sweep_space_point_json(o->sp, b, q);
    }
}

/* Solve a top point again and write it with its /solve answer. -1 if it no
 * longer meets the constraints (bisection's premise broke). */
static int put_ranked(strbuf *b, opt *o, int rank)
{
    const ranked *r = &o->top[rank];
    const solver_inputs *in;
    const solver_outputs *out;
    if (sweep_eval(o->sp, r->p, &in, &out) || !optimize_meets_all(o, out))
        return -1;
    sb_printf(b, "{\"rank\":%d,\"point\":", rank + 1);
    sweep_space_point_json(o->sp, b, r->p);
    sb_puts(b, ",\"objective\":");
    sb_number(b, r->obj);
    if (rank == 0) {
        sb_puts(b, ",\"constraints\":");
        put_constraints(b, o, out);
    }
    sb_puts(b, ",\"answer\":");
    solve_write(o->a, b, &o->r, in, out);
    if (rank == 0)
        put_binding(b, o, r->p);
    sb_putc(b, '}');
    return 0;
}

static int write_answer(opt *o, app_response *resp)
{
    strbuf *b = &resp->body;
    sb_reset(b);
    sb_puts(b, "{\"solver\":");
    sb_json_string(b, o->s->name);
    sb_puts(b, ",\"catalog\":");
    sb_json_string(b, edition_name(sweep_space_edition(o->sp)));
    sb_puts(b, ",\"calibration\":");
    sb_json_string(b, CALIBRATION_MODES[o->r.calibration]);
    sb_puts(b, ",\"catalog_version\":");
    sb_json_string(b, edition_version(sweep_space_edition(o->sp)));
    sb_puts(b, ",\"method\":");
    sb_json_string(b, o->method);
    sb_puts(b, ",\"method_reason\":");
    sb_json_string(b, o->why);
    sb_printf(b, ",\"points\":%llu,\"evaluated\":%llu,\"failed\":%llu,\"feasible\":%llu", sweep_space_points(o->sp),
              o->evaluated, o->failed, o->feasible);
    if (o->n_objs > 0) {
        optimize_put_front(b, o);
        if (o->cut_off)
            sb_printf(b, ",\"error\":\"search cut off by the request timeout (%g s) after %llu of %llu points\"",
                      o->a->cfg->request_timeout, o->evaluated, sweep_space_points(o->sp));
        sb_puts(b, "}\n");
        resp->status = 200;
        resp->content_type = JSON_CT;
        return 0;
    }
    sb_puts(b, ",\"objective\":{");
    sb_json_string(b, o->maximize ? "maximize" : "minimize");
    sb_putc(b, ':');
    const char *name = o->obj_axis >= 0 ? sweep_space_axis_label(o->sp, o->obj_axis) : o->s->outputs[o->obj_col].name;
    const char *unit = o->obj_axis >= 0 ? sweep_space_axis_unit(o->sp, o->obj_axis) : o->s->outputs[o->obj_col].unit;
    sb_json_string(b, name);
    if (unit[0]) {
        sb_puts(b, ",\"unit\":");
        sb_json_string(b, unit);
    }
    sb_puts(b, "},\"best\":");
    if (!o->n_top)
        sb_puts(b, "null");
    else if (put_ranked(b, o, 0) != 0)
        return -1;
    sb_puts(b, ",\"runners_up\":[");
    for (int i = 1; i < o->n_top; i++) {
        if (i > 1)
            sb_putc(b, ',');
        if (put_ranked(b, o, i) != 0)
            return -1;
    }
    sb_putc(b, ']');
    if (o->cut_off) {
        sb_printf(b, ",\"error\":\"search cut off by the request timeout (%g s) after %llu of %llu points\"",
                  o->a->cfg->request_timeout, o->evaluated, sweep_space_points(o->sp));
    }
    sb_puts(b, "}\n");
    resp->status = 200;
    resp->content_type = JSON_CT;
    return 0;
}

void optimize_handle(app *a, const app_request *req, app_response *resp, const char *param)
{
    (void)param;
    api_error err;
    opt *o = calloc(1, sizeof *o);
    json_t *body = app_parse_body(req, &err);
    if (!o) {
        api_fail(&err, 503, "overloaded", "", "out of memory");
        goto fail;
    }
    if (!body)
        goto fail;
    o->a = a;
    const char *key;
    json_t *val;
    json_object_foreach(body, key, val) {
        static const char *const KEYS[] = {"solver",      "inputs",    "axes",       "catalog", "calibration",
                                           "constraints", "objective", "objectives", "top_k",   "method"};
        bool known = false;
        for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
            known |= !strcmp(key, KEYS[i]);
        if (!known) {
            api_fail(&err, 400, "unknown-field", key,
                     "unknown field '%.80s'; an /optimize body has solver, inputs, axes, catalog, calibration, "
                     "constraints, objective (or objectives), top_k and method",
                     key);
            goto fail;
        }
    }
    if (front_read_body(a, body, &o->r, &err) != 0)
        goto fail;
    o->s = o->r.s;
    o->sp = sweep_space(a, &o->r, body, &err);
    if (!o->sp)
        goto fail;
    const json_t *jc = json_object_get(body, "constraints");
    if (jc && (!json_is_array(jc) || json_array_size(jc) > MAX_CONSTRAINTS)) {
        api_fail(&err, 400, "invalid-input", "constraints", "constraints must be an array of at most %d constraints",
                 MAX_CONSTRAINTS);
        goto fail;
    }
    for (size_t i = 0; i < json_array_size(jc); i++)
        if (parse_constraint(o, json_array_get(jc, i), i, &err) != 0)
            goto fail;
    const json_t *jobjs = json_object_get(body, "objectives");
    if (jobjs && json_object_get(body, "objective")) {
        api_fail(&err, 400, "invalid-input", "objectives",
                 "give objective (one) or objectives (a Pareto front of several), not both");
        goto fail;
    }
    if (jobjs) {
        const char *m = json_string_value(json_object_get(body, "method"));
        if (parse_objectives(o, jobjs, &err) != 0)
            goto fail;
        if (json_object_get(body, "top_k")) {
            api_fail(&err, 400, "invalid-input", "top_k", "top_k ranks one objective; a Pareto front has no ranks");
            goto fail;
        }
        if (m && strcmp(m, "auto") && strcmp(m, "exhaustive")) {
            api_fail(&err, 400, "invalid-input", "method", "several objectives are searched exhaustively");
            goto fail;
        }
        optimize_pareto(o);
        write_answer(o, resp);
        sweep_stream_free(o->sp);
        free(o);
        json_decref(body);
        return;
    }
    if (parse_objective(o, json_object_get(body, "objective"), &err) != 0)
        goto fail;
    const json_t *jk = json_object_get(body, "top_k");
    if (jk && (!json_is_integer(jk) || json_integer_value(jk) < 1 || json_integer_value(jk) > TOP_K_MAX)) {
        api_fail(&err, 400, "invalid-input", "top_k", "top_k must be an integer from 1 to %d", TOP_K_MAX);
        goto fail;
    }
    o->top_k = jk ? (int)json_integer_value(jk) : TOP_K_DEFAULT;
    const char *method = json_string_value(json_object_get(body, "method"));
    if (json_object_get(body, "method") && (!method || (strcmp(method, "auto") && strcmp(method, "exhaustive") &&
                                                        strcmp(method, "bisection")))) {
        api_fail(&err, 400, "invalid-input", "method", "method must be auto (default), exhaustive or bisection");
        goto fail;
    }
    int prefix_side = 0, order = 0;
    bool can_bisect = bisection_applies(o, &prefix_side, &order);
    if (method && !strcmp(method, "bisection") && !can_bisect) {
        api_fail(&err, 400, "invalid-input", "method", "bisection does not apply here: %s", o->why);
        goto fail;
    }
    if (method && !strcmp(method, "exhaustive")) {
        snprintf(o->why, sizeof o->why, "asked for");
        exhaustive(o);
    } else if (can_bisect) {
        snprintf(o->why, sizeof o->why, "one axis, the objective, with every constraint monotone along it");
        bisection(o, prefix_side, order);
    } else {
        exhaustive(o);
    }
    if (write_answer(o, resp) != 0) {
        /* a top point broke bisection's premise when solved again */
        snprintf(o->why, sizeof o->why, "a point broke bisection's premise, so the search was exhaustive");
        exhaustive(o);
        if (write_answer(o, resp) != 0) {
            api_fail(&err, 503, "overloaded", "", "the answer changed while it was written");
            goto fail;
        }
    }
    sweep_stream_free(o->sp);
    free(o);
    json_decref(body);
    return;
fail:
    if (o)
        sweep_stream_free(o->sp);
    free(o);
    json_decref(body);
    app_problem(resp, req, &err);
}
