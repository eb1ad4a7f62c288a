/* field.c - one field of a catalog entry: the units a field may be in,
 * reading a quantity, and the messages that name a field.
 *
 * Contract (catalog_internal.h, "one field"): cat_parse_qty reads a quantity
 * in any of the catalog's spellings into SI; cat_fail and cat_fail_unknown
 * write "<field>: <what was expected>" into an error sink and return 400;
 * cat_unit_si / cat_unit_example spell a unit kind; cat_find_spec,
 * cat_join_path, cat_json_kind and cat_edit_distance are the small helpers
 * the readers, the merger and the summaries share. Pure functions of their
 * arguments: no catalog state. */
#include "catalog/catalog_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

/* ---- units ------------------------------------------------------------ */

/* SI spelling (what a bare number means) and an example for messages. */
const char *cat_unit_si(ukind u)
{
    switch (u) {
    case U_FLOPS: return "flop/s";
    case U_FLOP:  return "flop";
    case U_B:     return "B";
    case U_BPS:   return "B/s";
    case U_S:     return "s";
    case U_W:     return "W";
    case U_J:     return "J";
    case U_USD:   return "USD";
    case U_COUNT: return "count";
    case U_HZ:    return "Hz";
    default:      return "";
    }
}

const char *cat_unit_example(ukind u)
{
    switch (u) {
    case U_FLOPS: return "312 TFLOPs/s";
    case U_FLOP:  return "4.1 GFLOP";
    case U_B:     return "80 GiB";
    case U_BPS:   return "2039 GB/s";
    case U_S:     return "0.015 ms";
    case U_W:     return "400 W";
    case U_J:     return "15 Wh";
    case U_USD:   return "15000 USD";
    case U_COUNT: return "25.6e6 param";
    case U_HZ:    return "400 MHz";
    default:      return "";
    }
}

static dimension unit_dim(ukind u)
{
    switch (u) {
    case U_FLOPS: return DIM_OPS_RATE;
    case U_FLOP:  return DIM_OPS;
    case U_B:     return DIM_BYTES;
    case U_BPS:   return DIM_BYTE_RATE;
    case U_S:     return DIM_TIME;
    case U_W:     return DIM_POWER;
    case U_J:     return DIM_ENERGY;
    case U_USD:   return DIM_MONEY;
    case U_COUNT: return DIM_COUNTS;
    case U_HZ:    return DIM_FREQUENCY;
    default:      return DIM_NONE;
    }
}

const fspec *cat_find_spec(const fspec *specs, const char *name)
{
    for (const fspec *s = specs; s != NULL && s->name != NULL; s++)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

/* ---- small helpers ------------------------------------------------------ */

size_t cat_edit_distance(const char *a, const char *b)
{
    enum { MAXL = 128 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXL || lb > MAXL)
        return la > lb ? la : lb;
    size_t rows[3][MAXL + 1];
    size_t *pp = rows[0], *p = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        p[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        int ca = tolower((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= lb; j++) {
            int cb = tolower((unsigned char)b[j - 1]);
            size_t cost = ca == cb ? 0 : 1;
            size_t best = p[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (p[j - 1] + cost < best)
                best = p[j - 1] + cost;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < best)
                best = pp[j - 2] + 1; /* transposition */
            cur[j] = best;
        }
        size_t *t = pp;
        pp = p;
        p = cur;
        cur = t;
    }
    return p[lb];
}

/* Shortest text that reads back as the same double. */
void cat_fmt_num(char *buf, size_t n, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

const char *cat_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:  return "an object";
    case JSON_ARRAY:   return "an array";
    case JSON_STRING:  return "a string";
    case JSON_INTEGER:
    case JSON_REAL:    return "a number";
    case JSON_TRUE:
    case JSON_FALSE:   return "a boolean";
    default:           return "null";
    }
}

/* "prefix.name" (or "name"), cut to fit: paths only label messages. */
void cat_join_path(char *out, size_t n, const char *prefix, const char *name)
{
    size_t o = 0;
    if (n == 0)
        return;
    for (const char *p = prefix; p != NULL && *p != '\0' && o + 1 < n; p++)
        out[o++] = *p;
    if (o > 0 && o + 1 < n)
        out[o++] = '.';
    for (const char *p = name; *p != '\0' && o + 1 < n; p++)
        out[o++] = *p;
    out[o] = '\0';
}

int cat_fail(const cat_errsink *es, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (es->field != NULL && es->fieldlen > 0)
        snprintf(es->field, es->fieldlen, "%s", path);
    if (es->err != NULL && es->errlen > 0) {
        if (path[0] != '\0')
            snprintf(es->err, es->errlen, "%s: %s", path, msg);
        else
            snprintf(es->err, es->errlen, "%s", msg);
    }
    return 400;
}

/* "unknown field" with the nearest known name at that level, if one is close. */
int cat_fail_unknown(const cat_errsink *es, const fspec *specs, const char *prefix,
                     const char *name, const char *shown)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (const fspec *s = specs; s->name != NULL; s++) {
        size_t d = cat_edit_distance(name, s->name);
        if (d < bestd) {
            bestd = d;
            best = s->name;
        }
    }
    size_t lim = strlen(name) / 3;
    if (lim < 2)
        lim = 2;
    if (best != NULL && bestd <= lim) {
        char sug[256];
        cat_join_path(sug, sizeof sug, prefix, best);
        return cat_fail(es, shown, "unknown field (did you mean \"%s\"?)", sug);
    }
    char list[400];
    size_t used = 0;
    list[0] = '\0';
    for (const fspec *s = specs; s->name != NULL && used + 1 < sizeof list; s++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", s == specs ? "" : ", ", s->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (prefix[0] != '\0')
        return cat_fail(es, shown, "unknown field; the fields of %s are: %s", prefix, list);
    return cat_fail(es, shown, "unknown field; the known fields are: %s", list);
}

/* ---- quantities --------------------------------------------------------- */

bool cat_qty_key_ok(const char *k)
{
    return strcmp(k, "value") == 0 || strcmp(k, "unit") == 0 || strcmp(k, "si") == 0 ||
           strcmp(k, "si_unit") == 0 || strcmp(k, "note") == 0 || strcmp(k, "ref") == 0;
}

/* SI per unit of a quantity string's unit part ("44 GiB" -> 2^30); a bare
 * number is in the SI unit (1). */
static double declared_unit(const char *text)
{
    char *end;
    (void)strtod(text, &end);
    while (*end == ' ')
        end++;
    double f;
    dimension d;
    if (*end == '\0' || units_parse_unit(end, &f, &d, NULL, 0) != UNITS_OK)
        return 1.0;
    return f;
}

/* Parse one quantity in SI units. Returns 0 or cat_fail(). If `declared_out` is not
 * NULL it receives the SI value of the unit the quantity was written in
 * (2^30 for {"value": 44, "unit": "GiB"}), which the [unit-dependent]
 * formulas of mlsysim need (reference/solvers.md §11). */
int cat_parse_qty(const cat_errsink *es, const char *path, const json_t *v, ukind u, double *out, double *declared_out)
{
    double declared = 1.0;
    dimension want = unit_dim(u);
    const char *si_unit = cat_unit_si(u);
    char msg[400];
    double x = NAN;

    if (json_is_number(v)) {
        x = json_number_value(v);
    } else if (json_is_string(v)) {
        if (units_parse_as(json_string_value(v), want, si_unit, &x, msg, sizeof msg) != UNITS_OK)
            return cat_fail(es, path, "%s", msg);
        declared = declared_unit(json_string_value(v));
    } else if (json_is_object(v)) {
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m) {
            if (!cat_qty_key_ok(k))
                return cat_fail(es, path, "unknown key \"%s\" in a quantity (expected \"value\" and "
                                "\"unit\", optionally \"si\" and \"si_unit\")", k);
        }
        const json_t *val = json_object_get(v, "value");
        const json_t *unit = json_object_get(v, "unit");
        const json_t *si = json_object_get(v, "si");
        const json_t *siu = json_object_get(v, "si_unit");
        if (si != NULL && !json_is_number(si))
            return cat_fail(es, path, "\"si\" must be a number, got %s", cat_json_kind(si));
        /* "si" is in "si_unit" when that is given (normally the SI unit itself). */
        double si_val = si != NULL ? json_number_value(si) : NAN;
        if (siu != NULL) {
            double f;
            dimension d;
            if (!json_is_string(siu) ||
                units_parse_unit(json_string_value(siu), &f, &d, msg, sizeof msg) != UNITS_OK ||
                !dim_eq(d, want))
                return cat_fail(es, path, "\"si_unit\" must be %s", si_unit);
            si_val *= f;
        }
        if (val != NULL) {
            if (!json_is_number(val))
                return cat_fail(es, path, "\"value\" must be a number, got %s", cat_json_kind(val));
            if (unit != NULL && !json_is_string(unit))
                return cat_fail(es, path, "\"unit\" must be a string such as \"%s\", got %s",
                                cat_unit_example(u), cat_json_kind(unit));
            if (unit == NULL)
                return cat_fail(es, path, "a quantity object needs \"unit\" beside \"value\" "
                                "(e.g. {\"value\": 80, \"unit\": \"GiB\"})");
            char num[40], text[200];
            cat_fmt_num(num, sizeof num, json_number_value(val));
            snprintf(text, sizeof text, "%s %s", num, json_string_value(unit));
            if (units_parse_as(text, want, si_unit, &x, msg, sizeof msg) != UNITS_OK)
                return cat_fail(es, path, "%s", msg);
            declared = declared_unit(text);
            if (si != NULL) {
                /* The file states both: they must describe the same amount. */
                double s = si_val;
                double scale = fmax(fabs(s), fabs(x));
                if (fabs(s - x) > 1e-9 * scale) {
                    char a[40], b[40];
                    cat_fmt_num(a, sizeof a, s);
                    cat_fmt_num(b, sizeof b, x);
                    return cat_fail(es, path, "\"si\" %s does not agree with \"%s\" (= %s %s)",
                                    a, text, b, si_unit);
                }
                /* Use the stated SI value: it is what upstream's pint
                 * conversion gave, so the struct matches the reference to
                 * the last bit. */
                x = s;
            }
        } else if (si != NULL) {
            x = si_val;
        } else {
            return cat_fail(es, path, "a quantity object needs \"value\" and \"unit\" (e.g. "
                            "{\"value\": 80, \"unit\": \"GiB\"}) or \"si\"");
        }
    } else {
        return cat_fail(es, path, "expected a quantity in %s: a string such as \"%s\", "
                        "{\"value\": ..., \"unit\": ...} or a number in %s; got %s",
                        si_unit, cat_unit_example(u), si_unit, cat_json_kind(v));
    }
    if (!isfinite(x))
        return cat_fail(es, path, "not a finite number");
    if (x < 0) {
        char b[40];
        cat_fmt_num(b, sizeof b, x);
        return cat_fail(es, path, "must be non-negative, got %s %s", b, si_unit);
    }
    *out = x;
    if (declared_out != NULL)
        *declared_out = declared;
    return 0;
}
