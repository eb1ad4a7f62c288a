/* entry.c - the catalog entry format: field table, reading an entry into the
 * solver structs, and laying overrides over an entry.
 *
 * One reader (cat_extract) serves every source of entries - the embedded
 * files, the tutorial overlay, --catalog-dir files and inline request
 * objects - so the same spelling, units and checks apply everywhere.
 *
 * The field table is the format of the catalog/data JSON files, i.e. of mlsysim's
 * HardwareNode (hardware/types.py @034a583b: ComputeCore, MemoryHierarchy,
 * StorageTier, IOInterconnect; YAML data under hardware/data/) and Workload
 * family (models/types.py @087dd538; models/data YAML files), plus the
 * bookkeeping fields the extraction added ("source", "*_defaulted",
 * "ridge_point_flop_per_byte", "bandwidth_per_direction"). A field name that
 * is not in the table is an error: a typo in a request or a catalog file
 * must not be silently ignored. */
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

/* ---- field table ------------------------------------------------------- */

typedef enum {
    T_QTY,   /* quantity: {"value","unit"[,"si","si_unit"]}, "80 GiB" or SI number */
    T_INT,   /* whole number >= 0                                             */
    T_NUM,   /* plain number                                                  */
    T_STR,   /* string                                                        */
    T_BOOL,
    T_OBJ,   /* nested object with its own field table, or null               */
    T_QMAP,  /* object of name -> flop/s quantity (precision_flops)           */
    T_ANY    /* kept for display, not interpreted (provenance, mig_profiles)  */
} ftype;

typedef enum { U_NONE, U_FLOPS, U_FLOP, U_B, U_BPS, U_S, U_W, U_J, U_USD, U_COUNT, U_HZ } ukind;

/* Struct slots: where a field's value goes. */
enum {
    S_NONE = 0,
    S_KEY, S_ID, S_NAME, S_GROUP, S_YEAR,
    S_PEAK, S_MEM_CAP, S_MEM_BW, S_SRAM_CAP, S_SRAM_BW, S_FLASH_CAP, S_FLASH_BW,
    S_STORAGE, S_STO_CAP, S_STO_BW,
    S_IC, S_IC_NAME, S_IC_BW,
    S_NV, S_NV_BW, S_NV_LAT,
    S_TDP, S_COST, S_DISPATCH,
    S_TYPE, S_ARCH, S_PARAMS, S_FLOPS, S_SIZE, S_ACTIVE,
    S_LAYERS, S_HIDDEN, S_HEADS, S_KV_HEADS, S_EXPERTS, S_ACTIVE_EXPERTS, S_STATE, S_DENOISE,
    S__N
};

typedef struct fspec {
    const char *name;
    ftype type;
    ukind unit;
    int slot;
    const struct fspec *sub;       /* T_OBJ */
    const char *const *choices;    /* T_STR with a closed set of values */
} fspec;

#define F_QTY(n, u, s) {n, T_QTY, u, s, NULL, NULL}
#define F_INT(n, s) {n, T_INT, U_NONE, s, NULL, NULL}
#define F_NUM(n) {n, T_NUM, U_NONE, S_NONE, NULL, NULL}
#define F_STR(n, s) {n, T_STR, U_NONE, s, NULL, NULL}
#define F_ENUM(n, c) {n, T_STR, U_NONE, S_NONE, NULL, c}
#define F_BOOL(n) {n, T_BOOL, U_NONE, S_NONE, NULL, NULL}
#define F_OBJ(n, sub, s) {n, T_OBJ, U_NONE, s, sub, NULL}
#define F_ANY(n) {n, T_ANY, U_NONE, S_NONE, NULL, NULL}
#define F_END {NULL, T_ANY, U_NONE, S_NONE, NULL, NULL}

/* IOInterconnect.direction (hardware/types.py): how "bandwidth" is meant. */
static const char *const directions[] = {"per_direction", "bidirectional_total", NULL};

static const fspec compute_fields[] = {
    F_QTY("peak_flops", U_FLOPS, S_PEAK),
    {"precision_flops", T_QMAP, U_FLOPS, S_NONE, NULL, NULL},
    F_INT("sm_count", S_NONE),
    F_QTY("clock_rate", U_HZ, S_NONE),
    F_END,
};
static const fspec memory_fields[] = {
    F_QTY("capacity", U_B, S_MEM_CAP),
    F_QTY("bandwidth", U_BPS, S_MEM_BW),
    F_QTY("sram_capacity", U_B, S_SRAM_CAP),
    F_QTY("sram_bandwidth", U_BPS, S_SRAM_BW),
    F_QTY("flash_capacity", U_B, S_FLASH_CAP),
    F_QTY("flash_bandwidth", U_BPS, S_FLASH_BW),
    F_QTY("l2_cache", U_B, S_NONE),
    F_QTY("register_file_per_sm", U_B, S_NONE),
    F_QTY("shared_memory_per_sm", U_B, S_NONE),
    F_END,
};
static const fspec storage_fields[] = {
    F_QTY("capacity", U_B, S_STO_CAP),
    F_QTY("bandwidth", U_BPS, S_STO_BW),
    F_QTY("latency", U_S, S_NONE),
    F_END,
};
static const fspec interconnect_fields[] = {
    F_STR("name", S_IC_NAME),
    F_QTY("bandwidth", U_BPS, S_IC_BW),
    F_QTY("latency", U_S, S_NONE),
    F_ENUM("direction", directions),
    F_BOOL("direction_defaulted"),
    F_QTY("bandwidth_per_direction", U_BPS, S_NONE),
    F_END,
};
static const fspec nvlink_fields[] = {
    F_STR("name", S_NONE),
    F_QTY("bandwidth", U_BPS, S_NV_BW),
    F_QTY("latency", U_S, S_NV_LAT),
    F_ENUM("direction", directions),
    F_BOOL("direction_defaulted"),
    F_QTY("bandwidth_per_direction", U_BPS, S_NONE),
    F_END,
};
static const fspec hardware_fields[] = {
    F_STR("key", S_KEY),
    F_STR("id", S_ID),
    F_STR("name", S_NAME),
    F_STR("group", S_GROUP),
    F_INT("release_year", S_YEAR),
    F_OBJ("compute", compute_fields, S_NONE),
    F_OBJ("memory", memory_fields, S_NONE),
    F_OBJ("storage", storage_fields, S_STORAGE),
    F_OBJ("interconnect", interconnect_fields, S_IC),
    F_OBJ("nvlink", nvlink_fields, S_NV),
    F_QTY("tdp", U_W, S_TDP),
    F_QTY("tdp_min", U_W, S_NONE),
    F_QTY("tdp_max", U_W, S_NONE),
    F_QTY("battery_capacity", U_J, S_NONE),
    F_QTY("unit_cost", U_USD, S_COST),
    F_QTY("unit_cost_max", U_USD, S_NONE),
    F_INT("accelerator_count", S_NONE),
    F_NUM("embodied_carbon_kg"),
    F_QTY("dispatch_tax", U_S, S_DISPATCH),
    F_BOOL("dispatch_tax_defaulted"),
    F_ANY("mig_profiles"),
    F_ANY("provenance"),
    F_NUM("ridge_point_flop_per_byte"),
    F_ANY("source"),
    F_ANY("edition_overrides"),
    F_END,
};
static const fspec model_fields[] = {
    F_STR("key", S_KEY),
    F_STR("id", S_ID),
    F_STR("name", S_NAME),
    F_STR("group", S_GROUP),
    F_STR("type", S_TYPE),
    F_STR("architecture", S_ARCH),
    F_QTY("parameters", U_COUNT, S_PARAMS),
    F_QTY("inference_flops", U_FLOP, S_FLOPS),
    F_QTY("model_size", U_B, S_SIZE),
    F_QTY("active_parameters", U_COUNT, S_ACTIVE),
    F_INT("layers", S_LAYERS),
    F_INT("hidden_dim", S_HIDDEN),
    F_INT("heads", S_HEADS),
    F_INT("kv_heads", S_KV_HEADS),
    F_INT("experts", S_EXPERTS),
    F_INT("active_experts_per_token", S_ACTIVE_EXPERTS),
    F_INT("state_size", S_STATE),
    F_INT("denoising_steps", S_DENOISE),
    F_INT("kv_lora_rank", S_NONE),
    F_INT("qk_rope_head_dim", S_NONE),
    F_INT("resolution", S_NONE),
    F_INT("action_chunk_horizon", S_NONE),
    F_INT("action_dim", S_NONE),
    F_QTY("embedding_entries", U_COUNT, S_NONE),
    F_QTY("inference_energy", U_J, S_NONE),
    F_QTY("parameter_range_min", U_COUNT, S_NONE),
    F_QTY("parameter_range_max", U_COUNT, S_NONE),
    F_QTY("training_accelerators_ref", U_COUNT, S_NONE),
    F_QTY("training_dataset_size", U_B, S_NONE),
    F_QTY("training_days_ref", U_S, S_NONE),
    F_QTY("training_energy_mwh", U_J, S_NONE),
    F_NUM("training_gpu_days"),
    F_STR("training_hardware_label", S_NONE),
    F_QTY("training_ops", U_FLOP, S_NONE),
    F_QTY("training_tokens", U_COUNT, S_NONE),
    F_ANY("provenance"),
    F_ANY("source"),
    F_ANY("edition_overrides"),
    F_END,
};

static const fspec *kind_fields(catalog_kind kind)
{
    return kind == CAT_HARDWARE ? hardware_fields : model_fields;
}

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

/* Parse one quantity in SI units. Returns 0 or fail(). */
static int parse_qty(const errsink *es, const char *path, const json_t *v, ukind u, double *out)
{
    dimension want = unit_dim(u);
    const char *si_unit = unit_si(u);
    char msg[400];
    double x = NAN;

    if (json_is_number(v)) {
        x = json_number_value(v);
    } else if (json_is_string(v)) {
        if (units_parse_as(json_string_value(v), want, si_unit, &x, msg, sizeof msg) != UNITS_OK)
            return fail(es, path, "%s", msg);
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
    return 0;
}

/* ---- the walk ----------------------------------------------------------- */

typedef struct {
    errsink es;
    bool have[S__N];
    double num[S__N];
    const char *str[S__N];
    int n_prec;
    hw_precision_flops prec[HW_MAX_PRECISIONS];
} walk;

static int walk_qmap(walk *w, const char *path, const json_t *obj)
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
        int rc = parse_qty(&w->es, sub, v, U_FLOPS, &x);
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

static int walk_obj(walk *w, const fspec *specs, const json_t *obj, const char *prefix)
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
            rc = parse_qty(&w->es, path, v, s->unit, &w->num[s->slot]);
            if (rc == 0)
                w->have[s->slot] = true;
            break;
        case T_INT:
            if (json_is_null(v))
                break;
            if (json_is_integer(v)) {
                json_int_t iv = json_integer_value(v);
                if (iv < 0 || iv > INT_MAX)
                    return fail(&w->es, path, "expected a whole number from 0 to %d, got %lld",
                                INT_MAX, (long long)iv);
                w->num[s->slot] = (double)iv;
            } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
                       json_real_value(v) >= 0 && json_real_value(v) <= INT_MAX) {
                w->num[s->slot] = json_real_value(v);
            } else {
                char b[40] = "";
                if (json_is_number(v))
                    fmt_num(b, sizeof b, json_number_value(v));
                return fail(&w->es, path, "expected a whole number >= 0, got %s",
                            json_is_number(v) ? b : json_kind(v));
            }
            w->have[s->slot] = true;
            break;
        case T_NUM:
            if (!json_is_null(v) && !json_is_number(v))
                return fail(&w->es, path, "expected a number, got %s", json_kind(v));
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
        case T_ANY:
            break;
        }
        if (rc)
            return rc;
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

static double slot_q(const walk *w, int slot)
{
    return w->have[slot] ? w->num[slot] : NAN;
}

static int slot_i(const walk *w, int slot)
{
    return w->have[slot] ? (int)w->num[slot] : 0;
}

static int need(const walk *w, int slot, const char *path, ukind u, const char *why)
{
    if (w->have[slot])
        return 0;
    if (u == U_NONE)
        return fail(&w->es, path, "required %s (a whole number)", why);
    return fail(&w->es, path, "required %s (e.g. \"%s\")", why, unit_example(u));
}

static int fill_ids(const walk *w, char *key, char *id, char *name, char *group,
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
    return put_str(&w->es, "group", group, grouplen, w->have[S_GROUP] ? w->str[S_GROUP] : "");
}

static int fill_hw(walk *w, hw_node *hw)
{
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

static int fill_model(walk *w, model_t *m)
{
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
    m->experts = slot_i(w, S_EXPERTS);
    m->active_experts_per_token = slot_i(w, S_ACTIVE_EXPERTS);
    m->state_size = slot_i(w, S_STATE);
    m->denoising_steps = slot_i(w, S_DENOISE);

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

int cat_extract(catalog_kind kind, const json_t *entry, void *out,
                char *field, size_t fieldlen, char *err, size_t errlen)
{
    walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return 500;
    w->es = (errsink){field, fieldlen, err, errlen};
    int rc;
    if (!json_is_object(entry))
        rc = fail(&w->es, "", "expected an object, got %s", json_kind(entry));
    else
        rc = walk_obj(w, kind_fields(kind), entry, "");
    if (rc == 0)
        rc = kind == CAT_HARDWARE ? fill_hw(w, out) : fill_model(w, out);
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

int cat_merge(catalog_kind kind, json_t *target, const json_t *src, const char *skip,
              char *field, size_t fieldlen, char *err, size_t errlen)
{
    errsink es = {field, fieldlen, err, errlen};
    if (!json_is_object(src))
        return fail(&es, "", "expected an object, got %s", json_kind(src));
    return merge_obj(&es, kind_fields(kind), target, src, "", skip);
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

const char *cat_field_si_unit(catalog_kind kind, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    const fspec *specs = kind_fields(kind);
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

/* ---- where in a file ---------------------------------------------------- */

/* A tiny JSON skimmer that only counts lines; the text has already been
 * parsed by jansson, so it is well-formed. */
typedef struct {
    const char *p, *end;
    int line;
} skim;

static void sk_ws(skim *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n')) {
        if (*s->p == '\n')
            s->line++;
        s->p++;
    }
}

/* At a '"': skip the string; return its raw contents. */
static void sk_string(skim *s, const char **str, size_t *len)
{
    s->p++;
    const char *start = s->p;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\' && s->p + 1 < s->end)
            s->p++;
        s->p++;
    }
    *str = start;
    *len = (size_t)(s->p - start);
    if (s->p < s->end)
        s->p++;
}

static void sk_value(skim *s)
{
    sk_ws(s);
    if (s->p >= s->end)
        return;
    if (*s->p == '"') {
        const char *x;
        size_t n;
        sk_string(s, &x, &n);
        return;
    }
    if (*s->p == '{' || *s->p == '[') {
        int depth = 0;
        while (s->p < s->end) {
            char c = *s->p;
            if (c == '"') {
                const char *x;
                size_t n;
                sk_string(s, &x, &n);
                continue;
            }
            if (c == '\n')
                s->line++;
            s->p++;
            if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                return;
        }
        return;
    }
    while (s->p < s->end && !strchr(",]}\n \t\r", *s->p))
        s->p++;
}

static bool sk_eq(const char *str, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(str, want, len) == 0;
}

/* Inside an object (just after '{'): find member `name`; leaves s at its value. */
static bool sk_find_member(skim *s, const char *name, int *line)
{
    for (;;) {
        sk_ws(s);
        if (s->p >= s->end || *s->p == '}')
            return false;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p != '"')
            return false;
        const char *k;
        size_t kl;
        *line = s->line;
        sk_string(s, &k, &kl);
        sk_ws(s);
        if (s->p < s->end && *s->p == ':')
            s->p++;
        sk_ws(s);
        if (sk_eq(k, kl, name))
            return true;
        sk_value(s);
    }
}

int cat_text_entry_line(const char *text, size_t len, const char *section, long index)
{
    skim s = {text, text + len, 1};
    int line = 1;
    sk_ws(&s);
    if (s.p >= s.end || *s.p != '{')
        return 1;
    s.p++;
    if (!sk_find_member(&s, section, &line))
        return 1;
    if (index < 0 || *s.p != '[')
        return line;
    s.p++;
    for (long i = 0;; i++) {
        sk_ws(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            sk_ws(&s);
        }
        if (s.p >= s.end || *s.p == ']')
            return line;
        if (i == index) {
            int start = s.line, keyline;
            if (*s.p != '{')
                return start;
            s.p++;
            return sk_find_member(&s, "key", &keyline) ? keyline : start;
        }
        sk_value(&s);
    }
}

int cat_text_string_line(const char *text, size_t len, const char *needle)
{
    char q[200];
    int n = snprintf(q, sizeof q, "\"%s\"", needle);
    if (n <= 0 || (size_t)n >= sizeof q)
        return 1;
    size_t ql = (size_t)n;
    int line = 1;
    for (size_t i = 0; i + ql <= len; i++) {
        if (text[i] == '\n')
            line++;
        else if (text[i] == '"' && memcmp(text + i, q, ql) == 0)
            return line;
    }
    return 1;
}
