/* sweep_space.c - the search space of a sweep point by point, for optimize.c
 * (contract in sweep.h): a space parsed like a sweep, its axes, and points
 * solved on demand. */
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

/* --- the search space, for optimize.c ---------------------------------------------------- */

sweep_stream *sweep_space(const app *a, const solver_request *r, const json_t *body, api_error *err)
{
    sweep_stream *st = calloc(1, sizeof *st);
    if (!st) {
        api_fail(err, 503, "overloaded", "", "out of memory");
        return NULL;
    }
    sb_init(&st->buf);
    st->s = r->s;
    st->solver_index = (unsigned)r->index;
    st->ed = r->ed;
    st->calibration = r->calibration;
    if (sweep_parse_space(st, body, (unsigned long long)a->cfg->sweep_max_points, err) != 0)
        goto fail;
    st->in->calibration = st->calibration;
    clock_gettime(CLOCK_MONOTONIC, &st->t0);
    st->timeout = a->cfg->request_timeout;
    return st;
fail:
    sweep_stream_free(st);
    return NULL;
}

unsigned long long sweep_space_points(const sweep_stream *st) { return st->points; }
const catalog_edition *sweep_space_edition(const sweep_stream *st) { return st->ed; }
int sweep_space_axes(const sweep_stream *st) { return st->n_axes; }
const char *sweep_space_axis_label(const sweep_stream *st, int a) { return st->axes[a].label; }
size_t sweep_space_axis_len(const sweep_stream *st, int a) { return st->axes[a].n; }
unsigned long long sweep_space_stride(const sweep_stream *st, int a) { return st->stride[a]; }
const char *sweep_space_axis_unit(const sweep_stream *st, int a) { return sweep_axis_unit(st, a); }

/* A member axis ("fleet.count") is numeric when every value given is a number. */
bool sweep_space_axis_numeric(const sweep_stream *st, int a)
{
    const axis *ax = &st->axes[a];
    if (!ax->member)
        return ax->numeric;
    for (size_t k = 0; k < ax->n; k++)
        if (!json_is_number(json_array_get(ax->member_vals, k)))
            return false;
    return true;
}

static double axis_value_at(const sweep_stream *st, int a, size_t k)
{
    const axis *ax = &st->axes[a];
    if (ax->member)
        return json_number_value(json_array_get(ax->member_vals, k));
    double x = sweep_axis_num(ax, k);
    if (ax->d->kind == IN_QUANTITY)
        units_to(x, ax->d->unit, *ax->d->dim, &x);
    return x;
}

double sweep_space_axis_value(const sweep_stream *st, int a, unsigned long long p)
{
    return axis_value_at(st, a, sweep_axis_index(st, a, p));
}

int sweep_space_axis_order(const sweep_stream *st, int a)
{
    const axis *ax = &st->axes[a];
    if (!sweep_space_axis_numeric(st, a))
        return 0;
    if (ax->n == 1)
        return 1;
    /* a range is ordered by construction; a geomspace too, unless rounding to integers repeats values */
    if (ax->form == AX_RANGE && !ax->member)
        return ax->step > 0 ? 1 : -1;
    if (ax->form == AX_GEOMSPACE && !ax->member && ax->d->kind != IN_INTEGER)
        return ax->stop > ax->start ? 1 : ax->stop < ax->start ? -1 : 0;
    int order = axis_value_at(st, a, 1) > axis_value_at(st, a, 0) ? 1 : -1;
    for (size_t k = 1; k < ax->n; k++) {
        double d = axis_value_at(st, a, k) - axis_value_at(st, a, k - 1);
        if (!(d * order > 0))
            return 0;
    }
    return order;
}

const char *sweep_eval(sweep_stream *st, unsigned long long p, const solver_inputs **in, const solver_outputs **out)
{
    size_t idx[MAX_AXES];
    const char *error = sweep_eval_point(st, p, idx);
    *in = st->in;
    *out = st->out;
    return error;
}

void sweep_space_point_json(const sweep_stream *st, strbuf *b, unsigned long long p)
{
    sb_putc(b, '{');
    for (int a = 0; a < st->n_axes; a++) {
        if (a)
            sb_putc(b, ',');
        sb_json_string(b, st->axes[a].label);
        sb_putc(b, ':');
        sweep_put_axis_value(st, b, a, sweep_axis_index(st, a, p), false);
    }
    sb_putc(b, '}');
}

bool sweep_space_timed_out(sweep_stream *st) { return sweep_timed_out(st); }
