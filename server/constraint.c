/* constraint.c - an output compared with a bound (contract in constraint.h). */
#include "server/constraint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

const char *const CMP_OP_NAMES[OP__N] = {"<=", "<", ">=", ">", "==", "!="};

static bool extra(const char *const *keys, const char *k)
{
    for (size_t i = 0; keys && keys[i]; i++)
        if (!strcmp(keys[i], k))
            return true;
    return false;
}

int constraint_number(const json_t *bound, const char *unit, double *out, char *msg, size_t n)
{
    if (json_is_number(bound)) {
        *out = json_number_value(bound); /* in the output's unit */
        return 0;
    }
    /* "10 ms": converted to the output's unit */
    double factor, si;
    dimension dim;
    if (!json_is_string(bound) || !unit[0] || units_parse_unit(unit, &factor, &dim, NULL, 0) != UNITS_OK)
        return -2;
    if (units_parse_as(json_string_value(bound), dim, unit, &si, msg, n) != UNITS_OK)
        return -1;
    if (!units_to(si, unit, dim, out)) {
        snprintf(msg, n, "cannot be expressed in %s", unit);
        return -1;
    }
    return 0;
}

int constraint_parse(const solver_desc *s, const json_t *j, const char *prefix, const char *const *extra_keys,
                     constraint *c, api_error *err)
{
    char field[160];
    snprintf(field, sizeof field, "%s", prefix);
    if (!json_is_object(j))
        return api_fail(err, 400, "invalid-input", field,
                        "a constraint is an object like {\"output\": \"latency\", \"<=\": \"10 ms\"}");
    const char *name = json_string_value(json_object_get(j, "output"));
    int col = name ? solver_output_index(s, name) : -1;
    if (col < 0) {
        snprintf(field, sizeof field, "%s.output", prefix);
        return api_fail(err, 400, "invalid-input", field, "'output' must name an output of solver %s (GET /solvers/%s)",
                        s->name, s->name);
    }
    *c = (constraint){.col = col, .op = OP__N};
    const json_t *bound = NULL;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)j, key, val) {
        if (!strcmp(key, "output") || extra(extra_keys, key))
            continue;
        cmp_op op = OP__N;
        for (int k = 0; k < OP__N; k++)
            if (!strcmp(key, CMP_OP_NAMES[k]))
                op = (cmp_op)k;
        if (op == OP__N || c->op != OP__N)
            return api_fail(err, 400, "invalid-input", field,
                            "a constraint has 'output' and one comparison: <=, <, >=, >, == or != (got '%.40s')", key);
        c->op = op;
        bound = val;
    }
    if (c->op == OP__N)
        return api_fail(err, 400, "invalid-input", field, "a constraint needs a comparison: <=, <, >=, >, == or !=");
    const output_desc *d = &s->outputs[col];
    snprintf(field, sizeof field, "%s.%s", prefix, CMP_OP_NAMES[c->op]);
    if (d->kind == OUT_BOOLEAN || d->kind == OUT_STRING) {
        bool ok = d->kind == OUT_BOOLEAN ? json_is_boolean(bound) : json_is_string(bound);
        if (!ok || (c->op != OP_EQ && c->op != OP_NE))
            return api_fail(err, 400, "invalid-input", field, "output '%s' is a %s: compare it with == or != and a %s",
                            d->name, d->kind == OUT_BOOLEAN ? "boolean" : "string",
                            d->kind == OUT_BOOLEAN ? "boolean" : "string");
        c->num = json_is_true(bound);
        c->str = json_string_value(bound);
        return 0;
    }
    char msg[200] = "";
    int rc = constraint_number(bound, d->unit, &c->num, msg, sizeof msg);
    if (rc == -2)
        return api_fail(err, 400, "invalid-input", field, "the bound on '%s' must be a number%s%s", d->name,
                        d->unit[0] ? " in " : "", d->unit);
    if (rc != 0)
        return api_fail(err, 400, "invalid-input", field, "the bound on '%s': %s", d->name, msg);
    if (!isfinite(c->num))
        return api_fail(err, 400, "invalid-input", field, "the bound on '%s' must be finite", d->name);
    return 0;
}

bool constraint_meets(const solver_desc *s, const constraint *c, const output_value *v)
{
    const output_desc *d = &s->outputs[c->col];
    if (v->is_null)
        return false;
    if (d->kind == OUT_STRING) {
        bool eq = v->str && !strcmp(v->str, c->str);
        return c->op == OP_EQ ? eq : !eq;
    }
    double x = d->kind == OUT_BOOLEAN ? (v->num != 0) : v->num;
    if (!isfinite(x))
        return false;
    switch (c->op) {
    case OP_LE: return x <= c->num;
    case OP_LT: return x < c->num;
    case OP_GE: return x >= c->num;
    case OP_GT: return x > c->num;
    case OP_EQ: return x == c->num;
    case OP_NE: return x != c->num;
    case OP__N: break;
    }
    return false;
}
