/* solver.c - the helpers every run() uses (outputs, messages, failures, the
 * generic bound checks) and the descriptor look-ups. The registry of solvers
 * is core/registry.c, so that the solvers, which call these helpers, and the
 * registry, which lists the solvers, do not depend on each other. */
#include "core/solver.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/numfmt.h"

const char *const CALIBRATION_MODES[] = {"mlsysim", "measured", NULL};

const char *solver_leaves_out(const solver_desc *s, calibration_mode mode)
{
    return mode == CALIBRATION_MEASURED && s->measured_assumptions ? s->measured_assumptions : s->assumptions;
}

int solver_input_index(const solver_desc *s, const char *name)
{
    for (size_t i = 0; i < s->n_inputs; i++)
        if (strcmp(s->inputs[i].name, name) == 0)
            return (int)i;
    return -1;
}

int solver_output_index(const solver_desc *s, const char *name)
{
    for (size_t i = 0; i < s->n_outputs; i++)
        if (strcmp(s->outputs[i].name, name) == 0)
            return (int)i;
    return -1;
}

size_t output_record_len(const output_desc *d)
{
    const char *dot = strchr(d->name, '.');
    return dot ? (size_t)(dot - d->name) : 0;
}

const char *output_member_name(const output_desc *d)
{
    const char *dot = strchr(d->name, '.');
    return dot ? dot + 1 : d->name;
}

/* A value as mlsysim's f-string would print it: ints as ints, floats as
 * Python repr; quantities in the input's declared unit. */
static void format_value(const input_desc *d, const input_value *v, char *buf, size_t n)
{
    if (d->kind == IN_INTEGER || (d->kind == IN_NUMBER && v->num_was_int)) {
        snprintf(buf, n, "%.0f", v->num);
        return;
    }
    if (d->kind == IN_QUANTITY) {
        double shown = v->num;
        units_to(v->num, d->unit, *d->dim, &shown);
        char num[40];
        fmt_pyrepr(num, sizeof num, shown);
        snprintf(buf, n, "%s %s", num, d->unit);
        return;
    }
    fmt_pyrepr(buf, n, v->num);
}

static void format_bound(const input_desc *d, double b, bool is_int, char *buf, size_t n)
{
    if (d->kind == IN_QUANTITY) {
        input_value tmp = {.num = b};
        format_value(d, &tmp, buf, n);
    } else if (is_int) {
        snprintf(buf, n, "%.0f", b);
    } else {
        fmt_pyrepr(buf, n, b);
    }
}

int solver_check_input(const solver_desc *s, size_t i, const input_value *v, solver_error *err)
{
    return input_check_bound(&s->inputs[i], v, err);
}

int input_check_bound(const input_desc *d, const input_value *v, solver_error *err)
{
    if (!v->present || d->check == CHECK_NONE)
        return 0;
    double x = v->num;
    char got[80], lo[48], hi[48];
    /* The value is formatted only on failure: that costs more than the check,
     * and a sweep checks every point. */
    switch (d->check) {
    case CHECK_RANGE:
        if (x < d->lo || x > d->hi) {
            format_value(d, v, got, sizeof got);
            format_bound(d, d->lo, d->lo_is_int, lo, sizeof lo);
            format_bound(d, d->hi, d->hi_is_int, hi, sizeof hi);
            return solver_fail(err, d->name, "%s must be in [%s, %s], got %s", d->name, lo, hi, got);
        }
        break;
    case CHECK_AT_LEAST:
        if (x < d->lo) {
            format_value(d, v, got, sizeof got);
            format_bound(d, d->lo, d->lo_is_int, lo, sizeof lo);
            return solver_fail(err, d->name, "%s must be >= %s, got %s", d->name, lo, got);
        }
        break;
    case CHECK_POSITIVE:
        if (!(x > 0)) {
            format_value(d, v, got, sizeof got);
            return solver_fail(err, d->name, "%s must be positive, got %s", d->name, got);
        }
        break;
    case CHECK_NONNEGATIVE:
        if (x < 0) {
            format_value(d, v, got, sizeof got);
            return solver_fail(err, d->name, "%s must be non-negative, got %s", d->name, got);
        }
        break;
    case CHECK_NONE:
        break;
    }
    return 0;
}

static void add_message(char (*list)[SOLVER_MESSAGE_LEN], int *count, const char *fmt, va_list ap)
{
    if (*count >= SOLVER_MAX_MESSAGES)
        return;
    vsnprintf(list[*count], SOLVER_MESSAGE_LEN, fmt, ap);
    (*count)++;
}

void solver_warn(solver_outputs *out, const char *fmt, ...)
{
    if (out->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    add_message(out->warnings, &out->n_warnings, fmt, ap);
    va_end(ap);
}

void solver_trace(solver_outputs *out, const char *fmt, ...)
{
    if (out->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    add_message(out->trace, &out->n_trace, fmt, ap);
    va_end(ap);
}

void solver_trace_parts(solver_outputs *out, const char *const *parts, size_t n)
{
    solver_line l;
    if (!solver_line_open(out, &l))
        return;
    for (size_t i = 0; i < n; i++)
        solver_line_str(&l, parts[i]);
    solver_line_close(out, &l);
}

int solver_fail(solver_error *err, const char *field, const char *fmt, ...)
{
    err->status = 400;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->detail, sizeof err->detail, fmt, ap);
    va_end(ap);
    return -1;
}

int solver_fail_divides_by_zero(solver_error *err, const char *field)
{
    return solver_fail(err, field, "%s must not be 0 (mlsysim divides by it: ZeroDivisionError: float division by zero)",
                       field);
}

void out_num(solver_outputs *o, int idx, double v)
{
    o->v[idx].is_null = false;
    o->v[idx].num = v;
}
void out_int(solver_outputs *o, int idx, double v) { out_num(o, idx, v); }
void out_bool(solver_outputs *o, int idx, bool v) { out_num(o, idx, v ? 1.0 : 0.0); }
void out_str(solver_outputs *o, int idx, const char *s)
{
    o->v[idx].is_null = false;
    o->v[idx].str = s;
}
void out_null(solver_outputs *o, int idx)
{
    o->v[idx].is_null = true;
    o->v[idx].num = 0;
    o->v[idx].str = NULL;
}

void solver_outputs_reset(solver_outputs *o)
{
    memset(o->v, 0, sizeof o->v);
    o->n_warnings = 0;
    o->n_trace = 0;
    o->n_rows = 0;
}

int out_row(solver_outputs *o)
{
    if (o->n_rows >= SOLVER_MAX_ROWS)
        return -1;
    output_value *r = o->rows[o->n_rows];
    for (int c = 0; c < SOLVER_MAX_COLUMNS; c++)
        r[c] = (output_value){.is_null = true};
    return o->n_rows++;
}

void out_cell_num(solver_outputs *o, int row, int col, double v)
{
    o->rows[row][col] = (output_value){.num = v};
}

void out_cell_str(solver_outputs *o, int row, int col, const char *s)
{
    o->rows[row][col] = (output_value){.str = s};
}

int solver_check_constraints(const solver_desc *s, const solver_inputs *in, solver_error *err)
{
    for (size_t i = 0; i < s->n_constraints; i++)
        if (s->constraints[i].check(in, err) != 0)
            return -1;
    return 0;
}
