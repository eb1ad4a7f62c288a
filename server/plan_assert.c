/* plan_assert.c - a scenario's assertions (contract in plan_internal.h).
 *
 * An assertion is an /optimize constraint on one of the solver's outputs
 * ({output: itl, "<=": "50 ms"}, read by constraint.h), with `at` naming one
 * point of a sweep. This file reads them against the solver, checks a value,
 * tallies them over a sweep's points (the first failure is reported, else the
 * value nearest the bound, with its point) and writes each one into the
 * scenario's answer. Which values are checked, and when, is the scenario's
 * business (plan_scenario.c). It also says whether a solver's outputs are
 * infeasible, which a scenario's status reads. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/jsonw.h"
#include "server/plan_internal.h"

/* "itl <= 50 ms": the output, the operator and the bound as written (a bare number with the output's unit). */
static void expression(const solver_desc *s, const plan_assertion *as, char *buf, size_t n)
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

json_t *plan_assertion_json(const solver_desc *s, const plan_assertion *as, const output_value *actual, bool passed)
{
    const output_desc *d = &s->outputs[as->c.col];
    char expr[300];
    expression(s, as, expr, sizeof expr);
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:b}", "expression", expr, "output", d->name, "op",
                          CMP_OP_NAMES[as->c.op], "bound", bound_json(d, &as->c), "unit", d->unit, "actual",
                          actual ? value_json(d, actual) : json_null(), "passed", passed);
    return o;
}

int plan_parse_assertions(const solver_desc *s, const json_t *list, const char *prefix, bool sweep, plan_assertion *as,
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

int plan_feasible_col(const solver_desc *s)
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

bool plan_infeasible_outputs(const solver_desc *s, const solver_outputs *out)
{
    int col = plan_feasible_col(s);
    return col >= 0 && !out->v[col].is_null && out->v[col].num == 0;
}

json_t *plan_point_json(sweep_stream *sp, unsigned long long pt)
{
    strbuf b;
    sb_init(&b);
    sweep_space_point_json(sp, &b, pt);
    json_t *point = b.oom ? NULL : json_loadb(b.data, b.len, 0, NULL);
    sb_free(&b);
    return point;
}

void plan_assertion_record(const solver_desc *s, plan_assertion *as, const output_value *v, sweep_stream *sp,
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
    json_decref(as->point);
    as->point = plan_point_json(sp, pt);
}

void plan_assertion_record_error(plan_assertion *as, const char *error, sweep_stream *sp, unsigned long long pt)
{
    as->checked++;
    as->failures++;
    if (as->failed)
        return;
    as->failed = true;
    as->have = false;
    snprintf(as->point_error, sizeof as->point_error, "%s", error);
    json_decref(as->point);
    as->point = plan_point_json(sp, pt);
}

static bool same_axis_value(const json_t *want, const json_t *got)
{
    if (json_is_number(want) && json_is_number(got))
        return json_number_value(want) == json_number_value(got);
    if (json_is_string(want) && json_is_string(got))
        return !strcasecmp(json_string_value(want), json_string_value(got));
    return json_equal((json_t *)want, (json_t *)got);
}

bool plan_point_matches(const json_t *at, const json_t *point)
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
