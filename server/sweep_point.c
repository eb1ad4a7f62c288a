/* sweep_point.c - one point of a sweep: the axis values it takes (computed
 * for ranges and geomspaces, stored for listed values), set into the inputs,
 * checked and solved. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/sweep_internal.h"

#include "server/metrics.h"

/* Value k of a range or geomspace, in SI. */
double sweep_axis_form_num(const axis *ax, size_t k)
{
    if (ax->form == AX_RANGE) {
        double x = ax->start + ax->step * (double)k;
        /* the tolerance in the count may put the last value a hair past stop */
        if (ax->step > 0 ? x > ax->stop : x < ax->stop)
            x = ax->stop;
        return x;
    }
    if (ax->geo)
        return ax->geo[k];
    if (k == 0)
        return ax->start;
    if (k + 1 == ax->n)
        return ax->stop;
    return ax->start * pow(ax->stop / ax->start, (double)k / (double)(ax->n - 1));
}

/* Value k of a numeric axis, in SI. Ranges and geomspaces are computed, not stored. */
double sweep_axis_num(const axis *ax, size_t k)
{
    if (ax->form == AX_VALUES)
        return ax->vals[k].num;
    double x = sweep_axis_form_num(ax, k);
    return ax->form == AX_GEOMSPACE && ax->d->kind == IN_INTEGER ? round(x) : x;
}

static bool axis_was_int(const axis *ax, size_t k)
{
    if (ax->d->kind == IN_INTEGER)
        return true;
    if (ax->form == AX_VALUES)
        return ax->vals[k].was_int;
    return ax->form == AX_RANGE && ax->int_bounds;
}

/* --- producing the body ------------------------------------------------------------------- */

static void apply_point(sweep_stream *st, unsigned long long p, size_t idx[MAX_AXES])
{
    for (int a = 0; a < st->n_axes; a++) {
        const axis *ax = &st->axes[a];
        size_t k = sweep_axis_index(st, a, p);
        idx[a] = k;
        input_value *v = &st->in->v[ax->input];
        v->present = true;
        v->defaulted = false;
        if (ax->numeric) {
            v->num = sweep_axis_num(ax, k);
            v->num_was_int = axis_was_int(ax, k);
            v->unit_scale = ax->form == AX_VALUES ? ax->vals[k].unit_scale : 0; /* ranges are in SI */
        } else {
            const axis_value *src = &ax->vals[k];
            v->num = src->num;
            v->num_was_int = src->was_int;
            v->unit_scale = src->unit_scale;
            v->is_null = src->is_null;
            v->enum_index = src->enum_index;
            v->enum_respelled = src->enum_respelled;
            v->ref_kind = src->ref_kind;
            v->ref = src->ref;
            v->items = src->items;
            v->n_items = src->n_items;
        }
    }
}

/* Solve point p into st->out: NULL, or the point's error (in st->se). */
const char *sweep_eval_point(sweep_stream *st, unsigned long long p, size_t idx[MAX_AXES])
{
    apply_point(st, p, idx);
    /* /solve starts from fresh outputs; so does every point */
    solver_outputs_reset(st->out);
    memset(&st->se, 0, sizeof st->se);
    for (int i = 0; i < st->n_axes; i++)
        if (solver_check_input(st->s, (size_t)st->checked[i], &st->in->v[st->checked[i]], &st->se) != 0)
            return st->se.detail;
    if (solver_check_constraints(st->s, st->in, &st->se) != 0)
        return st->se.detail;
    metrics_solve(st->solver_index);
    return st->s->run(st->in, st->out, &st->se) != 0 ? st->se.detail : NULL;
}
