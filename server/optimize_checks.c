/* optimize_checks.c - what POST /optimize's two searches share: reading an
 * objective ({"maximize": NAME} or {"minimize": NAME}) against the space and
 * the solver's outputs, and whether a point's outputs meet every constraint.
 * Callers: optimize.c (one objective) and optimize_pareto.c (several). */
#include "server/optimize_internal.h"

#include <stdio.h>
#include <string.h>

/* {"maximize": NAME} or {"minimize": NAME}, NAME a numeric axis or a
 * numeric output; `at` is the field's JSON path ("objective", "objectives[1]"). */
int optimize_parse_objective(const opt *o, const json_t *j, const char *at, objective *ob, api_error *err)
{
    const json_t *jmax = json_object_get(j, "maximize"), *jmin = json_object_get(j, "minimize");
    if (!json_is_object(j) || json_object_size(j) != 1 || (!jmax && !jmin))
        return api_fail(err, 400, "invalid-input", at,
                        "%s is {\"maximize\": NAME} or {\"minimize\": NAME}, NAME an axis input or a numeric "
                        "output",
                        at);
    ob->maximize = jmax != NULL;
    char field[64];
    snprintf(field, sizeof field, "%s.%s", at, jmax ? "maximize" : "minimize");
    const char *name = json_string_value(jmax ? jmax : jmin);
    ob->axis = ob->col = -1;
    for (int a = 0; name && a < sweep_space_axes(o->sp); a++)
        if (!strcmp(sweep_space_axis_label(o->sp, a), name))
            ob->axis = a;
    if (ob->axis >= 0) {
        if (!sweep_space_axis_numeric(o->sp, ob->axis))
            return api_fail(err, 400, "invalid-input", field, "axis '%s' is not numeric: it has no order to optimize",
                            name);
        return 0;
    }
    ob->col = name ? solver_output_index(o->s, name) : -1;
    if (ob->col < 0)
        return api_fail(err, 400, "invalid-input", field, "'%.60s' is neither an axis nor an output of solver %s",
                        name ? name : "?", o->s->name);
    output_kind k = o->s->outputs[ob->col].kind;
    if (k != OUT_NUMBER && k != OUT_INTEGER)
        return api_fail(err, 400, "invalid-input", field, "output '%s' is not a number", name);
    return 0;
}

bool optimize_meets(const opt *o, const constraint *c, const solver_outputs *out)
{
    return constraint_meets(o->s, c, &out->v[c->col]);
}

bool optimize_meets_all(const opt *o, const solver_outputs *out)
{
    for (int i = 0; i < o->n_c; i++)
        if (!optimize_meets(o, &o->c[i], out))
            return false;
    return true;
}
