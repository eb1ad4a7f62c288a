/* solve.c - the /solve answer writer (contract in solve.h). */
#include "server/solve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/jsonw.h"
#include "server/prebuilt.h"
#include "server/validation_report.h"

/* The fixed parts of a solver's answer: "name": of each output and of each input,
 * "name":"unit" of each quantity input, the units object, leaves_out as a JSON string
 * per calibration mode. */
typedef struct {
    char **keys;
    size_t *key_len;
    char **in_keys;
    size_t *in_key_len;
    char **in_units;
    size_t *in_units_len;
    char *units;
    size_t units_len;
    char *leaves_out[CALIBRATION_MODE_COUNT];
    size_t leaves_out_len[CALIBRATION_MODE_COUNT];
} solver_parts;

struct solve_parts {
    solver_parts *by_solver; /* by registry index */
};

/* A number as inputs.c's num_json() + json_write() print it. */
static void put_num(strbuf *b, double x, bool as_int)
{
    if (!isfinite(x))
        sb_puts(b, "null");
    else if (as_int && fabs(x) <= 9007199254740992.0 && x == floor(x)) {
        /* "%" JSON_INTEGER_FORMAT of (json_int_t)x, without printf */
        char tmp[24], *p = tmp + sizeof tmp;
        long long i = (long long)x;
        unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (i < 0)
            *--p = '-';
        sb_append(b, p, (size_t)(tmp + sizeof tmp - p));
    } else
        sb_number(b, x);
}

/* A message string as a JSON array element: json_string() refuses invalid UTF-8
 * (a message cut at SOLVER_MESSAGE_LEN inside a character), and such an element
 * was left out of the array; so it is here. */
static void put_message(strbuf *b, const char *msg, bool *first)
{
    size_t mark = b->len;
    if (!*first)
        sb_putc(b, ',');
    if (sb_json_text(b, msg)) /* json_string()'s test, without making the string */
        *first = false;
    else
        sb_truncate(b, mark);
}

static void put_summary(const app *a, strbuf *b, const void *entry, record_kind k)
{
    size_t len;
    const char *text = prebuilt_summary(a->pre, entry, &len);
    if (text) {
        sb_append(b, text, len);
        return;
    }
    json_t *j = catalog_record_summary(catalog_kind_of(k), entry);
    json_write(b, j, 0);
    json_decref(j);
}

static void put_output_key(strbuf *b, const solver_desc *s, size_t k)
{
    sb_json_string(b, output_member_name(&s->outputs[k]));
    sb_putc(b, ':');
}

static void put_input_key(strbuf *b, const solver_desc *s, size_t k)
{
    sb_json_string(b, s->inputs[k].name);
    sb_putc(b, ':');
}

static void put_input_unit(strbuf *b, const solver_desc *s, size_t k)
{
    put_input_key(b, s, k);
    sb_json_string(b, s->inputs[k].unit);
}

/* "name": of input k (or output k), from the solver's prebuilt parts when there are any. */
static void input_key(strbuf *b, const solver_desc *s, const solver_parts *ps, size_t k)
{
    if (ps)
        sb_append(b, ps->in_keys[k], ps->in_key_len[k]);
    else
        put_input_key(b, s, k);
}

static void output_key(strbuf *b, const solver_desc *s, const solver_parts *ps, size_t k)
{
    if (ps)
        sb_append(b, ps->keys[k], ps->key_len[k]);
    else
        put_output_key(b, s, k);
}

/* The inputs as used: numbers in each input's declared unit, records by
 * key (input_ref_key), lists as arrays of the ids given, null where null. */
static void write_echo(strbuf *b, const solver_desc *s, const solver_parts *ps, const solver_inputs *in)
{
    sb_putc(b, '{');
    bool first = true;
    for (size_t i = 0; i < s->n_inputs; i++) {
        const input_desc *d = &s->inputs[i];
        const input_value *v = &in->v[i];
        if (!v->present)
            continue;
        const char *key = d->kind == IN_REF && !v->is_null ? input_ref_key(v) : NULL;
        if (key && !json_utf8_ok(key))
            continue; /* not valid JSON text: left out */
        if (!first)
            sb_putc(b, ',');
        first = false;
        input_key(b, s, ps, i);
        if (v->is_null) {
            sb_puts(b, "null");
            continue;
        }
        switch (d->kind) {
        case IN_NUMBER: put_num(b, v->num, v->num_was_int); break;
        case IN_INTEGER: put_num(b, v->num, true); break;
        case IN_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); break;
        case IN_ENUM: sb_json_string(b, d->enum_values[v->enum_index]); break;
        case IN_QUANTITY: {
            double shown = v->num;
            units_to(v->num, d->unit, *d->dim, &shown);
            put_num(b, shown, false);
            break;
        }
        case IN_REF: sb_json_string(b, key); break;
        case IN_LIST:
            sb_putc(b, '[');
            for (int k = 0; k < v->n_items; k++) {
                if (k)
                    sb_putc(b, ',');
                if (!sb_json_text(b, v->items[k].name))
                    sb_json_string(b, "");
            }
            sb_putc(b, ']');
            break;
        case IN_ROWS:
            sb_putc(b, '[');
            for (int k = 0; k < v->n_items; k++) {
                sb_puts(b, k ? ",{" : "{");
                for (size_t f = 0; f < d->n_row_fields; f++) {
                    const input_desc *fd = &d->row_fields[f];
                    if (f)
                        sb_putc(b, ',');
                    sb_json_string(b, fd->name);
                    sb_putc(b, ':');
                    put_num(b, v->rows[(size_t)k * d->n_row_fields + f], fd->kind == IN_INTEGER);
                }
                sb_putc(b, '}');
            }
            sb_putc(b, ']');
            break;
        }
    }
    sb_putc(b, '}');
}

static void put_output(strbuf *b, const output_desc *d, const output_value *v)
{
    if (v->is_null) {
        sb_puts(b, "null");
        return;
    }
    switch (d->kind) {
    case OUT_STRING: sb_json_string(b, v->str ? v->str : ""); break;
    case OUT_BOOLEAN: sb_puts(b, v->num != 0 ? "true" : "false"); break;
    case OUT_INTEGER: put_num(b, v->num, true); break;
    case OUT_NUMBER: put_num(b, v->num, false); break;
    }
}

/* ,"<table>":[{column: value, ...}, ...] */
static void write_table(strbuf *b, const table_desc *t, const solver_outputs *out)
{
    sb_puts(b, ",\"");
    sb_puts(b, t->name);
    sb_puts(b, "\":[");
    for (int r = 0; r < out->n_rows; r++) {
        sb_puts(b, r ? ",{" : "{");
        for (size_t c = 0; c < t->n_columns; c++) {
            if (c)
                sb_putc(b, ',');
            sb_json_string(b, t->columns[c].name);
            sb_putc(b, ':');
            put_output(b, &t->columns[c], &out->rows[r][c]);
        }
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
}

static void put_unit(strbuf *b, const char *prefix, const output_desc *d, bool *first)
{
    if (!d->unit[0])
        return;
    if (!*first)
        sb_putc(b, ',');
    *first = false;
    sb_putc(b, '"');
    if (prefix) {
        sb_puts(b, prefix);
        sb_putc(b, '.');
    }
    sb_puts(b, d->name);
    sb_puts(b, "\":");
    sb_json_string(b, d->unit);
}

/* {"output":"unit",...} for the outputs that have a unit; a table's columns
 * as "<table>.<column>". */
static void write_units(strbuf *b, const solver_desc *s)
{
    sb_putc(b, '{');
    bool first = true;
    for (size_t i = 0; i < s->n_outputs; i++)
        put_unit(b, NULL, &s->outputs[i], &first);
    for (size_t i = 0; s->table && i < s->table->n_columns; i++)
        put_unit(b, s->table->name, &s->table->columns[i], &first);
    sb_putc(b, '}');
}

static const solver_parts *parts_of(const app *a, size_t index)
{
    const struct solve_parts *p = a->solve_parts;
    if (!p || index >= solver_count())
        return NULL;
    const solver_parts *f = &p->by_solver[index];
    return f->keys && f->units && f->in_keys && f->in_units && f->leaves_out[0] && f->leaves_out[1] ? f : NULL;
}

void solve_parts_free(struct solve_parts *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < solver_count(); i++) {
        solver_parts *f = &p->by_solver[i];
        for (size_t k = 0; f->keys && k < solver_at(i)->n_outputs; k++)
            free(f->keys[k]);
        for (size_t k = 0; f->in_keys && k < solver_at(i)->n_inputs; k++)
            free(f->in_keys[k]);
        for (size_t k = 0; f->in_units && k < solver_at(i)->n_inputs; k++)
            free(f->in_units[k]);
        free(f->keys);
        free(f->key_len);
        free(f->in_keys);
        free(f->in_key_len);
        free(f->in_units);
        free(f->in_units_len);
        free(f->units);
        for (int m = 0; m < CALIBRATION_MODE_COUNT; m++)
            free(f->leaves_out[m]);
    }
    free(p->by_solver);
    free(p);
}

/* n texts, each by put(b, s, k), with their lengths in *lens; NULL when out of memory. */
static char **render_each(size_t n, const solver_desc *s, void (*put)(strbuf *, const solver_desc *, size_t),
                          size_t **lens)
{
    char **texts = calloc(n + 1, sizeof *texts);
    *lens = calloc(n + 1, sizeof **lens);
    bool ok = texts && *lens;
    for (size_t k = 0; ok && k < n; k++) {
        strbuf b;
        sb_init(&b);
        put(&b, s, k);
        ok = !b.oom;
        texts[k] = ok ? sb_detach(&b, &(*lens)[k]) : NULL;
        sb_free(&b);
    }
    if (!ok && texts) {
        for (size_t k = 0; k < n; k++)
            free(texts[k]);
        free(texts);
        texts = NULL;
    }
    return texts;
}

/* NULL members of a solver's parts: rendered per answer. */
struct solve_parts *solve_parts_build(void)
{
    struct solve_parts *p = calloc(1, sizeof *p);
    if (!p || !(p->by_solver = calloc(solver_count(), sizeof *p->by_solver))) {
        free(p);
        return NULL;
    }
    for (size_t i = 0; i < solver_count(); i++) {
        const solver_desc *s = solver_at(i);
        solver_parts *f = &p->by_solver[i];
        strbuf b;
        sb_init(&b);
        write_units(&b, s);
        f->units = b.oom ? NULL : sb_detach(&b, &f->units_len);
        sb_free(&b);
        f->keys = render_each(s->n_outputs, s, put_output_key, &f->key_len);
        f->in_keys = render_each(s->n_inputs, s, put_input_key, &f->in_key_len);
        f->in_units = render_each(s->n_inputs, s, put_input_unit, &f->in_units_len);
        for (int m = 0; m < CALIBRATION_MODE_COUNT; m++) {
            sb_init(&b);
            sb_json_string(&b, solver_leaves_out(s, (calibration_mode)m));
            f->leaves_out[m] = b.oom ? NULL : sb_detach(&b, &f->leaves_out_len[m]);
            sb_free(&b);
        }
    }
    return p;
}

void solve_write(const app *a, strbuf *b, const solver_request *r, const solver_inputs *in,
                 const solver_outputs *out)
{
    const solver_desc *s = r->s;
    const catalog_edition *ed = r->ed;
    /* One allocation of 4 KiB up front (an answer is 2-3 KB) instead of growing from 256 B. */
    sb_reserve(b, 4000);
    sb_puts(b, "{\"solver\":");
    sb_json_string(b, s->name);
    sb_puts(b, ",\"inputs\":");
    const solver_parts *ps = parts_of(a, r->index);
    write_echo(b, s, ps, in);
    sb_puts(b, ",\"result\":{");
    const output_desc *open = NULL; /* the first member of the record being written */
    size_t open_len = 0;            /* and its record's name length */
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        const output_value *v = &out->v[i];
        size_t plen = output_record_len(d);
        bool same = open && plen == open_len && !memcmp(open->name, d->name, plen);
        if (open && !same) {
            sb_putc(b, '}');
            open = NULL;
        }
        if (i)
            sb_putc(b, ',');
        if (plen && !open) {
            sb_putc(b, '"');
            sb_append(b, d->name, plen);
            sb_puts(b, "\":{");
            open = d;
            open_len = plen;
        }
        output_key(b, s, ps, i);
        put_output(b, d, v);
    }
    if (open)
        sb_putc(b, '}');
    if (s->table)
        write_table(b, s->table, out);
    sb_puts(b, "},\"units\":");
    if (ps)
        sb_append(b, ps->units, ps->units_len);
    else
        write_units(b, s);
    sb_puts(b, ",\"input_units\":{");
    bool first = true;
    for (size_t i = 0; i < s->n_inputs; i++) {
        if (s->inputs[i].kind != IN_QUANTITY || !in->v[i].present)
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        if (ps)
            sb_append(b, ps->in_units[i], ps->in_units_len[i]);
        else
            put_input_unit(b, s, i);
    }
    sb_puts(b, "},\"resolved\":{");
    first = true;
    for (size_t i = 0; i < s->n_inputs; i++) {
        const input_value *v = &in->v[i];
        if (s->inputs[i].kind != IN_REF || !v->present || v->is_null || !v->ref)
            continue;
        if (!first)
            sb_putc(b, ',');
        first = false;
        input_key(b, s, ps, i);
        put_summary(a, b, v->ref, (record_kind)v->ref_kind);
    }
    sb_puts(b, "},\"trace\":[");
    first = true;
    for (int i = 0; i < out->n_trace; i++)
        put_message(b, out->trace[i], &first);
    sb_puts(b, "],\"warnings\":[");
    first = true;
    for (size_t i = 0; i < s->n_outputs; i++) {
        const output_desc *d = &s->outputs[i];
        const output_value *v = &out->v[i];
        if ((d->kind == OUT_NUMBER || d->kind == OUT_INTEGER) && !v->is_null && !isfinite(v->num)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s is %s, reported as null", d->name,
                     isnan(v->num) ? "undefined (NaN)" : v->num > 0 ? "infinite" : "-infinite");
            put_message(b, msg, &first);
        }
    }
    for (int i = 0; i < out->n_warnings; i++)
        put_message(b, out->warnings[i], &first);
    sb_puts(b, "],\"assumptions\":{\"leaves_out\":");
    if (ps)
        sb_append(b, ps->leaves_out[r->calibration], ps->leaves_out_len[r->calibration]);
    else
        sb_json_string(b, solver_leaves_out(s, r->calibration));
    sb_puts(b, ",\"error_band\":");
    error_band_write(b, s, in, r->calibration);
    sb_puts(b, "},\"catalog\":");
    sb_json_string(b, edition_name(ed));
    sb_puts(b, ",\"calibration\":");
    sb_json_string(b, CALIBRATION_MODES[r->calibration]);
    sb_puts(b, ",\"catalog_version\":");
    sb_json_string(b, edition_version(ed));
    sb_putc(b, '}');
}
