/* optimize_pareto.c - the Pareto front of several objectives for POST
 * /optimize: every point of the space is solved once; a feasible point joins
 * the front unless a member matches or beats it in every objective, and
 * drops the members it beats; the answer lists the front, best first by the
 * first objective, each point with its /solve answer. */
#include "server/optimize_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/solve.h"

/* The objective values of p, each oriented so that larger is better; false if
 * one is null or not finite. */
static bool objective_values(const opt *o, unsigned long long p, const solver_outputs *out, double *v)
{
    for (int i = 0; i < o->n_objs; i++) {
        const objective *ob = &o->objs[i];
        double x;
        if (ob->axis >= 0) {
            x = sweep_space_axis_value(o->sp, ob->axis, p);
        } else {
            const output_value *ov = &out->v[ob->col];
            if (ov->is_null || !isfinite(ov->num))
                return false;
            x = ov->num;
        }
        v[i] = ob->maximize ? x : -x;
    }
    return true;
}

/* a dominates b: no worse in every objective and better in one. */
static bool dominates(int n, const double *a, const double *b)
{
    bool strictly = false;
    for (int i = 0; i < n; i++) {
        if (a[i] < b[i])
            return false;
        strictly |= a[i] > b[i];
    }
    return strictly;
}

/* Every point is solved once; a feasible point joins the front unless a
 * member dominates it, and drops the members it dominates. */
void optimize_pareto(opt *o)
{
    o->method = "exhaustive";
    snprintf(o->why, sizeof o->why, "several objectives: every point is compared");
    unsigned long long n = sweep_space_points(o->sp);
    for (unsigned long long p = 0; p < n; p++) {
        const solver_inputs *in;
        const solver_outputs *out;
        o->evaluated++;
        if (sweep_eval(o->sp, p, &in, &out)) {
            o->failed++;
        } else if (optimize_meets_all(o, out)) {
            front_point fp = {.p = p};
            if (objective_values(o, p, out, fp.v)) {
                o->feasible++;
                bool dominated = false;
                for (int i = 0; i < o->n_front && !dominated; i++)
                    dominated = dominates(o->n_objs, o->front[i].v, fp.v) ||
                                !memcmp(o->front[i].v, fp.v, sizeof fp.v); /* ties: the first point stays */
                if (!dominated) {
                    int k = 0;
                    for (int i = 0; i < o->n_front; i++)
                        if (!dominates(o->n_objs, fp.v, o->front[i].v))
                            o->front[k++] = o->front[i];
                    o->n_front = k;
                    if (o->n_front < PARETO_MAX)
                        o->front[o->n_front++] = fp;
                    else
                        o->front_cut = true;
                }
            }
        }
        if ((p & 1023) == 1023 && sweep_space_timed_out(o->sp)) {
            o->cut_off = true;
            return;
        }
    }
}

static int by_first_objective(const void *a, const void *b)
{
    const front_point *x = a, *y = b;
    return x->v[0] > y->v[0] ? -1 : x->v[0] < y->v[0] ? 1 : (x->p > y->p) - (x->p < y->p);
}

static const char *objective_name(const opt *o, const objective *ob)
{
    return ob->axis >= 0 ? sweep_space_axis_label(o->sp, ob->axis) : o->s->outputs[ob->col].name;
}

static const char *objective_unit(const opt *o, const objective *ob)
{
    return ob->axis >= 0 ? sweep_space_axis_unit(o->sp, ob->axis) : o->s->outputs[ob->col].unit;
}

/* "objectives" and "pareto", best first by the first objective. */
void optimize_put_front(strbuf *b, opt *o)
{
    sb_puts(b, ",\"objectives\":[");
    for (int i = 0; i < o->n_objs; i++) {
        sb_puts(b, i ? ",{" : "{");
        sb_json_string(b, o->objs[i].maximize ? "maximize" : "minimize");
        sb_putc(b, ':');
        sb_json_string(b, objective_name(o, &o->objs[i]));
        const char *unit = objective_unit(o, &o->objs[i]);
        if (unit[0]) {
            sb_puts(b, ",\"unit\":");
            sb_json_string(b, unit);
        }
        sb_putc(b, '}');
    }
    qsort(o->front, (size_t)o->n_front, sizeof o->front[0], by_first_objective);
    sb_puts(b, "],\"pareto\":[");
    for (int k = 0; k < o->n_front; k++) {
        const front_point *fp = &o->front[k];
        const solver_inputs *in;
        const solver_outputs *out;
        if (k)
            sb_putc(b, ',');
        sb_puts(b, "{\"point\":");
        sweep_space_point_json(o->sp, b, fp->p);
        sb_puts(b, ",\"objectives\":{");
        for (int i = 0; i < o->n_objs; i++) {
            if (i)
                sb_putc(b, ',');
            sb_json_string(b, objective_name(o, &o->objs[i]));
            sb_putc(b, ':');
            sb_number(b, o->objs[i].maximize ? fp->v[i] : -fp->v[i]);
        }
        sb_putc(b, '}');
        if (!sweep_eval(o->sp, fp->p, &in, &out)) {
            sb_puts(b, ",\"answer\":");
            solve_write(o->a, b, &o->r, in, out);
        }
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
    if (o->front_cut)
        sb_printf(b, ",\"pareto_cut\":\"the front has more than %d points; the first %d found are shown\"",
                  PARETO_MAX, PARETO_MAX);
}

