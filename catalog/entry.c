/* entry.c - reading a catalog entry of any kind into its record, and
 * laying overrides over an entry, from the kind's field table (kinds.c).
 *
 * One reader (cat_extract) serves every source of entries - the embedded
 * files, the tutorial overlay, --catalog-dir files and inline request
 * objects - so the same spelling, units and checks apply everywhere. A
 * field name that is not in the table is an error: a typo in a request or
 * a catalog file must not be silently ignored. A reference to an entry of
 * another kind (a node's accelerator, a cluster's node) is handed to the
 * caller's resolver, which looks the id up in the right edition or reads
 * an inline object with this same reader. */
#include "catalog/catalog_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/model.h"
#include "core/units.h"

/* ---- units ------------------------------------------------------------ */

/* SI spelling (what a bare number means) and an example for messages. */
static const char *unit_si(ukind u)
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

static const char *unit_example(ukind u)
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

static const fspec *find_spec(const fspec *specs, const char *name)
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
static void fmt_num(char *buf, size_t n, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static const char *json_kind(const json_t *v)
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
static void join_path(char *out, size_t n, const char *prefix, const char *name)
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

typedef struct {
    char *field;
    size_t fieldlen;
    char *err;
    size_t errlen;
} errsink;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(const errsink *es, const char *path, const char *fmt, ...)
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
static int fail_unknown(const errsink *es, const fspec *specs, const char *prefix,
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
        join_path(sug, sizeof sug, prefix, best);
        return fail(es, shown, "unknown field (did you mean \"%s\"?)", sug);
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
        return fail(es, shown, "unknown field; the fields of %s are: %s", prefix, list);
    return fail(es, shown, "unknown field; the known fields are: %s", list);
}

/* ---- quantities --------------------------------------------------------- */

static bool qty_key_ok(const char *k)
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

/* Parse one quantity in SI units. Returns 0 or fail(). If `declared_out` is not
 * NULL it receives the SI value of the unit the quantity was written in
 * (2^30 for {"value": 44, "unit": "GiB"}), which the [unit-dependent]
 * formulas of mlsysim need (reference/solvers.md §11). */
static int parse_qty(const errsink *es, const char *path, const json_t *v, ukind u, double *out, double *declared_out)
{
    double declared = 1.0;
    dimension want = unit_dim(u);
    const char *si_unit = unit_si(u);
    char msg[400];
    double x = NAN;

    if (json_is_number(v)) {
        x = json_number_value(v);
    } else if (json_is_string(v)) {
        if (units_parse_as(json_string_value(v), want, si_unit, &x, msg, sizeof msg) != UNITS_OK)
            return fail(es, path, "%s", msg);
        declared = declared_unit(json_string_value(v));
    } else if (json_is_object(v)) {
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m) {
            if (!qty_key_ok(k))
                return fail(es, path, "unknown key \"%s\" in a quantity (expected \"value\" and "
                            "\"unit\", optionally \"si\" and \"si_unit\")", k);
        }
        const json_t *val = json_object_get(v, "value");
        const json_t *unit = json_object_get(v, "unit");
        const json_t *si = json_object_get(v, "si");
        const json_t *siu = json_object_get(v, "si_unit");
        if (si != NULL && !json_is_number(si))
            return fail(es, path, "\"si\" must be a number, got %s", json_kind(si));
        /* "si" is in "si_unit" when that is given (normally the SI unit itself). */
        double si_val = si != NULL ? json_number_value(si) : NAN;
        if (siu != NULL) {
            double f;
            dimension d;
            if (!json_is_string(siu) ||
                units_parse_unit(json_string_value(siu), &f, &d, msg, sizeof msg) != UNITS_OK ||
                !dim_eq(d, want))
                return fail(es, path, "\"si_unit\" must be %s", si_unit);
            si_val *= f;
        }
        if (val != NULL) {
            if (!json_is_number(val))
                return fail(es, path, "\"value\" must be a number, got %s", json_kind(val));
            if (unit != NULL && !json_is_string(unit))
                return fail(es, path, "\"unit\" must be a string such as \"%s\", got %s",
                            unit_example(u), json_kind(unit));
            if (unit == NULL)
                return fail(es, path, "a quantity object needs \"unit\" beside \"value\" "
                            "(e.g. {\"value\": 80, \"unit\": \"GiB\"})");
            char num[40], text[200];
            fmt_num(num, sizeof num, json_number_value(val));
            snprintf(text, sizeof text, "%s %s", num, json_string_value(unit));
            if (units_parse_as(text, want, si_unit, &x, msg, sizeof msg) != UNITS_OK)
                return fail(es, path, "%s", msg);
            declared = declared_unit(text);
            if (si != NULL) {
                /* The file states both: they must describe the same amount. */
                double s = si_val;
                double scale = fmax(fabs(s), fabs(x));
                if (fabs(s - x) > 1e-9 * scale) {
                    char a[40], b[40];
                    fmt_num(a, sizeof a, s);
                    fmt_num(b, sizeof b, x);
                    return fail(es, path, "\"si\" %s does not agree with \"%s\" (= %s %s)",
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
            return fail(es, path, "a quantity object needs \"value\" and \"unit\" (e.g. "
                        "{\"value\": 80, \"unit\": \"GiB\"}) or \"si\"");
        }
    } else {
        return fail(es, path, "expected a quantity in %s: a string such as \"%s\", "
                    "{\"value\": ..., \"unit\": ...} or a number in %s; got %s",
                    si_unit, unit_example(u), si_unit, json_kind(v));
    }
    if (!isfinite(x))
        return fail(es, path, "not a finite number");
    if (x < 0) {
        char b[40];
        fmt_num(b, sizeof b, x);
        return fail(es, path, "must be non-negative, got %s %s", b, si_unit);
    }
    *out = x;
    if (declared_out != NULL)
        *declared_out = declared;
    return 0;
}

/* ---- the walk ----------------------------------------------------------- */

/* The state of reading one entry: the record (fields stored at their
 * offset go there directly) and the slots of the hardware / workload
 * readers. */
struct cat_walk {
    errsink es;
    unsigned char *rec;
    const cat_resolver *res;
    bool have[S__N];
    double num[S__N];
    double unit[S__N];      /* T_QTY: SI value of the unit it was written in */
    const char *str[S__N];
    int n_prec;
    hw_precision_flops prec[HW_MAX_PRECISIONS];
};

static int walk_qmap(cat_walk *w, const char *path, const json_t *obj)
{
    if (json_is_null(obj))
        return 0;
    if (!json_is_object(obj))
        return fail(&w->es, path, "expected an object of precision -> flop/s (e.g. "
                    "{\"fp8\": \"1979 TFLOPs/s\"}), got %s", json_kind(obj));
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char sub[256], low[sizeof w->prec[0].name];
        join_path(sub, sizeof sub, path, k);
        size_t len = strlen(k);
        if (len == 0 || len >= sizeof low)
            return fail(&w->es, sub, "precision names are 1 to %zu characters", sizeof low - 1);
        for (size_t i = 0; i <= len; i++)
            low[i] = (char)tolower((unsigned char)k[i]);
        if (json_is_null(v))
            continue; /* null = this precision is absent */
        double x;
        int rc = parse_qty(&w->es, sub, v, U_FLOPS, &x, NULL);
        if (rc)
            return rc;
        for (int i = 0; i < w->n_prec; i++)
            if (strcmp(w->prec[i].name, low) == 0)
                return fail(&w->es, sub, "precision \"%s\" is given twice", low);
        if (w->n_prec >= HW_MAX_PRECISIONS)
            return fail(&w->es, sub, "at most %d precisions", HW_MAX_PRECISIONS);
        memcpy(w->prec[w->n_prec].name, low, len + 1);
        w->prec[w->n_prec].flops = x;
        w->n_prec++;
    }
    return 0;
}

/* Copy a string field into a fixed buffer; too long is an error, not a cut. */
static int put_str(const errsink *es, const char *path, char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        return fail(es, path, "at most %zu characters, got %zu", n - 1, len);
    memcpy(dst, src, len + 1);
    return 0;
}

/* Where field s goes in the record. */
static void *field_at(const cat_walk *w, const fspec *s)
{
    return w->rec + s->at - 1;
}

/* A quantity of any unit (display-only tables): as the reference writes it. */
static int check_qany(const errsink *es, const char *path, const json_t *v)
{
    const char *k;
    json_t *m;
    if (!json_is_object(v))
        return fail(es, path, "expected a quantity object {\"value\", \"unit\", \"si\", "
                    "\"si_unit\"}, got %s", json_kind(v));
    json_object_foreach((json_t *)v, k, m) {
        if (!qty_key_ok(k))
            return fail(es, path, "unknown key \"%s\" in a quantity", k);
    }
    if (!json_is_number(json_object_get(v, "value")) || !json_is_number(json_object_get(v, "si")) ||
        !json_is_string(json_object_get(v, "unit")) || !json_is_string(json_object_get(v, "si_unit")))
        return fail(es, path, "a quantity here needs \"value\" and \"si\" (numbers), \"unit\" "
                    "and \"si_unit\" (strings)");
    return 0;
}

/* A reference field: the resolver reads it (an id or an inline object)
 * into the record; its messages are relative to the value, so say them
 * from here ("node" + "accelerator: unknown hardware ..."). */
static int walk_ref(cat_walk *w, const fspec *s, const char *path, const json_t *v)
{
    const catalog_kind *k = catalog_kind_of(s->ref);
    if (!json_is_string(v) && !json_is_object(v))
        return fail(&w->es, path, "expected a %s id (e.g. \"%s\") or an object, got %s",
                    k->singular, k->example, json_kind(v));
    if (w->res == NULL)
        return fail(&w->es, path, "references cannot be resolved here");
    char sub[200] = "", msg[512] = "";
    int rc = w->res->fn(w->res->ctx, k, v, field_at(w, s), sub, sizeof sub, msg, sizeof msg);
    if (rc != 0) {
        size_t sl = strlen(sub);
        const char *what = msg;
        if (sl > 0 && strncmp(msg, sub, sl) == 0 && msg[sl] == ':' && msg[sl + 1] == ' ')
            what = msg + sl + 2;
        char full[256];
        if (sl > 0)
            join_path(full, sizeof full, path, sub);
        else
            snprintf(full, sizeof full, "%s", path);
        fail(&w->es, full, "%s", what);
        return rc;
    }
    if (s->has_at)
        *(bool *)(w->rec + s->has_at - 1) = true;
    return 0;
}

static int walk_int(cat_walk *w, const fspec *s, const char *path, const json_t *v)
{
    double x;
    if (json_is_integer(v)) {
        json_int_t iv = json_integer_value(v);
        if (iv < s->imin)
            return fail(&w->es, path, "expected a whole number >= %d, got %lld", s->imin,
                        (long long)iv);
        if (iv > INT_MAX)
            return fail(&w->es, path, "expected a whole number from %d to %d, got %lld", s->imin,
                        INT_MAX, (long long)iv);
        x = (double)iv;
    } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
               json_real_value(v) >= s->imin && json_real_value(v) <= INT_MAX) {
        x = json_real_value(v);
    } else {
        char b[40] = "";
        if (json_is_number(v))
            fmt_num(b, sizeof b, json_number_value(v));
        return fail(&w->es, path, "expected a whole number >= %d, got %s", s->imin,
                    json_is_number(v) ? b : json_kind(v));
    }
    w->num[s->slot] = x;
    w->have[s->slot] = true;
    if (s->at)
        *(int *)field_at(w, s) = (int)x;
    return 0;
}

static int walk_obj(cat_walk *w, const fspec *specs, const json_t *obj, const char *prefix)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char path[256];
        join_path(path, sizeof path, prefix, k);
        const fspec *s = find_spec(specs, k);
        if (s == NULL)
            return fail_unknown(&w->es, specs, prefix, k, path);
        int rc = 0;
        switch (s->type) {
        case T_QTY:
            if (json_is_null(v))
                break;
            rc = parse_qty(&w->es, path, v, s->unit, &w->num[s->slot], &w->unit[s->slot]);
            if (rc == 0) {
                w->have[s->slot] = true;
                if (s->at)
                    *(double *)field_at(w, s) = w->num[s->slot];
            }
            break;
        case T_QANY:
            if (!json_is_null(v))
                rc = check_qany(&w->es, path, v);
            break;
        case T_INT:
            if (!json_is_null(v))
                rc = walk_int(w, s, path, v);
            break;
        case T_NUM:
            if (!json_is_null(v) && !json_is_number(v))
                return fail(&w->es, path, "expected a number, got %s", json_kind(v));
            if (s->at && !json_is_null(v))
                *(double *)field_at(w, s) = json_number_value(v);
            break;
        case T_STR:
            if (json_is_null(v))
                break;
            if (!json_is_string(v))
                return fail(&w->es, path, "expected a string, got %s", json_kind(v));
            if (s->choices != NULL) {
                bool ok = false;
                for (const char *const *c = s->choices; *c != NULL; c++)
                    ok = ok || strcmp(*c, json_string_value(v)) == 0;
                if (!ok)
                    return fail(&w->es, path, "expected \"%s\" or \"%s\", got \"%s\"",
                                s->choices[0], s->choices[1], json_string_value(v));
            }
            w->str[s->slot] = json_string_value(v);
            w->have[s->slot] = true;
            if (s->at)
                rc = put_str(&w->es, path, field_at(w, s), s->size, json_string_value(v));
            break;
        case T_BOOL:
            if (!json_is_null(v) && !json_is_boolean(v))
                return fail(&w->es, path, "expected true or false, got %s", json_kind(v));
            break;
        case T_OBJ:
            if (json_is_null(v))
                break;
            if (!json_is_object(v))
                return fail(&w->es, path, "expected an object or null, got %s", json_kind(v));
            w->have[s->slot] = true;
            rc = walk_obj(w, s->sub, v, path);
            break;
        case T_QMAP:
            rc = walk_qmap(w, path, v);
            break;
        case T_REF:
            if (!json_is_null(v))
                rc = walk_ref(w, s, path, v);
            break;
        case T_ANY:
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static double slot_q(const cat_walk *w, int slot)
{
    return w->have[slot] ? w->num[slot] : NAN;
}

static int slot_i(const cat_walk *w, int slot)
{
    return w->have[slot] ? (int)w->num[slot] : 0;
}

static int need(const cat_walk *w, int slot, const char *path, ukind u, const char *why)
{
    if (w->have[slot])
        return 0;
    if (u == U_NONE)
        return fail(&w->es, path, "required %s (a whole number)", why);
    return fail(&w->es, path, "required %s (e.g. \"%s\")", why, unit_example(u));
}

static int fill_ids(const cat_walk *w, char *key, char *id, char *name, char *group,
                    size_t idlen, size_t grouplen)
{
    int rc;
    if (!w->have[S_KEY] || w->str[S_KEY][0] == '\0')
        return fail(&w->es, "key", "required: the entry's short key (e.g. \"A100\")");
    if ((rc = put_str(&w->es, "key", key, idlen, w->str[S_KEY])) != 0)
        return rc;
    /* id (mlsysim path) and name default to the key. */
    if ((rc = put_str(&w->es, "id", id, idlen, w->have[S_ID] ? w->str[S_ID] : key)) != 0)
        return rc;
    if ((rc = put_str(&w->es, "name", name, idlen, w->have[S_NAME] ? w->str[S_NAME] : key)) != 0)
        return rc;
    if (group == NULL)
        return 0;
    return put_str(&w->es, "group", group, grouplen, w->have[S_GROUP] ? w->str[S_GROUP] : "");
}

int cat_fill_hardware(cat_walk *w, void *rec)
{
    hw_node *hw = rec;
    int rc;
    memset(hw, 0, sizeof *hw);
    if ((rc = fill_ids(w, hw->key, hw->id, hw->name, hw->group, ID_LEN, sizeof hw->group)) != 0)
        return rc;
    /* Required by HardwareNode / ComputeCore / MemoryHierarchy
     * (hardware/types.py @034a583b): peak_flops, capacity, bandwidth. */
    if ((rc = need(w, S_PEAK, "compute.peak_flops", U_FLOPS, "for hardware")) != 0 ||
        (rc = need(w, S_MEM_CAP, "memory.capacity", U_B, "for hardware")) != 0 ||
        (rc = need(w, S_MEM_BW, "memory.bandwidth", U_BPS, "for hardware")) != 0)
        return rc;
    /* A storage tier, host link or NVLink that is given needs its numbers:
     * the solvers read storage.bandwidth / interconnect.bandwidth /
     * nvlink.bandwidth whenever the object is defined (StorageTier and
     * IOInterconnect have no defaults for them). */
    if (w->have[S_STORAGE] &&
        ((rc = need(w, S_STO_CAP, "storage.capacity", U_B, "when storage is given")) != 0 ||
         (rc = need(w, S_STO_BW, "storage.bandwidth", U_BPS, "when storage is given")) != 0))
        return rc;
    if (w->have[S_IC] &&
        (rc = need(w, S_IC_BW, "interconnect.bandwidth", U_BPS, "when interconnect is given")) != 0)
        return rc;
    if (w->have[S_NV] &&
        (rc = need(w, S_NV_BW, "nvlink.bandwidth", U_BPS, "when nvlink is given")) != 0)
        return rc;
    hw->release_year = slot_i(w, S_YEAR);
    hw->peak_flops = w->num[S_PEAK];
    hw->n_precisions = w->n_prec;
    memcpy(hw->precisions, w->prec, sizeof w->prec);
    hw->mem_capacity = w->num[S_MEM_CAP];
    hw->mem_capacity_unit = w->unit[S_MEM_CAP];
    hw->mem_bandwidth = w->num[S_MEM_BW];
    hw->sram_capacity = slot_q(w, S_SRAM_CAP);
    hw->sram_bandwidth = slot_q(w, S_SRAM_BW);
    hw->flash_capacity = slot_q(w, S_FLASH_CAP);
    hw->flash_bandwidth = slot_q(w, S_FLASH_BW);
    hw->has_storage = w->have[S_STORAGE];
    hw->storage_capacity = hw->has_storage ? slot_q(w, S_STO_CAP) : NAN;
    hw->storage_bandwidth = hw->has_storage ? slot_q(w, S_STO_BW) : NAN;
    hw->has_interconnect = w->have[S_IC];
    hw->interconnect_bw = hw->has_interconnect ? slot_q(w, S_IC_BW) : NAN;
    if (hw->has_interconnect && w->have[S_IC_NAME] &&
        (rc = put_str(&w->es, "interconnect.name", hw->interconnect_name,
                      sizeof hw->interconnect_name, w->str[S_IC_NAME])) != 0)
        return rc;
    hw->has_nvlink = w->have[S_NV];
    hw->nvlink_bw = hw->has_nvlink ? slot_q(w, S_NV_BW) : NAN;
    hw->nvlink_latency = hw->has_nvlink ? slot_q(w, S_NV_LAT) : NAN;
    hw->tdp = slot_q(w, S_TDP);
    hw->unit_cost = slot_q(w, S_COST);
    /* HardwareNode.dispatch_tax defaults to 0.01 ms (hardware/types.py). */
    hw->dispatch_tax = w->have[S_DISPATCH] ? w->num[S_DISPATCH] : 0.01e-3;
    return 0;
}

int cat_fill_model(cat_walk *w, void *rec)
{
    model_t *m = rec;
    int rc;
    memset(m, 0, sizeof *m);
    if ((rc = fill_ids(w, m->key, m->id, m->name, m->group, ID_LEN, sizeof m->group)) != 0)
        return rc;
    /* "type" is the Workload class; absent = the base Workload. */
    m->kind = WL_GENERIC;
    if (w->have[S_TYPE] && !workload_kind_parse(w->str[S_TYPE], &m->kind))
        return fail(&w->es, "type", "expected one of Workload, TransformerWorkload, "
                    "SparseTransformerWorkload, CNNWorkload, SSMWorkload, DiffusionWorkload, "
                    "EmbodiedWorkload; got \"%s\"", w->str[S_TYPE]);
    if (w->have[S_ARCH] &&
        (rc = put_str(&w->es, "architecture", m->architecture, sizeof m->architecture,
                      w->str[S_ARCH])) != 0)
        return rc;
    m->parameters = slot_q(w, S_PARAMS);
    m->inference_flops = slot_q(w, S_FLOPS);
    m->model_size = slot_q(w, S_SIZE);
    m->active_parameters = slot_q(w, S_ACTIVE);
    m->layers = slot_i(w, S_LAYERS);
    m->hidden_dim = slot_i(w, S_HIDDEN);
    m->heads = slot_i(w, S_HEADS);
    m->kv_heads = slot_i(w, S_KV_HEADS);
    m->kv_lora_rank = slot_i(w, S_KV_LORA);
    m->qk_rope_head_dim = slot_i(w, S_QK_ROPE);
    m->experts = slot_i(w, S_EXPERTS);
    m->active_experts_per_token = slot_i(w, S_ACTIVE_EXPERTS);
    m->state_size = slot_i(w, S_STATE);
    m->denoising_steps = slot_i(w, S_DENOISE);
    m->architecture_flops = slot_q(w, S_ARCH_FLOPS);
    m->activation_elements = slot_q(w, S_ACT_ELEMS);
    m->architecture_layers = slot_i(w, S_ARCH_LAYERS);

    /* Required fields per class, after the pydantic models in
     * models/types.py @087dd538 (fields without a default). */
    const char *tn = workload_kind_name(m->kind);
    char why[80];
    snprintf(why, sizeof why, "for a %s", tn);
    switch (m->kind) {
    case WL_TRANSFORMER:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_LAYERS, "layers", U_NONE, why)) != 0)
            return rc;
        break;
    case WL_SPARSE_TRANSFORMER:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_LAYERS, "layers", U_NONE, why)) != 0 ||
            (rc = need(w, S_ACTIVE, "active_parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_EXPERTS, "experts", U_NONE, why)) != 0)
            return rc;
        /* SparseTransformerWorkload.active_experts_per_token defaults to 1. */
        if (!w->have[S_ACTIVE_EXPERTS])
            m->active_experts_per_token = 1;
        break;
    case WL_CNN:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_FLOPS, "inference_flops", U_FLOP, why)) != 0)
            return rc;
        break;
    case WL_SSM:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_LAYERS, "layers", U_NONE, why)) != 0 ||
            (rc = need(w, S_STATE, "state_size", U_NONE, why)) != 0 ||
            (rc = need(w, S_HIDDEN, "hidden_dim", U_NONE, why)) != 0)
            return rc;
        break;
    case WL_DIFFUSION:
        if ((rc = need(w, S_PARAMS, "parameters", U_COUNT, why)) != 0 ||
            (rc = need(w, S_DENOISE, "denoising_steps", U_NONE, why)) != 0)
            return rc;
        break;
    case WL_GENERIC:
    case WL_EMBODIED:
        /* Workload.lower()/size_in_bytes() need one of the two. */
        if (!w->have[S_PARAMS] && !w->have[S_SIZE])
            return fail(&w->es, "parameters", "required for a %s: parameters (e.g. \"%s\") "
                        "or model_size (e.g. \"100 GB\")", tn, unit_example(U_COUNT));
        break;
    }
    return 0;
}

/* Type defaults of the fields stored at an offset. */
static void put_defaults(cat_walk *w, const fspec *fields)
{
    for (const fspec *s = fields; s->name != NULL; s++) {
        if (!s->at)
            continue;
        switch (s->type) {
        case T_QTY:
        case T_NUM:
            *(double *)field_at(w, s) = s->def;
            break;
        case T_INT:
            *(int *)field_at(w, s) = s->idef;
            break;
        case T_STR:
            snprintf(field_at(w, s), s->size, "%s", s->def_str ? s->def_str : "");
            break;
        default:
            break;
        }
    }
}

/* The generic reader's last step: identity, then the required fields
 * (given and not null; the walk has stored every given value). */
static int fill_generic(cat_walk *w, const catalog_kind *k, const json_t *entry)
{
    rec_ident *id = (rec_ident *)w->rec;
    int rc = fill_ids(w, id->key, id->id, id->name, NULL, ID_LEN, 0);
    if (rc != 0)
        return rc;
    for (const fspec *s = k->fields; s->name != NULL; s++) {
        const json_t *v = json_object_get(entry, s->name);
        if (!s->required || (v != NULL && !json_is_null(v)))
            continue;
        switch (s->type) {
        case T_REF: {
            const catalog_kind *r = catalog_kind_of(s->ref);
            return fail(&w->es, s->name, "required: a %s id (e.g. \"%s\") or an object",
                        r->singular, r->example);
        }
        case T_QTY:
            return fail(&w->es, s->name, "required (e.g. \"%s\")", unit_example(s->unit));
        case T_INT:
            return fail(&w->es, s->name, "required (a whole number >= %d)", s->imin);
        default:
            return fail(&w->es, s->name, "required");
        }
    }
    return 0;
}

int cat_extract(const catalog_kind *k, const json_t *entry, void *out, const cat_resolver *r,
                char *field, size_t fieldlen, char *err, size_t errlen)
{
    cat_walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return 500;
    w->es = (errsink){field, fieldlen, err, errlen};
    w->rec = out;
    w->res = r;
    memset(out, 0, k->size);
    put_defaults(w, k->fields);
    int rc;
    if (!json_is_object(entry))
        rc = fail(&w->es, "", "expected an object, got %s", json_kind(entry));
    else
        rc = walk_obj(w, k->fields, entry, "");
    if (rc == 0)
        rc = k->fill != NULL ? k->fill(w, out) : fill_generic(w, k, entry);
    free(w);
    return rc;
}

/* ---- merging overrides -------------------------------------------------- */

/* The child object `name` of `parent`, made private to `parent` (shallow
 * copy) so that changing it does not touch a shared catalog entry; a new
 * empty object if it is absent, null or not an object. */
static json_t *own_child(json_t *parent, const char *name)
{
    json_t *c = json_object_get(parent, name);
    json_t *n = json_is_object(c) ? json_copy(c) : json_object();
    if (n == NULL || json_object_set_new(parent, name, n) != 0)
        return NULL;
    return n;
}

static int set_member(json_t *obj, const char *name, json_t *v)
{
    return json_object_set(obj, name, v) == 0 ? 0 : 500;
}

static int merge_qmap(const errsink *es, json_t *target, const char *path, const char *name,
                      json_t *v)
{
    char sub[256], low[64];
    size_t len = strlen(name);
    join_path(sub, sizeof sub, path, name);
    if (len == 0 || len >= sizeof low)
        return fail(es, sub, "precision names are 1 to 23 characters");
    for (size_t i = 0; i <= len; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    if (json_is_null(v)) {
        json_object_del(target, low);
        return 0;
    }
    return set_member(target, low, v);
}

static int merge_obj(const errsink *es, const fspec *specs, json_t *target, const json_t *src,
                     const char *prefix, const char *skip);

/* Set one (possibly dotted) member `name` = v in `target` whose fields are
 * `specs` (NULL: target is a precision map). */
static int merge_member(const errsink *es, const fspec *specs, json_t *target, const char *prefix,
                        const char *name, json_t *v)
{
    char shown[256];
    join_path(shown, sizeof shown, prefix, name);
    const char *dot = strchr(name, '.');
    char seg[128];
    size_t seglen = dot ? (size_t)(dot - name) : strlen(name);
    if (seglen == 0 || seglen >= sizeof seg || (dot && dot[1] == '\0'))
        return fail(es, shown, "not a field name");
    memcpy(seg, name, seglen);
    seg[seglen] = '\0';

    if (specs == NULL) { /* inside precision_flops: names are precisions */
        if (dot)
            return fail(es, shown, "a precision takes a flop/s quantity, not sub-fields");
        return merge_qmap(es, target, prefix, seg, v);
    }
    const fspec *s = find_spec(specs, seg);
    if (s == NULL) {
        char segpath[256];
        join_path(segpath, sizeof segpath, prefix, seg);
        return fail_unknown(es, specs, prefix, seg, dot ? shown : segpath);
    }
    char path[256];
    join_path(path, sizeof path, prefix, seg);
    bool nested = s->type == T_OBJ || s->type == T_QMAP;
    if (dot) {
        if (!nested)
            return fail(es, shown, "%s is not an object; it has no field \"%s\"", path, dot + 1);
        json_t *child = own_child(target, seg);
        if (child == NULL)
            return 500;
        return merge_member(es, s->type == T_OBJ ? s->sub : NULL, child, path, dot + 1, v);
    }
    if (nested && json_is_object(v)) {
        json_t *child = own_child(target, seg);
        if (child == NULL)
            return 500;
        return merge_obj(es, s->type == T_OBJ ? s->sub : NULL, child, v, path, NULL);
    }
    /* Leaf (or null / a wrong type, which cat_extract reports). */
    return set_member(target, seg, v);
}

static int merge_obj(const errsink *es, const fspec *specs, json_t *target, const json_t *src,
                     const char *prefix, const char *skip)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)src, k, v) {
        if (skip != NULL && strcmp(k, skip) == 0)
            continue;
        int rc = merge_member(es, specs, target, prefix, k, v);
        if (rc)
            return rc;
    }
    return 0;
}

int cat_merge(const catalog_kind *k, json_t *target, const json_t *src, const char *skip,
              char *field, size_t fieldlen, char *err, size_t errlen)
{
    errsink es = {field, fieldlen, err, errlen};
    if (!json_is_object(src))
        return fail(&es, "", "expected an object, got %s", json_kind(src));
    return merge_obj(&es, k->fields, target, src, "", skip);
}

json_t *cat_path_get(json_t *entry, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    json_t *cur = entry;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg != NULL; seg = strtok_r(NULL, ".", &save)) {
        if (!json_is_object(cur))
            return NULL;
        cur = json_object_get(cur, seg);
    }
    return cur;
}

const char *cat_field_si_unit(const catalog_kind *k, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    const fspec *specs = k->fields;
    const fspec *s = NULL;
    bool in_map = false;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg != NULL; seg = strtok_r(NULL, ".", &save)) {
        if (in_map)
            return unit_si(U_FLOPS);
        if (specs == NULL)
            return NULL;
        s = find_spec(specs, seg);
        if (s == NULL)
            return NULL;
        in_map = s->type == T_QMAP;
        specs = s->type == T_OBJ ? s->sub : NULL;
    }
    return s != NULL && s->type == T_QTY ? unit_si(s->unit) : NULL;
}

/* ---- list-view summaries ------------------------------------------------ */

static json_t *opt_real(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

/* A key figure read from a record. */
static json_t *record_figure(const fspec *s, const unsigned char *rec, json_t *units)
{
    const void *p = rec + s->at - 1;
    switch (s->type) {
    case T_QTY:
        json_object_set_new(units, s->name, json_string(unit_si(s->unit)));
        return opt_real(*(const double *)p);
    case T_NUM:
        return opt_real(*(const double *)p);
    case T_INT:
        return json_integer(*(const int *)p);
    case T_STR:
        return json_string(p);
    case T_REF:
        if (s->has_at && !*(const bool *)(rec + s->has_at - 1))
            return json_null();
        return json_string(((const rec_ident *)p)->key);
    default:
        return json_null();
    }
}

/* A key figure read from an entry: a quantity as its SI value. */
static json_t *entry_figure(const fspec *s, const json_t *v, json_t *units)
{
    if (json_is_null(v))
        return json_null();
    if (s->type == T_QTY) {
        double x;
        errsink quiet = {NULL, 0, NULL, 0};
        json_object_set_new(units, s->name, json_string(unit_si(s->unit)));
        return parse_qty(&quiet, s->name, v, s->unit, &x, NULL) == 0 ? json_real(x) : json_null();
    }
    if (s->type == T_QANY) {
        json_object_set(units, s->name, json_object_get(v, "si_unit"));
        return json_copy(json_object_get(v, "si"));
    }
    return json_deep_copy(v);
}

json_t *cat_summary(const catalog_kind *k, const void *rec, const json_t *entry)
{
    const rec_ident *id = rec;
    json_t *o = json_object(), *units = json_object();
    json_object_set_new(o, "key", json_string(id->key));
    json_object_set_new(o, "id", json_string(id->id));
    json_object_set_new(o, "name", json_string(id->name));
    const json_t *g = entry != NULL ? json_object_get(entry, "group") : NULL;
    if (json_is_string(g))
        json_object_set(o, "group", (json_t *)g);
    for (const fspec *s = k->fields; s->name != NULL; s++) {
        if (!s->summary)
            continue;
        if (k->record >= 0 && s->at) {
            json_object_set_new(o, s->name, record_figure(s, rec, units));
            continue;
        }
        /* Display-only tables mix shapes (a group's fields): show what is there. */
        const json_t *v = json_object_get(entry, s->name);
        if (v != NULL)
            json_object_set_new(o, s->name, entry_figure(s, v, units));
    }
    if (json_object_size(units) > 0)
        json_object_set_new(o, "units", units);
    else
        json_decref(units);
    return o;
}
