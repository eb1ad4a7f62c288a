/* solver_describe.c - a solver's descriptor as /solvers shows it (contract in
 * solver_describe.h): its inputs with types, units, defaults and bounds in
 * their declared units, its constraints, outputs and table. */
#include "server/solver_describe.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/validation_report.h"

#define MAX_SAFE_INTEGER 9007199254740992.0 /* 2^53, as inputs.c bounds integers */

static json_t *num_json(double x, bool as_int)
{
    if (!isfinite(x))
        return json_null();
    if (as_int && fabs(x) <= MAX_SAFE_INTEGER && x == floor(x))
        return json_integer((json_int_t)x);
    return json_real(x);
}

static const char *kind_name(const input_desc *d)
{
    static const char *const RECORD_TYPE[REC_N_KINDS] = {
        "hardware", "model", "node", "fabric", "fleet", "grid", "cooling", "datacenter", "rack", "dataset"};
    if (d->kind == IN_REF && d->refs && !(d->refs & (d->refs - 1)))
        return RECORD_TYPE[__builtin_ctz(d->refs)];
    switch (d->kind) {
    case IN_NUMBER: return "number";
    case IN_INTEGER: return "integer";
    case IN_BOOLEAN: return "boolean";
    case IN_ENUM: return "enum";
    case IN_QUANTITY: return "quantity";
    case IN_REF: return "record";
    case IN_LIST: return "list";
    case IN_ROWS: return "rows";
    }
    return "?";
}

static const char *out_kind_name(output_kind k)
{
    switch (k) {
    case OUT_NUMBER: return "number";
    case OUT_INTEGER: return "integer";
    case OUT_BOOLEAN: return "boolean";
    case OUT_STRING: return "string";
    }
    return "?";
}

/* A bound or default in the input's declared unit. */
static json_t *in_unit(const input_desc *d, double si, bool as_int)
{
    double shown = si;
    if (d->kind == IN_QUANTITY)
        units_to(si, d->unit, *d->dim, &shown);
    return num_json(shown, as_int || d->kind == IN_INTEGER);
}

static json_t *describe_outputs(const output_desc *outs, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        const output_desc *d = &outs[i];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(d->name));
        json_object_set_new(j, "type", json_string(out_kind_name(d->kind)));
        json_object_set_new(j, "unit", json_string(d->unit));
        json_object_set_new(j, "categorical", json_boolean(d->categorical));
        json_object_set_new(j, "nullable", json_boolean(d->nullable));
        json_object_set_new(j, "description", json_string(d->description));
        json_array_append_new(a, j);
    }
    return a;
}

/* One input as /solvers shows it; an IN_ROWS input lists its row fields the same way. */
static json_t *describe_input(const input_desc *d)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(d->name));
    json_object_set_new(j, "type", json_string(kind_name(d)));
    if (d->kind == IN_QUANTITY) {
        char buf[64];
        json_object_set_new(j, "unit", json_string(d->unit));
        json_object_set_new(j, "dimension", json_string(dim_format(*d->dim, buf, sizeof buf)));
    }
    json_object_set_new(j, "required", json_boolean(input_is_required(d)));
    if (d->has_default) {
        if (d->kind == IN_ENUM)
            json_object_set_new(j, "default", json_string(d->def_str));
        else if (d->kind == IN_BOOLEAN)
            json_object_set_new(j, "default", json_boolean(d->def_num != 0));
        else
            json_object_set_new(j, "default", in_unit(d, d->def_num, false));
    }
    switch (d->check) {
    case CHECK_RANGE:
        json_object_set_new(j, "minimum", in_unit(d, d->lo, d->lo_is_int));
        json_object_set_new(j, "maximum", in_unit(d, d->hi, d->hi_is_int));
        break;
    case CHECK_AT_LEAST:
        json_object_set_new(j, "minimum", in_unit(d, d->lo, d->lo_is_int));
        break;
    case CHECK_POSITIVE:
        json_object_set_new(j, "exclusiveMinimum", json_integer(0));
        break;
    case CHECK_NONNEGATIVE:
        json_object_set_new(j, "minimum", json_integer(0));
        break;
    case CHECK_NONE:
        break;
    }
    if (d->kind == IN_INTEGER)
        json_object_set_new(j, "maximum_magnitude", num_json(d->int_max > 0 ? d->int_max : MAX_SAFE_INTEGER, true));
    if (d->kind == IN_REF || d->kind == IN_LIST) {
        json_t *kinds = json_array();
        for (int k = 0; k < REC_N_KINDS; k++)
            if (d->refs & REC_BIT(k))
                json_array_append_new(kinds, json_string(catalog_kind_name(catalog_kind_of(k))));
        json_object_set_new(j, "catalog_kinds", kinds);
    }
    if (d->nullable)
        json_object_set_new(j, "nullable", json_true());
    if (d->list_all_by_default)
        json_object_set_new(j, "default_all", json_true());
    if (d->replaced_by)
        json_object_set_new(j, "replaced_by", json_string(d->replaced_by));
    if (d->kind == IN_ENUM) {
        json_t *vals = json_array();
        for (int k = 0; d->enum_values[k]; k++)
            json_array_append_new(vals, json_string(d->enum_values[k]));
        json_object_set_new(j, "values", vals);
    }
    if (d->kind == IN_ROWS) {
        json_t *fields = json_array();
        for (size_t f = 0; f < d->n_row_fields; f++)
            json_array_append_new(fields, describe_input(&d->row_fields[f]));
        json_object_set_new(j, "fields", fields);
        json_object_set_new(j, "maximum_rows", json_integer(d->max_rows));
    }
    json_object_set_new(j, "description", json_string(d->description));
    return j;
}

json_t *solver_describe(const solver_desc *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(s->name));
    json_t *al = json_array();
    for (const char *const *a = s->aliases; a && *a; a++)
        json_array_append_new(al, json_string(*a));
    json_object_set_new(o, "aliases", al);
    json_object_set_new(o, "title", json_string(s->title));
    json_object_set_new(o, "description", json_string(s->description));
    json_t *as = json_pack("{s:s,s:{s:o,s:o}}", "leaves_out", s->assumptions, "error_band", "mlsysim",
                           error_band_json(s, NULL, CALIBRATION_MLSYSIM), "measured",
                           error_band_json(s, NULL, CALIBRATION_MEASURED));
    if (s->measured_assumptions)
        json_object_set_new(as, "leaves_out_measured", json_string(s->measured_assumptions));
    json_object_set_new(o, "assumptions", as);
    json_t *ins = json_array();
    for (size_t i = 0; i < s->n_inputs; i++)
        json_array_append_new(ins, describe_input(&s->inputs[i]));
    json_object_set_new(o, "inputs", ins);
    json_t *rules = json_array();
    for (size_t i = 0; i < s->n_constraints; i++) {
        json_t *names = json_array();
        for (const char *const *n = s->constraints[i].inputs; n && *n; n++)
            json_array_append_new(names, json_string(*n));
        json_array_append_new(rules, json_pack("{s:s,s:o}", "rule", s->constraints[i].rule, "inputs", names));
    }
    json_object_set_new(o, "constraints", rules);
    json_object_set_new(o, "outputs", describe_outputs(s->outputs, s->n_outputs));
    if (s->table)
        json_object_set_new(o, "table", json_pack("{s:s,s:s,s:o}", "name", s->table->name, "description",
                                                  s->table->description, "columns",
                                                  describe_outputs(s->table->columns, s->table->n_columns)));
    /* the descriptor's worked example, an "inputs" object (core/solver.h) */
    json_t *ex = s->example_json ? json_loads(s->example_json, 0, NULL) : NULL;
    if (json_is_object(ex))
        json_object_set_new(o, "example", ex);
    else
        json_decref(ex);
    return o;
}
