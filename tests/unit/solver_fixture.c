/* solver_fixture.c - one solver called directly, as the generic layer calls
 * it (contract in solver_fixture.h). */
#include "solver_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server/inputs.h"

const solver_desc *S;
solver_inputs IN;
solver_outputs OUT;
solver_error ERR;

/* ---- inputs ---------------------------------------------------------------- */

void use_solver(const char *name)
{
    S = solver_at((size_t)solver_find(name));
    cr_assert_not_null(S, "solver %s is not registered", name);
    memset(&IN, 0, sizeof IN);
    for (size_t i = 0; i < S->n_inputs; i++)
        input_default(&S->inputs[i], &IN.v[i]);
}

static const input_desc *desc(const char *name)
{
    int i = solver_input_index(S, name);
    cr_assert_geq(i, 0, "%s has no input %s", S->name, name);
    return &S->inputs[i];
}

input_value *slot(const char *name)
{
    input_value *v = &IN.v[desc(name) - S->inputs];
    v->present = true;
    v->defaulted = v->is_null = false;
    return v;
}

void set_num(const char *name, double v)
{
    input_value *x = slot(name);
    x->num = v;
    x->num_was_int = desc(name)->kind == IN_INTEGER && v == floor(v);
}

void set_int(const char *name, double v)
{
    input_value *x = slot(name);
    x->num = v;
    x->num_was_int = true;
}

void set_bool(const char *name, bool v) { slot(name)->num = v ? 1.0 : 0.0; }

void set_enum(const char *name, const char *value)
{
    const input_desc *d = desc(name);
    cr_assert_not_null(d->enum_values, "%s.%s is not an enum", S->name, name);
    input_value *x = slot(name);
    x->enum_index = -1;
    for (int k = 0; d->enum_values[k]; k++)
        if (strcmp(d->enum_values[k], value) == 0)
            x->enum_index = k;
    cr_assert_geq(x->enum_index, 0, "%s is not a value of %s", value, name);
}

void set_null(const char *name)
{
    input_value *x = slot(name);
    *x = (input_value){.present = true, .is_null = true};
}

void set_ref(const char *name, record_kind kind, const void *rec)
{
    input_value *x = slot(name);
    x->ref_kind = (unsigned char)kind;
    x->ref = rec;
}

void set_hw(const char *name, const hw_node *h) { set_ref(name, REC_HARDWARE, h); }
void set_model(const char *name, const model_t *m) { set_ref(name, REC_MODEL, m); }

void set_list(const char *name, const input_item *items, int n)
{
    input_value *x = slot(name);
    x->items = items;
    x->n_items = n;
}

model_t mk_model(workload_kind kind, double params, double flops, int layers)
{
    model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.key, sizeof m.key, "%s", workload_kind_name(kind));
    snprintf(m.name, sizeof m.name, "%s", workload_kind_name(kind));
    m.kind = kind;
    m.parameters = params;
    m.inference_flops = flops;
    m.model_size = NAN;
    m.active_parameters = NAN;
    m.layers = layers;
    return m;
}

/* ---- solving ----------------------------------------------------------------- */

/* Absent is an error for the server (server/inputs.c): no default, not
 * optional, not nullable, not a boolean, not a whole-catalog list. */
static bool required(const input_desc *d)
{
    return !d->has_default && !d->optional && !d->nullable && d->kind != IN_BOOLEAN && !d->list_all_by_default;
}

int solve(void)
{
    solver_outputs_reset(&OUT);
    memset(&ERR, 0, sizeof ERR);
    for (size_t i = 0; i < S->n_inputs; i++) {
        if (required(&S->inputs[i]))
            cr_assert(IN.v[i].present, "%s: required input %s not set", S->name, S->inputs[i].name);
        if (solver_check_input(S, i, &IN.v[i], &ERR) != 0)
            return -1;
    }
    if (solver_check_constraints(S, &IN, &ERR) != 0)
        return -1;
    return S->run(&IN, &OUT, &ERR);
}

void solve_ok(void)
{
    int rc = solve();
    cr_assert_eq(rc, 0, "%s failed: [%s] %s", S->name, ERR.field, ERR.detail);
}

static void fails_on(const char *field)
{
    cr_assert_eq(solve(), -1, "%s accepted what it should reject", S->name);
    cr_assert_eq(ERR.status, 400, "%s: status %d", S->name, ERR.status);
    cr_assert_str_eq(ERR.field, field, "%s: failed on %s (%s)", S->name, ERR.field, ERR.detail);
}

void solve_fails(const char *field, const char *detail)
{
    fails_on(field);
    cr_assert_str_eq(ERR.detail, detail, "%s", S->name);
}

void solve_fails_with(const char *field, const char *part)
{
    fails_on(field);
    cr_assert(strstr(ERR.detail, part) != NULL, "detail \"%s\" lacks \"%s\"", ERR.detail, part);
}

/* ---- outputs ----------------------------------------------------------------- */

const output_value *out(const char *name)
{
    int i = solver_output_index(S, name);
    cr_assert_geq(i, 0, "%s has no output %s", S->name, name);
    return &OUT.v[i];
}

double num(const char *name)
{
    const output_value *v = out(name);
    cr_assert(!v->is_null, "%s.%s is null", S->name, name);
    return v->num;
}

bool flag(const char *name) { return num(name) != 0; }

const char *str(const char *name)
{
    const output_value *v = out(name);
    cr_assert(!v->is_null && v->str, "%s.%s is null", S->name, name);
    return v->str;
}

bool is_null(const char *name) { return out(name)->is_null; }

bool rel_eq(double a, double b)
{
    if (a == b)
        return true;
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

static bool among(const char (*lines)[SOLVER_MESSAGE_LEN], int n, const char *text, bool whole)
{
    for (int i = 0; i < n; i++)
        if (whole ? strcmp(lines[i], text) == 0 : strstr(lines[i], text) != NULL)
            return true;
    return false;
}

bool warned(const char *part) { return among(OUT.warnings, OUT.n_warnings, part, false); }
bool warned_exactly(const char *text) { return among(OUT.warnings, OUT.n_warnings, text, true); }
bool traced(const char *part) { return among(OUT.trace, OUT.n_trace, part, false); }
bool traced_exactly(const char *text) { return among(OUT.trace, OUT.n_trace, text, true); }

const output_value *cell(int r, const char *column)
{
    cr_assert_not_null(S->table, "%s has no table output", S->name);
    cr_assert_lt(r, OUT.n_rows, "%s.%s has %d rows", S->name, S->table->name, OUT.n_rows);
    for (size_t c = 0; c < S->table->n_columns; c++)
        if (strcmp(S->table->columns[c].name, column) == 0)
            return &OUT.rows[r][c];
    cr_assert_fail("%s.%s has no column %s", S->name, S->table->name, column);
    return NULL;
}

double cell_num(int r, const char *column)
{
    const output_value *v = cell(r, column);
    cr_assert(!v->is_null, "row %d %s is null", r, column);
    return v->num;
}
