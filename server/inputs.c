/* inputs.c - parsing a solver's inputs (contract in inputs.h): JSON values and
 * query text into input values, defaults, required inputs, catalog references,
 * bound checks. */
#include "server/inputs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/numfmt.h"

#define MAX_SAFE_INTEGER 9007199254740992.0 /* 2^53: every integer below is exact in a double */

static const char *json_type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* Python type names, for mlsysim's "must be a string, got <type>" messages. */
static const char *python_type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "dict";
    case JSON_ARRAY: return "list";
    case JSON_STRING: return "str";
    case JSON_INTEGER: return "int";
    case JSON_REAL: return "float";
    case JSON_TRUE:
    case JSON_FALSE: return "bool";
    case JSON_NULL: return "NoneType";
    }
    return "object";
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int parse_enum(const input_desc *d, const char *s, input_value *v, const char *field, api_error *err)
{
    for (int i = 0; d->enum_values[i]; i++) {
        if (strcasecmp(s, d->enum_values[i]) == 0) {
            v->enum_index = i;
            v->enum_respelled = strcmp(s, d->enum_values[i]) != 0;
            return 0;
        }
    }
    if (d->enum_refusal) { /* the solver's own message (its descriptor's enum_refusal) */
        char lower[64];
        size_t n = 0;
        for (; s[n] && n < sizeof lower - 1; n++)
            lower[n] = (char)tolower((unsigned char)s[n]);
        lower[n] = '\0';
        const char *hole = strstr(d->enum_refusal, "{}");
        if (!hole)
            return api_fail(err, 400, "invalid-input", field, "%s", d->enum_refusal);
        return api_fail(err, 400, "invalid-input", field, "%.*s%s%s", (int)(hole - d->enum_refusal),
                        d->enum_refusal, lower, hole + 2);
    }
    /* mlsysim's message (resolve_precision): the supported values sorted. */
    const char *sorted[32];
    int n = 0;
    for (; d->enum_values[n] && n < 32; n++)
        sorted[n] = d->enum_values[n];
    qsort(sorted, (size_t)n, sizeof sorted[0], cmp_str);
    char list[400] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", sorted[i]);
    char shown[80];
    snprintf(shown, sizeof shown, "%.60s", s);
    return api_fail(err, 400, "invalid-input", field, "%s '%s' is not supported. Supported %s values: %s", d->name,
                    shown, d->name, list);
}

/* --- catalog references ------------------------------------------------------------------ */

/* "grid or datacenter" (name = catalog_kind_singular), "grids, /catalog/datacenters"
 * (name = catalog_kind_name) */
static void kinds_text(unsigned refs, const char *(*name)(const catalog_kind *), const char *sep, char *buf,
                       size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < REC_N_KINDS && used < n; k++)
        if (refs & REC_BIT(k))
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? sep : "", name(catalog_kind_of(k)));
}

/* An id to show in messages: the kind's first catalog entry. */
static const char *example_id(const catalog_edition *ed, int k)
{
    const rec_ident *r = edition_count(ed, catalog_kind_of(k)) ? edition_record(ed, catalog_kind_of(k), 0) : NULL;
    return r ? r->key : "id";
}

static int first_kind(unsigned refs)
{
    for (int k = 0; k < REC_N_KINDS; k++)
        if (refs & REC_BIT(k))
            return k;
    return 0;
}

/* An id of one of the accepted kinds (record_kind order); -1 if none. */
static int find_ref(const catalog_edition *ed, unsigned refs, const char *id, const void **rec)
{
    for (int k = 0; k < REC_N_KINDS; k++) {
        if (!(refs & REC_BIT(k)))
            continue;
        long idx = edition_find(ed, catalog_kind_of(k), id);
        if (idx >= 0) {
            *rec = edition_record(ed, catalog_kind_of(k), (size_t)idx);
            return k;
        }
    }
    return -1;
}

static int unknown_ref(const catalog_edition *ed, unsigned refs, const char *id, const char *field, api_error *err)
{
    const char *near[3];
    int n = 0;
    for (int k = 0; k < REC_N_KINDS && n == 0; k++)
        if (refs & REC_BIT(k))
            n = edition_suggest(ed, catalog_kind_of(k), id, near, 3);
    char sugg[200] = "", what[120], lists[160];
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof sugg; i++)
        used += (size_t)snprintf(sugg + used, sizeof sugg - used, "%s%s", i ? ", " : "", near[i]);
    kinds_text(refs, catalog_kind_singular, " or ", what, sizeof what);
    char plural[120];
    kinds_text(refs, catalog_kind_name, ", /catalog/", plural, sizeof plural);
    snprintf(lists, sizeof lists, "GET /catalog/%s", plural);
    char shown[80];
    snprintf(shown, sizeof shown, "%.64s", id);
    return api_fail(err, 404, "unknown-id", field, "unknown %s '%s' in catalog '%s'%s%s%s (%s list%s them)", what,
                    shown, edition_name(ed), n ? "; did you mean " : "", sugg, n ? "?" : "", lists,
                    strchr(plural, ',') ? "" : "s");
}

/* An inline record: {"base": id, member: value, ...} resolved by the catalog. */
static int parse_ref_object(const input_desc *d, const json_t *j, const catalog_edition *ed, input_value *v,
                            input_store **store, const char *field, api_error *err)
{
    /* An override takes the kind of its base; a custom entry the first kind accepted. */
    const void *base_rec;
    const json_t *base = json_object_get(j, "base");
    int k = json_is_string(base) ? find_ref(ed, d->refs, json_string_value(base), &base_rec) : -1;
    if (k < 0)
        k = first_kind(d->refs);
    void *rec = input_store_alloc(store, catalog_kind_record_size(catalog_kind_of(k)));
    if (!rec)
        return api_fail(err, 503, "overloaded", field, "out of memory");
    char sub[96] = "", msg[400] = "";
    int st = edition_resolve(ed, catalog_kind_of(k), j, rec, sub, sizeof sub, msg, sizeof msg);
    if (st != 0) {
        char path[200];
        if (sub[0])
            snprintf(path, sizeof path, "%s.%s", field, sub);
        else
            snprintf(path, sizeof path, "%s", field);
        return api_fail(err, st == 404 ? 404 : 400, st == 404 ? "unknown-id" : "invalid-input", path, "%s", msg);
    }
    v->ref = rec;
    v->ref_kind = (unsigned char)k;
    return 0;
}

static int parse_list(const input_desc *d, const json_t *j, const catalog_edition *ed, input_value *v,
                      input_store **store, const char *field, api_error *err)
{
    char what[120];
    kinds_text(d->refs, catalog_kind_singular, " or ", what, sizeof what);
    size_t n = json_array_size(j);
    input_item *items = input_store_alloc(store, n ? n * sizeof *items : 1);
    if (!items)
        return api_fail(err, 503, "overloaded", field, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(j, i);
        char path[160];
        snprintf(path, sizeof path, "%s[%zu]", field, i);
        if (!json_is_string(e))
            return api_fail(err, 400, "invalid-input", path, "%s[%zu] must be a %s id, got %s", d->name, i, what,
                            json_type_name(e));
        const char *id = json_string_value(e);
        size_t len = strlen(id);
        char *name = input_store_alloc(store, len + 1);
        if (!name)
            return api_fail(err, 503, "overloaded", field, "out of memory");
        items[i].name = memcpy(name, id, len + 1);
        if (find_ref(ed, d->refs, id, &items[i].ref) < 0) {
            items[i].ref = NULL;
            if (!d->list_skip_unknown)
                return unknown_ref(ed, d->refs, id, path, err);
        }
    }
    v->items = items;
    v->n_items = (int)n;
    return 0;
}

/* "{arrival_s, prompt_tokens, output_tokens}": a row's fields, for messages. */
static void row_fields_text(const input_desc *d, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "{");
    for (size_t f = 0; f < d->n_row_fields && used < n; f++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", f ? ", " : "", d->row_fields[f].name);
    if (used < n)
        snprintf(buf + used, n - used, "}");
}

static int parse_row_field(const input_desc *f, const json_t *j, input_value *v, const char *path, api_error *err);

/* An array (j) of rows: each an object of exactly the row fields, each field
 * parsed and bound-checked as a number input of that name. */
static int parse_rows(const input_desc *d, const json_t *j, input_value *v, input_store **store, const char *field,
                      api_error *err)
{
    char shape[160];
    row_fields_text(d, shape, sizeof shape);
    size_t n = json_array_size(j), nf = d->n_row_fields;
    if (n > (size_t)d->max_rows)
        return api_fail(err, 413, "invalid-input", field, "%s has %zu rows, over the cap of %d", d->name, n,
                        d->max_rows);
    double *rows = input_store_alloc(store, n ? n * nf * sizeof *rows : 1);
    if (!rows)
        return api_fail(err, 503, "overloaded", field, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(j, i);
        char path[160];
        snprintf(path, sizeof path, "%s[%zu]", field, i);
        if (!json_is_object(e))
            return api_fail(err, 400, "invalid-input", path, "%s[%zu] must be an object %s, got %s", d->name, i,
                            shape, json_type_name(e));
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)e, key, val) {
            size_t f = 0;
            while (f < nf && strcmp(key, d->row_fields[f].name))
                f++;
            if (f == nf) {
                char at[240];
                snprintf(at, sizeof at, "%s.%.60s", path, key);
                return api_fail(err, 400, "invalid-input", at, "unknown field '%.60s' in %s[%zu]; a row is %s", key,
                                d->name, i, shape);
            }
        }
        for (size_t f = 0; f < nf; f++) {
            const input_desc *fd = &d->row_fields[f];
            char at[240];
            snprintf(at, sizeof at, "%s.%s", path, fd->name);
            const json_t *x = json_object_get(e, fd->name);
            if (!x)
                return api_fail(err, 400, "invalid-input", at, "%s[%zu] has no %s (%s); a row is %s", d->name, i,
                                fd->name, fd->description, shape);
            input_value fv;
            if (parse_row_field(fd, x, &fv, at, err) != 0)
                return -1;
            rows[i * nf + f] = fv.num;
        }
    }
    v->rows = rows;
    v->n_items = (int)n;
    return 0;
}

/* Rows given as query text: the JSON array, as text. */
static int parse_rows_text(const input_desc *d, const char *text, input_value *v, input_store **store,
                           const char *field, api_error *err)
{
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    if (!j) {
        char shape[160];
        row_fields_text(d, shape, sizeof shape);
        return api_fail(err, 400, "invalid-input", field, "%s must be a JSON array of objects %s", d->name, shape);
    }
    int rc;
    if (json_is_array(j)) {
        rc = parse_rows(d, j, v, store, field, err);
    } else {
        char shape[160];
        row_fields_text(d, shape, sizeof shape);
        rc = api_fail(err, 400, "invalid-input", field, "%s must be an array of objects %s, got %s", d->name, shape,
                      json_type_name(j));
    }
    json_decref(j);
    return rc;
}

/* Absent is an error: no default, not optional, not nullable (None), not a
 * boolean (False), not a list of the whole catalog. */
bool input_is_required(const input_desc *d)
{
    return !d->has_default && !d->optional && !d->nullable && d->kind != IN_BOOLEAN && !d->list_all_by_default;
}

/* An absent list_all_by_default input: every record of its kinds, in catalog order. */
static int list_all(const input_desc *d, const catalog_edition *ed, input_value *v, input_store **store,
                    const char *field, api_error *err)
{
    size_t n = 0;
    for (int k = 0; k < REC_N_KINDS; k++)
        if (d->refs & REC_BIT(k))
            n += edition_count(ed, catalog_kind_of((record_kind)k));
    input_item *items = input_store_alloc(store, n ? n * sizeof *items : 1);
    if (!items)
        return api_fail(err, 503, "overloaded", field, "out of memory");
    size_t used = 0;
    for (int k = 0; k < REC_N_KINDS; k++) {
        const catalog_kind *ck = catalog_kind_of((record_kind)k);
        for (size_t i = 0; (d->refs & REC_BIT(k)) && i < edition_count(ed, ck); i++) {
            items[used].ref = edition_record(ed, ck, i);
            items[used].name = ((const rec_ident *)items[used].ref)->key;
            used++;
        }
    }
    v->present = v->defaulted = true;
    v->items = items;
    v->n_items = (int)used;
    return 0;
}

/* A value as the client wrote it, from JSON or from query text: the parser
 * below reads this, so that both forms give the same values and messages. */
typedef enum { SV_NULL, SV_BOOL, SV_INT, SV_REAL, SV_STRING, SV_OTHER } scalar_type;
typedef struct {
    scalar_type t;
    bool text; /* read from query text (a list's items comma-separated, rows as JSON text) */
    bool b;
    json_int_t i;
    double r;
    const char *s;
    const json_t *j; /* the JSON value (NULL for text): objects, arrays, type names */
} scalar;

static scalar scalar_of_json(const json_t *j)
{
    scalar v = {.j = j};
    switch (json_typeof(j)) {
    case JSON_NULL: v.t = SV_NULL; break;
    case JSON_TRUE:
    case JSON_FALSE: v.t = SV_BOOL; v.b = json_is_true(j); break;
    case JSON_INTEGER: v.t = SV_INT; v.i = json_integer_value(j); break;
    case JSON_REAL: v.t = SV_REAL; v.r = json_real_value(j); break;
    case JSON_STRING: v.t = SV_STRING; v.s = json_string_value(j); break;
    default: v.t = SV_OTHER; break;
    }
    return v;
}

/* What query text reads as for input d: "256" an integer for a number,
 * "true" a boolean for a boolean, "null" null for a nullable input; else the
 * text itself, a string ("500 KB", "DGX_H100"). */
static scalar scalar_of_text(const input_desc *d, const char *text)
{
    scalar v = {.t = SV_STRING, .text = true, .s = text};
    char *end;
    if (d->nullable && !strcmp(text, "null")) {
        v.t = SV_NULL;
        return v;
    }
    switch (d->kind) {
    case IN_INTEGER:
    case IN_NUMBER:
    case IN_QUANTITY: {
        errno = 0;
        long long x = strtoll(text, &end, 10);
        if (*text && !*end && errno == 0) {
            v.t = SV_INT;
            v.i = x;
            return v;
        }
        double r = strtod(text, &end);
        /* strtod accepts "nan"/"inf": for numbers and quantities those stay strings and fail as such */
        if (*text && !*end && isfinite(r) && (d->kind == IN_INTEGER || strpbrk(text, "nNiI") == NULL)) {
            v.t = SV_REAL;
            v.r = r;
        }
        return v;
    }
    case IN_BOOLEAN:
        if (!strcasecmp(text, "true") || !strcmp(text, "1") || !strcasecmp(text, "yes")) {
            v.t = SV_BOOL;
            v.b = true;
        } else if (!strcasecmp(text, "false") || !strcmp(text, "0") || !strcasecmp(text, "no")) {
            v.t = SV_BOOL;
            v.b = false;
        }
        return v;
    default:
        return v;
    }
}

/* A given value as the parser reads it. */
static scalar scalar_of_given(const input_desc *d, const input_given *g)
{
    switch (g->t) {
    case GIVEN_JSON: return scalar_of_json(g->j);
    case GIVEN_TEXT: return scalar_of_text(d, g->s);
    case GIVEN_NULL: return (scalar){.t = SV_NULL};
    case GIVEN_BOOL: return (scalar){.t = SV_BOOL, .b = g->b};
    case GIVEN_INT: return (scalar){.t = SV_INT, .i = g->i};
    case GIVEN_REAL: return (scalar){.t = SV_REAL, .r = g->r};
    case GIVEN_STRING:
    case GIVEN_NONE: break;
    }
    return (scalar){.t = SV_STRING, .s = g->s ? g->s : ""};
}

static const char *scalar_type_name(const scalar *v)
{
    switch (v->t) {
    case SV_NULL: return "null";
    case SV_BOOL: return "a boolean";
    case SV_INT: return "an integer";
    case SV_REAL: return "a number";
    case SV_STRING: return "a string";
    case SV_OTHER: return v->j ? json_type_name(v->j) : "a value";
    }
    return "a value";
}

/* A list input in a query string: its items, comma-separated. */
static int parse_list_text(const input_desc *d, const char *text, const catalog_edition *ed, input_value *v,
                           input_store **store, const char *field, api_error *err)
{
    size_t n = 0;
    for (const char *p = text; *p; n++) {
        size_t len = strcspn(p, ",");
        p += len + (p[len] == ',');
    }
    input_item *items = input_store_alloc(store, n ? n * sizeof *items : 1);
    if (!items)
        return api_fail(err, 503, "overloaded", field, "out of memory");
    char what[120];
    kinds_text(d->refs, catalog_kind_singular, " or ", what, sizeof what);
    size_t i = 0;
    for (const char *p = text; *p; i++) {
        size_t len = strcspn(p, ",");
        char path[160];
        snprintf(path, sizeof path, "%s[%zu]", field, i);
        char *name = input_store_alloc(store, len + 1);
        if (!name)
            return api_fail(err, 503, "overloaded", field, "out of memory");
        memcpy(name, p, len);
        name[len] = '\0';
        items[i].name = name;
        if (find_ref(ed, d->refs, name, &items[i].ref) < 0) {
            items[i].ref = NULL;
            if (!d->list_skip_unknown)
                return unknown_ref(ed, d->refs, name, path, err);
        }
        p += len + (p[len] == ',');
    }
    v->items = items;
    v->n_items = (int)n;
    return 0;
}

static int parse_scalar(const input_desc *d, const scalar *j, const catalog_edition *ed, input_value *v,
                        input_store **store, const char *field, api_error *err)
{
    memset(v, 0, sizeof *v);
    v->present = true;
    if (j->t == SV_NULL && d->nullable) {
        v->is_null = true;
        return 0;
    }
    switch (d->kind) {
    case IN_NUMBER:
        if (j->t != SV_INT && j->t != SV_REAL)
            return api_fail(err, 400, "invalid-input", field, "%s must be a number, got %s", d->name,
                            scalar_type_name(j));
        v->num = j->t == SV_INT ? (double)j->i : j->r;
        v->num_was_int = j->t == SV_INT;
        return 0;
    case IN_INTEGER: {
        double x;
        if (j->t == SV_INT) {
            x = (double)j->i;
        } else if (j->t == SV_REAL && j->r == floor(j->r)) {
            x = j->r;
        } else if (j->t == SV_REAL) {
            char num[40];
            fmt_pyrepr(num, sizeof num, j->r);
            return api_fail(err, 400, "invalid-input", field, "%s must be a whole number, got %s", d->name, num);
        } else {
            return api_fail(err, 400, "invalid-input", field, "%s must be a whole number, got %s", d->name,
                            scalar_type_name(j));
        }
        double max = d->int_max > 0 ? d->int_max : MAX_SAFE_INTEGER;
        if (fabs(x) > max)
            return api_fail(err, 400, "invalid-input", field, "%s must be at most %.0f in magnitude, got %.0f",
                            d->name, max, x);
        v->num = x;
        v->num_was_int = true;
        return 0;
    }
    case IN_BOOLEAN:
        if (j->t != SV_BOOL)
            return api_fail(err, 400, "invalid-input", field, "%s must be true or false, got %s", d->name,
                            scalar_type_name(j));
        v->num = j->b ? 1.0 : 0.0;
        return 0;
    case IN_ENUM:
        if (j->t != SV_STRING) {
            /* Python type names, for mlsysim's "must be a string, got <type>" */
            static const char *const PY[] = {[SV_NULL] = "NoneType", [SV_BOOL] = "bool", [SV_INT] = "int",
                                             [SV_REAL] = "float", [SV_STRING] = "str", [SV_OTHER] = "object"};
            return api_fail(err, 400, "invalid-input", field, "%s must be a string, got %s", d->name,
                            j->j ? python_type_name(j->j) : PY[j->t]);
        }
        return parse_enum(d, j->s, v, field, err);
    case IN_QUANTITY: {
        char msg[300];
        if (j->t == SV_INT || j->t == SV_REAL) {
            /* Through the unit parser on the number's shortest text, so 7.24 (ms)
             * is exactly "7.24 ms": multiplying by 1e-3 misses by an ulp and the
             * echo would read 7.240000000000001. */
            char text[48];
            if (j->t == SV_INT)
                snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, j->i);
            else
                fmt_double(text, sizeof text, j->r);
            if (units_parse_as(text, *d->dim, d->unit, &v->num, msg, sizeof msg) != UNITS_OK || !isfinite(v->num))
                return api_fail(err, 400, "invalid-input", field, "%s is too large", d->name);
            v->num_was_int = j->t == SV_INT;
            return 0;
        }
        if (j->t != SV_STRING) {
            char ex[120];
            return api_fail(err, 400, "invalid-input", field, "%s must be %s or a number in %s, got %s", d->name,
                            dim_describe(*d->dim, ex, sizeof ex), d->unit, scalar_type_name(j));
        }
        const char *text = j->s;
        units_status st = units_parse_as(text, *d->dim, d->unit, &v->num, msg, sizeof msg);
        double alt;
        bool alt_used = false;
        if (st == UNITS_DIMENSION && d->alt_dim &&
            units_parse_as(text, *d->alt_dim, NULL, &alt, NULL, 0) == UNITS_OK) {
            v->num = alt * d->alt_factor;   /* the descriptor's conversion (a compute budget in GPU time -> flop) */
            st = UNITS_OK;
            alt_used = true;
        }
        if (st != UNITS_OK)
            return api_fail(err, 400, "invalid-input", field, "%s: %s", d->name, msg);
        /* The number as written, in its own unit (a time converted to flop has none). */
        double written = strtod(text, NULL);
        if (!alt_used && written != 0 && isfinite(written))
            v->unit_scale = v->num / written;
        return 0;
    }
    case IN_REF: {
        if (j->t == SV_STRING) {
            int k = find_ref(ed, d->refs, j->s, &v->ref);
            if (k < 0)
                return unknown_ref(ed, d->refs, j->s, field, err);
            v->ref_kind = (unsigned char)k;
            return 0;
        }
        if (j->t == SV_OTHER && json_is_object(j->j))
            return parse_ref_object(d, j->j, ed, v, store, field, err);
        char what[120];
        int k0 = first_kind(d->refs);
        kinds_text(d->refs, catalog_kind_singular, " or ", what, sizeof what);
        return api_fail(err, 400, "invalid-input", field,
                        "%s must be a %s id (e.g. \"%s\") or an object ({\"base\": \"%s\", ...}), got %s", d->name,
                        what, example_id(ed, k0), example_id(ed, k0), scalar_type_name(j));
    }
    case IN_LIST: {
        if (j->text)
            return parse_list_text(d, j->s, ed, v, store, field, err);
        if (j->t == SV_OTHER && json_is_array(j->j))
            return parse_list(d, j->j, ed, v, store, field, err);
        char what[120];
        kinds_text(d->refs, catalog_kind_singular, " or ", what, sizeof what);
        return api_fail(err, 400, "invalid-input", field, "%s must be an array of %s ids (e.g. [\"%s\"]), got %s",
                        d->name, what, example_id(ed, first_kind(d->refs)), scalar_type_name(j));
    }
    case IN_ROWS: {
        if (j->text)
            return parse_rows_text(d, j->s, v, store, field, err);
        if (j->t == SV_OTHER && json_is_array(j->j))
            return parse_rows(d, j->j, v, store, field, err);
        char shape[160];
        row_fields_text(d, shape, sizeof shape);
        return api_fail(err, 400, "invalid-input", field, "%s must be an array of objects %s, got %s", d->name, shape,
                        scalar_type_name(j));
    }
    }
    return api_fail(err, 400, "invalid-input", field, "unsupported input kind");
}

/* A row field: parsed as a number input of its own, then its bound checked,
 * the failure named at the field's path. */
static int parse_row_field(const input_desc *f, const json_t *j, input_value *v, const char *path, api_error *err)
{
    scalar sv = scalar_of_json(j);
    if (parse_scalar(f, &sv, NULL, v, NULL, path, err) != 0)
        return -1;
    solver_error se = {0};
    if (input_check_bound(f, v, &se) != 0)
        return api_fail(err, 400, "invalid-input", path, "%s", se.detail);
    return 0;
}

int input_parse(const input_desc *d, const json_t *j, const catalog_edition *ed, input_value *v,
                input_store **store, const char *field, api_error *err)
{
    scalar sv = scalar_of_json(j);
    return parse_scalar(d, &sv, ed, v, store, field, err);
}

int input_parse_text(const input_desc *d, const char *text, const catalog_edition *ed, input_value *v,
                     input_store **store, const char *field, api_error *err)
{
    scalar sv = scalar_of_text(d, text);
    return parse_scalar(d, &sv, ed, v, store, field, err);
}

void input_default(const input_desc *d, input_value *v)
{
    memset(v, 0, sizeof *v);
    if (!d->has_default) {
        /* a nullable input's default is None */
        v->present = v->defaulted = v->is_null = d->nullable;
        return;
    }
    v->present = true;
    v->defaulted = true;
    v->num = d->def_num;
    v->num_was_int = d->kind == IN_INTEGER;
    if (d->kind == IN_ENUM) {
        for (int i = 0; d->enum_values[i]; i++)
            if (strcmp(d->enum_values[i], d->def_str) == 0)
                v->enum_index = i;
    }
}

int inputs_check(const solver_desc *s, const solver_inputs *in, api_error *err)
{
    solver_error se = {0}; /* one for all: a check writes it only when it fails */
    for (size_t i = 0; i < s->n_inputs; i++) {
        if (solver_check_input(s, i, &in->v[i], &se) != 0)
            return api_solver_fail(err, &se, "inputs");
    }
    if (solver_check_constraints(s, in, &se) != 0)
        return api_solver_fail(err, &se, "inputs");
    return 0;
}

static void list_inputs(const solver_desc *s, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_inputs && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", s->inputs[i].name);
}

int inputs_from_json(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                     api_error *err)
{
    if (inputs_parse(s, obj, ed, in, err) != 0)
        return -1;
    return inputs_check(s, in, err);
}

int inputs_index(const solver_desc *s, const char *key, api_error *err)
{
    int i = solver_input_index(s, key);
    if (i < 0) {
        char known[400], field[160];
        list_inputs(s, known, sizeof known);
        snprintf(field, sizeof field, "inputs.%.100s", key);
        api_fail(err, 400, "unknown-input", field, "unknown input '%.100s' for solver %s; its inputs are: %s", key,
                 s->name, known);
    }
    return i;
}

int inputs_parse(const solver_desc *s, const json_t *obj, const catalog_edition *ed, solver_inputs *in,
                 api_error *err)
{
    in->owned = NULL;
    if (obj && !json_is_object(obj))
        return api_fail(err, 400, "invalid-input", "inputs", "inputs must be an object, got %s", json_type_name(obj));
    const char *key;
    json_t *val;
    /* One pass over the members (no look-up per input): each names an input, once (the parser
     * rejects duplicate keys); null stands for "not given" unless the input is nullable. */
    input_given given[SOLVER_MAX_INPUTS] = {{0}};
    if (obj) {
        json_object_foreach((json_t *)obj, key, val) {
            int i = inputs_index(s, key, err);
            if (i < 0)
                return -1;
            if (!json_is_null(val) || s->inputs[i].nullable)
                given[i] = (input_given){.t = GIVEN_JSON, .j = val};
        }
    }
    return inputs_parse_given(s, given, ed, in, err);
}

/* "inputs.<name>" into field (n >= 16) as snprintf would write it, without snprintf's cost;
 * composed only for an input that is given or needs it (most are defaulted). */
static const char *input_field(char *field, size_t n, const input_desc *d)
{
    size_t nl = strlen(d->name);
    if (nl > n - 8)
        nl = n - 8;
    memcpy(field, "inputs.", 7);
    memcpy(field + 7, d->name, nl);
    field[7 + nl] = '\0';
    return field;
}

int inputs_parse_given(const solver_desc *s, const input_given *given, const catalog_edition *ed, solver_inputs *in,
                       api_error *err)
{
    in->owned = NULL;
    for (size_t i = 0; i < s->n_inputs; i++) {
        const input_desc *d = &s->inputs[i];
        char field[96];
        if (given[i].t != GIVEN_NONE) {
            scalar sv = scalar_of_given(d, &given[i]);
            if (parse_scalar(d, &sv, ed, &in->v[i], &in->owned, input_field(field, sizeof field, d), err) != 0)
                return -1;
        } else {
            input_default(d, &in->v[i]);
            if (d->kind == IN_LIST && d->list_all_by_default &&
                list_all(d, ed, &in->v[i], &in->owned, input_field(field, sizeof field, d), err) != 0)
                return -1;
            if (input_is_required(d)) {
                input_field(field, sizeof field, d);
                char ex[120] = "";
                if (d->kind == IN_QUANTITY)
                    dim_describe(*d->dim, ex, sizeof ex);
                return api_fail(err, 400, "missing-input", field, "missing required input '%s'%s%s (%s)", d->name,
                                ex[0] ? ": expected " : "", ex, d->description);
            }
        }
    }
    /* A default an input given in its place makes unused is not filled. */
    for (size_t i = 0; i < s->n_inputs; i++) {
        const char *by = s->inputs[i].replaced_by;
        if (!by || !in->v[i].defaulted)
            continue;
        int k = solver_input_index(s, by);
        if (k >= 0 && in_has(in, k))
            memset(&in->v[i], 0, sizeof in->v[i]);
    }
    return 0;
}
